#!/usr/bin/env bash
# The chart installed as a user installs it, on the real node: the operator image built from the
# repository's Dockerfile, real Helm, the chart's defaults plus a metrics URL and (no
# cert-manager here) the chart's own certificates. Then, as Pods:
#   - both replicas Ready through their probes, none restarted;
#   - both admission webhooks called by the API server through the chart's Service, each with the
#     CA bundle the chart wrote: a managed HelmRelease's creation is refused, and so is a second
#     DHA on a database another DHA already scales — and no write was let through because a call
#     failed (the API server's audit log records each fail-open);
#   - the leader's Pod deleted: the other replica takes the Lease;
#   - helm uninstall: nothing of the release is left.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

NAMESPACE=cozy-db-autoscaler RELEASE=db-autoscaler IMAGE=localhost/db-autoscaler:realnode

node_up
helm=$("$REPO_ROOT/scripts/build-go-tool" tests/chart/helm helm.sh/helm/v3/cmd/helm helm) || fail "could not build Helm"
export HELM_CONFIG_HOME=$WORK/helm/config HELM_CACHE_HOME=$WORK/helm/cache HELM_DATA_HOME=$WORK/helm/data

start=$(now_ms)
"$FIXTURE" image "$WORK/state" "$IMAGE" || fail "the Dockerfile did not build into an image (above)"
note "image built from the Dockerfile in $(( $(now_ms) - start )) ms"

# A real VictoriaMetrics for the metrics URL, on the node's address (where Pods reach the host).
vm_port=$(( 20000 + RANDOM % 10000 ))
victoria-metrics -httpListenAddr="$DHA_REALNODE_NODE_IP:$vm_port" -storageDataPath="$WORK/vm" \
  -retentionPeriod=1d >"$WORK/vm.log" 2>&1 &
vm_pid=$!
CLEANUP+=("kill $vm_pid 2>/dev/null; wait $vm_pid 2>/dev/null")
until_ok 30 "VictoriaMetrics on $DHA_REALNODE_NODE_IP:$vm_port" \
  wget -q -O /dev/null "http://$DHA_REALNODE_NODE_IP:$vm_port/health"

kubectl apply -f "$REPO_ROOT/sdk/testing/crds" >/dev/null

# As a user installs it: the defaults (chart-made certificates; no Prometheus or VictoriaMetrics
# operator kinds on a cluster without their APIs) plus the image and the metrics URL.
values=(--set image.repository="${IMAGE%:*}" --set image.tag="${IMAGE##*:}"
        --set-string "plugins.config.metrics-vm.urlTemplate=http://$DHA_REALNODE_NODE_IP:$vm_port/prometheus")
# DHA_REALNODE_CHART_VALUES adds settings for a local experiment.
# shellcheck disable=SC2206
values+=(${DHA_REALNODE_CHART_VALUES:-})

start=$(now_ms)
"$helm" install "$RELEASE" "$REPO_ROOT/charts/db-autoscaler" --namespace "$NAMESPACE" --create-namespace \
  "${values[@]}" >"$WORK/helm-install.log" 2>&1 || { cat "$WORK/helm-install.log"; fail "helm install refused"; }
ready_replicas() { kubectl -n "$NAMESPACE" get deployment "$RELEASE" -o jsonpath='{.status.readyReplicas}'; }
two_ready() { [[ "$(ready_replicas)" == 2 ]]; }
if ! until_ok_quiet 180 two_ready; then
  kubectl -n "$NAMESPACE" logs -l app.kubernetes.io/instance="$RELEASE" --tail=5 --prefix >&2 || true
  fail "not within 180s: 2 operator replicas Ready (their logs above)"
fi
note "helm install -> 2 replicas Ready in $(( $(now_ms) - start )) ms"

# --- both webhooks through the Service -------------------------------------------------------
managed_release() {
  kubectl apply -f - <<YAML
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
YAML
}
kubectl apply -f "$REPO_ROOT/examples/demo/postgres.yaml" >/dev/null
if out=$(managed_release 2>&1); then
  fail "a HelmRelease created with the managed-by marker was admitted: $out"
