#!/usr/bin/env python3
"""Every relative link in the installed Markdown documents resolves inside the installed tree.

check_installed_doc_links.py ROOT REQUIRED...

ROOT is an unpacked package (or a `cmake --install --prefix`); REQUIRED are documents (paths
under ROOT) that must be there, and the documents checked are those in the folder that holds them
all (the operator's pages, installed beside them, link to the repository's developer documents,
which no package carries), so an installation that lost its documentation does not pass
by having no links to check. Links to web pages and to anchors within the same page are not
files and are skipped; a link to a directory is fine when the directory exists. A symbolic
link is followed, but it must land inside ROOT as well.
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")


def links_outside_code(text):
    """The targets of [text](target) links, outside fenced code blocks."""
    in_code = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if not in_code:
            for target in LINK.findall(line):
                yield number, target


def main():
    root = os.path.realpath(sys.argv[1])
    problems = []
    for required in sys.argv[2:]:
        if not os.path.isfile(os.path.join(root, required)):
            problems.append(f"{required}: not installed")
    checked = 0
    documents = 0
    scope = os.path.join(root, os.path.commonpath(sys.argv[2:])) if len(sys.argv) > 2 else root
    if not os.path.isdir(scope):
        scope = os.path.dirname(scope)
    for folder, _, files in os.walk(scope, followlinks=True):
        for name in files:
            if not name.endswith(".md"):
                continue
            documents += 1
            path = os.path.join(folder, name)
            shown = os.path.relpath(path, root)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for line, target in links_outside_code(text):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                checked += 1
                file_part = target.split("#", 1)[0]
                resolved = os.path.realpath(os.path.join(folder, file_part))
                if not (resolved == root or resolved.startswith(root + os.sep)):
                    problems.append(f"{shown}:{line}: {target} leads outside the installed tree")
                elif not os.path.exists(resolved):
                    problems.append(f"{shown}:{line}: {target} is not installed")
    for problem in problems:
        print("FAIL " + problem)
    if problems:
        return 1
    print(f"{checked} relative links in {documents} installed documents, all resolve inside {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
