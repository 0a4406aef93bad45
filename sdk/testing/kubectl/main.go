// Command kubectl is upstream kubectl, built from the Kubernetes version the test control plane
// pins, so the demo, the tests and a fresh machine drive the API servers with a client of the
// same version instead of whatever kubectl the distribution ships (Debian 12's 1.20 cannot
// `kubectl apply` to a current server). scripts/install-deps builds it with scripts/build-go-tool.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// Verbosity is set before the command is built, so klog output while building it (plugin
	// lookup, .kuberc) already honours -v.
	_, _ = logs.GlogSetter(cmd.GetLogVerbosity(os.Args))
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
