#!/usr/bin/env bash
# scripts/format --check fails on a file clang-format would change, names it, and leaves the
# frozen ABI headers alone; it passes once the file is formatted. Run on a throwaway git tree.
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
git add -A

if out=$("$repo/scripts/format" --check --root "$tree" 2>&1); then
  echo "FAIL: --check passed on an unformatted file"; echo "$out"; exit 1
fi
grep -q 'src/bad.cpp' <<<"$out" || { echo "FAIL: the unformatted file is not named"; echo "$out"; exit 1; }
if grep -q 'abi.h' <<<"$out"; then echo "FAIL: a frozen ABI header was checked"; echo "$out"; exit 1; fi

"$repo/scripts/format" --root "$tree"
"$repo/scripts/format" --check --root "$tree" >/dev/null || { echo "FAIL: --check fails after formatting"; exit 1; }
grep -q 'int   frozen' sdk/include/dha/abi.h || { echo "FAIL: a frozen ABI header was rewritten"; exit 1; }
echo "format selftest passed"
