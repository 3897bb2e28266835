# SPDX-License-Identifier: BSD-3-Clause
"""Across two hosts: the server in host 0, its clients in host 1, on a
link the tests may cut, impair (tc netem) or lose a host on."""

import contextlib
import re

import pytest

from examples import CHECKS, Example, Failed
from harness import pair
from harness.remote import LOST
from integ import LIMIT, Case, need, run_pair, sides
from test_integration import BY_NAME, RXE_NATIVE
from test_log import LIMIT as LOG_LIMIT, ended, replica, writer

pytestmark = pytest.mark.target(hosts=2)
ACROSS = (0, 1)
# eth0's qdiscs, installed at boot (utils/lib.sh: link_install), stay for
# the whole boot: a test changes netem's parameters and the filters only
LINK = '. "$0"/utils/lib.sh && "$@"'


def link(run, host, *command, check=True):
    """A link function of utils/lib.sh run on HOST (exit 0 asserted if CHECK): its Proc."""
    call = run.host(host).checked if check else run.host(host).call
    return call(["bash", "-c", LINK, run.place.top, *command], timeout=60)


@contextlib.contextmanager
def watched(run, netem=None):
    """The block run with eth0's netem set to NETEM on both hosts; the link
    as it was before and after, and reset."""
    for host in ACROSS:
        intact = link(run, host, "link_intact", check=False).status == 0
        assert intact, f"host {host}: eth0 lacks the qdiscs of its boot"
        if netem:
            link(run, host, "link_netem", *netem.split())
    try:
        yield
    finally:
        for host in ACROSS:
            intact = link(run, host, "link_intact", check=False).status == 0
            assert intact, f"host {host}: a qdisc on eth0 was added or removed while the test " \
                "ran (doc/FAILURES.md, \"A qdisc swapped under a QP\")"
            link(run, host, "link_reset")


def across(run, case, netem=None, drop_acks=False, **kwargs):
    """CASE across the hosts, with eth0's netem set to NETEM on both while
    it runs (watched), host 1 dropping every RDMA acknowledgement it sends
    if DROP_ACKS."""
    with watched(run, netem):
        if drop_acks:
            link(run, 1, "acks_drop_start")
            kwargs["server_env"] = dict(kwargs.get("server_env") or {}, RPMA_TEST_ACKS_LOST="1")
        try:
            return run_pair(run, case, hosts=ACROSS, **kwargs)
        finally:
            if drop_acks:
                print(link(run, 1, "acks_drop_report", check=False).output)


# a representative set of the one-host tests, and the attacks on a grant
SET = ["connect_pdata", "write_flush", "read", "bulk", "atomic_write", "ping_pong", "imm",
       "flush_types", "grant_attack", "plain_attack"]


@pytest.mark.parametrize("name", SET)
def test_across(run, name):
    across(run, BY_NAME[name])


# the link cut (wire.c) for less than the retry budget (it resumes) and
# for more (error completions, then a new connection once it is back)
OUTAGES = {"short": "1500", "long": "8000"}


@pytest.mark.target(variants=("plain", "retry6"))
@pytest.mark.parametrize("length", sorted(OUTAGES))
def test_outage(run, length):
    across(run, Case("outage"), env={"RPMA_TEST_OUTAGE_MS": OUTAGES[length]})


def test_rtu_lost(run):
    """Host 0 drops every RTU it receives; the client writes, flushes and
    closes; the server reports ESTABLISHED, then CLOSED, and finds the data."""
    across(run, Case("rtu_lost"))


@pytest.mark.parametrize("name", ("rcq", "shared_channel"))
def test_acks_lost(run, name):
    """The server's reply, its last message, never completes (host 1 drops
    every acknowledgement), and the server ends all the same at the client's
    close (doc/FAILURES.md, "The last message's ACK")."""
    across(run, BY_NAME[name], drop_acks=True)


# The wire fails (tc netem on both hosts' egress): every operation still
# completes, data compared. A case is named IMPAIRMENT_TEST; bulk moves 4 MiB.
NETEM = {"loss1": "loss 1%", "loss10": "loss 10%", "delay": "delay 20ms",
         "jitter": "delay 20ms 10ms", "reorder": "delay 10ms reorder 25% 50%"}
WIRE = ["loss1_bulk", "loss1_ping_pong", "loss10_ping_pong", "loss10_atomic_write", "loss10_imm",
        "loss10_flush_types", "delay_bulk", "jitter_ping_pong", "jitter_atomic_write",
        "reorder_ping_pong", "reorder_write_flush", "reorder_read"]
# Go-back-N retransmission takes minutes here: messages of 64 packets
# (64 KiB at rxe's MTU of 1024) at 10 % loss, or under netem's jitter,
# which reorders nearly every packet: each gap or reordering makes the
# requester send everything after it again, and a gap at a burst's end
# waits for the 0.537 s ACK timeout (perftest's ib_write_bw, 200 such
# writes at 10 % loss, did not finish in 90 s). Run with --long; each
# moves 4 MiB.
WIRE_SLOW = ["loss10_bulk", "jitter_bulk", "loss10_write_flush", "loss10_read", "reorder_bulk",
             "jitter_write_flush", "jitter_read"]


