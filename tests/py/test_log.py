# SPDX-License-Identifier: BSD-3-Clause
"""The replicated log of log/ (doc/LOG.md) end to end: three rpmalogd
replicas on the boot's host, each keeping its log in a file of its own,
and a case of rpmalog-test against them (its source says what each
checks); each replica then stops cleanly at SIGTERM, but the one a
killed case kills."""

import os
import re
import signal

import pytest
from conftest import TOP

from harness import pair

REPLICAS = 3
LOG_BYTES = 8 << 20
LIMIT = 120
CASES = ["basic", "fence", "killed", "killed_all"]
IWARP = "no type-2 memory windows: each replica refuses the writer, its device binding no grant"


def replicas(run, memory):
    """REPLICAS rpmalogd, each listening, its log a new file in MEMORY's
    folder: their Procs and their "addr:port"s."""
    host, first = run.host(), run.port(REPLICAS)
    folder = run.session.matrix.memory[memory]["dir"]
    procs, names = [], []
    for port in range(first, first + REPLICAS):
        path = f"{folder}/rpmalog-{port}"
        host.checked(["rm", "-f", path])
        procs.append(host.run(run.wrapper + [run.build.bin("log", "rpmalogd"), "--create",
                                             str(LOG_BYTES), run.ip(), str(port), path],
                              run.env, timeout=run.limit(LIMIT)))
        procs[-1].name = f"replica {port}"
        assert procs[-1].wait_line(pair.READY, run.limit(60)), \
            f"{procs[-1].name} never listened:\n{procs[-1].output}"
        names.append(f"{run.ip()}:{port}")
    return procs, names


@pytest.mark.target(hosts=1, variants=("plain", "sanitizers", "valgrind"))
@pytest.mark.parametrize("memory", ["file"])
@pytest.mark.parametrize("case", CASES)
def test_log(run, case, memory):
    procs, names = replicas(run, memory)
    env, stops = dict(run.env), [0] * REPLICAS
    if case.startswith("killed"):
        env["RPMALOG_TEST_KILL"] = re.search(r"pid (\d+)", procs[-1].output)[1]
        stops[-1] = 0 if run.caps["iwarp"] else 137
    writer = pair.Side(run.host(), [run.build.bin("log", "tests", "rpmalog-test"), case, *names],
                       env, expect=1 if run.caps["iwarp"] else 0, name="writer")
    try:
        result = pair.run(None, [writer], run.limit(LIMIT), wrapper=run.wrapper)
    finally:
        for proc in procs:
            proc.signal(signal.SIGTERM)
    stopped = [proc.wait(run.limit(30)) for proc in procs]
    report = result.report() + "".join(f"\n--- {p.name} (status {p.status})\n{p.output}"
                                       for p in procs)
    assert result.ok and stopped == stops, report
    if run.caps["iwarp"]:
        print(f"on iWARP it asserts the clear error instead: {IWARP}")
        assert "its device binds no grant" in result.output("writer"), report


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
