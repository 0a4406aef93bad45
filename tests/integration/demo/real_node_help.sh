#!/usr/bin/env bash
# real_node_help.sh DEMO: `DEMO --real-node --help` exits 0 at once, starts nothing, and tells a
# user what the real-node demo does to the machine and how long it takes.
demo=$1
output=$("$demo" --real-node --help 2>&1)
status=$?
if ((status != 0)); then
  echo "exit $status:"; echo "$output"; exit 1
fi
missing=()
for phrase in "needs root" "dha-br0" "nftables" "iptables" "cgroups" "undone" "Ctrl-C" \
              "minutes" "CloudNativePG" "PostgreSQL 15" "2 -> 3 -> 4 -> 3 -> 2"; do
  [[ "$output" == *"$phrase"* ]] || missing+=("$phrase")
done
if ((${#missing[@]})); then
  echo "the help lacks: ${missing[*]}"; echo "$output"; exit 1
fi
echo "the help names the root, the bridge, the netfilter tables, the cgroups, the undo and the time"
