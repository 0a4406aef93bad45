#!/usr/bin/env bash
# What one more CloudNativePG replica costs on the real node, by data size: the seconds from a
# write of the Cluster's /scale (2 -> 3 instances) to the new instance streaming from the
# primary, split into
#   - react:   the /scale write -> CNPG's join Job created;
#   - start:   the Job created -> its `join` container started (scheduling, the init container);
#   - join:    the `join` container running: CNPG's pg_basebackup of the primary (of which the
#              primary's checkpoint for the base backup, read from its log);
#   - stream:  the join finished -> the new instance Ready and streaming from the primary.
# Then back to 2 instances, and the next run. Sizes are pgbench -i scales (100 000 rows each).
#
#   bench/realnode/replica_cost.sh [--runs N] [SCALE...]      default: --runs 2 10 70 140
#
# Needs root and what realnode.cnpg needs (tests/realnode/cnpg_lib.sh; scripts/install-deps).
# Starts a real node (sdk/testing/realnode/dha-real-node) and tears it down at the end, so run
# it under the machine's real-node turn, if it has one. No operator: the benchmark writes /scale
# itself with `kubectl scale`. Before each run the primary is CHECKPOINTed and the standby has
# replayed everything, so the base backup's own checkpoint has little to write: the figures are
# a settled database's, not one just bulk-loaded (realnode.cnpg measures that case: a 60 s
# checkpoint). Prints one line per run and a least-squares fit  total ≈ base + per_GiB × size.
set -euo pipefail
runs=2
scales=()
while (($#)); do
  case "$1" in
    --runs) runs=${2:?--runs needs a number}; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9]*) scales+=("$1") ;;
    *) echo "usage: $0 [--runs N] [SCALE...]" >&2; exit 2 ;;
  esac
  shift
