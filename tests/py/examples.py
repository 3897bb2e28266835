# SPDX-License-Identifier: BSD-3-Clause
"""The example pairs (examples/NN-name): how each runs and what its programs
must print, on every boot, across two hosts, on 1.x, in the packages' root
and under fault injection."""

import functools
import os
import re

from conftest import TOP

from harness import pair

EXAMPLES = sorted(d for d in os.listdir(os.path.join(TOP, "examples")) if re.match(r"\d\d-", d))
# the examples whose server takes its memory as an argument
WITH_MEMORY = {"02", "03", "04", "05", "07", "09", "11", "16", "17"}
LIMIT = 120
# librdmacm opens every RDMA device once per process and keeps them, on a
# list whose pointers point inside the blocks: "possibly lost" to memcheck
SUPPRESSIONS = "{\n   librdmacm-device-cache\n   Memcheck:Leak\n   match-leak-kinds: possible\n" \
               "   fun:*alloc\n   ...\n   obj:*/librdmacm.so*\n}\n"


class Failed(AssertionError):
    pass


class Example:
    """One example on a run: where its programs are (BIN, SERVER_BIN), the
    hosts of its server and clients, the server's memory (a path, or None
    for DRAM; PMEM: its host's NVDIMM), and per side an environment."""

    def __init__(self, run, name, pmem=False, bin_dir=None, server_bin_dir=None,
                 hosts=(0, 0), server_env=None, client_env=None, tag=None, retries=3):
        self.run, self.name, self.nn, self.pmem = run, name, name[:2], pmem
        self.memory = run.host(hosts[0]).env["RPMA_TEST_PMEM"] if pmem else None
        self.bin = bin_dir or run.build.bin("examples")
        self.server_bin = server_bin_dir or self.bin
        self.hosts, self.retries, self.results = hosts, retries, []
        self.server_env, self.client_env = dict(server_env or {}), dict(client_env or {})
        self.tag = tag or f"t{run.boot.ports.next}"
        self.first, self.second = f"first run {self.tag}", f"second run {self.tag}"
        self.iwarp = run.caps["iwarp"]
        self.wrapper = list(run.wrapper)
        if self.wrapper and os.path.basename(self.wrapper[0]) == "valgrind":
            supp = os.path.join(run.session.results, "librdmacm.supp")
            with open(supp, "w", encoding="utf-8") as f:
                f.write(SUPPRESSIONS)
            self.wrapper.insert(1, f"--suppressions={run.place.there(supp)}")

    def side(self, side, *args):
        """Where SIDE ("server", "client") runs, its argv with ARGS, its env."""
        server = side == "server"
        return (self.run.host(self.hosts[0 if server else 1]),
                [f"{self.server_bin if server else self.bin}/{self.name}-{side}", *args],
                self.server_env if server else self.client_env)

    def pair(self, *server_args, messages=("",), must_pass=True):
        """The server with SERVER_ARGS, then a client per message at once: the
        Result, or a Failed with the outputs if a program failed and MUST_PASS."""
        port, ip = self.run.port(), self.run.ip(self.hosts[0])
        server = pair.Side(*self.side("server", ip, port, *server_args), name="server")
        clients = [pair.Side(*self.side("client", ip, port, *([m] if m else [])),
                             name=f"client {i + 1}") for i, m in enumerate(messages)]
        result = pair.run(server, clients, self.run.limit(LIMIT), wrapper=self.wrapper,
                          retries=self.retries)
        self.results.append(result)
        if must_pass and not result.ok:
            raise Failed(result.report())
        return result

    def alone(self, side, args, status, texts, what):
        """SIDE's program alone with ARGS must exit with STATUS, printing
        each of TEXTS (a Failed saying WHAT it was given, if not)."""
        host, argv, env = self.side(side, *args)
        proc = host.call(self.wrapper + argv, env=env, timeout=self.run.limit(LIMIT))
        proc.name = side
        self.results.append(pair.Result([proc], []))
        if proc.status != status or not all(t in proc.output for t in texts):
            raise Failed(f"the {side} {what}: exit {proc.status}, not {status}:\n{proc.output}")


def expect(result, name, *texts):
    """Each TEXT is in the output of program NAME of RESULT."""
    output = result.output(name)
    missing = [t for t in texts if t not in output]
    if missing:
        raise Failed(f"the {name} did not print: {missing}\n{result.report()}")


