#!/usr/bin/env python3
"""Counts the lines of code (neither blank nor comment-only) of named top-level entities in C++
sources, for the line-count comparisons of docs/examples.md.

    python3 scripts/count_code_lines.py FILE:NAME [FILE:NAME ...]

An entity is a class, struct or function defined at the start of a line (any indentation inside
a namespace), from its declaration line (with a `template <...>` line right above it) to the
first line at the same indentation that closes it (`}` or `};`). Prints one count per entity and
their total.
"""

import re
import sys


def entity_lines(path, name):
    lines = open(path, encoding="utf-8").read().splitlines()
    head = re.compile(r"^(\s*)(?:(?:struct|class)\s+" + re.escape(name) + r"\b|[\w:<>,\s&*]*\b" + re.escape(name) + r"\s*\()")
    for k, line in enumerate(lines):
        m = head.match(line)
        if not m or line.rstrip().endswith(";"):
            continue
        indent = m.group(1)
        first = k - 1 if k > 0 and lines[k - 1].strip().startswith("template") else k
        for end in range(k, len(lines)):
            if re.match(r"^" + re.escape(indent) + r"}\s*;?\s*(//.*)?$", lines[end]):
                return lines[first:end + 1]
        break
    raise SystemExit(f"count_code_lines: {path}: no entity named {name}")


def code_lines(lines):
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("//"))


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    total = 0
    for arg in argv:
        path, _, name = arg.rpartition(":")
        count = code_lines(entity_lines(path, name))
        total += count
        print(f"{count:5d}  {path}:{name}")
    print(f"{total:5d}  total")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
