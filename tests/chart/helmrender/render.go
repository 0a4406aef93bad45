// Package helmrender renders a Helm chart offline the way `helm template` does, with Go's own
// text/template engine and the sprig function library, plus Helm's additions (include, tpl,
// required, toYaml, fromYaml, toJson, fromJson, lookup) and its .Values/.Release/.Chart/
// .Capabilities/.Files/.Template objects. There is no helm binary on the build machines; this
// is the smallest faithful stand-in, so the chart tests exercise the real templates.
package helmrender

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/semver/v3"
	"gopkg.in/yaml.v3"
)

// Options describe one `helm template` invocation.
type Options struct {
	ReleaseName string
	Namespace   string
	ValueFiles  []string // applied in order over the chart's values.yaml
	Set         []string // "key=value", applied after the files
	KubeVersion string   // .Capabilities.KubeVersion, e.g. "v1.34.4"
	// APIVersions the cluster serves beyond Kubernetes' built-ins ("group/version" or
	// "group/version/Kind"), for .Capabilities.APIVersions.Has. Nil: every API is present (a
	// cluster with every operator the chart can use); empty: a plain cluster.
	APIVersions []string
}

// Manifest is one rendered YAML document.
type Manifest struct {
	Template string // chart-relative path, e.g. "templates/deployment.yaml" or "crds/x.yaml"
	Source   string
	Object   map[string]interface{}
}

// Kind, Name and Namespace read the usual fields; empty when absent.
func (m Manifest) Kind() string      { return str(m.Object["kind"]) }
func (m Manifest) Name() string      { return str(metadata(m.Object)["name"]) }
func (m Manifest) Namespace() string { return str(metadata(m.Object)["namespace"]) }

// Result is everything a render produced.
type Result struct {
	Values    Values
	Manifests []Manifest // from templates/, in file-name order
	CRDs      []Manifest // from crds/, installed by Helm before the templates
	Notes     string     // templates/NOTES.txt, rendered
}

