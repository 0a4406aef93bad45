// dha-kube-node: the node side of a real cluster for tests — kubelet, kube-controller-manager,
// kube-scheduler and kube-proxy — in one binary built from the same pinned Kubernetes module as
// the control-plane launcher, so one `go build` makes all four and their versions always match
// the API server's. The first argument names the component; the rest are its own flags:
//
//	dha-kube-node kubelet --config=...
//	dha-kube-node kube-proxy --config=...
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

var components = map[string]func() *cobra.Command{
	"kubelet":                 func() *cobra.Command { return kubelet.NewKubeletCommand(context.Background()) },
	"kube-controller-manager": controllermanager.NewControllerManagerCommand,
	"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
	"kube-proxy":              proxy.NewProxyCommand,
}

func main() {
	if len(os.Args) < 2 || components[os.Args[1]] == nil {
		names := make([]string, 0, len(components))
		for name := range components {
			names = append(names, name)
		}
		fmt.Fprintf(os.Stderr, "usage: %s COMPONENT [FLAGS...]\n  COMPONENT: one of %s\n", os.Args[0], strings.Join(names, ", "))
		os.Exit(2)
	}
	command := components[os.Args[1]]()
	command.SetArgs(os.Args[2:])
	os.Exit(cli.Run(command))
}
