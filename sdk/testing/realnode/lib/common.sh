# Shared helpers of the real-node fixture: messages, bounded waits, and the processes it starts.
# Sourced by dha-real-node; expects $STATE (the fixture's state directory) to be set.

# Fixed names: one real node per machine at a time (the kubelet's port, the bridge, the cgroups
# are host-wide), so `up` takes a lock before it touches anything and a second one fails saying
# who holds it, and `down` leaves alone a node that is not its own.
NODE_NAME=dha-node
BRIDGE=dha-br0
POD_CIDR=10.213.0.0/24
NODE_IP=10.213.0.1
SERVICE_CIDR=10.96.0.0/16    # the control-plane launcher's --service-cluster-ip-range
KUBERNETES_SERVICE_IP=10.96.0.1
PODS_CGROUP=dha-realnode-pods     # the kubelet's cgroupRoot, in every v1 hierarchy
PROCS_CGROUP=dha-realnode-procs   # every process the fixture starts, and their children
NFT_TABLE=dha_realnode
LOCK_FILE=/run/dha-real-node.lock
PAUSE_IMAGE=localhost/dha-pause:1

say() { printf '[realnode %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf 'dha-real-node: %s\n' "$*" >&2; exit 1; }
now_ms() { date +%s%3N; }

# wait_for SECONDS WHAT CMD...: polls CMD every 0.2 s until it succeeds; fails naming WHAT and
# the log to read when the deadline passes.
wait_for() {
  local seconds=$1 what=$2; shift 2
  local deadline=$(( $(date +%s) + seconds ))
  until "$@" >/dev/null 2>&1; do
    (( $(date +%s) < deadline )) || { say "timed out after ${seconds}s waiting for $what"; return 1; }
    sleep 0.2
  done
}

# start_proc NAME CMD...: starts CMD in the fixture's mount namespace (see mountns.sh) and its
# process cgroup, in its own session, output to $STATE/logs/NAME.log, pid in $STATE/pids/NAME.
start_proc() {
  local name=$1; shift
  mkdir -p "$STATE/logs" "$STATE/pids"
  setsid nsenter --mount="/proc/$(cat "$STATE/pids/mountns")/ns/mnt" -- \
    bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$(procs_cgroup_dir)" "$@" \
    >"$STATE/logs/$name.log" 2>&1 </dev/null 8>&- &
  echo $! >"$STATE/pids/$name"
}

# take_node_lock: the one-node-per-machine lock on fd 8, or die naming its holder. Taken first
# thing in `up`, so a refused `up` has changed nothing its teardown could undo; the mount
# namespace's holder inherits fd 8 and keeps the lock until `down` stops it.
take_node_lock() {
  exec 8>"$LOCK_FILE"
  flock -n 8 || die "another real node holds $LOCK_FILE (its mount namespace: pid $(cat "$LOCK_FILE.pid" 2>/dev/null || echo unknown))"
}

# own_node_or_die: `down` tears down host-wide things (the process cgroup, the bridge, netfilter,
# sysctls), so it goes ahead only for the node this STATE started, never for another one running.
own_node_or_die() {
  local holder mine
  holder=$(cat "$LOCK_FILE.pid" 2>/dev/null || true)
  mine=$(cat "$STATE/pids/mountns" 2>/dev/null || true)
  if [[ -n "$holder" && "$holder" != "$mine" ]] && kill -0 "$holder" 2>/dev/null; then
    die "the real node running on this machine is not the one in $STATE (its mount namespace is pid $holder): left alone"
  fi
}

alive() { [[ -f "$STATE/pids/$1" ]] && kill -0 "$(cat "$STATE/pids/$1")" 2>/dev/null; }

# A process that died during start-up fails the fixture at once with its log's tail.
require_alive() {
  alive "$1" && return 0
  say "$1 exited during start-up; the end of $STATE/logs/$1.log:"
  tail -n 30 "$STATE/logs/$1.log" >&2 || true
  return 1
}

# stop_proc NAME: SIGTERM, up to 10 s, then SIGKILL.
stop_proc() {
  local name=$1 pid
  [[ -f "$STATE/pids/$name" ]] || return 0
  pid=$(cat "$STATE/pids/$name")
  if kill -TERM "$pid" 2>/dev/null; then
    local i
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$STATE/pids/$name"
}
