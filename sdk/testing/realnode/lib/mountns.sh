# The fixture's own mount namespace. containerd and the kubelet run in it, so their mounts — every
# container's root filesystem, every Pod volume, every network namespace's bind mount — never
# appear in the host's mount table and vanish with the namespace. In it, fresh tmpfs hide /run
# (containerd's shim sockets, runc's state, /run/netns) and /var/log (Pod logs, the kubelet's
# /var/log/containers links), and /var/lib/cni (the CNI result cache) and /var/lib/kubelet (the
# kubelet's certificates and device-plugin socket) — fixed paths whatever the flags say — are
# the fixture's own directories. Host mounts still propagate in (slave), none propagate out.
#
# The namespace is held by one process, which also holds the one-node-per-machine lock (fd 8,
# inherited from `up`: see take_node_lock).

start_mount_namespace() {
  mkdir -p "$STATE/pids" "$STATE/logs" "$STATE/cni-lib" "$STATE/kubelet"
  # A bind target must exist on the host; remember the ones we made, to remove them again.
  local target
  for target in /var/lib/cni /var/lib/kubelet; do
    [[ -e "$target" ]] || { mkdir -p "$target" && echo "$target" >>"$STATE/created-paths"; }
  done
  rm -f "$STATE/mountns.ready"
  setsid bash -c '
    echo $$ >"$1/cgroup.procs"
    echo $$ >"$2.pid"
    exec unshare --mount --propagation slave -- bash -c "
      mount -t tmpfs -o mode=0755 dha-realnode-run /run &&
      mount -t tmpfs -o mode=0755 dha-realnode-log /var/log &&
      mount --bind \"\$0/cni-lib\" /var/lib/cni &&
      mount --bind \"\$0/kubelet\" /var/lib/kubelet &&
      touch \"\$0/mountns.ready\" && exec sleep infinity" "$3"
  ' _ "$(procs_cgroup_dir)" "$LOCK_FILE" "$STATE" >"$STATE/logs/mountns.log" 2>&1 </dev/null &
  echo $! >"$STATE/pids/mountns"
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -f "$STATE/mountns.ready" ]] && return 0
    kill -0 "$(cat "$STATE/pids/mountns")" 2>/dev/null || break
    sleep 0.1
  done
  cat "$STATE/logs/mountns.log" >&2
  die "could not set up the fixture's mount namespace (log above)"
}

stop_mount_namespace() {
  stop_proc mountns
  rm -f "$LOCK_FILE" "$LOCK_FILE.pid"
}
