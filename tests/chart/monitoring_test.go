package charttest

import (
	"encoding/json"
	"strings"
	"testing"
)

// As the reference chart's test asserted: the scrape verifies the serving certificate against the
// release CA.
func TestVMServiceScrapeVerifiesTLS(t *testing.T) {
	r := renderChart(t, nil)
	scrape := only(t, r, "VMServiceScrape", "db-autoscaler")
	ep := "spec.endpoints[0]."
	expectEqual(t, "scheme", at(scrape, ep+"scheme"), "https")
	expectEqual(t, "tlsConfig.ca.secret.name", at(scrape, ep+"tlsConfig.ca.secret.name"), "db-autoscaler-cert")
	expectEqual(t, "tlsConfig.ca.secret.key", at(scrape, ep+"tlsConfig.ca.secret.key"), "ca.crt")
	expectEqual(t, "tlsConfig.serverName", at(scrape, ep+"tlsConfig.serverName"), "db-autoscaler.cozy-db-autoscaler.svc")
	expectEqual(t, "bearerTokenFile", at(scrape, ep+"bearerTokenFile"), "/var/run/secrets/kubernetes.io/serviceaccount/token")
	walk(scrape, "", func(path, key string, _ interface{}) {
		if key == "insecureSkipVerify" {
			t.Errorf("insecureSkipVerify present at %s", path)
		}
	})
	// The name checked must be one the certificate carries, from the secret it lives in.
	serving := only(t, renderChart(t, nil, "certificates.certManager.enabled=true"), "Certificate", "db-autoscaler")
	if !contains(strs(at(serving, "spec.dnsNames")), at(scrape, ep+"tlsConfig.serverName").(string)) {
		t.Error("serverName is not among the serving certificate's dnsNames")
	}
	// The scrape selects the metrics Service (by its labels) and its named port, not the webhook one.
	svc := only(t, r, "Service", "db-autoscaler-metrics")
	for k, v := range at(scrape, "spec.selector.matchLabels").(map[string]interface{}) {
		if labelsOf(svc)[k] != v {
			t.Errorf("scrape selector %s=%v does not match the metrics Service", k, v)
		}
	}
	if _, ok := labelsOf(only(t, r, "Service", "db-autoscaler"))["app.kubernetes.io/component"]; ok {
		t.Error("the webhook Service carries the metrics component label and would be scraped")
	}
	expectEqual(t, "scrape port", at(scrape, ep+"port"), at(svc, "spec.ports[0].name"))
	expectEqual(t, "metrics targetPort", at(svc, "spec.ports[0].targetPort"), "metrics")

	insecure := only(t, renderChart(t, nil, "metrics.secure=false"), "VMServiceScrape", "db-autoscaler")
	if at(insecure, ep+"bearerTokenFile") != nil {
		t.Error("a scrape of unauthenticated metrics must not send a token")
	}
	if at(insecure, ep+"tlsConfig.ca.secret.name") == nil {
		t.Error("TLS verification must not depend on metrics.secure")
	}
}

type alertRule struct {
	Alert, Expr, For string
	Severity         string
}

func alertRules(t *testing.T, sets ...string) map[string]alertRule {
	t.Helper()
	pr := only(t, renderChart(t, nil, sets...), "PrometheusRule", "db-autoscaler-alerts")
	out := map[string]alertRule{}
	for _, g := range at(pr, "spec.groups").([]interface{}) {
		for _, rl := range at(g, "rules").([]interface{}) {
			name, _ := at(rl, "alert").(string)
			sev, _ := at(rl, "labels.severity").(string)
			expr, _ := at(rl, "expr").(string)
			dur, _ := at(rl, "for").(string)
			out[name] = alertRule{name, expr, dur, sev}
			for _, key := range []string{"summary", "description"} {
				if s, _ := at(rl, "annotations."+key).(string); s == "" {
					t.Errorf("alert %s has no %s", name, key)
				}
			}
		}
	}
	return out
}

// The reference's two alerts plus the leader alert; the metric names are the ones README
// "Self-metrics" documents for the operator.
func TestPrometheusRuleAlerts(t *testing.T) {
	rules := alertRules(t)
	cases := []struct {
		alert, severity, duration, metric string
	}{
		{"DatabaseAutoscalerFrozen", "warning", "15m", "db_autoscaler_frozen"},
		{"DatabaseAutoscalerScalingLimited", "info", "30m", "db_autoscaler_scaling_limited"},
		{"DatabaseAutoscalerNotReconciling", "warning", "10m", "db_autoscaler_reconcile_total"},
		{"DatabaseAutoscalerReconcileErrors", "warning", "15m", "controller_runtime_reconcile_errors_total"},
	}
	if len(rules) != len(cases) {
		t.Errorf("want %d alerts, got %v", len(cases), rules)
	}
	for _, tc := range cases {
		r, ok := rules[tc.alert]
		if !ok {
			t.Errorf("alert %s missing", tc.alert)
			continue
		}
		expectEqual(t, tc.alert+" severity", r.Severity, tc.severity)
		expectEqual(t, tc.alert+" for", r.For, tc.duration)
		if !strings.Contains(r.Expr, tc.metric) {
			t.Errorf("%s expr %q does not use %s", tc.alert, r.Expr, tc.metric)
		}
	}
	if !strings.Contains(rules["DatabaseAutoscalerNotReconciling"].Expr, "db_autoscaler_leader") {
		t.Error("the leader alert must also fire when no replica holds the lease")
	}
	tuned := alertRules(t, "alerts.frozenFor=5m")
	expectEqual(t, "tuned frozen for", tuned["DatabaseAutoscalerFrozen"].For, "5m")
	if len(ofKind(renderChart(t, nil, "alerts.enabled=false"), "PrometheusRule")) != 0 {
		t.Error("alerts.enabled=false still renders the PrometheusRule")
	}
}

// The Grafana sidecar picks the dashboard up by label; the JSON must parse and show what an
// operator on call looks for: replicas, metric vs target, freezes and reasons, reconcile latency.
func TestDashboardConfigMap(t *testing.T) {
	cm := only(t, renderChart(t, nil), "ConfigMap", "db-autoscaler-dashboard")
	expectEqual(t, "sidecar label", labelsOf(cm)["grafana_dashboard"], "1")
	text, _ := at(cm, "data").(map[string]interface{})["db-autoscaler.json"].(string)
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(text), &dash); err != nil {
		t.Fatalf("dashboard JSON does not parse: %v", err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	all := strings.Join(exprs, "\n")
	for _, metric := range []string{
		"db_autoscaler_current_replicas", "db_autoscaler_desired_replicas",
		"db_autoscaler_metric_value", "db_autoscaler_metric_target",
		"db_autoscaler_frozen", "db_autoscaler_decisions_total",
		"db_autoscaler_reconcile_duration_seconds_bucket", "db_autoscaler_leader",
		// The families every controller-runtime operator exports, so the same panels work here.
		"workqueue_depth", "workqueue_queue_duration_seconds_bucket", "controller_runtime_reconcile_total",
		"controller_runtime_reconcile_errors_total", "rest_client_requests_total",
		"process_resident_memory_bytes", "process_cpu_seconds_total", "db_autoscaler_build_info",
	} {
		if !strings.Contains(all, metric) {
			t.Errorf("no dashboard panel queries %s", metric)
		}
	}
	if dash.UID == "" {
		t.Error("dashboard has no uid (links would break on re-import)")
	}
}
