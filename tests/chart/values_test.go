package charttest

import (
	"strings"
	"testing"
)

// values.schema.json turns typos and impossible settings into install errors (Helm validates
// values against it before rendering; so does the test renderer).
func TestValuesSchema(t *testing.T) {
	cases := []struct {
		name    string
		values  string
		wantErr string // empty: must render
	}{
		{"defaults", ``, ""},
		{"all test values files combine", ``, ""},
		{"unknown top-level key (typo)", `replica: 3`, "replica"},
		{"unknown nested key", `webhook: {failurPolicy: Fail}`, "failurPolicy"},
		{"zero replicas", `replicas: 0`, "replicas"},
		{"log format", `log: {format: xml}`, "log.format"},
		{"log level", `log: {level: verbose}`, "log.level"},
		{"sync period without unit", `syncPeriod: "60"`, "syncPeriod"},
		{"grouped query max age below a second", `groupedQueryMaxAge: 500ms`, "groupedQueryMaxAge"},
		{"grouped query max age off", `groupedQueryMaxAge: 0s`, ""},
		{"no workers", `workers: 0`, "workers"},
		{"API rate limit of zero", `kubeApi: {qps: 0}`, "kubeApi.qps"},
		{"fractional burst", `kubeApi: {burst: 1.5}`, "kubeApi.burst"},
		{"port out of range", `metrics: {port: 70000}`, "metrics.port"},
		{"webhook timeout above the apiserver's 30 s", `webhook: {timeoutSeconds: 31}`, "webhook.timeoutSeconds"},
		{"digest that is not sha256", `image: {digest: "latest"}`, "image.digest"},
		{"relative plugin dir", `plugins: {dir: plugins}`, "plugins.dir"},
		{"scrape reader without namespace", `metrics: {readers: [{name: vmagent}]}`, "namespace"},
		{"label value that is not a string", `dashboard: {labels: {grafana_dashboard: 1}}`, "dashboard.labels.grafana_dashboard"},
		{"two replicas without a lease", `leaderElection: {enabled: false}`, "replicas > 1 requires leaderElection.enabled"},
		{"one replica without a lease", "replicas: 1\nleaderElection: {enabled: false}", ""},
		{"shards without a lease", "replicas: 1\nshards: 2\nleaderElection: {enabled: false}", "shards > 1 requires leaderElection.enabled"},
		{"zero shards", `shards: 0`, "shards"},
		{"fractional shards", `shards: 1.5`, "shards"},
		{"shard key of another kind", `shardKey: name`, "shardKey"},
		{"shard key by namespace", "shards: 2\nshardKey: namespace", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := []string{inlineValues(t, tc.values)}
			if tc.name == "all test values files combine" {
				files = []string{"plugins-selection.yaml", "hardened.yaml"}
			}
			_, err := tryRender(t, files)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("want a clean render, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
			}
		})
	}
}

// Namespaced objects land in the release namespace, cluster-scoped ones carry no namespace,
// and no two objects share a kind and name (a later one would silently replace the first).
func TestManifestInventory(t *testing.T) {
	clusterScoped := map[string]bool{
		"ClusterRole": true, "ClusterRoleBinding": true, "ValidatingWebhookConfiguration": true,
		"CustomResourceDefinition": true,
	}
	for _, files := range [][]string{nil, {"hardened.yaml"}, {"plugins-extra.yaml"}} {
		r := renderChart(t, files)
		seen := map[string]string{}
		for _, m := range r.Manifests {
			if m.Kind() == "" || m.Name() == "" || m.Object["apiVersion"] == nil {
				t.Errorf("%s: a document without apiVersion, kind or name:\n%s", m.Template, m.Source)
				continue
			}
			key := m.Kind() + "/" + m.Namespace() + "/" + m.Name()
			if prev, dup := seen[key]; dup {
				t.Errorf("%s rendered twice (%s and %s)", key, prev, m.Template)
			}
			seen[key] = m.Template
			if clusterScoped[m.Kind()] && m.Namespace() != "" {
				t.Errorf("cluster-scoped %s %s has namespace %s", m.Kind(), m.Name(), m.Namespace())
			}
			if !clusterScoped[m.Kind()] && m.Namespace() != releaseNamespace {
				t.Errorf("%s %s is in namespace %q, want the release namespace", m.Kind(), m.Name(), m.Namespace())
			}
			if labelsOf(m.Object)["app.kubernetes.io/managed-by"] != "Helm" {
				t.Errorf("%s %s lacks the standard labels", m.Kind(), m.Name())
			}
		}
	}
}
