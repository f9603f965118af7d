#!/usr/bin/env python3
"""lint.layering_walkarounds: lint.layering (tests/lint/layering.py) fails on each way around it.

Each test copies the tree's sources and docs/architecture.md into a scratch folder, checks that
the copy passes, puts one violation in, and expects the check to fail naming it: the six
walk-arounds issue #60 found (angle-bracket includes, another module's internal header through
`../`, a file in no module, a .inl/.cuh/.ipp/.cc file, a table row allowing an arrow up the flow,
a function of one module defined in another), an arrow the table allows that nothing uses, and a
file over 450 lines.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tests", "lint", "layering.py")


class Walkarounds(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="opbench-layering-")
        for part in ("src", "include", "samples"):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(self.dir, part))
        os.makedirs(os.path.join(self.dir, "docs"))
        shutil.copy(os.path.join(ROOT, "docs", "architecture.md"), os.path.join(self.dir, "docs"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def check(self):
        done = subprocess.run([sys.executable, CHECK, "--root", self.dir], capture_output=True, text=True)
        return done.returncode, done.stdout

    def write(self, rel, text):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def append(self, rel, text):
        with open(os.path.join(self.dir, rel), "a", encoding="utf-8") as f:
            f.write(text)

    def fails(self, *said):
        code, out = self.check()
        self.assertEqual(code, 1, out)
        for s in said:
            self.assertIn(s, out)

    def test_the_tree_passes(self):
        code, out = self.check()
        self.assertEqual(code, 0, out)

    def test_an_include_with_angle_brackets(self):
        self.append("src/core/strings.cpp", "#include <opbench/report/reporter.hpp>\n")
        self.fails("core includes report", "angle brackets")

    def test_another_modules_internal_header_through_a_relative_path(self):
        self.append("src/report/csv_reporter.cpp", '#include "../results/result_fields.hpp"\n')
        self.fails("another module's internal header")

    def test_a_file_in_no_module(self):
        self.write("src/loose.cpp", "int loose() { return 1; }\n")
        self.write("include/opbench/loose.hpp", "#pragma once\n")
        self.fails("src/loose.cpp: in no module", "include/opbench/loose.hpp: in no module")

    def test_sources_of_other_kinds(self):
        for name in ("a.inl", "b.cuh", "c.ipp", "d.cc"):
            self.write("src/core/" + name, '#include "opbench/cli/main.hpp"\n')
        self.fails("a .inl file", "a .cuh file", "a .ipp file", "a .cc file", "core includes cli")

    def test_a_row_that_allows_an_arrow_up_the_flow(self):
        doc = os.path.join(self.dir, "docs", "architecture.md")
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        row = next(l for l in text.splitlines() if l.startswith("| `stats` |"))
        text = text.replace(row, row.rsplit("|", 2)[0] + "| `report` |")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(text)
        self.fails("stats may include report, which comes after it in the flow")

    def test_a_function_of_one_module_defined_in_another(self):
        self.append("src/core/strings.cpp", "namespace opbench::gate {\nint sneaky() { return 1; }\n}\n")
        self.append("src/core/files.cpp", "int opbench::report::other(int x) { return x; }\n")
        self.fails("src/core/strings.cpp", "core defines code of gate", "core defines code of report")

    def test_an_arrow_nothing_uses(self):
        doc = os.path.join(self.dir, "docs", "architecture.md")
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        row = next(l for l in text.splitlines() if l.startswith("| `stats` |"))
        text = text.replace(row, row.rsplit("|", 2)[0] + "| `core` |")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(text)
        self.fails("stats may include core, which no include of stats does")

    def test_a_file_over_450_lines(self):
        self.append("src/core/units.cpp", "\n" * 460)
        self.fails("src/core/units.cpp:", "over the 450 a file of core may have")

    def test_a_cli_file_over_300_lines(self):
        self.append("src/cli/merge_command.cpp", "\n" * 300)
        self.fails("src/cli/merge_command.cpp:", "over the 300 a file of cli may have")


if __name__ == "__main__":
    unittest.main()
