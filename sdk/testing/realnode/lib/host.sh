# What the real node may change on the host, recorded before it starts and put back after it
# stops: sysctls (the kubelet sets vm.overcommit_memory, kernel.panic and kernel.panic_on_oops;
# the fixture sets route_localnet on its bridge), netfilter tables (kube-proxy's, the kubelet's
# canary chains), and the paths and cgroups it may create. `host_snapshot` is also what the
# left-as-found test compares.

# Counters the kernel changes on its own, never compared or restored.
VOLATILE_SYSCTLS='^(fs\.(dentry-state|file-nr|inode-nr|inode-state|aio-nr) |fs\.quota\.|kernel\.ns_last_pid |kernel\.random\.|net\.netfilter\.nf_conntrack_count )'

# Paths a node component would create by default; the fixture points them all elsewhere.
WATCHED_PATHS=(/etc/cni /opt/cni /var/lib/cni /var/lib/kubelet /var/lib/containerd /run/containerd
               /run/netns /var/run/netns /var/log/pods /var/log/containers /etc/kubernetes
               /usr/libexec/kubernetes /var/lib/calico /run/flannel)

host_snapshot() {
  local out=$1 h
  mkdir -p "$out"
  sysctl -a 2>/dev/null | grep -Ev "$VOLATILE_SYSCTLS" | sort >"$out/sysctl" || true
  if command -v nft >/dev/null; then nft list ruleset >"$out/nft" 2>&1 || true; else : >"$out/nft"; fi
  if command -v iptables-save >/dev/null; then
    { iptables-save; ip6tables-save; } 2>/dev/null | grep -v '^#' >"$out/iptables" || true
  else : >"$out/iptables"; fi
  awk '{print $5, $(NF-2)}' /proc/self/mountinfo | sort >"$out/mounts"
  ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | sort >"$out/links"
  ip route show table all | sort >"$out/routes"
  for h in /sys/fs/cgroup/*/; do
    [[ -f "$h/cgroup.procs" ]] && find "$h" -mindepth 1 -maxdepth 1 -type d
  done | sort >"$out/cgroups"
  for h in "${WATCHED_PATHS[@]}"; do [[ -e "$h" ]] && echo "$h"; done >"$out/paths"
  true
}

# host_diff BEFORE AFTER: prints what differs, fails if anything does.
host_diff() {
  local f status=0
  for f in sysctl nft iptables mounts links routes cgroups paths; do
    if ! diff -u "$1/$f" "$2/$f" >"$2/$f.diff" 2>&1; then
      say "host $f differ from before the node started:"
      sed -n '3,40p' "$2/$f.diff" >&2
      status=1
    fi
  done
  return $status
}

sysctl_path() { local k=${1//./\#}; k=${k//\//.}; echo "/proc/sys/${k//\#//}"; }

# Puts back every sysctl whose value changed since BEFORE and is writable; logs each one.
restore_sysctls() {
  local before=$1 key value path current
  while IFS= read -r line; do
    key=${line%% = *} value=${line#* = }
    path=$(sysctl_path "$key")
    [[ -w "$path" ]] || continue
    current=$(cat "$path" 2>/dev/null) || continue
    [[ "$current" == "$value" ]] && continue
    printf '%s\n' "$value" >"$path" 2>/dev/null && echo "$key: $current -> $value" >>"$STATE/restored-sysctls"
  done <"$before/sysctl"
  [[ -f "$STATE/restored-sysctls" ]] && say "restored sysctls: $(tr '\n' ';' <"$STATE/restored-sysctls")"
  true
}

# Netfilter tables that did not exist before the node started: kube-proxy's own are deleted;
# iptables' standard tables (made by the kubelet's canary chains) are deleted only when nothing
# but KUBE-/CNI- chains has rules in them, so nobody else's rules are ever touched.
restore_netfilter() {
  local before=$1 family name
  command -v nft >/dev/null || return 0
  nft list tables 2>/dev/null | while read -r _ family name; do
    grep -q "^table $family $name {" "$before/nft" && continue
    case "$name" in
      kube-proxy|"$NFT_TABLE") nft delete table "$family" "$name" 2>/dev/null ;;
      filter|nat|mangle|raw|security)
        if nft list table "$family" "$name" 2>/dev/null | awk '
             /^\tchain / { chain = $2; next }
             /^\t\t(type|policy) / || /^\t*}/ || /^table/ || NF == 0 { next }
             chain !~ /^(KUBE-|CNI-)/ && $0 !~ /(jump|goto) (KUBE-|CNI-)/ { others++ }
             END { exit others > 0 }'; then
          nft delete table "$family" "$name" 2>/dev/null   # iptables-nft's "do not touch" note
        else
          say "left table $family $name: it has rules that are not the node's"
        fi ;;
    esac
  done
}
