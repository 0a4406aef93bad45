#!/usr/bin/env bash
# Prints the repository's files under ROOT, one path per line relative to ROOT: what git tracks
# plus new files it does not ignore, or, outside a git checkout (a source tarball, a test's
# fixture), every file except .git and build trees.
set -euo pipefail
root=${1:?usage: list-repository-files.sh ROOT}
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
  git ls-files --cached --others --exclude-standard -z | tr '\0' '\n' | while IFS= read -r f; do
    [ -f "$f" ] && printf '%s\n' "$f"
  done
else
  find . -type d \( -name .git -o -name build -o -name 'build-*' \) -prune -o -type f -print | sed 's|^\./||'
fi
