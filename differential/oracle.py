#!/usr/bin/python3
"""The reference side of differential_fuzz: answers cases with Python's packaging 26.x.

Usage: oracle.py PACKAGING_DIR. packaging is imported from PACKAGING_DIR (the pure-Python
reference at ../shared/oracles/packaging-26.4), ahead of any installed copy such as Debian's
python3-packaging 23.0, whose answers differ; the hello request says which one was imported.

Protocol (docs/differential.md): the driver writes a batch of request lines ended by a line
"END"; this worker reads the whole batch, then writes one answer line per request and flushes.
Every text field travels hex-encoded (UTF-8, invalid bytes via surrogateescape) so that any
byte, tab or newline survives; an answer line is its fields, each hex-encoded, joined by tabs.

Requests (fields separated by tabs, text fields hex-encoded):
  H                          hello: ok | wrong-version, packaging's version, its directory
  E  id  values              defines marker environment `id` (11 values joined by \\x1f)
  V  text                    version: invalid | ok, str, public, base_version, flags, local
  O  text...                 ordering: per text "x" (invalid) or the number of valid texts
                             of the list strictly below it
  S  set  version...         specifier set: invalid | ok, str, prereleases, then per version
                             three characters for contains() with prereleases None/True/False
  M  marker  env:extra...    marker: invalid | ok, str, then per evaluation 1, 0 or E:<why>
  R  text                    requirement: invalid | ok, str, name, extras, specifier, url, marker
  I  set  set  version...    the sets combined with `&`: invalid (either set) | the layout of S
  N  text                    canonicalize_name(text)
"""
import bisect
import os
import sys

PACKAGING_DIR = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else ""
EXPECTED_MAJOR = "26."


def refuse_to_start(why):
    """The driver reads this line instead of an answer and reports a skip."""
    sys.stdout.write("NOPACKAGING %s\n" % why)
    sys.stdout.flush()
    sys.exit(3)


if not PACKAGING_DIR:
    refuse_to_start("no packaging directory given (usage: oracle.py PACKAGING_DIR)")
sys.path.insert(0, PACKAGING_DIR)  # ahead of site-packages: never Debian's 23.0 by accident
try:
    import packaging
    from packaging.markers import InvalidMarker, Marker, UndefinedComparison
    from packaging.markers import UndefinedEnvironmentName
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version
except ImportError as error:
    refuse_to_start("cannot import packaging from %s: %s" % (PACKAGING_DIR, error))
PACKAGING_FROM = os.path.dirname(os.path.dirname(os.path.abspath(packaging.__file__)))
if os.path.realpath(PACKAGING_FROM) != os.path.realpath(PACKAGING_DIR):
    refuse_to_start("packaging was imported from %s, not from %s" % (PACKAGING_FROM, PACKAGING_DIR))


def hello(fields):
    """packaging's version and where it came from; "wrong-version" unless it is 26.x."""
    status = "ok" if packaging.__version__.startswith(EXPECTED_MAJOR) else "wrong-version"
    return [status, packaging.__version__, PACKAGING_FROM]


ENV_KEYS = (
    "implementation_name", "implementation_version", "os_name", "platform_machine",
    "platform_python_implementation", "platform_release", "platform_system",
    "platform_version", "python_full_version", "python_version", "sys_platform",
)
ENVIRONMENTS = {}


def text(field):
    return bytes.fromhex(field).decode("utf-8", "surrogateescape")


def encode(fields):
    return "\t".join(f.encode("utf-8", "surrogateescape").hex() for f in fields)


def flags(v):
    return "%d%d%d" % (v.is_prerelease, v.is_postrelease, v.is_devrelease)


def refused(error):
    """A parse error other than the documented Invalid* exception (e.g. urllib's ValueError or
    ast's SyntaxError escaping from packaging): packaging refuses the input all the same."""
    return ["invalid", "raises " + type(error).__name__]


def answer_version(fields):
    try:
        v = Version(text(fields[0]))
    except InvalidVersion:
        return ["invalid"]
    except Exception as error:
        return refused(error)
    return ["ok", str(v), v.public, v.base_version, flags(v), v.local or ""]


