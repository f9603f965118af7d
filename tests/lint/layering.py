#!/usr/bin/env python3
"""lint.layering: opbench's code keeps the layering docs/architecture.md states, with no way around.

The table under "## Modules" in docs/architecture.md lists each module, in the order of the flow,
and the modules it may include; this reads it from there (so the page and the check cannot drift
apart) and fails, naming file, line and rule, on:
  - a row that allows a module listed after it (an arrow up the flow) or one not in the table, and
    an arrow the table allows that no include uses (the table says what the code does);
  - an include of another module's header the table does not allow, written either way
    (`"opbench/x/y.hpp"` or `<opbench/x/y.hpp>`, the latter also named as the wrong form);
  - an include of another module's internal header (its src/ folder, through `../` or otherwise),
    or any relative include that leaves its own folder;
  - a source file in no module (directly under src/ or include/opbench/; src/main.cpp, the one
    line that calls cli::main, aside) or of a kind opbench does not use (.cc, .inl, .cuh, .ipp ...:
    opbench's sources are .cpp, .hpp, .h and .cu);
  - a function of another module defined in this one (a .cpp reopening another module's namespace,
    or defining `other::name(...)`);
  - a file over 450 lines (the samples' tables aside), or a CLI file over 300.
A module is a folder: src/<module>/, include/opbench/<module>/, and samples/ for `samples`.
Includes of a module's own headers, of the standard library and of third-party headers are free.

    python3 tests/lint/layering.py [--root DIR]      (DIR: a copy of the tree; default this one)
"""
import os
import re
import sys

MAX_LINES = 450
# The CLI parses and calls the library: a subcommand's file stays short.
MAX_LINES_BY_MODULE = {"cli": 300}
SOURCES = (".cpp", ".hpp", ".h", ".cu")
# What a C or C++ source may be called elsewhere: never opbench's, so a file so named is flagged
# (and read, so that what it includes is judged too).
OTHER_SOURCES = (".c", ".cc", ".cxx", ".c++", ".hh", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".tcc",
                 ".cuh", ".ixx", ".cppm")


