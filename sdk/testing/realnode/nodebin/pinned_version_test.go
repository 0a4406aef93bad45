package main

import (
	"os"
	"regexp"
	"testing"
)

// The node's binaries must be the control plane's Kubernetes: the same k8s.io/kubernetes pin in
// both go.mod files, and the version this binary stamps is that pin.
func TestSamePinnedKubernetesAsTheControlPlane(t *testing.T) {
	pin := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v\S+)`)
	read := func(path string) string {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := pin.FindSubmatch(raw)
		if m == nil {
			t.Fatalf("%s pins no k8s.io/kubernetes", path)
		}
		return string(m[1])
	}
	node, controlPlane := read("go.mod"), read("../../controlplane/go.mod")
	if node != controlPlane {
		t.Errorf("node binaries pin k8s.io/kubernetes %s, the control plane %s", node, controlPlane)
	}
	if kubernetesVersion != node {
		t.Errorf("stamped version %s, go.mod pins %s", kubernetesVersion, node)
	}
}
