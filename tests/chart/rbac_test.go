package charttest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// rule is one RBAC rule flattened to comparable strings.
type rule struct {
	groups, resources, verbs string
}

func rulesOf(obj map[string]interface{}) []rule {
	var out []rule
	list, _ := at(obj, "rules").([]interface{})
	for _, r := range list {
		out = append(out, rule{
			groups:    strings.Join(strs(at(r, "apiGroups")), ","),
			resources: strings.Join(append(strs(at(r, "resources")), strs(at(r, "nonResourceURLs"))...), ","),
			verbs:     strings.Join(strs(at(r, "verbs")), ","),
		})
	}
	return out
}

// The operator's ClusterRole, exactly: what the reconcile pipeline, the status writer and the
// event recorder call, and nothing else (docs/behaviour.md#diff-rbac). The Application kinds are
// those of the enabled bundled adapters (defaults: postgres and redis).
func operatorRules(kinds string, extra ...rule) []rule {
	rules := []rule{
		{"autoscaling.cozystack.io", "databasehorizontalautoscalers", "get,list,watch,update"},
		{"autoscaling.cozystack.io", "databasehorizontalautoscalers/status", "patch"},
	}
	if kinds != "" {
		rules = append(rules, rule{"apps.cozystack.io", kinds, "get,list,watch,patch"})
	}
	rules = append(rules, extra...)
	return append(rules,
		rule{"cozystack.io", "workloadmonitors", "get,list,watch"},
		rule{"", "namespaces", "get,list,watch"},
		rule{"", "resourcequotas", "list,watch"},
		rule{"", "events", "create,patch"},
	)
}

var cnpgRule = rule{"postgresql.cnpg.io", "clusters,clusters/scale", "get,list,watch,patch"}

func TestOperatorClusterRoleIsExact(t *testing.T) {
	acme := rule{"acme.example.com", "acmedbs,acmedbs/scale", "get,list,watch,patch"}
	everyAdapter := inlineValues(t, "plugins:\n  enabled: [postgres, mariadb, redis, mongodb, metrics-vm]\n")
	onlyMetrics := inlineValues(t, "plugins:\n  enabled: [metrics-vm]\n")
	cases := []struct {
		name  string
		files []string
		sets  []string
		want  []rule
	}{
		{"defaults", nil, nil, operatorRules("postgreses,redises")},
		{"cnpg enabled", nil, []string{"cnpg.enabled=true"}, operatorRules("postgreses,redises", cnpgRule)},
		{"postgres only", []string{"plugins-selection.yaml"}, nil, operatorRules("postgreses")},
		{"every bundled adapter", []string{everyAdapter}, nil, operatorRules("postgreses,mariadbs,redises,mongodbs")},
		// A third-party plugin's rules come after the operator's own.
		{"no bundled adapter, a third-party one with its rules", []string{"plugins-extra.yaml", onlyMetrics}, nil,
			append(operatorRules(""), acme)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			role := only(t, renderChart(t, tc.files, tc.sets...), "ClusterRole", "autoscaling.cozystack.io:db-autoscaler")
			if got := rulesOf(role); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ClusterRole rules\n got: %v\nwant: %v", got, tc.want)
			}
		})
	}
}

// As the reference chart's test asserted: the Application rule is third, names its resources, no
// wildcard.
func TestApplicationRuleNamesEveryKind(t *testing.T) {
	every := inlineValues(t, "plugins:\n  enabled: [postgres, mariadb, redis, mongodb, metrics-vm]\n")
	role := only(t, renderChart(t, []string{every}), "ClusterRole", "autoscaling.cozystack.io:db-autoscaler")
	expectEqual(t, "rules[2].apiGroups[0]", at(role, "rules[2].apiGroups[0]"), "apps.cozystack.io")
	resources := strs(at(role, "rules[2].resources"))
	for _, want := range []string{"postgreses", "mariadbs", "redises", "mongodbs"} {
		if !contains(resources, want) {
			t.Errorf("rules[2].resources %v lack %s", resources, want)
		}
	}
	if contains(resources, "*") {
		t.Error("rules[2].resources contain a wildcard")
	}
}

