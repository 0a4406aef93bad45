#!/usr/bin/env bash
# Runs a Go test suite of tests/chart in GOPATH mode against Debian's Go packages, offline.
#   run-go-tests.sh WORK_DIR unit     renderer + chart + Dockerfile tests (go vet first)
#   run-go-tests.sh WORK_DIR alerts   alert rules in a real vmalert against VictoriaMetrics
# WORK_DIR (in the build tree) holds the GOPATH links and the Go build cache.
set -euo pipefail
work=${1:?usage: $0 WORK_DIR unit|alerts}
suite=${2:?usage: $0 WORK_DIR unit|alerts}
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
gocode=/usr/share/gocode/src

need() {
  echo "chart tests: $1 is missing; install the Debian packages golang-go" \
       "golang-github-masterminds-sprig-dev golang-gopkg-yaml.v2-dev golang-gopkg-yaml.v3-dev" \
       "golang-github-xeipuuv-gojsonschema-dev (scripts/install-deps)" >&2
  exit 1
}
command -v go >/dev/null || need "the go command"
for pkg in github.com/Masterminds/sprig github.com/Masterminds/semver gopkg.in/yaml.v2 gopkg.in/yaml.v3 \
           github.com/xeipuuv/gojsonschema; do
  [[ -d $gocode/$pkg ]] || need "$gocode/$pkg"
done

# GOPATH mode cannot resolve the /v3 import paths of sprig and semver by itself: link them, and
# the test sources under an import path of their own.
src=$work/gopath/src
mkdir -p "$src/dha.local" "$src/github.com/Masterminds/sprig" "$src/github.com/Masterminds/semver"
ln -sfn "$here" "$src/dha.local/charttest"
ln -sfn "$gocode/github.com/Masterminds/sprig" "$src/github.com/Masterminds/sprig/v3"
ln -sfn "$gocode/github.com/Masterminds/semver" "$src/github.com/Masterminds/semver/v3"

export GO111MODULE=off GOPATH="$work/gopath:/usr/share/gocode" GOCACHE="$work/gocache"
export GOFLAGS= GOPROXY=off CGO_ENABLED=0 DHA_SOURCE_DIR="$source_dir"
cd "$src/dha.local/charttest"
case "$suite" in
  unit)
    go vet dha.local/charttest/helmrender dha.local/charttest/cmd/dha-chart-render dha.local/charttest dha.local/charttest/alerts
    go test -count=1 dha.local/charttest/helmrender dha.local/charttest
    ;;
  alerts)
    go test -count=1 -v dha.local/charttest/alerts
    ;;
  *) echo "unknown suite $suite" >&2; exit 2 ;;
esac
