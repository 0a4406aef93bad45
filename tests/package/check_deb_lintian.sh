#!/usr/bin/env bash
# check_deb_lintian.sh BUILD_DIR PACKAGE COMPONENTS
# One package, built by CPack from BUILD_DIR with only its install COMPONENTS (comma-separated),
# passes Debian's own checker: lintian reports no error and no warning (informational tags, such
# as the hardening flags a release build may add, are printed but pass).
#   check_deb_lintian.sh build/ci db-autoscaler operator,debian
#   check_deb_lintian.sh build/ci db-autoscaler-sdk sdk,sdk_debian
set -euo pipefail
build_dir=$1 package=$2 components=${3//,/;}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v lintian >/dev/null || fail "lintian is not installed (scripts/install-deps installs it)"

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
cpack --config "$build_dir/CPackConfig.cmake" -B "$work/debs" -D "CPACK_COMPONENTS_ALL=$components" \
  >"$work/cpack.out" 2>&1 || { cat "$work/cpack.out"; fail "cpack could not build $package"; }
deb=$work/debs/${package}_${version}_$(dpkg --print-architecture).deb
[[ -f "$deb" ]] || fail "cpack did not write $(basename "$deb"): $(ls "$work/debs")"
# Lintian's note that it runs as root is not about the package.
lintian --fail-on error,warning --display-info "$deb" 2>&1 | grep -v '^running with root privileges' \
  && rc=${PIPESTATUS[0]} || rc=${PIPESTATUS[0]}
((rc == 0)) || fail "lintian reports errors or warnings on $(basename "$deb") (exit $rc)"
echo "lintian: $(basename "$deb") has no error and no warning"
