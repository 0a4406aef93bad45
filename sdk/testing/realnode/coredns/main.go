// dha-coredns: CoreDNS with the few plugins the real node's cluster DNS needs (bind, errors,
// kubernetes), so Pods resolve Service names as on a real cluster (`<service>`,
// `<service>.<namespace>.svc.cluster.local`). dha-real-node starts it when asked for DNS.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
)

// The order in which the plugins act on a query: CoreDNS's own order for these three.
var directives = []string{"bind", "errors", "kubernetes"}

func init() { dnsserver.Directives = directives }

func main() { coremain.Run() }
