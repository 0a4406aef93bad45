# The operator's image from the repository's Dockerfile, built on this machine with Debian's
# buildah: the Dockerfile's base images are a debootstrap --variant=minbase of Debian 12 (no
# registry is reachable), imported under the names the Dockerfile asks for. Cached outside the
# repository: the base root filesystem by what decides its contents, buildah's layers by buildah.
#
# Two modes (DHA_REALNODE_IMAGE_BUILD):
#   runtime (default)  the Dockerfile's runtime stage as written — its apt-get, its user, the
#                      COPY of the binary and plugins, the ldd check, USER, ENTRYPOINT, CMD — with
#                      the build stage's output (/out) made by the same install command the build
#                      stage runs, from the build tree the tests already compiled ($DHA_BUILD_DIR),
#                      or a tree laid out as that command lays it ($DHA_REALNODE_BUILD_OUTPUT,
#                      holding usr/bin/db-autoscaler and usr/lib/db-autoscaler/plugins/).
#   full               the Dockerfile unchanged, both stages: the project compiled inside the
#                      image again (tens of minutes on 2 cores; not for every test run).
# DHA_REALNODE_IMAGE_WITHOUT_PLUGINS="NAME..." (runtime mode): the build stage's output without
# those bundled plugins (<name>.so), for tests of an image that lacks a plugin the chart asks for.

realnode_cache() { echo "${DHA_REALNODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/db-autoscaler/realnode}"; }

buildah_() {
  # A private mount namespace: buildah's overlay mounts never reach the host's table, even if
  # it is killed. chroot isolation: no runc, no cgroups, no network of its own (RUN uses the
  # host's, to reach the package archive as apt on the host does). Its network setup still
  # creates a CNI configuration directory with a lock file in it, /etc/cni/net.d by default: the
  # fixture's own containers.conf points it into the state directory.
  CONTAINERS_CONF=$(buildah_containers_conf) unshare --mount --propagation private -- \
    buildah --root "$(realnode_cache)/buildah" --runroot "$STATE/buildah-run" --storage-driver overlay "$@"
}

# The system's containers.conf with network_config_dir in $STATE (CONTAINERS_CONF replaces
# every other containers.conf, so the rest is the system's own).
buildah_containers_conf() {
  local conf=$STATE/buildah-containers.conf system=/usr/share/containers/containers.conf
  if [[ ! -f "$conf" ]]; then
    [[ -f /etc/containers/containers.conf ]] && system=/etc/containers/containers.conf
    grep -q '^#\{0,1\}network_config_dir = ' "$system" ||
      die "$system has no network_config_dir line to point buildah's CNI directory elsewhere"
    mkdir -p "$STATE/buildah-cni"
    sed "s|^#\{0,1\}network_config_dir = .*|network_config_dir = \"$STATE/buildah-cni\"|" "$system" >"$conf"
  fi
  echo "$conf"
}

