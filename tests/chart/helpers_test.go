package charttest

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"dha.local/charttest/helmrender"
)

// The release the reference chart's tests use.
const (
	releaseName      = "db-autoscaler"
	releaseNamespace = "cozy-db-autoscaler"
	certDir          = "/tmp/k8s-webhook-server/serving-certs"
)

// sourceDir is the repository root. The tests run from a GOPATH symlink, so resolve it first.
func sourceDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("DHA_SOURCE_DIR"); dir != "" {
		return dir
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(wd)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Clean(filepath.Join(real, "..", ".."))
}

func chartDir(t *testing.T) string {
	return filepath.Join(sourceDir(t), "charts", "db-autoscaler")
}

func valuesFile(t *testing.T, name string) string {
	return filepath.Join(sourceDir(t), "tests", "chart", "values", name)
}

// renderChart renders with the test release; sets are "key=value".
func renderChart(t *testing.T, files []string, sets ...string) *helmrender.Result {
	t.Helper()
	r, err := tryRender(t, files, sets...)
	if err != nil {
		t.Fatalf("render failed: %v", err)
	}
	return r
}

func tryRender(t *testing.T, files []string, sets ...string) (*helmrender.Result, error) {
	t.Helper()
	var paths []string
	for _, f := range files {
		if !filepath.IsAbs(f) {
			f = valuesFile(t, f)
		}
		paths = append(paths, f)
	}
	return helmrender.Render(chartDir(t), helmrender.Options{
		ReleaseName: releaseName, Namespace: releaseNamespace, ValueFiles: paths, Set: sets,
	})
}

// inlineValues writes a values file for one test and returns its absolute path.
func inlineValues(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// only returns the single manifest of a kind and name, failing when there are none or several.
func only(t *testing.T, r *helmrender.Result, kind, name string) map[string]interface{} {
	t.Helper()
	var found []map[string]interface{}
	for _, m := range r.Manifests {
		if m.Kind() == kind && m.Name() == name {
			found = append(found, m.Object)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one %s %q, found %d (rendered: %s)", kind, name, len(found), inventory(r))
	}
	return found[0]
}

func ofKind(r *helmrender.Result, kind string) []map[string]interface{} {
	var out []map[string]interface{}
	for _, m := range r.Manifests {
		if m.Kind() == kind {
			out = append(out, m.Object)
		}
	}
	return out
}

func has(r *helmrender.Result, kind, name string) bool {
	for _, m := range r.Manifests {
		if m.Kind() == kind && m.Name() == name {
			return true
		}
	}
	return false
}

func inventory(r *helmrender.Result) string {
	var names []string
	for _, m := range r.Manifests {
		names = append(names, m.Kind()+"/"+m.Name())
	}
	return strings.Join(names, ", ")
}

// at walks a dotted path with [i] indexes: "spec.template.spec.containers[0].args".
// A missing step yields nil, so assertions can tell "absent" from a wrong value.
func at(obj interface{}, path string) interface{} {
	cur := obj
	for _, part := range strings.Split(path, ".") {
		name := part
		var indexes []int
		if i := strings.IndexByte(part, '['); i >= 0 {
			name = part[:i]
			for _, idx := range strings.Split(strings.TrimSuffix(part[i+1:], "]"), "][") {
				n, err := strconv.Atoi(idx)
				if err != nil {
					panic("bad path " + path)
				}
				indexes = append(indexes, n)
			}
		}
		if name != "" {
			m, ok := cur.(map[string]interface{})
			if !ok {
				return nil
			}
			cur = m[name]
		}
		for _, n := range indexes {
			l, ok := cur.([]interface{})
			if !ok || n >= len(l) {
				return nil
			}
			cur = l[n]
		}
	}
	return cur
}

func strs(v interface{}) []string {
	l, _ := v.([]interface{})
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func contains(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}

func labelsOf(obj map[string]interface{}) map[string]interface{} {
	l, _ := at(obj, "metadata.labels").(map[string]interface{})
	return l
}

// expectEqual compares after normalising YAML numbers (int from YAML, float64 from JSON).
func expectEqual(t *testing.T, what string, got, want interface{}) {
	t.Helper()
	if !reflect.DeepEqual(normalise(got), normalise(want)) {
		t.Errorf("%s: got %#v, want %#v", what, got, want)
	}
}

func normalise(v interface{}) interface{} {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case []interface{}:
		out := make([]interface{}, len(x))
		for i := range x {
			out[i] = normalise(x[i])
		}
		return out
	case []string:
		out := make([]interface{}, len(x))
		for i := range x {
			out[i] = x[i]
		}
		return out
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, e := range x {
			out[k] = normalise(e)
		}
		return out
	}
	return v
}

// walk calls fn for every map key in the tree, with its path.
func walk(v interface{}, path string, fn func(path, key string, value interface{})) {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			fn(path, k, e)
			walk(e, path+"."+k, fn)
		}
	case []interface{}:
		for i, e := range x {
			walk(e, path+"["+strconv.Itoa(i)+"]", fn)
		}
	}
}

// containers returns the init and regular containers of a pod template.
func containers(deploy map[string]interface{}) []map[string]interface{} {
	var out []map[string]interface{}
	for _, key := range []string{"initContainers", "containers"} {
		l, _ := at(deploy, "spec.template.spec."+key).([]interface{})
		for _, c := range l {
			if m, ok := c.(map[string]interface{}); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func operatorArgs(t *testing.T, r *helmrender.Result) []string {
	t.Helper()
	return strs(at(only(t, r, "Deployment", "db-autoscaler"), "spec.template.spec.containers[0].args"))
}

// flagValues returns every value given for --name=... in args.
func flagValues(args []string, name string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, name+"=") {
			out = append(out, strings.TrimPrefix(a, name+"="))
		}
	}
	return out
}
