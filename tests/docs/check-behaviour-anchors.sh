#!/usr/bin/env bash
# Fails when a link to docs/behaviour.md#<anchor> anywhere in the repository (or a "#<anchor>"
# link inside docs/behaviour.md itself) names an anchor the page does not have, or when the page
# defines an anchor twice. Anchors are explicit <a id="..."></a> elements and the slugs of the
# headings (as GitHub makes them: lower case, punctuation dropped, spaces to hyphens).
#
# Usage: check-behaviour-anchors.sh ROOT
set -euo pipefail
root=${1:?usage: check-behaviour-anchors.sh ROOT}
here=$(cd "$(dirname "$0")" && pwd)
page="$root/docs/behaviour.md"
export LC_ALL=C
[ -f "$page" ] || { echo "error: $page does not exist" >&2; exit 1; }

explicit=$(grep -oP '<a id="\K[^"]+(?=")' "$page" || true)
# Headings outside fenced code blocks. An explicit id may repeat its heading's slug.
headings=$(awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$page" |
  tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g')
declare -A anchors=()
while IFS= read -r a; do [ -n "$a" ] && anchors[$a]=1; done <<<"$(printf '%s\n%s\n' "$explicit" "$headings")"
status=0
if dups=$(printf '%s\n' "$explicit" | sed '/^$/d' | sort | uniq -d) && [ -n "$dups" ]; then
  printf 'docs/behaviour.md: <a id> defined twice: %s\n' $dups
  status=1
fi

# file:line:anchor for every link: ](#anchor) inside the page, behaviour.md then #anchor anywhere.
refs=$(
  cd "$root"
  grep -noP '\]\(#\K[A-Za-z0-9_-]+(?=\))' docs/behaviour.md | sed 's|^|docs/behaviour.md:|' || true
  "$here/list-repository-files.sh" . | tr '\n' '\0' |
    xargs -0 -r grep -noIHP 'behaviour\.md#\K[A-Za-z0-9_-]+' || true
)
links=0
while IFS=: read -r file line anchor; do
  [ -n "$file" ] || continue
  links=$((links + 1))
  if [ -z "${anchors[$anchor]:-}" ]; then
    printf '%s:%s: no anchor "%s" in docs/behaviour.md\n' "$file" "$line" "$anchor"
    status=1
  fi
done <<<"$refs"

if [ "$status" -ne 0 ]; then
  echo "error: broken links into docs/behaviour.md (anchors are stable: fix the link, or add the anchor back)" >&2
  exit 1
fi
echo "$links links into docs/behaviour.md, all to existing anchors"