def answer_order(fields):
    versions = []
    for field in fields:
        try:
            versions.append(Version(text(field)))
        except InvalidVersion:
            versions.append(None)
    ordered = sorted(v for v in versions if v is not None)
    return ["x" if v is None else str(bisect.bisect_left(ordered, v)) for v in versions]


def tri(call):
    try:
        return "1" if call() else "0"
    except InvalidVersion:
        return "E"


def answer_specifier(fields):
    try:
        spec = SpecifierSet(text(fields[0]))
    except InvalidSpecifier:
        return ["invalid"]
    except Exception as error:
        return refused(error)
    return specifier_fields(spec, fields[1:])


def answer_intersection(fields):
    try:
        spec = SpecifierSet(text(fields[0])) & SpecifierSet(text(fields[1]))
    except InvalidSpecifier:
        return ["invalid"]
    except Exception as error:
        return refused(error)
    return specifier_fields(spec, fields[2:])


def specifier_fields(spec, version_fields):
    try:
        pre = str(spec.prereleases)
    except InvalidVersion:
        pre = "E"
    out = ["ok", str(spec), pre]
    for field in version_fields:
        v = Version(text(field))
        out.append(tri(lambda: spec.contains(v)) + tri(lambda: spec.contains(v, prereleases=True))
                   + tri(lambda: spec.contains(v, prereleases=False)))
    return out


UNPRINTABLE = "unprintable: ValueError"


def printed(thing):
    """str(Marker) / str(Requirement); packaging 26 raises ValueError for a marker value that
    holds both quote characters (it has no way to quote it)."""
    try:
        return str(thing)
    except ValueError:
        return UNPRINTABLE


def evaluate(marker, environment):
    try:
        # "lock_file": the PEP 751 sets `extras` and `dependency_groups` are defined (below),
        # as our MarkerContext defines them; every other name comes from `environment`.
        return "1" if marker.evaluate(environment, context="lock_file") else "0"
    except InvalidVersion:
        return "E:version"
    except UndefinedComparison:
        return "E:comparison"
    except (UndefinedEnvironmentName, KeyError):
        return "E:name"
    except Exception as error:  # anything else is a finding of its own
        return "E:" + type(error).__name__


def answer_marker(fields):
    try:
        marker = Marker(text(fields[0]))
    except InvalidMarker:
        return ["invalid"]
    except Exception as error:
        return refused(error)
    out = ["ok", printed(marker)]
    for field in fields[1:]:
        env_id, extra = field.split(":")
        environment = dict(ENVIRONMENTS[env_id])
        # The extra being installed is `extra` and, as a set, `extras` (our evaluation takes
        # both from the one active extra); no dependency group is active.
        environment["extra"] = text(extra)
        environment["extras"] = frozenset([text(extra)]) if extra else frozenset()
        environment["dependency_groups"] = frozenset()
        out.append(evaluate(marker, environment))
    return out


def answer_requirement(fields):
    try:
        r = Requirement(text(fields[0]))
    except InvalidRequirement:
        return ["invalid"]
    except Exception as error:
        return refused(error)
    return ["ok", printed(r), r.name, ",".join(sorted(r.extras)), str(r.specifier), r.url or "",
            printed(r.marker) if r.marker is not None else ""]


def define_environment(fields):
    values = text(fields[1]).split("\x1f")
    ENVIRONMENTS[fields[0]] = dict(zip(ENV_KEYS, values))
    return ["ok"]


HANDLERS = {
    "H": hello,
    "E": define_environment,
    "V": answer_version,
    "O": answer_order,
    "S": answer_specifier,
    "M": answer_marker,
    "R": answer_requirement,
    "I": answer_intersection,
    "N": lambda fields: [canonicalize_name(text(fields[0]))],
}


def main():
    stdin = sys.stdin
    out = sys.stdout
    batch = []
    for line in stdin:
        line = line.rstrip("\n")
        if line != "END":
            batch.append(line)
            continue
        answers = []
        for request in batch:
            fields = request.split("\t")
            try:
                answers.append(encode(HANDLERS[fields[0]](fields[1:])))
            except Exception as error:  # an oracle crash is reported, not fatal
                answers.append(encode(["crash", "%s: %s" % (type(error).__name__, error)]))
        batch = []
        out.write("\n".join(answers))
        out.write("\n")
        out.flush()


if __name__ == "__main__":
    main()
