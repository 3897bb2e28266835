# SPDX-License-Identifier: BSD-3-Clause
"""The one pair runner: a server, then its clients, on one place or two.

A server is ready once it prints "listening on ADDR:PORT"; its clients
start then, all at once, each within a time limit. Once one side ended
with a failure, the other gets GRACE seconds more, then is stopped: a
server left waiting for a client that is gone (or the other way round)
ends the test at once. The port is the caller's, from its boot (ports.py)."""

import re
import signal
import time
from dataclasses import dataclass, field

from harness.remote import LOST

READY = r"listening on \S+:\d+"
# an example's client connecting right after a connection on the same
# host closed can meet the old one in the CM's time-wait, which the
# passive side rejects as stale: such a client runs again, saying so
REJECTED = re.compile(r"RPMA_CONN_REJECTED|RPMA_CONN_UNREACHABLE|ECONNREFUSED")
REJECTED_PAUSE = 2
POLL = 0.05


@dataclass
class Side:
    """One program of a pair, where it runs and the status it must end
    with (137: it kills itself; LOST: its host goes away under it)."""
    place: object
    argv: list
    env: dict = field(default_factory=dict)
    expect: object = 0
    name: str = "client"


@dataclass
class Result:
    procs: list
    failures: list

    @property
    def ok(self):
        return not self.failures

    def report(self):
        """What failed, then every program's output."""
        text = list(self.failures)
        for proc in self.procs:
            text.append(f"--- {proc.name}: {' '.join(proc.argv)} (status {proc.status})")
            text.extend("    | " + line for line in proc.lines)
        return "\n".join(text)

    def output(self, name):
        return next(p.output for p in self.procs if p.name == name)


def judge(proc, expect, limit):
    """What went wrong with PROC, or None."""
    if proc.status == expect:
        return None
    if proc.timed_out:
        return f"the {proc.name} did not finish within {limit} s"
    if getattr(proc, "stopped", False):
        return f"the {proc.name} was stopped, its peers being done"
    if proc.status == LOST:
        return f"the {proc.name}'s host went away"
    if proc.status == 137 and expect == 0:
        return f"the {proc.name} was killed"
    if expect == 137:
        return f"the {proc.name} exited with {proc.status}, expected it to be killed"
    return f"the {proc.name} failed with status {proc.status}"


def start(side, limit, wrapper=()):
    proc = side.place.run(list(wrapper) + list(side.argv), side.env, timeout=limit)
    proc.name, proc.side = side.name, side
    return proc


def run(server, clients, limit, wrapper=(), ready=READY, retries=0, grace=10, listeners=1):
    """SERVER (or None), then CLIENTS once it said LISTENERS times that it
    listens: a Result. RETRIES: how often a client REJECTED runs again."""
    procs = []
    if server is not None:
        sproc = start(server, limit, wrapper)
        procs.append(sproc)
        if sproc.wait_line(ready, limit, listeners) is None:
            sproc.kill()
            sproc.wait(grace)
            return Result(procs, [f"the server never got ready (status {sproc.status})"])
    first = len(procs)
    procs += [start(side, limit, wrapper) for side in clients]
    tries = [0] * len(clients)
    stop_at = None
    while True:
        for i, proc in enumerate(procs[first:]):
            # (while the server still listens: a client of one gone is refused for good)
            rejected = proc.status not in (None, 0) and REJECTED.search(proc.output)
            if rejected and tries[i] < retries and (server is None or sproc.status is None):
                print(f"pair: {proc.name} rejected ({rejected[0]}): "
                      f"runs again in {REJECTED_PAUSE} s")
                tries[i] += 1
                time.sleep(REJECTED_PAUSE)
                procs[first + i] = start(proc.side, limit, wrapper)
        if all(p.status is not None for p in procs):
            break
        if stop_at is None and side_failed(procs, server):
            stop_at = time.monotonic() + grace
        if stop_at is not None and time.monotonic() > stop_at:
            for proc in procs:
                if proc.status is None:
                    proc.stopped = True
                    proc.signal(signal.SIGTERM)
            stop_at = float("inf")
        time.sleep(POLL)
    failures = [problem for problem in (judge(p, p.side.expect, limit) for p in procs) if problem]
    return Result(procs, failures)


def side_failed(procs, server):
    """Whether every process of one side has ended, one of them failed."""
    for serving in (True, False):
        group = [p for p in procs if (p.side is server) == serving]
        if group and all(p.status is not None for p in group) and \
                any(p.status != p.side.expect for p in group):
            return True
    return False
