// dha-netpol: the real node's NetworkPolicy enforcer (dha-real-node, DHA_REALNODE_NETPOL=1).
//
// It runs the NetworkPolicy controller of sigs.k8s.io/kube-network-policies as a process of the
// fixture, with the admin kubeconfig instead of an in-cluster one. That controller decides, in
// userspace, each new connection the kernel hands it on an NFQUEUE queue. Its own nftables rules
// use the nftables `queue` statement, which this machine's kernel lacks (no CONFIG_NFT_QUEUE):
// their transaction is refused as a whole and leaves nothing behind, so the fixture puts the
// packets on the queue itself with an iptables NFQUEUE rule (lib/netpol.sh), once this process
// has bound the queue (it fails closed: a queued packet nobody reads is dropped).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/kube-network-policies/pkg/networkpolicy"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the API server's address and credentials")
	node := flag.String("node", "", "the name of the Node whose Pods this enforcer guards")
	queue := flag.Int("nfqueue", 100, "the NFQUEUE queue number the fixture's rules send new connections to")
	table := flag.String("nft-table", "dha_realnode_netpol", "the nftables table name the controller tries (and fails) to write")
	klog.InitFlags(nil)
	flag.Parse()
	if *kubeconfig == "" || *node == "" {
		fmt.Fprintln(os.Stderr, "usage: dha-netpol -kubeconfig FILE -node NAME [-nfqueue N]")
		os.Exit(2)
	}
	os.Exit(run(*kubeconfig, *node, *queue, *table))
}

func run(kubeconfig, node string, queue int, table string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		klog.ErrorS(err, "reading the kubeconfig")
		return 1
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		klog.ErrorS(err, "making the API client")
		return 1
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	controller, err := networkpolicy.NewController(client,
		factory.Networking().V1().NetworkPolicies(),
		factory.Core().V1().Namespaces(),
		factory.Core().V1().Pods(),
		nil, nil, nil, nil,
		networkpolicy.Config{
			QueueID:     queue,
			NodeName:    node,
			NFTableName: table,
			// Its own (failing) nftables rules only; the fixture's rule queues every protocol.
			NetfilterBug1766Fix: false,
			// Kept on: without its NRI plugin the controller has no fallback for an address no
			// Pod has. The plugin finds no NRI socket here and stops; lookups then use the API.
			NRIdisabled: false,
		})
	if err != nil {
		klog.ErrorS(err, "making the NetworkPolicy controller")
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- controller.Run(ctx) }()
	factory.Start(ctx.Done())
	select {
	case err = <-done:
		if err != nil {
			klog.ErrorS(err, "the NetworkPolicy controller stopped")
			return 1
		}
	case <-ctx.Done():
		<-done
	}
	return 0
}
