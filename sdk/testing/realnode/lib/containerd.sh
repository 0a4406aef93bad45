# containerd (Debian's) with its own root, state, socket and config, runc as the runtime with
# cgroupfs, and the CRI's sandbox image set to the fixture's own pause image. Root on this kind
# of machine may lack CAP_SYS_RESOURCE: runc then fails every sandbox ("can't get final child's
# PID") unless the CRI keeps oom_score_adj within what the caller may set.

containerd_sock() { echo "$STATE/containerd/containerd.sock"; }
ctr_() { ctr --address "$(containerd_sock)" --namespace k8s.io "$@"; }

write_containerd_config() {
  local d=$STATE/containerd
  mkdir -p "$d/root" "$d/state" "$d/runc"
  cat >"$d/config.toml" <<TOML
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$d/containerd.sock"
[ttrpc]
  address = "$d/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "$d/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  enable_selinux = false
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        Root = "$d/runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
    max_conf_num = 1
TOML
}

start_containerd() {
  write_containerd_config
  start_proc containerd containerd --config "$STATE/containerd/config.toml"
  wait_for 30 "containerd's socket ($STATE/logs/containerd.log)" ctr_ version || { require_alive containerd; return 1; }
}

# The pause program, built statically and imported as a one-layer image under $PAUSE_IMAGE.
import_pause_image() {
  local work=$STATE/images/pause
  rm -rf "$work" && mkdir -p "$work/rootfs"
  cc -static -Os -o "$work/rootfs/pause" "$REALNODE_DIR/pause/pause.c" ||
    die "could not build the pause program (needs a C compiler and static libc: build-essential)"
  image_from_rootfs "$work/rootfs" "$PAUSE_IMAGE" '["/pause"]' "$work"
}
