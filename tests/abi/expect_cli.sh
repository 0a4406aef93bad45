#!/bin/sh
# expect_cli.sh EXPECTED_EXIT PATTERN -- COMMAND...
# Runs COMMAND and passes when it exits with EXPECTED_EXIT and its output (stdout+stderr)
# matches the extended regular expression PATTERN.
expected_exit=$1; pattern=$2; shift 3
output=$("$@" 2>&1); status=$?
if [ "$status" -ne "$expected_exit" ]; then
  echo "expected exit $expected_exit, got $status from: $*"; echo "$output"; exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  echo "output does not match /$pattern/ from: $*"; echo "$output"; exit 1
fi
