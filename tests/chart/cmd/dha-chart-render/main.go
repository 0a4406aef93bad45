// dha-chart-render prints the manifests of a chart like `helm template`, offline, so scripts
// and tests can `kubectl apply` them without a helm binary:
//
//	dha-chart-render --chart charts/db-autoscaler --namespace cozy-db-autoscaler \
//	    [--release db-autoscaler] [-f values.yaml]... [--set key=value]... [--include-crds]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"dha.local/charttest/helmrender"
)

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	var opts helmrender.Options
	var valueFiles, sets repeated
	chart := flag.String("chart", "", "chart directory (required)")
	includeCRDs := flag.Bool("include-crds", false, "print the crds/ documents first")
	flag.StringVar(&opts.ReleaseName, "release", "db-autoscaler", "release name")
	flag.StringVar(&opts.Namespace, "namespace", "default", "release namespace")
	flag.StringVar(&opts.KubeVersion, "kube-version", "v1.34.4", "Kubernetes version for .Capabilities")
	flag.Var(&valueFiles, "f", "values file (repeatable, applied in order)")
	flag.Var(&sets, "set", "key=value override (repeatable)")
	flag.Parse()
	if *chart == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: dha-chart-render --chart DIR [--namespace NS] [--release NAME] [-f FILE]... [--set K=V]... [--include-crds]")
		os.Exit(2)
	}
	opts.ValueFiles, opts.Set = valueFiles, sets
	result, err := helmrender.Render(*chart, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dha-chart-render:", err)
		os.Exit(1)
	}
	var docs []helmrender.Manifest
	if *includeCRDs {
		docs = append(docs, result.CRDs...)
	}
	docs = append(docs, result.Manifests...)
	for _, m := range docs {
		fmt.Printf("---\n# Source: %s\n%s\n", m.Template, strings.TrimSpace(m.Source))
	}
}
