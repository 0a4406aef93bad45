package charttest

import (
	"strings"
	"testing"
)

// The reference chart's deployment assertions, adapted: replicas, leader election, identities, cert
// mount, security.
func TestDeploymentReferenceAssertions(t *testing.T) {
	r := renderChart(t, nil)
	d := only(t, r, "Deployment", "db-autoscaler")
	args := operatorArgs(t, r)

	expectEqual(t, "spec.replicas", at(d, "spec.replicas"), 2)
	for _, want := range []string{
		"run",
		"--leader-elect",
		"--leader-election-namespace=cozy-db-autoscaler",
		"--apps-api-username=system:serviceaccount:cozy-system:cozystack-api",
		"--cert-dir=" + certDir,
		"--webhook-port=9443",
		"--metrics-bind-address=:8443",
		"--metrics-secure=true",
		"--health-probe-bind-address=:8081",
		"--sync-period=60s",
		"--grouped-query-max-age=10s",
		"--workers=8",
		"--kube-api-qps=500",
		"--kube-api-burst=1000",
		"--log-level=info",
		"--log-format=json",
	} {
		if !contains(args, want) {
			t.Errorf("args %v lack %q", args, want)
		}
	}
	// The webhook allows the operator nothing, so its identity is not passed (the flag is ignored).
	if len(flagValues(args, "--operator-username")) != 0 {
		t.Errorf("args %v pass --operator-username, which the operator ignores", args)
	}
	if args[0] != "run" {
		t.Errorf("first arg must be the subcommand run, got %q", args[0])
	}
	spec := "spec.template.spec."
	expectEqual(t, "volumeMounts[0].mountPath", at(d, spec+"containers[0].volumeMounts[0].mountPath"), certDir)
	expectEqual(t, "volumeMounts[0].readOnly", at(d, spec+"containers[0].volumeMounts[0].readOnly"), true)
	expectEqual(t, "volumes[0].secret.secretName", at(d, spec+"volumes[0].secret.secretName"), "db-autoscaler-cert")
	expectEqual(t, "volumes[0].secret.defaultMode (0440)", at(d, spec+"volumes[0].secret.defaultMode"), 288)
	expectEqual(t, "pod fsGroup", at(d, spec+"securityContext.fsGroup"), 65532)
	expectEqual(t, "pod runAsNonRoot", at(d, spec+"securityContext.runAsNonRoot"), true)
	expectEqual(t, "pod runAsUser", at(d, spec+"securityContext.runAsUser"), 65532)
	expectEqual(t, "pod seccomp", at(d, spec+"securityContext.seccompProfile.type"), "RuntimeDefault")
	expectEqual(t, "serviceAccountName", at(d, spec+"serviceAccountName"), "db-autoscaler")
	only(t, r, "ServiceAccount", "db-autoscaler")
}

// The operator's webhook listens on loopback unless told otherwise; in the Pod it must listen
// where the Service sends the API server's calls: the Pod's own address, from the downward API.
func TestWebhookListensOnThePodsAddress(t *testing.T) {
	r := renderChart(t, nil)
	d := only(t, r, "Deployment", "db-autoscaler")
	if got := flagValues(operatorArgs(t, r), "--webhook-host"); len(got) != 1 || got[0] != "$(POD_IP)" {
		t.Errorf("--webhook-host: got %v, want the one value $(POD_IP)", got)
	}
	found := false
	for _, e := range at(d, "spec.template.spec.containers[0].env").([]interface{}) {
		if at(e, "name") == "POD_IP" {
			found = true
			expectEqual(t, "POD_IP's source", at(e, "valueFrom.fieldRef.fieldPath"), "status.podIP")
		}
	}
	if !found {
		t.Errorf("the container has no POD_IP variable for --webhook-host=$(POD_IP)")
	}
}

// Every container, init containers included, runs under the restricted pod security standard.
func TestEveryContainerIsRestricted(t *testing.T) {
	for _, files := range [][]string{nil, {"plugins-extra.yaml"}} {
		r := renderChart(t, files)
		for _, c := range containers(only(t, r, "Deployment", "db-autoscaler")) {
			name := c["name"]
			sc := c["securityContext"]
			expectEqual(t, "allowPrivilegeEscalation of "+name.(string), at(sc, "allowPrivilegeEscalation"), false)
			expectEqual(t, "readOnlyRootFilesystem of "+name.(string), at(sc, "readOnlyRootFilesystem"), true)
			expectEqual(t, "runAsNonRoot of "+name.(string), at(sc, "runAsNonRoot"), true)
			expectEqual(t, "runAsUser of "+name.(string), at(sc, "runAsUser"), 65532)
			expectEqual(t, "capabilities.drop of "+name.(string), at(sc, "capabilities.drop"), []string{"ALL"})
			expectEqual(t, "capabilities.add of "+name.(string), at(sc, "capabilities.add"), nil)
			expectEqual(t, "seccomp of "+name.(string), at(sc, "seccompProfile.type"), "RuntimeDefault")
			expectEqual(t, "privileged of "+name.(string), at(sc, "privileged"), nil)
			if at(c, "resources.limits.memory") == nil {
				t.Errorf("container %v has no memory limit", name)
			}
		}
	}
}

