// dha-kube-control-plane: a real etcd and kube-apiserver on 127.0.0.1 for tests, built from
// their Go modules. It prints one line `dha-kube-control-plane ready {json}` on stdout (and
// writes the same JSON to --ready-file) once /readyz answers 200, and stops cleanly on SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

type options struct {
	dataDir, readyFile                 string
	keepData                           bool
	apiPort, etcdPort, etcdPeerPort    int
	identities, serviceAccounts, extra listFlag
	servingIPs                         listFlag
	readyTimeout                       time.Duration
}

// ready is what a test reads to reach the control plane.
type ready struct {
	URL        string               `json:"url"`
	CAFile     string               `json:"caFile"`
	Etcd       string               `json:"etcd"`
	DataDir    string               `json:"dataDir"`
	AuditLog   string               `json:"auditLog"`
	Identities map[string]*identity `json:"identities"`
	StartedMs  int64                `json:"startMillis"`
}

func parseOptions() options {
	var o options
	flag.StringVar(&o.dataDir, "data-dir", "", "where etcd data, certificates, kubeconfigs and the audit log go (default: a new temp dir, removed on exit)")
	flag.BoolVar(&o.keepData, "keep-data", false, "do not remove the data dir on exit")
	flag.StringVar(&o.readyFile, "ready-file", "", "also write the ready JSON to this file (atomically)")
	flag.IntVar(&o.apiPort, "port", 0, "kube-apiserver's secure port on 127.0.0.1 (0: a free one)")
	flag.IntVar(&o.etcdPort, "etcd-port", 0, "etcd's client port on 127.0.0.1 (0: a free one)")
	flag.IntVar(&o.etcdPeerPort, "etcd-peer-port", 0, "etcd's peer port on 127.0.0.1 (0: a free one)")
	flag.Var(&o.identities, "identity", "NAME=USERNAME[,GROUP...]: a bearer-token identity with its kubeconfig (repeatable)")
	flag.Var(&o.serviceAccounts, "service-account", "NAME=NAMESPACE:SERVICEACCOUNT: an identity as that ServiceAccount (repeatable)")
	flag.Var(&o.servingIPs, "serving-ip", "another IP address the serving certificate is valid for, besides 127.0.0.1 (repeatable): e.g. the kubernetes Service's, for clients in Pods")
	flag.Var(&o.extra, "apiserver-arg", "--flag=value passed on to kube-apiserver (repeatable)")
	flag.DurationVar(&o.readyTimeout, "ready-timeout", 120*time.Second, "how long to wait for /readyz")
	flag.Parse()
	if flag.NArg() != 0 {
		fail(fmt.Errorf("unexpected arguments: %v", flag.Args()))
	}
	if len(o.identities) == 0 && len(o.serviceAccounts) == 0 {
		o.identities = listFlag{"tenant=tenant-user"}
		o.serviceAccounts = listFlag{"operator=cozy-db-autoscaler:db-autoscaler"}
	}
	return o
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "dha-kube-control-plane: %v\n", err)
	os.Exit(1)
}

