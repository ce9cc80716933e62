"""The Python side of bench/solver_bench.cc: solve a registry written by the bench with pip's
bundled resolvelib (/usr/bin/python3, pip 23.0.1 -> resolvelib 0.8.1), with the same semantics
as wv::solver's OfflineProvider: candidates newest first, only existing and available
versions, and the package with the fewest candidates decided first (packages that caused the
last backtrack first, as pip does). Usage: solver_reference.py REGISTRY.json ; prints
`ms=...` (wall clock), `cpu_ms=...`, `outcome=solved|impossible|too-deep` and one
`pick NAME VERSION` line per package."""
import json
import sys
import time

from pip._vendor.resolvelib import AbstractProvider, BaseReporter, Resolver
from pip._vendor.resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep


def contains(intervals, version):
    for lo, hi in intervals:
        if (lo is None or version >= lo) and (hi is None or version < hi):
            return True
    return False


class Requirement:
    __slots__ = ("name", "intervals")

    def __init__(self, name, intervals):
        self.name = name
        self.intervals = intervals


class Candidate:
    __slots__ = ("name", "version", "dependencies")

    def __init__(self, name, version, dependencies):
        self.name = name
        self.version = version
        self.dependencies = dependencies


class Provider(AbstractProvider):
    def __init__(self, packages):
        # Newest first, available only: an unavailable version can never be picked.
        self.candidates = {}
        for name, versions in packages.items():
            cands = [
                Candidate(name, number, [Requirement(d, iv) for d, iv in deps])
                for number, available, deps in versions
                if available
            ]
            cands.sort(key=lambda c: c.version, reverse=True)
            self.candidates[name] = cands

    def identify(self, requirement_or_candidate):
        return requirement_or_candidate.name

    def get_preference(self, identifier, resolutions, candidates, information, backtrack_causes):
        causes = {cause.requirement.name for cause in backtrack_causes}
        count = sum(1 for _ in candidates[identifier])
        return (identifier not in causes, count)

    def find_matches(self, identifier, requirements, incompatibilities):
        bad = {c.version for c in incompatibilities[identifier]}
        reqs = list(requirements[identifier])
        return [
            c
            for c in self.candidates.get(identifier, [])
            if c.version not in bad and all(contains(r.intervals, c.version) for r in reqs)
        ]

    def is_satisfied_by(self, requirement, candidate):
        return contains(requirement.intervals, candidate.version)

    def get_dependencies(self, candidate):
        return candidate.dependencies


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        registry = json.load(f)
    provider = Provider(registry["packages"])
    root = [Requirement(name, intervals) for name, intervals in registry["root"]]
    resolver = Resolver(provider, BaseReporter())
    start = time.perf_counter()
    cpu_start = time.process_time()
    try:
        result = resolver.resolve(root, max_rounds=10**7)
        outcome = "solved"
    except ResolutionImpossible:
        result, outcome = None, "impossible"
    except ResolutionTooDeep:
        result, outcome = None, "too-deep"
    cpu = time.process_time() - cpu_start
    elapsed = time.perf_counter() - start
    print(f"ms={elapsed * 1000:.3f}")
    print(f"cpu_ms={cpu * 1000:.3f}")
    print(f"outcome={outcome}")
    if result is not None:
        print("pick root 0")
        for name, candidate in sorted(result.mapping.items()):
            print(f"pick {name} {candidate.version}")


if __name__ == "__main__":
    main()
