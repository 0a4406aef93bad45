#!/usr/bin/env bash
# The chart installed as a user installs it, on the real node: the operator image built from the
# repository's Dockerfile, real Helm, the chart's defaults plus a metrics URL and (no
# cert-manager here) the chart's own certificates. Then, as Pods:
#   - both replicas Ready through their probes, none restarted;
#   - both admission webhooks called by the API server through the chart's Service, each with the
#     CA bundle the chart wrote: a managed HelmRelease's creation is refused, and so is a second
#     DHA on a database another DHA already scales — and no write was let through because a call
#     failed (the API server's audit log records each fail-open);
#   - the leader's Pod deleted: a live replica (the follower, or the deleted Pod's replacement
#     if it asks first) takes the Lease;
#   - metrics scraped the way the chart's VMServiceScrape scrapes them (each Pod's address, the
#     release CA, the Service's name, a bearer token): a scraper's token is refused until
#     `helm upgrade` makes its ServiceAccount a metrics reader, then a real vmagent scrapes both
#     replicas into VictoriaMetrics; no token is refused throughout;
#   - helm upgrade with a values change and a new image tag: both replicas replaced and Ready on
#     the new image, the certificates kept, both webhooks still answering through the Service;
#   - helm uninstall: nothing of the release is left.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/chart_lib.sh"

node_up
chart_setup
build_image "$IMAGE"

start=$(now_ms)
chart_install "$IMAGE"
if ! until_ok_quiet 180 two_ready; then
  kubectl -n "$NAMESPACE" logs -l app.kubernetes.io/instance="$RELEASE" --tail=5 --prefix >&2 || true
  fail "not within 180s: 2 operator replicas Ready (their logs above)"
fi
ready_ms=$(now_ms)
note "helm install -> 2 replicas Ready in $(( ready_ms - start )) ms"

