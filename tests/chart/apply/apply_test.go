// Package apply installs the chart's CRD and rendered manifests with kubectl into the embedded
// API server (dha-apiserver) and checks the DHA API as a tenant meets it: defaults, the
// validation rules, printer columns and the status schema the operator writes.
package apply

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dha.local/charttest/helmrender"
	"gopkg.in/yaml.v3"
)

const namespace = "cozy-db-autoscaler"

type cluster struct {
	t          *testing.T
	kubeconfig string
	dir        string
}

func (c *cluster) kubectl(stdin string, args ...string) (string, error) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", c.kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		c.t.Fatalf("kubectl %s did not finish in 30s", strings.Join(args, " "))
	}
	return out.String(), err
}

func (c *cluster) mustKubectl(stdin string, args ...string) string {
	c.t.Helper()
	out, err := c.kubectl(stdin, args...)
	if err != nil {
		c.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func startAPIServer(t *testing.T) *cluster {
	t.Helper()
	bin := os.Getenv("DHA_APISERVER_BIN")
	if bin == "" {
		t.Fatal("DHA_APISERVER_BIN is not set: build the dha-apiserver target (run through ctest)")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("dha-apiserver binary %s: %v (build the dha-apiserver target)", bin, err)
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatal("kubectl not found in PATH")
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := &cluster{t: t, kubeconfig: filepath.Join(dir, "kubeconfig"), dir: dir}
	logFile, err := os.Create(filepath.Join(dir, "apiserver.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--listen", addr, "--kubeconfig-out", c.kubeconfig)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logFile.Close()
	})
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(c.kubeconfig); err == nil {
			if _, err := c.kubectl("", "get", "namespaces"); err == nil {
				return c
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(logFile.Name())
	t.Fatalf("dha-apiserver did not answer within 15s:\n%s", log)
	return nil
}

// createNamespace applies a Namespace (kubectl create would send protobuf, which the embedded
// server does not speak; apply sends JSON).
func (c *cluster) createNamespace(name string) {
	c.t.Helper()
	c.mustKubectl("apiVersion: v1\nkind: Namespace\nmetadata: {name: "+name+"}\n", "apply", "-f", "-")
}

func sourceDir(t *testing.T) string {
	dir := os.Getenv("DHA_SOURCE_DIR")
	if dir == "" {
		t.Fatal("DHA_SOURCE_DIR is not set (run through tests/chart/run-go-tests.sh)")
	}
	return dir
}

// installCRD applies the chart's CRD and waits until the DHA resource is served.
func installCRD(t *testing.T, c *cluster) {
	t.Helper()
	crd := filepath.Join(sourceDir(t), "charts", "db-autoscaler", "crds", "autoscaling.cozystack.io_databasehorizontalautoscalers.yaml")
	c.mustKubectl("", "apply", "-f", crd)
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := c.kubectl("", "get", "dha", "-A")
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dha resource is not served after applying the CRD: %s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// servedKinds lists apiVersion/Kind pairs from discovery (kubectl api-resources).
func servedKinds(t *testing.T, c *cluster) map[string]bool {
	t.Helper()
	out := c.mustKubectl("", "api-resources", "--no-headers")
	kinds := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 {
			// NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
			kinds[f[len(f)-3]+"/"+f[len(f)-1]] = true
		}
	}
	return kinds
}

// The rendered manifests whose kinds the embedded server serves apply cleanly, and re-apply as
// unchanged. Kinds it does not serve (Deployment, Service, RBAC, PDB, cert-manager, VM operator)
// are listed in the log; the render tests cover their content.
func TestRenderedManifestsApply(t *testing.T) {
	c := startAPIServer(t)
	installCRD(t, c)
	r, err := helmrender.Render(filepath.Join(sourceDir(t), "charts", "db-autoscaler"),
		helmrender.Options{ReleaseName: "db-autoscaler", Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	served := servedKinds(t, c)
	var docs []string
	applied := map[string]bool{}
	var skipped []string
	for _, m := range r.Manifests {
		key := fmt.Sprint(m.Object["apiVersion"]) + "/" + m.Kind()
		if !served[key] {
			skipped = append(skipped, key)
			continue
		}
		docs = append(docs, m.Source)
		applied[m.Kind()] = true
	}
	t.Logf("not served by the embedded API server, not applied: %v", skipped)
	for _, want := range []string{"ServiceAccount", "ConfigMap", "ValidatingWebhookConfiguration"} {
		if !applied[want] {
			t.Errorf("%s was not applied: the embedded server should serve it (served: %v)", want, served)
		}
	}
	c.createNamespace(namespace)
	manifest := strings.Join(docs, "\n---\n")
	out := c.mustKubectl(manifest, "apply", "-f", "-")
	if strings.Contains(out, "Warning") {
		t.Errorf("apply warned:\n%s", out)
	}
	again := c.mustKubectl(manifest, "apply", "-f", "-")
	for _, line := range strings.Split(strings.TrimSpace(again), "\n") {
		if !strings.HasSuffix(line, " unchanged") {
			t.Errorf("re-apply changed something: %q", line)
		}
	}
	vwc := c.mustKubectl("", "get", "validatingwebhookconfiguration", "db-autoscaler-replicas-ownership", "-o", "jsonpath={.webhooks[0].failurePolicy}")
	if vwc != "Ignore" {
		t.Errorf("stored failurePolicy %q", vwc)
	}
}

const validDHA = `
apiVersion: autoscaling.cozystack.io/v1alpha1
kind: DatabaseHorizontalAutoscaler
metadata: {name: db, namespace: tenant-a}
spec:
  targetRef: {kind: Postgres, name: db}
  minReplicas: 2
  maxReplicas: 5
  metrics:
    - type: ReadConnections
      target: {averageValue: "150"}
  behavior: {}
  constraints: {}
`

func dhaWith(t *testing.T, edit func(spec map[string]interface{})) string {
	t.Helper()
	var obj map[string]interface{}
	if err := yaml.Unmarshal([]byte(validDHA), &obj); err != nil {
		t.Fatal(err)
	}
	edit(obj["spec"].(map[string]interface{}))
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// What a tenant meets: the defaults, the validation rules and the printer columns.
func TestDHAValidationAndDefaults(t *testing.T) {
	c := startAPIServer(t)
	installCRD(t, c)
	c.createNamespace("tenant-a")
	c.mustKubectl(validDHA, "apply", "-f", "-")

	defaults := []struct{ path, want string }{
		{"{.spec.targetRef.apiGroup}", "apps.cozystack.io"},
		{"{.spec.behavior.tolerance}", "0"},
		{"{.spec.constraints.respectQuorum}", "true"},
		{"{.spec.dryRun}", "false"},
	}
	for _, d := range defaults {
		got := c.mustKubectl("", "-n", "tenant-a", "get", "dha", "db", "-o", "jsonpath="+d.path)
		if got != d.want {
			t.Errorf("default %s: got %q, want %q", d.path, got, d.want)
		}
	}
	header := strings.Fields(strings.SplitN(c.mustKubectl("", "-n", "tenant-a", "get", "dha"), "\n", 2)[0])
	want := []string{"NAME", "TARGET", "METRICS", "MIN", "MAX", "CURRENT", "DESIRED", "REASON", "AGE"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Errorf("kubectl get dha columns %v, want %v", header, want)
	}
	wide := strings.Fields(strings.SplitN(c.mustKubectl("", "-n", "tenant-a", "get", "dha", "-o", "wide"), "\n", 2)[0])
	wantWide := append(want, "DRYRUN", "ACTIVE", "LIMITED", "LAST", "SCALE", "SUMMARY")
	if strings.Join(wide, " ") != strings.Join(wantWide, " ") {
		t.Errorf("kubectl get dha -o wide columns %v, want %v", wide, wantWide)
	}
	// Every field explains itself to kubectl explain.
	for _, field := range []string{"dha.spec.minReplicas", "dha.spec.metrics.target.averageUtilization",
		"dha.spec.behavior.scaleDown.stabilizationWindowSeconds", "dha.status.summary", "dha.status.lastDecision.trace.gate"} {
		out := c.mustKubectl("", "explain", field)
		if !strings.Contains(out, "DESCRIPTION:") || strings.Contains(out, "<empty>") {
			t.Errorf("kubectl explain %s has no description:\n%s", field, out)
		}
	}

	cases := []struct {
		name    string
		edit    func(spec map[string]interface{})
		wantErr string
	}{
		{"max below min", func(s map[string]interface{}) { s["maxReplicas"] = 1; s["minReplicas"] = 3 }, "maxReplicas must be greater than or equal to minReplicas"},
		{"min below 2", func(s map[string]interface{}) { s["minReplicas"] = 1 }, "2 = one primary and one read replica"},
		{"tolerance above 1", func(s map[string]interface{}) { s["behavior"] = map[string]interface{}{"tolerance": 1.5} }, "tolerance"},
		{"no metrics", func(s map[string]interface{}) { s["metrics"] = []interface{}{} }, "metrics"},
		{"unknown metric type", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "Writes", "target": map[string]interface{}{"averageValue": "1"}}}
		}, "type"},
		{"deadline above 24h", func(s map[string]interface{}) {
			s["behavior"] = map[string]interface{}{"convergenceDeadlineSeconds": 90000}
		}, "convergenceDeadlineSeconds"},
		{"no targetRef", func(s map[string]interface{}) { delete(s, "targetRef") }, "targetRef"},
		{"not a quantity", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadConnections", "target": map[string]interface{}{"averageValue": "lots"}}}
		}, "must be a positive quantity"},
		{"negative target", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadConnections", "target": map[string]interface{}{"averageValue": "-5"}}}
		}, "must be a positive quantity"},
		{"zero target", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadConnections", "target": map[string]interface{}{"averageValue": 0}}}
		}, "must be a positive quantity"},
		{"zero millicores", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadCPUUtilization", "target": map[string]interface{}{"averageValue": "0m"}}}
		}, "must be a positive quantity"},
		{"no target value", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadConnections", "target": map[string]interface{}{}}}
		}, "set exactly one of averageValue and averageUtilization"},
		{"both target values", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadCPUUtilization", "target": map[string]interface{}{"averageValue": "250m", "averageUtilization": 70}}}
		}, "set exactly one of averageValue and averageUtilization"},
		{"utilization of connections", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadConnections", "target": map[string]interface{}{"averageUtilization": 70}}}
		}, "applies to ReadCPUUtilization only"},
		{"zero utilization", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadCPUUtilization", "target": map[string]interface{}{"averageUtilization": 0}}}
		}, "averageUtilization"},
	}
	accepted := []struct {
		name string
		edit func(spec map[string]interface{})
	}{
		{"fractional millicores", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadCPUUtilization", "target": map[string]interface{}{"averageValue": "0.5"}}}
		}},
		{"integer target", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadConnections", "target": map[string]interface{}{"averageValue": 150}}}
		}},
		{"utilization of CPU", func(s map[string]interface{}) {
			s["metrics"] = []interface{}{map[string]interface{}{"type": "ReadCPUUtilization", "target": map[string]interface{}{"averageUtilization": 70}}}
		}},
	}
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			if out, err := c.kubectl(dhaWith(t, tc.edit), "apply", "--dry-run=server", "-f", "-"); err != nil {
				t.Fatalf("refused: %v\n%s", err, out)
			}
		})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.kubectl(dhaWith(t, tc.edit), "apply", "-f", "-")
			if err == nil || !strings.Contains(out, tc.wantErr) {
				t.Fatalf("want a rejection mentioning %q, got err=%v:\n%s", tc.wantErr, err, out)
			}
		})
	}
}

