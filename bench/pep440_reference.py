"""The Python side of bench/pep440_bench.cc: the same work with packaging (26.4 from
../shared/oracles on PYTHONPATH, else Debian's 23.0 under /usr/bin/python3), timed in CPU time like the C++ side. Usage: pep440_reference.py CORPUS CONTAINS_LIMIT SPECIFIER_SET... ; prints key=value lines.
The specifier sets are evaluated over the first CONTAINS_LIMIT versions (packaging re-parses
versions inside every comparison, so all of a large corpus would take minutes)."""
import sys
import time

import packaging
from packaging.specifiers import SpecifierSet
from packaging.version import Version


def main() -> None:
    corpus_path, limit, set_texts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    with open(corpus_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    lines = [line for line in lines if line]

    start = time.process_time()
    versions = [Version(line) for line in lines]
    parse_s = time.process_time() - start

    start = time.process_time()
    ordered = sorted(versions)
    sort_s = time.process_time() - start

    sets = [SpecifierSet(text) for text in set_texts]
    start = time.process_time()
    sample = versions[:limit]
    counts = [sum(1 for v in sample if s.contains(v)) for s in sets]
    contains_s = time.process_time() - start

    print(f"packaging={packaging.__version__}")
    print(f"count={len(versions)}")
    print(f"parse_ms={parse_s * 1000:.3f}")
    print(f"sort_ms={sort_s * 1000:.3f}")
    print(f"contains_ms={contains_s * 1000:.3f}")
    print("matches=" + ",".join(str(c) for c in counts))
    print(f"first={ordered[0]}")
    print(f"median={ordered[len(ordered) // 2]}")
    print(f"last={ordered[-1]}")


if __name__ == "__main__":
    main()
