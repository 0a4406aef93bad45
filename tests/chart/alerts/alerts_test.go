// Package alerts evaluates the chart's PrometheusRule with a real vmalert against a real
// VictoriaMetrics holding db_autoscaler_* series, and checks each alert fires when it should,
// at the minute it should, and stays quiet otherwise.
//
// vmalert runs in replay mode (-replay.timeFrom/-replay.timeTo): it evaluates the rules minute
// by minute over imported history, "for" included, and writes the ALERTS series back into
// VictoriaMetrics. That is how a 15-minute "for" is tested in seconds.
package alerts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"dha.local/charttest/helmrender"
	"gopkg.in/yaml.v3"
)

const (
	frozen         = "DatabaseAutoscalerFrozen"
	limited        = "DatabaseAutoscalerScalingLimited"
	notReconciling = "DatabaseAutoscalerNotReconciling"
	reconcileErrors = "DatabaseAutoscalerReconcileErrors"
	spanMinutes    = 330
)

// series is one time series: labels and a value per minute since t0 (absent minutes: no sample).
type series struct {
	labels map[string]string
	values map[int]float64
}

func gauge(name string, labels map[string]string, from, to int, value float64) series {
	s := series{labels: map[string]string{"__name__": name}, values: map[int]float64{}}
	for k, v := range labels {
		s.labels[k] = v
	}
	for m := from; m <= to; m++ {
		s.values[m] = value
	}
	return s
}

func dha(name string) map[string]string {
	return map[string]string{"namespace": "tenant-a", "name": name, "pod": "db-autoscaler-0"}
}

func onPod(name, pod string) map[string]string {
	l := dha(name)
	l["pod"] = pod
	return l
}

// The timeline (minutes). Per-DHA scenarios live in 60..150, while reconciles are healthy.
//
//	  0..60   quiet: the leader runs but no DHA exists; the counter is flat   -> no NotReconciling
//	 61..150  healthy: reconciles counted, DHAs present
//	151..210  stuck: the leader is alive, the counter flat, DHAs present      -> NotReconciling
//	211..260  healthy again                                                    -> resolves
//	261..330  nobody holds the lease (leader gauge 0 on both pods)             -> NotReconciling
func timeline() []series {
	var all []series
	counter := series{labels: map[string]string{"__name__": "db_autoscaler_reconcile_total", "pod": "db-autoscaler-0", "result": "success"}, values: map[int]float64{}}
	total := 5.0
	for m := 0; m <= spanMinutes; m++ {
		healthy := (m > 60 && m <= 150) || (m > 210 && m <= 260) || m > 260
		if healthy {
			total += 2
		}
		counter.values[m] = total
	}
	all = append(all, counter,
		gauge("db_autoscaler_leader", map[string]string{"pod": "db-autoscaler-0"}, 0, 260, 1),
		gauge("db_autoscaler_leader", map[string]string{"pod": "db-autoscaler-0"}, 261, spanMinutes, 0),
		gauge("db_autoscaler_leader", map[string]string{"pod": "db-autoscaler-1"}, 0, spanMinutes, 0),
		gauge("db_autoscaler_current_replicas", dha("steady"), 61, spanMinutes, 3),
	)
	// Frozen for 30 minutes: fires 15 minutes after it starts.
	all = append(all, gauge("db_autoscaler_frozen", dha("frozen-long"), 70, 100, 1))
	// Frozen for 14 minutes: never fires.
	all = append(all, gauge("db_autoscaler_frozen", dha("frozen-short"), 70, 83, 1))
	// Frozen across a leader failover: pod 0 reports 70..79, pod 1 from 80. One alert, whose
	// 15 minutes count from 70, not from the failover.
	all = append(all,
		gauge("db_autoscaler_frozen", onPod("frozen-failover", "db-autoscaler-0"), 70, 79, 1),
		gauge("db_autoscaler_frozen", onPod("frozen-failover", "db-autoscaler-1"), 80, 100, 1))
	// Flapping: 11 minutes, one minute unfrozen, 12 minutes: never 15 in a row.
	all = append(all,
		gauge("db_autoscaler_frozen", dha("frozen-flapping"), 70, 80, 1),
		gauge("db_autoscaler_frozen", dha("frozen-flapping"), 81, 81, 0),
		gauge("db_autoscaler_frozen", dha("frozen-flapping"), 82, 93, 1))
	// Not frozen at all, but reported (0): never fires.
	all = append(all, gauge("db_autoscaler_frozen", dha("steady"), 61, spanMinutes, 0))
	// controller-runtime's reconcile counters: 2 successes a minute throughout; 6 errors a
	// minute in 100..140 (three quarters fail: fires 15 minutes in) and in 180..188 (too short).
	success := series{labels: map[string]string{"__name__": "controller_runtime_reconcile_total", "pod": "db-autoscaler-0", "controller": "dha", "result": "success"}, values: map[int]float64{}}
	failed := series{labels: map[string]string{"__name__": "controller_runtime_reconcile_total", "pod": "db-autoscaler-0", "controller": "dha", "result": "error"}, values: map[int]float64{}}
	errorsTotal := series{labels: map[string]string{"__name__": "controller_runtime_reconcile_errors_total", "pod": "db-autoscaler-0", "controller": "dha"}, values: map[int]float64{}}
	errs := 0.0
	for m := 0; m <= spanMinutes; m++ {
		if (m > 100 && m <= 140) || (m > 180 && m <= 188) {
			errs += 6
		}
		success.values[m] = float64(2 * m)
		failed.values[m] = errs
		errorsTotal.values[m] = errs
	}
	all = append(all, success, failed, errorsTotal)
	// Limited for 40 minutes fires after 30; limited for 26 does not.
	all = append(all,
		gauge("db_autoscaler_scaling_limited", dha("limited-long"), 70, 110, 1),
		gauge("db_autoscaler_scaling_limited", dha("limited-short"), 70, 95, 1))
	return all
}