const fullStatus = `{"status": {
  "observedGeneration": 1, "currentReplicas": 3, "desiredReplicas": 3,
  "lastConvergedReplicas": 3, "lastAppliedReplicas": 3,
  "lastScaleTime": "2026-01-01T00:00:00Z", "inFlightSince": "2026-01-01T00:00:00Z",
  "recommendations": [{"time": "2026-01-01T00:00:00Z", "replicas": 4}],
  "backoff": {"replicas": 4, "until": "2026-01-01T01:00:00Z", "count": 2},
  "currentMetrics": [{"type": "ReadConnections", "averageValue": "210"}],
  "targetDisplay": "Postgres/db", "metricsDisplay": "210/150 (ReadConnections)",
  "currentDisplay": "3", "desiredDisplay": "3",
  "summary": "frozen at 3 by Backoff (StuckScaling): backing off",
  "lastDecision": {"time": "2026-01-01T00:00:00Z", "kind": "Freeze", "rawDesiredReplicas": 4,
    "desiredReplicas": 3, "reason": "StuckScaling", "message": "backing off",
    "gates": ["Backoff: 4 -> 3, StuckScaling: backing off"],
    "trace": [{"gate": "backoff", "in": 4, "out": 3, "reason": "StuckScaling", "message": "backing off"}]},
  "conditions": [{"type": "AbleToScale", "status": "False", "reason": "StuckScaling",
    "message": "backing off", "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": 1}]
}}`