MEM, AGAIN = object(), object()
# what the ping-pong examples' client and server print
PING = ('ping #3: "ping {tag}"', 'the server answers: "pong #3"', "sent quit")
PONG = ('"ping {tag}"', "the client said quit")
# the pairs as data: (the server's arguments, a client per message, what the
# server prints, what each client prints); MEM is the server's memory, if any;
# messages AGAIN: two pairs on that memory, the second ({second}) finding the
# first's ({first}); {tag} is the run's tag, {size} the first message's size
PAIRS = {
    "01": ([], ["hello {tag}"], ['the client says: "hello {tag}"', "the client disconnected"],
           ['the server says: "Hello client', "disconnected"]),
    "02": ([MEM], [""], [], ["read from the server: \"Hello client, this was read from the "
                             "server's memory!\""]),
    "03": ([MEM], AGAIN, ['new value (read and persisted): "{second}"'],
           ['the server read "{second}"']),
    "04": ([MEM], AGAIN, ['new value (persisted): "{second}"'],
           ['wrote "{second}" and flushed it to visibility']),
    "05": ([MEM, "--direct-write-to-pmem"], AGAIN,
           ['new value (persisted by the server): "{second}"'],
           ["flush type: RPMA_FLUSH_TYPE_VISIBILITY"]),
    "05-pmem": ([MEM, "--direct-write-to-pmem"], AGAIN,
                ["new value (persisted by the client's flush): \"{second}\"",
                 "direct write to pmem: declared"],
                ["flush type: RPMA_FLUSH_TYPE_PERSISTENT",
                 'wrote "{second}" and flushed it to persistence']),
    "06": (["--clients", "3"], ["one {tag}", "two {tag}", "three {tag}"],
           ["served 3 clients", 'says: "one {tag}"', 'says: "two {tag}"', 'says: "three {tag}"'],
           ['the server answers: "Hello client #']),
    "07": ([MEM], ["entry {tag}"], ["log tail: 3 entries", 'log entry 0: "entry {tag} #1"',
                                    'log entry 2: "entry {tag} #3"'],
           ['appended "entry {tag} #3", the tail is now 3']),
    "08": ([], ["ping {tag}"], PONG, PING),
    "09": ([MEM], AGAIN, ['new value: "{second}"', "persisted {size} bytes at offset 0"],
           ['wrote "{second}"; the server persisted']),
    "10": ([], ["imm {tag}"], ['received: "imm {tag}"', "immediate data: 0x12345678"],
           ["with immediate data 0x12345678"]),
    "11": ([MEM], ["written {tag}"],
           ["immediate data: {size}", 'the client wrote: "written {tag}"'], []),
    "12": ([], ["ping {tag}"], PONG, PING),
    "13": ([], ["ping {tag}"], PONG + ("ping on the connection with QP as expected",), PING),
    "14": ([], ["ping {tag}"], PONG, PING + (
        "ping #3: the send completed on the main CQ, the pong on the receive CQ",)),
    "15": ([], ["logged {tag}"], [
        "log threshold: NOTICE and more severe", "log: ERROR from ",
        "listening twice on one port failed as expected", "log threshold: ERROR and more severe",
        'the client says: "logged {tag}"', "the client disconnected; log messages meanwhile: 0",
        "log messages, 0 without a newline at the end"],
        ["log threshold: NOTICE and more severe", "connected", "disconnected",
         "log messages, 0 without a newline at the end"]),
    "16-pmem": ([MEM, "--direct-write-to-pmem"], ["pmem {tag}"],
                ["region: write and flush to visibility or persistence",
                 "written (persisted by the client's flush): \"pmem {tag}\""],
                ["flush type: RPMA_FLUSH_TYPE_PERSISTENT", "the flush completed as {opcode}",
                 'wrote "pmem {tag}" and flushed it to persistence']),
    # DRAM: a visibility flush, native as well (no persistence right needed)
    "16-dram": ([], ["dram {tag}"], ["region: write and flush to visibility, no read",
                                     'written (in DRAM): "dram {tag}"'],
                ["the flush completed as {opcode}",
                 'wrote "dram {tag}" and flushed it to visibility']),
}
# iWARP has no immediate data: the call fails (RPMA_E_PROVIDER, EINVAL)
IMM = {"10": "rpma_send_with_imm()", "11": "rpma_write_with_imm()"}


