# Shared by the chart tests on the real node (after lib.sh): real Helm, a real VictoriaMetrics
# for the metrics URL, the operator image built from the Dockerfile, and the chart installed as
# a user installs it.
NAMESPACE=cozy-db-autoscaler RELEASE=db-autoscaler IMAGE=localhost/db-autoscaler:realnode

# chart_setup [VICTORIA-METRICS ARGS...]: Helm, VictoriaMetrics on the node's address (where
# Pods reach the host), the CRDs of the kinds the operator works on. Sets $helm and $vm_url.
chart_setup() {
  helm=$("$REPO_ROOT/scripts/build-go-tool" tests/chart/helm helm.sh/helm/v3/cmd/helm helm) || fail "could not build Helm"
  export HELM_CONFIG_HOME=$WORK/helm/config HELM_CACHE_HOME=$WORK/helm/cache HELM_DATA_HOME=$WORK/helm/data
  local vm_port=$(( 20000 + RANDOM % 10000 ))
  victoria-metrics -httpListenAddr="$DHA_REALNODE_NODE_IP:$vm_port" -storageDataPath="$WORK/vm" \
    -retentionPeriod=1d "$@" >"$WORK/vm.log" 2>&1 &
  local pid=$!
  CLEANUP+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
  vm_url=http://$DHA_REALNODE_NODE_IP:$vm_port
  until_ok 30 "VictoriaMetrics on $DHA_REALNODE_NODE_IP:$vm_port" wget -q -O /dev/null "$vm_url/health"
  kubectl apply -f "$REPO_ROOT/sdk/testing/crds" >/dev/null
}

# build_image REF: the Dockerfile built into the node's containerd as REF (the fixture's image
# build options, e.g. DHA_REALNODE_IMAGE_WITHOUT_PLUGINS, come from the caller's environment).
build_image() {
  local start; start=$(now_ms)
  "$FIXTURE" image "$WORK/state" "$1" || fail "the Dockerfile did not build into an image (above)"
  note "image $1 built from the Dockerfile in $(( $(now_ms) - start )) ms"
}

# chart_install REF [HELM ARGS...]: as a user installs it: the defaults (chart-made
# certificates; no Prometheus or VictoriaMetrics operator kinds on a cluster without their APIs)
# plus the image and the metrics URL; no --wait (the caller says what it waits for).
chart_install() {
  local ref=$1; shift
  local values=(--set image.repository="${ref%:*}" --set image.tag="${ref##*:}"
                --set-string "plugins.config.metrics-vm.urlTemplate=$vm_url/prometheus")
  # DHA_REALNODE_CHART_VALUES adds settings for a local experiment.
  # shellcheck disable=SC2206
  values+=(${DHA_REALNODE_CHART_VALUES:-})
  "$helm" install "$RELEASE" "$REPO_ROOT/charts/db-autoscaler" --namespace "$NAMESPACE" --create-namespace \
    "${values[@]}" "$@" >"$WORK/helm-install.log" 2>&1 || { cat "$WORK/helm-install.log"; fail "helm install refused"; }
}

ready_replicas() { kubectl -n "$NAMESPACE" get deployment "$RELEASE" -o jsonpath='{.status.readyReplicas}'; }
two_ready() { [[ "$(ready_replicas)" == 2 ]]; }
operator_pods() {
  kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" -o jsonpath='{.items[*].metadata.name}'
}
# Pods of the release whose Ready condition is True, one per line.
ready_pods() {
  kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" \
    -o go-template='{{range .items}}{{$n := .metadata.name}}{{range .status.conditions}}{{if and (eq .type "Ready") (eq .status "True")}}{{$n}}{{"\n"}}{{end}}{{end}}{{end}}'
}

# What the release made, namespaced and cluster-wide, and any Pod left in its namespace.
release_objects() {
  kubectl get all,configmaps,secrets,serviceaccounts,roles,rolebindings,leases,poddisruptionbudgets,networkpolicies \
    -n "$NAMESPACE" -l app.kubernetes.io/instance="$RELEASE" -o name 2>/dev/null
  kubectl get clusterroles,clusterrolebindings,validatingwebhookconfigurations \
    -l app.kubernetes.io/instance="$RELEASE" -o name 2>/dev/null
  kubectl -n "$NAMESPACE" get pods -o name 2>/dev/null
}
nothing_left() { [[ -z "$(release_objects)" ]]; }

# chart_uninstall: helm uninstall, then polls until nothing of the release is left (the garbage
# collector removes the Pods and ReplicaSets after the Deployment).
chart_uninstall() {
  "$helm" uninstall "$RELEASE" --namespace "$NAMESPACE" --wait --timeout 120s >/dev/null
  local start; start=$(now_ms)
  if ! until_ok_quiet 90 nothing_left; then
    fail "helm uninstall left: $(release_objects | tr '\n' ' ')"
  fi
  note "helm uninstall -> nothing of the release left after $(( $(now_ms) - start )) ms"
}

# pod_ips / ready_endpoint_ips: the release's Pod addresses, and those its Service's
# EndpointSlices list as ready, one per line, sorted (compare them to see the Service route).
pod_ips() {
  kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" \
    -o go-template='{{range .items}}{{.status.podIP}}{{"\n"}}{{end}}' | sort
}
ready_endpoint_ips() {
  kubectl -n "$NAMESPACE" get endpointslices -l kubernetes.io/service-name="$RELEASE" \
    -o go-template='{{range .items}}{{range .endpoints}}{{if .conditions.ready}}{{range .addresses}}{{.}}{{"\n"}}{{end}}{{end}}{{end}}{{end}}' | sort
}
