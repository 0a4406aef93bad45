#!/usr/bin/env bash
# CloudNativePG and real PostgreSQL on the real node, scaled by the operator running as Pods:
#   - CNPG installed from its release manifest (its manager built from the pinned module, as an
#     image made here); a Cluster of 2 instances of Debian's PostgreSQL 15: a primary and a
#     standby streaming from it; cluster DNS (CoreDNS) so the instances find the -rw Service;
#   - the chart installed as realnode.chart does it, with cnpg.enabled=true; kube-state-metrics
#     and vmagent feeding VictoriaMetrics the exporter's series the postgres plugin reads;
#   - a DHA on the Cluster; a bulk load on the primary while a long report on the standby holds
#     up its replay: real replication lag with real writes, and a real read load (pgbench on the
#     -ro Service) rising meanwhile: the DHA wants 3 instances but the lag brake holds it at 2,
#     writing no /scale; the report and the load end: the operator scales 2 -> 3 -> 4 through
#     the Cluster's /scale, each new instance cloned by CNPG and streaming before the next step;
#     the read load stops: back to 2;
#   - a tenant's `kubectl scale` of the Cluster: the DHA reports OwnershipConflict and leaves
#     the count alone.
# Prints the seconds from each /scale write to the new instance streaming (and the data cloned),
# and from the load's rise to the third instance streaming, split into the decision's share and
# CloudNativePG's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/chart_lib.sh"
source "$(dirname "$0")/cnpg_lib.sh"

cnpg_prerequisites
export DHA_REALNODE_DNS=1
test_start=$(now_ms)
node_up
CLEANUP+=(cnpg_keep_logs)
chart_setup -search.latencyOffset=0s
cnpg_install
storage_setup 8

# --- a Cluster of 2: primary + streaming standby ---------------------------------------------
start=$(now_ms)
cluster_create 2
if ! until_ok_quiet 420 cluster_settled 2; then
  cluster_describe >&2
  kubectl -n cnpg-system logs deployment/cnpg-controller-manager --tail=15 >&2 || true
  fail "not within 420s: the Cluster's 2 instances ready, one streaming from the primary (above)"
fi
note "Cluster $DB_NS/$CLUSTER: 2 instances ready, $(streaming_standbys) streaming from $(primary), $(( $(now_ms) - start )) ms after its creation"
[[ "$(cluster_field '.status.phase')" == "Cluster in healthy state" ]] ||
  fail "2 instances streaming, but the Cluster's phase is '$(cluster_field .status.phase)'"

# Data for the clones to copy and the reads to read.
pg_env rw
pgbench -i -q -s "$PGBENCH_SCALE" >"$WORK/pgbench-init.log" 2>&1 || { tail "$WORK/pgbench-init.log"; fail "pgbench -i on the -rw Service"; }
data_mb=$(psql_primary "select round(sum(pg_database_size(datname)) / 1048576.0) from pg_database")
# Written out now: CNPG's join copies with pg_basebackup, which first waits for a spread
# checkpoint of whatever is dirty (a minute after pgbench -i, most of the first clone's time).
psql_primary "checkpoint" >/dev/null || fail "CHECKPOINT on the primary"
note "pgbench -i -s $PGBENCH_SCALE through the -rw Service: the instances hold $data_mb MB"

# --- the operator, and the series it reads ---------------------------------------------------
build_image "$IMAGE"
chart_install "$IMAGE" --set cnpg.enabled=true --set syncPeriod=5s
if ! until_ok_quiet 180 two_ready; then
  kubectl -n "$NAMESPACE" logs -l app.kubernetes.io/instance="$RELEASE" --tail=5 --prefix >&2 || true
  fail "not within 180s: 2 operator replicas Ready (their logs above)"
fi
metrics_setup
# The plugin's own join: the exporter's active backends of the Cluster's standbys.
replica_backends="sum(cnpg_backends_total{namespace=\"$DB_NS\", state=\"active\"} * on(namespace,pod) group_left() kube_pod_labels{namespace=\"$DB_NS\", label_cnpg_io_cluster=\"$CLUSTER\", label_cnpg_io_instance_role=\"replica\"})"
has_replica_backends() { [[ -n "$(vm_query "$replica_backends")" ]]; }
until_ok 90 "the standbys' active backends in VictoriaMetrics (vmagent: $WORK/vmagent.log)" has_replica_backends
note "VictoriaMetrics has the standbys' active backends (idle: $(vm_query "$replica_backends"))"