fi
grep -q 'denied the request' <<<"$out" || fail "the HelmRelease was refused, but not by the webhook: $out"
kubectl apply -f "$REPO_ROOT/examples/demo/dha.yaml" >/dev/null
if out=$(sed 's/^  name: db$/  name: db-second/' "$REPO_ROOT/examples/demo/dha.yaml" | kubectl apply -f - 2>&1); then
  fail "a second DHA on demo/db was admitted (the one-DHA-per-target webhook was not reached): $out"
fi
grep -q 'denied the request' <<<"$out" || fail "the second DHA was refused, but not by the webhook: $out"
audit=$(sed -n 's/.*"auditLog":"\([^"]*\)".*/\1/p' "$WORK/state/cp/ready.json")
if grep -q 'failed-open.validating.webhook.admission.k8s.io' "$audit"; then
  grep -o '"failed-open[^}]*' "$audit" | head -3 >&2
  fail "the API server let a write through because a webhook call failed (above)"
fi
note "both webhooks answered the API server through the Service"

restarts=$(kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" \
  -o jsonpath='{range .items[*]}{.status.containerStatuses[0].restartCount}{" "}{end}')
[[ "$restarts" == "0 0 " ]] || fail "operator containers restarted (liveness probe?): $restarts"

# --- leader failover -------------------------------------------------------------------------
# The holder identity is the Pod's name, then "_" and what tells its runs apart.
holder() {
  local h; h=$(kubectl -n "$NAMESPACE" get lease -o jsonpath='{.items[0].spec.holderIdentity}' 2>/dev/null)
  echo "${h%%_*}"
}
has_holder() { [[ -n "$(holder)" ]]; }
until_ok 60 "a replica holds the Lease" has_holder
leader=$(holder)
pods=$(kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" -o jsonpath='{.items[*].metadata.name}')
[[ " $pods " == *" $leader "* ]] || fail "the Lease holder $leader is not one of the Pods ($pods)"
start=$(now_ms)
kubectl -n "$NAMESPACE" delete pod "$leader" --wait=false >/dev/null
new_leader() { local h; h=$(holder); [[ -n "$h" && "$h" != "$leader" && " $pods " == *" $h "* ]]; }
until_ok 90 "the other replica takes the Lease from $leader" new_leader
note "leader $leader deleted -> $(holder) leads after $(( $(now_ms) - start )) ms"
until_ok 180 "2 replicas Ready again" two_ready

# --- helm uninstall leaves nothing -----------------------------------------------------------
kubectl delete -f "$REPO_ROOT/examples/demo/dha.yaml" --wait=false >/dev/null 2>&1 || true
"$helm" uninstall "$RELEASE" --namespace "$NAMESPACE" --wait --timeout 120s >/dev/null
# What the release made, namespaced and cluster-wide (the garbage collector removes the Pods and
# ReplicaSets after the Deployment, so this polls).
release_objects() {
  kubectl get all,configmaps,secrets,serviceaccounts,roles,rolebindings,leases,poddisruptionbudgets,networkpolicies \
    -n "$NAMESPACE" -l app.kubernetes.io/instance="$RELEASE" -o name 2>/dev/null
  kubectl get clusterroles,clusterrolebindings,validatingwebhookconfigurations \
    -l app.kubernetes.io/instance="$RELEASE" -o name 2>/dev/null
  kubectl -n "$NAMESPACE" get pods -o name 2>/dev/null
}
nothing_left() { [[ -z "$(release_objects)" ]]; }
start=$(now_ms)
if ! until_ok_quiet 90 nothing_left; then
  fail "helm uninstall left: $(release_objects | tr '\n' ' ')"
fi
note "helm uninstall -> nothing of the release left after $(( $(now_ms) - start )) ms"
echo "realnode.chart: 1 passed, 0 failed"
