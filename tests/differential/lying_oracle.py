#!/usr/bin/python3
"""differential/oracle.py with every kind of answer falsified, for the ctest that proves
differential_fuzz notices disagreements (docs/differential.md): versions lose their local
label in `public`, orders are reversed, contains() answers flipped (of single and combined sets),
marker results flipped, requirement names upper-cased, canonical names given a trailing `-x`."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "differential"))
import oracle  # noqa: E402


def lie_version(fields):
    out = oracle.answer_version(fields)
    if out[0] == "ok":
        out[2] = out[2] + ".0"
    return out


def lie_order(fields):
    out = oracle.answer_order(fields)
    valid = sum(1 for rank in out if rank != "x")
    return [rank if rank == "x" else str(valid - 1 - int(rank)) for rank in out]


def flip_contains(out):
    """A specifier answer with every contains() result flipped."""
    if out[0] == "ok":
        out[3:] = [bits.translate(str.maketrans("01", "10")) for bits in out[3:]]
    return out


def lie_specifier(fields):
    return flip_contains(oracle.answer_specifier(fields))


def lie_marker(fields):
    out = oracle.answer_marker(fields)
    if out[0] == "ok":
        out[2:] = [{"1": "0", "0": "1"}.get(result, result) for result in out[2:]]
    return out


def lie_requirement(fields):
    out = oracle.answer_requirement(fields)
    if out[0] == "ok":
        out[2] = out[2].upper() + "x"
    return out


def lie_intersection(fields):
    return flip_contains(oracle.answer_intersection(fields))


def lie_name(fields):
    return [oracle.canonicalize_name(oracle.text(fields[0])) + "-x"]


oracle.HANDLERS.update({"V": lie_version, "O": lie_order, "S": lie_specifier,
                        "M": lie_marker, "R": lie_requirement, "I": lie_intersection,
                        "N": lie_name})
oracle.main()
