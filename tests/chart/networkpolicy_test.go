package charttest

import (
	"strings"
	"testing"
)

// The NetworkPolicy is off by default (the API server's addresses are the cluster's); on, it
// admits the API server to the webhook port, the listed scrapers to metrics, and nothing else.
func TestNetworkPolicy(t *testing.T) {
	if len(ofKind(renderChart(t, nil), "NetworkPolicy")) != 0 {
		t.Error("a NetworkPolicy renders by default")
	}

	_, err := tryRender(t, nil, "networkPolicy.enabled=true")
	if err == nil || !strings.Contains(err.Error(), "networkPolicy.apiServerCIDRs") {
		t.Fatalf("enabled without the API server's CIDRs: want an error naming networkPolicy.apiServerCIDRs, got %v", err)
	}

	values := inlineValues(t, `
networkPolicy:
  enabled: true
  apiServerCIDRs: [10.0.0.0/24, 10.0.1.5/32]
  metricsFrom:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: cozy-monitoring}}
`)
	r := renderChart(t, []string{values})
	np := only(t, r, "NetworkPolicy", "db-autoscaler")
	d := only(t, r, "Deployment", "db-autoscaler")
	expectEqual(t, "podSelector", at(np, "spec.podSelector.matchLabels"), at(d, "spec.selector.matchLabels"))
	expectEqual(t, "policyTypes", at(np, "spec.policyTypes"), []string{"Ingress"})
	expectEqual(t, "webhook rule", at(np, "spec.ingress[0]"), map[string]interface{}{
		"ports": []interface{}{map[string]interface{}{"port": "webhook", "protocol": "TCP"}},
		"from": []interface{}{
			map[string]interface{}{"ipBlock": map[string]interface{}{"cidr": "10.0.0.0/24"}},
			map[string]interface{}{"ipBlock": map[string]interface{}{"cidr": "10.0.1.5/32"}},
		},
	})
	expectEqual(t, "metrics rule", at(np, "spec.ingress[1]"), map[string]interface{}{
		"ports": []interface{}{map[string]interface{}{"port": "metrics", "protocol": "TCP"}},
		"from": []interface{}{map[string]interface{}{
			"namespaceSelector": map[string]interface{}{"matchLabels": map[string]interface{}{"kubernetes.io/metadata.name": "cozy-monitoring"}},
		}},
	})
	if rules := at(np, "spec.ingress").([]interface{}); len(rules) != 2 {
		t.Errorf("want exactly the webhook and metrics rules, got %v", rules)
	}
	// The named ports exist on the container.
	names := map[string]bool{}
	for _, p := range at(d, "spec.template.spec.containers[0].ports").([]interface{}) {
		names[p.(map[string]interface{})["name"].(string)] = true
	}
	for _, want := range []string{"webhook", "metrics", "health"} {
		if !names[want] {
			t.Errorf("container has no port named %s", want)
		}
	}
}
