package main

import (
	"fmt"
	"os"
	_ "unsafe" // go:linkname

	"k8s.io/component-base/version"
)

// `kubectl version` reports what Kubernetes' release build stamps into these variables at link
// time; a plain `go build` leaves "v0.0.0-master", which scripts/install-deps could not compare
// with the floor it checks. Stamp the version go.mod pins instead (the control plane does the same).
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
		fmt.Fprintf(os.Stderr, "kubectl: stamping the version %s: %v\n", kubernetesVersion, err)
		os.Exit(1)
	}
}