# --- the DHA ---------------------------------------------------------------------------------
TARGET_PER_REPLICA=4
cat >"$WORK/dha.yaml" <<YAML
apiVersion: autoscaling.cozystack.io/v1alpha1
kind: DatabaseHorizontalAutoscaler
metadata: {name: $CLUSTER, namespace: $DB_NS}
spec:
  targetRef: {apiGroup: postgresql.cnpg.io, kind: Cluster, name: $CLUSTER}
  minReplicas: 2
  maxReplicas: 4
  metrics:
  - type: ReadConnections
    target: {averageValue: "$TARGET_PER_REPLICA"}
  behavior:
    scaleUp: {stabilizationWindowSeconds: 10, step: 1}
    scaleDown: {stabilizationWindowSeconds: 20, step: 1}
    convergenceDeadlineSeconds: 300
  constraints: {respectQuorum: true, maxReplicationLagSeconds: 30}
YAML
until_ok 60 "the DHA admitted" kubectl apply -f "$WORK/dha.yaml"
dha_field() { kubectl -n "$DB_NS" get databasehorizontalautoscalers "$CLUSTER" -o jsonpath="{$1}" 2>/dev/null; }
dha_condition() { dha_field ".status.conditions[?(@.type==\"$1\")].$2"; }
dha_describe() {
  echo "DHA: current=$(dha_field .status.currentReplicas) desired=$(dha_field .status.desiredReplicas) lastApplied=$(dha_field .status.lastAppliedReplicas)"
  kubectl -n "$DB_NS" get databasehorizontalautoscalers "$CLUSTER" -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}' 2>&1 | sed 's/^/  /'
}
dha_ready_at() { [[ "$(dha_field .status.currentReplicas)" == "$1" && "$(dha_condition AbleToScale reason)" == Ready ]]; }
until_ok 90 "the DHA reading the Cluster at 2 instances, AbleToScale Ready" dha_ready_at 2
# Idle: nothing to do, and nothing done.
sleep 15
[[ "$(spec_instances)" == 2 ]] || { dha_describe >&2; fail "the idle Cluster was scaled to $(spec_instances)"; }
note "DHA on Cluster/$CLUSTER: idle at 2 instances, AbleToScale Ready"

# The API server's audit log: every /scale write, by whom, with what.
audit=$(sed -n 's/.*"auditLog":"\([^"]*\)".*/\1/p' "$WORK/state/cp/ready.json")
scale_writes() {
  grep -F "\"/apis/postgresql.cnpg.io/v1/namespaces/$DB_NS/clusters/$CLUSTER/scale" "$audit" |
    grep -E '"verb":"(patch|update)"' | grep '"stage":"ResponseComplete"' | grep '"code":200' || true
}

# wait_spec N SECONDS: polls spec.instances until N; prints the time it was first seen.
wait_spec() {
  local want=$1 deadline=$(( $(date +%s) + $2 ))
  until [[ "$(spec_instances)" == "$want" ]]; do
    (( $(date +%s) < deadline )) || { cluster_describe >&2; dha_describe >&2; fail "not within $2s: the Cluster asked for $want instances"; }
    sleep 0.2
  done
  now_ms
}
# wait_streaming N SECONDS: N-1 standbys streaming and N instances ready; prints the time.
wait_streaming() {
  local want=$1 deadline=$(( $(date +%s) + $2 ))
  until [[ "$(streaming_count)" == "$((want - 1))" && "$(ready_instances)" == "$want" ]]; do
    (( $(date +%s) < deadline )) || { cluster_describe >&2; dha_describe >&2; fail "not within $2s: $want instances ready, $((want - 1)) streaming"; }
    sleep 0.2
  done
  now_ms
}

