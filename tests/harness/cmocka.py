# SPDX-License-Identifier: BSD-3-Clause
"""A cmocka program's cases: named from its source, run once, and each
case's outcome read from the program's own XML report."""

import contextlib
import os
import re
import xml.etree.ElementTree as ET

import pytest

# an entry of a program's table of cases: TEST(test_x), LTEST(test_x),
# cmocka_unit_test...(test_x, ...)
ENTRY = re.compile(r"^\s*(?:[A-Z]*TEST|cmocka_unit_test\w*)\((test_\w+)", re.M)


def cases(source):
    """The case names of the table in the C file SOURCE, in its order."""
    with open(source, encoding="utf-8") as f:
        text = f.read()
    return ENTRY.findall(text[text.index("const struct CMUnitTest"):])


class Report:
    """One run of a program: its Proc and each reported case's failure
    message (None: it passed). Each failure counts once: a failed case is
    its own; a program that ended badly with every reported case passed
    (a crash, a leak found at exit, a case list not its source's) is the
    program's, and the cases it never reported are skipped, saying so."""

    def __init__(self, proc, outcomes):
        self.proc = proc
        self.outcomes = outcomes

    def verdict(self, name):
        """Case NAME's outcome as the test's: passed, failed, or skipped."""
        if name not in self.outcomes:
            pytest.skip(f"never reported: the program ended with status {self.proc.status} "
                        f"before (its own test says why)")
        if self.outcomes[name] is not None:
            pytest.fail(self.outcomes[name])

    def program(self, listed):
        """What is wrong beside its cases (LISTED: its source's), or None."""
        extra, missing = set(self.outcomes) - set(listed), set(listed) - set(self.outcomes)
        if extra:
            return f"reported but not in its source: {sorted(extra)}"
        if self.proc.status == 0 and missing:
            return f"in its source but not reported: {sorted(missing)}"
        if self.proc.status != 0 and not any(self.outcomes.values()):
            return f"it exited {self.proc.status}, no case having failed:\n{self.proc.output}"
        return None


def run(remote, argv, xml, env=None, timeout=600):
    """ARGV (cmocka) run, its XML report at XML (REMOTE's path, ours): a Report."""
    xml_there, xml_here = xml
    with contextlib.suppress(OSError):
        os.unlink(xml_here)
    env = dict(env or {}, CMOCKA_MESSAGE_OUTPUT="XML", CMOCKA_XML_FILE=xml_there)
    proc = remote.call(argv, env=env, timeout=timeout)
    return Report(proc, parse(xml_here))


def parse(path):
    outcomes = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return outcomes
    for case in root.iter("testcase"):
        problem = next(iter(case.findall("failure") + case.findall("error")), None)
        outcomes[case.get("name")] = None if problem is None else (
            problem.get("message") or problem.text or "failed")
    return outcomes
