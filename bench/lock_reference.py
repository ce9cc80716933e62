#!/usr/bin/env python3
"""pip's resolver on one target, for bench/lock_bench.cc (standard library only).

Runs `<this python> -m pip install --dry-run --ignore-installed --report FILE` against a simple
index for one platform (`--platform ... --python-version ... --only-binary=:all: --target DIR`:
pip 23 wants --target whenever --platform is given) and prints, on stdout:

  TIME <wall seconds> <cpu seconds of pip and its children>
  PKG <normalised name> <version>          one line per package pip would install

Exits 1 (with pip's stderr tail on stderr) when pip fails.
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def platforms(platform):
    """pip 23 takes --platform literally; a glibc 2.N target also runs every manylinux_2_M wheel
    with M <= N (and the legacy manylinux2014/2010/1 aliases), as wvlock's tag list has it."""
    match = re.fullmatch(r"manylinux_2_(\d+)_(\w+)", platform)
    if not match:
        return [platform]
    glibc, arch = int(match.group(1)), match.group(2)
    expanded = [f"manylinux_2_{minor}_{arch}" for minor in range(glibc, 4, -1)]
    legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    expanded += [f"{alias}_{arch}" for minor, alias in legacy.items() if minor <= glibc]
    return expanded


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-url", required=True)
    parser.add_argument("--platform", default="manylinux_2_28_x86_64")
    parser.add_argument("--python-version", default="3.11")
    parser.add_argument("requirements", help="a requirements file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wvlock-pip-") as scratch:
        report = os.path.join(scratch, "report.json")
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                   "--quiet", "--disable-pip-version-check", "--no-cache-dir",
                   "--report", report, "--index-url", args.index_url,
                   *[flag for p in platforms(args.platform) for flag in ("--platform", p)],
                   "--python-version", args.python_version,
                   "--only-binary=:all:", "--target", os.path.join(scratch, "target"),
                   "-r", args.requirements]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-4000:])
            return 1
        with open(report) as file:
            installed = json.load(file).get("install", [])
    print(f"TIME {wall:.6f} {cpu:.6f}")
    for item in installed:
        metadata = item["metadata"]
        print(f"PKG {normalize(metadata['name'])} {metadata['version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
