#!/usr/bin/env bash
# check_compat.sh BUILD_DIR SOURCE_DIR: the SDK installed from BUILD_DIR into a scratch prefix;
# the SDK 1.0 template (sources and tests unchanged) and this SDK's template each built out of tree
# twice: against the installed headers, and against SDK 1.2.0's test-kit headers linked with this
# build's kit library. Every test of each build must pass (one prose comparison aside, README.md).
set -euo pipefail
build_dir=$1; source_dir=$2
here=$source_dir/tests/integration/sdk_compat
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
sanitize=""
if grep -q '^DHA_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt"; then sanitize="-fsanitize=address,undefined -fno-omit-frame-pointer"; fi

# build_and_test NAME PROJECT_DIR EXTRA_CXX_FLAGS CTEST_ARGS...
build_and_test() {
  local name=$1 project=$2 flags=$3
  shift 3
  cp -r "$project" "$work/$name-src"
  cmake -S "$work/$name-src" -B "$work/$name" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$flags $sanitize" >/dev/null
  cmake --build "$work/$name" -j2 >/dev/null
  local listed
  listed=$(ctest --test-dir "$work/$name" -N "$@" | sed -n 's/^Total Tests: //p')
  ((listed > 0)) || { echo "$name: no tests"; exit 1; }
  ctest --test-dir "$work/$name" --output-on-failure "$@" >"$work/$name.log" 2>&1 \
    || { cat "$work/$name.log"; echo "$name: tests failed"; exit 1; }
  echo "$name: $(grep -Eo '[0-9]+ tests passed, 0 tests failed out of [0-9]+|100% tests passed, 0 tests failed out of [0-9]+' "$work/$name.log")"
}

prose_only=(-E '^AcmeDbPipeline\.WithThisLoadAcmeDbScalesThreeToFour$')
old_kit="-I$here/kit-headers-1.2.0"
build_and_test sdk-1.0-template "$here/acmedb-sdk-1.0" "" "${prose_only[@]}"
build_and_test sdk-1.0-template-on-1.2.0-kit-headers "$here/acmedb-sdk-1.0" "$old_kit" "${prose_only[@]}"
build_and_test template-on-1.2.0-kit-headers "$prefix/share/dha-sdk/template" "$old_kit"
# The headers really were the old ones: the 1.2.0 pipeline.hpp has no event_records().
grep -q event_records "$here/kit-headers-1.2.0/dha/testing/pipeline.hpp" && { echo "kit-headers-1.2.0 is not 1.2.0"; exit 1; }
echo "code written against SDK 1.0 and SDK 1.2.0's kit builds and passes on this SDK"