func TestAlertRulesInVmalert(t *testing.T) {
	vmBin := requireBinary(t, "victoria-metrics")
	vmalertBin := requireBinary(t, "vmalert")
	dir := t.TempDir()

	rulesFile := writeRules(t, dir)
	// The rule file as the VictoriaMetrics operator would hand it to vmalert: it must load.
	runBounded(t, 30*time.Second, vmalertBin, "-dryRun", "-rule="+rulesFile)

	vmAddr := freeAddr(t)
	startVictoriaMetrics(t, vmBin, dir, vmAddr)
	base := "http://" + vmAddr

	t0 := time.Now().Add(-6 * time.Hour).Truncate(time.Minute)
	importSeries(t, base, t0, timeline())
	runBounded(t, 120*time.Second, vmalertBin,
		"-rule="+rulesFile,
		"-datasource.url="+base,
		"-remoteWrite.url="+base,
		"-httpListenAddr="+freeAddr(t),
		"-evaluationInterval=1m",
		// One data point per evaluation: replay resets "for" on gaps wider than the interval.
		"-datasource.queryStep=1m",
		"-replay.timeFrom="+t0.UTC().Format(time.RFC3339),
		"-replay.timeTo="+t0.Add(spanMinutes*time.Minute).UTC().Format(time.RFC3339),
		"-replay.disableProgressBar",
		"-replay.rulesDelay=0s",
	)
	firing := firingMinutes(t, base, t0)

	cases := []struct {
		name        string
		key         string // alertname/namespace/name/severity
		firstFiring int    // -1: must never fire
		lastSample  int    // the last minute with the condition true
	}{
		{"frozen for 30m fires after 15m", frozen + "/tenant-a/frozen-long/warning", 85, 100},
		{"frozen for 14m stays quiet", frozen + "/tenant-a/frozen-short/warning", -1, 0},
		{"failover keeps the for-timer", frozen + "/tenant-a/frozen-failover/warning", 85, 100},
		{"flapping never fires", frozen + "/tenant-a/frozen-flapping/warning", -1, 0},
		{"a reported 0 never fires", frozen + "/tenant-a/steady/warning", -1, 0},
		{"limited for 40m fires after 30m", limited + "/tenant-a/limited-long/info", 100, 110},
		{"limited for 26m stays quiet", limited + "/tenant-a/limited-short/info", -1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := firing[tc.key]
			if tc.firstFiring < 0 {
				if len(got) != 0 {
					t.Fatalf("%s fired at minutes %v", tc.key, got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("%s never fired (firing series: %v)", tc.key, keys(firing))
			}
			// The last sample stays visible for up to two evaluation steps (VictoriaMetrics'
			// staleness lookback), so the alert may resolve that much after the condition clears.
			last := got[len(got)-1]
			if got[0] != tc.firstFiring || last < tc.lastSample || last > tc.lastSample+2 || len(got) != last-got[0]+1 {
				t.Fatalf("%s fired at minutes %v, want continuously from %d until %d(+2)", tc.key, got, tc.firstFiring, tc.lastSample)
			}
		})
	}

	t.Run("reconcile errors alert", func(t *testing.T) {
		got := firing[reconcileErrors+"///warning"]
		t.Logf("%s firing at minutes %v", reconcileErrors, got)
		// Over half failing from ~102 (the 5m rate catches up), then "for: 15m"; the rate falls
		// under half ~4 minutes after the errors stop at 140. The 8-minute burst never fires.
		if len(got) == 0 || got[0] < 114 || got[0] > 120 || got[len(got)-1] < 140 || got[len(got)-1] > 148 ||
			len(got) != got[len(got)-1]-got[0]+1 {
			t.Errorf("firing minutes %v, want continuously from ~117 until ~143", got)
		}
	})

	t.Run("leader alert", func(t *testing.T) {
		got := firing[notReconciling+"///warning"]
		t.Logf("%s firing at minutes %v", notReconciling, got)
		phase := func(from, to int) []int {
			var in []int
			for _, m := range got {
				if m >= from && m <= to {
					in = append(in, m)
				}
			}
			return in
		}
		if q := phase(0, 150); len(q) != 0 {
			t.Errorf("fired while reconciling or while no DHA existed: %v", q)
		}
		// Flat since 151: increase over 15m is 0 from ~166, then "for: 10m".
		if s := phase(151, 214); len(s) == 0 || s[0] < 174 || s[0] > 178 || s[len(s)-1] < 210 {
			t.Errorf("stuck leader: firing minutes %v, want from ~176 until reconciles resume at 211", s)
		}
		if h := phase(215, 260); len(h) != 0 {
			t.Errorf("still firing after reconciles resumed: %v", h)
		}
		// No replica holds the lease from 261: fires 10 minutes later.
		if n := phase(261, spanMinutes); len(n) == 0 || n[0] < 270 || n[0] > 272 {
			t.Errorf("no leader: firing minutes %v, want from ~271", n)
		}
	})
}

// writeRules renders the chart and writes its PrometheusRule groups as a vmalert rule file.
func writeRules(t *testing.T, dir string) string {
	t.Helper()
	source := os.Getenv("DHA_SOURCE_DIR")
	if source == "" {
		t.Fatal("DHA_SOURCE_DIR is not set (run through tests/chart/run-go-tests.sh)")
	}
	r, err := helmrender.Render(filepath.Join(source, "charts", "db-autoscaler"), helmrender.Options{
		ReleaseName: "db-autoscaler", Namespace: "cozy-db-autoscaler"})
	if err != nil {
		t.Fatal(err)
	}
	var groups interface{}
	for _, m := range r.Manifests {
		if m.Kind() == "PrometheusRule" {
			groups = m.Object["spec"].(map[string]interface{})["groups"]
		}
	}
	if groups == nil {
		t.Fatal("the chart renders no PrometheusRule")
	}
	out, err := yaml.Marshal(map[string]interface{}{"groups": groups})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func requireBinary(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found in PATH: install the Debian package victoria-metrics (it ships %s)", name, name)
	}
	return path
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func startVictoriaMetrics(t *testing.T, bin, dir, addr string) {
	t.Helper()
	logFile, err := os.Create(filepath.Join(dir, "victoria-metrics.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin,
		"-httpListenAddr="+addr,
		"-storageDataPath="+filepath.Join(dir, "vm-data"),
		"-retentionPeriod=100y",
		"-search.latencyOffset=0s",
		"-search.disableCache")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
	})
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(logFile.Name())
	t.Fatalf("victoria-metrics did not become healthy on %s within 15s:\n%s", addr, log)
}

// importSeries loads the timeline through /api/v1/import (JSON lines) and flushes it.
func importSeries(t *testing.T, base string, t0 time.Time, all []series) {
	t.Helper()
	var body bytes.Buffer
	for _, s := range all {
		minutes := make([]int, 0, len(s.values))
		for m := range s.values {
			minutes = append(minutes, m)
		}
		sort.Ints(minutes)
		line := struct {
			Metric     map[string]string `json:"metric"`
			Values     []float64         `json:"values"`
			Timestamps []int64           `json:"timestamps"`
		}{Metric: s.labels}
		for _, m := range minutes {
			line.Values = append(line.Values, s.values[m])
			line.Timestamps = append(line.Timestamps, t0.Add(time.Duration(m)*time.Minute).UnixMilli())
		}
		if err := json.NewEncoder(&body).Encode(line); err != nil {
			t.Fatal(err)
		}
	}
	post(t, base+"/api/v1/import", body.Bytes())
	flush(t, base)
}

func flush(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Get(base + "/internal/force_flush")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func post(t *testing.T, target string, body []byte) []byte {
	t.Helper()
	resp, err := http.Post(target, "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s: %s", target, resp.Status, out)
	}
	return out
}

func runBounded(t *testing.T, limit time.Duration, bin string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %s:\n%s", filepath.Base(bin), limit, out)
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
}

// firingMinutes exports the ALERTS series vmalert wrote and returns, per
// alertname/namespace/name/severity, the sorted minutes (since t0) at which it was firing.
func firingMinutes(t *testing.T, base string, t0 time.Time) map[string][]int {
	t.Helper()
	// vmalert's remote write flushes on exit; make the samples searchable before reading.
	flush(t, base)
	out := post(t, base+"/api/v1/export?"+url.Values{"match[]": {`ALERTS{alertstate="firing"}`}}.Encode(), nil)
	firing := map[string][]int{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var line struct {
			Metric     map[string]string `json:"metric"`
			Timestamps []int64           `json:"timestamps"`
		}
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("export: %v", err)
		}
		m := line.Metric
		key := fmt.Sprintf("%s/%s/%s/%s", m["alertname"], m["namespace"], m["name"], m["severity"])
		for _, ts := range line.Timestamps {
			firing[key] = append(firing[key], int(time.UnixMilli(ts).Sub(t0)/time.Minute))
		}
	}
	for k := range firing {
		sort.Ints(firing[k])
	}
	return firing
}

func keys(m map[string][]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
