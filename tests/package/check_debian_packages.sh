#!/usr/bin/env bash
# check_debian_packages.sh BUILD_DIR SOURCE_DIR
# Builds the Debian packages from BUILD_DIR with CPack, checks that apt would install them on this
# Debian (a simulated `apt-get install ./*.deb`: every dependency resolves), unpacks them into a
# scratch root with dpkg -x (a chroot with apt would take minutes) and uses them from there as a
# user would: `db-autoscaler version` finds its own plugin directory, every bundled plugin passes
# `plugin check`, the SDK's documentation is there with every link resolving inside the package,
# and the SDK template builds and passes its tests against the packaged SDK.
set -euo pipefail
build_dir=$1; source_dir=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
cpack --config "$build_dir/CPackConfig.cmake" -B "$work/debs" >"$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log"; fail "cpack could not build the packages"; }
arch=$(dpkg --print-architecture)
operator_deb=$work/debs/db-autoscaler_${version}_${arch}.deb
sdk_deb=$work/debs/db-autoscaler-sdk_${version}_${arch}.deb
for deb in "$operator_deb" "$sdk_deb"; do
  [[ -f "$deb" ]] || fail "cpack did not write $(basename "$deb"); it wrote: $(ls "$work/debs")"
done
echo "built $(cd "$work/debs" && ls ./*.deb | tr '\n' ' ')"
# Each package says what it is: the SDK's description is its own, not the operator's.
[[ "$(dpkg-deb --field "$sdk_deb" Description)" == "SDK for db-autoscaler plugins"* ]] \
  || fail "db-autoscaler-sdk's description is not the SDK's: $(dpkg-deb --field "$sdk_deb" Description)"
[[ "$(dpkg-deb --field "$operator_deb" Description)" == "Read-replica autoscaler"* ]] \
  || fail "db-autoscaler's description: $(dpkg-deb --field "$operator_deb" Description)"

depends=$(dpkg-deb --field "$operator_deb" Depends)
for lib in libc6 libstdc++6 libcurl4 libssl3; do
  [[ "$depends" == *"$lib"* ]] || fail "db-autoscaler does not depend on $lib: $depends"
done
# apt resolves the dependencies against this machine's package lists without installing
# anything: the packages are installable with `apt install ./*.deb`.
if command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
  apt-get install --simulate --no-install-recommends "$operator_deb" "$sdk_deb" >"$work/apt.log" 2>&1 \
    || { cat "$work/apt.log"; fail "apt cannot install the packages"; }
  grep -q '^Inst db-autoscaler ' "$work/apt.log" && grep -q '^Inst db-autoscaler-sdk ' "$work/apt.log" \
    || { cat "$work/apt.log"; fail "apt's plan does not install both packages"; }
fi

root=$work/root
dpkg -x "$operator_deb" "$root"
dpkg -x "$sdk_deb" "$root"

# The operator finds the plugins of its own installation: nothing tells it where they are.
host=$root/usr/bin/db-autoscaler
out=$("$host" version)
echo "$out"
[[ "$out" == "db-autoscaler $version "* ]] || fail "version prints: $out"
plugin_dir=$root/usr/lib/db-autoscaler/plugins
[[ "$out" == *"plugin directory: $plugin_dir"* ]] || fail "the default plugin directory is not $plugin_dir: $out"

# Every bundled plugin (a folder of plugins/ with a CMakeLists.txt) is packaged and accepted.
count=0
for folder in "$source_dir"/plugins/*/CMakeLists.txt; do
  name=$(basename "$(dirname "$folder")")
  [[ -f "$plugin_dir/$name.so" ]] || fail "the package lacks the bundled plugin $name.so"
  "$host" plugin check "$plugin_dir/$name.so" >/dev/null || fail "plugin check refuses $name.so"
  count=$((count + 1))
done
extra=$(find "$plugin_dir" -name '*.so' | wc -l)
((extra == count)) || fail "the package has $extra plugins, the source tree $count: $(ls "$plugin_dir")"
echo "plugin check accepts all $count bundled plugins"

# Listed once into variables: `dpkg-deb --contents | grep -q` fails under pipefail when grep
# stops reading early (dpkg-deb dies of SIGPIPE).
operator_contents=$(dpkg-deb --contents "$operator_deb")
sdk_contents=$(dpkg-deb --contents "$sdk_deb")
for tool in dha-plugin-check dha-apiserver dha-world-sim dha-dev-env; do
  [[ -x "$root/usr/bin/$tool" ]] || fail "the SDK package lacks $tool"
  ! grep -q "/$tool\$" <<<"$operator_contents" || fail "$tool is in the operator package"
done
"$root/usr/bin/dha-plugin-check" "$plugin_dir/postgres.so" >/dev/null \
  || fail "packaged dha-plugin-check refuses postgres.so"

# The SDK's documentation is installed, and every relative link in it (sdk/README.md to
# testing/README.md, the tutorial to the template...) resolves inside the package.
doc=usr/share/doc/dha-sdk
python3 "$source_dir/tests/package/check_installed_doc_links.py" "$root" "$doc/sdk/README.md" \
  "$doc/sdk/testing/README.md" "$doc/sdk/CHANGELOG.md" "$doc/docs/abi.md" "$doc/docs/writing-an-engine-adapter.md" \
  || fail "the installed documentation has links that do not resolve inside the package"
grep -q "/$doc/sdk/testing/README.md\$" <<<"$sdk_contents" \
  || fail "the SDK package lacks $doc/sdk/testing/README.md"

# The operator package is an install: the CRD to apply and the operator's documentation.
crd=usr/share/db-autoscaler/crds/autoscaling.cozystack.io_databasehorizontalautoscalers.yaml
cmp -s "$root/$crd" "$source_dir/charts/db-autoscaler/crds/$(basename "$crd")" \
  || fail "the operator package lacks the chart's CRD at /$crd"
for doc in README.md docs/operator.md docs/behaviour.md docs/status.md docs/webhook.md; do
  grep -q "/usr/share/doc/db-autoscaler/$doc\$" <<<"$operator_contents" || fail "the operator package lacks /usr/share/doc/db-autoscaler/$doc"
done

"$source_dir/tests/integration/sdk_template/check_template.sh" "$build_dir" "$source_dir" "$host" "$root/usr"
echo "the Debian packages install and work"