// Two replicas spread over nodes, on control-plane nodes when possible, and a PDB that keeps
// one serving the webhook during a drain.
func TestSchedulingAndDisruption(t *testing.T) {
	r := renderChart(t, nil)
	d := only(t, r, "Deployment", "db-autoscaler")
	spec := "spec.template.spec."

	tolerated := map[string]bool{}
	for _, tol := range at(d, spec+"tolerations").([]interface{}) {
		if at(tol, "operator") == "Exists" && at(tol, "effect") == "NoSchedule" {
			tolerated[at(tol, "key").(string)] = true
		}
	}
	for _, key := range []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"} {
		if !tolerated[key] {
			t.Errorf("no Exists/NoSchedule toleration for %s", key)
		}
	}
	pref := spec + "affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
	expectEqual(t, "node preference weight", at(d, pref+"weight"), 100)
	expectEqual(t, "node preference key", at(d, pref+"preference.matchExpressions[0].key"), "node-role.kubernetes.io/control-plane")
	anti := spec + "affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
	expectEqual(t, "anti-affinity weight", at(d, anti+"weight"), 100)
	expectEqual(t, "anti-affinity topology", at(d, anti+"podAffinityTerm.topologyKey"), "kubernetes.io/hostname")
	expectEqual(t, "anti-affinity selector", at(d, anti+"podAffinityTerm.labelSelector.matchLabels"), map[string]interface{}{"app": "db-autoscaler"})

	pdb := only(t, r, "PodDisruptionBudget", "db-autoscaler")
	expectEqual(t, "pdb maxUnavailable", at(pdb, "spec.maxUnavailable"), 1)
	expectEqual(t, "pdb selector", at(pdb, "spec.selector.matchLabels"), at(d, "spec.selector.matchLabels"))

	// Probes hit the plain-HTTP health port, which must be a declared container port.
	ports := map[string]bool{}
	for _, p := range at(d, spec+"containers[0].ports").([]interface{}) {
		ports[at(p, "name").(string)] = true
	}
	for _, probe := range []struct{ field, path string }{{"readinessProbe", "/readyz"}, {"livenessProbe", "/healthz"}} {
		expectEqual(t, probe.field+" path", at(d, spec+"containers[0]."+probe.field+".httpGet.path"), probe.path)
		port, _ := at(d, spec+"containers[0]."+probe.field+".httpGet.port").(string)
		if !ports[port] {
			t.Errorf("%s uses port %q, not a container port (%v)", probe.field, port, ports)
		}
	}
	// The kubelet's 1 s default timeout and 3 failures let a short connection flood restart the
	// pod or empty the Service.
	expectEqual(t, "readiness timeout", at(d, spec+"containers[0].readinessProbe.timeoutSeconds"), 3.0)
	expectEqual(t, "readiness failures", at(d, spec+"containers[0].readinessProbe.failureThreshold"), 3.0)
	expectEqual(t, "liveness timeout", at(d, spec+"containers[0].livenessProbe.timeoutSeconds"), 5.0)
	expectEqual(t, "liveness failures", at(d, spec+"containers[0].livenessProbe.failureThreshold"), 6.0)
}

// Every selector the chart renders must match the pods, or the Service, PDB or scrape silently
// selects nothing.
func TestSelectorsMatchThePods(t *testing.T) {
	r := renderChart(t, nil)
	d := only(t, r, "Deployment", "db-autoscaler")
	podLabels, _ := at(d, "spec.template.metadata.labels").(map[string]interface{})
	matches := func(what string, selector interface{}) {
		sel, _ := selector.(map[string]interface{})
		if len(sel) == 0 {
			t.Errorf("%s: empty selector", what)
		}
		for k, v := range sel {
			if podLabels[k] != v {
				t.Errorf("%s: selector %s=%v does not match the pod labels %v", what, k, v, podLabels)
			}
		}
	}
	matches("Deployment", at(d, "spec.selector.matchLabels"))
	matches("Service db-autoscaler", at(only(t, r, "Service", "db-autoscaler"), "spec.selector"))
	matches("Service db-autoscaler-metrics", at(only(t, r, "Service", "db-autoscaler-metrics"), "spec.selector"))
	matches("PodDisruptionBudget", at(only(t, r, "PodDisruptionBudget", "db-autoscaler"), "spec.selector.matchLabels"))
}