def impaired(name):
    """The (netem, test) of wire case NAME."""
    impairment, test = name.removesuffix("_native").split("_", 1)
    return NETEM[impairment], test


@pytest.mark.parametrize("name", sorted(WIRE) + sorted(WIRE_SLOW))
def test_wire(run, name):
    slow = name in WIRE_SLOW
    if slow:
        run.long("go-back-N retransmission takes minutes at this loss or jitter")
    netem, test = impaired(name)
    env = {"RPMA_TEST_BULK_MIB": "4"} if slow or test == "bulk" else {}
    across(run, BY_NAME[test], netem=netem, env=env, limit=285 if slow else None)


# The same with native FLUSH and ATOMIC WRITE asked of soft-RoCE, which
# answers one sent again with a remote access error: flush_types and
# write_flush post enough of them to meet a resend every run; atomic_write
# posts one, which few runs resend (doc/FAILURES.md says how often).
WIRE_NATIVE = ["loss10_flush_types_native", "reorder_write_flush_native",
               "loss10_atomic_write_native"]


@pytest.mark.parametrize("name", sorted(WIRE_NATIVE))
def test_wire_native(run, name):
    netem, test = impaired(name)
    need(run, "HAVE_IBV_ATOMIC_WRITE" if test == "atomic_write" else "HAVE_IBV_FLUSH")
    if test == "atomic_write":
        run.skip_defect("native-resend", "one ATOMIC WRITE a run, seldom sent again")
    with run.defect("native-resend"):
        across(run, BY_NAME[test], netem=netem, env=RXE_NATIVE)


# Native ATOMIC WRITE at 10 % loss without librpma (tests/verbs): each
# operation waited for and read back; 8-byte RDMA WRITEs as the control; the
# server's region with a native FLUSH's rights, as librpma registers it; an
# 8-byte write and a FLUSH of it. (mode, region's access, native)
VERBS = {
    "atomic_write": ("atomic_write", "plain", True),
    "write": ("write", "plain", False),
    "atomic_write_flush_mr": ("atomic_write", "flush", True),
    "flush": ("flush", "flush", True),
}
# the client's wait for one completion: an operation rxe answers ends
# within its seven resends (0.56 to 1.4 s seen); one it never answers
# (doc/FAILURES.md) was waited for 120 s, the program's default
VERBS_WAIT_MS = 20000


@pytest.mark.parametrize("name", sorted(VERBS))
def test_verbs_loss10(run, name):
    mode, access, native = VERBS[name]
    if not native:
        run.long("the control, 200 writes at 10 % loss each read back, takes a minute")
    need(run, "HAVE_IBV_FLUSH" if mode == "flush" else "HAVE_IBV_ATOMIC_WRITE")
    with run.defect("native-resend", when=native):
        across(run, Case(mode), netem=NETEM["loss10"], prog="rpma-verbs-atomic-write",
               server_env={"RPMA_VERBS_MR_ACCESS": access},
               client_env={"RPMA_VERBS_WAIT_MS": str(VERBS_WAIT_MS)}, limit=285)


def test_scale_conns_128(run):
    """One server holding 128 connections from the other host."""
    across(run, Case("conns"), prog="rpma-scale", env={"RPMA_SCALE_CONNS": "128"}, limit=285)


def survivor(run):
    """The wrapper and time limit of a host-killed test's programs: under
    retry6 (rxe gives up at that retry count) the survivor runs under
    valgrind, as under the variant valgrind (there the library's own
    bound ends it)."""
    if run.target.variant == "valgrind":
        run.long("2 minutes under valgrind; the same programs run plain, and under "
                 "valgrind with retry6")
    if run.target.variant == "retry6":
        return run.session.matrix.variants["valgrind"]["wrapper"], 285
    return run.wrapper, run.limit(LIMIT)


@pytest.mark.target(variants=("plain", "valgrind", "retry6"))
def test_server_host_killed(run):
    """The client has host 0 killed while it writes and flushes, then booted
    again: a new server on the same persistent memory holds every byte
    whose persistent flush was acknowledged."""
    wrapper, limit = survivor(run)
    server, clients = sides(run, Case("server_host_killed"), hosts=ACROSS)
    first = pair.start(server, limit, wrapper)
    assert first.wait_line(pair.READY, limit), first.output
    client = pair.start(clients[0], limit, wrapper)
    assert first.wait(limit) == LOST, f"host 0 outlived its kill:\n{first.output}"
    # the client boots it again; the server starts anew there
    server.place = run.boot.host(0, timeout=limit)
    again = pair.start(server, limit, wrapper)
    client.wait()
    again.wait()
    problems = list(filter(None, (pair.judge(client, 0, limit), pair.judge(again, 0, limit))))
    assert not problems, pair.Result([first, client, again], problems).report()


