# SPDX-License-Identifier: BSD-3-Clause
"""The integration tests on one host, on the boot's device: rpma-integ's
pairs, also with librpma 1.x or a twin build on a side or native
operations asked of soft-RoCE; DAX files; the flush matrix; threads."""

import os
import re
from itertools import takewhile

import pytest
from conftest import TOP

from harness.matrix import memory_kinds
from integ import LIMIT, PEERS, Case, need, program, run_pair, skip_1x_on_iwarp, version_1x

pytestmark = pytest.mark.target(hosts=1)
IWARP_WINDOWS = "no type-2 memory windows: the grants fail at the call with RPMA_E_NOSUPP"
# a name alone is a Case of the defaults
CASES = [c if isinstance(c, Case) else Case(c) for c in [
    "connect_pdata", "write_flush", "read", "bulk", "atomic_write", "inval_offsets",
    "flush_nosupp", "ping_pong",
    Case("imm", iwarp="no immediate data: rpma_send_with_imm() and rpma_write_with_imm() "
         "fail at the call with RPMA_E_PROVIDER (errno EINVAL); the same messages without "
         "it then arrive"),
    "rcq", Case("srq", clients=2), "shared_channel", "cq_wait", Case("multi_clients", clients=4),
    "reject", "closed", Case("client_killed", killed="client"),
    Case("server_killed", killed="server",
         iwarp="soft-iWARP may not flush the operations in flight at the peer's death, or "
         "complete one twice: what comes back within 2 s is taken"),
    Case("no_listener", server="", iwarp="rdma_connect() opens a TCP connection, which is "
         "refused: rpma_conn_req_connect() fails with RPMA_E_PROVIDER (ECONNREFUSED)"),
    Case("unreachable", server=""),
    Case("silent_peer", server="", iwarp="rdma_connect() waits for TCP: it fails with "
         "ETIMEDOUT when TCP gives up on its SYNs, whatever the configured timeout"),
    "flush_types",
    Case("grant_ops", server="grant", iwarp=IWARP_WINDOWS),
    Case("grant_attack", server="grant", clients=2, iwarp=IWARP_WINDOWS),
    Case("plain_attack", clients=2, iwarp="keys are drawn at random (soft-iWARP): the stolen "
         "key's leak is shown, no guessing"),
    Case("grant_rights", server="grant", iwarp=IWARP_WINDOWS),
    Case("fsdax_reg", server=""),
]]
# with librpma 1.x on either side (its API has no grants: a grant
# test's client on 1.x is served by our server, which grants)
WITH_1X = ["connect_pdata", "write_flush", "read", "atomic_write", "ping_pong", "imm", "rcq",
           "flush_types", "plain_attack"]
BY_NAME = {case.name: case for case in CASES}
CLIENT_ON_1X = ("ours", "1.x")
VARIANTS = ("plain", "sanitizers", "valgrind")
# under valgrind, hundreds of connections (the attacks) or five programs
# at once take 25 to 45 s a case, on the paths the other cases take there
LONG_UNDER_VALGRIND = {"multi_clients", "grant_attack", "plain_attack"}


