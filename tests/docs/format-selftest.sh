#!/usr/bin/env bash
# scripts/format --check fails on a file clang-format would change, names it, and leaves the
# frozen ABI headers alone; it refuses our headers included in angle brackets (except in the SDK
# 1.0 plugin copy); it passes once the file is formatted. Run on a throwaway git tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cd "$tree"
git init -q .
cp "$repo/.clang-format" .
mkdir -p sdk/include/dha src
printf 'abi-version 1.0\n0  include/dha/abi.h\n' >sdk/abi.lock
printf 'int   frozen (void);\n' >sdk/include/dha/abi.h        # unformatted, but locked
printf 'int f( int x ){return x;}\n' >src/bad.cpp
printf '#include <dha/sdk/plugin.hpp>\n' >src/angled.cpp           # formatted, but the wrong include style
mkdir -p tests/integration/sdk_compat
printf '#include <dha/sdk/plugin.hpp>\n' >tests/integration/sdk_compat/third_party.cpp  # kept as written
git add -A

if out=$("$repo/scripts/format" --check --root "$tree" 2>&1); then
  echo "FAIL: --check passed on an unformatted file"; echo "$out"; exit 1
fi
grep -q 'src/bad.cpp' <<<"$out" || { echo "FAIL: the unformatted file is not named"; echo "$out"; exit 1; }
grep -q 'src/angled.cpp:1:#include <dha/' <<<"$out" || { echo "FAIL: an angle-bracket include of ours is not named"; echo "$out"; exit 1; }
if grep -q 'third_party.cpp' <<<"$out"; then echo "FAIL: the SDK 1.0 plugin copy was checked"; echo "$out"; exit 1; fi
if grep -q 'abi.h' <<<"$out"; then echo "FAIL: a frozen ABI header was checked"; echo "$out"; exit 1; fi

"$repo/scripts/format" --root "$tree"
"$repo/scripts/format" --check --root "$tree" >/dev/null || { echo "FAIL: --check fails after formatting"; exit 1; }
grep -q 'int   frozen' sdk/include/dha/abi.h || { echo "FAIL: a frozen ABI header was rewritten"; exit 1; }
grep -qx '#include "dha/sdk/plugin.hpp"' src/angled.cpp || { echo "FAIL: the include was not rewritten in quotes"; cat src/angled.cpp; exit 1; }
grep -qx '#include <dha/sdk/plugin.hpp>' tests/integration/sdk_compat/third_party.cpp || { echo "FAIL: the SDK 1.0 plugin copy was rewritten"; exit 1; }
echo "format selftest passed"
