package main

import (
	"fmt"
	"os"
	_ "unsafe" // go:linkname

	"k8s.io/component-base/version"
)

// A plain `go build` leaves Kubernetes' version variables at "v0.0.0-master" (its release build
// stamps them at link time): the Node would report that kubelet version, and version-skew checks
// could not compare it with the API server's. Stamp the version go.mod pins, as the control-plane
// launcher does (tests/realnode/node_test.sh checks the running kubelet reports the pin).
const kubernetesVersion, kubernetesMajor, kubernetesMinor = "v1.34.4", "1", "34"

//go:linkname gitVersion k8s.io/component-base/version.gitVersion
var gitVersion string

//go:linkname gitMajor k8s.io/component-base/version.gitMajor
var gitMajor string

//go:linkname gitMinor k8s.io/component-base/version.gitMinor
var gitMinor string

func init() {
	gitVersion, gitMajor, gitMinor = kubernetesVersion, kubernetesMajor, kubernetesMinor
	// The version package copied gitVersion at its own init, before this one ran.
	if err := version.SetDynamicVersion(kubernetesVersion); err != nil {
		fmt.Fprintf(os.Stderr, "dha-kube-node: stamping the version %s: %v\n", kubernetesVersion, err)
		os.Exit(1)
	}
}