# The minbase root filesystem as a tarball, keyed by what decides its contents: the suite, the
# variant, debootstrap's version and the archive index the host's apt last fetched.
debian_base_tarball() {
  local index=/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_InRelease key out
  [[ -f "$index" ]] || die "no $index: run apt-get update first (the base's cache key is the archive's index)"
  command -v debootstrap >/dev/null || die "no debootstrap (package debootstrap)"
  key=$( { echo bookworm minbase; debootstrap --version; grep -m1 '^Date' "$index"; } | sha256sum | cut -c1-16)
  out=$(realnode_cache)/debian-12-minbase-$key.tar
  if [[ ! -s "$out" ]]; then
    local root=$STATE/debootstrap
    say "debootstrap --variant=minbase bookworm (cached as $out)"
    rm -rf "$root"
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$STATE/logs/debootstrap.log" 2>&1 ||
      { tail -n 20 "$STATE/logs/debootstrap.log" >&2; die "debootstrap failed ($STATE/logs/debootstrap.log)"; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    mkdir -p "$(dirname "$out")"
    tar --numeric-owner -C "$root" -cf "$out.tmp" . && mv "$out.tmp" "$out"
    rm -rf "$root"
  fi
  echo "$out"
}

# Both base names the Dockerfile uses, as buildah images of the minbase tarball.
import_debian_base() {
  local tarball; tarball=$(debian_base_tarball)
  local id; id=$(basename "$tarball" .tar)
  if ! buildah_ images --quiet "localhost/$id" >/dev/null 2>&1; then
    # buildah names an image pulled from an OCI layout after the layout's resolved path, which
    # must therefore read as an image name: lowercase, no component starting with a dot (a
    # state directory from mktemp, or ~/.cache, is neither). A fixed path (one node at a time),
    # removed however this ends.
    local work=/tmp/dha-realnode-base-import
    trap 'rm -rf /tmp/dha-realnode-base-import' EXIT
    rm -rf "$work" && mkdir -p "$work/rootfs"
    tar --numeric-owner -C "$work/rootfs" -xf "$tarball"
    umoci init --layout "$work/oci" && umoci new --image "$work/oci:base"
    umoci unpack --image "$work/oci:base" "$work/bundle" >/dev/null
    cp -a "$work/rootfs/." "$work/bundle/rootfs/"
    umoci repack --image "$work/oci:base" "$work/bundle" >/dev/null
    umoci config --image "$work/oci:base" --config.cmd bash >/dev/null
    local image; image=$(buildah_ pull --quiet "oci:$work/oci:base" | tail -n 1)
    buildah_ tag "$image" "localhost/$id"
    rm -rf "$work"
    trap - EXIT
  fi
  buildah_ tag "localhost/$id" docker.io/library/debian:12 docker.io/library/debian:12-slim
}

# The runtime mode's stand-in for the build stage: an image holding /out as the build stage's
# `cmake --install --component operator --strip` lays it out.
prebuilt_build_stage() {
  local build_dir=$1 out=$STATE/images/out
  rm -rf "$out" && mkdir -p "$out"
  if [[ -n "${DHA_REALNODE_BUILD_OUTPUT:-}" ]]; then
    cp -a "$DHA_REALNODE_BUILD_OUTPUT" "$out/out"
  else
    [[ -f "$build_dir/CMakeCache.txt" ]] || die "no build tree at $build_dir (set DHA_BUILD_DIR to a configured, built tree)"
    DESTDIR="$out/out" cmake --install "$build_dir" --prefix /usr --component operator --strip >/dev/null
  fi
  [[ -x "$out/out/usr/bin/db-autoscaler" ]] || die "no usr/bin/db-autoscaler in the build stage's output (build the operator first)"
  local plugin
  for plugin in ${DHA_REALNODE_IMAGE_WITHOUT_PLUGINS:-}; do
    rm "$out/out/usr/lib/db-autoscaler/plugins/$plugin.so" ||
      die "DHA_REALNODE_IMAGE_WITHOUT_PLUGINS: no bundled plugin $plugin.so to leave out"
  done
  local c; c=$(buildah_ from scratch)
  buildah_ copy "$c" "$out/out" /out >/dev/null
  buildah_ commit --quiet --rm "$c" localhost/dha-operator-build-output:latest >/dev/null
  rm -rf "$out"
}

# build_operator_image REF: builds the Dockerfile into containerd as REF.
build_operator_image() {
  local ref=$1 mode=${DHA_REALNODE_IMAGE_BUILD:-runtime} dockerfile=$REPO_ROOT/Dockerfile context=$REPO_ROOT
  command -v buildah >/dev/null || die "no buildah (package buildah)"
  mkdir -p "$STATE/buildah-run" "$(realnode_cache)"
  import_debian_base
  if [[ "$mode" == runtime ]]; then
    prebuilt_build_stage "${DHA_BUILD_DIR:-$REPO_ROOT/build/ci}"
    # The build stage (from its FROM to the next FROM) becomes the prebuilt output; the runtime
    # stage is the Dockerfile's own text.
    dockerfile=$STATE/images/Dockerfile.runtime
    awk '/^FROM .* AS build$/ { print "FROM localhost/dha-operator-build-output:latest AS build"; skip = 1; next }
         /^FROM / { skip = 0 } !skip' "$REPO_ROOT/Dockerfile" >"$dockerfile"
    grep -q '^FROM localhost/dha-operator-build-output:latest AS build$' "$dockerfile" ||
      die "the Dockerfile has no 'FROM ... AS build' stage to stand in for"
    context=$STATE/images/empty-context && mkdir -p "$context"
  elif [[ -n "${DHA_REALNODE_IMAGE_WITHOUT_PLUGINS:-}" ]]; then
    die "DHA_REALNODE_IMAGE_WITHOUT_PLUGINS needs DHA_REALNODE_IMAGE_BUILD=runtime"
  elif [[ "$mode" != full ]]; then
    die "DHA_REALNODE_IMAGE_BUILD=$mode: want runtime or full"
  fi
  say "buildah bud $mode: $dockerfile"
  build_dockerfile "$dockerfile" "$context" "$ref" image-build
}

# build_dockerfile DOCKERFILE CONTEXT REF LOG: any Dockerfile on the Debian base above (its FROM
# names docker.io/library/debian:12 or :12-slim) built with buildah's layer cache and imported
# into the node's containerd as REF; buildah's output in $STATE/logs/LOG.log.
build_dockerfile() {
  local dockerfile=$1 context=$2 ref=$3 log=$STATE/logs/$4.log
  command -v buildah >/dev/null || die "no buildah (package buildah)"
  mkdir -p "$STATE/buildah-run" "$STATE/images" "$(realnode_cache)"
  import_debian_base
  buildah_ bud --isolation chroot --network host --layers --pull=never \
    -f "$dockerfile" -t "$ref" "$context" >"$log" 2>&1 ||
    { tail -n 30 "$log" >&2; die "$dockerfile did not build ($log)"; }
  local archive; archive=$STATE/images/$(basename "$log" .log).tar
  buildah_ push --quiet "$ref" "oci-archive:$archive:${ref##*:}" >/dev/null
  ctr_ images import --base-name "${ref%:*}" "$archive" >/dev/null
  rm -f "$archive"
}
