#!/usr/bin/env bash
# The chart's NetworkPolicy enforced on the real node (dha-real-node with DHA_REALNODE_NETPOL=1:
# kube-network-policies deciding every new connection to or from a Pod, the node's own
# included). The chart installed with the policy on and told this node's addresses (the API
# server and the kubelet reach Pods from the node's address, NODE_IP, which lies in the Pod
# range), and scrapers limited to the `monitoring` namespace. Then:
#   - the kubelet's probes are admitted: both replicas Ready, none restarted;
#   - the API server is admitted: a managed HelmRelease's replica patch is denied by the webhook,
#     and the audit log records no webhook call that failed open;
#   - a Pod in a tenant namespace, which reaches another tenant Pod, connects to no port of the
#     operator's Pods (webhook, probe, metrics) nor to the webhook through the Service;
#   - a Pod in `monitoring` connects to the metrics port only.
# Run with the policy off (DHA_REALNODE_CHART_VALUES='--set networkPolicy.enabled=false') it
# fails: the tenant Pod reaches the webhook port.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/chart_lib.sh"

export DHA_REALNODE_NETPOL=1
test_start=$(now_ms)
node_up
[[ "${DHA_REALNODE_NETPOL:-}" == 1 ]] || fail "the node's env does not say NetworkPolicies are enforced"
chart_setup
build_image "$IMAGE"

# A managed release, made before the webhook exists, and a tenant whom RBAC lets patch it (the
# webhook must still refuse a change of its replicas).
kubectl apply -f "$REPO_ROOT/examples/demo/postgres.yaml" >/dev/null
kubectl apply -f - >/dev/null <<YAML
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: postgres-db
  namespace: demo
  annotations: {apps.cozystack.io-autoscaling.cozystack.io/managed-by: db}
spec:
  interval: 1m
  chart: {spec: {chart: postgres, sourceRef: {kind: HelmRepository, name: cozystack-apps}}}
  values: {replicas: 2}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: release-editor, namespace: demo}
rules:
- {apiGroups: [helm.toolkit.fluxcd.io], resources: [helmreleases], verbs: [get, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: release-editor, namespace: demo}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: release-editor}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-user}]
YAML

node_cidr=$DHA_REALNODE_NODE_IP/32
start=$(now_ms)
chart_install "$IMAGE" --set "networkPolicy.podCIDRs={$DHA_REALNODE_POD_CIDR}" \
  --set "networkPolicy.apiServerCIDRs={$node_cidr}" \
  --set "networkPolicy.probesFrom[0].ipBlock.cidr=$node_cidr" \
  --set 'networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\.io/metadata\.name=monitoring'
if ! until_ok_quiet 180 two_ready; then
  kubectl -n "$NAMESPACE" get pods -o wide >&2 || true
  tail -n 20 "$WORK/state/logs/netpol.log" >&2 || true
  fail "not within 180s: 2 operator replicas Ready (the kubelet's probes admitted by probesFrom?)"
fi
note "helm install -> 2 replicas Ready in $(( $(now_ms) - start )) ms (the kubelet's probes admitted)"
kubectl -n "$NAMESPACE" get networkpolicy "$RELEASE" >/dev/null 2>&1 || note "the release has no NetworkPolicy"

# --- the API server reaches the webhook ------------------------------------------------------
ips=$(pod_ips)
[[ $(wc -w <<<"$ips") == 2 ]] || fail "expected 2 operator Pod addresses, got: $ips"
both_endpoints_ready() { [[ "$(ready_endpoint_ips)" == "$ips" ]]; }
until_ok 60 "the Service's EndpointSlice lists both Pods ($(echo $ips)) ready" both_endpoints_ready
# The tenant (the control plane's tenant-user, allowed to patch HelmReleases in demo by RBAC).
replica_patch() {
  kubectl --kubeconfig "$WORK/state/cp/kubeconfig-tenant" -n demo patch helmrelease postgres-db --type merge -p '{"spec":{"values":{"replicas":3}}}' "$@" 2>&1
}
patch_denied() { local out; out=$(replica_patch --dry-run=server) && return 1; grep -q 'denied the request' <<<"$out"; }
# Until kube-proxy routes the Service, a call fails and failurePolicy Ignore lets it through.
if ! until_ok_quiet 60 patch_denied; then
  tail -n 20 "$WORK/state/logs/netpol.log" >&2 || true
  fail "not within 60s: a replica patch on the managed release denied by the webhook (the API server admitted by apiServerCIDRs?)"
fi
audit=$(sed -n 's/.*"auditLog":"\([^"]*\)".*/\1/p' "$WORK/state/cp/ready.json")
audit_from=$(stat -c %s "$audit")
if out=$(replica_patch); then fail "a replica patch on the managed release was admitted: $out"; fi
grep -q 'denied the request' <<<"$out" || fail "the replica patch was refused, but not by the webhook: $out"
note "the API server calls the webhook through the policy: a tenant's replica patch is denied"