// A third-party plugin's rules cannot ask for a wildcard or an escalation verb: the schema
// refuses them before anything renders.
func TestPluginRulesRefuseWildcardsAndEscalation(t *testing.T) {
	for _, bad := range []string{
		`{apiGroups: [acme.example.com], resources: ["*"], verbs: [get]}`,
		`{apiGroups: [acme.example.com], resources: [acmedbs], verbs: [escalate]}`,
		`{apiGroups: [acme.example.com], resources: [acmedbs], verbs: ["*"]}`,
		`{apiGroups: [acme.example.com], resources: [acmedbs]}`,
		// A group wildcard reaches every kind of every group, whatever the resources say.
		`{apiGroups: ["*"], resources: [acmedbs], verbs: [get]}`,
		`{apiGroups: ["acme.*"], resources: [acmedbs], verbs: [get]}`,
		`{apiGroups: [acme.example.com], resources: ["acmedbs/*"], verbs: [get]}`,
		// What reads every tenant's credentials or runs in their pods.
		`{apiGroups: [""], resources: [secrets], verbs: [get]}`,
		`{apiGroups: [""], resources: [pods/exec], verbs: [create]}`,
		`{apiGroups: [""], resources: [pods/attach], verbs: [create]}`,
		`{apiGroups: [""], resources: [serviceaccounts/token], verbs: [create]}`,
		`{apiGroups: [rbac.authorization.k8s.io], resources: [clusterrolebindings], verbs: [create]}`,
		`{apiGroups: [], resources: [acmedbs], verbs: [get]}`,
	} {
		values := inlineValues(t, "plugins:\n  enabled: [metrics-vm]\n  extra:\n"+
			"    - {name: acme-engine, image: acme:1, file: /acme.so, rules: ["+bad+"]}\n")
		if _, err := tryRender(t, []string{values}); err == nil {
			t.Errorf("a plugin rule %s rendered", bad)
		} else if !strings.Contains(err.Error(), "rules") {
			t.Errorf("a plugin rule %s was refused without naming the rules: %v", bad, err)
		}
	}
}

// No role anywhere in the chart grants a wildcard, pods, secrets or escalation verbs.
func TestNoRoleGrantsMoreThanNeeded(t *testing.T) {
	for _, files := range [][]string{nil, {"hardened.yaml"}, {"plugins-extra.yaml"}} {
		r := renderChart(t, files)
		for _, kind := range []string{"ClusterRole", "Role"} {
			for _, obj := range ofKind(r, kind) {
				name := at(obj, "metadata.name")
				for _, ru := range rulesOf(obj) {
					all := ru.groups + "," + ru.resources + "," + ru.verbs
					for _, bad := range []string{"*", "pods", "secrets", "escalate", "bind", "impersonate"} {
						if contains(strings.Split(all, ","), bad) {
							t.Errorf("%s %v grants %q in %v", kind, name, bad, ru)
						}
					}
				}
			}
		}
	}
}

// The Lease is namespaced: a Role in the release namespace, never a cluster-wide grant.
func TestLeaderElectionIsNamespaced(t *testing.T) {
	r := renderChart(t, nil)
	role := only(t, r, "Role", "db-autoscaler-leader-election")
	expectEqual(t, "Role namespace", at(role, "metadata.namespace"), releaseNamespace)
	want := []rule{{"coordination.k8s.io", "leases", "get,update"}, {"coordination.k8s.io", "leases", "create"}}
	if got := rulesOf(role); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("leader-election rules got %v want %v", got, want)
	}
	// get and update reach the operator's own Lease only, not every Lease of the namespace.
	expectEqual(t, "Lease names", strings.Join(strs(at(role, "rules[0].resourceNames")), ","),
		"db-autoscaler.autoscaling.cozystack.io")
	binding := only(t, r, "RoleBinding", "db-autoscaler-leader-election")
	expectEqual(t, "RoleBinding subject", at(binding, "subjects[0].name"), "db-autoscaler")
	expectEqual(t, "RoleBinding subject namespace", at(binding, "subjects[0].namespace"), releaseNamespace)

	// Sharded, each replica lists the Leases to see who holds which shard; unsharded, never.
	sharded := only(t, renderChart(t, nil, "replicas=3", "shards=3"), "Role", "db-autoscaler-leader-election")
	wantSharded := []rule{{"coordination.k8s.io", "leases", "get,update"}, {"coordination.k8s.io", "leases", "create,list"}}
	if got := rulesOf(sharded); fmt.Sprint(got) != fmt.Sprint(wantSharded) {
		t.Errorf("sharded leader-election rules got %v want %v", got, wantSharded)
	}
	expectEqual(t, "sharded Lease names", strings.Join(strs(at(sharded, "rules[0].resourceNames")), ","),
		"db-autoscaler.autoscaling.cozystack.io-shard-0,db-autoscaler.autoscaling.cozystack.io-member-0,"+
			"db-autoscaler.autoscaling.cozystack.io-shard-1,db-autoscaler.autoscaling.cozystack.io-member-1,"+
			"db-autoscaler.autoscaling.cozystack.io-shard-2,db-autoscaler.autoscaling.cozystack.io-member-2")

	off := renderChart(t, nil, "replicas=1", "leaderElection.enabled=false")
	if len(ofKind(off, "Role")) != 0 {
		t.Error("leader election off still renders the lease Role")
	}
}