@pytest.mark.target(variants=("plain", "valgrind", "retry6"))
def test_client_host_killed(run):
    """The client has its own host killed after its send: the server ends
    within the bound; host 1 is booted again for the tests after."""
    wrapper, limit = survivor(run)
    server, clients = sides(run, Case("client_host_killed"), hosts=ACROSS)
    clients[0].expect = LOST
    try:
        result = pair.run(server, clients, limit, wrapper=wrapper)
        assert result.ok, result.report()
    finally:
        run.boot.revive(1)


# a few example pairs across the hosts; 08's pongs and 09's answer, the
# server's last messages, never complete when host 1 drops every
# acknowledgement, and its side must end all the same
EXAMPLES_ACROSS = ["01-connection", "05-flush-to-persistent", "08-messages-ping-pong",
                   "10-send-with-imm"]
EXAMPLES_ACKS_LOST = ["08-messages-ping-pong", "09-flush-to-persistent-gpspm"]


@pytest.mark.parametrize("name", EXAMPLES_ACROSS)
def test_example_across(run, name):
    CHECKS[name](Example(run, name, pmem=True, hosts=ACROSS))


@pytest.mark.parametrize("name", EXAMPLES_ACKS_LOST)
def test_example_acks_lost(run, name):
    x = Example(run, name, pmem=True, hosts=ACROSS)
    link(run, 1, "acks_drop_start")
    try:
        CHECKS[name](x)
    finally:
        report = link(run, 1, "acks_drop_report", check=False)
        link(run, 1, "acks_drop_stop", check=False)
    if report.status != 0:
        raise Failed(f"the filter dropped no acknowledgement: the test tested nothing\n"
                     f"{report.output}")


# The replicated log (test_log.py) across the hosts: two replicas on host
# 0, the writer's, and one on host 1, so that the loss of host 1 or of the
# link leaves the majority with the writer, which goes on appending (one
# on host 0 and two on host 1 would lose it: nothing to test but that the
# appends stop). The far replica, left behind, then rejoins, and the log
# is read back by the next writer and on each replica alone.
LOG_HOSTS = (0, 0, 1)


def log_replicas(run, far="file"):
    """The replicas of LOG_HOSTS, listening (host 1's log in memory FAR):
    their Procs and "addr:port" names."""
    first = run.port(len(LOG_HOSTS))
    procs = [replica(run, far if host else "file", first + i, host)
             for i, host in enumerate(LOG_HOSTS)]
    return procs, [f"{run.ip(host)}:{first + i}" for i, host in enumerate(LOG_HOSTS)]


# a link impaired while the log's writer appends: netem's parameters on
# both hosts, rpmalog-test's case, and what the test does at which of its
# lines (lossy: the link lossy, then healed; cut: cut on host 1 until the
# far replica is left behind, then mended)
LOG_LINKS = {"lossy": (NETEM["loss1"], "lossy", [("heal the link", ACROSS, "link_reset")]),
             "cut": (None, "away", [("take a replica away", (1,), "link_cut"),
                                    ("bring it back", (1,), "link_reset")])}


@pytest.mark.parametrize("failure", sorted(LOG_LINKS))
def test_log_link(run, failure):
    netem, case, steps = LOG_LINKS[failure]
    procs, names = log_replicas(run)
    with watched(run, netem):
        w = writer(run, case, names, run.env, limit=2 * LOG_LIMIT)
        for line, hosts, action in steps:
            if w.wait_line(line, run.limit(2 * LOG_LIMIT)):
                for host in hosts:
                    link(run, host, action)
        ended(run, [w], procs, [0] * len(procs))


def test_log_host_off(run):
    """Host 1 powered off while appends go on under majority; booted again,
    its rpmalogd starts on the same NVDIMM, holding what it held, and
    rejoins (rpmalog-test away)."""
    procs, names = log_replicas(run, far="devdax")
    stops = [0] * len(procs)
    try:
        w = writer(run, "away", names, run.env, limit=3 * LOG_LIMIT)
        if w.wait_line("take a replica away", run.limit(LOG_LIMIT)):
            run.host().control("kill 1")
            stops[2] = LOST
            assert procs[2].wait(run.limit(LOG_LIMIT)) == LOST, "host 1 outlived its kill"
        if w.wait_line("bring it back", run.limit(2 * LOG_LIMIT)):
            run.boot.revive(1)
            procs.append(replica(run, "devdax", int(names[2].rsplit(":", 1)[1]), 1, fresh=False))
            stops.append(0)
            # the ten appends told before the kill returned once host 1 held them
            held = re.search(r"(\d+) entries, epoch 1;", procs[-1].output)
            assert held and int(held[1]) >= 10, procs[-1].output
    finally:
        run.boot.revive(1)
    ended(run, [w], procs, stops)
