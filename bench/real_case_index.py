#!/usr/bin/env python3
"""A local simple index from a real PyPI snapshot, for bench/lock_bench.cc's real cases
(standard library only).

The snapshots are resolvelib's functional-test inputs (tests/functional/python/inputs/ of
https://github.com/sarugaku/resolvelib): `index/<snapshot>.json` maps each project to its
versions and their Requires-Dist lines as PyPI served them on that day; `case/<case>.json`
names the snapshot and the requested requirements. Every version with a PEP 440 version
becomes one real, tiny py3-none-any wheel (bench/synthetic_ecosystem.py's build_wheel) whose
METADATA carries those Requires-Dist lines (and the Provides-Extra their markers name).

Writes, under --out (reused while its STAMP matches):
  simple/index.html, simple/<name>/index.html   PEP 503 pages with #sha256= fragments and
                                                PEP 658/714 attributes
  simple/<name>/<wheel>, <wheel>.metadata       the wheels and their METADATA
  requirements.txt                              the case's requested requirements
  STAMP                                         written last
"""

import argparse
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthetic_ecosystem import build_wheel  # noqa: E402

# PEP 440's public and local versions (packaging's VERSION_PATTERN), without the legacy forms
# a wheel file name cannot carry.
VERSION = re.compile(
    r"^v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*"
    r"(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
    r"(?:(?:-[0-9]+)|(?:[-_.]?(?:post|rev|r)[-_.]?[0-9]*))?"
    r"(?:[-_.]?dev[-_.]?[0-9]*)?$",
    re.IGNORECASE)
EXTRA = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def write_project(simple, name, versions):
    folder = os.path.join(simple, normalize(name))
    os.makedirs(folder, exist_ok=True)
    links = []
    for version, entry in versions.items():
        if not VERSION.match(version) or "-" in version or "_" in version:
            continue
        dependencies = entry.get("dependencies", [])
        extras = sorted({m for line in dependencies for m in EXTRA.findall(line)})
        lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
        lines += [f"Provides-Extra: {extra}" for extra in extras]
        lines += [f"Requires-Dist: {line}" for line in dependencies]
        metadata = "\n".join(lines) + "\n\n"
        filename = f"{re.sub(r'[-_.]+', '_', name)}-{version}-py3-none-any.whl"
        path = os.path.join(folder, filename)
        build_wheel(path, normalize(name), version, "py3-none-any", metadata)
        with open(path + ".metadata", "w") as out:
            out.write(metadata)
        wheel_sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
        meta_sha = hashlib.sha256(metadata.encode()).hexdigest()
        links.append(f'    <a href="{filename}#sha256={wheel_sha}" '
                     f'data-core-metadata="sha256={meta_sha}" '
                     f'data-dist-info-metadata="sha256={meta_sha}">{filename}</a><br/>')
    with open(os.path.join(folder, "index.html"), "w") as out:
        out.write("<!DOCTYPE html>\n<html>\n  <head>\n"
                  '    <meta name="pypi:repository-version" content="1.1">\n'
                  f"    <title>Links for {name}</title>\n  </head>\n  <body>\n"
                  + "\n".join(links) + "\n  </body>\n</html>\n")
    return len(links)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", required=True, help="case/<case>.json")
    parser.add_argument("--index", required=True, help="index/<snapshot>.json")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    case_text = open(args.case, "rb").read()
    index_text = open(args.index, "rb").read()
    stamp = "real-case v1 %s %s\n" % (hashlib.sha256(case_text).hexdigest(),
                                      hashlib.sha256(index_text).hexdigest())
    stamp_path = os.path.join(args.out, "STAMP")
    if os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
        print(f"{args.out}: up to date")
        return 0
    case = json.loads(case_text)
    index = json.loads(index_text)
    simple = os.path.join(args.out, "simple")
    os.makedirs(simple, exist_ok=True)
    wheels = sum(write_project(simple, name, versions) for name, versions in index.items())
    with open(os.path.join(simple, "index.html"), "w") as out:
        out.write("<!DOCTYPE html>\n<html>\n  <body>\n"
                  + "".join(f'    <a href="{normalize(n)}/">{n}</a><br/>\n' for n in index)
                  + "  </body>\n</html>\n")
    with open(os.path.join(args.out, "requirements.txt"), "w") as out:
        out.write("".join(line + "\n" for line in case["requested"]))
    with open(stamp_path, "w") as out:
        out.write(stamp)
    print(f"{args.out}: {len(index)} projects, {wheels} wheels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
