#!/usr/bin/env python3
"""Checks that dmap's docs say what the sources say.

Usage: python3 scripts/check_docs.py [--root DIR]    (DIR: the repository root, by default the
folder above this script). Exit status 0 when every rule holds; 1 and one line per violation,
"file:line: [rule] what is wrong", when some does not. Standard library only.

The rules:

  readme-size      README.md is at most 16 KiB.
  readme-commands  README.md starts with "# dmap" and a ```bash block whose commands are
                   `bash scripts/demo.sh` and `bash scripts/test.sh`, the commands .ci/run and
                   scripts/check-fresh-debian.sh run.
  issue-numbers    No tracked text file names an issue by number (the word issue or issues
                   then a number, or '#' then a number); '#' and 6 or 8 digits is a colour.
  outside-paths    No tracked text file names a path outside the repository (/work/, /home/...,
                   ../shared, a seeds folder).
  census           The census threshold of the bad-input suite (`count >= N` in the
                   census file, tests/**/*census*.cpp) is the N of every "at least N distinct" in
                   README.md, docs/testing.md and docs/design.md, and each of them says it.
  counts           "N unit test cases", "N bad-input test cases", "N test cases in all" and
                   "N compile-fail tests" in the docs equal what the sources hold (TEST_CASE and
                   TEMPLATE_TEST_CASE lines under tests/, bad-input ones in a bad_input folder;
                   the .cpp files of tests/**/compile_fail/); any other "N test cases" is a
                   violation, since nothing keeps it true.
  cmake-options    Every option() and CACHE variable of CMakeLists.txt and cmake/*.cmake is named
                   (in backquotes) in docs/building.md.
  api-headers      Every public header (a .hpp outside detail/ folders, tests/, examples/,
                   bench/ and interop/python/) is named in docs/api.md as <dmap/PATH>, and every
                   <dmap/PATH> there exists.
  links            Every relative link of README.md, CONTRIBUTING.md, docs/*.md and
                   docs/guide/*.md names an existing file, and its #anchor a heading of it.
  times            A duration ("12 min", "4.7 s", "25 minutes", ...) in a paragraph of those docs
                   that speaks of a suite, a build or compiling carries a date (YYYY-MM-DD) in
                   the same paragraph: the day it was measured. Lines that state a limit
                   ("limit", "timeout", "budget", "at most") are bounds, not measurements.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

README_LIMIT = 16 * 1024
README_COMMANDS = ["bash scripts/demo.sh", "bash scripts/test.sh"]
SELF = "scripts/check_docs.py"
FIXTURE = "tests/docs_fixture/"


class Report:
    """The violations found, in order."""

    def __init__(self) -> None:
        self.items: list[tuple[str, int, str, str]] = []

    def add(self, path: str, line: int, rule: str, what: str) -> None:
        self.items.append((path, line, rule, what))


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def read(root: Path, rel: str) -> str | None:
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def tracked_files(root: Path) -> list[str]:
    """The repository's tracked files when root is a git work tree's top, else every file."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if Path(top).resolve() == root.resolve():
            out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"],
                                 capture_output=True, text=True, check=True).stdout
            return sorted(f for f in out.split("\0") if f and not f.startswith(FIXTURE) and f != SELF)
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", "build")]
        for name in filenames:
            files.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(files)


def doc_files(files: list[str]) -> list[str]:
    return [f for f in files
            if f in ("README.md", "CONTRIBUTING.md")
            or re.fullmatch(r"docs/[^/]+\.md", f) or re.fullmatch(r"docs/guide/[^/]+\.md", f)]


def check_readme(root: Path, report: Report) -> None:
    path = root / "README.md"
    if not path.exists():
        report.add("README.md", 1, "readme-size", "README.md is missing")
        return
    size = path.stat().st_size
    if size > README_LIMIT:
        report.add("README.md", 1, "readme-size", f"{size} bytes, more than {README_LIMIT}")
    lines = path.read_text(encoding="utf-8").split("\n")
    commands = []
    if len(lines) > 2 and lines[0] == "# dmap" and lines[2] == "```bash":
        for line in lines[3:]:
            if line.startswith("```"):
                break
            command = line.split("#", 1)[0].strip()
            if command:
                commands.append(command)
    if commands != README_COMMANDS:
        report.add("README.md", 1, "readme-commands",
                   f"must start with '# dmap', a blank line and a ```bash block of {README_COMMANDS}; found {commands}")
    ci = read(root, ".ci/run")
    if ci is not None and "bash scripts/test.sh" not in ci:
        report.add(".ci/run", 1, "readme-commands", "does not run the README's `bash scripts/test.sh`")


