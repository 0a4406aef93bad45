# Images the node runs, made on this machine (no registry is reachable) and imported into the
# fixture's containerd.

# image_from_rootfs ROOTFS NAME:TAG ENTRYPOINT_JSON WORK: one-layer OCI image of ROOTFS.
image_from_rootfs() {
  local rootfs=$1 ref=$2 entrypoint=$3 work=$4
  local name=${ref%:*} tag=${ref##*:}
  rm -rf "$work/oci" "$work/bundle"
  umoci init --layout "$work/oci"
  umoci new --image "$work/oci:$tag"
  umoci unpack --image "$work/oci:$tag" "$work/bundle" >/dev/null
  cp -a "$rootfs/." "$work/bundle/rootfs/"
  umoci repack --image "$work/oci:$tag" "$work/bundle" >/dev/null
  umoci config --image "$work/oci:$tag" --config.entrypoint "$(jq_entry "$entrypoint")"
  umoci gc --layout "$work/oci"
  import_oci_layout "$work/oci" "$name"
  rm -rf "$work/bundle"
}

# umoci takes the entrypoint as one flag per word; this fixture's entrypoints are one word.
jq_entry() { local e=${1#[\"}; echo "${e%\"]}"; }

# import_oci_layout DIR NAME: every tag T in the layout becomes NAME:T in containerd.
import_oci_layout() {
  local dir=$1 name=$2
  tar -C "$dir" -cf "$dir.tar" .
  ctr_ images import --base-name "$name" "$dir.tar" >/dev/null
  rm -f "$dir.tar"
}

TOOLBOX_IMAGE=localhost/dha-toolbox:1

# A shell and a Kubernetes client for tests' Pods: Debian's static busybox and the machine's
# kubectl (with the shared libraries it links, if any), so a Pod can call the API server the way
# in-cluster clients do.
import_toolbox_image() {
  local work=$STATE/images/toolbox kubectl_bin applet lib
  kubectl_bin=$(readlink -f "$(command -v kubectl)")
  [[ -x /bin/busybox ]] || die "no /bin/busybox (package busybox-static)"
  rm -rf "$work" && mkdir -p "$work/rootfs/bin" "$work/rootfs/tmp" "$work/rootfs/etc"
  cp /bin/busybox "$work/rootfs/bin/busybox"
  for applet in sh cat echo ls sleep test touch nc wget grep sed id env; do ln -s busybox "$work/rootfs/bin/$applet"; done
  cp "$kubectl_bin" "$work/rootfs/bin/kubectl"
  for lib in $(ldd "$kubectl_bin" 2>/dev/null | grep -o '/[^ ]*' || true); do
    mkdir -p "$work/rootfs$(dirname "$lib")" && cp -L "$lib" "$work/rootfs$lib"
  done
  chmod 1777 "$work/rootfs/tmp"
  echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >"$work/rootfs/etc/passwd"
  image_from_rootfs "$work/rootfs" "$TOOLBOX_IMAGE" '["/bin/sh"]' "$work"
}
