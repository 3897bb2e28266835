# SPDX-License-Identifier: BSD-3-Clause
"""The replicated log of log/ (doc/LOG.md) end to end: three rpmalogd
replicas on the boot's host, each keeping its log in a file of its own,
and a case of rpmalog-test against them (its source says what each
checks); each replica then stops cleanly at SIGTERM, but the one a case
kills."""

import os
import re
import signal

import pytest
from conftest import TOP

from harness import pair, remote

REPLICAS = 3
LOG_BYTES = 8 << 20
LIMIT = 120
CASES = ["basic", "fence", "killed", "killed_all", "restamp", "rejoin", "bad", "writer_killed"]
IWARP = "no type-2 memory windows: each replica refuses the writer, its device binding no grant"
# a device's log undone where a file's is removed: its header slots zeroed
UNLOG = ("import mmap, os, sys; "
         "mmap.mmap(os.open(sys.argv[1], os.O_RDWR), 1 << 21)[:128] = bytes(128)")


def log_file(run, memory, port, host=0):
    """Where replica PORT on HOST keeps its log: a file in MEMORY's folder, or its device."""
    kind = run.session.matrix.memory[memory]
    return f"{kind['dir']}/rpmalog-{port}" if "dir" in kind else run.host(host).env[kind["env"]]


def replica(run, memory, port, host=0, fresh=True):
    """rpmalogd on HOST's PORT, listening, its log in MEMORY (a new one if FRESH): its Proc."""
    path = log_file(run, memory, port, host)
    if fresh:
        run.host(host).checked(["rm", "-f", path] if "dir" in run.session.matrix.memory[memory]
                               else [remote.PYTHON, "-c", UNLOG, path])
    # (it outlives its writer's limit: SIGTERM stops it)
    proc = run.host(host).run(run.wrapper + [run.build.bin("log", "rpmalogd"), "--create",
                                             str(LOG_BYTES), run.ip(host), str(port), path],
                              run.env, timeout=run.limit(3 * LIMIT))
    proc.name = f"replica {port} on host {host}"
    assert proc.wait_line(pair.READY, run.limit(60)), f"{proc.name} never listened:\n{proc.output}"
    return proc


def writer(run, case, names, env, limit=LIMIT):
    """rpmalog-test CASE on host 0 against the replicas NAMES: its Proc, expecting
    exit 0 (1 on iWARP, where it fails at the open)."""
    proc = run.host().run(run.wrapper + [run.build.bin("log", "tests", "rpmalog-test"), case,
                                         *names], env, timeout=run.limit(limit))
    proc.name, proc.expect = "writer", 1 if run.caps["iwarp"] else 0
    return proc


def ended(run, writers, procs, stops):
    """The WRITERS waited for, then each replica of PROCS stopped (SIGTERM):
    each writer's status the one it expects, the replicas' STOPS; on iWARP
    the writer's clear error."""
    for proc in writers:
        proc.wait(run.limit(3 * LIMIT))
    for proc in procs:
        proc.signal(signal.SIGTERM)
    stopped = [proc.wait(run.limit(30)) for proc in procs]
    report = "\n".join(f"--- {p.name}: {' '.join(p.argv)} (status {p.status})\n{p.output}"
                       for p in [*writers, *procs])
    assert [w.status for w in writers] == [w.expect for w in writers], report
    assert stopped == stops, report
    if run.caps["iwarp"]:
        print(f"on iWARP it asserts the clear error instead: {IWARP}")
        assert "its device binds no grant" in writers[-1].output, report


@pytest.mark.target(hosts=1, variants=("plain", "sanitizers", "valgrind"))
@pytest.mark.parametrize("memory", ["file"])
@pytest.mark.parametrize("case", CASES)
def test_log(run, case, memory):
    first, iwarp = run.port(REPLICAS), run.caps["iwarp"]
    names = [f"{run.ip()}:{port}" for port in range(first, first + REPLICAS)]
    # (rejoin's third replica starts once the writer asks for it)
    procs = [replica(run, memory, first + i) for i in range(REPLICAS - (case == "rejoin"))]
    env, stops = dict(run.env), [0] * REPLICAS
    env["RPMALOG_TEST_FILES"] = ":".join(log_file(run, memory, first + i) for i in range(REPLICAS))
    victim = {"killed": 2, "killed_all": 2, "rejoin": 0}.get(case)
    if victim is not None:
        env["RPMALOG_TEST_KILL"] = re.search(r"pid (\d+)", procs[victim].output)[1]
        stops[victim] = 0 if iwarp else 137
    writers = [writer(run, case, names, env)]
    try:
        if case == "rejoin" and writers[0].wait_line("start the third replica", run.limit(LIMIT)):
            procs.append(replica(run, memory, first + 2))
        # killed once it told an append of its that returned, whichever is in flight then
        if case == "writer_killed" and writers[0].wait_line("^appended 20$", run.limit(LIMIT)):
            writers[0].kill()
            writers[0].expect = 137
            writers[0].wait(run.limit(30))
            told = re.findall(r"^appended (\d+)$", writers[0].output, re.M)
            env["RPMALOG_TEST_NEXT"] = str(int(told[-1]) + 1)
            writers.append(writer(run, case, names, env))
    finally:
        ended(run, writers, procs, stops[:len(procs)])


@pytest.mark.target(hosts=0)
def test_public_api_only(run):
    """librpmalog reaches librpma through the public API alone: each
    librpma symbol it needs is one librpma.map exports."""
    nm = run.place.remote.checked(["nm", "-D", "--undefined-only",
                                   run.build.bin("log", "librpmalog.so")])
    used = {line.split()[-1].split("@")[0] for line in nm.lines if "rpma_" in line}
    with open(os.path.join(TOP, "src", "librpma.map"), encoding="utf-8") as f:
        public = set(re.findall(r"\b(rpma_\w+);", f.read()))
    assert used and used <= public, f"not librpma's API: {sorted(used - public)}"