// The status writer's contract: a full status is accepted through /status and shows in the
// Reason column; values outside the schema are refused.
func TestDHAStatusSchema(t *testing.T) {
	c := startAPIServer(t)
	installCRD(t, c)
	c.createNamespace("tenant-a")
	c.mustKubectl(validDHA, "apply", "-f", "-")
	c.mustKubectl("", "-n", "tenant-a", "patch", "dha", "db", "--subresource=status", "--type=merge", "-p", fullStatus)
	if got := c.mustKubectl("", "-n", "tenant-a", "get", "dha", "db", "-o", "jsonpath={.status.lastDecision.gates[0]}"); got != "Backoff: 4 -> 3, StuckScaling: backing off" {
		t.Errorf("gate lines not stored: %q", got)
	}
	// What an operator before the gate lines wrote is kept, so it can still be read.
	if got := c.mustKubectl("", "-n", "tenant-a", "get", "dha", "db", "-o", "jsonpath={.status.lastDecision.trace[0].gate}"); got != "backoff" {
		t.Errorf("trace not stored: %q", got)
	}
	row := strings.Fields(strings.Split(strings.TrimSpace(c.mustKubectl("", "-n", "tenant-a", "get", "dha", "db")), "\n")[1])
	if len(row) < 10 || row[1] != "Postgres/db" || strings.Join(row[2:4], " ") != "210/150 (ReadConnections)" || row[6] != "3" || row[7] != "3" || row[8] != "StuckScaling" {
		t.Errorf("Target, Metrics, Current, Desired or Reason column: row %v", row)
	}

	var many []string
	for i := 0; i < 65; i++ {
		many = append(many, `{"time": "2026-01-01T00:00:00Z", "replicas": 3}`)
	}
	bad := []struct {
		name, patch, wantErr string
	}{
		{"unknown decision kind", `{"status": {"lastDecision": {"kind": "Maybe"}}}`, "kind"},
		{"too many recommendations", `{"status": {"recommendations": [` + strings.Join(many, ",") + `]}}`, "recommendations"},
		{"condition without reason", `{"status": {"conditions": [{"type": "Ready", "status": "True", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}`, "reason"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.kubectl("", "-n", "tenant-a", "patch", "dha", "db", "--subresource=status", "--type=merge", "-p", tc.patch)
			if err == nil || !strings.Contains(out, tc.wantErr) {
				t.Fatalf("want a rejection mentioning %q, got err=%v:\n%s", tc.wantErr, err, out)
			}
		})
	}
}
