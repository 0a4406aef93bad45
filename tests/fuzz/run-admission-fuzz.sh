#!/usr/bin/env bash
# Bounded libFuzzer run of the AdmissionReview handler (ASan + UBSan + leak checking).
#   tests/fuzz/run-admission-fuzz.sh [SECONDS]      default 60
# Exit status is non-zero when the fuzzer finds a crash, a leak, an invariant violation or a
# timeout; the reproducer is written to $DHA_FUZZ_ARTIFACTS (default: the build dir).
# Needs clang-14 and libclang-rt-14-dev (Debian).
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${DHA_FUZZ_BUILD_DIR:-$root/build-fuzz-admission}"
artifacts="${DHA_FUZZ_ARTIFACTS:-$build/artifacts}"
cxx="${DHA_FUZZ_CXX:-clang++-14}"

command -v "$cxx" >/dev/null || { echo "error: $cxx not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }

cmake -S "$root/tests/fuzz/admission" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$build" -j2

# Work on a copy: the checked-in seed corpus stays small and reviewed.
corpus="$build/corpus"
mkdir -p "$corpus" "$artifacts"
cp -n "$root/tests/fuzz/admission/corpus/"* "$corpus/" 2>/dev/null || true

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
# halt_on_error turns every UBSan report into a failure; the suppression covers one known
# RapidJSON 1.1.0 defect (see admission/ubsan.supp).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$root/tests/fuzz/admission/ubsan.supp}"
"$build/admission_review_fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus"
echo "admission fuzz: ${seconds}s without a crash, leak or invariant violation"
