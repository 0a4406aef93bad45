#!/usr/bin/env python3
"""check_run_flags_documented.py DB_AUTOSCALER OPERATOR_MD

Every flag `db-autoscaler run --help` lists has a row in docs/operator.md's flag table (a flag
named in a row's first cell, aliases and "/"-joined groups included), and every flag the table
names is one `run` accepts: the table is neither missing a flag nor describing one that is gone.
"""
import re
import subprocess
import sys

binary, operator_md = sys.argv[1:3]
help_text = subprocess.run([binary, "run", "--help"], check=True, capture_output=True, text=True).stdout
# CLI11 lists an option as "  -x,--name TYPE ..." at the start of a line, aliases comma-joined.
accepted = set()
for line in help_text.splitlines():
    m = re.match(r"^\s{2}(-\S+)", line)
    if m:
        accepted.update(n for n in m.group(1).split(",") if n.startswith("--"))
accepted.discard("--help")

text = open(operator_md).read()
table = re.search(r"^## Flags\n(.*?)(?=^## |\Z)", text, re.M | re.S)
if not table:
    sys.exit(f"FAIL: {operator_md} has no '## Flags' section")
documented = set()
for row in table.group(1).splitlines():
    if row.startswith("| `--"):
        documented.update(re.findall(r"`(--[a-z0-9-]+)`", row.split("|")[1]))

problems = [f"`run` accepts {f}, which docs/operator.md's flag table does not describe" for f in sorted(accepted - documented)]
problems += [f"docs/operator.md's flag table describes {f}, which `run` does not accept" for f in sorted(documented - accepted)]
for p in problems:
    print("FAIL:", p)
if not accepted:
    sys.exit("FAIL: no flag read from `db-autoscaler run --help`: has its layout changed?")
print(f"{len(accepted)} flags of `run`, {len(documented)} in docs/operator.md")
sys.exit(1 if problems else 0)
