# SPDX-License-Identifier: BSD-3-Clause
"""What needs no RDMA device: every cmocka case of tests/unit (verbs and
rdmacm mocked) and of log/tests/unit, each unit program's exit (a crash
after its cases, a leak valgrind found), and the tree's own checks
(scripts, documentation, the installed and the static library, the
instruction budget)."""

import os

import pytest
from conftest import TOP

from harness import cmocka


def programs(folder, prefix, built):
    """Each module of FOLDER (FOLDER/M/M.c): its name PREFIX+M, its source
    and where the build puts unit_PREFIX+M (BUILT, a folder of the build)."""
    root = os.path.join(TOP, folder)
    return {prefix + d: (os.path.join(root, d, f"{d}.c"), built)
            for d in sorted(os.listdir(root)) if os.path.isfile(os.path.join(root, d, f"{d}.c"))}


# librpma's modules, and the replicated log's (doc/LOG.md)
PROGRAMS = {**programs("tests/unit", "", "tests/unit"),
            **programs("log/tests/unit", "rpmalog_", "log/tests")}
MODULES = list(PROGRAMS)
CASES = [(m, c) for m in MODULES for c in cmocka.cases(PROGRAMS[m][0])]
# under valgrind a unit program may leak nothing at all, not even what
# stays reachable (the mocks free everything)
UNIT_MEMCHECK = ["--errors-for-leak-kinds=all", "--show-leak-kinds=all"]
UNIT_VARIANTS = ("plain", "sanitizers", "valgrind")


def unit_report(run, module):
    """unit_MODULE run once on the target: its cmocka Report."""
    key = (run.target, run.round, module)
    reports = run.session.__dict__.setdefault("unit_reports", {})
    if key not in reports:
        argv = [run.build.bin(PROGRAMS[module][1], f"unit_{module}")]
        if module == "api":
            argv.append(f"{run.place.top}/src/librpma.map")
        if run.wrapper:
            argv = run.wrapper + UNIT_MEMCHECK + argv
        xml = os.path.join(run.place.results, "unit", run.target.id, f"unit_{module}.xml")
        os.makedirs(os.path.dirname(xml), exist_ok=True)
        reports[key] = cmocka.run(run.place.remote, argv, (run.place.there(xml), xml),
                                  timeout=run.limit(120))
    return reports[key]


@pytest.mark.target(hosts=0, variants=UNIT_VARIANTS)
@pytest.mark.parametrize("module,case", CASES, ids=[f"{m}-{c}" for m, c in CASES])
def test_case(run, module, case):
    unit_report(run, module).verdict(case)


@pytest.mark.target(hosts=0, variants=UNIT_VARIANTS)
@pytest.mark.parametrize("module", MODULES)
def test_program(run, module):
    """It ends well: no crash at exit, no leak, its source's cases reported, no other."""
    problem = unit_report(run, module).program(cmocka.cases(PROGRAMS[module][0]))
    assert problem is None, f"unit_{module}: {problem}"


def check(run, argv, timeout=300, wrapper=()):
    """ARGV ({top} and {build} filled in) run from the top of the tree."""
    argv = [a.format(top=run.place.top, build=run.build.path) for a in argv]
    return run.place.remote.checked(list(wrapper) + argv, cwd=run.place.top,
                                    timeout=run.limit(timeout))


# the tree's checks, each a program that exits 0 when all is well
CHECKS = {
    "shellcheck": ["tests/scripts/check-scripts", "shellcheck", "{top}"],
    "script_deps": ["tests/scripts/check-scripts", "deps", "{top}"],
    "script_list": ["tests/scripts/check-scripts", "list", "{top}"],
    "other_release": ["tests/scripts/check-other-release", "{top}"],
    "doc_links": ["tests/doc/check-doc", "links", "{top}"],
    "doc_excerpts": ["tests/doc/check-doc", "excerpts", "{top}"],
    "doc_synopsis": ["doc/check-synopsis", "{top}"],
    "doc_man": ["doc/check-man", "{build}/doc/man"],
    "pyflakes": ["pyflakes3", "tests/harness", "tests/py", "utils/demo.d"],
}
# those of a built library a user's program links: not of a sanitizer build
LINKED = {
    "install": ["tests/install/check-install", "{build}", "{build}/tests/install/work"],
    "static_symbols": ["tests/static/check-static", "{build}/src/librpma.a", "src/librpma.map",
                       "{build}/tests/static/work"],
}
CFG_THREADS = ["{build}/tests/integration/threads/rpma-cfg-threads"]


@pytest.mark.target(hosts=0)
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_check(run, name):
    check(run, CHECKS[name])


@pytest.mark.target(hosts=0, variants=("plain", "valgrind"))
@pytest.mark.parametrize("name", sorted(LINKED))
def test_linked(run, name):
    check(run, LINKED[name], wrapper=run.wrapper)


@pytest.mark.target(hosts=0, variants=("plain", "sanitizers"))
def test_cfg_threads(run):
    """Threads sharing one configuration of each kind: no device needed."""
    check(run, CFG_THREADS)


@pytest.mark.target(hosts=0, variants=("valgrind",))
@pytest.mark.parametrize("tool", ("helgrind", "drd"))
def test_cfg_threads_race(run, tool):
    """The same under helgrind and drd, with no suppression: the
    configurations' fields are atomic, as in librpma 1.x."""
    check(run, ["valgrind", f"--tool={tool}", "--error-exitcode=99", "--vgdb=no"] + CFG_THREADS)


@pytest.mark.target(hosts=0, variants=("budget",))
def test_budget(run):
    """The instructions each data-path call runs inside the library."""
    objects = os.path.join(run.build.path, "src", "CMakeFiles", "rpma_objects.dir")
    found = sorted(f for f in os.listdir(run.place.here(objects)) if f.endswith(".o"))
    check(run, ["tests/budget/check-budget", "{build}/tests/budget/rpma-budget",
                "tests/budget/budgets"] + [os.path.join(objects, f) for f in found], 600)
