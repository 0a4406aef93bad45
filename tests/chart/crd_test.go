package charttest

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const crdName = "databasehorizontalautoscalers.autoscaling.cozystack.io"

func theCRD(t *testing.T) map[string]interface{} {
	t.Helper()
	r := renderChart(t, nil)
	// As the reference chart's test asserted: exactly one document, the DHA CRD.
	if len(r.CRDs) != 1 {
		t.Fatalf("crds/ holds %d documents, want exactly 1", len(r.CRDs))
	}
	crd := r.CRDs[0].Object
	expectEqual(t, "CRD name", at(crd, "metadata.name"), crdName)
	expectEqual(t, "CRD apiVersion", at(crd, "apiVersion"), "apiextensions.k8s.io/v1")
	// Helm never upgrades crds/; a copy under templates/ would fight with it.
	for _, m := range r.Manifests {
		if m.Kind() == "CustomResourceDefinition" {
			t.Errorf("a CRD is rendered from %s as well as crds/", m.Template)
		}
	}
	return crd
}

func TestCRDNamesAndVersion(t *testing.T) {
	crd := theCRD(t)
	expectEqual(t, "group", at(crd, "spec.group"), "autoscaling.cozystack.io")
	expectEqual(t, "scope", at(crd, "spec.scope"), "Namespaced")
	expectEqual(t, "names", at(crd, "spec.names"), map[string]interface{}{
		"kind": "DatabaseHorizontalAutoscaler", "listKind": "DatabaseHorizontalAutoscalerList",
		"plural": "databasehorizontalautoscalers", "singular": "databasehorizontalautoscaler",
		"shortNames": []interface{}{"dha"},
	})
	versions := at(crd, "spec.versions").([]interface{})
	if len(versions) != 1 {
		t.Fatalf("want one version, got %d", len(versions))
	}
	v := versions[0]
	expectEqual(t, "version name", at(v, "name"), "v1alpha1")
	expectEqual(t, "served", at(v, "served"), true)
	expectEqual(t, "storage", at(v, "storage"), true)
	expectEqual(t, "subresources", at(v, "subresources"), map[string]interface{}{"status": map[string]interface{}{}})
}

// Printer columns in the HorizontalPodAutoscaler's style: Kind/name, metrics as current/target,
// then the rest under -o wide (priority 1).
func TestCRDPrinterColumns(t *testing.T) {
	crd := theCRD(t)
	want := []struct {
		name, typ, path string
		priority        int
	}{
		{"Target", "string", ".status.targetDisplay", 0},
		{"Metrics", "string", ".status.metricsDisplay", 0},
		{"Min", "integer", ".spec.minReplicas", 0},
		{"Max", "integer", ".spec.maxReplicas", 0},
		{"Current", "string", ".status.currentDisplay", 0},
		{"Desired", "string", ".status.desiredDisplay", 0},
		{"Reason", "string", `.status.conditions[?(@.type=="AbleToScale")].reason`, 0},
		{"Age", "date", ".metadata.creationTimestamp", 0},
		{"DryRun", "boolean", ".spec.dryRun", 1},
		{"Active", "string", `.status.conditions[?(@.type=="ScalingActive")].reason`, 1},
		{"Limited", "string", `.status.conditions[?(@.type=="ScalingLimited")].reason`, 1},
		{"Last Scale", "date", ".status.lastScaleTime", 1},
		{"Summary", "string", ".status.summary", 1},
	}
	cols := at(crd, "spec.versions[0].additionalPrinterColumns").([]interface{})
	if len(cols) != len(want) {
		t.Fatalf("want %d columns, got %d", len(want), len(cols))
	}
	for i, w := range want {
		priority := 0
		if p, ok := at(cols[i], "priority").(int); ok {
			priority = p
		}
		got := []interface{}{at(cols[i], "name"), at(cols[i], "type"), at(cols[i], "jsonPath"), priority}
		expectEqual(t, "column "+w.name, got, []interface{}{w.name, w.typ, w.path, w.priority})
	}
}