# --- tenant and monitoring Pods --------------------------------------------------------------
kubectl create namespace tenant-a >/dev/null
kubectl create namespace monitoring >/dev/null
client_pod() {
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $2, namespace: $1, labels: {app: $2}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: $DHA_REALNODE_TOOLBOX_IMAGE
    imagePullPolicy: Never
    command: [sh, -c, '$3']
---
YAML
}
{
  client_pod tenant-a tenant 'exec sleep 3600'
  client_pod tenant-a tenant-echo 'while true; do echo pong | nc -l -p 8080; done'
  client_pod monitoring scraper 'exec sleep 3600'
} | kubectl apply -f - >/dev/null
for p in tenant-a/tenant tenant-a/tenant-echo monitoring/scraper; do
  until_ok 120 "Pod $p Ready" kubectl -n "${p%/*}" wait --for=condition=Ready "pod/${p#*/}" --timeout=2s
done

# connect NS/POD IP PORT: "open" when a TCP connection from the Pod is accepted, "timed out"
# when nothing answers (the enforcer drops it), else what nc said.
connect() {
  local out
  out=$(timeout 30 kubectl -n "${1%/*}" exec "${1#*/}" -- sh -c "nc -w 3 $2 $3 </dev/null >/dev/null 2>/tmp/nc.err && echo open || cat /tmp/nc.err" 2>&1) || true
  case "$out" in
    open) echo open ;;
    *"timed out"*) echo "timed out" ;;
    *) echo "${out:-no answer}" ;;
  esac
}
port() {
  kubectl -n "$NAMESPACE" get deployment "$RELEASE" \
    -o jsonpath="{.spec.template.spec.containers[0].ports[?(@.name==\"$1\")].containerPort}"
}
webhook_port=$(port webhook) health_port=$(port health) metrics_port=$(port metrics)
echo_ip=$(kubectl -n tenant-a get pod tenant-echo -o jsonpath='{.status.podIP}')
# The tenant Pod's network works: another tenant Pod on the same bridge answers it.
[[ "$(timeout 30 kubectl -n tenant-a exec tenant -- sh -c "nc -w 3 $echo_ip 8080 </dev/null")" == pong ]] ||
  fail "the tenant Pod does not reach another tenant Pod ($echo_ip:8080): no baseline"
expect() {
  local got; got=$(connect "$1" "$2" "$3")
  [[ "$got" == "$4" ]] || fail "$1 to $2:$3 ($5): $got, expected $4"
}
for ip in $ips; do
  expect tenant-a/tenant "$ip" "$webhook_port" "timed out" "the webhook port"
  expect tenant-a/tenant "$ip" "$health_port" "timed out" "the probe port"
  expect tenant-a/tenant "$ip" "$metrics_port" "timed out" "the metrics port, metricsFrom: monitoring only"
  expect monitoring/scraper "$ip" "$metrics_port" open "the metrics port, metricsFrom: monitoring"
  expect monitoring/scraper "$ip" "$webhook_port" "timed out" "the webhook port"
  expect monitoring/scraper "$ip" "$health_port" "timed out" "the probe port"
done
service_ip=$(kubectl -n "$NAMESPACE" get service "$RELEASE" -o jsonpath='{.spec.clusterIP}')
service_port=$(kubectl -n "$NAMESPACE" get service "$RELEASE" -o jsonpath='{.spec.ports[?(@.name=="webhook")].port}')
expect tenant-a/tenant "$service_ip" "$service_port" "timed out" "the webhook through the Service"
note "a tenant Pod reaches no port of the operator's Pods; a monitoring Pod only the metrics port"

# Still answering the API server after all that, and nothing let through on the way.
until_ok 30 "the replica patch denied by the webhook at the end" patch_denied
audited=$(tail -c +"$((audit_from + 1))" "$audit")
if grep -q 'failed-open.validating.webhook.admission.k8s.io' <<<"$audited"; then
  grep -o '"failed-open[^}]*' <<<"$audited" | head -3 >&2
  fail "the API server let a write through because a webhook call failed (above)"
fi
restarts=$(kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" \
  -o jsonpath='{range .items[*]}{.status.containerStatuses[0].restartCount}{" "}{end}')
[[ "$restarts" == "0 0 " ]] || fail "operator containers restarted (probes cut off?): $restarts"
kubectl delete namespace tenant-a monitoring --wait=false >/dev/null
note "netpol checks done $(( $(now_ms) - test_start )) ms after the start"
echo "realnode.netpol: 1 passed, 0 failed"
