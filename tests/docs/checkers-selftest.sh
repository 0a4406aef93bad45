#!/usr/bin/env bash
# The two checkers must be able to fail: each forbidden form, planted in a small fixture tree,
# is reported, and the allowed forms (our own anchors, an upstream issue URL, a plain section
# sign) pass. The forbidden strings are assembled from pieces so this file does not hold them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/docs-checkers.XXXXXX")
trap 'rm -rf "$work"' EXIT
sect=$(printf '\302\247')   # the section sign
page=behaviour.md            # links into the fixture page, kept apart from the real ones
failures=0

expect() {  # expect pass|fail NAME CHECKER ROOT [TEXT the report must contain]
  local want=$1 name=$2 checker=$3 root=$4 text=${5:-} got=pass
  "$here/$checker" "$root" >"$work/out" 2>&1 || got=fail
  if [ "$got" = fail ] && [ -n "$text" ] && ! grep -qF -- "$text" "$work/out"; then
    echo "FAIL $name: $checker failed without reporting \"$text\":"; sed 's/^/  /' "$work/out"
    failures=$((failures + 1))
  elif [ "$got" != "$want" ]; then
    echo "FAIL $name: $checker should $want, did $got:"; sed 's/^/  /' "$work/out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

fixture() {  # fixture NAME TEXT: a tree with one clean behaviour page and one file holding TEXT
  local root="$work/$1"
  mkdir -p "$root/docs" "$root/src"
  printf '# Page\n\n<a id="rule-one"></a>\n## Some heading\n\nSee [it](#rule-one) and [that](#some-heading).\n' \
    >"$root/docs/behaviour.md"
  printf '%s\n' "$2" >"$root/src/file.cpp"
  printf '%s' "$root"
}

c=check-no-outside-citations.sh
expect fail section_sign_with_number "$c" "$(fixture s1 "// see ${sect}3.8 step 2")" src/file.cpp:1:
expect fail part_a_item "$c" "$(fixture s2 "// Par""t A 7: requeue")" src/file.cpp:1:
expect fail design_document_name "$c" "$(fixture s3 "// BEHAV""IOUR says so")" src/file.cpp:1:
expect fail architecture_name "$c" "$(fixture s4 "# ARCHITEC""TURE.md")" src/file.cpp:1:
expect fail issue_number "$c" "$(fixture s5 "# The soak (iss""ue 11)")" src/file.cpp:1:
expect fail issue_number_capitalised "$c" "$(fixture s6 "# Iss""ue #8: done when")" src/file.cpp:1:
expect pass clean_tree "$c" "$(fixture s7 "// see docs/${page}#rule-one")"
expect pass upstream_issue_url "$c" "$(fixture s8 "// https://github.com/kubernetes/kubernetes/issues/12345")"
expect pass section_sign_alone "$c" "$(fixture s9 "EXPECT_EQ(parse(\"${sect}\"), std::nullopt);")"

a=check-behaviour-anchors.sh
expect pass existing_anchor "$a" "$(fixture a1 "// docs/${page}#rule-one and ../docs/${page}#some-heading")"
expect fail missing_anchor "$a" "$(fixture a2 "// docs/${page}#rule-two")" 'no anchor "rule-two"'
root=$(fixture a3 "")
printf '\n[broken](#nowhere)\n' >>"$root/docs/behaviour.md"
expect fail missing_anchor_inside_the_page "$a" "$root" 'no anchor "nowhere"'
root=$(fixture a4 "")
printf '\n<a id="rule-one"></a>\n' >>"$root/docs/behaviour.md"
expect fail anchor_defined_twice "$a" "$root" "defined twice: rule-one"
root=$(fixture a5 "")
rm "$root/docs/behaviour.md"
expect fail page_missing "$a" "$root" "does not exist"

[ "$failures" -eq 0 ] || { echo "$failures self-test case(s) failed"; exit 1; }
echo "all self-test cases passed"
