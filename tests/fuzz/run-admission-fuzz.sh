#!/usr/bin/env bash
# Bounded libFuzzer run of the AdmissionReview handler (ASan + UBSan + leak checking).
#   tests/fuzz/run-admission-fuzz.sh [SECONDS]      default 60
# Kept for existing callers: a thin wrapper of tests/fuzz/run.sh, which builds and runs every
# parser's fuzzer the same way (see tests/fuzz/README.md). Needs clang-14 and libclang-rt-14-dev.
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" admission "${1:-60}"
