#!/usr/bin/env bash
# render-manifests.sh SOURCE_DIR OUT_DIR
# What the operator package installs besides the CRD, rendered from the chart by the pinned Helm
# (tests/chart/helm) so that the chart stays their one source:
#   rbac.yaml     the ServiceAccount, the operator's ClusterRole and bindings, the leader-election
#                 Role and the metrics roles, for namespace cozy-db-autoscaler
#   webhook.yaml  the ValidatingWebhookConfiguration (both webhooks), rendered for cert-manager's
#                 CA injection: the chart-generated mode would put a random CA, whose key nobody
#                 has, into the package
# The chart's defaults otherwise, as `helm install` with only the namespace would render them.
set -euo pipefail
source_dir=$1 out_dir=$2
helm=$("$source_dir/scripts/build-go-tool" "$source_dir/tests/chart/helm" helm.sh/helm/v3/cmd/helm helm)
home=$(mktemp -d); trap 'rm -rf "$home"' EXIT
# Helm's own configuration and caches stay out of the user's home; no cluster is asked.
export HELM_CONFIG_HOME=$home/config HELM_CACHE_HOME=$home/cache HELM_DATA_HOME=$home/data KUBECONFIG=$home/none
render() {
  "$helm" template db-autoscaler "$source_dir/charts/db-autoscaler" --namespace cozy-db-autoscaler \
    --set certificates.certManager.enabled=true "$@"
}
mkdir -p "$out_dir"
render --show-only templates/serviceaccount.yaml --show-only templates/rbac.yaml \
  --show-only templates/role-leader-election.yaml --show-only templates/rbac-metrics.yaml >"$out_dir/rbac.yaml"
render --show-only templates/validatingwebhookconfiguration.yaml >"$out_dir/webhook.yaml"
