#!/usr/bin/env python3
"""A seeded synthetic package ecosystem for bench/lock_bench.cc (standard library only).

Writes, under --out:
  simple/index.html                 the PEP 503 root page
  simple/<name>/index.html          one project page per project: every wheel with a #sha256=
                                    fragment, data-requires-python, and PEP 658/714 attributes
  simple/<name>/<wheel>             real, tiny, installable wheels (METADATA, WHEEL, RECORD, a module)
  simple/<name>/<wheel>.metadata    the wheel's METADATA (PEP 658)
  requirements.txt                  the top-level requirements of the benchmark project
  versions.json                     {name: [versions ascending]} for the bench's checks
  STAMP                             written last: the arguments that produced the tree

Shape (chosen to look like PyPI, not to be hard): each project has 5-30 versions; each version
0-8 dependencies (mostly 0-3) on earlier projects, so low-numbered projects are the popular
base libraries; specifiers are `>=`, `>=,<`, `~=`, `!=` or bare; some projects have an extra,
some dependencies ask for one, a few carry markers (`sys_platform == "win32"`,
`python_version < "3.10"`), and about one project in ten ships compiled wheels (cp311/cp312 for
manylinux x86_64/aarch64, macOS arm64 and Windows) instead of a pure wheel.

Every bound admits each dependency's middle version, so setting every project to its middle
version satisfies every requirement: a solution always exists, though newest-first resolvers
may have to backtrack to find one.
"""

import argparse
import base64
import hashlib
import html
import json
import os
import random
import zipfile

ZIP_DATE = (2024, 1, 1, 0, 0, 0)
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "macosx_11_0_arm64", "win_amd64"]


def project_name(i):
    return f"syn-{i:04d}"


def make_versions(rng):
    count = rng.randint(5, 30)
    major, minor, patch = rng.randint(0, 3), rng.randint(0, 9), 0
    versions = []
    for _ in range(count):
        versions.append(f"{major}.{minor}.{patch}")
        step = rng.random()
        if step < 0.6:
            patch += 1
        elif step < 0.93:
            minor, patch = minor + 1, 0
        else:
            major, minor, patch = major + 1, 0, 0
    return versions


def dependency_count(rng):
    # Mostly small, occasionally many: mean about 1.5.
    return rng.choices(range(9), weights=[34, 26, 16, 10, 6, 4, 2, 1, 1])[0]


def pick_dependencies(rng, i, count):
    """`count` distinct earlier projects; most from the first 100 (the popular base libraries)."""
    chosen = set()
    while len(chosen) < min(i, count):
        chosen.add(rng.randrange(min(i, 100)) if rng.random() < 0.7 else rng.randrange(i))
    return sorted(chosen)


