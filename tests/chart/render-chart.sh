#!/usr/bin/env bash
# Renders the chart like `helm template`, offline (no helm binary needed), for kubectl apply:
#   tests/chart/render-chart.sh [--namespace NS] [--release NAME] [-f values.yaml]... \
#       [--set key=value]... [--include-crds] > manifests.yaml
# The Go build cache lives in ${DHA_CHART_WORK:-build/tests/chart/go}.
set -euo pipefail
work=${DHA_CHART_WORK:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests/chart/go}
mkdir -p "$work"
source "$(dirname "$0")/go-env.sh"
go build -o "$work/dha-chart-render" dha.local/charttest/cmd/dha-chart-render
exec "$work/dha-chart-render" --chart "$DHA_SOURCE_DIR/charts/db-autoscaler" "$@"