// The column lists the chart's README and the install notes give are the CRD's: the default
// columns in order, then the -o wide ones; and the header of every `kubectl get dha` output the
// docs show is the CRD's columns.
func TestDocumentedPrinterColumnsAreTheCRDs(t *testing.T) {
	crd := theCRD(t)
	var normal, wide []string
	for _, c := range at(crd, "spec.versions[0].additionalPrinterColumns").([]interface{}) {
		name := at(c, "name").(string)
		if p, ok := at(c, "priority").(int); ok && p > 0 {
			wide = append(wide, name)
		} else {
			normal = append(normal, name)
		}
	}
	want := strings.Join(normal, ", ") + " (-o wide: " + strings.Join(wide, ", ") + ")"
	for _, doc := range []string{"README.md", "templates/NOTES.txt"} {
		body, err := os.ReadFile(filepath.Join(chartDir(t), doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(body), want) {
			t.Errorf("%s does not list the printer columns as the CRD has them: %q", doc, want)
		}
	}
	// Every `kubectl get dha` the docs show prints the CRD's columns, in its order.
	for _, doc := range []string{"README.md", "docs/status.md"} {
		body, err := os.ReadFile(filepath.Join(sourceDir(t), doc))
		if err != nil {
			t.Fatal(err)
		}
		shown := documentedGetHeaders(string(body))
		if len(shown) == 0 {
			t.Errorf("%s shows no `$ kubectl get dha` output: is the check still looking at the right lines?", doc)
		}
		for _, got := range shown {
			cols := append([]string{}, normal...)
			if got.wide {
				cols = append(cols, wide...)
			}
			want := []string{"NAME"}
			if got.allNamespaces {
				want = []string{"NAMESPACE", "NAME"}
			}
			for _, c := range cols {
				want = append(want, strings.ToUpper(c))
			}
			// kubectl pads columns with three spaces or more; a name ("LAST SCALE") has one.
			header := columnGap.Split(strings.TrimSpace(got.header), -1)
			if strings.Join(header, "|") != strings.Join(want, "|") {
				t.Errorf("%s:%d: `%s` prints the columns %q, the CRD's are %q", doc, got.line, got.command, header, want)
			}
		}
	}
}

var columnGap = regexp.MustCompile(`\s{2,}`)

type getHeader struct {
	command, header     string
	line                int
	wide, allNamespaces bool
}

// The header line printed under each `$ kubectl get dha` of a document's console blocks.
func documentedGetHeaders(body string) []getHeader {
	lines := strings.Split(body, "\n")
	var out []getHeader
	for i := 0; i+1 < len(lines); i++ {
		command := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(command, "$ kubectl get dha") {
			continue
		}
		if strings.Contains(command, " -o ") && !strings.Contains(command, " -o wide") {
			continue // json, yaml, jsonpath: no columns
		}
		fields := strings.Fields(command)
		h := getHeader{command: command, header: lines[i+1], line: i + 2}
		for _, f := range fields {
			h.wide = h.wide || f == "wide"
			h.allNamespaces = h.allNamespaces || f == "-A" || f == "--all-namespaces"
		}
		out = append(out, h)
	}
	return out
}

// kubectl explain has something to say about every field.
func TestCRDEveryFieldIsDescribed(t *testing.T) {
	var check func(node interface{}, path string)
	check = func(node interface{}, path string) {
		m, _ := node.(map[string]interface{})
		// metadata is the API server's: it refuses a description there.
		if d, _ := m["description"].(string); strings.TrimSpace(d) == "" && path != "openAPIV3Schema.metadata" {
			t.Errorf("%s has no description", path)
		}
		if props, ok := m["properties"].(map[string]interface{}); ok {
			for k, v := range props {
				check(v, path+"."+k)
			}
		}
		if items, ok := m["items"]; ok {
			check(items, path+"[]")
		}
	}
	check(at(theCRD(t), "spec.versions[0].schema.openAPIV3Schema"), "openAPIV3Schema")
}

func specSchema(t *testing.T) interface{} {
	return at(theCRD(t), "spec.versions[0].schema.openAPIV3Schema.properties.spec")
}

// Types, bounds and defaults of the spec.
func TestCRDSpecSchema(t *testing.T) {
	spec := specSchema(t)
	expectEqual(t, "spec required", at(spec, "required"), []string{"targetRef", "minReplicas", "maxReplicas", "metrics"})
	expectEqual(t, "CEL rule", at(spec, "x-kubernetes-validations"), []interface{}{map[string]interface{}{
		"rule":    "self.maxReplicas >= self.minReplicas",
		"message": "maxReplicas must be greater than or equal to minReplicas",
	}})
	expectEqual(t, "minReplicas rule", at(spec, "properties.minReplicas.x-kubernetes-validations[0].rule"), "self >= 2")
	expectEqual(t, "positive target rule", at(spec, "properties.metrics.items.properties.target.properties.averageValue.x-kubernetes-validations[0].rule"),
		"isQuantity(string(self)) && quantity(string(self)).isGreaterThan(quantity('0'))")
	// The rules on metric entries are costed per entry: the bound keeps them within the budget.
	expectEqual(t, "metrics bound", at(spec, "properties.metrics.maxItems"), 2)
	p := "properties."
	cases := []struct {
		path string
		want map[string]interface{}
	}{
		// Bounded like the names they hold: a tenant's megabyte target name is refused at the door.
		{"targetRef.properties.apiGroup", map[string]interface{}{"type": "string", "default": "apps.cozystack.io", "maxLength": 253}},
		{"targetRef.properties.kind", map[string]interface{}{"type": "string", "maxLength": 63}},
		{"targetRef.properties.name", map[string]interface{}{"type": "string", "maxLength": 253}},
		{"minReplicas", map[string]interface{}{"type": "integer", "format": "int32"}},
		{"maxReplicas", map[string]interface{}{"type": "integer", "format": "int32", "minimum": 2, "maximum": 100}},
		{"metrics", map[string]interface{}{"type": "array", "minItems": 1}},
		{"behavior.properties.scaleUp.properties.stabilizationWindowSeconds", map[string]interface{}{"type": "integer", "minimum": 0}},
		{"behavior.properties.scaleUp.properties.step", map[string]interface{}{"type": "integer", "minimum": 1}},
		{"behavior.properties.scaleDown.properties.stabilizationWindowSeconds", map[string]interface{}{"type": "integer", "minimum": 0}},
		{"behavior.properties.scaleDown.properties.step", map[string]interface{}{"type": "integer", "minimum": 1}},
		{"behavior.properties.convergenceDeadlineSeconds", map[string]interface{}{"type": "integer", "minimum": 1, "maximum": 86400}},
		{"behavior.properties.tolerance", map[string]interface{}{"type": "number", "minimum": 0, "maximum": 1, "default": 0}},
		// A DHA created without a behaviour or a policy gets Adaptive (docs/decide.md).
		{"behavior", map[string]interface{}{"type": "object", "default": map[string]interface{}{}}},
		{"behavior.properties.policy", map[string]interface{}{"type": "string", "default": "Adaptive"}},
		{"behavior.properties.adaptive.properties.forecastOnly", map[string]interface{}{"type": "boolean"}},
		{"constraints.properties.respectQuorum", map[string]interface{}{"type": "boolean", "default": true}},
		{"constraints.properties.maxReplicationLagSeconds", map[string]interface{}{"type": "integer", "minimum": 0}},
		{"dryRun", map[string]interface{}{"type": "boolean", "default": false}},
	}
	for _, tc := range cases {
		node := at(spec, p+tc.path)
		if node == nil {
			t.Errorf("spec.%s missing", tc.path)
			continue
		}
		for k, v := range tc.want {
			expectEqual(t, "spec."+tc.path+"."+k, at(node, k), v)
		}
	}
	metric := at(spec, "properties.metrics.items")
	expectEqual(t, "metric types", at(metric, "properties.type.enum"), []string{"ReadConnections", "ReadCPUUtilization"})
	expectEqual(t, "averageValue is int-or-string", at(metric, "properties.target.properties.averageValue.x-kubernetes-int-or-string"), true)
}

// The status schema is the contract the status writer fills (persisted decision state).
func TestCRDStatusSchema(t *testing.T) {
	status := at(theCRD(t), "spec.versions[0].schema.openAPIV3Schema.properties.status.properties")
	fields := map[string]string{
		"observedGeneration": "integer/int64", "currentReplicas": "integer/int32", "desiredReplicas": "integer/int32",
		"lastConvergedReplicas": "integer/int32", "lastAppliedReplicas": "integer/int32",
		"lastScaleTime": "string/date-time", "inFlightSince": "string/date-time",
		"recommendations": "array/", "backoff": "object/", "currentMetrics": "array/",
		"lastDecision": "object/", "conditions": "array/",
	}
	for name, want := range fields {
		got := str(at(status, name+".type")) + "/" + str(at(status, name+".format"))
		if got != want {
			t.Errorf("status.%s: got %s, want %s", name, got, want)
		}
	}
	expectEqual(t, "recommendations bound", at(status, "recommendations.maxItems"), 64)
	expectEqual(t, "recommendation fields", keys(at(status, "recommendations.items.properties")), []string{"replicas", "time"})
	expectEqual(t, "backoff fields", keys(at(status, "backoff.properties")), []string{"count", "replicas", "until"})
	expectEqual(t, "decision kinds", at(status, "lastDecision.properties.kind.enum"), []string{"Scale", "NoChange", "Freeze", "Rollback"})
	expectEqual(t, "trace fields", keys(at(status, "lastDecision.properties.trace.items.properties")), []string{"gate", "in", "message", "out", "reason"})
	expectEqual(t, "gate lines", at(status, "lastDecision.properties.gates.items.type"), "string")
	for _, name := range []string{"targetDisplay", "metricsDisplay", "currentDisplay", "desiredDisplay", "summary"} {
		expectEqual(t, name, at(status, name+".type"), "string")
	}
	expectEqual(t, "conditions list type", at(status, "conditions.x-kubernetes-list-type"), "map")
	expectEqual(t, "conditions list key", at(status, "conditions.x-kubernetes-list-map-keys"), []string{"type"})
	expectEqual(t, "condition required", at(status, "conditions.items.required"),
		[]string{"lastTransitionTime", "message", "reason", "status", "type"})
}

// A structural schema (what a real apiserver accepts): every node states its type, except
// int-or-string nodes whose anyOf is exactly [integer, string]; no type inside anyOf otherwise.
func TestCRDSchemaIsStructural(t *testing.T) {
	root := at(theCRD(t), "spec.versions[0].schema.openAPIV3Schema")
	var check func(node interface{}, path string)
	check = func(node interface{}, path string) {
		m, ok := node.(map[string]interface{})
		if !ok {
			t.Errorf("%s: schema node is not a mapping", path)
			return
		}
		if m["x-kubernetes-int-or-string"] == true {
			expectEqual(t, path+" anyOf", m["anyOf"], []interface{}{
				map[string]interface{}{"type": "integer"}, map[string]interface{}{"type": "string"}})
			if _, typed := m["type"]; typed {
				t.Errorf("%s: int-or-string must not set type", path)
			}
		} else if _, typed := m["type"]; !typed {
			t.Errorf("%s: no type", path)
		}
		for _, forbidden := range []string{"$ref", "additionalItems", "uniqueItems", "definitions", "dependencies", "patternProperties"} {
			if _, ok := m[forbidden]; ok {
				t.Errorf("%s: %s is not allowed in a CRD schema", path, forbidden)
			}
		}
		if props, ok := m["properties"].(map[string]interface{}); ok {
			for k, v := range props {
				check(v, path+"."+k)
			}
		}
		if items, ok := m["items"]; ok {
			check(items, path+"[]")
		}
	}
	check(root, "openAPIV3Schema")
}

func keys(v interface{}) []string {
	m, _ := v.(map[string]interface{})
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func str(v interface{}) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "?"
}
