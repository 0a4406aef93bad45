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
// event recorder call: the reference chart's rules minus its unused pods grant, plus events.k8s.io
// (docs/behaviour.md#diff-rbac).
var operatorRules = []rule{
	{"autoscaling.cozystack.io", "databasehorizontalautoscalers", "get,list,watch,update,patch"},
	{"autoscaling.cozystack.io", "databasehorizontalautoscalers/status", "get,update,patch"},
	{"apps.cozystack.io", "postgreses,mariadbs,redises,mongodbs", "get,list,watch,patch"},
	{"cozystack.io", "workloadmonitors", "get,list,watch"},
	{"", "resourcequotas,namespaces", "get,list,watch"},
	{"", "events", "create,patch"},
	{"events.k8s.io", "events", "create,patch"},
}

var cnpgRule = rule{"postgresql.cnpg.io", "clusters,clusters/scale", "get,list,watch,patch"}

func TestOperatorClusterRoleIsExact(t *testing.T) {
	cases := []struct {
		name string
		sets []string
		want []rule
	}{
		{"defaults", nil, operatorRules},
		{"cnpg enabled", []string{"cnpg.enabled=true"}, append(append(append([]rule{}, operatorRules[:3]...), cnpgRule), operatorRules[3:]...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			role := only(t, renderChart(t, nil, tc.sets...), "ClusterRole", "autoscaling.cozystack.io:db-autoscaler")
			got := rulesOf(role)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ClusterRole rules\n got: %v\nwant: %v", got, tc.want)
			}
		})
	}
}

// As the reference chart's test asserted: the Application rule is third, names its resources, no
// wildcard.
func TestApplicationRuleNamesEveryKind(t *testing.T) {
	role := only(t, renderChart(t, nil), "ClusterRole", "autoscaling.cozystack.io:db-autoscaler")
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
	want := []rule{{"coordination.k8s.io", "leases", "get,list,watch,create,update,patch"}}
	if got := rulesOf(role); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("leader-election rules got %v want %v", got, want)
	}
	binding := only(t, r, "RoleBinding", "db-autoscaler-leader-election")
	expectEqual(t, "RoleBinding subject", at(binding, "subjects[0].name"), "db-autoscaler")
	expectEqual(t, "RoleBinding subject namespace", at(binding, "subjects[0].namespace"), releaseNamespace)

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
