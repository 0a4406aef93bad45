# The fixture's cgroups (v1 hierarchies and the unified one, as the machine mounts them):
# $PROCS_CGROUP holds every process it starts — containerd's shims and so every container's
# parent inherit it — and $PODS_CGROUP is the kubelet's cgroupRoot. Teardown kills what is left
# in both trees and removes them, so nothing the node ran survives it.

cgroup_hierarchies() {
  local d
  for d in /sys/fs/cgroup/*/; do
    [[ -f "$d/cgroup.procs" ]] && echo "${d%/}"
  done
}

procs_cgroup_dir() { echo "/sys/fs/cgroup/pids/$PROCS_CGROUP"; }

make_fixture_cgroups() {
  [[ -f /sys/fs/cgroup/pids/cgroup.procs ]] ||
    die "no cgroup v1 pids hierarchy at /sys/fs/cgroup/pids (this fixture knows the hybrid layout only)"
  local h name
  for h in $(cgroup_hierarchies); do
    for name in "$PODS_CGROUP" "$PROCS_CGROUP"; do
      mkdir -p "$h/$name"
      # A new v1 cpuset has no CPUs or memory nodes until given its parent's.
      if [[ -f "$h/cpuset.cpus" ]]; then
        cat "$h/cpuset.cpus" >"$h/$name/cpuset.cpus"
        cat "$h/cpuset.mems" >"$h/$name/cpuset.mems"
      fi
    done
  done
}

# Every pid in the cgroup tree DIR, one per line.
cgroup_tree_pids() { find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null; }

# Kills everything in both trees (in every hierarchy: a process moved by the kubelet or runc is
# in the pods tree of one hierarchy and elsewhere in another) until they are empty, then removes
# the directories deepest first.
remove_fixture_cgroups() {
  local h name deadline=$(( $(date +%s) + 30 )) pids
  while :; do
    pids=""
    for h in $(cgroup_hierarchies); do
      for name in "$PODS_CGROUP" "$PROCS_CGROUP"; do
        [[ -d "$h/$name" ]] && pids+=" $(cgroup_tree_pids "$h/$name" | tr '\n' ' ')"
      done
    done
    [[ -z "${pids// /}" ]] && break
    (( $(date +%s) < deadline )) || { say "processes left in the fixture's cgroups: $pids"; return 1; }
    # A frozen cgroup (the kubelet freezes while it kills) takes the kill only once thawed.
    for h in $(cgroup_hierarchies); do
      for name in "$PODS_CGROUP" "$PROCS_CGROUP"; do
        [[ -d "$h/$name" ]] && find "$h/$name" -name freezer.state -exec sh -c 'echo THAWED >"$1"' _ {} \; 2>/dev/null
      done
    done
    kill -KILL $pids 2>/dev/null || true
    sleep 0.2
  done
  for h in $(cgroup_hierarchies); do
    for name in "$PODS_CGROUP" "$PROCS_CGROUP"; do
      [[ -d "$h/$name" ]] && find "$h/$name" -depth -type d -exec rmdir {} \; 2>/dev/null
      [[ -d "$h/$name" ]] && { say "could not remove cgroup $h/$name"; return 1; }
    done
  done
  return 0
}