# --- a write burst holds the scale-up: the lag brake -----------------------------------------
# On loopback a standby replays even a 45 MB/s bulk load as fast as it comes (its lag stays under
# 0.2 s), so the lag here comes the way it often does in production: a long report on the
# standby reads the staging table a bulk load on the primary starts by truncating. The standby
# receives the load's WAL but cannot replay the TRUNCATE's lock while the report runs (it waits
# up to max_standby_streaming_delay, 300 s on this Cluster), so cnpg_pg_replication_lag,
# CloudNativePG's seconds since the last transaction the standby replayed, grows past the DHA's
# limit (lowered to LAG_LIMIT for this phase) while the primary's WAL, the adapter's write
# activity, grows. Then the read load rises: the DHA must want 3 instances but hold at 2,
# saying LagBrake/ReplicationLag with the numbers, and write no /scale until the report and the
# load end.
LAG_LIMIT=5
set_lag_limit() {
  kubectl -n "$DB_NS" patch databasehorizontalautoscalers "$CLUSTER" --type merge \
    -p "{\"spec\":{\"constraints\":{\"maxReplicationLagSeconds\":$1}}}" >/dev/null
}
set_lag_limit "$LAG_LIMIT" || fail "could not lower the DHA's maxReplicationLagSeconds to $LAG_LIMIT"
standby_lag="max(cnpg_pg_replication_lag{namespace=\"$DB_NS\"} * on(namespace,pod) group_left() kube_pod_labels{namespace=\"$DB_NS\", label_cnpg_io_cluster=\"$CLUSTER\", label_cnpg_io_instance_role=\"replica\"})"
primary_join="* on(namespace,pod) group_left() kube_pod_labels{namespace=\"$DB_NS\", label_cnpg_io_cluster=\"$CLUSTER\", label_cnpg_io_instance_role=\"primary\"}"
wal_rate="sum(rate(cnpg_collector_wal_bytes{namespace=\"$DB_NS\"}[5m]) $primary_join)"
unsent_rate="sum(rate(cnpg_pg_stat_replication_sent_diff_bytes{namespace=\"$DB_NS\"}[5m]) $primary_join)"
brake_holding() {
  [[ "$(dha_condition AbleToScale reason)" == ReplicationLag && "$(dha_field .status.summary)" == "frozen at 2 by LagBrake (ReplicationLag)"* ]]
}
standby=$(streaming_standbys | head -n 1)
pg_env rw
psql -XqAt -c "CREATE TABLE burst (id int, pad text)" || fail "CREATE TABLE burst on the primary"
until_ok 30 "the table burst on the standby $standby" psql_pod "$standby" "select count(*) from burst"
# The report: a transaction on the standby that has read burst and runs on.
( pg_env ro; exec psql -XqAt -c "BEGIN" -c "SELECT count(*) FROM burst" -c "SELECT pg_sleep(600)" ) >"$WORK/report.log" 2>&1 &
CLEANUP+=("kill $! 2>/dev/null")
report_running() { [[ "$(psql_pod "$standby" "select count(*) from pg_stat_activity where query like 'SELECT pg_sleep(600)%'")" == 1 ]]; }
until_ok 30 "the report running on the standby $standby" report_running
writes_before=$(scale_writes | grep -c . || true)
burst_start=$(now_ms)
write_burst 10 300 burst
if ! until_ok_quiet 120 brake_holding; then
  dha_describe >&2; tail -n 5 "$WORK/burst.log" >&2
  fail "not within 120s of the burst: the DHA held by LagBrake (standby lag in VictoriaMetrics: $(vm_query "$standby_lag") s)"
fi
t_brake=$(now_ms)
note "write burst -> LagBrake holding after $(( t_brake - burst_start )) ms (standby lag $(vm_query "$standby_lag") s > ${LAG_LIMIT} s)"
# 6 clients busy on the -ro Service: about 6 active backends (and the exporter's own) on one
# standby, above 4 per read replica: 2 read replicas wanted, 3 instances.
load_rise=$(now_ms)
read_load 6 900 load1
wants_3() {
  local raw
  raw=$(dha_field .status.lastDecision.rawDesiredReplicas)
  [[ "${raw:-0}" -ge 3 ]] && brake_holding
}
if ! until_ok_quiet 90 wants_3; then
  dha_describe >&2; fail "not within 90s of the read load: the DHA wanting 3 instances while LagBrake holds it at 2"
