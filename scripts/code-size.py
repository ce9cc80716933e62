#!/usr/bin/env python3
"""The house's size limits, counted: source files over 600 lines and function bodies over 80.

Usage: python3 scripts/code-size.py [ROOT] [--list]

A function is a brace block at namespace or class level whose head ends in a parameter list
(`name(...) [const] [noexcept] [-> T] {`); lambdas and blocks inside a function count toward
that function. Comments, strings and preprocessor lines are blanked first so their braces do
not count. The counter is a heuristic shared by "before" and "after" figures, not a parser.
"""
import pathlib
import re
import sys

SOURCE_FOLDERS = ["src", "lock", "targets", "solver", "tests", "bench", "fuzz", "differential"]
FILE_LIMIT = 600
FUNCTION_LIMIT = 80
SCOPE_WORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else|try)\s*$")


def blank(text: str) -> str:
    """Replaces comments, string and char literals, and preprocessor lines by spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i) or (c == "#" and (i == 0 or text[i - 1] == "\n")):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c); i += 1; continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i)); i = min(j + 1, n)
        else:
            out.append(c); i += 1
    return "".join(out)


def functions(text: str):
    """(name, first line, line count) of every function body at namespace or class level."""
    code = blank(text)
    found, stack, head_start = [], [], 0  # stack: ("scope"|"function"|"other", start line, name)
    for i, c in enumerate(code):
        if c in ";}":
            if c == "}" and stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    found.append((name, start, code.count("\n", 0, i) - start + 2))
            head_start = i + 1
        elif c == "{":
            head = code[head_start:i]
            inside_function = any(kind == "function" for kind, _, _ in stack)
            line = code.count("\n", 0, head_start + len(head) - len(head.lstrip())) + 1
            stripped = " ".join(head.split())
            if inside_function:
                kind = "other"
            elif SCOPE_WORDS.search(stripped) or stripped.startswith("extern"):
                kind = "scope"
            elif re.search(r"\)\s*(const|noexcept|override|final|mutable|->[^{]*|:[^{]*)*\s*$",
                           stripped) and not CONTROL.search(stripped.split("(")[0]):
                kind = "function"
            else:
                kind = "other"
            name = re.findall(r"([~\w:]+)\s*\(", stripped)
            stack.append((kind, line, name[0] if name else "?"))
            head_start = i + 1
    return found


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0] if args else ".")
    listing = "--list" in sys.argv
    files, long_files, long_functions = 0, [], []
    for folder in SOURCE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".cc", ".h", ".c") or not path.is_file():
                continue
            files += 1
            text = path.read_text(errors="replace")
            lines = text.count("\n")
            relative = path.relative_to(root)
            if lines > FILE_LIMIT:
                long_files.append((lines, str(relative)))
            for name, start, count in functions(text):
                if count > FUNCTION_LIMIT:
                    long_functions.append((count, f"{relative}:{start} {name}"))
    print(f"{files} source files; {len(long_files)} over {FILE_LIMIT} lines; "
          f"{len(long_functions)} functions over {FUNCTION_LIMIT} lines")
    if listing:
        for count, where in sorted(long_files, reverse=True):
            print(f"  file {count:5d}  {where}")
        for count, where in sorted(long_functions, reverse=True):
            print(f"  function {count:4d}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
