# Cluster DNS, when `up` is asked for it (DHA_REALNODE_DNS=1): CoreDNS with its kubernetes plugin
# (sdk/testing/realnode/coredns, built by scripts/build-go-tool) as one more process of the
# fixture, on the node's address, and the kubelet giving that address to ClusterFirst Pods as
# their resolver, so they find Services by name (`<service>`, `<service>.<namespace>.svc`) as on
# a real cluster. Names outside the cluster's zones are refused: nothing is forwarded off the
# machine. Without it, Pods keep the loopback resolver (kube.sh) and lookups fail at once.

dns_wanted() { [[ "${DHA_REALNODE_DNS:-0}" == 1 ]]; }

start_dns() {
  cat >"$STATE/Corefile" <<COREFILE
cluster.local:53 in-addr.arpa:53 {
  bind $NODE_IP
  errors
  kubernetes cluster.local in-addr.arpa {
    kubeconfig $STATE/cp/kubeconfig-admin
  }
}
COREFILE
  start_proc coredns "$DHA_COREDNS" -conf "$STATE/Corefile"
}

# A Service's name answered with its address: the kubernetes plugin has synced.
dns_answers() {
  local ip; ip=$(kubectl_ -n default get service kubernetes -o jsonpath='{.spec.clusterIP}')
  getent_dns kubernetes.default.svc.cluster.local | grep -qx "$ip"
}

# getent_dns NAME: the A records NODE_IP:53 gives for NAME (busybox nslookup, always at hand here).
getent_dns() { busybox nslookup "$1" "$NODE_IP" 2>/dev/null | awk '/^Address: / { print $2 }'; }
