#!/usr/bin/env python3
"""Writes db-autoscaler.1.gz from the program's own --help, so the manual page cannot drift from
the flags it describes (Debian wants a manual page for every program in /usr/bin).

  man_page.py DB_AUTOSCALER VERSION OUT_DIR

Every subcommand, nested ones included, gets a section with its usage line and its options,
each option a tagged paragraph. kubectl-dha.1.gz is a link to the same page.
"""
import gzip
import os
import re
import subprocess
import sys

BINARY, VERSION, OUT_DIR = sys.argv[1:4]
# CLI11 indents an option by two spaces and its description to column 30, on the option's line
# when it fits, else on the lines below.
OPTION = re.compile(r"^  (\S.*?)(?: {2,}(\S.*))?$")
CONTINUATION = re.compile(r"^ {6,}(\S.*)$")


def help_text(words):
    return subprocess.run([BINARY, *words, "--help"], check=True, capture_output=True, text=True).stdout


def escape(text):
    # Backslashes and hyphens as groff reads them; a leading dot or quote would be a request.
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def parse(text):
    """Summary, usage, [(section, [(term, description)])] of one --help screen."""
    lines = text.rstrip("\n").split("\n")
    summary = lines[0] if lines and not lines[0].startswith("Usage:") else ""
    usage = next((l[len("Usage: "):] for l in lines if l.startswith("Usage: ")), "")
    sections, current = [], None
    for line in lines:
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            current = (line[:-1], [])
            sections.append(current)
        elif current is not None and (m := CONTINUATION.match(line)) and current[1]:
            term, desc = current[1][-1]
            current[1][-1] = (term, (desc + " " + m.group(1)).strip())
        elif current is not None and (m := OPTION.match(line)):
            current[1].append((m.group(1).strip(), (m.group(2) or "").strip()))
    return summary, usage, sections


def subcommands(sections):
    return [term.split()[0] for name, items in sections if name == "Subcommands" for term, _ in items]


def page():
    out = []
    summary, usage, sections = parse(help_text([]))
    out += [f'.TH DB\\-AUTOSCALER 1 "" "db-autoscaler {VERSION}" "User Commands"',
            ".SH NAME", "db\\-autoscaler, kubectl\\-dha \\- " + escape(summary.split(": ", 1)[-1]),
            ".SH SYNOPSIS", ".B db\\-autoscaler", escape(usage.split(" ", 1)[1]) if " " in usage else "",
            ".br", ".B kubectl dha", "SUBCOMMAND [OPTIONS]",
            ".SH DESCRIPTION", "db\\-autoscaler " + escape(summary.split(": ", 1)[-1]) + ".",
            "Installed as the kubectl plugin kubectl\\-dha, it runs its dha subcommand.",
            "The operator's documentation is in /usr/share/doc/db\\-autoscaler/."]
    out += options(sections)
    queue = [[s] for s in subcommands(sections)]
    while queue:
        words = queue.pop(0)
        summary, usage, sections = parse(help_text(words))
        out += [".SH " + escape(" ".join(words).upper()), escape(summary), ".PP",
                ".B " + escape(usage)]
        out += options(sections)
        queue[0:0] = [words + [s] for s in subcommands(sections)]
    return "\n".join(l for l in out if l != "") + "\n"


def options(sections):
    out = []
    for name, items in sections:
        if name == "Subcommands":
            continue
        out.append(".SS " + escape(name))
        for term, desc in items:
            out += [".TP", ".B " + escape(term), escape(desc) if desc else ".br"]
    return out


os.makedirs(OUT_DIR, exist_ok=True)
target = os.path.join(OUT_DIR, "db-autoscaler.1.gz")
# mtime 0 and no file name in the header: the same page on every build.
with open(target, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
    gz.write(page().encode())
link = os.path.join(OUT_DIR, "kubectl-dha.1.gz")
if os.path.lexists(link):
    os.remove(link)
os.symlink("db-autoscaler.1.gz", link)