// The auth-delegator binding exists exactly when the metrics endpoint checks tokens.
func TestAuthDelegatorOnlyWithSecureMetrics(t *testing.T) {
	const name = "autoscaling.cozystack.io:db-autoscaler:auth-delegator"
	cases := []struct {
		sets []string
		want bool
	}{
		{nil, true},
		{[]string{"metrics.secure=false"}, false},
		{[]string{"metrics.enabled=false"}, false},
	}
	for _, tc := range cases {
		r := renderChart(t, nil, tc.sets...)
		if got := has(r, "ClusterRoleBinding", name); got != tc.want {
			t.Errorf("with %v: auth-delegator binding rendered=%v, want %v", tc.sets, got, tc.want)
			continue
		}
		if tc.want {
			b := only(t, r, "ClusterRoleBinding", name)
			expectEqual(t, "auth-delegator roleRef", at(b, "roleRef.name"), "system:auth-delegator")
			expectEqual(t, "auth-delegator subject", at(b, "subjects[0].name"), "db-autoscaler")
		}
	}
}

// Every binding points at a role the chart renders (or a built-in one) and at our ServiceAccount.
func TestBindingsReferToRenderedRoles(t *testing.T) {
	r := renderChart(t, []string{"hardened.yaml"})
	builtin := map[string]bool{"system:auth-delegator": true}
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		for _, b := range ofKind(r, kind) {
			ref := at(b, "roleRef.name").(string)
			refKind := at(b, "roleRef.kind").(string)
			if !builtin[ref] && !has(r, refKind, ref) {
				t.Errorf("%s %v refers to %s %s, which is not rendered", kind, at(b, "metadata.name"), refKind, ref)
			}
		}
	}
	readers := only(t, r, "ClusterRoleBinding", "autoscaling.cozystack.io:db-autoscaler:metrics-reader")
	expectEqual(t, "metrics reader subject", at(readers, "subjects[0]"), map[string]interface{}{
		"kind": "ServiceAccount", "name": "vmagent-vmagent", "namespace": "cozy-monitoring"})
	reader := only(t, r, "ClusterRole", "autoscaling.cozystack.io:db-autoscaler:metrics-reader")
	if got := rulesOf(reader); fmt.Sprint(got) != fmt.Sprint([]rule{{"", "/metrics", "get"}}) {
		t.Errorf("metrics-reader rules %v", got)
	}
}

// As the reference chart's test asserted: tenant roles aggregate into the platform's tenant view
// and admin.
func TestTenantRolesAggregate(t *testing.T) {
	r := renderChart(t, nil)
	view := only(t, r, "ClusterRole", "cozy:dbautoscaler:view")
	admin := only(t, r, "ClusterRole", "cozy:dbautoscaler:admin")
	expectEqual(t, "view aggregation label", labelsOf(view)["rbac.cozystack.io/aggregate-to-tenant-view"], "true")
	expectEqual(t, "admin aggregation label", labelsOf(admin)["rbac.cozystack.io/aggregate-to-tenant-admin"], "true")
	dha := "autoscaling.cozystack.io"
	if got := rulesOf(view); fmt.Sprint(got) != fmt.Sprint([]rule{{dha, "databasehorizontalautoscalers", "get,list,watch"}}) {
		t.Errorf("view rules %v", got)
	}
	if got := rulesOf(admin); fmt.Sprint(got) != fmt.Sprint([]rule{{dha, "databasehorizontalautoscalers", "create,update,patch,delete"}}) {
		t.Errorf("admin rules %v", got)
	}
	// Tenants never get the status subresource: status is the operator's word.
	for _, obj := range []map[string]interface{}{view, admin} {
		for _, ru := range rulesOf(obj) {
			if strings.Contains(ru.resources, "/status") {
				t.Errorf("tenant role %v grants %s", at(obj, "metadata.name"), ru.resources)
			}
		}
	}
	custom := renderChart(t, []string{inlineValues(t, `
tenantRoles:
  viewLabels:
    rbac.cozystack.io/aggregate-to-tenant-view: "true"
    rbac.authorization.k8s.io/aggregate-to-view: "true"
`)})
	labels := labelsOf(only(t, custom, "ClusterRole", "cozy:dbautoscaler:view"))
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if labels["rbac.authorization.k8s.io/aggregate-to-view"] != "true" {
		t.Errorf("an extra aggregation label from values is missing: %v", keys)
	}
	if len(ofKind(renderChart(t, nil, "tenantRoles.enabled=false"), "ClusterRole")) != 2 {
		t.Error("tenantRoles.enabled=false must leave only the operator and metrics-reader ClusterRoles")
	}
}
