#!/usr/bin/env bash
# Bounded libFuzzer runs of the parsers of outside data (ASan + UBSan + leak checking).
#   tests/fuzz/run.sh TARGET|all [SECONDS]     default 60 seconds per target
#   tests/fuzz/run.sh build                    only build every target
#   tests/fuzz/run.sh list                     the targets
# Exit status: 0 when every run ended on time without a finding; 1 when a target found a crash,
# a leak, an invariant violation, a timeout or ran out of memory (the input is saved as
# $DHA_FUZZ_ARTIFACTS/<target>/crash-*|leak-*|timeout-*|oom-*); 2 when the toolchain is missing.
#
# Environment:
#   DHA_FUZZ_BUILD_DIR   clang build of tests/fuzz (default: <repo>/build-fuzz)
#   DHA_FUZZ_ARTIFACTS   where reproducers go (default: $DHA_FUZZ_BUILD_DIR/artifacts)
#   DHA_FUZZ_CXX         the compiler (default: clang++-14)
#   DHA_FUZZ_SKIP_BUILD  1: use the binaries as built (ctest builds once, then runs in parallel)
# Reproduce a finding:  $DHA_FUZZ_BUILD_DIR/<target>_fuzzer <artifact file>
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${DHA_FUZZ_BUILD_DIR:-$root/build-fuzz}"
artifacts="${DHA_FUZZ_ARTIFACTS:-$build/artifacts}"
cxx="${DHA_FUZZ_CXX:-clang++-14}"

usage() { echo "usage: $0 TARGET|all [SECONDS] | build | list" >&2; exit 2; }

# A target is a folder with <name>_fuzzer.cpp (or the admission one) and a seed corpus.
targets() {
  for dir in "$here"/*/; do
    [[ -d "$dir/corpus" ]] && basename "$dir"
  done
}

[[ $# -ge 1 ]] || usage
if [[ "$1" == list ]]; then targets; exit 0; fi
what="$1"
seconds="${2:-60}"
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "error: SECONDS must be a positive integer" >&2; exit 2; }
if [[ "$what" == all || "$what" == build ]]; then
  mapfile -t selected < <(targets)
  # DHA_FUZZ_TARGETS="a b" narrows "all"/"build" (ctest builds only the targets CI runs).
  [[ -n "${DHA_FUZZ_TARGETS:-}" ]] && read -ra selected <<< "$DHA_FUZZ_TARGETS"
else
  [[ -d "$here/$what/corpus" ]] || { echo "error: no fuzz target '$what' (have: $(targets | tr '\n' ' '))" >&2; exit 2; }
  selected=("$what")
fi

if [[ "${DHA_FUZZ_SKIP_BUILD:-0}" != 1 ]]; then
  command -v "$cxx" >/dev/null ||
    { echo "error: $cxx not found; install the Debian packages clang-14 and libclang-rt-14-dev" >&2; exit 2; }
  runtime="$("$cxx" --print-runtime-dir)/libclang_rt.fuzzer-$(uname -m).a"
  [[ -f "$runtime" ]] ||
    { echo "error: libFuzzer runtime $runtime missing; install the Debian package libclang-rt-14-dev" >&2; exit 2; }
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
    "${launcher[@]}" >/dev/null
  cmake --build "$build" -j2 --target "${selected[@]/%/_fuzzer}"
fi
[[ "$what" == build ]] && exit 0

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
# halt_on_error makes every UBSan report a failure; ubsan.supp lists the known third-party ones.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$here/ubsan.supp}"

failed=()
for target in "${selected[@]}"; do
  binary="$build/${target}_fuzzer"
  [[ -x "$binary" ]] || { echo "error: $binary not built" >&2; exit 2; }
  out="$artifacts/$target"
  mkdir -p "$out"
  options=(-timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/")
  [[ -f "$here/$target/dictionary" ]] && options+=(-dict="$here/$target/dictionary")
  if [[ -n "${DHA_FUZZ_RUNS:-}" ]]; then
    # What ctest runs: the checked-in corpus (every finding goes there), then seed 1 for a
    # count of runs, with no clock, so a run depends neither on a fresh seed nor on the
    # machine's speed. libFuzzer's coverage feedback still varies a little between two runs
    # (485 and 488 inputs kept of 20000), so the mutations are nearly, not exactly, the same.
    corpus="$build/corpus-fixed/$target"
    rm -rf "$corpus" && mkdir -p "$corpus"
    cp "$here/$target/corpus/"* "$corpus/"
    options+=(-seed=1 -runs="$DHA_FUZZ_RUNS")
    echo "==> fuzz $target: the corpus and $DHA_FUZZ_RUNS runs of seed 1"
  else
    # A long run: a fresh seed, for SECONDS, on a working copy that keeps what it found (the
    # checked-in seed corpus stays small and reviewed).
    corpus="$build/corpus/$target"
    mkdir -p "$corpus"
    cp -n "$here/$target/corpus/"* "$corpus/" 2>/dev/null || true
    options+=(-max_total_time="$seconds")
    echo "==> fuzz $target for ${seconds}s"
  fi
  # libFuzzer stops itself after max_total_time; the outer limit only catches a wedged process.
  if timeout --kill-after=10 "$((seconds + 120))" "$binary" "${options[@]}" "$corpus"; then
    echo "==> $target: no crash, leak, timeout or invariant violation"
  else
    echo "==> $target: FAILED (reproducer in $out/)" >&2
    failed+=("$target")
  fi
done

if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
