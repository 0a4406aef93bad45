#!/usr/bin/env bash
# The chart on the real node, installed wrong in two ways a user can get it wrong; each time the
# operator must say so where an administrator looks, not run and scale nothing:
#   - an image that lacks a plugin the chart asks for (the defaults ask for redis; the image is
#     the Dockerfile's, built without redis.so): no replica becomes Ready, each exits non-zero,
#     and its log names the missing plugin;
#   - a ClusterRole without a verb the operator uses (a Helm post-renderer takes "list" on
#     DatabaseHorizontalAutoscalers out): no replica becomes Ready (the readiness probe fails,
#     as the kubelet's events show), and each one's log names the refused request.
# One node and one image build for both: the second install asks only for the plugins the image
# has.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/chart_lib.sh"

MISSING_PLUGIN=redis
NO_PLUGIN_IMAGE=localhost/db-autoscaler:realnode-without-$MISSING_PLUGIN
CLUSTER_ROLE=autoscaling.cozystack.io:db-autoscaler RBAC_RESOURCE=databasehorizontalautoscalers RBAC_VERB=list

node_up
chart_setup
DHA_REALNODE_IMAGE_WITHOUT_PLUGINS=$MISSING_PLUGIN build_image "$NO_PLUGIN_IMAGE"

# Fails the test as soon as a replica is Ready: called on every poll below (whose output goes
# nowhere, hence the test's own stderr, kept as fd 3).
exec 3>&2
none_ready() {
  local ready; ready=$(ready_pods)
  [[ -z "$ready" ]] || fail "$1: $(echo $ready) became Ready" 2>&3
}

# --- an image without a plugin the chart asks for ---------------------------------------------
# operator_exit POD: the exit code of the operator container's last run, if it ended.
operator_exit() {
  kubectl -n "$NAMESPACE" get pod "$1" -o go-template='{{range .status.containerStatuses}}{{with .state.terminated}}{{.exitCode}}{{else}}{{with .lastState.terminated}}{{.exitCode}}{{end}}{{end}}{{end}}'
}
# refused_to_start POD: its operator exited non-zero saying which plugin it did not find.
refused_to_start() {
  local code log
  code=$(operator_exit "$1")
  [[ -n "$code" && "$code" != 0 ]] || return 1
  log=$(kubectl -n "$NAMESPACE" logs "$1" 2>/dev/null || kubectl -n "$NAMESPACE" logs --previous "$1" 2>/dev/null) || return 1
  grep -Eq "cannot start: plugin .?.?$MISSING_PLUGIN.?.?: no file $MISSING_PLUGIN\\.so in the plugin directories searched" <<<"$log"
}
all_refused_to_start() {
  none_ready "an operator without $MISSING_PLUGIN.so"
  local pods pod; pods=$(operator_pods)
  [[ $(wc -w <<<"$pods") == 2 ]] || return 1
  for pod in $pods; do refused_to_start "$pod" || return 1; done
}
start=$(now_ms)
chart_install "$NO_PLUGIN_IMAGE"
if ! until_ok_quiet 120 all_refused_to_start; then
  kubectl -n "$NAMESPACE" get pods -o wide >&2 || true
  kubectl -n "$NAMESPACE" logs -l app.kubernetes.io/instance="$RELEASE" --tail=5 --prefix >&2 || true
  fail "not within 120s: both replicas of an image without $MISSING_PLUGIN.so refusing to start, naming it (above)"
fi
none_ready "an operator without $MISSING_PLUGIN.so"
note "image without $MISSING_PLUGIN.so: both replicas refused to start naming it, none Ready, after $(( $(now_ms) - start )) ms"
chart_uninstall

# --- a ClusterRole without a verb the operator uses -------------------------------------------
# names_refused_request POD: its log says the API server refused it the verb on the resource.
names_refused_request() {
  local log; log=$(kubectl -n "$NAMESPACE" logs "$1" 2>/dev/null) || return 1
  grep -Eq "cannot $RBAC_VERB resource .?.?$RBAC_RESOURCE" <<<"$log"
}
# readiness_failed POD: the kubelet reported its readiness probe failing.
readiness_failed() {
  local events
  events=$(kubectl -n "$NAMESPACE" get events --field-selector "involvedObject.name=$1,reason=Unhealthy" \
    -o go-template='{{range .items}}{{.message}}{{"\n"}}{{end}}') || return 1
  grep -q '^Readiness probe failed' <<<"$events"
}
restarts() {
  kubectl -n "$NAMESPACE" get pods -l app.kubernetes.io/instance="$RELEASE" \
    -o jsonpath='{range .items[*]}{.status.containerStatuses[0].restartCount}{" "}{end}'
}
all_report_rbac() {
  none_ready "an operator refused $RBAC_VERB on $RBAC_RESOURCE"
  local pods pod; pods=$(operator_pods)
  [[ $(wc -w <<<"$pods") == 2 ]] || return 1
  for pod in $pods; do names_refused_request "$pod" && readiness_failed "$pod" || return 1; done
}
start=$(now_ms)
# Only the plugins the image has: everything else as a user installs it.
chart_install "$NO_PLUGIN_IMAGE" --set "plugins.enabled={postgres,metrics-vm}" \
  --post-renderer "$REPO_ROOT/tests/realnode/drop_verb.py" \
  --post-renderer-args "$CLUSTER_ROLE" --post-renderer-args "$RBAC_RESOURCE" --post-renderer-args "$RBAC_VERB"
verbs=$(kubectl get clusterrole "$CLUSTER_ROLE" \
  -o go-template="{{range .rules}}{{if eq (index .resources 0) \"$RBAC_RESOURCE\"}}{{.verbs}}{{end}}{{end}}")
[[ -n "$verbs" && " ${verbs//[\[\]]/ } " != *" $RBAC_VERB "* ]] ||
  fail "the installed ClusterRole grants [$verbs] on $RBAC_RESOURCE: the post-renderer did not take $RBAC_VERB out"
if ! until_ok_quiet 120 all_report_rbac; then
  kubectl -n "$NAMESPACE" get pods -o wide >&2 || true
  kubectl -n "$NAMESPACE" get events >&2 || true
  kubectl -n "$NAMESPACE" logs -l app.kubernetes.io/instance="$RELEASE" --tail=5 --prefix >&2 || true
  fail "not within 120s: both replicas without $RBAC_VERB on $RBAC_RESOURCE failing readiness and naming the refused request (above)"
fi
none_ready "an operator refused $RBAC_VERB on $RBAC_RESOURCE"
[[ "$(restarts)" == "0 0 " ]] || fail "operator containers restarted (the liveness probe is not what should fail): $(restarts)"
note "ClusterRole without $RBAC_VERB on $RBAC_RESOURCE: both replicas not Ready, readiness failing and the refusal logged, after $(( $(now_ms) - start )) ms"
chart_uninstall
echo "realnode.chart_faults: 2 passed, 0 failed"
