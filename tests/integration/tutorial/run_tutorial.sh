#!/usr/bin/env bash
# run_tutorial.sh BUILD_DIR TUTORIAL.md
# Runs the tutorial's commands verbatim: every ```sh block directly after a
# "<!-- tutorial-test -->" line, in order, in one bash shell (set -euo pipefail), with HOME a
# fresh empty directory. The tutorial's first step, installing the SDK from a checkout, is done
# here from the already-built BUILD_DIR into "$HOME/dha-sdk" (the prefix the tutorial uses),
# since building the whole tree again would only repeat what CI just did.
set -euo pipefail
build_dir=$1; tutorial=$2
home=$(mktemp -d)
# A block that fails between `dha-dev-env --detach` and `--stop` leaves its environment running:
# stop every one under $HOME before removing it.
cleanup() {
  local pid_file
  while IFS= read -r pid_file; do
    "$home/dha-sdk/bin/dha-dev-env" --stop --dir "$(dirname "$pid_file")" || true
  done < <(find "$home" -name dev-env.pid 2>/dev/null)
  rm -rf "$home"
}
trap cleanup EXIT

script=$(awk '
  /<!-- tutorial-test -->/ { armed = 1; next }
  armed && /^```sh[[:space:]]*$/ { inside = 1; armed = 0; next }
  armed && !/^[[:space:]]*$/ { armed = 0 }
  inside && /^```[[:space:]]*$/ { inside = 0; print ""; next }
  inside { print }' "$tutorial")
blocks=$(grep -c '<!-- tutorial-test -->' "$tutorial" || true)
if [[ -z "$script" || "$blocks" -lt 2 ]]; then
  echo "$tutorial: expected tested \`\`\`sh blocks after <!-- tutorial-test --> markers, found $blocks"; exit 1
fi

cmake --install "$build_dir" --prefix "$home/dha-sdk" >/dev/null
# A sanitized build ships sanitized kit libraries; what the reader compiles must link the same
# runtime (CMake takes CXXFLAGS from the environment on a first configure).
if grep -q '^DHA_SANITIZE:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  export CXXFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer"
fi

echo "---- running $blocks tested blocks of $tutorial ----"
printf '%s\n' "$script"
echo "----"
cd "$home"
HOME="$home" CMAKE_BUILD_PARALLEL_LEVEL=2 bash -euo pipefail -c "$script"
echo "the tutorial's commands ran verbatim against the installed SDK"