// Render renders the chart in chartDir.
func Render(chartDir string, opts Options) (*Result, error) {
	if opts.ReleaseName == "" {
		opts.ReleaseName = "release-name"
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.KubeVersion == "" {
		opts.KubeVersion = "v1.34.4" // the real kube-apiserver the realkube tests run
	}
	chart, err := loadChart(chartDir)
	if err != nil {
		return nil, err
	}
	if err := checkKubeVersion(chart, opts.KubeVersion); err != nil {
		return nil, err
	}
	values := Values{}
	if _, err := os.Stat(filepath.Join(chartDir, "values.yaml")); err == nil {
		if values, err = loadValuesFile(filepath.Join(chartDir, "values.yaml")); err != nil {
			return nil, err
		}
	}
	for _, f := range opts.ValueFiles {
		override, err := loadValuesFile(f)
		if err != nil {
			return nil, err
		}
		values = mergeValues(values, override)
	}
	for _, s := range opts.Set {
		if err := applySet(values, s); err != nil {
			return nil, err
		}
	}
	if err := validateValues(filepath.Join(chartDir, "values.schema.json"), values); err != nil {
		return nil, err
	}
	files, err := loadFiles(chartDir)
	if err != nil {
		return nil, err
	}
	top := map[string]interface{}{
		"Values": values,
		"Chart":  chart,
		"Release": map[string]interface{}{
			"Name": opts.ReleaseName, "Namespace": opts.Namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Capabilities": newCapabilities(opts.KubeVersion, opts.APIVersions),
		"Files":        files,
	}
	manifests, notes, err := renderTemplates(chartDir, str(chart["Name"]), top)
	if err != nil {
		return nil, err
	}
	crds, err := loadCRDs(chartDir)
	if err != nil {
		return nil, err
	}
	return &Result{Values: values, Manifests: manifests, CRDs: crds, Notes: notes}, nil
}

// loadChart reads Chart.yaml into the capitalised fields templates use (.Chart.Name, ...).
func loadChart(chartDir string) (map[string]interface{}, error) {
	raw, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	var meta map[string]interface{}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		return nil, fmt.Errorf("Chart.yaml: %w", err)
	}
	chart := map[string]interface{}{}
	for k, v := range meta {
		switch k {
		case "apiVersion":
			chart["APIVersion"] = v
		case "appVersion":
			chart["AppVersion"] = v
		case "kubeVersion":
			chart["KubeVersion"] = v
		default:
			chart[strings.ToUpper(k[:1])+k[1:]] = v
		}
	}
	for _, required := range []string{"APIVersion", "Name", "Version"} {
		if str(chart[required]) == "" {
			return nil, fmt.Errorf("Chart.yaml: %s is required", required)
		}
	}
	if _, err := semver.StrictNewVersion(str(chart["Version"])); err != nil {
		return nil, fmt.Errorf("Chart.yaml: version %q is not SemVer 2: %w", chart["Version"], err)
	}
	return chart, nil
}

func checkKubeVersion(chart map[string]interface{}, kubeVersion string) error {
	constraint := str(chart["KubeVersion"])
	if constraint == "" {
		return nil
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return fmt.Errorf("Chart.yaml kubeVersion %q: %w", constraint, err)
	}
	v, err := semver.NewVersion(kubeVersion)
	if err != nil {
		return fmt.Errorf("kube version %q: %w", kubeVersion, err)
	}
	if !c.Check(v) {
		return fmt.Errorf("chart requires kubeVersion %s, which is incompatible with Kubernetes %s", constraint, kubeVersion)
	}
	return nil
}

// renderTemplates parses every file under templates/ into one template set (so partials from
// _*.tpl are visible everywhere) and executes the non-partial ones, as Helm's engine does.
func renderTemplates(chartDir, chartName string, top map[string]interface{}) ([]Manifest, string, error) {
	root := template.New("gotpl").Option("missingkey=zero")
	root.Funcs(funcMap(root))
	var toRender []string
	templatesDir := filepath.Join(chartDir, "templates")
	err := filepath.Walk(templatesDir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(chartDir, path)
		name := chartName + "/" + filepath.ToSlash(rel)
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if _, err := root.New(name).Parse(string(body)); err != nil {
			return fmt.Errorf("parse %s: %w", rel, err)
		}
		if !strings.HasPrefix(filepath.Base(path), "_") {
			toRender = append(toRender, name)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	sort.Strings(toRender)

	var out []Manifest
	var notes string
	for _, name := range toRender {
		data := make(map[string]interface{}, len(top)+1)
		for k, v := range top {
			data[k] = v
		}
		data["Template"] = map[string]interface{}{"Name": name, "BasePath": chartName + "/templates"}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, data); err != nil {
			return nil, "", fmt.Errorf("render %s: %w", name, err)
		}
		rendered := strings.ReplaceAll(buf.String(), "<no value>", "")
		if filepath.Base(name) == "NOTES.txt" {
			notes = rendered // shown to the user, not applied
			continue
		}
		docs, err := splitDocuments(strings.TrimPrefix(name, chartName+"/"), rendered)
		if err != nil {
			return nil, "", err
		}
		out = append(out, docs...)
	}
	return out, notes, nil
}

func loadCRDs(chartDir string) ([]Manifest, error) {
	paths, err := filepath.Glob(filepath.Join(chartDir, "crds", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []Manifest
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		docs, err := splitDocuments("crds/"+filepath.Base(p), string(raw))
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// splitDocuments cuts a rendered file at "---" lines and parses each document, so a template
// that renders invalid YAML fails the render with the template's name and the offending text.
// Documents with no content (only comments or whitespace) are dropped, as kubectl drops them.
func splitDocuments(template, text string) ([]Manifest, error) {
	var out []Manifest
	for i, part := range documentSeparator.Split(text, -1) {
		if strings.TrimSpace(part) == "" {
			continue
		}
		var obj map[string]interface{}
		if err := yaml.Unmarshal([]byte(part), &obj); err != nil {
			return nil, fmt.Errorf("%s: document %d is not valid YAML: %w\n%s", template, i, err, numbered(part))
		}
		if obj == nil {
			continue
		}
		out = append(out, Manifest{Template: template, Source: part, Object: obj})
	}
	return out, nil
}

func numbered(text string) string {
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%4d | %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}

func metadata(obj map[string]interface{}) map[string]interface{} {
	m, _ := obj["metadata"].(map[string]interface{})
	return m
}

func str(v interface{}) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}
