#!/bin/sh
# The policy comparison tables of docs/decide.md, regenerated: the four families (seed 2) and the
# three-week predictive trace, each through examples/load/dha.yaml. Usage:
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
