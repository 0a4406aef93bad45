#!/bin/bash
# scripts/check-include-graph fails on each thing it guards against, planted in a fixture tree:
# a folder-level cycle, an include docs/layout.md does not allow, an allowed include nobody makes;
# and passes on a tree that is as its layout page says.
set -uo pipefail
check="$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-include-graph"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# A tree with core/a including core/b, and the layout page allowing `allowed`.
tree() {
  rm -rf "$tmp/tree" && mkdir -p "$tmp/tree/core/a" "$tmp/tree/core/b" "$tmp/tree/docs"
  echo '#include "b/y.hpp"' > "$tmp/tree/core/a/x.hpp"
  echo '#include <vector>' > "$tmp/tree/core/b/y.hpp"
  printf '# Layout\n\n```allowed-includes\n%b```\n' "$1" > "$tmp/tree/docs/layout.md"
}

expect() {  # expect PASS|FAIL TEXT NAME
  out=$(python3 "$check" "$tmp/tree" 2>&1)
  rc=$?
  if { [ "$1" = PASS ] && [ $rc -ne 0 ]; } || { [ "$1" = FAIL ] && [ $rc -eq 0 ]; } || ! grep -q -- "$2" <<<"$out"; then
    echo "FAIL $3: expected $1 with \"$2\", got exit $rc:"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok $3"
  fi
}

tree 'core/a: core/b\n'
expect PASS "no cycle, each allowed" "a tree as its page says"

tree 'core/a: core/b\ncore/b: core/a\n'
echo '#include "a/x.hpp"' >> "$tmp/tree/core/b/y.hpp"
expect FAIL "folder-level include cycle among core/a, core/b" "a cycle"

tree '\n'
expect FAIL "core/a includes core/b, which docs/layout.md does not allow" "an edge the page does not allow"

tree 'core/a: core/b\ncore/b: core/a\n'
expect FAIL "allows core/b -> core/a, but no file of core/b includes" "an allowed edge nobody makes"

exit $((failures > 0))
