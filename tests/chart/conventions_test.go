package charttest

import (
	"strings"
	"testing"

	"dha.local/charttest/helmrender"
)

// KEDA's names for the pod's tolerations; extraTolerations, the former name, still adds its own.
func TestTolerationsAndTheirFormerName(t *testing.T) {
	keys := func(r *helmrender.Result) []string {
		var out []string
		list, _ := at(only(t, r, "Deployment", "db-autoscaler"), "spec.template.spec.tolerations").([]interface{})
		for _, tol := range list {
			out = append(out, at(tol, "key").(string))
		}
		return out
	}
	r := renderChart(t, []string{inlineValues(t, "tolerations: [{key: dedicated, operator: Exists}]\n"+
		"extraTolerations: [{key: legacy, operator: Exists}]\n")})
	got := keys(r)
	for _, want := range []string{"node-role.kubernetes.io/control-plane", "dedicated", "legacy"} {
		if !contains(got, want) {
			t.Errorf("tolerations %v lack %q", got, want)
		}
	}
	none := renderChart(t, nil, "controlPlane.tolerate=false")
	if v := at(only(t, none, "Deployment", "db-autoscaler"), "spec.template.spec.tolerations"); v != nil {
		t.Errorf("tolerations rendered with none asked for: %v", v)
	}
}

// serviceAccount.create=false uses the named ServiceAccount: the pod runs as it and every binding
// of the chart's RBAC names it.
func TestServiceAccountCreateAndName(t *testing.T) {
	r := renderChart(t, nil, "serviceAccount.create=false", "serviceAccount.name=platform-operator")
	if has(r, "ServiceAccount", "db-autoscaler") || has(r, "ServiceAccount", "platform-operator") {
		t.Errorf("a ServiceAccount rendered with serviceAccount.create=false: %s", inventory(r))
	}
	d := only(t, r, "Deployment", "db-autoscaler")
	expectEqual(t, "serviceAccountName", at(d, "spec.template.spec.serviceAccountName"), "platform-operator")
	for _, b := range []struct{ kind, name string }{
		{"ClusterRoleBinding", "autoscaling.cozystack.io:db-autoscaler"},
		{"ClusterRoleBinding", "autoscaling.cozystack.io:db-autoscaler:auth-delegator"},
		{"RoleBinding", "db-autoscaler-leader-election"},
	} {
		subjects := at(only(t, r, b.kind, b.name), "subjects").([]interface{})
		expectEqual(t, b.name+" subject", at(subjects[0], "name"), "platform-operator")
	}
	named := renderChart(t, nil, "serviceAccount.name=platform-operator")
	only(t, named, "ServiceAccount", "platform-operator")
}

// Probe knobs under their Kubernetes names, the defaults kept; the former health.* keys still win.
func TestProbeKnobs(t *testing.T) {
	probe := func(r *helmrender.Result, which string) map[string]interface{} {
		return at(only(t, r, "Deployment", "db-autoscaler"), "spec.template.spec.containers[0]."+which).(map[string]interface{})
	}
	defaults := renderChart(t, nil)
	for which, want := range map[string][4]float64{"readinessProbe": {5, 10, 3, 3}, "livenessProbe": {15, 20, 5, 6}} {
		p := probe(defaults, which)
		got := [4]float64{toFloat(p["initialDelaySeconds"]), toFloat(p["periodSeconds"]), toFloat(p["timeoutSeconds"]), toFloat(p["failureThreshold"])}
		if got != want {
			t.Errorf("%s defaults (delay, period, timeout, failures) = %v, want %v", which, got, want)
		}
	}
	set := renderChart(t, nil, "readinessProbe.periodSeconds=7", "livenessProbe.timeoutSeconds=11",
		"livenessProbe.failureThreshold=9", "readinessProbe.initialDelaySeconds=0")
	expectEqual(t, "readiness period", toFloat(probe(set, "readinessProbe")["periodSeconds"]), 7.0)
	expectEqual(t, "readiness delay", toFloat(probe(set, "readinessProbe")["initialDelaySeconds"]), 0.0)
	expectEqual(t, "liveness timeout", toFloat(probe(set, "livenessProbe")["timeoutSeconds"]), 11.0)
	expectEqual(t, "liveness failures", toFloat(probe(set, "livenessProbe")["failureThreshold"]), 9.0)
	old := renderChart(t, nil, "health.readiness.timeoutSeconds=8", "readinessProbe.timeoutSeconds=4")
	expectEqual(t, "health.readiness.timeoutSeconds (former name) wins", toFloat(probe(old, "readinessProbe")["timeoutSeconds"]), 8.0)
	expectEqual(t, "the rest from readinessProbe", toFloat(probe(old, "readinessProbe")["periodSeconds"]), 10.0)
	if _, err := tryRender(t, nil, "livenessProbe.timeoutSeconds=0"); err == nil {
		t.Error("a 0 s liveness timeout accepted by the schema")
	}
}

