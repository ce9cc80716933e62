#!/usr/bin/env python3
"""Fetches one npm package version from the registry and unpacks it, without npm.

Usage: npm_fetch.py NAME VERSION DEST

The tarball is checked against the registry's `dist.integrity` (sha512, base64) before it is
unpacked; its `package/` prefix is stripped. Exits 1 on any failure, leaving DEST untouched.
"""
import base64
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request

REGISTRY = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org").rstrip("/")


def main() -> int:
    name, version, dest = sys.argv[1:4]
    with urllib.request.urlopen(f"{REGISTRY}/{name}/{version}", timeout=60) as response:
        dist = json.load(response)["dist"]
    algorithm, _, expected = dist["integrity"].partition("-")
    if algorithm != "sha512":
        print(f"npm_fetch: unexpected integrity {dist['integrity']}", file=sys.stderr)
        return 1
    with urllib.request.urlopen(dist["tarball"], timeout=600) as response:
        data = response.read()
    if base64.b64encode(hashlib.sha512(data).digest()).decode() != expected:
        print(f"npm_fetch: {dist['tarball']} does not match its sha512 integrity", file=sys.stderr)
        return 1
    parent = os.path.dirname(os.path.abspath(dest))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(dir=parent)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive.getmembers():
                if not member.name.startswith("package/") or ".." in member.name.split("/"):
                    continue
                member.name = member.name[len("package/"):]
                if member.name:
                    archive.extract(member, staging)
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
