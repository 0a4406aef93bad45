#!/usr/bin/env bash
# Runs COMMAND... on a PATH where no directory holds a kubectl: what a fresh machine without
# kubernetes-client or any other kubectl has. Each PATH directory that holds one is replaced by a
# scratch directory of links to everything else in it; the machine's files are not touched.
#
#   no-kubectl.sh COMMAND...
set -euo pipefail
(($#)) || { echo "usage: $0 COMMAND..." >&2; exit 2; }
shadow=$(mktemp -d "${TMPDIR:-/tmp}/dha-no-kubectl.XXXXXX")
trap 'rm -rf "$shadow"' EXIT
path="" i=0
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  if [[ -n "$dir" && -e "$dir/kubectl" ]]; then
    i=$((i + 1))
    mkdir "$shadow/$i"
    find "$dir/" -mindepth 1 -maxdepth 1 ! -name kubectl -exec ln -s -t "$shadow/$i" {} +
    dir=$shadow/$i
  fi
  path=${path:+$path:}$dir
done
export PATH=$path
if found=$(command -v kubectl); then
  echo "no-kubectl: a kubectl is still on PATH: $found" >&2
  exit 1
fi
echo "no-kubectl: no kubectl on PATH" >&2
# Not exec: the scratch directories must outlive COMMAND and go after it.
"$@"
