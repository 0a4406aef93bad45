#!/usr/bin/env bash
# scripts/demo --real-node: the demo on real PostgreSQL. On a real single-node Kubernetes
# cluster started on this machine, CloudNativePG 1.27.1 runs a Cluster of Debian's PostgreSQL 15
# (a primary and a streaming standby); the operator runs as Pods installed by the chart, reading
# the instances' exporters through vmagent and VictoriaMetrics. pgbench's read clients on the
# Cluster's read-only Service push it 2 -> 3 -> 4 instances, one at a time, each new instance
# cloned and streaming before the next; the load stops, and it goes back to 2.
#
#   scripts/demo --real-node                   installs missing Debian packages, builds the
#                                              operator (release preset) and runs the scenario
#   scripts/demo --real-node --build-dir DIR   the operator and plugins already built in DIR
#   scripts/demo --real-node --keep            keep the logs (Pods, CNPG, operator, node)
#
# How long: about 6 minutes on a warm 2-core machine (measured 344 s: the node, three images,
# CloudNativePG, the first two instances and the operator 136 s, the scenario 166 s, the
# teardown and its check the rest). The first run on a machine also
# builds Go tools (the node's Kubernetes components, CNPG's manager, CoreDNS,
# kube-state-metrics, Helm, kubectl: up to an hour of CPU on 2 cores) and the Debian base image.
#
# What it does to the machine (needs root; everything is undone when it ends, Ctrl-C and
# failures included, and the end is checked: `dha-real-node down` compares the host with a
# snapshot taken before the start and fails if anything differs):
#   - starts etcd and kube-apiserver on 127.0.0.1, containerd, runc, the kubelet (port 10250 on
#     the node address), kube-controller-manager, kube-scheduler, kube-proxy and CoreDNS, all
#     with state under a temporary directory, in a mount namespace of their own;
#   - creates the bridge dha-br0 (10.213.0.1/24) and a route for 10.96.0.0/16 to it, one
#     nftables table (dha_realnode) plus kube-proxy's, and iptables chains the kubelet makes;
#     forwarding and route_localnet on that bridge only; nothing leaves the machine;
#   - creates the cgroups dha-realnode-pods and dha-realnode-procs; the kubelet sets
#     vm.overcommit_memory=1, kernel.panic=10 and kernel.panic_on_oops=1 while it runs;
#   - builds container images with buildah (its layer cache stays in ~/.cache/db-autoscaler);
#   - runs VictoriaMetrics on the node address, and kube-state-metrics, vmagent and pgbench on
#     the host.
# One real node per machine: a second one (a real-node test, another demo) makes it fail at
# once. Not root: exits 77 at once, saying so. Exits 0 only if the DHA scaled
# 2 -> 3 -> 4 -> 3 -> 2 one step at a time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

build_dir=""
keep=0
while (($#)); do
  case "$1" in
    --real-node) ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
    --keep) keep=1 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --quick) echo "scripts/demo: --quick is the simulated demo's; --real-node has no quick variant" >&2; exit 2 ;;
    *) echo "usage: scripts/demo --real-node [--build-dir DIR] [--keep]" >&2; exit 2 ;;
  esac
  shift
done

