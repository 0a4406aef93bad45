#!/usr/bin/env python3
"""Writes NAME.1.gz for one of the SDK's programs from its own --help, so the page cannot drift
from the options it describes (Debian wants a manual page for every program in /usr/bin).

  tool_man_page.py PROGRAM NAME VERSION OUT_DIR

The first line of the help is the page's one-line summary; the whole help, as the program prints
it, is the description.
"""
import gzip
import os
import re
import subprocess
import sys

PROGRAM, NAME, VERSION, OUT_DIR = sys.argv[1:5]
text = subprocess.run([PROGRAM, "--help"], check=True, capture_output=True, text=True).stdout
# The usage line names the program as it was called (a build-tree path): name it as installed.
text = text.replace(PROGRAM, NAME).rstrip("\n")


def escape(line):
    # Backslashes and hyphens as groff reads them; a leading dot or quote would be a request.
    line = line.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + line if line[:1] in (".", "'") else line


lines = text.split("\n")
summary = lines[0]
if summary.startswith(NAME + ":"):
    summary = summary[len(NAME) + 1:].strip()
summary = re.split(r"(?<=[a-z)]): |\. ", summary)[0].rstrip(".")
usage = next((l[len("Usage: "):] for l in lines if l.startswith("Usage: ")), NAME)
page = [f'.TH {escape(NAME.upper())} 1 "" "db-autoscaler {VERSION}" "User Commands"',
        ".SH NAME", f"{escape(NAME)} \\- {escape(summary)}",
        ".SH SYNOPSIS", escape(usage),
        ".SH DESCRIPTION", "The program's own \\-\\-help:", ".PP", ".nf"]
page += [escape(l) if l else "" for l in lines]
page += [".fi", ".SH SEE ALSO", "The SDK's documentation in /usr/share/doc/dha\\-sdk/."]
os.makedirs(OUT_DIR, exist_ok=True)
# mtime 0 and no file name in the header: the same page on every build.
with open(os.path.join(OUT_DIR, NAME + ".1.gz"), "wb") as raw, \
        gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as gz:
    gz.write(("\n".join(page) + "\n").encode())