func main() {
	start := time.Now()
	o := parseOptions()
	// Our own handler from the start, so a SIGTERM during start-up still cleans up.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)

	ids := map[string]*identity{"admin": {Name: "admin", Username: "admin", Groups: []string{"system:masters"}}}
	for _, spec := range o.identities {
		id, err := parseIdentity(spec)
		if err != nil {
			fail(err)
		}
		ids[id.Name] = &id
	}
	for _, spec := range o.serviceAccounts {
		id, err := parseServiceAccount(spec)
		if err != nil {
			fail(err)
		}
		ids[id.Name] = &id
	}

	apiPort, err := loopbackPort("--port", o.apiPort)
	if err != nil {
		fail(err)
	}
	etcdPort, err := loopbackPort("--etcd-port", o.etcdPort, apiPort)
	if err != nil {
		fail(err)
	}
	peerPort, err := loopbackPort("--etcd-peer-port", o.etcdPeerPort, apiPort, etcdPort)
	if err != nil {
		fail(err)
	}

	dir := o.dataDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "dha-kube-"); err != nil {
			fail(err)
		}
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(err)
	}
	cleanup := func() {
		if !o.keepData && o.dataDir == "" {
			os.RemoveAll(dir)
		}
	}
	exit := func(code int, err error) {
		if err != nil {
			fmt.Fprintf(os.Stderr, "dha-kube-control-plane: %v\n", err)
		}
		cleanup()
		os.Exit(code)
	}

	extraIPs, err := parseIPs(o.servingIPs)
	if err != nil {
		exit(1, err)
	}
	certs, err := makePKI(dir, extraIPs)
	if err != nil {
		exit(1, err)
	}
	serverURL := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	tokenFile, err := writeIdentities(dir, serverURL, certs.caPEM, ids)
	if err != nil {
		exit(1, err)
	}
	policy, err := writeAuditPolicy(dir)
	if err != nil {
		exit(1, err)
	}
	auditLog := filepath.Join(dir, "audit.log")

	etcd, etcdURL, err := startEtcd(filepath.Join(dir, "etcd"), etcdPort, peerPort)
	if err != nil {
		exit(1, err)
	}
	stopEtcd := func() {
		etcd.Close()
		select {
		case <-etcd.Server.StopNotify():
		case <-time.After(10 * time.Second):
		}
	}
	select {
	case <-signals:
		stopEtcd()
		exit(0, nil)
	default:
	}

	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", apiPort),
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file=" + certs.certFile, "--tls-private-key-file=" + certs.keyFile,
		"--client-ca-file=" + certs.caFile,
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,ValidatingAdmissionWebhook,MutatingAdmissionWebhook,ValidatingAdmissionPolicy",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + certs.saPubFile, "--service-account-signing-key-file=" + certs.saKeyFile,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--audit-policy-file=" + policy, "--audit-log-path=" + auditLog, "--audit-log-format=json",
		"--audit-log-mode=blocking", "--audit-log-maxbackup=0",
		"--enable-priority-and-fairness=false",
		// The API server cannot advertise a loopback address in the kubernetes Endpoints.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--v=0",
	}
	args = append(args, o.extra...)

	cmd := app.NewAPIServerCommand() // installs kube-apiserver's own SIGTERM handler
	cmd.SetArgs(args)
	cmd.SilenceUsage = true
	apiDone := make(chan error, 1)
	go func() { apiDone <- cmd.Execute() }()

	ctx, cancel := context.WithCancel(context.Background())
	readyErr := make(chan error, 1)
	go func() {
		readyErr <- waitReady(ctx, serverURL, certs.caPEM, ids["admin"].Token, apiDone, o.readyTimeout)
	}()
	select {
	case err := <-readyErr:
		if err != nil {
			stopEtcd()
			exit(1, err)
		}
	case <-signals:
		cancel()
		waitAPIServer(apiDone)
		stopEtcd()
		exit(0, nil)
	}
	cancel()

	info := ready{URL: serverURL, CAFile: certs.caFile, Etcd: etcdURL, DataDir: dir, AuditLog: auditLog,
		Identities: ids, StartedMs: time.Since(start).Milliseconds()}
	line, _ := json.Marshal(info)
	if o.readyFile != "" {
		tmp := o.readyFile + ".tmp"
		if err := os.WriteFile(tmp, line, 0o600); err != nil {
			exit(1, err)
		}
		if err := os.Rename(tmp, o.readyFile); err != nil {
			exit(1, err)
		}
	}
	fmt.Printf("dha-kube-control-plane ready %s\n", line)

	select {
	case <-signals:
		// kube-apiserver got the same signal and is shutting down.
		waitAPIServer(apiDone)
		stopEtcd()
		exit(0, nil)
	case err := <-apiDone:
		stopEtcd()
		if err == nil {
			err = errors.New("kube-apiserver exited")
		}
		exit(1, err)
	}
}

func waitAPIServer(done <-chan error) {
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		fmt.Fprintln(os.Stderr, "dha-kube-control-plane: kube-apiserver did not stop within 30 s")
	}
}
