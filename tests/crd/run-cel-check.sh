#!/usr/bin/env bash
# Builds dha-crd-check (cached outside the repository) and runs it on the chart's DHA CRD.
set -euo pipefail
root=${1:?usage: $0 SOURCE_DIR}
bin=$("$root/scripts/build-go-tool" "$root/tests/crd/cel_check" . dha-crd-check)
exec "$bin" "$root/charts/db-autoscaler/crds/autoscaling.cozystack.io_databasehorizontalautoscalers.yaml" \
  "$root/tests/crd/cel_cases.yaml"