fi
t_wants3=$(now_ms)
raw_wanted=$(dha_field .status.lastDecision.rawDesiredReplicas)
held_summary=$(dha_field .status.summary)
held_describe=$(kubectl -n "$DB_NS" describe databasehorizontalautoscalers "$CLUSTER" | grep -E "ReplicationLag|Summary" | sed 's/^ */    /')
# Held: the scale-up window (10 s) long past, and still no /scale write, for 20 s more.
lag_peak=0
until (( $(now_ms) - t_wants3 >= 20000 )); do
  brake_holding || { dha_describe >&2; fail "the brake let go during the burst: $(dha_field .status.summary)"; }
  [[ "$(spec_instances)" == 2 ]] || fail "scaled to $(spec_instances) while the brake held"
  lag_now=$(vm_query "$standby_lag"); lag_peak=$(python3 -c "print(max($lag_peak, float('${lag_now:-0}')))")
  sleep 1
done
wal_during=$(vm_query "$wal_rate"); unsent_during=$(vm_query "$unsent_rate")
(( $(scale_writes | grep -c . || true) == writes_before )) || fail "a /scale write while the brake held: $(scale_writes | tail -n 1)"
# The burst and the report end.
kill "$(cat "$WORK/burst.pid")" 2>/dev/null || true
wait "$(cat "$WORK/burst.pid")" 2>/dev/null || true
psql_pod "$standby" "select pg_terminate_backend(pid) from pg_stat_activity where query like 'SELECT pg_sleep(600)%'" >/dev/null ||
  fail "could not end the report on $standby"
burst_end=$(now_ms)
pg_env rw
burst_mb=$(psql -XqAt -c "select round(pg_total_relation_size('burst') / 1048576.0)" 2>/dev/null || echo '?')
note "LagBrake held 2 instances while the DHA wanted $raw_wanted for $(( burst_end - t_wants3 )) ms, no /scale write: $held_summary"
echo "$held_describe"
note "the burst: $(( burst_end - burst_start )) ms, ${burst_mb} MB inserted; standby lag peak ${lag_peak} s (VictoriaMetrics, 1 s polls); the primary's WAL rate(cnpg_collector_wal_bytes[5m]) ${wal_during} B/s; rate(cnpg_pg_stat_replication_sent_diff_bytes[5m]) ${unsent_during}"
psql -XqAt -c "DROP TABLE burst" >/dev/null || fail "DROP TABLE burst"
psql_primary "checkpoint" >/dev/null || fail "CHECKPOINT on the primary after the burst"
t_scale3=$(wait_spec 3 240)
set_lag_limit 30 || fail "could not set the DHA's maxReplicationLagSeconds back to 30"
streams_at_scale3=$(streaming_count)
t_stream3=$(wait_streaming 3 420)
scaled_reason() {
  kubectl -n "$DB_NS" get events --field-selector reason=Scaled -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' |
    grep "replicas $1;" | sed 's/.*reason: //'
}
checkpoint3=$(checkpoint_wait_ms "$t_scale3" "$t_stream3")
note "burst stopped -> /scale to 3 after $(( t_scale3 - burst_end )) ms ($(scaled_reason '2 -> 3'))"
note "/scale to 3 -> the third instance streaming after $(( t_stream3 - t_scale3 )) ms (CloudNativePG's clone of $data_mb MB; the primary's checkpoint for it: ${checkpoint3:-?} ms)"
[[ "$streams_at_scale3" == 1 ]] || fail "at the /scale to 3, $streams_at_scale3 standbys streamed (want 1)"
writes=$(scale_writes)
grep -q '"replicas":3' <<<"$writes" || fail "no /scale write of 3 replicas in the audit log: $(tail -c 600 <<<"$writes")"
grep -q "system:serviceaccount:$NAMESPACE:$RELEASE" <<<"$writes" || fail "the /scale write was not the operator's: $(tail -c 600 <<<"$writes")"

# --- more load: 3 -> 4, only once the third instance streams ---------------------------------
read_load 6 900 load2
t_scale4=$(wait_spec 4 240)
streams_at_scale4=$(streaming_count)
t_stream4=$(wait_streaming 4 420)
(( streams_at_scale4 >= 2 )) || fail "the operator asked for the fourth instance while only $streams_at_scale4 standbys streamed"
(( t_scale4 >= t_stream3 )) || fail "the fourth instance was asked for before the third streamed"
checkpoint4=$(checkpoint_wait_ms "$t_scale4" "$t_stream4")
note "/scale to 4 -> the fourth instance streaming after $(( t_stream4 - t_scale4 )) ms ($(scaled_reason '3 -> 4'); the primary's checkpoint: ${checkpoint4:-?} ms)"
applied_4() { [[ "$(dha_field .status.lastAppliedReplicas)" == 4 ]]; }
until_ok 60 "the DHA's lastAppliedReplicas 4" applied_4
sleep 10
[[ "$(spec_instances)" == 4 ]] || fail "beyond maxReplicas: $(spec_instances) instances"

