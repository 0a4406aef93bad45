#!/usr/bin/env bash
# An old kubectl against the embedded API server: Debian 12's kubectl 1.20 (first on PATH, see
# tests/integration/demo/debian-kubectl.sh) asks for /openapi/v2 as protobuf before `apply` and
# must be refused with a message naming its version and the kubectl to use, while the pinned
# kubectl applies the same file and reads /openapi/v2 in JSON.
#
#   old_kubectl.sh DHA_APISERVER_BIN  (run under debian-kubectl.sh)
set -euo pipefail
apiserver=${1:?usage: $0 DHA_APISERVER_BIN}
root=$(cd "$(dirname "$0")/../../.." && pwd)
new_kubectl=$("$root/scripts/build-go-tool" "$root/sdk/testing/kubectl" . kubectl)
old_version=$(kubectl version --client 2>/dev/null | sed -n 's/.*GitVersion:"\([^"]*\)".*/\1/p')
[[ "$old_version" == v1.20.* ]] || { echo "FAIL: kubectl first on PATH is '$old_version', not Debian's 1.20" >&2; exit 1; }

work=$(mktemp -d)
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
export KUBECONFIG=$work/kubeconfig
"$apiserver" --listen 127.0.0.1:0 --kubeconfig-out "$KUBECONFIG" --crds "$root/sdk/testing/crds" \
  --crds "$root/charts/db-autoscaler/crds" >"$work/apiserver.log" 2>&1 &
pid=$!
deadline=$((SECONDS + 30))
until "$new_kubectl" get namespaces >/dev/null 2>&1; do
  kill -0 "$pid" 2>/dev/null || { cat "$work/apiserver.log" >&2; echo "FAIL: dha-apiserver exited" >&2; exit 1; }
  ((SECONDS < deadline)) || { echo "FAIL: dha-apiserver not up within 30 s" >&2; exit 1; }
  sleep 0.2
done

if kubectl apply -f "$root/examples/demo/postgres.yaml" >"$work/old.out" 2>&1; then
  cat "$work/old.out" >&2
  echo "FAIL: kubectl $old_version applied without the OpenAPI v2 it needs" >&2
  exit 1
fi
for want in "kubectl/$old_version" "use kubectl v1.32 or newer" "scripts/install-deps"; do
  grep -qF "$want" "$work/old.out" || { cat "$work/old.out" >&2; echo "FAIL: the refusal does not say '$want'" >&2; exit 1; }
done
echo "old kubectl refused: $(cat "$work/old.out")"

"$new_kubectl" apply -f "$root/examples/demo/postgres.yaml"
"$new_kubectl" get --raw /openapi/v2 >"$work/v2.json"
python3 - "$work/v2.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["swagger"] == "2.0", doc.get("swagger")
name = "io.cozystack.autoscaling.v1alpha1.DatabaseHorizontalAutoscaler"
gvk = doc["definitions"][name]["x-kubernetes-group-version-kind"]
assert gvk == [{"group": "autoscaling.cozystack.io", "version": "v1alpha1", "kind": "DatabaseHorizontalAutoscaler"}], gvk
print("/openapi/v2 in JSON:", len(doc["definitions"]), "definitions, the DHA's among them")
PY
