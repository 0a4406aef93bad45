#!/usr/bin/env bash
# check_operator_deb_runs.sh BUILD_DIR SOURCE_DIR DHA_APISERVER
# The operator package is an install: built by CPack from BUILD_DIR, unpacked into an empty root
# (dpkg -x), it holds what Debian requires (a DEP-5 copyright file, the changelog, a manual page)
# and what a cluster needs (the CRD, the chart's RBAC and webhook manifests), and the README's
# `db-autoscaler run` command, run from that root against the embedded API server with only the
# packaged CRD and webhook configuration applied, becomes ready, serves the webhook with its own
# self-signed certificate (the API server's call refuses a second DHA on a target) and reconciles.
# Only the ports are added to the README's command, so that parallel tests do not share them, and
# an empty --cert-dir, so that no certificate left on this machine is used; the webhook listens
# where the command alone puts it, on loopback.
set -euo pipefail
build_dir=$1; source_dir=$2; apiserver=$3
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  for log in "$work"/*.log; do [[ -f "$log" ]] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }; done
  exit 1
}
[[ -x "$apiserver" ]] || fail "dha-apiserver not built: $apiserver"

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
cpack --config "$build_dir/CPackConfig.cmake" -B "$work/debs" -D "CPACK_COMPONENTS_ALL=operator;debian" \
  >"$work/cpack.out" 2>&1 || { cat "$work/cpack.out"; fail "cpack could not build the operator package"; }
deb=$work/debs/db-autoscaler_${version}_$(dpkg --print-architecture).deb
[[ -f "$deb" ]] || fail "cpack did not write $(basename "$deb"): $(ls "$work/debs")"
root=$work/root
mkdir "$root"
dpkg -x "$deb" "$root"

# What Debian requires of a package.
doc=$root/usr/share/doc/db-autoscaler
[[ "$(head -n 1 "$doc/copyright" 2>/dev/null)" == "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ]] \
  || fail "no machine-readable (DEP-5) /usr/share/doc/db-autoscaler/copyright"
zcat "$doc/changelog.gz" >"$work/changelog" 2>/dev/null || fail "no /usr/share/doc/db-autoscaler/changelog.gz"
[[ "$(dpkg-parsechangelog -l "$work/changelog" -S Version)" == "$version" ]] \
  || fail "the changelog's version is not the package's $version"
for page in db-autoscaler kubectl-dha; do
  zcat "$root/usr/share/man/man1/$page.1.gz" 2>/dev/null | grep -qF -- '\-\-plugin\-config' \
    || fail "no manual page $page(1) describing run --plugin-config"
done

# The chart's manifests, as the chart renders them.
manifests=$root/usr/share/db-autoscaler/manifests
python3 - "$manifests" <<'PY' || fail "the packaged manifests are not the chart's RBAC and webhook objects"
import sys, yaml
d = sys.argv[1]
rbac = {(o["kind"], o["metadata"]["name"]) for o in yaml.safe_load_all(open(f"{d}/rbac.yaml")) if o}
for want in [("ServiceAccount", "db-autoscaler"), ("ClusterRole", "autoscaling.cozystack.io:db-autoscaler"),
             ("ClusterRoleBinding", "autoscaling.cozystack.io:db-autoscaler"),
             ("Role", "db-autoscaler-leader-election"), ("RoleBinding", "db-autoscaler-leader-election")]:
    assert want in rbac, f"rbac.yaml lacks {want}: {sorted(rbac)}"
hooks = [o for o in yaml.safe_load_all(open(f"{d}/webhook.yaml")) if o]
assert [o["kind"] for o in hooks] == ["ValidatingWebhookConfiguration"], hooks
names = [w["name"] for w in hooks[0]["webhooks"]]
assert names == ["replicas.autoscaling.cozystack.io", "target.autoscaling.cozystack.io"], names
PY

# An empty cluster: the fixture CRDs of the databases, and nothing of ours.
kubectl=$("$source_dir/scripts/build-go-tool" "$source_dir/sdk/testing/kubectl" . kubectl)
export HOME=$work/home TMPDIR=$work/tmp
mkdir -p "$HOME/.kube" "$TMPDIR"
export KUBECONFIG=$HOME/.kube/config
"$apiserver" --listen 127.0.0.1:0 --kubeconfig-out "$KUBECONFIG" --tls --crds "$source_dir/sdk/testing/crds" \
  >"$work/apiserver.log" 2>&1 &
pids+=($!)
deadline=$((SECONDS + 30))
until "$kubectl" get namespaces >/dev/null 2>&1; do
  kill -0 "${pids[0]}" 2>/dev/null || fail "dha-apiserver exited"
  ((SECONDS < deadline)) || fail "dha-apiserver not up within 30 s"
  sleep 0.2
done
"$kubectl" apply -f "$root/usr/share/db-autoscaler/crds/" >/dev/null || fail "kubectl apply of the packaged CRD"

# The README's command, as written there; plugins.json names an unreachable metric store, so the
# DHA reconciles to MetricUnavailable.
command=$(python3 - "$source_dir/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"Then `(db-autoscaler run [^`]*)`", text)
print(" ".join(m.group(1).split()) if m else "")
PY
)
[[ "$command" == "db-autoscaler run "* ]] || fail "README.md has no \"Then \`db-autoscaler run ...\`\" command"
echo "README: $command"
cat >"$work/plugins.json" <<'EOF'
{"metrics-vm": {"url": "http://127.0.0.1:9"}, "postgres": {}}
EOF
mkdir "$work/no-certs"
: >"$work/operator.log"
(cd "$work" && export PATH="$root/usr/bin:$PATH" &&
  eval "exec $command --health-probe-bind-address 127.0.0.1:0 --webhook-port 0 --cert-dir $work/no-certs") \
  >"$work/operator.log" 2>&1 &
operator=$!
pids+=($operator)
listening() { sed -n "s/.*$1 server listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p" "$work/operator.log" | head -n 1; }
deadline=$((SECONDS + 60))
until [[ -n "$(listening probes)" ]] && curl -fsS "http://127.0.0.1:$(listening probes)/readyz" >/dev/null 2>&1; do
  kill -0 "$operator" 2>/dev/null || fail "the README's command exited"
  ((SECONDS < deadline)) || fail "the packaged operator not ready within 60 s"
  sleep 0.3
done
grep -q "db-autoscaler $version" <<<"$("$root/usr/bin/db-autoscaler" version)" || fail "the packaged binary's version"
certs=$(sed -n 's/.*serving the webhook with a self-signed certificate from \([^ ]*\) .*/\1/p' "$work/operator.log" | head -n 1)
[[ -n "$certs" && -f "$certs/tls.crt" ]] || fail "no warning naming the webhook's self-signed certificate"
echo "ready; the webhook serves a self-signed certificate from $certs, with a warning"