def read_rules(root):
    """The table: [(module, allowed, line)], in the page's order."""
    doc = os.path.join(root, "docs", "architecture.md")
    rows = []
    in_table = False
    with open(doc, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("## "):
                in_table = line.strip() == "## Modules"
                continue
            if not in_table or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3 or cells[0] in ("module", "") or set(cells[0]) <= set("-: "):
                continue
            rows.append((cells[0].strip("`"), re.findall(r"`([a-z_]+)`", cells[2]), number))
    if not rows:
        sys.exit(f"lint.layering: no module table under '## Modules' in {doc}")
    return rows


def check_table(rows, problems):
    """Each row may name only modules listed before it."""
    seen = []
    for module, allowed, number in rows:
        for other in allowed:
            if other == module:
                continue
            if other not in [m for m, _, _ in rows]:
                problems.append(f"docs/architecture.md:{number}: {module} may include '{other}', which is no module of the table")
            elif other not in seen:
                problems.append(f"docs/architecture.md:{number}: {module} may include {other}, which comes after it in the flow "
                                f"(a row names only modules listed before it)")
        seen.append(module)


def module_of(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "src" and len(rel) > 2:
        return rel[1]
    if rel[:2] == ["include", "opbench"] and len(rel) > 3:
        return rel[2]
    if rel[0] == "samples":
        return "samples"
    return None


def internal(root, path):
    """Whether `path` is a module's internal file (src/<module>/...), not a public header."""
    rel = os.path.relpath(path, root).split(os.sep)
    return rel[0] == "src" and len(rel) > 2


def included(root, path, name, angle):
    """(module, problem) of an include: the module it reaches ('' for outside code), and what is
    wrong with how it reaches it ('' when nothing)."""
    m = re.match(r"opbench/([a-z_]+)/", name)
    if m:
        return m.group(1), ("opbench's own header with angle brackets: write \"" + name + "\"") if angle else ""
    if angle:
        return "", ""  # the standard library, a third party
    here = os.path.normpath(os.path.join(os.path.dirname(path), name))
    if os.path.exists(here):
        other = module_of(root, here)
        folder = os.path.dirname(os.path.normpath(path))
        if not here.startswith(folder + os.sep):
            if internal(root, here) and other != module_of(root, path):
                return other, "another module's internal header (only include/opbench/<module>/ is public)"
            return other, "a relative include out of its own folder: write \"opbench/<module>/<file>\""
        return other, ""
    if os.path.exists(os.path.join(root, "samples", name)):
        return "samples", ""
    return "?", ""


def definitions_elsewhere(module, modules, text):
    """(line, other) of each function of another module that this .cpp defines."""
    found = []
    others = "|".join(m for m in modules if m != module)
    opening = re.compile(r"^\s*namespace\s+(?:opbench\s*::\s*)?(" + others + r")\b")
    defining = re.compile(r"^(?:[\w:<>,\*&]+\s+)+\**&?(?:opbench::)?(" + others + r")::[~\w]+\s*\(")
    for number, line in enumerate(text.splitlines(), 1):
        m = opening.match(line) or defining.match(line)
        if m and not line.rstrip().endswith(";"):
            found.append((number, m.group(1)))
    return found


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if len(argv) == 3 and argv[1] == "--root":
        root = os.path.abspath(argv[2])
    elif len(argv) != 1:
        sys.exit(__doc__)
    rows = read_rules(root)
    rules = {module: set(allowed) for module, allowed, _ in rows}
    problems = []
    check_table(rows, problems)
    used = {module: set() for module in rules}
    for top in ("src", "include", "samples"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                if name.endswith(OTHER_SOURCES):
                    problems.append(f"{rel}: a {os.path.splitext(name)[1]} file: opbench's sources are "
                                    f"{', '.join(SOURCES)}")
                elif not name.endswith(SOURCES):
                    continue
                module = module_of(root, path)
                if module is None:
                    if rel != os.path.join("src", "main.cpp"):
                        problems.append(f"{rel}: in no module: a source lives in src/<module>/ or "
                                        f"include/opbench/<module>/")
                    continue
                if module not in rules:
                    problems.append(f"{rel}: module '{module}' is not in the table of docs/architecture.md")
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                lines = text.count("\n")
                limit = MAX_LINES_BY_MODULE.get(module, MAX_LINES)
                if lines > limit and module != "samples":
                    problems.append(f"{rel}: {lines} lines, over the {limit} a file of {module} may have: split it")
                if rel.startswith("src" + os.sep) and not name.endswith((".hpp", ".h")):
                    for number, other in definitions_elsewhere(module, list(rules), text):
                        problems.append(f"{rel}:{number}: {module} defines code of {other}: a function lives "
                                        f"in its own module's folder")
                for number, line in enumerate(text.splitlines(), 1):
                    m = re.match(r'\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', line)
                    if not m:
                        continue
                    name_in = m.group(1) or m.group(2)
                    other, how = included(root, path, name_in, m.group(2) is not None)
                    if how:
                        problems.append(f"{rel}:{number}: {how} (\"{name_in}\")")
                    if other in ("", module):
                        continue
                    if other == "?":
                        problems.append(f"{rel}:{number}: cannot tell which module \"{name_in}\" belongs to")
                    elif other not in rules[module]:
                        allowed = ", ".join(sorted(rules[module])) or "none"
                        problems.append(f"{rel}:{number}: {module} includes {other} "
                                        f"(\"{name_in}\"); {module} may include: {allowed}")
                    else:
                        used[module].add(other)
    for module, allowed, number in rows:
        for other in sorted(set(allowed) - used.get(module, set()) - {module}):
            problems.append(f"docs/architecture.md:{number}: {module} may include {other}, which no include "
                            f"of {module} does: the table says what the code does")
    for p in problems:
        print(p)
    print(f"lint.layering: {len(problems)} problem(s) against docs/architecture.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
