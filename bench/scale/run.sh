#!/usr/bin/env bash
# The scale benchmark: one markdown table row per N (README.md explains the columns).
#
#   bench/scale/run.sh [N ...]        default: 100 1000 10000, 60 s sync period
#   bench/scale/run.sh --quick        N=100 with a 10 s sync period (about a minute)
#
# Env: DHA_SCALE_BENCH  scale_bench binary (default build-scale-release/bench/scale/scale_bench;
#                       build it with -DCMAKE_BUILD_TYPE=Release, target scale_bench, which also
#                       builds db-autoscaler and the postgres / metrics-vm plugins)
#      SYNC_PERIOD      operator --sync-period in seconds (default 60)
#      OPERATOR_CPU / BENCH_CPU  CPUs for the operator and for the API server + VictoriaMetrics
#                       (default 1 and 0)
#      LEADER_ELECT=1   run the operator with --leader-elect (default off)
#      SHARDS=K         K operator processes, each --leader-elect --shards K, all on OPERATOR_CPU
#                       (default 1: one process); adds per-replica columns
#      FIRST_PASS_TIMEOUT  seconds (default 600; 50 000 DHAs may need more)
#      OPERATOR_FLAGS   flags added to every operator's command line, space-separated
#                       (e.g. "--kube-api-qps=1000 --kube-api-burst=2000"); shown in the header
#      OUT              also write the table here (default bench/scale/last-run.md)
# Needs: taskset, /usr/bin/victoria-metrics. Every phase is bounded; everything started is
# stopped on exit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bench="${DHA_SCALE_BENCH:-$root/build-scale-release/bench/scale/scale_bench}"
sync_period="${SYNC_PERIOD:-60}"
operator_cpu="${OPERATOR_CPU:-1}"
bench_cpu="${BENCH_CPU:-0}"
out="${OUT:-$root/bench/scale/last-run.md}"
sizes=("$@")
if [[ "${1:-}" == "--quick" ]]; then
  sizes=(100)
  sync_period="${SYNC_PERIOD:-10}"
fi
[[ ${#sizes[@]} -gt 0 ]] || sizes=(100 1000 10000)

command -v taskset >/dev/null || { echo "error: taskset not found (util-linux)" >&2; exit 2; }
[[ -x /usr/bin/victoria-metrics ]] || { echo "error: /usr/bin/victoria-metrics not found (apt-get install victoria-metrics)" >&2; exit 2; }
[[ -x "$bench" ]] || { echo "error: $bench not built (cmake --build <release dir> --target scale_bench)" >&2; exit 2; }
shards="${SHARDS:-1}"
extra=(--shards "$shards" --first-pass-timeout "${FIRST_PASS_TIMEOUT:-600}")
[[ "${LEADER_ELECT:-0}" == 1 ]] && extra+=(--leader-elect)
read -r -a operator_flags <<<"${OPERATOR_FLAGS:-}"
for f in "${operator_flags[@]}"; do extra+=("--operator-flag=$f"); done
sharded_header=""
sharded_rule=""
if [[ "$shards" -gt 1 ]]; then
  sharded_header=" shards | metric queries / cycle | API server / VM CPU s / sync period | patches per sampled DHA (DHAs × PATCHes) | per replica: shards held, reconciles/s, API requests/s, CPU s / sync period, RSS / peak MiB |"
  sharded_rule="---|---|---|---|---|"
fi

{
  echo "sync period ${sync_period}s, $([[ "$shards" -gt 1 ]] && echo "$shards sharded operator processes" || echo "leader election $([[ "${LEADER_ELECT:-0}" == 1 ]] && echo on || echo off)"), operator on CPU $operator_cpu, API server + VictoriaMetrics on CPU $bench_cpu, $(nproc) CPUs,${OPERATOR_FLAGS:+ operator flags $OPERATOR_FLAGS,} load average $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
  echo "| N | namespaces | first pass s | first-pass reconciles/s | steady reconciles/s | API requests / reconcile | by kind / reconcile | metric queries / reconcile | CPU ms / reconcile | CPU s / sync period | API server + VM CPU s / sync period | RSS MiB | peak RSS MiB | RSS KiB / DHA | load change → PATCH p50 / max s (patched/sample) |$sharded_header"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|$sharded_rule"
} | tee "$out"
for n in "${sizes[@]}"; do
  [[ "$n" == --quick ]] && n=100
  taskset -c "$bench_cpu" "$bench" --n "$n" --sync-period "$sync_period" --operator-cpu "$operator_cpu" \
    "${extra[@]}" | tee -a "$out"
done
