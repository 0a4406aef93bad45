#!/usr/bin/env bash
# The real node itself: it becomes Ready, runs a Pod from a locally made image, and the Pod calls
# the API server the way in-cluster clients do — the `kubernetes` Service address, its
# ServiceAccount token, the API server's certificate verified against the mounted CA — while
# `kubectl logs` and `kubectl exec` reach it through the kubelet. Then the teardown, and the host
# compared with a snapshot taken before anything started.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

"$FIXTURE" snapshot "$WORK/before"
node_up
note "node Ready ${DHA_REALNODE_NODE_READY_MS} ms after the kubelet started (control plane ${DHA_REALNODE_CONTROL_PLANE_MS} ms, whole start ${DHA_REALNODE_UP_MS} ms)"

# One Kubernetes: the node's binaries and the API server from the same pin.
pin=$(sed -n 's/^\s*k8s\.io\/kubernetes \(v[^ ]*\)$/\1/p' "$REPO_ROOT/sdk/testing/controlplane/go.mod")
[[ "$(sed -n 's/^\s*k8s\.io\/kubernetes \(v[^ ]*\)$/\1/p' "$REPO_ROOT/sdk/testing/realnode/nodebin/go.mod")" == "$pin" ]] ||
  fail "sdk/testing/realnode/nodebin/go.mod does not pin k8s.io/kubernetes $pin as the control plane does"
kubelet_version=$(kubectl get node "$DHA_REALNODE_NODE" -o jsonpath='{.status.nodeInfo.kubeletVersion}')
[[ "$kubelet_version" == "$pin" ]] || fail "the kubelet reports $kubelet_version, the pin is $pin"

start=$(now_ms)
kubectl apply -f - <<YAML
apiVersion: v1
kind: Pod
metadata: {name: in-cluster-client, namespace: default}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: client
    image: $DHA_REALNODE_TOOLBOX_IMAGE
    imagePullPolicy: Never
    command: [sh, -c, 'until kubectl get --raw /version >/tmp/version; do sleep 0.5; done; cat /tmp/version; exec sleep 600']
    readinessProbe:
      exec: {command: [test, -s, /tmp/version]}
      periodSeconds: 1
YAML
pod_ready() {
  [[ "$(kubectl get pod "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]
}
until_ok 120 "Pod in-cluster-client Ready" pod_ready in-cluster-client
note "Pod Ready $(( $(now_ms) - start )) ms after kubectl apply (the API server called from inside it)"

# Captured first: grep -q stopping early would fail the pipeline under pipefail.
logs=$(kubectl logs in-cluster-client) || fail "kubectl logs failed"
grep -q "\"gitVersion\": \"$pin\"" <<<"$logs" || fail "kubectl logs: no version answer from the API server: $logs"
[[ "$(kubectl exec in-cluster-client -- sh -c 'echo $KUBERNETES_SERVICE_HOST')" == 10.96.0.1 ]] ||
  fail "kubectl exec: the Pod does not see the kubernetes Service address"
# No resolver of the host's: a lookup in a Pod stays in the Pod.
resolv=$(kubectl exec in-cluster-client -- cat /etc/resolv.conf)
[[ "$(grep '^nameserver' <<<"$resolv")" == "nameserver 127.0.0.1" ]] || fail "the Pod's resolv.conf names another resolver: $resolv"
pod_ip=$(kubectl get pod in-cluster-client -o jsonpath='{.status.podIP}')
[[ "$pod_ip" == 10.213.0.* ]] || fail "Pod IP $pod_ip is not from the node's Pod range"

# A Pod reaches another Pod through a Service address: kube-proxy's DNAT sends the packet back
# out of the bridge it came in by, so the node must forward what arrives on the bridge.
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: echo-server, namespace: default, labels: {app: echo-server}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: server
    image: $DHA_REALNODE_TOOLBOX_IMAGE
    imagePullPolicy: Never
    command: [sh, -c, 'while true; do echo pong | nc -l -p 8080; done']
---
apiVersion: v1
kind: Service
metadata: {name: echo-server, namespace: default}
spec:
  selector: {app: echo-server}
  ports: [{port: 80, targetPort: 8080}]
YAML
until_ok 120 "Pod echo-server running" kubectl wait --for=condition=Ready pod/echo-server --timeout=2s
service_ip=$(kubectl get service echo-server -o jsonpath='{.spec.clusterIP}')
through_service() { [[ "$(kubectl exec in-cluster-client -- sh -c "nc -w 2 $service_ip 80 </dev/null")" == pong ]]; }
until_ok 30 "Pod in-cluster-client reaching Pod echo-server through its Service ($service_ip:80)" through_service
note "Pod to Pod through a Service address: answered"

# Traffic stays on the machine: the fixture's table drops what the bridge would forward
# elsewhere, and IP forwarding is as the host had it but on the node's bridge.
rules=$(nft list table ip dha_realnode)
grep -Eq 'iifname "dha-br0" ip daddr != \{ (10\.96\.0\.0/16, 10\.213\.0\.0/24|10\.213\.0\.0/24, 10\.96\.0\.0/16) \} drop' <<<"$rules" ||
  fail "the rule that keeps the bridge's traffic inside is missing"
[[ "$(sysctl -n net.ipv4.ip_forward)" == "$(sed -n 's/^net.ipv4.ip_forward = //p' "$WORK/before/sysctl")" ]] ||
  fail "net.ipv4.ip_forward changed while the node runs"
[[ "$(sysctl -n net.ipv4.conf.dha-br0.forwarding)" == 1 ]] || fail "forwarding is off on the node's bridge"

# One node per machine, and nobody else's teardown: a second `up` is refused before it changes
# anything, and a `down` of a state that is not the running node leaves the node alone.
if out=$("$FIXTURE" up "$WORK/second" 2>&1); then fail "a second real node started beside the first"; fi
grep -q 'another real node holds' <<<"$out" || fail "the second up failed, but not on the lock: $out"
[[ ! -e "$WORK/second/host-before" ]] || fail "the refused up took a host snapshot (its down would restore it)"
mkdir -p "$WORK/stranger/host-before" "$WORK/stranger/pids"
echo $$ >"$WORK/stranger/pids/mountns"
if out=$("$FIXTURE" down "$WORK/stranger" 2>&1); then fail "down of another state tore the running node down"; fi
grep -q 'is not the one in' <<<"$out" || fail "down of another state failed, but not because the node is not its own: $out"
node_ready() {
  [[ "$(kubectl get node "$DHA_REALNODE_NODE" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]
}
until_ok 30 "the node still Ready after the refused up and down" node_ready
[[ "$(kubectl exec in-cluster-client -- sh -c "nc -w 2 $service_ip 80 </dev/null")" == pong ]] ||
  fail "the node's Pods stopped answering after the refused up and down"
note "a second up refused by the lock; a down of another state refused: the node kept running"

node_down
"$FIXTURE" snapshot "$WORK/after"
"$FIXTURE" diff "$WORK/before" "$WORK/after" || fail "the host is not as it was before the node started"
echo "realnode.node: 1 passed, 0 failed"
