package helmrender

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/Masterminds/semver/v3"
	yamlv2 "gopkg.in/yaml.v2"
	"gopkg.in/yaml.v3"
)

// Helm stops runaway include recursion at this depth.
const maxIncludeDepth = 1000

// funcMap is sprig's text functions minus the environment readers (Helm removes them so a
// render cannot depend on the machine) plus Helm's own functions.
func funcMap(root *template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")

	depth := 0
	f["include"] = func(name string, data interface{}) (string, error) {
		if depth >= maxIncludeDepth {
			return "", fmt.Errorf("include %q: rendering too deep (recursive include?)", name)
		}
		depth++
		defer func() { depth-- }()
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, data); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("tpl: %w", err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, data); err != nil {
			return "", fmt.Errorf("tpl: %w", err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	f["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return nil, errors.New(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return nil, errors.New(msg)
		}
		return v, nil
	}
	f["fail"] = func(msg string) (string, error) { return "", errors.New(msg) }
	f["toYaml"] = toYaml
	f["fromYaml"] = fromYaml
	f["fromYamlArray"] = fromYamlArray
	f["toJson"] = toJSON
	f["fromJson"] = fromJSON
	f["fromJsonArray"] = fromJSONArray
	// No cluster: lookup finds nothing, as under `helm template`.
	f["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	return f
}

// toYaml matches Helm: errors render as "", and the trailing newline is trimmed so the result
// composes with nindent.
func toYaml(v interface{}) string {
	data, err := yamlv2.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYaml(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYamlArray(s string) []interface{} {
	var a []interface{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	var a []interface{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// Files is .Files: the chart's non-template files by chart-relative path.
type Files map[string][]byte

// Get returns a file's content, or "" when it does not exist (as Helm does).
func (f Files) Get(name string) string { return string(f[name]) }

// GetBytes returns a file's content as bytes.
func (f Files) GetBytes(name string) []byte { return f[name] }

func loadFiles(chartDir string) (Files, error) {
	files := Files{}
	err := filepath.Walk(chartDir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(chartDir, path)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			if rel == "templates" || rel == "crds" || rel == "charts" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json" {
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[rel] = body
		return nil
	})
	return files, err
}

// Capabilities is .Capabilities: the target cluster's version and API groups.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions APIVersions
}

// KubeVersion mirrors Helm's .Capabilities.KubeVersion.
type KubeVersion struct {
	Version, Major, Minor string
}

// APIVersions answers .Capabilities.APIVersions.Has: Kubernetes' built-in group/versions plus
// the ones Options.APIVersions lists; every API when all is set.
type APIVersions struct {
	all    bool
	served map[string]bool
}

// The built-in group/versions the chart's templates may ask about.
var builtinAPIVersions = []string{"v1", "apps/v1", "policy/v1", "rbac.authorization.k8s.io/v1",
	"admissionregistration.k8s.io/v1", "networking.k8s.io/v1", "coordination.k8s.io/v1",
	"apiextensions.k8s.io/v1", "autoscaling/v2"}

// Has reports whether the API group/version (or group/version/Kind) is available.
func (a APIVersions) Has(api string) bool {
	if a.all || a.served[api] {
		return true
	}
	// "group/version/Kind" of a built-in group/version.
	if i := strings.LastIndex(api, "/"); i > 0 {
		for _, gv := range builtinAPIVersions {
			if api[:i] == gv {
				return true
			}
		}
	}
	return false
}

func newCapabilities(version string, apiVersions []string) Capabilities {
	v, err := semver.NewVersion(version)
	kv := KubeVersion{Version: version}
	if err == nil {
		kv.Major = fmt.Sprint(v.Major())
		kv.Minor = fmt.Sprint(v.Minor())
	}
	apis := APIVersions{all: apiVersions == nil, served: map[string]bool{}}
	for _, gv := range append(append([]string{}, builtinAPIVersions...), apiVersions...) {
		apis.served[gv] = true
		// "group/version/Kind" also makes "group/version" served.
		if parts := strings.Split(gv, "/"); len(parts) == 3 {
			apis.served[parts[0]+"/"+parts[1]] = true
		}
	}
	return Capabilities{KubeVersion: kv, APIVersions: apis}
}
