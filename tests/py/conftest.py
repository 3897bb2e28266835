# SPDX-License-Identifier: BSD-3-Clause
"""The suite's pytest plugin: the matrix expanded into every test that
takes a `run`, the items ordered so that each boot runs all its tests in
one go, utils/test's parts as a selection, and a guest kernel's crash
taken as the environment's, not the test's: the test runs once more."""

import functools
import os
import sys
import time

import pytest
from _pytest.runner import runtestprotocol

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

from harness.session import Run, Session  # noqa: E402


def pytest_addoption(parser):
    group = parser.getgroup("librpma", "librpma's suite (utils/test --help)")
    group.addoption("--part", action="append", default=[], metavar="PART",
                    help="run only this part of the suite (repeatable)")
    group.addoption("--boot", action="append", default=[], metavar="ROW",
                    help="run the matrix row ROW, which its skip leaves out otherwise")
    group.addoption("--long", action="store_true", help="run the long tests too")
    group.addoption("--fuzz-seconds", type=int, default=30)
    group.addoption("--fault-seconds", type=int, default=900,
                    help="start no fault run after this many seconds (0: no limit)")
    group.addoption("--seed", type=int, default=int(time.strftime("%j")),
                    help="the seed of the day's slices: the faults' and the sampled "
                    "variants' (default: the day of the year)")
    group.addoption("--fault-step", type=int, default=40)
    group.addoption("--fault-max", type=int, default=100)
    group.addoption("--fault-all", action="store_true", help="every target, not half")
    group.addoption("--results", default=os.path.join(TOP, "test-results"))
    group.addoption("--count", type=int, default=1, metavar="N",
                    help="run every test N times, round after round (utils/stress)")


def pytest_configure(config):
    config.addinivalue_line("markers", "target(hosts=0, variants=('plain',), other=True): runs "
                            "on every matrix target with that many hosts (0: this machine, no "
                            "VM) and one of these variants (other=False: not the other release's)")
    config.addinivalue_line("markers", "part(NAME): the part of utils/test a test without "
                            "a target belongs to")
    config.addinivalue_line("markers", "ahead(work=WORK): WORK(session, target, **params) is done "
                            "ahead, while the VMs run, and the test checks what it returned "
                            "(run.ahead()); such tests come last")
    config.rpma = Session(TOP, config.getoption("results"), config.getoption("boot"))
    config.rpma.options = config.option


def pytest_unconfigure(config):
    if hasattr(config, "rpma"):
        config.rpma.close()


@pytest.fixture
def round_(request):
    return request.param


def pytest_generate_tests(metafunc):
    count = metafunc.config.getoption("count")
    if count > 1:
        metafunc.fixturenames.append("round_")
        metafunc.parametrize("round_", range(1, count + 1), indirect=True,
                             ids=[f"round{n}" for n in range(1, count + 1)])
    if "target" not in metafunc.fixturenames:
        return
    # a module's marker (pytestmark), a test's own over it key by key
    kwargs = {k: v for mark in reversed(list(metafunc.definition.iter_markers("target")))
              for k, v in mark.kwargs.items()}
    targets = metafunc.config.rpma.matrix.expand(kwargs.get("hosts", 0),
                                                 set(kwargs.get("variants", ("plain",))))
    if not kwargs.get("other", True):
        targets = [t for t in targets if t.place == "host"]
    metafunc.parametrize("target", targets, ids=[t.id for t in targets])


def param(item, name, default=None):
    callspec = getattr(item, "callspec", None)
    return callspec.params.get(name, default) if callspec else default


target_of = functools.partial(param, name="target")


def work_of(item):
    """The work an item's test has done ahead (its marker ahead), or None."""
    mark = item.get_closest_marker("ahead")
    if mark is None:
        return None
    params = {k: v for k, v in item.callspec.params.items() if k not in ("target", "round_")}
    return functools.partial(mark.kwargs["work"], item.config.rpma, target_of(item), **params)


def sampled(config, target, seen):
    """Whether the next of TARGET's tests is in the day's sample: the
    K-th of a target sampled one in N runs where K % N is the seed's.
    A test chosen by name (-k, -m) runs whatever the day."""
    if config.option.keyword or config.option.markexpr:
        return True
    every = config.rpma.matrix.sample(target)
    k = seen[target] = seen.get(target, -1) + 1
    return k % every == config.getoption("seed") % every


def pytest_collection_modifyitems(session, config, items):
    rpma = config.rpma
    order = {t: i for i, t in enumerate(rpma.matrix.targets())}
    wanted = set(config.getoption("part"))
    kept, dropped, seen = [], [], {}
    for item in items:
        target = target_of(item)
        if target is None:
            parts, runs = {m.args[0] for m in item.iter_markers("part")}, True
        else:
            parts, runs = rpma.matrix.parts(target), rpma.matrix.runs(target, param(item, "memory"))
            runs = runs and (bool(parts & wanted) or sampled(config, target, seen))
        (kept if runs and (not wanted or parts & wanted) else dropped).append(item)
    # each boot's tests in one go (with --count, round after round); those
    # whose work is done ahead last, by when it is
    kept.sort(key=lambda item: (work_of(item) is not None,
                                order.get(target_of(item), len(order)), param(item, "round_", 1)))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept
    if not config.option.collectonly:
        rpma.plan(filter(None, map(target_of, kept)),
                  [(item.nodeid, work_of(item)) for item in kept if work_of(item) is not None])


@pytest.fixture
def run(request, target):
    rpma = request.config.rpma
    reason = rpma.matrix.skip_reason(target)
    if reason:
        pytest.skip(reason)
    made = Run(rpma, target, param(request.node, "round_", 1), request.config.getoption("long"))
    work = work_of(request.node)
    made.ahead = lambda: rpma.later(request.node.nodeid, work)
    return made


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    # in the call, not the set-up: a build or boot that failed fails the test
    if "run" in pyfuncitem.funcargs:
        pyfuncitem.funcargs["run"].ready()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    rpma = item.config.rpma
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    reports = runtestprotocol(item, nextitem=nextitem, log=False)
    crash = rpma.boot.crash() if rpma.boot and any(r.failed for r in reports) else None
    if crash:
        # the next boot is a new one; the first try's consoles stay
        rpma.stop_boot()
        item.user_properties.append(("retried", f"the guest kernel crashed: {crash}"))
        print(f"\n{item.nodeid}: the guest kernel crashed ({crash}): runs once more",
              file=sys.stderr)
        item._initrequest()
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
    failed = [r for r in reports if r.failed]
    # what a failed test leaves behind must not fail the next one
    rpma.restart = rpma.restart or bool(failed)
    for report in failed:
        report.sections.append(("the boot after the failure", rpma.diagnose()))
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
