#!/usr/bin/env python3
"""lint.layering: every #include of opbench's code keeps the layering docs/architecture.md states.

The table under "## Modules" in docs/architecture.md lists each module and the modules it may
include; this reads it from there (so the page and the check cannot drift apart) and fails, naming
file, line and rule, on any include of another module's header that the table does not allow.
A module is a folder: src/<module>/, include/opbench/<module>/, and samples/ for `samples`.
Includes of a module's own headers, of the standard library and of third-party headers are free.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "architecture.md")


def read_rules():
    rules = {}
    in_table = False
    with open(DOC, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_table = line.strip() == "## Modules"
                continue
            if not in_table or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3 or cells[0] in ("module", "") or set(cells[0]) <= set("-: "):
                continue
            module = cells[0].strip("`")
            allowed = re.findall(r"`([a-z_]+)`", cells[2])
            rules[module] = set(allowed)
    if not rules:
        sys.exit(f"lint.layering: no module table under '## Modules' in {DOC}")
    return rules


def module_of(path):
    rel = os.path.relpath(path, ROOT).split(os.sep)
    if rel[0] == "src" and len(rel) > 2:
        return rel[1]
    if rel[:2] == ["include", "opbench"] and len(rel) > 3:
        return rel[2]
    if rel[0] == "samples":
        return "samples"
    return None


def included_module(path, name):
    m = re.match(r"opbench/([a-z_]+)/", name)
    if m:
        return m.group(1)
    here = os.path.join(os.path.dirname(path), name)
    if os.path.exists(here):
        return module_of(here)
    if os.path.exists(os.path.join(ROOT, "samples", name)):
        return "samples"
    return "?"


def main():
    rules = read_rules()
    problems = []
    for top in ("src", "include", "samples"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp", ".h", ".cu")):
                    continue
                path = os.path.join(folder, name)
                module = module_of(path)
                if module is None:
                    continue  # src/main.cpp: the one line that calls cli::main
                if module not in rules:
                    problems.append(f"{os.path.relpath(path, ROOT)}: module '{module}' is not in the table of {os.path.relpath(DOC, ROOT)}")
                    continue
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if not m:
                            continue
                        other = included_module(path, m.group(1))
                        if other == module:
                            continue
                        if other == "?":
                            problems.append(f"{os.path.relpath(path, ROOT)}:{number}: cannot tell which module \"{m.group(1)}\" belongs to")
                        elif other not in rules[module]:
                            allowed = ", ".join(sorted(rules[module])) or "none"
                            problems.append(f"{os.path.relpath(path, ROOT)}:{number}: {module} includes {other} "
                                            f"(\"{m.group(1)}\"); {module} may include: {allowed}")
    for p in problems:
        print(p)
    print(f"lint.layering: {len(problems)} include(s) against docs/architecture.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
