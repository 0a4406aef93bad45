package charttest

import (
	"strings"
	"testing"
)

// The NetworkPolicy is on by default: without the API server's CIDRs the webhook port admits
// every address outside the pod networks, and metrics every pod. With the CIDRs it admits the
// API server to the webhook port, the listed scrapers to metrics, and nothing else; the same
// CIDRs reach the webhook's connection reservation. Off when opted out.
func TestNetworkPolicy(t *testing.T) {
	np := only(t, renderChart(t, nil), "NetworkPolicy", "db-autoscaler")
	expectEqual(t, "default webhook rule", at(np, "spec.ingress[0]"), map[string]interface{}{
		"ports": []interface{}{map[string]interface{}{"port": "webhook", "protocol": "TCP"}},
		"from": []interface{}{
			map[string]interface{}{"ipBlock": map[string]interface{}{"cidr": "0.0.0.0/0", "except": []interface{}{"10.244.0.0/16"}}},
		},
	})
	expectEqual(t, "default metrics rule", at(np, "spec.ingress[1]"), map[string]interface{}{
		"ports": []interface{}{map[string]interface{}{"port": "metrics", "protocol": "TCP"}},
		"from":  []interface{}{map[string]interface{}{"namespaceSelector": map[string]interface{}{}}},
	})
	dualStack := inlineValues(t, `
networkPolicy:
  podCIDRs: [10.244.0.0/16, "fd00:10:244::/56"]
`)
	dual := only(t, renderChart(t, []string{dualStack}), "NetworkPolicy", "db-autoscaler")
	expectEqual(t, "dual-stack webhook sources", at(dual, "spec.ingress[0].from"), []interface{}{
		map[string]interface{}{"ipBlock": map[string]interface{}{"cidr": "0.0.0.0/0", "except": []interface{}{"10.244.0.0/16"}}},
		map[string]interface{}{"ipBlock": map[string]interface{}{"cidr": "::/0", "except": []interface{}{"fd00:10:244::/56"}}},
	})
	if len(ofKind(renderChart(t, nil, "networkPolicy.enabled=false"), "NetworkPolicy")) != 0 {
		t.Error("a NetworkPolicy renders though opted out")
	}
	if args := strings.Join(operatorArgs(t, renderChart(t, nil)), " "); strings.Contains(args, "--webhook-trusted-cidrs") {
		t.Errorf("trusted CIDRs passed though none are given: %s", args)
	}

	values := inlineValues(t, `
networkPolicy:
  enabled: true
  apiServerCIDRs: [10.0.0.0/24, 10.0.1.5/32]
  metricsFrom:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: cozy-monitoring}}
`)
	r := renderChart(t, []string{values})
	np = only(t, r, "NetworkPolicy", "db-autoscaler")
	d := only(t, r, "Deployment", "db-autoscaler")
	if args := operatorArgs(t, r); !contains(args, "--webhook-trusted-cidrs=10.0.0.0/24,10.0.1.5/32") {
		t.Errorf("the webhook is not told the API server's CIDRs: %v", args)
	}
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