ISSUE = re.compile(r"\b[Ii]ssues?\s+#?\d+|(?<![\w&/#])#(\d+)\b")
OUTSIDE = re.compile(r"(?<![\w.~-])/work/|(?<![\w.~-])/home/\w|\.\./shared\b|\bshared/seeds\b|team's workspace")


def check_tracked_text(root: Path, files: list[str], report: Report) -> None:
    for rel in files:
        text = read(root, rel)
        if text is None or "\0" in text:
            continue
        for m in ISSUE.finditer(text):
            if m.group(1) is not None and len(m.group(1)) in (6, 8):
                continue  # a colour such as #000000
            report.add(rel, line_of(text, m.start()), "issue-numbers",
                       f"'{m.group(0)}' names an issue; say what it meant")
        for m in OUTSIDE.finditer(text):
            report.add(rel, line_of(text, m.start()), "outside-paths",
                       f"'{m.group(0)}' points outside the repository")


def check_census(root: Path, files: list[str], report: Report) -> None:
    census = [f for f in files if f.startswith("tests/") and re.search(r"census[^/]*\.cpp$", f)]
    if not census:
        report.add("tests", 1, "census", "no tests/**/*census*.cpp holds the census threshold")
        return
    text = read(root, census[0]) or ""
    m = re.search(r"count\s*(?:>=|<)\s*(\d+)", text)
    if not m:
        report.add(census[0], 1, "census", "no `count >= N` (or `count < N`) threshold found")
        return
    threshold = int(m.group(1))
    for rel in ("README.md", "docs/testing.md", "docs/design.md"):
        doc = read(root, rel)
        if doc is None:
            report.add(rel, 1, "census", "missing")
            continue
        said = list(re.finditer(r"at\s+least\s+(\d[\d,]*)\s+distinct", doc))
        if not said:
            report.add(rel, 1, "census", f"does not say the census threshold (at least {threshold} distinct)")
        for s in said:
            if int(s.group(1).replace(",", "")) != threshold:
                report.add(rel, line_of(doc, s.start()), "census",
                           f"says '{s.group(0)}' but {census[0]} requires {threshold}")


TEST_CASE = re.compile(r"^\s*(?:TEMPLATE_)?TEST_CASE\(", re.M)


def check_counts(root: Path, files: list[str], docs: list[str], report: Report) -> None:
    unit = bad = 0
    compile_fail = 0
    for rel in files:
        if not rel.startswith("tests/") or not rel.endswith(".cpp"):
            continue
        parts = rel.split("/")
        if "compile_fail" in parts[:-1]:
            compile_fail += 1
            continue
        n = len(TEST_CASE.findall(read(root, rel) or ""))
        if "bad_input" in parts[:-1]:
            bad += n
        else:
            unit += n
    expected = {"unit test cases": unit, "bad-input test cases": bad, "test cases in all": unit + bad,
                "compile-fail tests": compile_fail}
    claim = re.compile(r"(\d[\d,]*)\s+(unit\s+test\s+cases|bad-input\s+test\s+cases|test\s+cases\s+in\s+all"
                       r"|compile-fail\s+tests|test\s+cases)")
    for rel in docs:
        doc = read(root, rel) or ""
        for m in claim.finditer(doc):
            kind = " ".join(m.group(2).split())
            value = int(m.group(1).replace(",", ""))
            if kind == "test cases":
                report.add(rel, line_of(doc, m.start()), "counts",
                           f"'{m.group(0)}': say unit / bad-input test cases or test cases in all, which this check counts")
            elif value != expected[kind]:
                report.add(rel, line_of(doc, m.start()), "counts",
                           f"says '{m.group(0)}' but the sources hold {expected[kind]}")


def check_cmake_options(root: Path, files: list[str], report: Report) -> None:
    building = read(root, "docs/building.md")
    sources = [f for f in files if f == "CMakeLists.txt" or re.fullmatch(r"cmake/[^/]+\.cmake", f)]
    for rel in sources:
        text = read(root, rel) or ""
        names = [(m.group(1), m.start()) for m in re.finditer(r"\boption\(\s*(\w+)", text)]
        names += [(m.group(1), m.start()) for m in re.finditer(r"\bset\(\s*(\w+)\s[^)]*?\bCACHE\b", text)]
        for name, offset in names:
            if building is None or f"`{name}`" not in building:
                report.add(rel, line_of(text, offset), "cmake-options",
                           f"{name} is not described in docs/building.md")


