#!/usr/bin/env bash
# Runs COMMAND... with Debian 12's own kubectl (package kubernetes-client, 1.20) first on PATH:
# what a fresh Debian 12 has after `apt-get install kubernetes-client`, without installing it.
# The package is fetched once with `apt-get download` and unpacked into a cache outside the
# repository; the machine's installed packages are not touched.
#
#   debian-kubectl.sh COMMAND...
set -euo pipefail
(($#)) || { echo "usage: $0 COMMAND..." >&2; exit 2; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/db-autoscaler/debian-kubectl
kubectl=$cache/root/usr/bin/kubectl
if [[ ! -x "$kubectl" ]]; then
  mkdir -p "$cache"
  exec 9>"$cache/.lock"
  flock 9
  if [[ ! -x "$kubectl" ]]; then
    fetch=$(mktemp -d "$cache/fetch.XXXXXX")
    (cd "$fetch" && apt-get download -q kubernetes-client) ||
      { echo "debian-kubectl: apt-get download kubernetes-client failed (needs the Debian 12 archive)" >&2; exit 1; }
    dpkg-deb -x "$fetch"/kubernetes-client_*.deb "$fetch/root"
    rm -rf "$cache/root"
    mv "$fetch/root" "$cache/root"
    rm -rf "$fetch"
  fi
fi
version=$("$kubectl" version --client 2>/dev/null | sed -n 's/.*GitVersion:"\([^"]*\)".*/\1/p')
echo "debian-kubectl: $kubectl ($version) first on PATH" >&2
PATH=$(dirname "$kubectl"):$PATH exec "$@"