done
((${#scales[@]})) || scales=(10 70 140)

here=$(cd "$(dirname "$0")" && pwd)
tests=$here/../../tests/realnode
source "$tests/lib.sh"
source "$tests/cnpg_lib.sh"
kubectl_bin=$("$REPO_ROOT/scripts/build-go-tool" sdk/testing/kubectl . kubectl) || fail "could not build kubectl"
PATH=$(dirname "$kubectl_bin"):$PATH
for tool in pgbench psql python3; do command -v "$tool" >/dev/null || fail "no $tool (scripts/install-deps)"; done

export DHA_REALNODE_DNS=1
bench_start=$(now_ms)
node_up
cnpg_install
# Every run's new instance takes a fresh volume (its claim is deleted on scale-down and the
# volume, Retain, is not bound again).
storage_setup $((2 + runs * ${#scales[@]} + 1))
cluster_create 2
until_ok_quiet 420 cluster_settled 2 || { cluster_describe >&2; fail "the Cluster of 2 did not settle"; }
note "Cluster of 2 streaming"

# CNPG deletes a join Job once it completed: a background loop keeps the last snapshot of the
# join Jobs and their Pods (every 0.3 s) in $WORK/join-N.json, N counting the snapshots.
snapshot_joins() {
  local n=0
  while true; do
    if kubectl -n "$DB_NS" get jobs,pods -l cnpg.io/jobRole=join -o json >"$WORK/join.tmp" 2>/dev/null &&
      grep -q '"kind": "Job"' "$WORK/join.tmp"; then
      n=$((n + 1)); mv "$WORK/join.tmp" "$WORK/join-$n.json"
    fi
    sleep 0.3
  done
}
# join_times AFTER_MS: from the snapshots, the join Job created after AFTER_MS: its creation and
# its container's start and finish (ms since the epoch; "-" while unknown).
join_times() {
  python3 - "$1" "$WORK" <<'PY'
import calendar, glob, json, sys, time
after, work = int(sys.argv[1]), sys.argv[2]
ms = lambda t: calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%SZ")) * 1000  # whole seconds
created = start = end = None
for f in sorted(glob.glob(work + "/join-*.json"), key=lambda f: int(f.rsplit("-", 1)[1][:-5])):
    for o in json.load(open(f))["items"]:
        meta = o["metadata"]
        if o["kind"] == "Job" and ms(meta["creationTimestamp"]) >= after - 1000:
            created = ms(meta["creationTimestamp"])
        if o["kind"] == "Pod" and ms(meta["creationTimestamp"]) >= after - 1000:
            for c in o.get("status", {}).get("containerStatuses", []):
                t = c.get("state", {}).get("terminated")
                if t and t.get("exitCode") == 0:
                    start, end = ms(t["startedAt"]), ms(t["finishedAt"])
print(*(x if x is not None else "-" for x in (created, start, end)))
PY
}
caught_up() {  # every standby streaming and replayed up to the primary's current WAL position
  [[ "$(psql_primary "select count(*) from pg_stat_replication where state = 'streaming' and replay_lsn = pg_current_wal_lsn()")" == "$(( $(spec_instances) - 1 ))" ]]
}

snapshot_joins &
CLEANUP+=("kill $! 2>/dev/null")

results=$WORK/results.tsv
: >"$results"
for scale in "${scales[@]}"; do
  pg_env rw
  start=$(now_ms)
  pgbench -i -q -s "$scale" >"$WORK/pgbench-init-$scale.log" 2>&1 || { tail "$WORK/pgbench-init-$scale.log"; fail "pgbench -i -s $scale"; }
  init_ms=$(( $(now_ms) - start ))
  bytes=$(psql_primary "select sum(pg_database_size(datname)) from pg_database")
  note "pgbench -i -s $scale: $bytes bytes in the databases, $init_ms ms"
  for ((run = 1; run <= runs; run++)); do
    psql_primary "checkpoint" >/dev/null
    until_ok 900 "the standby replayed the primary's WAL" caught_up
    t_scale=$(now_ms)
    kubectl -n "$DB_NS" scale "clusters.postgresql.cnpg.io/$CLUSTER" --replicas=3 >/dev/null
    deadline=$(( $(date +%s) + 900 ))
    until [[ "$(ready_instances)" == 3 && "$(streaming_count)" == 2 ]]; do
      (( $(date +%s) < deadline )) || { cluster_describe >&2; fail "the third instance did not stream within 900 s"; }
      sleep 0.2
    done
    t_stream=$(now_ms)
    read -r created_ms c_start_ms c_end_ms < <(join_times "$t_scale")
    checkpoint=$(checkpoint_wait_ms "$t_scale" "$t_stream")
    # scale bytes run t_scale job_created join_started join_finished t_stream checkpoint_ms
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$scale" "$bytes" "$run" "$t_scale" "$created_ms" \
      "$c_start_ms" "$c_end_ms" "$t_stream" "${checkpoint:--}" >>"$results"
    note "run $run: /scale -> streaming $(( t_stream - t_scale )) ms (join Job $created_ms, container $c_start_ms..$c_end_ms; checkpoint ${checkpoint:-?} ms)"
    kubectl -n "$DB_NS" scale "clusters.postgresql.cnpg.io/$CLUSTER" --replicas=2 >/dev/null
    until_ok 300 "back to 2 instances" cluster_settled 2
    gone() { [[ "$(kubectl -n "$DB_NS" get pods -l cnpg.io/cluster="$CLUSTER",cnpg.io/podRole=instance -o name | wc -l)" == 2 ]]; }
    until_ok 120 "the third instance's Pod gone" gone
  done
done

load=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$results" "$load" "$(( $(now_ms) - bench_start ))" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print()
print("| pgbench -s | data (GiB) | run | /scale -> streaming (s) | react | start | join (pg_basebackup) | of which checkpoint | join done -> streaming |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
xs, ys, jx, js = [], [], [], []
for scale, size, run, t_scale, created, j_start, j_end, t_stream, ckpt in rows:
    gib = int(size) / 2**30
    def d(a, b):  # seconds from a to b, None when one is unknown
        return None if "-" in (a, b) else (int(b) - int(a)) / 1000
    s = lambda v: "?" if v is None else "%.1f" % v
    total = d(t_scale, t_stream)
    join = d(j_start, j_end)
    print(f"| {scale} | {gib:.2f} | {run} | {s(total)} | {s(d(t_scale, created))} | {s(d(created, j_start))} "
          f"| {s(join)} | {s(None if ckpt == '-' else int(ckpt) / 1000)} | {s(d(j_end, t_stream))} |")
    xs.append(gib); ys.append(total)
    if join is not None:
        jx.append(gib); js.append(join)
def fit(x, y):
    n = len(x); mx = sum(x) / n; my = sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sxx
    base = my - slope * mx
    res = max(abs(b - (base + slope * a)) for a, b in zip(x, y))
    return base, slope, res
if len(set(xs)) > 1:
    b, k, r = fit(xs, ys)
    print(f"\nfit, /scale -> streaming: seconds = {b:.1f} + {k:.1f} x GiB (largest residual {r:.1f} s, {len(xs)} runs)")
if len(set(jx)) > 1:
    b, k, r = fit(jx, js)
    print(f"fit, the join (pg_basebackup) alone: seconds = {b:.1f} + {k:.1f} x GiB (largest residual {r:.1f} s)")
print("(react, start, join: from the API's whole-second timestamps, so each is within about 1 s)")
print(f"load average at the end: {sys.argv[2]}; whole benchmark {int(sys.argv[3]) / 1000:.0f} s")
PY