# The packaged webhook configuration, pointed at this operator: a URL instead of the Service, its
# certificate as the CA instead of cert-manager's injection.
python3 - "$manifests/webhook.yaml" "$(listening webhook)" "$certs/tls.crt" >"$work/webhook.yaml" <<'PY'
import base64, sys, yaml
config, port, crt = sys.argv[1], sys.argv[2], sys.argv[3]
obj = next(o for o in yaml.safe_load_all(open(config)) if o)
obj["metadata"].pop("annotations", None)
ca = base64.b64encode(open(crt, "rb").read()).decode()
for hook in obj["webhooks"]:
    path = hook["clientConfig"]["service"]["path"]
    hook["clientConfig"] = {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca}
    hook["failurePolicy"] = "Fail"
print(yaml.safe_dump(obj))
PY
"$kubectl" apply -f "$work/webhook.yaml" >/dev/null || fail "kubectl apply of the packaged webhook configuration"

"$kubectl" apply -f "$source_dir/examples/demo/postgres.yaml" >/dev/null
"$kubectl" apply -f "$source_dir/examples/demo/dha.yaml" >/dev/null || fail "the first DHA on demo/db refused"
deadline=$((SECONDS + 60))
until [[ "$("$kubectl" -n demo get dha db -o jsonpath='{.status.observedGeneration}/{.metadata.generation}/{.status.conditions[?(@.type=="AbleToScale")].reason}')" =~ ^([0-9]+)/\1/[A-Za-z]+$ ]]; do
  ((SECONDS < deadline)) || fail "the packaged operator did not reconcile demo/db within 60 s: $("$kubectl" -n demo get dha db -o jsonpath='{.status}')"
  sleep 0.5
done
echo "reconciled: $("$kubectl" -n demo get dha db -o jsonpath='AbleToScale={.status.conditions[?(@.type=="AbleToScale")].reason}: {.status.summary}')"

if out=$(sed 's/^  name: db$/  name: second/' "$source_dir/examples/demo/dha.yaml" | "$kubectl" apply -f - 2>&1); then
  fail "a second DHA on demo/db was admitted: $out"
fi
[[ "$out" == *target.autoscaling.cozystack.io* ]] || fail "the second DHA was refused, but not by the packaged webhook: $out"
echo "the API server's call to the packaged webhook refused a second DHA on demo/db"

kill -TERM "$operator"
wait "$operator" || fail "the operator exited $? on SIGTERM"
echo "the operator package installs into an empty root and runs with the README's command: 1 passed, 0 failed"