@pytest.mark.target(variants=VARIANTS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_pair(run, case):
    if run.target.variant == "valgrind" and case.name in LONG_UNDER_VALGRIND:
        run.long("25 to 45 s under valgrind, on paths its other cases take there")
    if case.iwarp and run.caps["iwarp"]:
        print(f"on iWARP it asserts the clear error instead: {case.iwarp}")
    run_pair(run, case)


@pytest.mark.parametrize("side", ("server", "client"))
@pytest.mark.parametrize("name", WITH_1X)
def test_with_1x(run, name, side):
    """NAME with librpma 1.x as SIDE, ours as the other; RPMA_TEST_1X tells
    both which side runs 1.x, for the few expectations that differ."""
    skip_1x_on_iwarp(run)
    libs = ("1.x", "ours") if side == "server" else CLIENT_ON_1X
    run_pair(run, BY_NAME[name], env={"RPMA_TEST_1X": side}, libs=libs)


def test_grant_ops_1x_client(run):
    """A grant's descriptor used by a client on 1.x."""
    test_with_1x(run, "grant_ops", "client")


def test_conn_req_on_1x(run):
    """A connection request on 1.x, which learns 1.x's version: 1.3 makes
    no QP on iWARP, which the test asserts there."""
    version = version_1x(run)
    run_pair(run, Case("conn_req", server=""), libs=CLIENT_ON_1X,
             env={"RPMA_TEST_1X": "client", "RPMA_TEST_1X_VERSION": version})


# A pair once more with one side on another build of ours, or asking for
# what soft-RoCE is not given by default. (test, the rdma-core flag its
# native operation needs, run_pair's arguments)
RXE_NATIVE = {"RPMA_RXE_NATIVE": "1"}
TWINS = {
    # a peer whose build cannot post native FLUSH; RPMA_TEST_FLUSH says what
    # the client's flushes complete as (librpma(7), "Native FLUSH")
    "flush_types_server_nonative": ("flush_types", "HAVE_IBV_FLUSH", dict(
        libs=("ours-nonative", "ours"), server_env=RXE_NATIVE,
        client_env={"RPMA_TEST_FLUSH": "native"})),
    "flush_types_client_nonative": ("flush_types", "HAVE_IBV_FLUSH", dict(
        libs=("ours", "ours-nonative"), client_env={"RPMA_TEST_FLUSH": "read"})),
    # on soft-RoCE the library posts no native ATOMIC WRITE and invites no
    # native FLUSH unless asked (src/peer.c): these ask on both sides
    "atomic_write_rxe_native": ("atomic_write", "HAVE_IBV_ATOMIC_WRITE", dict(env=RXE_NATIVE)),
    "flush_types_rxe_native": ("flush_types", "HAVE_IBV_FLUSH", dict(env=RXE_NATIVE)),
    "grant_ops_rxe_native": ("grant_ops", "HAVE_IBV_FLUSH", dict(env=RXE_NATIVE)),
}


@pytest.mark.parametrize("twin", sorted(TWINS))
def test_twin(run, twin):
    test, flag, kwargs = TWINS[twin]
    need(run, flag)
    run_pair(run, BY_NAME[test], **kwargs)


@pytest.mark.target(variants=("sanitizers", "valgrind"))
def test_twin_checked(run):
    """The native ATOMIC WRITE's path, posted through the extended QP, with
    the sanitizers and under valgrind too."""
    test_twin(run, "atomic_write_rxe_native")


FSDAX = memory_kinds("fs")


@pytest.mark.parametrize("memory", FSDAX)
@pytest.mark.parametrize("test", ("fsdax", "fsdax_offset"))
def test_fsdax(run, test, memory):
    """The server's memory a file on a DAX file system (RPMA_RXE_ODP=1: on-demand
    paging): fsdax at page starts, fsdax_offset at offsets within and across pages."""
    if not run.caps["odp"]:
        pytest.skip("the device has no on-demand paging, which a file on a DAX file system "
                    "needs: integration fsdax_reg shows the registration refused")
    where = run.host().env[run.session.matrix.memory[memory]["env"]]
    env = {"RPMA_TEST_PMEM": f"{where}/{test}.pmem", "RPMA_RXE_ODP": "1"}
    with run.defect("odp-copy", when=test == "fsdax_offset"):
        run_pair(run, Case(test, server="grant"), server_env=env)


@pytest.mark.target(variants=VARIANTS)
def test_threads(run):
    """rpma-threads: several threads on one connection, one peer, separate
    CQs (doc/THREAD_SAFETY.md); server and clients in one process."""
    run.host().checked(run.wrapper + [program(run, "rpma-threads"), "all", str(run.port(4))],
                       timeout=run.limit(300))


@pytest.mark.target(variants=("valgrind",))
@pytest.mark.parametrize("tool", ("helgrind", "drd"))
def test_threads_race(run, tool):
    """The same under helgrind and drd: no data race reported, but
    librdmacm's and the window set's (the suppressions say why)."""
    if tool == "helgrind":
        run.long("helgrind takes about 3 minutes in the emulated CPU; drd, in a fifth "
                 "of that, checks the same program")
    supp = f"{run.place.top}/tests/integration/threads/{tool}.supp"
    argv = ["valgrind", f"--tool={tool}", "--error-exitcode=99", "--vgdb=no",
            f"--suppressions={supp}", program(run, "rpma-threads"), "all", str(run.port(4))]
    run.host().checked(argv, timeout=900)


@pytest.mark.target(variants=("valgrind",))
def test_cm_id_race(run):
    """librdmacm's own race in rdma_destroy_id(), hidden by the threads' suppressions
    (tests/verbs/expect-race): it fails once rdma-core mends it."""
    run.host().checked([f"{run.place.top}/tests/verbs/expect-race", "valgrind",
                        run.build.bin("tests", "verbs", "rpma-verbs-cm-id-race")], timeout=300)


# The flush matrix (flush_matrix.c): rpma_flush() for every kind of server
# memory, region usage, peer configuration and flush type, with the client
# on each library here and the server on each; every row compared with
# doc/COMPATIBILITY.md's table of this release and device.
MATRIX_LIBS = ("ours",) + tuple(PEERS)
MATRIX_MEMORY = "devdax,dram,shm,file"
ROW = re.compile(r"\] row (\S+) (\S+) (.*)$")


def documented(release, caps):
    """doc/COMPATIBILITY.md's rows under "<!-- flush-matrix RELEASE CAPS -->" (or None)."""
    with open(os.path.join(TOP, "doc", "COMPATIBILITY.md"), encoding="utf-8") as f:
        text = f.read()
    marker = f"<!-- flush-matrix {release} {caps} -->"
    if marker not in text:
        return None
    table = takewhile(lambda line: line.startswith("|"),
                      text.split(marker, 1)[1].lstrip("\n").splitlines())
    rows = ([c.strip().replace("`", "") for c in line.strip("|").split("|")] for line in table)
    return [" ".join(cells) for cells in rows
            if cells[0] != "client" and not cells[0].startswith("-")]


@pytest.mark.parametrize("server", MATRIX_LIBS)
@pytest.mark.parametrize("client", MATRIX_LIBS)
def test_flush_matrix(run, client, server):
    if run.caps["iwarp"]:
        pytest.skip("the documented tables are of RoCE devices (doc/COMPATIBILITY.md)")
    result = run_pair(run, Case("flush_matrix"), limit=2 * LIMIT, libs=(server, client),
                      env={"RPMA_TEST_MEMORY": MATRIX_MEMORY, **RXE_NATIVE})
    measured = [m.groups() for m in map(ROW.search, result.output("client 0").splitlines()) if m]
    out = os.path.join(run.session.results, "flush-matrix")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{run.target.id}-{client}-{server}.md"), "w",
              encoding="utf-8") as f:
        f.writelines(f"| {client} | {server} | {kind} | {' | '.join(cells.split())} |\n"
                     for _, kind, cells in measured)
    problems = []
    if len(measured) != len(MATRIX_MEMORY.split(",")):
        problems.append(f"{len(measured)} rows measured, not one per kind of memory")
    for caps, kind, cells in measured:
        row = f"{client} {server} {kind} {cells}"
        rows = documented(run.place.release, caps)
        if rows is None:
            problems.append(f"doc/COMPATIBILITY.md has no table flush-matrix "
                            f"{run.place.release} {caps}; measured {row}")
        elif row not in rows:
            want = next((r for r in rows if r.startswith(f"{client} {server} {kind} ")), "(no row)")
            problems.append(f"measured   {row}\ndocumented {want}")
    assert not problems, "\n".join(problems) + "\n" + result.report()


@pytest.mark.target(variants=("sanitizers",))
def test_flush_matrix_sanitizers(run):
    """This library at both ends of the flush matrix, with the sanitizers."""
    test_flush_matrix(run, "ours", "ours")
