package charttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	bundledDir = "/usr/lib/db-autoscaler/plugins"
	extraDir   = "/var/lib/db-autoscaler/extra-plugins"
	configFile = "/etc/db-autoscaler/plugin-config.json"
)

// plugins.enabled/config/extra decide the operator's plugin flags (charts/db-autoscaler/README.md).
func TestPluginSelectionFlags(t *testing.T) {
	cases := []struct {
		name        string
		files       []string
		wantDirs    []string
		wantPlugins string
		wantConfig  bool
		wantInits   int
	}{
		{"defaults", nil, []string{bundledDir}, "postgres,redis,metrics-vm", false, 0},
		{"postgres only with config", []string{"plugins-selection.yaml"}, []string{bundledDir}, "postgres,metrics-vm", true, 0},
		{"extra images", []string{"plugins-extra.yaml"}, []string{bundledDir, extraDir},
			"postgres,redis,metrics-vm,backup-window-gate,acme-engine", true, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := renderChart(t, tc.files)
			args := operatorArgs(t, r)
			expectEqual(t, "--plugin-dir", flagValues(args, "--plugin-dir"), tc.wantDirs)
			expectEqual(t, "--plugins", flagValues(args, "--plugins"), []string{tc.wantPlugins})
			gotConfig := flagValues(args, "--plugin-config")
			if tc.wantConfig {
				expectEqual(t, "--plugin-config", gotConfig, []string{configFile})
			} else if len(gotConfig) != 0 || has(r, "ConfigMap", "db-autoscaler-plugin-config") {
				t.Errorf("no plugins.config, yet --plugin-config %v or its ConfigMap is rendered", gotConfig)
			}
			inits, _ := at(only(t, r, "Deployment", "db-autoscaler"), "spec.template.spec.initContainers").([]interface{})
			if len(inits) != tc.wantInits {
				t.Errorf("want %d init containers, got %d", tc.wantInits, len(inits))
			}
		})
	}
}

// The --plugin-config file is the JSON of plugins.config, mounted where the flag points.
func TestPluginConfigFile(t *testing.T) {
	r := renderChart(t, []string{"plugins-selection.yaml"})
	cm := only(t, r, "ConfigMap", "db-autoscaler-plugin-config")
	text, _ := at(cm, "data").(map[string]interface{})["plugin-config.json"].(string)
	var got map[string]interface{}
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("plugin-config.json does not parse: %v\n%s", err, text)
	}
	expectEqual(t, "plugin config", got, map[string]interface{}{
		"metrics-vm": map[string]interface{}{
			"url":            "http://vmselect-shortterm.tenant-root.svc:8481/select/0/prometheus",
			"timeoutSeconds": 10,
		},
		"postgres": map[string]interface{}{"defaultResourcesPreset": "t1.small"},
	})
	d := only(t, r, "Deployment", "db-autoscaler")
	mount := findMount(t, d, "db-autoscaler", "plugin-config")
	if !strings.HasPrefix(configFile, at(mount, "mountPath").(string)+"/") {
		t.Errorf("--plugin-config %s is not inside the mount %v", configFile, at(mount, "mountPath"))
	}
	expectEqual(t, "plugin-config volume", findVolume(t, d, "plugin-config")["configMap"],
		map[string]interface{}{"name": "db-autoscaler-plugin-config"})

	// Changing the configuration changes the pod template, so the pods restart and re-read it.
	other := renderChart(t, []string{"plugins-selection.yaml"}, "plugins.config.metrics-vm.timeoutSeconds=20")
	a := at(d, "spec.template.metadata.annotations.checksum/plugin-config")
	b := at(only(t, other, "Deployment", "db-autoscaler"), "spec.template.metadata.annotations.checksum/plugin-config")
	if a == nil || a == b {
		t.Errorf("config checksum did not change: %v vs %v", a, b)
	}
}