# --- the load falls: back to 2 ---------------------------------------------------------------
kill "$(cat "$WORK/load1.pid")" "$(cat "$WORK/load2.pid")" 2>/dev/null || true
load_fall=$(now_ms)
t_down3=$(wait_spec 3 240)
wait_streaming 3 240 >/dev/null
t_down2=$(wait_spec 2 240)
t_settled2=$(wait_streaming 2 240)
note "load stopped -> 3 instances after $(( t_down3 - load_fall )) ms, 2 after $(( t_down2 - load_fall )) ms, settled (1 standby streaming) after $(( t_settled2 - load_fall )) ms"
until_ok 60 "the DHA at 2, AbleToScale Ready" dha_ready_at 2
[[ "$(dha_field .status.lastAppliedReplicas)" == 2 ]] || fail "lastAppliedReplicas $(dha_field .status.lastAppliedReplicas) after the scale-down"
events=$(kubectl -n "$DB_NS" get events --field-selector reason=Scaled -o jsonpath='{range .items[*]}{.message}{"\n"}{end}')
for step in "2 -> 3" "3 -> 4" "4 -> 3" "3 -> 2"; do
  grep -q "scaled Cluster/$CLUSTER replicas $step" <<<"$events" || fail "no Scaled event for $step; events: $events"
done

# --- a tenant scales the Cluster by hand: OwnershipConflict ----------------------------------
# The tenant (the control plane's tenant-user) may scale Clusters in its namespace.
kubectl -n "$DB_NS" apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cluster-scaler, namespace: $DB_NS}
rules:
- {apiGroups: [postgresql.cnpg.io], resources: [clusters, clusters/scale], verbs: [get, list, patch, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cluster-scaler, namespace: $DB_NS}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cluster-scaler}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: tenant-user}]
YAML
kubectl --kubeconfig "$WORK/state/cp/kubeconfig-tenant" -n "$DB_NS" scale "clusters.postgresql.cnpg.io/$CLUSTER" --replicas=3 >/dev/null ||
  fail "the tenant's kubectl scale of the Cluster was refused"
conflict() { [[ "$(dha_condition ScalingLimited reason)" == OwnershipConflict && "$(dha_condition ScalingLimited status)" == True ]]; }
until_ok 60 "ScalingLimited=True OwnershipConflict on the DHA after a tenant's kubectl scale" conflict
note "kubectl scale to 3 -> the DHA: $(dha_condition ScalingLimited reason): $(dha_condition ScalingLimited message)"
wait_streaming 3 300 >/dev/null
sleep 15
[[ "$(spec_instances)" == 3 ]] || fail "the operator overwrote the tenant's count: $(spec_instances)"
conflict || fail "the conflict did not hold: $(dha_condition ScalingLimited reason)"

echo "--- figures (PostgreSQL data: $data_mb MB; pgbench -s $PGBENCH_SCALE)"
echo "    /scale 2->3 -> third instance streaming:  $(( t_stream3 - t_scale3 )) ms (of which the primary's checkpoint ${checkpoint3:-?} ms)"
echo "    /scale 3->4 -> fourth instance streaming: $(( t_stream4 - t_scale4 )) ms (of which the primary's checkpoint ${checkpoint4:-?} ms)"
echo "    write burst -> LagBrake holding:          $(( t_brake - burst_start )) ms (standby lag peak ${lag_peak} s, limit ${LAG_LIMIT} s)"
echo "    load rise -> DHA wanting $raw_wanted, held at 2:    $(( t_wants3 - load_rise )) ms; held $(( burst_end - t_wants3 )) ms with no /scale write"
echo "    burst stopped -> /scale to 3:             $(( t_scale3 - burst_end )) ms (the standby catching up, a scrape, the sync)"
echo "    whole test: $(( $(now_ms) - test_start )) ms"
echo "realnode.cnpg: 1 passed, 0 failed"
