# SPDX-License-Identifier: BSD-3-Clause
"""rpma-integ's pairs (tests/integration/tests.def), as the integration,
two-host and scale tests run them through the pair runner."""

import os
import re
from dataclasses import dataclass

import pytest
from conftest import TOP

from harness import pair

# a process's time limit: 105 s (under valgrind the variant's slower times)
LIMIT = 105


@dataclass(frozen=True)
class Case:
    """How a test of tests.def runs: NAME's clients, its server's program
    (integ, grant: rpma-integ-grant, or "": nobody listens), the side that
    kills itself, and what it asserts on iWARP instead (its reason)."""
    name: str
    clients: int = 1
    server: str = "integ"
    killed: str = ""
    iwarp: str = ""


def program(run, name="rpma-integ"):
    sub = {"rpma-scale": ("tests", "scale"), "rpma-threads": ("tests", "integration", "threads"),
           "rpma-verbs-atomic-write": ("tests", "verbs")}.get(name, ("tests", "integration"))
    return run.build.bin(*sub, name)


def sides(run, case, env=None, server_env=None, client_env=None, hosts=(0, 0),
          prog="rpma-integ", libs=("ours", "ours")):
    """The server and client Sides of CASE on the hosts HOSTS, on the
    libraries LIBS ("ours", the build's, or a name of PEERS)."""
    wait_ms = run.limit(LIMIT) * 1000 // 3
    common = {"RPMA_TEST_PORT": str(run.port()), "RPMA_TEST_WAIT_MS": str(wait_ms),
              **run.env, **(env or {})}
    if hosts[1] != hosts[0]:
        common["RPMA_TEST_SERVER_IP"] = run.ip(hosts[0])

    def side(role, extra, lib, *index):
        binary = "rpma-integ-grant" if role == "server" and case.server == "grant" else prog
        peer = {} if lib == "ours" else {"LD_LIBRARY_PATH": PEERS[lib](run)}
        return pair.Side(run.host(hosts[role == "client"]),
                         [program(run, binary), case.name, role, *index],
                         {**common, **(extra or {}), **peer},
                         expect=137 if case.killed == role else 0,
                         name=f"{role} {index[0]}" if index else role)

    server = side("server", server_env, libs[0]) if case.server else None
    return server, [side("client", client_env, libs[1], i) for i in range(case.clients)]


def run_pair(run, case, limit=None, **kwargs):
    """CASE's pair run to its end, failing the test with every output: the Result."""
    server, clients = sides(run, case, **kwargs)
    result = pair.run(server, clients, limit or run.limit(LIMIT), wrapper=run.wrapper)
    assert result.ok, result.report()
    return result


def lib_1x(run):
    """Debian's librpma 1.x (1.2.0 on Debian 12, 1.3.0 on 13), which the
    plain build fetches: its folder."""
    version_1x(run)
    return run.build.lib_1x


def need(run, flag):
    """Skipped where the build's rdma-core lacks FLAG (HAVE_IBV_FLUSH, ...)."""
    if not run.build.has(flag):
        pytest.skip(f"this build's rdma-core has no {flag[len('HAVE_'):].lower()}")


def lib_nonative(run):
    """This library built as without native FLUSH (where rdma-core has it)."""
    if not run.build.has("HAVE_IBV_FLUSH"):
        pytest.skip("this build posts no native FLUSH: ours-nonative is ours")
    return run.build.bin("tests", "integration", "nonative")


# The libraries a side of a pair may run on besides the build's own
# (LD_LIBRARY_PATH): a name, and what finds its folder on a run.
PEERS = {"1.x": lib_1x, "ours-nonative": lib_nonative}


def version_1x(run):
    """The version of the build's librpma 1.x (its pkg-config file)."""
    if not run.build.lib_1x:
        pytest.fail(f"no librpma 1.x: {run.build.why_no_1x}", pytrace=False)
    path = run.place.here(os.path.join(run.build.lib_1x, "pkgconfig", "librpma.pc"))
    with open(path, encoding="utf-8") as f:
        return re.search(r"^Version: *(\S+)", f.read(), re.M)[1]


def interop_list(name, *scopes):
    """The regexes of tests/interop/NAME's "SCOPE REGEX" lines whose SCOPE is one of SCOPES."""
    with open(os.path.join(TOP, "tests", "interop", name), encoding="utf-8") as f:
        entries = [re.sub(r"\s*#.*", "", line).strip().split(" ", 1) for line in f]
    return [re.compile(e[1]) for e in entries if e[0] in scopes]


def skip_1x_on_iwarp(run):
    """Skipped where librpma 1.x cannot run (1.3 on iWARP): 1.x's version."""
    version = version_1x(run)
    if run.caps["iwarp"] and version.startswith("1.3"):
        pytest.skip(f"librpma {version} makes no QP on iWARP (conn_req_on_1x shows it)")
    return version
