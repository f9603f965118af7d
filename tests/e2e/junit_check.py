#!/usr/bin/env python3
"""Checks a JUnit XML file against the rules of Jenkins' junit-4 schema (the one GitLab and
GitHub's test reporters read too): which elements, in which order, with which attributes, and
counts that agree with the test cases. Exit 0 when it holds, 1 with the first rule broken.
Used by tests/e2e/test_cli_gate.cpp on `compare --format junit` and the gate's."""
import sys
import xml.etree.ElementTree as ET

SUITES = {"name", "time", "tests", "failures", "disabled", "errors"}
SUITE = {"name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp",
         "hostname", "id", "package"}
CASE = {"name", "assertions", "time", "classname", "status"}
PROBLEM = {"type", "message"}
# A test case's children: in this order, each at most as often as said (None: any number).
CASE_CHILDREN = [("skipped", 1), ("error", None), ("failure", None), ("system-out", None),
                 ("system-err", None)]
SUITE_CHILDREN = [("properties", 1), ("testcase", None), ("system-out", 1), ("system-err", 1)]


def fail(why):
    print("junit_check: " + why)
    sys.exit(1)


def attributes(element, allowed, required=()):
    extra = set(element.attrib) - set(allowed)
    if extra:
        fail(f"<{element.tag}> has attribute(s) the schema does not: {sorted(extra)}")
    for name in required:
        if name not in element.attrib:
            fail(f"<{element.tag}> lacks its required attribute '{name}'")


def in_order(element, order):
    position = 0
    seen = {}
    for child in element:
        names = [name for name, _ in order]
        if child.tag not in names:
            fail(f"<{element.tag}> holds <{child.tag}>, which the schema does not allow there")
        index = names.index(child.tag)
        if index < position:
            fail(f"<{child.tag}> comes after <{order[position][0]}> in <{element.tag}>")
        position = index
        seen[child.tag] = seen.get(child.tag, 0) + 1
        most = order[index][1]
        if most is not None and seen[child.tag] > most:
            fail(f"<{element.tag}> holds more than {most} <{child.tag}>")


def text_only(element, allowed):
    attributes(element, allowed)
    if len(element):
        fail(f"<{element.tag}> holds elements; the schema gives it text only")


def main(path):
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        fail(f"the root is <{root.tag}>, not <testsuites>")
    attributes(root, SUITES)
    for suite in root:
        if suite.tag != "testsuite":
            fail(f"<testsuites> holds <{suite.tag}>")
        attributes(suite, SUITE, ("name", "tests"))
        in_order(suite, SUITE_CHILDREN)
        cases = suite.findall("testcase")
        for properties in suite.findall("properties"):
            attributes(properties, ())
            for prop in properties:
                if prop.tag != "property":
                    fail(f"<properties> holds <{prop.tag}>")
                attributes(prop, ("name", "value"), ("name", "value"))
                if len(prop):
                    fail("<property> holds elements")
        for case in cases:
            attributes(case, CASE, ("name",))
            in_order(case, CASE_CHILDREN)
            for child in case:
                text_only(child, PROBLEM if child.tag in ("failure", "error") else ())
        counts = {"tests": len(cases),
                  "failures": sum(1 for c in cases if c.find("failure") is not None),
                  "errors": sum(1 for c in cases if c.find("error") is not None),
                  "skipped": sum(1 for c in cases if c.find("skipped") is not None)}
        for name, count in counts.items():
            if name in suite.attrib and int(suite.attrib[name]) != count:
                fail(f"<testsuite {name}=\"{suite.attrib[name]}\"> but it holds {count}")
    print(f"junit_check: {path} holds to the junit-4 schema's rules")


if __name__ == "__main__":
    main(sys.argv[1])