def specifier(rng, versions):
    """A specifier over `versions` that admits its middle version."""
    mid = len(versions) // 2
    low = versions[rng.randint(0, mid)]
    kind = rng.random()
    if kind < 0.15:
        return ""
    if kind < 0.85:
        return f">={low}"
    if kind < 0.92:
        # An upper bound that leaves out only the newest release or two.
        high = versions[max(mid + 1, len(versions) - rng.randint(1, 2))]
        return f">={low},<{high}"
    if kind < 0.96:
        major, minor = versions[mid].split(".")[:2]
        return f"~={major}.{minor}"
    excluded = [v for v in versions if v != versions[mid]]
    return f">={low},!={rng.choice(excluded)}"


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(path, name, version, tag, metadata):
    module = name.replace("-", "_")
    dist_info = f"{module}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": f'__version__ = "{version}"\n'.encode(),
        f"{dist_info}/METADATA": metadata.encode(),
        f"{dist_info}/WHEEL": (f"Wheel-Version: 1.0\nGenerator: synthetic_ecosystem\n"
                               f"Root-Is-Purelib: {'true' if tag == 'py3-none-any' else 'false'}\n"
                               f"Tag: {tag}\n").encode(),
    }
    record = "".join(f"{member},{record_hash(data)},{len(data)}\n" for member, data in files.items())
    record += f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in files.items():
            info = zipfile.ZipInfo(member, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--roots", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    stamp = f"projects={args.projects} roots={args.roots} seed={args.seed} v3\n"
    stamp_path = os.path.join(args.out, "STAMP")
    if os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
        print(f"{args.out}: up to date")
        return
    rng = random.Random(args.seed)
    simple = os.path.join(args.out, "simple")
    os.makedirs(simple, exist_ok=True)
    catalog = {}
    wheel_count = 0
    extra_projects = set()  # projects that provide the `fast` extra
    for i in range(args.projects):
        name = project_name(i)
        versions = make_versions(rng)
        catalog[name] = versions
        has_extra = i > 0 and rng.random() < 0.2
        compiled = rng.random() < 0.1
        # Dependencies evolve across versions: a stable core, a few added late.
        core = pick_dependencies(rng, i, dependency_count(rng))
        late = pick_dependencies(rng, i, rng.choice([0, 0, 1, 2]))
        extra_deps = pick_dependencies(rng, i, rng.randint(1, 2)) if has_extra else []
        specs = {d: specifier(rng, catalog[project_name(d)]) for d in set(core + late + extra_deps)}
        asks_extra = {d: rng.random() < 0.15 for d in specs}
        markers = {d: rng.choice(['sys_platform == "win32"', 'python_version < "3.10"',
                                  'platform_machine == "aarch64"'])
                   for d in specs if rng.random() < 0.06}
        folder = os.path.join(simple, name)
        os.makedirs(folder, exist_ok=True)
        links = []
        for vi, version in enumerate(versions):
            deps = list(core) + (late if vi >= len(versions) // 2 else [])
            lines = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
                     f"Requires-Python: >=3.8"]
            for d in sorted(set(deps)):
                dep = project_name(d)
                if asks_extra[d] and d in extra_projects:
                    dep += "[fast]"
                text = dep + specs[d]
                if d in markers:
                    text += f" ; {markers[d]}"
                lines.append(f"Requires-Dist: {text}")
            if has_extra:
                lines.append("Provides-Extra: fast")
                for d in sorted(extra_deps):
                    lines.append(f'Requires-Dist: {project_name(d)}{specs[d]} ; extra == "fast"')
            metadata = "\n".join(lines) + "\n\n"
            tags = ([f"{py}-{py}-{plat}" for py in ("cp311", "cp312") for plat in PLATFORMS]
                    if compiled else ["py3-none-any"])
            for tag in tags:
                filename = f"{name.replace('-', '_')}-{version}-{tag}.whl"
                path = os.path.join(folder, filename)
                build_wheel(path, name, version, tag, metadata)
                with open(path + ".metadata", "w") as out:
                    out.write(metadata)
                wheel_sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
                meta_sha = hashlib.sha256(metadata.encode()).hexdigest()
                links.append(
                    f'    <a href="{filename}#sha256={wheel_sha}" '
                    f'data-requires-python="{html.escape(">=3.8")}" '
                    f'data-core-metadata="sha256={meta_sha}" '
                    f'data-dist-info-metadata="sha256={meta_sha}">{filename}</a><br/>')
                wheel_count += 1
        if has_extra:
            extra_projects.add(i)
        with open(os.path.join(folder, "index.html"), "w") as out:
            out.write("<!DOCTYPE html>\n<html>\n  <head>\n"
                      '    <meta name="pypi:repository-version" content="1.1">\n'
                      f"    <title>Links for {name}</title>\n  </head>\n  <body>\n"
                      + "\n".join(links) + "\n  </body>\n</html>\n")
    with open(os.path.join(simple, "index.html"), "w") as out:
        out.write("<!DOCTYPE html>\n<html>\n  <body>\n"
                  + "".join(f'    <a href="{n}/">{n}</a><br/>\n' for n in catalog)
                  + "  </body>\n</html>\n")
    # The benchmark project: roots among the upper half (the projects with deep closures).
    roots = rng.sample(range(args.projects // 2, args.projects), min(args.roots, args.projects // 2))
    with open(os.path.join(args.out, "requirements.txt"), "w") as out:
        for r in sorted(roots):
            name = project_name(r)
            out.write(name + (f">={catalog[name][len(catalog[name]) // 3]}" if rng.random() < 0.5 else "") + "\n")
    with open(os.path.join(args.out, "versions.json"), "w") as out:
        json.dump(catalog, out)
    with open(stamp_path, "w") as out:
        out.write(stamp)
    print(f"{args.out}: {args.projects} projects, {wheel_count} wheels")


if __name__ == "__main__":
    main()