func TestRevisionHistoryLimit(t *testing.T) {
	expectEqual(t, "default", toFloat(at(only(t, renderChart(t, nil), "Deployment", "db-autoscaler"), "spec.revisionHistoryLimit")), 10.0)
	expectEqual(t, "set", toFloat(at(only(t, renderChart(t, nil, "revisionHistoryLimit=2"), "Deployment", "db-autoscaler"), "spec.revisionHistoryLimit")), 2.0)
}

// extraObjects are installed with the release, rendered through tpl.
func TestExtraObjects(t *testing.T) {
	r := renderChart(t, []string{inlineValues(t, `extraObjects:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: extra, namespace: "{{ .Release.Namespace }}"}
    data: {release: "{{ .Release.Name }}"}
`)})
	cm := only(t, r, "ConfigMap", "extra")
	expectEqual(t, "namespace through tpl", at(cm, "metadata.namespace"), releaseNamespace)
	expectEqual(t, "data through tpl", at(cm, "data.release"), releaseName)
	if has(renderChart(t, nil), "ConfigMap", "extra") {
		t.Error("extraObjects rendered by default")
	}
}

// The ServiceMonitor sends a token from a Secret through authorization (bearerTokenFile is
// deprecated in the Prometheus operator), and without one a secure scrape is refused at render.
func TestServiceMonitorAuthorization(t *testing.T) {
	r := renderChart(t, nil, "metrics.serviceMonitor.enabled=true",
		"metrics.serviceMonitor.bearerTokenSecret.name=scrape", "metrics.serviceMonitor.bearerTokenSecret.key=token")
	ep := "spec.endpoints[0]."
	sm := only(t, r, "ServiceMonitor", "db-autoscaler")
	expectEqual(t, "authorization.type", at(sm, ep+"authorization.type"), "Bearer")
	expectEqual(t, "authorization.credentials", at(sm, ep+"authorization.credentials"),
		map[string]interface{}{"name": "scrape", "key": "token"})
	walk(sm, "", func(path, key string, _ interface{}) {
		if key == "bearerTokenFile" || key == "bearerTokenSecret" {
			t.Errorf("deprecated %s at %s", key, path)
		}
	})
	_, err := tryRender(t, nil, "metrics.serviceMonitor.enabled=true")
	if err == nil || !strings.Contains(err.Error(), "metrics.serviceMonitor.bearerTokenSecret") {
		t.Errorf("a secure ServiceMonitor without a token Secret: %v", err)
	}
	insecure := only(t, renderChart(t, nil, "metrics.serviceMonitor.enabled=true", "metrics.secure=false"), "ServiceMonitor", "db-autoscaler")
	if at(insecure, ep+"authorization") != nil {
		t.Error("a scrape of unauthenticated metrics sends a token")
	}
}

func toFloat(v interface{}) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return -1
}