def check(key, x, **fields):
    """Row KEY of PAIRS (KEY-pmem's on pmem, if any) on X; FIELDS: more to fill in."""
    args, msgs, server, client = PAIRS[f"{key}-pmem" if x.pmem and f"{key}-pmem" in PAIRS else key]
    args = [x.memory if a is MEM else a for a in args if a is not MEM or x.memory]
    if msgs is AGAIN:
        x.pair(*args, messages=(x.first,))
        previous = ('previous value: "{first}"',)
        msgs, server, client = [x.second], previous + tuple(server), previous + tuple(client)
    msgs = [m.format(tag=x.tag) for m in msgs]
    fields.update(tag=x.tag, first=x.first, second=x.second, size=len(msgs[0]) + 1)
    refused = IMM.get(key) if x.iwarp else None
    r = x.pair(*args, messages=msgs, must_pass=not refused)
    if refused:
        # and the server's receive, flushed by the closed connection, fails too
        if r.ok:
            raise Failed(f"on iWARP the pair passed: {refused} should have failed\n{r.report()}")
        server = ["an operation failed: Work Request Flushed Error"]
        client = [f"{refused} failed: Provider error occurred"]
    expect(r, "server", *[t.format(**fields) for t in server])
    for i in range(len(msgs)):
        expect(r, f"client {i + 1}", *[t.format(**fields) for t in client])


def check_01(x):
    x.alone("client", [], 2, ["usage:"], "without arguments")
    refused = "rdma_connect() failed: Connection refused" if x.iwarp else "connection refused"
    x.alone("client", [x.run.ip(x.hosts[0]), x.run.port()], 1, [refused], "without a server")
    check("01", x)


def check_16(x):
    """Native FLUSH asked for (on soft-RoCE), then, unless the caller asked
    already (the binary swap), not: IBV_WC_FLUSH where the build posts it,
    the device serves both placements and the server invites it."""
    given = x.server_env, x.client_env
    for env in [{"RPMA_RXE_NATIVE": "1"}] + ([] if "RPMA_RXE_NATIVE" in x.server_env else [{}]):
        x.server_env, x.client_env = {**given[0], **env}, {**given[1], **env}
        native = x.run.build.has("HAVE_IBV_FLUSH") and x.run.caps["flush"] and (
            not x.run.caps["rxe"] or x.server_env.get("RPMA_RXE_NATIVE") == "1")
        for key in ("16-pmem", "16-dram") if x.pmem else ("16-dram",):
            check(key, x, opcode="IBV_WC_FLUSH" if native else "IBV_WC_RDMA_READ")
    x.server_env, x.client_env = given


def check_17(x):
    """Without type-2 memory windows (soft-iWARP) the server's grant fails
    at the call (RPMA_E_NOSUPP, the log names the capability) and it ends;
    no client gets a part."""
    msgs = [f"{n} {x.tag}" for n in ("one", "two", "three")]
    args = ([x.memory] if x.memory else []) + (["--direct-write-to-pmem"] if x.pmem else [])
    r = x.pair(*args, "--clients", str(len(msgs)), messages=msgs, must_pass=not x.iwarp)
    if not x.iwarp:
        return grants_checked(r, msgs, persisted=x.pmem)
    if r.ok:
        raise Failed(f"the pair passed on a device without memory windows\n{r.report()}")
    expect(r, "server", "rpma_grant_new() failed: Not supported", "binds no type-2 memory windows")
    for i in range(len(msgs)):
        # the server may end before, while or after a client connects: refused,
        # unreachable (soft-iWARP's TCP connection reset) or no message; a client
        # on librpma 1.x says it in the library's words: "Connection refused"
        text = r.output(f"client {i + 1}").lower()
        if "granted: part" in text or not re.search(
                "connection refused|unreachable|did not come|before it granted a part", text):
            raise Failed(f"client {i + 1} did not fail for want of a grant\n{r.report()}")


def grants_checked(r, msgs, persisted=False):
    """Each client's message is in its granted part alone; it was refused the next."""
    expect(r, "server", f"served {len(msgs)} clients, each in its own part",
           *(["the parts, persisted by the clients' flushes:"] if persisted else []))
    for i, msg in enumerate(msgs):
        name = f"client {i + 1}"
        expect(r, name, f'read back: "{msg}"',
               "with my grant's key: refused (remote access error), no byte read")
        part = re.search(r"granted: part #(\d+) of", r.output(name))
        if not part:
            raise Failed(f"{name} did not say which part it was granted\n{r.report()}")
        expect(r, "server", f'part #{part[1]}: "{msg}"')
        n = len(re.findall(rf'^part #\d+: "{re.escape(msg)}"$', r.output("server"), re.M))
        if n != 1:
            raise Failed(f'"{msg}" is in {n} parts, not 1\n{r.report()}')


CHECKS = {name: globals().get(f"check_{name[:2]}") or functools.partial(check, name[:2])
          for name in EXAMPLES}
