#!/usr/bin/env python3
"""check-license-statement.py SOURCE_DIR

The repository, its README and the Debian packages' copyright file say one thing about the
license. While the project has chosen none (no LICENSE or COPYING file at the root), the
copyright file's `License:` is `no-license-granted`, with the statement that no rights are
granted, and the README's License section names that license and says the same. A license file
added without the copyright file and the README following it fails here.
"""
import glob
import os
import re
import sys

source = sys.argv[1]
problems = []


def words(text):
    return " ".join(text.split())


copyright_text = open(os.path.join(source, "packaging/copyright")).read()
licenses = re.findall(r"^License: *(\S+)\n((?: .*\n?)*)", copyright_text, re.M)
if not licenses:
    problems.append("packaging/copyright has no License: paragraph")
readme = open(os.path.join(source, "README.md")).read()
section = re.search(r"^## License\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
if not section:
    problems.append("README.md has no '## License' section")
license_files = [os.path.basename(p) for p in glob.glob(os.path.join(source, "LICEN[CS]E*"))
                 + glob.glob(os.path.join(source, "COPYING*"))]

if licenses and section:
    name, body = licenses[0]
    statement = words(body)
    readme_words = words(section.group(1))
    if license_files:
        if name == "no-license-granted":
            problems.append(f"{', '.join(license_files)} exists, but packaging/copyright still grants no license")
    else:
        if name != "no-license-granted":
            problems.append(f"packaging/copyright names the license {name}, but the repository has no license file")
        if "grant no rights beyond those the law gives" not in statement:
            problems.append(f"packaging/copyright's {name} text does not say that no rights are granted: {statement!r}")
        for want in ("no license has been chosen yet", "grant no rights beyond those the law gives", name):
            if want.lower() not in readme_words.lower():
                problems.append(f"README.md's License section does not say {want!r}: {readme_words!r}")

for p in problems:
    print("FAIL:", p)
if not problems:
    print(f"README.md and packaging/copyright agree: {licenses[0][0]}")
sys.exit(1 if problems else 0)