say() { printf '==> %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

if [[ -n "$build_dir" ]]; then
  [[ -d "$build_dir" ]] || die "build directory $build_dir does not exist"
  build_dir=$(cd "$build_dir" && pwd)
  [[ -f "$build_dir/CMakeCache.txt" ]] || die "$build_dir is not a CMake build tree (the operator image installs from one)"
fi
if [[ $EUID -ne 0 ]]; then
  echo "demo: --real-node needs root (it starts containerd and a kubelet; --help says what it changes)" >&2
  exit 77
fi

# ---- dependencies and build -----------------------------------------------------------------
if [[ -z "$build_dir" ]]; then
  "$root/scripts/install-deps"
  plugins=()
  for dir in "$root"/plugins/*/; do
    [[ -f "$dir/CMakeLists.txt" ]] && plugins+=("$(basename "$dir")")
  done
  say "configure and build (release preset): db-autoscaler and its plugins ${plugins[*]}"
  (cd "$root" && cmake --preset release >/dev/null && cmake --build --preset release --target db-autoscaler "${plugins[@]}")
  build_dir=$root/build/release
fi
export DHA_BUILD_DIR=$build_dir
for tool in pgbench psql vmagent victoria-metrics buildah curl python3; do
  command -v "$tool" >/dev/null || die "no $tool (scripts/install-deps installs it)"
done
kubectl_bin=$("$root/scripts/build-go-tool" sdk/testing/kubectl . kubectl) ||
  die "could not build the pinned kubectl (scripts/install-deps says what is missing)"
export PATH=$(dirname "$kubectl_bin"):$PATH

# The real-node tests' helpers: the node (up, and down at exit), the chart, CloudNativePG.
source "$root/tests/realnode/lib.sh"
source "$root/tests/realnode/chart_lib.sh"
source "$root/tests/realnode/cnpg_lib.sh"
logs=""
if ((keep)); then logs=$(mktemp -d "${TMPDIR:-/tmp}/dha-demo-real-node-logs.XXXXXX"); fi
keep_logs_on_exit() {
  local status=$1
  if [[ -z "$logs" && "$status" != 0 ]]; then logs=$(mktemp -d "${TMPDIR:-/tmp}/dha-demo-real-node-logs.XXXXXX"); fi
  [[ -n "$logs" ]] || return 0
  DHA_REALNODE_KEEP_LOGS=$logs cnpg_keep_logs
  echo "logs kept in $logs" >&2
}
CLEANUP+=('keep_logs_on_exit $status')
# Ctrl-C or a TERM: the exit trap tears the node down; a second Ctrl-C must not interrupt that.
# The trap runs inside whatever command was running, with its redirections (some send their
# stdout to /dev/null): it speaks on stderr.
trap 'trap "" INT TERM; printf "\ndemo: interrupted; taking the node down\n" >&2; exit 130' INT TERM

started=$SECONDS
export DHA_REALNODE_DNS=1
say "starting the real node (dha-real-node up; --help says what it changes)"
node_up
say "VictoriaMetrics, Helm, CloudNativePG $CNPG_VERSION (images built here, nothing pulled)"
chart_setup -search.latencyOffset=0s
cnpg_install >/dev/null
storage_setup 8
say "kubectl apply: Cluster $DB_NS/$CLUSTER, 2 instances of PostgreSQL 15"
cluster_create 2
until_ok_quiet 420 cluster_settled 2 || { cluster_describe >&2; die "the Cluster's 2 instances did not settle within 420 s"; }
pg_env rw
pgbench -i -q -s "$PGBENCH_SCALE" >"$WORK/pgbench-init.log" 2>&1 || { tail "$WORK/pgbench-init.log"; die "pgbench -i on the -rw Service"; }
say "primary $(primary), standby streaming: $(streaming_standbys | tr '\n' ' ')(pgbench -i -s $PGBENCH_SCALE: $(psql_primary "select pg_size_pretty(sum(pg_database_size(datname))) from pg_database"))"

say "the operator: image from the Dockerfile, helm install charts/db-autoscaler (cnpg.enabled=true)"
build_image "$IMAGE" >/dev/null
chart_install "$IMAGE" --set cnpg.enabled=true --set syncPeriod=5s
until_ok_quiet 180 two_ready || die "the operator's 2 replicas were not Ready within 180 s"
metrics_setup
replica_backends="sum(cnpg_backends_total{namespace=\"$DB_NS\", state=\"active\"} * on(namespace,pod) group_left() kube_pod_labels{namespace=\"$DB_NS\", label_cnpg_io_cluster=\"$CLUSTER\", label_cnpg_io_instance_role=\"replica\"})"
has_replica_backends() { [[ -n "$(vm_query "$replica_backends")" ]]; }
until_ok 90 "the standbys' active backends in VictoriaMetrics" has_replica_backends

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
    target: {averageValue: "4"}
  behavior:
    scaleUp: {stabilizationWindowSeconds: 10, step: 1}
    scaleDown: {stabilizationWindowSeconds: 20, step: 1}
    convergenceDeadlineSeconds: 300
  constraints: {respectQuorum: true, maxReplicationLagSeconds: 30}
YAML
say "kubectl apply: a DHA on Cluster/$CLUSTER, 2..4 instances, 4 active read connections per read replica"
until_ok 60 "the DHA admitted" kubectl apply -f "$WORK/dha.yaml"
dha_field() { kubectl -n "$DB_NS" get databasehorizontalautoscalers "$CLUSTER" -o jsonpath="{$1}" 2>/dev/null; }
dha_ready_at() { [[ "$(dha_field .status.currentReplicas)" == "$1" && "$(dha_field '.status.conditions[?(@.type=="AbleToScale")].reason')" == Ready ]]; }
until_ok 90 "the DHA reading the Cluster at 2 instances" dha_ready_at 2
say "ready after $((SECONDS - started)) s"

# ---- live lines -----------------------------------------------------------------------------
# decision: the DHA's desired count and why: the decision's kind and the last gate that changed
# the count (its reason and message), or the decision's own message when no gate did.
decision() {
  local out header line why="" pattern='^([^:]+): ([0-9]+) -> ([0-9]+)(, ([^:]*))?(: (.*))?$'
  out=$(kubectl -n "$DB_NS" get databasehorizontalautoscalers "$CLUSTER" -o jsonpath='{.status.desiredReplicas}|{.status.lastDecision.kind}|{.status.lastDecision.message}{"\n"}{range .status.lastDecision.gates[*]}{@}{"\n"}{end}' 2>/dev/null) || return 0
  header=${out%%$'\n'*}
  IFS='|' read -r desired kind message <<<"$header"
  while IFS= read -r line; do
    [[ "$line" =~ $pattern ]] || continue
    [[ "${BASH_REMATCH[2]}" != "${BASH_REMATCH[3]}" ]] &&
      why="${BASH_REMATCH[1]} ${BASH_REMATCH[5]:+(${BASH_REMATCH[5]})}: ${BASH_REMATCH[7]}"
  done < <(tail -n +2 <<<"$out")
  printf '%s\t%s\n' "${desired:--}" "${kind:-?}  ${why:-$message}"
}
clients=0
last_state=""
last_print=0
live_line() {
  local active instances ready streams desired="" why="" state
  # A read that fails now (an instance restarting, the API server busy) shows as "?".
  active=$(vm_query "$replica_backends" || true)
  instances=$(spec_instances || true) ready=$(ready_instances || true)
  streams=$(streaming_standbys | tr '\n' ' ' || true)
  IFS=$'\t' read -r desired why < <(decision) || true
  state="$instances|$ready|$streams|$desired|$why"
  # A line when something changed, and every 15 s otherwise.
  [[ "$state" != "$last_state" ]] || ((SECONDS - last_print >= 15)) || return 0
  last_state=$state last_print=$SECONDS
  printf '%5ss  %3s  %6s  %4s  %5s  %-24s  %3s  %s\n' "$((SECONDS - phase_start))" "$clients" "${active:-?}" \
    "${instances:-?}" "${ready:-?}" "${streams:-none}" "${desired:--}" "$why"
}
header() {
  printf '%6s  %3s  %6s  %4s  %5s  %-24s  %3s  %s\n' time pgb active inst ready "streaming" dsr "decision (kind, why)"
}
# run_until WHAT SECONDS CMD...: live lines until CMD succeeds.
run_until() {
  local what=$1 seconds=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    live_line
    ((SECONDS < deadline)) || die "not within $seconds s: $what"
    sleep 1
  done
  live_line
}
streaming_at() { [[ "$(spec_instances)" == "$1" && "$(ready_instances)" == "$1" && "$(streaming_count)" == "$(($1 - 1))" ]]; }

echo
echo "pgb: pgbench read clients on the -ro Service; active: the standbys' active backends as the DHA"
echo "reads them (VictoriaMetrics); inst/ready: the Cluster's instances asked for and ready;"
echo "streaming: the standbys the primary streams to; dsr: the DHA's desired count."
phase_start=$SECONDS
say "6 read clients (pgbench -S, each query followed by a 100 ms pause)"
header
read_load 6 1200 load1
clients=6
run_until "3 instances, 2 streaming" 480 streaming_at 3
say "6 more read clients"
read_load 6 1200 load2
clients=12
run_until "4 instances, 3 streaming" 480 streaming_at 4
say "the load stops"
kill "$(cat "$WORK/load1.pid")" "$(cat "$WORK/load2.pid")" 2>/dev/null || true
clients=0
run_until "back to 2 instances, 1 streaming" 480 streaming_at 2

# ---- result ---------------------------------------------------------------------------------
echo
say "kubectl get databasehorizontalautoscalers,clusters -n $DB_NS"
kubectl -n "$DB_NS" get databasehorizontalautoscalers,clusters.postgresql.cnpg.io || true
events=$(kubectl -n "$DB_NS" get events --field-selector reason=Scaled --sort-by=.lastTimestamp -o jsonpath='{range .items[*]}{.message}{"\n"}{end}')
echo
say "the operator's Scaled events"
sed 's/^/    /' <<<"$events"
for step in "2 -> 3" "3 -> 4" "4 -> 3" "3 -> 2"; do
  grep -q "scaled Cluster/$CLUSTER replicas $step" <<<"$events" || die "no Scaled event for $step"
done
[[ $(grep -c "scaled Cluster/$CLUSTER replicas" <<<"$events") == 4 ]] || die "expected exactly 4 scale steps"
echo "result: OK: 2 -> 3 -> 4 under read load, one streaming instance at a time, and back to 2 ($((SECONDS - started)) s in all; the node goes down now)"
