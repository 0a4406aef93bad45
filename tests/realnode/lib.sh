# Shared by the real-node tests: start a node in a fresh state dir, tear it down on exit (the
# teardown's own check that the host is as found is part of every test), and poll with deadlines.
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIXTURE=$REPO_ROOT/sdk/testing/realnode/dha-real-node
WORK=$(mktemp -d /tmp/dha-realnode-test.XXXXXX)
NODE_UP=0
CLEANUP=()   # commands run at exit, before the node goes down

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "--- $*"; }
now_ms() { date +%s%3N; }

# Under CI a missing prerequisite fails; elsewhere the test skips (77) saying what is missing.
skip_or_fail() {
  if [[ "${CI:-}" == true ]]; then fail "$*"; fi
  echo "SKIP: $*"; exit 77
}

node_down() {
  ((NODE_UP)) || return 0
  NODE_UP=0
  if ! "$FIXTURE" down "$WORK/state"; then
    echo "FAIL: the teardown did not leave the host as it found it (above)" >&2
    return 1
  fi
}

finish() {
  local status=$? c
  for c in "${CLEANUP[@]}"; do eval "$c" || true; done
  node_down || status=1
  rm -rf "$WORK"
  exit $status
}
trap finish EXIT

node_up() {
  [[ $EUID -eq 0 ]] || skip_or_fail "the real-node tests need root"
  "$FIXTURE" up "$WORK/state" || { NODE_UP=1; fail "the real node did not start (above)"; }
  NODE_UP=1
  set -a
  # shellcheck source=/dev/null
  source "$WORK/state/env"
  set +a
}

# until_ok SECONDS WHAT CMD...
until_ok() {
  local seconds=$1 what=$2; shift 2
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s) < deadline )) || fail "not within ${seconds}s: $what"
    sleep 0.2
  done
}

# until_ok_quiet SECONDS CMD...: as until_ok, but returns 1 instead of failing the test.
until_ok_quiet() {
  local seconds=$1; shift
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s) < deadline )) || return 1
    sleep 0.5
  done
}
