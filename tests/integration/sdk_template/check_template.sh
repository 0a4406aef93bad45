#!/usr/bin/env bash
# check_template.sh BUILD_DIR SOURCE_DIR DB_AUTOSCALER [SDK_PREFIX]
# Installs the SDK from BUILD_DIR into a scratch prefix (or uses SDK_PREFIX, where a package put
# it), builds the installed template out of tree against it (as a third party would, with
# nothing from the source tree on its include path), runs the template's own tests, and has the
# host accept the resulting plugin.
set -euo pipefail
build_dir=$1; source_dir=$2; host=$3; prefix=${4:-}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

if [[ -z "$prefix" ]]; then
  prefix=$work/prefix
  cmake --install "$build_dir" --prefix "$prefix" >/dev/null
fi
[[ -f "$prefix/share/dha-sdk/template/CMakeLists.txt" ]] || { echo "no template in $prefix/share/dha-sdk"; exit 1; }
cp -r "$prefix/share/dha-sdk/template" "$work/acmedb"   # a copy, as the tutorial starts
# An SDK built with -DDHA_SANITIZE=ON ships sanitized kit libraries: the template must link the
# same runtime, as an author's sanitizer CI job would.
sanitize=()
if grep -q '^DHA_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  sanitize=(-DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer")
fi
cmake -S "$work/acmedb" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  "${sanitize[@]}" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
# The template's own tests, kit included: FakeHost/PluginUnderTest, the VictoriaMetrics-backed
# queries and the pipeline harness ("with this load AcmeDB scales 3 -> 4", and what must not scale).
ctest --test-dir "$work/build" --output-on-failure
for must_run in AcmeDbPlugin.RefusesBadConfigurationsWithAClearMessage \
                AcmeDbQueriesOnVictoriaMetrics.ReadConnectionsSumTheReplicasOfThisClusterOnly \
                AcmeDbPipeline.WithThisLoadAcmeDbScalesThreeToFour AcmeDbPipeline.LoadUnderTargetKeepsThreeReplicas \
                BackupWindowGate.HoldsWhatTheOpenWindowHoldsAndPassesTheRest \
                BackupWindowPipeline.AScaleDownWaitsForTheWindowToClose; do
  ctest --test-dir "$work/build" -N -R "^$must_run\$" | grep -q "Total Tests: 1" \
    || { echo "the template's test $must_run is missing"; exit 1; }
done

for so in acmedb.so gate/acmedb-backup-window.so; do
  exports=$(nm -D --defined-only "$work/build/$so" | awk '{print $3}' | sort -u | tr '\n' ' ')
  if [[ "$exports" != "dha_plugin_entry_v1 " ]]; then
    echo "$so must export only dha_plugin_entry_v1, exports: $exports"; exit 1
  fi
done
version=$(PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --modversion dha-sdk)
[[ "$version" == "1.3.0" ]] || { echo "pkg-config reports dha-sdk $version, expected 1.3.0"; exit 1; }

"$host" plugin check "$work/build/acmedb.so"
if rejected=$("$host" plugin check "$work/build/acmedb.so" --config '{"minQuorum": 0}' 2>&1) \
   || [[ "$rejected" != *"minQuorum must be at least 1"* ]]; then
  echo "a configuration the adapter rejects must fail plugin check with its message, got: $rejected"; exit 1
fi
# The template's second plugin kind, the backup window gate, is accepted the same way.
"$host" plugin check "$work/build/gate/acmedb-backup-window.so"
if rejected=$("$host" plugin check "$work/build/gate/acmedb-backup-window.so" --config '{"opensAt": "25:00"}' 2>&1) \
   || [[ "$rejected" != *'opensAt "25:00" is not a time of day HH:MM (UTC)'* ]]; then
  echo "a window the gate rejects must fail plugin check with its message, got: $rejected"; exit 1
fi
# The conformance runner installed with the SDK passes the template, as a vendor's CI would run it.
"$prefix/bin/dha-plugin-check" "$work/build/acmedb.so"
"$prefix/bin/dha-plugin-check" "$work/build/gate/acmedb-backup-window.so"
echo "template built out of tree against the installed SDK and accepted by the host"