// The operator's flags (docs/operator.md). An arg the binary does not know would crash-loop the pods.
var operatorFlags = map[string]bool{
	"--kubeconfig": true, "--leader-elect": true, "--leader-election-namespace": true, "--shards": true, "--shard-key": true,
	"--plugin-dir": true, "--plugins": true, "--plugin-config": true,
	"--metrics-bind-address": true, "--health-probe-bind-address": true, "--webhook-port": true, "--webhook-host": true,
	"--cert-dir": true, "--operator-username": true, "--apps-api-username": true,
	"--sync-period": true, "--grouped-query-max-age": true, "--workers": true, "--kube-api-qps": true, "--kube-api-burst": true, "--log-level": true, "--log-format": true, "--metrics-secure": true,
	"--webhook-client-ca": true, "--webhook-client-names": true,
}

func TestArgsUseOnlyOperatorFlags(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		sets  []string
	}{
		{"defaults", nil, nil},
		{"plugin selection", []string{"plugins-selection.yaml"}, nil},
		{"extra plugins", []string{"plugins-extra.yaml"}, nil},
		{"hardened", []string{"hardened.yaml"}, nil},
		{"metrics off", nil, []string{"metrics.enabled=false"}},
		{"single replica without leader election", nil, []string{"replicas=1", "leaderElection.enabled=false"}},
		{"sharded", nil, []string{"replicas=3", "shards=3"}},
		{"sharded by namespace", nil, []string{"replicas=3", "shards=3", "shardKey=namespace"}},
		{"webhook client CA", []string{"webhook-client-ca.yaml"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := operatorArgs(t, renderChart(t, tc.files, tc.sets...))
			for _, a := range args[1:] {
				name := a
				if i := strings.IndexByte(a, '='); i >= 0 {
					name = a[:i]
				}
				if !operatorFlags[name] {
					t.Errorf("arg %q is not an operator flag", a)
				}
			}
		})
	}
}

// Single-shard (the default) passes no --shards and no --shard-key, so the operator runs
// exactly as without sharding; shards > 1 passes the count and the key.
func TestShardsFlag(t *testing.T) {
	for _, a := range operatorArgs(t, renderChart(t, nil, "shardKey=namespace")) {
		if strings.HasPrefix(a, "--shard") {
			t.Errorf("a single-shard render passes %q", a)
		}
	}
	args := operatorArgs(t, renderChart(t, nil, "replicas=3", "shards=3"))
	if !contains(args, "--shards=3") || !contains(args, "--shard-key=namespace-name") {
		t.Errorf("shards=3 must pass --shards=3 and the default --shard-key=namespace-name, args %v", args)
	}
	args = operatorArgs(t, renderChart(t, nil, "replicas=3", "shards=3", "shardKey=namespace"))
	if !contains(args, "--shard-key=namespace") {
		t.Errorf("shardKey=namespace must pass --shard-key=namespace, args %v", args)
	}
}

func TestMetricsDisabledTurnsTheEndpointOff(t *testing.T) {
	r := renderChart(t, nil, "metrics.enabled=false")
	args := operatorArgs(t, r)
	if !contains(args, "--metrics-bind-address=0") {
		t.Errorf("metrics off must pass --metrics-bind-address=0, args %v", args)
	}
	for _, kind := range []string{"VMServiceScrape"} {
		if len(ofKind(r, kind)) != 0 {
			t.Errorf("metrics off still renders a %s", kind)
		}
	}
	if has(r, "Service", "db-autoscaler-metrics") {
		t.Error("metrics off still renders the metrics Service")
	}
}

func TestImageReference(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	cases := []struct {
		name string
		sets []string
		want string
	}{
		{"appVersion by default", nil, "ghcr.io/cozystack/db-autoscaler:0.1.0"},
		{"explicit tag", []string{"image.tag=v9.9.9"}, "ghcr.io/cozystack/db-autoscaler:v9.9.9"},
		{"digest wins over tag", []string{"image.tag=v9.9.9", "image.digest=" + digest}, "ghcr.io/cozystack/db-autoscaler@" + digest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := only(t, renderChart(t, nil, tc.sets...), "Deployment", "db-autoscaler")
			expectEqual(t, "image", at(d, "spec.template.spec.containers[0].image"), tc.want)
		})
	}
}
