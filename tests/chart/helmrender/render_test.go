package helmrender

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func renderMini(t *testing.T, sets ...string) (*Result, error) {
	t.Helper()
	return Render(filepath.Join("testdata", "mini"), Options{ReleaseName: "rel", Namespace: "ns", Set: sets})
}

// The Helm objects and functions the db-autoscaler chart relies on behave as in Helm.
func TestRenderHelmSemantics(t *testing.T) {
	r, err := renderMini(t, "nested.replace=new", "list[1]=z")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Manifests) != 1 {
		t.Fatalf("want one manifest (the comment-only document dropped), got %d", len(r.Manifests))
	}
	m := r.Manifests[0]
	if m.Name() != "mini-rel" || m.Namespace() != "ns" || m.Kind() != "ConfigMap" {
		t.Errorf("include/.Chart/.Release: got %s %s/%s", m.Kind(), m.Namespace(), m.Name())
	}
	data := m.Object["data"].(map[string]interface{})
	want := map[string]interface{}{
		"greeting": "HELLO",
		"keep":     "kept",
		"replace":  "new",
		"list":     "a,z",
		"tpl":      "hello from tpl",
		"missing":  "",
		"chart":    "1.2.3/9.9",
		"template": "mini/templates/configmap.yaml",
		"file":     "a note",
		"yaml":     "keep: kept\nreplace: new\n",
	}
	if !reflect.DeepEqual(data, want) {
		t.Errorf("data\n got: %#v\nwant: %#v", data, want)
	}
}

func TestRenderFailures(t *testing.T) {
	cases := []struct {
		name    string
		sets    []string
		wantErr string
	}{
		{"invalid YAML names the template", []string{"mode=yaml"}, "templates/broken.yaml: document 0 is not valid YAML"},
		{"fail", []string{"mode=fail"}, "asked to fail"},
		{"recursive include stops", []string{"mode=loop"}, "rendering too deep"},
		{"required on empty", []string{"mode=required"}, "need is required"},
		{"bad --set", []string{"novalue"}, "want key=value"},
		{"bad --set index", []string{"list[x]=1"}, "bad index"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := renderMini(t, tc.sets...)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
			}
		})
	}
}

// A render must not depend on the machine it runs on.
func TestNoEnvironmentFunctions(t *testing.T) {
	f := funcMap(nil)
	for _, name := range []string{"env", "expandenv"} {
		if _, ok := f[name]; ok {
			t.Errorf("%s is available to templates", name)
		}
	}
}

func TestSetPaths(t *testing.T) {
	cases := []struct {
		assignment string
		want       Values
	}{
		{"a=1", Values{"a": float64(1)}},
		{"a=true", Values{"a": true}},
		{"a=007", Values{"a": "007"}},
		{"a=1.5", Values{"a": "1.5"}},
		{"a.b.c=x", Values{"a": map[string]interface{}{"b": map[string]interface{}{"c": "x"}}}},
		{`a.b\.c/d=x`, Values{"a": map[string]interface{}{"b.c/d": "x"}}},
		{"a[1].b=x", Values{"a": []interface{}{nil, map[string]interface{}{"b": "x"}}}},
		{"a=x=y", Values{"a": "x=y"}},
	}
	for _, tc := range cases {
		t.Run(tc.assignment, func(t *testing.T) {
			got := Values{}
			if err := applySet(got, tc.assignment); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestMergeValues(t *testing.T) {
	base := Values{"a": map[string]interface{}{"x": 1.0, "y": 2.0}, "l": []interface{}{1.0, 2.0}, "gone": "v"}
	over := Values{"a": map[string]interface{}{"y": 3.0}, "l": []interface{}{9.0}, "gone": nil}
	got := mergeValues(base, over)
	want := Values{"a": map[string]interface{}{"x": 1.0, "y": 3.0}, "l": []interface{}{9.0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestValuesSchemaValidation(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "values.schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"additionalProperties":false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		values  Values
		wantErr string
	}{
		{Values{"n": 2.0}, ""},
		{Values{"n": 0.0}, "n: Must be greater than or equal to 1"},
		{Values{"n": 1.5}, "n: Invalid type"},
		{Values{"m": 1.0}, "Additional property m is not allowed"},
	}
	for _, tc := range cases {
		err := validateValues(schema, tc.values)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("values %v: want error %q, got %v", tc.values, tc.wantErr, err)
		}
	}
	if err := validateValues(filepath.Join(dir, "absent.json"), Values{"anything": 1.0}); err != nil {
		t.Errorf("a chart without a schema accepts any values, got %v", err)
	}
}

func TestKubeVersionConstraint(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	chart := "apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: \">=1.28.0-0\"\n"
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte(chart), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(dir, Options{KubeVersion: "v1.32.0"}); err != nil {
		t.Errorf("1.32 satisfies >=1.28: %v", err)
	}
	if _, err := Render(dir, Options{KubeVersion: "v1.27.3"}); err == nil || !strings.Contains(err.Error(), "incompatible") {
		t.Errorf("1.27 must be refused, got %v", err)
	}
}
