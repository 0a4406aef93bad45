#!/usr/bin/env bash
# `kubectl dha status` without a name lists the namespace's DHAs, one a line, with the reason
# and the summary the operator wrote; `-o json` and `-o yaml` print the object itself, the same
# object both ways; as kubectl-dha its usage line names `kubectl dha`. Against the embedded API
# server, statuses written as the operator writes them.
#
#   kubectl_dha_list_and_output.sh DB_AUTOSCALER DHA_APISERVER
set -euo pipefail
dha=${1:?usage: $0 DB_AUTOSCALER DHA_APISERVER}
apiserver=${2:?usage: $0 DB_AUTOSCALER DHA_APISERVER}
root=$(cd "$(dirname "$0")/../../.." && pwd)
kubectl=$("$root/scripts/build-go-tool" "$root/sdk/testing/kubectl" . kubectl)
fail() { echo "FAIL: $*" >&2; exit 1; }

work=$(mktemp -d)
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
export KUBECONFIG=$work/kubeconfig
"$apiserver" --listen 127.0.0.1:0 --kubeconfig-out "$KUBECONFIG" --crds "$root/sdk/testing/crds" \
  --crds "$root/charts/db-autoscaler/crds" >"$work/apiserver.log" 2>&1 &
pid=$!
deadline=$((SECONDS + 30))
until "$kubectl" get namespaces >/dev/null 2>&1; do
  kill -0 "$pid" 2>/dev/null || fail "dha-apiserver exited: $(cat "$work/apiserver.log")"
  ((SECONDS < deadline)) || fail "dha-apiserver not up within 30 s"
  sleep 0.2
done

"$kubectl" apply -f "$root/examples/demo/postgres.yaml" >/dev/null
"$kubectl" apply -f "$root/examples/demo/dha.yaml" >/dev/null
sed 's/^  name: db$/  name: fresh/' "$root/examples/demo/dha.yaml" | "$kubectl" apply -f - >/dev/null
summary='no change at 2 (ReadConnections 150/100 per read replica); ScaleUpStabilized: Stabilization: 3 -> 2 (scale-up limited to 2 by the lowest recommendation in the last 300s)'
"$kubectl" -n demo patch dha db --subresource=status --type merge -p "$(python3 -c '
import json, sys
print(json.dumps({"status": {"targetDisplay": "Postgres/db", "currentDisplay": "2", "desiredDisplay": "2",
  "summary": sys.argv[1],
  "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ScaleUpStabilized",
                  "message": "Stabilization: 3 -> 2", "lastTransitionTime": "2026-12-01T10:00:00Z"}]}}))' "$summary")" >/dev/null

list=$("$dha" dha status -n demo --kubeconfig "$KUBECONFIG") || fail "list mode exited $?: $list"
echo "$list"
head=$(sed -n 1p <<<"$list")
[[ "$head" =~ ^NAME\ +TARGET\ +CURRENT\ +DESIRED\ +REASON\ +SUMMARY$ ]] || fail "header: $head"
grep -E "^db +Postgres/db +2 +2 +ScaleUpStabilized +no change at 2 .*ScaleUpStabilized: Stabilization: 3 -> 2" <<<"$list" >/dev/null \
  || fail "the row of db lacks its counts, reason or summary"
grep -E "^fresh +<unknown> +<unknown> +<unknown> +<unknown>$" <<<"$list" >/dev/null \
  || fail "a DHA without status is not shown as <unknown>"

"$dha" dha status db -n demo --kubeconfig "$KUBECONFIG" -o json >"$work/db.json"
"$dha" dha status db -n demo --kubeconfig "$KUBECONFIG" -o yaml >"$work/db.yaml"
python3 - "$work/db.json" "$work/db.yaml" "$summary" <<'PY'
import json, sys, yaml
j = json.load(open(sys.argv[1]))
y = yaml.safe_load(open(sys.argv[2]))
assert j == y, "-o json and -o yaml print different objects"
assert j["kind"] == "DatabaseHorizontalAutoscaler" and j["metadata"]["name"] == "db", j["metadata"]
assert j["status"]["summary"] == sys.argv[3], j["status"]["summary"]
assert y["spec"]["maxReplicas"] == 5 and isinstance(y["spec"]["maxReplicas"], int), y["spec"]
PY
"$dha" dha status -n demo --kubeconfig "$KUBECONFIG" -o json | python3 -c '
import json, sys
names = sorted(i["metadata"]["name"] for i in json.load(sys.stdin)["items"])
assert names == ["db", "fresh"], names'
if out=$("$dha" dha status db -n demo --kubeconfig "$KUBECONFIG" -o wide 2>&1); then fail "-o wide accepted: $out"; fi
[[ "$out" == *json* && "$out" == *yaml* ]] || fail "-o wide refused without naming json and yaml: $out"
# Run by kubectl as kubectl-dha, its usage reads as the command the user typed.
plugin=$(dirname "$dha")/kubectl-dha
usage=$("$plugin" status --help | sed -n 2p)
[[ "$usage" == "Usage: kubectl dha status [OPTIONS] [name]" ]] || fail "kubectl-dha's usage line: $usage"
echo "kubectl dha status: list, -o json, -o yaml, a refused -o and the usage line: 1 passed, 0 failed"