# --- both webhooks through the Service -------------------------------------------------------
# managed_release KUBECTL-ARGS...: a HelmRelease created with the managed-by marker, which the
# replicas-ownership webhook must refuse.
managed_release() {
  kubectl "$@" -f - <<YAML
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

# Ready replicas are not yet a reachable webhook: the API server calls the Service's cluster IP,
# which leads to a Pod only once the EndpointSlice controller has listed the Pod ready and
# kube-proxy has programmed that. Before then a call fails, and under the chart's
# failurePolicy Ignore the write goes through. So first both Pods' addresses ready in the
# Service's EndpointSlice, then a server-side dry run the webhook must refuse, refused: a review
# answered through the Service. The dry runs before that are the API server's to let through
# (and its audit log records them as failed open); every request after it is held to the
# assertions below, the audit log's included.
ips=$(pod_ips)
[[ $(wc -w <<<"$ips") == 2 ]] || fail "expected 2 operator Pod addresses, got: $ips"
both_endpoints_ready() { [[ "$(ready_endpoint_ips)" == "$ips" ]]; }
until_ok_quiet 60 both_endpoints_ready ||
  fail "not within 60s: the Service's EndpointSlice lists both Pods ($(echo $ips)) ready; it lists: $(echo $(ready_endpoint_ips))"
endpoints_ms=$(now_ms)
probes=0
dry_run_refused() {
  probes=$((probes + 1))
  local out
  out=$(managed_release create --dry-run=server 2>&1) && return 1
  grep -q 'denied the request' <<<"$out"
}
# Not until_ok: it would run the probe in a subshell, and the count is wanted.
deadline=$(( $(date +%s) + 60 ))
until dry_run_refused; do
  (( $(date +%s) < deadline )) || fail "not within 60s: a dry-run HelmRelease refused through the Service"
  sleep 0.2
done
audit=$(sed -n 's/.*"auditLog":"\([^"]*\)".*/\1/p' "$WORK/state/cp/ready.json")
audit_from=$(stat -c %s "$audit")
let_through=$(head -c "$audit_from" "$audit" | grep -c 'failed-open.validating.webhook.admission.k8s.io' || true)
note "Service answering reviews $(( $(now_ms) - ready_ms )) ms after 2 replicas Ready (EndpointSlice both ready after $(( endpoints_ms - ready_ms )) ms; $probes dry run(s), $let_through let through before)"

if out=$(managed_release apply 2>&1); then
  fail "a HelmRelease created with the managed-by marker was admitted: $out"
fi
grep -q 'denied the request' <<<"$out" || fail "the HelmRelease was refused, but not by the webhook: $out"

# The one-DHA-per-target webhook answers from each replica's own cache of the DHAs: the second
# DHA is refused by whichever replica the Service picks only once both have seen the first. So
# each Pod is asked directly (its webhook port, the chart's CA) until it refuses the second DHA,
# then the API server is.
kubectl apply -f "$REPO_ROOT/examples/demo/dha.yaml" >/dev/null
second_dha() { sed 's/^  name: db$/  name: db-second/' "$REPO_ROOT/examples/demo/dha.yaml"; }
kubectl -n "$NAMESPACE" get secret "$RELEASE-cert" -o go-template='{{index .data "ca.crt" | base64decode}}' >"$WORK/ca.crt"
second=$(second_dha | kubectl create --dry-run=client -o json -f -)
cat >"$WORK/review.json" <<JSON
{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
 "request": {"uid": "realnode-chart-probe", "operation": "CREATE", "namespace": "demo", "name": "db-second",
             "kind": {"group": "autoscaling.cozystack.io", "version": "v1alpha1", "kind": "DatabaseHorizontalAutoscaler"},
             "resource": {"group": "autoscaling.cozystack.io", "version": "v1alpha1", "resource": "databasehorizontalautoscalers"},
             "userInfo": {"username": "realnode-chart-test"}, "object": $second}}
JSON
webhook_port=$(kubectl -n "$NAMESPACE" get deployment "$RELEASE" \
  -o jsonpath='{.spec.template.spec.containers[0].ports[?(@.name=="webhook")].containerPort}')
service_dns=$RELEASE.$NAMESPACE.svc
pod_refuses_second() {
  local out
  out=$(curl -sS --max-time 5 --cacert "$WORK/ca.crt" --resolve "$service_dns:$webhook_port:$1" \
    -H 'Content-Type: application/json' --data-binary @"$WORK/review.json" \
    "https://$service_dns:$webhook_port/validate-dha-target") || return 1
  grep -q '"allowed":false,"status":{"code":403' <<<"$out"
}
# second_dha_refused WHEN: each replica at $ips refuses the second DHA itself, then so does the
# API server through the Service (WHEN prefixes the failure, e.g. "after the upgrade").
second_dha_refused() {
  local ip out
  for ip in $ips; do
    until_ok 30 "$1: the replica at $ip refuses a second DHA on demo/db (its cache holds demo/db)" pod_refuses_second "$ip"
  done
  if out=$(second_dha | kubectl apply -f - 2>&1); then
    fail "$1: a second DHA on demo/db was admitted (the one-DHA-per-target webhook was not reached): $out"
  fi
  grep -q 'denied the request' <<<"$out" || fail "$1: the second DHA was refused, but not by the webhook: $out"
}
second_dha_refused "after the install"
# Captured first: grep -q stopping early would fail the pipeline under pipefail.
audited=$(tail -c +"$((audit_from + 1))" "$audit")
if grep -q 'failed-open.validating.webhook.admission.k8s.io' <<<"$audited"; then
  grep -o '"failed-open[^}]*' <<<"$audited" | head -3 >&2
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
# The Lease goes to a live replica: the follower, or the Deployment's replacement for the
# deleted Pod if it asks first. The deleted leader releases the Lease once its reconciles have
# drained; one still in a plugin call keeps it until it runs out (the lease duration), and by
# then the replacement is a candidate as well. Either way, never the deleted Pod.
live_pods() {
  kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" \
    -o go-template='{{range .items}}{{if not .metadata.deletionTimestamp}}{{.metadata.name}} {{end}}{{end}}'
}
new_leader() { local h; h=$(holder); [[ -n "$h" && "$h" != "$leader" && " $(live_pods) " == *" $h "* ]]; }
if ! until_ok_quiet 90 new_leader; then
  kubectl -n "$NAMESPACE" get lease -o yaml >&2 || true
  kubectl -n "$NAMESPACE" get pods -o wide >&2 || true
  for pod in $(live_pods) $leader; do
    kubectl -n "$NAMESPACE" logs "$pod" 2>/dev/null | grep -Ei 'lease|lead|stopping|drain' | tail -n 8 | sed "s/^/$pod: /" >&2 || true
  done
  fail "not within 90s: a live replica takes the Lease from the deleted $leader (now: '$(holder)'; above)"
fi
new=$(holder)
[[ " $pods " == *" $new "* ]] && who="the follower" || who="the deleted Pod's replacement"
note "leader $leader deleted -> $new ($who) leads after $(( $(now_ms) - start )) ms"
until_ok 180 "2 replicas Ready again" two_ready

# --- metrics with a token, and helm upgrade --------------------------------------------------
# A scraper as vmagent would be: a ServiceAccount of its own, its token sent as a bearer token,
# each Pod scraped at its address under the Service's name with the release CA (what the
# chart's VMServiceScrape sets: tlsConfig.serverName and ca).
# The failover above replaced a Pod: the addresses again, once the deleted one is gone and the
# Service routes to both.
two_pods() { [[ $(pod_ips | wc -w) == 2 ]]; }
until_ok 120 "the deleted leader's Pod gone, 2 operator Pods left" two_pods
ips=$(pod_ips)
until_ok_quiet 60 both_endpoints_ready ||
  fail "not within 60s after the failover: the Service's EndpointSlice lists both Pods ($(echo $ips)) ready"
kubectl create namespace monitoring >/dev/null
kubectl -n monitoring create serviceaccount vmagent >/dev/null
kubectl -n monitoring create token vmagent --duration=30m >"$WORK/scraper.token"
metrics_port=$(kubectl -n "$NAMESPACE" get deployment "$RELEASE" \
  -o jsonpath='{.spec.template.spec.containers[0].ports[?(@.name=="metrics")].containerPort}')
# scrape IP [TOKEN_FILE]: the HTTP status of GET /metrics on the Pod at IP (body in $WORK/scrape.out).
scrape() {
  local auth=()
  [[ -n "${2:-}" ]] && auth=(-H "Authorization: Bearer $(cat "$2")")
  curl -sS -o "$WORK/scrape.out" -w '%{http_code}' --max-time 5 --cacert "$WORK/ca.crt" \
    --resolve "$service_dns:$metrics_port:$1" "${auth[@]}" "https://$service_dns:$metrics_port/metrics"
}
for ip in $ips; do
  code=$(scrape "$ip") || fail "GET /metrics on $ip without a token: no answer"
  [[ "$code" == 401 ]] || fail "GET /metrics on $ip without a token answered $code, not 401"
  code=$(scrape "$ip" "$WORK/scraper.token") || fail "GET /metrics on $ip: no answer"
  [[ "$code" == 403 ]] || fail "GET /metrics on $ip with a token the chart does not make a reader answered $code, not 403"
done
note "metrics on both Pods: 401 without a token, 403 for a ServiceAccount not yet a metrics reader"

# The upgrade a user makes: a values change (the scraper becomes a metrics reader) and a new
# image (the same build under a new tag, so the Pods must be replaced to run it).
ca_before=$(sha256sum <"$WORK/ca.crt")
ctr --address "$DHA_REALNODE_CONTAINERD" --namespace k8s.io images tag "$IMAGE" "${IMAGE%:*}:realnode-upgrade" >/dev/null ||
  fail "could not tag $IMAGE as ${IMAGE%:*}:realnode-upgrade"
old_pods=$(operator_pods)
start=$(now_ms)
"$helm" upgrade "$RELEASE" "$REPO_ROOT/charts/db-autoscaler" --namespace "$NAMESPACE" --reuse-values \
  --set image.tag=realnode-upgrade --set 'metrics.readers[0].namespace=monitoring' \
  --set 'metrics.readers[0].name=vmagent' >"$WORK/helm-upgrade.log" 2>&1 ||
  { cat "$WORK/helm-upgrade.log"; fail "helm upgrade refused"; }
pod_images() {
  kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" \
    -o go-template='{{range .items}}{{if not .metadata.deletionTimestamp}}{{(index .spec.containers 0).image}} {{end}}{{end}}'
}
upgraded() {
  two_ready && [[ "$(pod_images)" == "${IMAGE%:*}:realnode-upgrade ${IMAGE%:*}:realnode-upgrade " ]] &&
    [[ "$(kubectl -n "$NAMESPACE" get deployment "$RELEASE" -o jsonpath='{.status.updatedReplicas}/{.status.replicas}')" == 2/2 ]]
}
if ! until_ok_quiet 180 upgraded; then
  kubectl -n "$NAMESPACE" get pods -o wide >&2 || true
  fail "not within 180s: 2 replicas Ready on the upgraded image (images: $(pod_images))"
fi
# The old Pods drain and go (they were not counted above once terminating).
old_pods_gone() {
  local pod now; now=" $(operator_pods) "
  for pod in $old_pods; do [[ "$now" != *" $pod "* ]] || return 1; done
}
until_ok 120 "the Pods from before the upgrade ($old_pods) gone" old_pods_gone
note "helm upgrade (values and image) -> 2 new replicas Ready in $(( $(now_ms) - start )) ms"
kubectl -n "$NAMESPACE" get secret "$RELEASE-cert" -o go-template='{{index .data "ca.crt" | base64decode}}' >"$WORK/ca.crt"
[[ "$(sha256sum <"$WORK/ca.crt")" == "$ca_before" ]] ||
  fail "helm upgrade made a new CA: every client that trusted the old one is cut off"
until_ok 120 "the replaced Pods gone, 2 operator Pods left after the upgrade" two_pods
ips=$(pod_ips)
until_ok_quiet 60 both_endpoints_ready ||
  fail "not within 60s after the upgrade: the Service's EndpointSlice lists both new Pods ($(echo $ips)) ready"
audit_from=$(stat -c %s "$audit")
until_ok 60 "a dry-run HelmRelease refused through the Service after the upgrade" dry_run_refused
second_dha_refused "after the upgrade"
for ip in $ips; do
  code=$(scrape "$ip" "$WORK/scraper.token") || fail "GET /metrics on $ip: no answer"
  [[ "$code" == 200 ]] || fail "GET /metrics on $ip with a metrics reader's token answered $code, not 200"
  grep -q '^db_autoscaler_build_info{' "$WORK/scrape.out" || fail "GET /metrics on $ip: no db_autoscaler_build_info in the answer"
  code=$(scrape "$ip") || fail "GET /metrics on $ip without a token: no answer"
  [[ "$code" == 401 ]] || fail "after the upgrade, GET /metrics on $ip without a token answered $code, not 401"
done
# A real vmagent scrapes both replicas as the VMServiceScrape tells it to and writes what it
# read into VictoriaMetrics.
{
  echo "scrape_configs:"
  echo "  - job_name: db-autoscaler"
  echo "    scrape_interval: 2s"
  echo "    scheme: https"
  echo "    bearer_token_file: $WORK/scraper.token"
  echo "    tls_config: {ca_file: $WORK/ca.crt, server_name: $service_dns}"
  echo "    static_configs:"
  for ip in $ips; do echo "      - targets: ['$ip:$metrics_port']"; done
} >"$WORK/vmagent.yaml"
vmagent -promscrape.config="$WORK/vmagent.yaml" -remoteWrite.url="$vm_url/api/v1/write" \
  -remoteWrite.tmpDataPath="$WORK/vmagent-data" -httpListenAddr="127.0.0.1:$(( 30000 + RANDOM % 10000 ))" \
  >"$WORK/vmagent.log" 2>&1 &
vmagent_pid=$!
CLEANUP+=("kill $vmagent_pid 2>/dev/null; wait $vmagent_pid 2>/dev/null")
scraped_up() {
  local out
  out=$(curl -sS --max-time 5 "$vm_url/api/v1/query" --data-urlencode 'query=sum(up{job="db-autoscaler"})') || return 1
  grep -q '"value":\[[0-9.]*,"2"\]' <<<"$out"
}
if ! until_ok_quiet 60 scraped_up; then
  tail -n 20 "$WORK/vmagent.log" >&2
  fail "not within 60s: vmagent scraped both replicas with the reader's token (up == 1 on each; its log above)"
fi
built=$(curl -sS --max-time 5 "$vm_url/api/v1/query" --data-urlencode 'query=count(db_autoscaler_build_info{job="db-autoscaler"})')
grep -q '"value":\[[0-9.]*,"2"\]' <<<"$built" || fail "VictoriaMetrics has not both replicas' db_autoscaler_build_info: $built"
note "vmagent scraped both replicas with the metrics reader's token into VictoriaMetrics"
audited=$(tail -c +"$((audit_from + 1))" "$audit")
if grep -q 'failed-open.validating.webhook.admission.k8s.io' <<<"$audited"; then
  grep -o '"failed-open[^}]*' <<<"$audited" | head -3 >&2
  fail "after the upgrade, the API server let a write through because a webhook call failed (above)"
fi

# --- helm uninstall leaves nothing -----------------------------------------------------------
kubectl delete -f "$REPO_ROOT/examples/demo/dha.yaml" --wait=false >/dev/null 2>&1 || true
chart_uninstall
kubectl delete namespace monitoring --wait=false >/dev/null
echo "realnode.chart: 1 passed, 0 failed"
