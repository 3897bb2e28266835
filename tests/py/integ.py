# SPDX-License-Identifier: BSD-3-Clause
"""rpma-integ's pairs (tests/integration/tests.def), as the integration,
two-host and scale tests run them through the pair runner."""

import os
import re
from dataclasses import dataclass

import pytest

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

    @property
    def id(self):
        return self.name


def program(run, name="rpma-integ", build=None):
    build = build or run.build
    sub = {"rpma-scale": ("tests", "scale"), "rpma-threads": ("tests", "integration", "threads"),
           "rpma-verbs-atomic-write": ("tests", "verbs")}.get(name, ("tests", "integration"))
    return build.bin(*sub, name)


def sides(run, case, env=None, server_env=None, client_env=None, hosts=(0, 0), build=None,
          test=None, prog="rpma-integ"):
    """The server and client Sides of CASE (TEST names the test of
    tests.def when it is not CASE's name) on the hosts HOSTS."""
    test = test or case.name
    limit = run.limit(LIMIT)
    port = run.port()
    common = {"RPMA_TEST_PORT": str(port), "RPMA_TEST_WAIT_MS": str(limit * 1000 // 3)}
    common.update(run.env)
    common.update(env or {})
    if hosts[1] != hosts[0]:
        common["RPMA_TEST_SERVER_IP"] = run.ip(hosts[0])
    server = None
    if case.server:
        name = "rpma-integ-grant" if case.server == "grant" else prog
        server = pair.Side(run.host(hosts[0]), [program(run, name, build), test, "server"],
                           dict(common, **(server_env or {})),
                           expect=137 if case.killed == "server" else 0, name="server")
    clients = [pair.Side(run.host(hosts[1]), [program(run, prog, build), test, "client", i],
                         dict(common, **(client_env or {})),
                         expect=137 if case.killed == "client" else 0, name=f"client {i}")
               for i in range(case.clients)]
    return server, clients


def run_pair(run, case, limit=None, **kwargs):
    """CASE's pair run to its end; fails the test with every output when
    a side failed. The Result."""
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


def skip_1x_on_iwarp(run):
    """librpma 1.3 makes no QP on soft-iWARP (integration conn_req_on_1x
    shows it): its pairs cannot run there."""
    version = version_1x(run)
    if run.caps["iwarp"] and version.startswith("1.3"):
        pytest.skip(f"librpma {version} makes no QP on iWARP (conn_req_on_1x shows it)")
    return version
