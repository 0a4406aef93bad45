#!/bin/sh
# The policy comparison tables of docs/decide.md, regenerated: the four families (seed 2) and the
# three-week predictive trace (seed 2, then default against predictive on seeds 1-10), each through
# examples/load/dha.yaml. Usage:
#   bench/decide/tables.sh [path/to/db-autoscaler]   (default: build/ci/core/cli/db-autoscaler)
set -eu
bin=${1:-build/ci/core/cli/db-autoscaler}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for f in diurnal-day flash-crowd ramp-lag noisy-plateau; do
  "$bin" simulate --generate "$f" --seed 2 > "$dir/$f.csv"
  echo "$f (seed 2):"
  "$bin" simulate --compare --markdown --dha examples/load/dha.yaml --load "$dir/$f.csv" \
    --profile windowed --profile hpa --profile default
  echo
done
"$bin" simulate --generate weekly-holiday --seed 2 > "$dir/weekly.csv"
echo "weekly-holiday (seed 2), the third week:"
"$bin" simulate --compare --markdown --dha examples/load/dha.yaml --load "$dir/weekly.csv" \
  --start-at 1209600 --initial-replicas 4 \
  --profile windowed --profile hpa --profile default --profile predictive --profile forecast-only
echo
echo "weekly-holiday, the third week, seeds 1-10 (default against predictive):"
echo "| seed | overloaded s, default | overloaded s, predictive | share | actions, default | actions, predictive | × bound, predictive |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for seed in 1 2 3 4 5 6 7 8 9 10; do
  "$bin" simulate --generate weekly-holiday --seed "$seed" > "$dir/weekly.csv"
  "$bin" simulate --compare --dha examples/load/dha.yaml --load "$dir/weekly.csv" \
    --start-at 1209600 --initial-replicas 4 --profile default --profile predictive |
    awk -v seed="$seed" '$1 == "default" { o = $5; a = $11 }
      $1 == "predictive" { printf "| %s | %s | %s | %.1f %% | %s | %s | %s |\n", seed, o, $5, (o > 0 ? 100 * $5 / o : 0), a, $11, $4 }'
done
