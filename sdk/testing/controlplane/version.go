package main

import (
	"fmt"
	_ "unsafe" // go:linkname

	"k8s.io/component-base/version"
)

// kube-apiserver reports the version stamped into these variables at link time by
// Kubernetes' own release build; a plain `go build` leaves "v0.0.0-master", which clients
// that compare versions (Helm's semverCompare, kubectl's skew warning) cannot use. Stamp the
// version go.mod pins instead.
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
		fail(fmt.Errorf("stamping the version %s: %w", kubernetesVersion, err))
	}
}