// Each extra plugin is copied by its own init container into the shared volume, as <name>.so.
func TestExtraPluginInitContainers(t *testing.T) {
	r := renderChart(t, []string{"plugins-extra.yaml"})
	d := only(t, r, "Deployment", "db-autoscaler")
	want := []struct{ name, image, file string }{
		{"backup-window-gate", "registry.example.com/acme/dha-backup-window:1.2.0", "/plugins/backup-window-gate.so"},
		{"acme-engine", "registry.example.com/acme/dha-engine:0.3.1", "/opt/acme/lib/acme-engine.so"},
	}
	for i, w := range want {
		c := at(d, "spec.template.spec.initContainers").([]interface{})[i]
		expectEqual(t, "init name", at(c, "name"), "plugin-"+w.name)
		expectEqual(t, "init image", at(c, "image"), w.image)
		expectEqual(t, "init command", at(c, "command"), []string{"cp", w.file, extraDir + "/" + w.name + ".so"})
		expectEqual(t, "init mount", at(c, "volumeMounts[0]"), map[string]interface{}{"name": "extra-plugins", "mountPath": extraDir})
	}
	mount := findMount(t, d, "db-autoscaler", "extra-plugins")
	expectEqual(t, "operator mounts the extra dir", at(mount, "mountPath"), extraDir)
	expectEqual(t, "operator mount is read-only", at(mount, "readOnly"), true)
	if findVolume(t, d, "extra-plugins")["emptyDir"] == nil {
		t.Error("extra-plugins must be an emptyDir shared by the init containers and the operator")
	}
}

// Mistakes in the plugin selection fail the render with a message naming the problem.
func TestPluginSelectionErrors(t *testing.T) {
	cases := []struct {
		name    string
		values  string
		wantErr string
	}{
		{"extra shadows a bundled plugin", `
plugins:
  extra: [{name: postgres, image: x/y:1, file: /p/postgres.so}]`, `"postgres" is already loaded`},
		{"config for a plugin that is not loaded", `
plugins:
  config: {mongodb: {a: 1}}`, `"mongodb", which is not in plugins.enabled`},
		{"no plugin at all", `
plugins:
  enabled: []`, "plugins.enabled"},
		{"listed twice", `
plugins:
  enabled: [postgres, postgres]`, "plugins.enabled"},
		{"name with a path", `
plugins:
  enabled: [../evil]`, "plugins.enabled.0"},
		{"extra file is not a shared object", `
plugins:
  extra: [{name: gate, image: x/y:1, file: /p/gate}]`, "plugins.extra.0.file"},
		{"extra without image", `
plugins:
  extra: [{name: gate, file: /p/gate.so}]`, "image"},
		{"config of a plugin is not an object", `
plugins:
  config: {postgres: "yes"}`, "plugins.config.postgres"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tryRender(t, []string{inlineValues(t, tc.values)})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want an error containing %q, got %v", tc.wantErr, err)
			}
		})
	}
}

func findMount(t *testing.T, deploy map[string]interface{}, container, volume string) map[string]interface{} {
	t.Helper()
	for _, c := range containers(deploy) {
		if c["name"] != container {
			continue
		}
		for _, m := range at(c, "volumeMounts").([]interface{}) {
			if at(m, "name") == volume {
				return m.(map[string]interface{})
			}
		}
	}
	t.Fatalf("container %s does not mount %s", container, volume)
	return nil
}

func findVolume(t *testing.T, deploy map[string]interface{}, name string) map[string]interface{} {
	t.Helper()
	for _, v := range at(deploy, "spec.template.spec.volumes").([]interface{}) {
		if at(v, "name") == name {
			return v.(map[string]interface{})
		}
	}
	t.Fatalf("no volume %s", name)
	return nil
}

// The bundled plugins the chart enables by default, and every name the README offers, are
// plugins this repository builds as <name>.so (the host loads <name>.so from each --plugin-dir).
func TestBundledPluginsExistInTheTree(t *testing.T) {
	r := renderChart(t, nil)
	names := map[string]bool{"postgres": true, "redis": true, "mariadb": true, "mongodb": true, "metrics-vm": true}
	for _, n := range r.Values["plugins"].(map[string]interface{})["enabled"].([]interface{}) {
		names[n.(string)] = true
	}
	for name := range names {
		cmake, err := os.ReadFile(filepath.Join(sourceDir(t), "plugins", name, "CMakeLists.txt"))
		if err != nil {
			t.Errorf("plugin %s: %v", name, err)
			continue
		}
		if !strings.Contains(string(cmake), "dha_add_plugin("+name+" ") {
			t.Errorf("plugins/%s/CMakeLists.txt does not build %s.so with dha_add_plugin", name, name)
		}
	}
}

// NOTES.txt tells the installer which plugins were loaded.
func TestNotesNameTheLoadedPlugins(t *testing.T) {
	notes := renderChart(t, []string{"plugins-extra.yaml"}).Notes
	if !strings.Contains(notes, "Plugins: postgres,redis,metrics-vm,backup-window-gate,acme-engine") {
		t.Errorf("NOTES.txt does not list the plugins:\n%s", notes)
	}
}
