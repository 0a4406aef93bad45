#!/usr/bin/env bash
# Fails when a file of the repository cites something a reader of the repository cannot open:
# a section of the design documents kept outside it (a number after the section sign, their
# two lettered parts, the documents' upper-case names) or one of our issue numbers (the
# word "issue" followed by a number).
# Say the thing, or link to docs/behaviour.md#<anchor> (or another document in the repository).
# An upstream project's issue is cited by its URL (".../issues/123"), which this does not match.
#
# Usage: check-no-outside-citations.sh ROOT
# The patterns below are written so that they do not match their own text (a character class
# around one letter), so this file needs no exemption.
set -euo pipefail
root=${1:?usage: check-no-outside-citations.sh ROOT}
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C

patterns=(
  '\xc2\xa7\s*[0-9]'                         # the section sign before a number
  '\bPar[t] [AB]\b'                          # the two parts of the behaviour document
  '\bBEHAVIO[U]?R\b|\bARCHITECTUR[E]\b|\bPEER[S]\.md\b|\bSTYL[E]\.md\b|shared/desig[n]'
  '(?i)\b[i]ssues?\s*#?\s*[0-9]+'            # "issue" with a number, "#" optional, any case
  '(?i)\b(?:p[r]|pull reques[t])\s*#\s*[0-9]+'
)
pattern=$(printf '(?:%s)|' "${patterns[@]}")
pattern=${pattern%|}

# One grep over every file (-I skips binary files). xargs says 123 when some grep matched
# nothing, so the verdict is whether anything was printed.
set +e
hits=$("$here/list-repository-files.sh" "$root" | (cd "$root" && tr '\n' '\0' | xargs -0 -r grep -nIHP -- "$pattern"))
rc=$?
set -e
[ "$rc" -eq 0 ] || [ "$rc" -eq 123 ] || { echo "error: the search failed (exit $rc)" >&2; exit 2; }
found=0
if [ -n "$hits" ]; then
  printf '%s\n' "$hits"
  found=1
fi

if [ "$found" -ne 0 ]; then
  echo "error: the lines above cite a document or an issue that is not in the repository;" >&2
  echo "say it in our own words or link to docs/behaviour.md#<anchor>" >&2
  exit 1
fi
echo "no citations of outside documents or issue numbers"
