# SPDX-License-Identifier: BSD-3-Clause
"""Fault injection: in a DEBUG_FAULT_INJECTION build, the N-th injection
point of one side's processes fails (RPMA_FAULT_INJECTION=N), and the run
must end cleanly:

  - an injected process ends by itself in time, with exit 0 or after an
    error message; never by a signal (but its own SIGKILL where it kills
    itself), a hang, a leak or a memory error (99: LeakSanitizer);
  - a peer may fail, but not crash nor leak; one still waiting when the
    injected side has ended gets GRACE seconds, then is stopped (a server
    waiting for clients that never come is no hang);
  - when every injected process exits 0, the peers must too;
  - a run whose fault did not fire (poll counts vary) must pass, then is
    skipped.

A day's slice, by a seed (utils/test --seed S replays it): the
targets (integration tests, rpma-threads, examples) whose index is the
seed modulo 2, each's clean run, then N = F, F + STEP ... MAX on each
side, F = seed % STEP + 1 (--fault-step 40, --fault-max 100); no run
starts after --fault-seconds. The whole sweep: --fault-all --fault-step
1 --fault-max 2000 --fault-seconds 0.
"""

import re
import time

import pytest

from examples import CHECKS, EXAMPLES, Example, Failed
from harness import pair
from integ import program, sides
from test_integration import BY_NAME, CASES

# the attacks are hundreds of connections: not swept
TARGETS = [("test", c.name) for c in CASES if not c.name.endswith("_attack")] + \
    [("test", "threads")] + [("example", e) for e in EXAMPLES]
LIMIT = 60
GRACE = 2
REACHED = re.compile(r"^librpma: fault injection points reached: (\d+)$", re.M)
FIRED = re.compile(r"fault injection: point \d+ fails")
# lines that are no error message of the program or the library
QUIET = re.compile(r"^librpma: fault injection points reached|fault injection: point \d+ fails|"
                   r"^==\d+==|^$|listening on ")


def slice_of(seed, every, step, most):
    """(target, side, N) of SEED's slice (N None: the clean run)."""
    runs = []
    for k, target in enumerate(TARGETS):
        if not every and k % 2 != seed % 2:
            continue
        runs.append((target, None, None))
        # rpma-threads' server and clients are threads of one process
        for side in ("client",) if target[1] == "threads" else ("client", "server"):
            runs += [(target, side, n) for n in range(seed % step + 1, most + 1, step)]
    return runs


def pytest_generate_tests(metafunc):
    if "fault" in metafunc.fixturenames:
        option = metafunc.config.getoption
        runs = slice_of(option("seed"), option("fault_all"), option("fault_step"),
                        option("fault_max"))
        metafunc.parametrize("fault", runs, ids=[
            f"{t[0]}-{t[1]}-{side or 'clean'}{'' if n is None else f'-N={n}'}"
            for t, side, n in runs])


def procs_of(run, target, side, n):
    """One run of TARGET with RPMA_FAULT_INJECTION=N on SIDE (0 on both
    when N is None): every process it ran, and what its checks found."""
    common = {"LSAN_OPTIONS": "exitcode=99", "RPMA_TEST_BULK_MIB": "2"}
    point = {**common, "RPMA_FAULT_INJECTION": str(0 if n is None else n)}
    server_env, client_env = (point if n is None or s == side else common
                              for s in ("server", "client"))
    kind, name = target
    if kind == "example":
        x = Example(run, name, pmem=True, server_env=server_env, client_env=client_env, retries=0)
        error = None
        try:
            CHECKS[name](x)
        except Failed as e:
            error = str(e)
        return [p for r in x.results for p in r.procs], error
    if name == "threads":
        proc = run.host().call([program(run, "rpma-threads"), "all", run.port(4)],
                               env=client_env, timeout=LIMIT + 30)
        proc.name, proc.side = "client", pair.Side(None, [])
        return [proc], None
    server, clients = sides(run, BY_NAME[name], server_env=server_env, client_env=client_env)
    result = pair.run(server, clients, LIMIT, grace=GRACE)
    return result.procs, "\n".join(result.failures) or None


def side_of(proc):
    return "server" if proc.name == "server" else "client"


def judge(procs, side, n, killed):
    """The problems of a run injected with N on SIDE, and whether the
    fault fired: its log line said so, or the side reached N points."""
    problems = []
    fired = False
    injected = [p for p in procs if side_of(p) == side]
    for proc in procs:
        mine = side_of(proc) == side
        status = "stopped" if getattr(proc, "stopped", False) else \
            "timeout" if proc.timed_out else proc.status
        what = ("" if mine else "the peer ") + " ".join(proc.argv[-3:])
        # SIGKILL is a side's own where it kills itself; a peer's where either does
        own_kill = status == 137 and (killed == side if mine else killed)
        fired = fired or mine and (bool(FIRED.search(proc.output)) or any(
            int(m[1]) >= n for m in REACHED.finditer(proc.output)))
        if mine and status == "timeout":
            problems.append(f"hang: {what} did not end within {LIMIT} s")
        elif mine and status == "stopped":
            problems.append(f"{what} was stopped: a hang")
        elif status == 99:
            problems.append(f"leak or memory error in {what}")
        elif isinstance(status, int) and status > 128 and not own_kill:
            problems.append(f"crash: {what} killed by signal {status - 128}")
        elif mine and status not in (0, 137) and all(QUIET.search(line) for line in proc.lines):
            problems.append(f"{what} exited {status} without an error message")
    if not injected:
        problems.append(f"no {side} process ran")
    elif all(p.status == 0 for p in injected) and any(
            p.status not in (0, 137) for p in procs if side_of(p) != side):
        problems.append(f"every {side} process succeeded, yet a peer failed")
    return problems, fired


def reached(procs, side):
    counts = [int(m[1]) for p in procs if side_of(p) == side for m in REACHED.finditer(p.output)]
    return max(counts) if counts else None


@pytest.mark.target(hosts=1, variants=("faults",))
def test_fault(run, fault, request):
    target, side, n = fault
    state = run.session.__dict__.setdefault("faults", {"start": None, "reached": {}})
    state["start"] = state["start"] or time.monotonic()
    budget = request.config.getoption("fault_seconds")
    if budget and time.monotonic() - state["start"] > budget:
        pytest.skip(f"the sweep's time limit: no run starts after {budget} s")
    killed = BY_NAME[target[1]].killed if target[0] == "test" and target[1] in BY_NAME else ""
    if n is None:
        procs, error = procs_of(run, target, None, None)
        assert error is None, f"the clean run (N=0) failed:\n{error}"
        state["reached"][target] = {s: reached(procs, s) for s in ("server", "client")}
        print(f"points reached: {state['reached'][target]}")
        return
    if target not in state["reached"]:
        pytest.skip("its clean run did not pass: not swept")
    k = state["reached"][target][side]
    if side != killed and (k is None or n > k):
        pytest.skip(f"the {side} side reaches {k or 'no'} points")
    procs, _ = procs_of(run, target, side, n)
    problems, fired = judge(procs, side, n, killed)
    assert not problems, "\n".join(problems) + "\n" + pair.Result(procs, problems).report()
    if not fired:
        pytest.skip("the fault did not fire (this run reached fewer points)")
