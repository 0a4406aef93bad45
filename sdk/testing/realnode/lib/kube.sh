# The control plane (the same launcher as the realkube suites) and the node's components, all
# from one build of the pinned Kubernetes module (dha-kube-node). Every listener is on the
# node's bridge address or switched off, so nothing takes a loopback port another test may pick.

kubectl_() { kubectl --kubeconfig "$STATE/cp/kubeconfig-admin" "$@"; }

start_control_plane() {
  mkdir -p "$STATE/cp"
  start_proc control-plane "$DHA_KUBE_CONTROL_PLANE" --data-dir "$STATE/cp" --ready-file "$STATE/cp/ready.json" \
    --serving-ip "$KUBERNETES_SERVICE_IP" --serving-ip "$NODE_IP" \
    --identity "kubelet=system:node:$NODE_NAME,system:nodes" \
    --identity kube-controller-manager=system:kube-controller-manager \
    --identity kube-scheduler=system:kube-scheduler \
    --identity kube-proxy=system:kube-proxy \
    --identity tenant=tenant-user \
    --service-account operator=cozy-db-autoscaler:db-autoscaler \
    --apiserver-arg=--kubelet-preferred-address-types=InternalIP \
    --apiserver-arg=--allow-privileged=true
  wait_for 180 "the control plane's ready file" test -s "$STATE/cp/ready.json" || { require_alive control-plane; return 1; }
  API_PORT=$(sed -n 's/.*"url":"https:\/\/127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$STATE/cp/ready.json")
  [[ -n "$API_PORT" ]] || die "no API server URL in $STATE/cp/ready.json"
  # The node's own identity gets the node role (the server authorizes with RBAC alone).
  kubectl_ create clusterrolebinding dha-realnode-kubelet --clusterrole=system:node \
    --user="system:node:$NODE_NAME" >/dev/null
}

start_kubelet() {
  mkdir -p "$STATE/kubelet"
  # Pods get no host resolver: with no DNS server in the cluster, a lookup goes to the Pod's own
  # loopback and fails there instead of leaving the machine. (A file without a nameserver would
  # not do: containerd then copies the host's /etc/resolv.conf into the Pod.)
  printf '# dha-real-node: no upstream resolver\nnameserver 127.0.0.1\n' >"$STATE/resolv.conf"
  # With cluster DNS (dns.sh), ClusterFirst Pods ask CoreDNS on the node's address instead.
  local cluster_dns=""
  dns_wanted && cluster_dns="clusterDNS: [$NODE_IP]"
  cat >"$STATE/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: $NODE_IP
healthzPort: 10248
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: /$PODS_CGROUP
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$(containerd_sock)
volumePluginDir: /var/lib/kubelet/volume-plugins
resolvConf: $STATE/resolv.conf
clusterDomain: cluster.local
$cluster_dns
staticPodPath: ""
serializeImagePulls: false
# A shared machine's disk and memory are not this node's to police: evict only when nearly out.
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
nodeStatusReportFrequency: 10s
YAML
  start_proc kubelet "$DHA_KUBE_NODE" kubelet --config="$STATE/kubelet/config.yaml" \
    --kubeconfig="$STATE/cp/kubeconfig-kubelet" --root-dir=/var/lib/kubelet \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --v=1
}

node_ready() {
  [[ "$(kubectl_ get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" == True ]]
}

start_controllers() {
  start_proc kube-controller-manager "$DHA_KUBE_NODE" kube-controller-manager \
    --kubeconfig="$STATE/cp/kubeconfig-kube-controller-manager" \
    --use-service-account-credentials=true \
    --root-ca-file="$STATE/cp/ca.crt" \
    --service-account-private-key-file="$STATE/cp/sa.key" \
    --cluster-cidr="$POD_CIDR" --allocate-node-cidrs=false \
    --service-cluster-ip-range="$SERVICE_CIDR" \
    --flex-volume-plugin-dir="$STATE/kube-controller-manager/volume-plugins" \
    --leader-elect=false --secure-port=0 --v=1
  start_proc kube-scheduler "$DHA_KUBE_NODE" kube-scheduler \
    --kubeconfig="$STATE/cp/kubeconfig-kube-scheduler" --leader-elect=false --secure-port=0 --v=1
  # kube-proxy in nftables mode: its rules live in its own table (removed on teardown), and it
  # never touches conntrack sysctls (all zero) or route_localnet (no localhost NodePorts).
  cat >"$STATE/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection: {kubeconfig: $STATE/cp/kubeconfig-kube-proxy}
hostnameOverride: $NODE_NAME
clusterCIDR: $POD_CIDR
bindAddress: $NODE_IP
healthzBindAddress: $NODE_IP:10256
metricsBindAddress: $NODE_IP:10249
nodePortAddresses: ["$NODE_IP/32"]
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s, udpTimeout: 0s, udpStreamTimeout: 0s}
YAML
  start_proc kube-proxy "$DHA_KUBE_NODE" kube-proxy --config="$STATE/kube-proxy.yaml" --v=1
}

kube_proxy_programmed() { nft list table ip kube-proxy >/dev/null 2>&1; }

# The controllers first (nothing recreates a Pod), then the Pods (their sandboxes torn down by
# the kubelet, CNI DEL included), then the rest.
stop_kube() {
  stop_proc kube-controller-manager
  stop_proc kube-scheduler
  if alive control-plane && alive kubelet; then
    kubectl_ delete pods --all --all-namespaces --grace-period=1 --wait=false >/dev/null 2>&1 || true
    wait_for 30 "the node's Pods to stop" pods_gone || true
  fi
  local name
  for name in kube-proxy kubelet; do stop_proc "$name"; done
}

pods_gone() { [[ -z "$(ctr_ tasks list -q 2>/dev/null)" ]]; }
