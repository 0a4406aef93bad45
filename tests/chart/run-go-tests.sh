#!/usr/bin/env bash
# Runs a Go test suite of tests/chart in GOPATH mode against Debian's Go packages, offline.
#   run-go-tests.sh WORK_DIR unit     renderer + chart + Dockerfile tests (go vet first)
#   run-go-tests.sh WORK_DIR alerts   alert rules in a real vmalert against VictoriaMetrics
#   run-go-tests.sh WORK_DIR apply    kubectl apply of the CRD and manifests to dha-apiserver
#                                     (DHA_APISERVER_BIN names the binary)
# WORK_DIR (in the build tree) holds the GOPATH links and the Go build cache.
set -euo pipefail
work=${1:?usage: $0 WORK_DIR unit|alerts|apply}
suite=${2:?usage: $0 WORK_DIR unit|alerts|apply}
source "$(dirname "$0")/go-env.sh"
cd "$charttest_src"
case "$suite" in
  unit)
    go vet dha.local/charttest/helmrender dha.local/charttest/cmd/dha-chart-render dha.local/charttest \
      dha.local/charttest/alerts dha.local/charttest/apply
    go test -count=1 dha.local/charttest/helmrender dha.local/charttest
    ;;
  alerts)
    go test -count=1 -v dha.local/charttest/alerts
    ;;
  apply)
    go test -count=1 -v dha.local/charttest/apply
    ;;
  *) echo "unknown suite $suite" >&2; exit 2 ;;
esac
