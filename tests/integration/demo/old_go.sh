#!/usr/bin/env bash
# A go command that reports Debian 12's Go 1.19, for checking that scripts/install-deps refuses it.
if [[ "$*" == "env GOVERSION" ]]; then echo go1.19.8; exit 0; fi
echo "old_go.sh: only 'env GOVERSION' is answered" >&2
exit 1