def public_headers(files: list[str]) -> list[str]:
    out = []
    for rel in files:
        parts = rel.split("/")
        if not rel.endswith(".hpp") or "detail" in parts[:-1]:
            continue
        if parts[0] in ("tests", "examples", "bench", "docs", "scripts", "cmake") or rel.startswith("interop/python/"):
            continue
        out.append(rel)
    return out


def check_api_headers(root: Path, files: list[str], report: Report) -> None:
    api = read(root, "docs/api.md")
    headers = public_headers(files)
    if api is None:
        if headers:
            report.add("docs/api.md", 1, "api-headers", "missing, and there are public headers")
        return
    named = {m.group(1): m.start() for m in re.finditer(r"<dmap/([\w/]+\.hpp)>", api)}
    for h in headers:
        if h not in named:
            report.add(h, 1, "api-headers", "public header not listed in docs/api.md as <dmap/" + h + ">")
    existing = set(files)
    for h, offset in named.items():
        if h not in existing:
            report.add("docs/api.md", line_of(api, offset), "api-headers", f"<dmap/{h}> does not exist")
        elif "detail" in h.split("/")[:-1]:
            report.add("docs/api.md", line_of(api, offset), "api-headers", f"<dmap/{h}> is a detail header")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(text: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in strip_code(text).split("\n"):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def strip_code(text: str) -> str:
    """text with fenced code blocks blanked (line count kept) and inline code removed."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def check_links(root: Path, docs: list[str], report: Report) -> None:
    for rel in docs:
        text = read(root, rel) or ""
        plain = strip_code(text)
        for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", plain):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            where = line_of(plain, m.start())
            path, _, anchor = target.partition("#")
            resolved = (root / rel).parent / path if path else root / rel
            try:
                inside = resolved.resolve().is_relative_to(root.resolve())
            except ValueError:
                inside = False
            if not inside:
                report.add(rel, where, "links", f"({target}) leaves the repository")
                continue
            if not resolved.exists():
                report.add(rel, where, "links", f"({target}) names no file")
                continue
            if anchor:
                if resolved.is_dir() or resolved.suffix != ".md":
                    report.add(rel, where, "links", f"({target}): an anchor into something that is not a .md file")
                elif anchor not in anchors_of(resolved.read_text(encoding="utf-8")):
                    report.add(rel, where, "links", f"({target}): no heading gives #{anchor}")


DURATION = re.compile(r"\b\d[\d,.]*\s*(?:min|minutes?|s|seconds?)\b")
TOPIC = re.compile(r"\bsuite|\bbuild|\bcompil", re.I)
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
BOUND = re.compile(r"\blimit|\btimeout|\bbudget|\bat most\b", re.I)


def check_times(root: Path, docs: list[str], report: Report) -> None:
    for rel in docs:
        text = read(root, rel) or ""
        lines = strip_code(text).split("\n")
        start = 0
        while start < len(lines):
            if not lines[start].strip():
                start += 1
                continue
            end = start
            while end < len(lines) and lines[end].strip():
                end += 1
            paragraph = lines[start:end]
            joined = " ".join(paragraph)
            if TOPIC.search(joined) and not DATE.search(joined):
                for k, line in enumerate(paragraph):
                    if BOUND.search(line):
                        continue
                    for m in DURATION.finditer(line):
                        report.add(rel, start + k + 1, "times",
                                   f"'{m.group(0)}' about a suite or build has no date (YYYY-MM-DD) in its paragraph")
            start = end


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    root = parser.parse_args().root.resolve()
    report = Report()
    files = tracked_files(root)
    docs = doc_files(files)
    check_readme(root, report)
    check_tracked_text(root, files, report)
    check_census(root, files, report)
    check_counts(root, files, docs, report)
    check_cmake_options(root, files, report)
    check_api_headers(root, files, report)
    check_links(root, docs, report)
    check_times(root, docs, report)
    for path, line, rule, what in report.items:
        print(f"{path}:{line}: [{rule}] {what}")
    if report.items:
        rules = sorted({rule for _, _, rule, _ in report.items})
        print(f"check_docs: {len(report.items)} violations of rules: {', '.join(rules)}")
        return 1
    print(f"check_docs: {len(files)} files, {len(docs)} docs pages: every rule holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
