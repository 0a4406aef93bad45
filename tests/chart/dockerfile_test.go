package charttest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Docker cannot run on the build machines, so the Dockerfile is checked by reading it: the
// stages, the user, what reaches the runtime image, and agreement with the chart.

type instruction struct {
	cmd, args string
	line      int
}

type stage struct {
	image, name string
	body        []instruction
}

// parseDockerfile splits a Dockerfile into global ARGs and stages, joining continuation lines
// and dropping comments, as the builder does.
func parseDockerfile(t *testing.T, path string) (map[string]string, []stage) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]string{}
	var stages []stage
	var pending strings.Builder
	start := 0
	for i, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		if pending.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if pending.Len() > 0 && strings.HasPrefix(trimmed, "#") {
			continue
		}
		if pending.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(trimmed, "\\") {
			pending.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		pending.WriteString(trimmed)
		full := pending.String()
		pending.Reset()
		fields := strings.SplitN(full, " ", 2)
		in := instruction{cmd: strings.ToUpper(fields[0]), line: start}
		if len(fields) == 2 {
			in.args = strings.TrimSpace(fields[1])
		}
		switch {
		case in.cmd == "FROM":
			parts := strings.Fields(in.args)
			st := stage{image: expandArgs(parts[0], args)}
			if len(parts) == 3 && strings.EqualFold(parts[1], "AS") {
				st.name = parts[2]
			}
			stages = append(stages, st)
		case in.cmd == "ARG" && len(stages) == 0:
			kv := strings.SplitN(in.args, "=", 2)
			if len(kv) == 2 {
				args[kv[0]] = kv[1]
			}
		case len(stages) == 0:
			t.Fatalf("Dockerfile line %d: %s before the first FROM", in.line, in.cmd)
		default:
			stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
		}
	}
	return args, stages
}

var argRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

func expandArgs(s string, args map[string]string) string {
	return argRef.ReplaceAllStringFunc(s, func(m string) string {
		return args[argRef.FindStringSubmatch(m)[1]]
	})
}

func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.body {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

func TestDockerfileStructure(t *testing.T) {
	_, stages := parseDockerfile(t, filepath.Join(sourceDir(t), "Dockerfile"))
	if len(stages) < 2 {
		t.Fatalf("want a multi-stage build, got %d stage(s)", len(stages))
	}
	for _, st := range stages {
		if !strings.HasPrefix(st.image, "debian:12") {
			t.Errorf("stage %q is based on %q, want Debian 12", st.name, st.image)
		}
	}
	build, runtime := stages[0], stages[len(stages)-1]

	// Build stage: the project's CMake build, without tests.
	var buildRuns strings.Builder
	for _, in := range build.all("RUN") {
		buildRuns.WriteString(in.args + "\n")
	}
	for _, want := range []string{"cmake -S /src -B /build", "-DDHA_BUILD_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release", "cmake --build /build",
		"cmake --install /build --component operator"} {
		if !strings.Contains(buildRuns.String(), want) {
			t.Errorf("build stage does not run %q", want)
		}
	}
	// The install rules are the one place that knows which files are the operator's: picking
	// plugins out of the build tree by hand drifts from them.
	if strings.Contains(buildRuns.String(), "find /build") {
		t.Error("build stage collects files from the build tree with find instead of cmake --install")
	}

	// Runtime stage: non-root numeric user, no root switch afterwards, CA certificates, the binary
	// and the plugins from the build stage, and no compilers or headers.
	users := runtime.all("USER")
	if len(users) == 0 {
		t.Fatal("runtime stage sets no USER (it would run as root)")
	}
	for _, u := range users {
		if name := strings.SplitN(u.args, ":", 2)[0]; name == "root" || name == "0" {
			t.Errorf("line %d: runtime stage switches to root", u.line)
		}
	}
	if last := users[len(users)-1].args; last != "65532:65532" && last != "65532" {
		t.Errorf("final USER is %q, want 65532 (numeric, so runAsNonRoot can verify it)", last)
	}
	var runtimeRuns, copies strings.Builder
	for _, in := range runtime.all("RUN") {
		runtimeRuns.WriteString(in.args + "\n")
	}
	for _, in := range runtime.all("COPY") {
		copies.WriteString(in.args + "\n")
	}
	if !strings.Contains(runtimeRuns.String(), "ca-certificates") {
		t.Error("runtime stage does not install ca-certificates")
	}
	for _, bad := range []string{"build-essential", "-dev ", "cmake", "g++"} {
		if strings.Contains(runtimeRuns.String(), bad) {
			t.Errorf("runtime stage installs build tooling (%q)", bad)
		}
	}
	for _, want := range []string{
		"--from=" + build.name + " /out/usr/bin/db-autoscaler /usr/bin/db-autoscaler",
		"--from=" + build.name + " /out/usr/lib/db-autoscaler/plugins/ /usr/lib/db-autoscaler/plugins/",
	} {
		if !strings.Contains(copies.String(), want) {
			t.Errorf("runtime stage lacks COPY %s", want)
		}
	}
	entry := runtime.all("ENTRYPOINT")
	if len(entry) != 1 || entry[0].args != `["/usr/bin/db-autoscaler"]` {
		t.Errorf("ENTRYPOINT must be the exec form of the copied binary, got %v", entry)
	}
	for _, st := range stages {
		for _, in := range st.all("ADD") {
			if strings.Contains(in.args, "://") {
				t.Errorf("line %d: ADD from a URL (unpinned download)", in.line)
			}
		}
	}
}

// The image and the chart must agree: the chart's plugin dir is where the image puts plugins,
// and the pod's runAsUser is the image's user.
func TestDockerfileMatchesChart(t *testing.T) {
	_, stages := parseDockerfile(t, filepath.Join(sourceDir(t), "Dockerfile"))
	runtime := stages[len(stages)-1]
	r := renderChart(t, nil)
	pluginDir := r.Values["plugins"].(map[string]interface{})["dir"].(string)
	found := false
	for _, in := range runtime.all("COPY") {
		if strings.HasSuffix(strings.TrimSuffix(in.args, "/"), " "+pluginDir) {
			found = true
		}
	}
	if !found {
		t.Errorf("the image does not put plugins into the chart's plugins.dir %s", pluginDir)
	}
	users := runtime.all("USER")
	uid := strings.SplitN(users[len(users)-1].args, ":", 2)[0]
	d := only(t, r, "Deployment", "db-autoscaler")
	expectEqual(t, "runAsUser vs image USER", at(d, "spec.template.spec.securityContext.runAsUser"), 65532)
	if uid != "65532" {
		t.Errorf("image user %s differs from the chart's runAsUser 65532", uid)
	}

	ignore, err := os.ReadFile(filepath.Join(sourceDir(t), ".dockerignore"))
	if err != nil {
		t.Fatalf("no .dockerignore: host build trees would be sent to the builder: %v", err)
	}
	for _, want := range []string{"build", "build-*", ".git"} {
		if !contains(strings.Fields(string(ignore)), want) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}
