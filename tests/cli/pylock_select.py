"""What a standard PEP 751 installer selects from a pylock.toml: packaging's Pylock.select().

Run with the packaging release to test against on PYTHONPATH:
    python3 pylock_select.py REQUEST.json
REQUEST: {"lock": path, "strip_variant_labels": bool, "environment": {marker variables},
          "tags": [[interpreter, abi, platform], ...], "selections": [{"extras": [...],
          "groups": [...] or null for the lock's default-groups}, ...]}
Prints one JSON object: {"invalid": message} when Pylock.from_dict() refuses the file, else
{"selections": [{"packages": ["name==version", ...], "files": ["name file", ...]} or
{"error": message}, ...]}: `files` names what select() installs of each package, a wheel or
sdist by its file name, else the kind of source (`vcs`, `directory`, `archive`).

`strip_variant_labels` drops a PEP 825 variant label from each wheel file name that packaging
cannot parse (packaging knows no variant labels), so that what select() decides by markers can
still be compared; which wheel of a package is installed is not compared.
"""

import json
import sys
import tomllib

from packaging.pylock import (PackageArchive, PackageDirectory, PackageSdist, PackageVcs,
                              PackageWheel, Pylock, PylockSelectError, PylockValidationError)
from packaging.tags import Tag
from packaging.utils import InvalidWheelFilename, parse_wheel_filename


def without_variant_label(filename):
    try:
        parse_wheel_filename(filename)
        return filename
    except InvalidWheelFilename:
        return filename[: -len(".whl")].rsplit("-", 1)[0] + ".whl"


def source_name(source):
    if isinstance(source, (PackageWheel, PackageSdist)):
        return source.filename
    return {PackageVcs: "vcs", PackageDirectory: "directory", PackageArchive: "archive"}[type(source)]


def main(request_path):
    with open(request_path) as f:
        request = json.load(f)
    with open(request["lock"], "rb") as f:
        data = tomllib.load(f)
    if request.get("strip_variant_labels"):
        for package in data.get("packages", []):
            for wheel in package.get("wheels", []):
                wheel["name"] = without_variant_label(wheel["name"])
    try:
        lock = Pylock.from_dict(data)
    except PylockValidationError as error:
        print(json.dumps({"invalid": str(error)}))
        return
    tags = [Tag(*tag) for tag in request["tags"]]
    results = []
    for selection in request["selections"]:
        try:
            chosen = lock.select(environment=request["environment"], tags=tags,
                                 extras=selection["extras"],
                                 dependency_groups=selection["groups"])
            chosen = list(chosen)
            results.append({"packages": sorted(f"{package.name}=={package.version}"
                                               for package, _ in chosen),
                             "files": sorted(f"{package.name} {source_name(source)}"
                                             for package, source in chosen)})
        except PylockSelectError as error:
            results.append({"error": str(error)})
    print(json.dumps({"selections": results}))


if __name__ == "__main__":
    main(sys.argv[1])
