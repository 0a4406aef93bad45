#!/usr/bin/env bash
# expect_failure.sh MESSAGE COMMAND...: passes when COMMAND exits non-zero and its output
# contains MESSAGE (bad input to scripts/demo must be a clear error, not a hang or a pass).
message=$1
shift
output=$("$@" 2>&1)
status=$?
if ((status == 0)); then
  echo "expected a failure, but it exited 0:"; echo "$output"; exit 1
fi
if [[ "$output" != *"$message"* ]]; then
  echo "exit $status, but the output lacks \"$message\":"; echo "$output"; exit 1
fi
echo "exit $status with \"$message\""
