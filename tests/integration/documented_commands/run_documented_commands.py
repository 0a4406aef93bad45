#!/usr/bin/env python3
"""Runs the commands the documentation shows, and checks they print what it says.

  run_documented_commands.py BIN_DIR SOURCE_DIR DOC.md...

Every ```console block directly after a "<!-- offline-test -->" line is run: each "$ command"
(with "\\" continuations; a trailing "# comment" is dropped) runs in bash from SOURCE_DIR, with
BIN_DIR first on PATH, and must exit 0, or N when its comment ends in "exits N". The lines after
a command are its documented output (stdout and stderr): with all whitespace ignored, the parts
between "..." elisions must appear in the real output, in order. Commands that need a cluster or the network are not marked, and not run.
"""
import os
import re
import subprocess
import sys

bin_dir, source, docs = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
failures, ran = [], 0


def blocks(text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() != "<!-- offline-test -->":
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or lines[j].strip() != "```console":
            failures.append(f"marker at line {i + 1} is not followed by a ```console block")
            continue
        body = []
        for k in range(j + 1, len(lines)):
            if lines[k].strip() == "```":
                break
            body.append(lines[k])
        yield i + 1, body


def commands(body):
    """(command, expected output lines) pairs of one console block."""
    out, i = [], 0
    while i < len(body):
        if not body[i].startswith("$ "):
            i += 1
            continue
        cmd = body[i][2:]
        while cmd.rstrip().endswith("\\") and i + 1 < len(body):
            i += 1
            cmd = cmd.rstrip()[:-1] + " " + body[i].strip()
        code = re.search(r"#.*\bexits (\d+)\s*$", cmd)
        cmd = re.sub(r"\s+#[^\"']*$", "", cmd)
        expected = []
        while i + 1 < len(body) and not body[i + 1].startswith("$ "):
            i += 1
            expected.append(body[i])
        out.append((cmd, int(code.group(1)) if code else 0, expected))
        i += 1
    return out


def squash(text):
    return re.sub(r"\s+", "", text)


for doc in docs:
    text = open(doc).read()
    found = list(blocks(text))
    if not found:
        failures.append(f"{doc}: no <!-- offline-test --> block")
    for line, body in found:
        for cmd, want_code, expected in commands(body):
            ran += 1
            r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=source, env=env, capture_output=True,
                               text=True, timeout=120)
            where = f"{os.path.relpath(doc, source)}:{line}: {cmd}"
            if r.returncode != want_code:
                failures.append(f"{where}\n  exit {r.returncode}, want {want_code}: {r.stderr.strip()[:500]}")
                continue
            actual, pos = squash(r.stdout + r.stderr), 0
            for part in squash("\n".join(expected)).split("..."):
                at = actual.find(part, pos)
                if at < 0:
                    failures.append(f"{where}\n  the output lacks {part!r} (in order); it printed:\n"
                                    f"{(r.stdout + r.stderr)[:2000]}")
                    break
                pos = at + len(part)
            print(f"ok  {where}")

for f in failures:
    print("FAIL:", f)
print(f"{ran - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures or ran == 0 else 0)
