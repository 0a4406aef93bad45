#!/usr/bin/env bash
# Runs a Go test suite of tests/chart in GOPATH mode against Debian's Go packages, offline.
#   run-go-tests.sh WORK_DIR unit     renderer + chart + Dockerfile tests (go vet first)
#   run-go-tests.sh WORK_DIR alerts   alert rules in a real vmalert against VictoriaMetrics
# WORK_DIR (in the build tree) holds the GOPATH links and the Go build cache.
set -euo pipefail
work=${1:?usage: $0 WORK_DIR unit|alerts}
suite=${2:?usage: $0 WORK_DIR unit|alerts}
source "$(dirname "$0")/go-env.sh"
cd "$charttest_src"
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
