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

from harness import pair

REPLICAS = 3
LOG_BYTES = 8 << 20
LIMIT = 120
CASES = ["basic", "fence", "killed", "killed_all", "restamp", "rejoin", "bad"]
IWARP = "no type-2 memory windows: each replica refuses the writer, its device binding no grant"


def log_file(run, memory, port):
    return f"{run.session.matrix.memory[memory]['dir']}/rpmalog-{port}"


def replica(run, memory, port):
    """rpmalogd on PORT, listening, its log a new file in MEMORY's folder: its Proc."""
    path = log_file(run, memory, port)
    run.host().checked(["rm", "-f", path])
    proc = run.host().run(run.wrapper + [run.build.bin("log", "rpmalogd"), "--create",
                                         str(LOG_BYTES), run.ip(), str(port), path],
                          run.env, timeout=run.limit(LIMIT))
    proc.name = f"replica {port}"
    assert proc.wait_line(pair.READY, run.limit(60)), f"{proc.name} never listened:\n{proc.output}"
    return proc


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
    writer = run.host().run(run.wrapper + [run.build.bin("log", "tests", "rpmalog-test"), case,
                                           *names], env, timeout=run.limit(LIMIT))
    writer.name = "writer"
    try:
        if case == "rejoin" and writer.wait_line("start the third replica", run.limit(LIMIT)):
            procs.append(replica(run, memory, first + 2))
        writer.wait(run.limit(LIMIT) + 10)
    finally:
        for proc in procs:
            proc.signal(signal.SIGTERM)
    stopped = [proc.wait(run.limit(30)) for proc in procs]
    report = "\n".join(f"--- {p.name}: {' '.join(p.argv)} (status {p.status})\n{p.output}"
                       for p in [writer, *procs])
    assert writer.status == (1 if iwarp else 0) and stopped == stops[:len(procs)], report
    if iwarp:
        print(f"on iWARP it asserts the clear error instead: {IWARP}")
        assert "its device binds no grant" in writer.output, report


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
