# SPDX-License-Identifier: BSD-3-Clause
"""The example pairs (examples/NN-name): how each runs and what its
programs must print, for the examples' tests on every boot, across two
hosts, on librpma 1.x, in the packages' root and under fault injection."""

import os
import re

from conftest import TOP

from harness import pair

EXAMPLES = sorted(d for d in os.listdir(os.path.join(TOP, "examples"))
                  if re.match(r"\d\d-", d))
# the examples whose server takes its memory as an argument
WITH_MEMORY = {"02", "03", "04", "05", "07", "09", "11", "16", "17"}
LIMIT = 120
# librdmacm opens every RDMA device once per process and keeps them, on a
# list whose pointers point inside the blocks: "possibly lost" to memcheck
SUPPRESSIONS = """{
   librdmacm-device-cache
   Memcheck:Leak
   match-leak-kinds: possible
   fun:*alloc
   ...
   obj:*/librdmacm.so*
}
"""


class Failed(AssertionError):
    pass


class Example:
    """One example on a run: its programs (BIN, SERVER_BIN: where they
    are), the hosts of its server and clients, the server's memory (a
    path, or None for DRAM), and per side an environment."""

    def __init__(self, run, name, memory=None, bin_dir=None, server_bin_dir=None,
                 hosts=(0, 0), server_env=None, client_env=None, tag=None, retries=3):
        self.run = run
        self.name = name
        self.nn = name[:2]
        self.memory = memory
        self.pmem = False
        self.bin = bin_dir or run.build.bin("examples")
        self.server_bin = server_bin_dir or self.bin
        self.hosts = hosts
        self.server_env = dict(server_env or {})
        self.client_env = dict(client_env or {})
        self.retries = retries
        self.results = []
        self.tag = tag or f"t{run.boot.ports.next}"
        self.first = f"first run {self.tag}"
        self.second = f"second run {self.tag}"
        self.iwarp = run.caps["iwarp"]
        self.wrapper = list(run.wrapper)
        if self.wrapper and os.path.basename(self.wrapper[0]) == "valgrind":
            supp = os.path.join(run.session.results, "librdmacm.supp")
            with open(supp, "w", encoding="utf-8") as f:
                f.write(SUPPRESSIONS)
            self.wrapper.insert(1, f"--suppressions={run.place.there(supp)}")

    def pair(self, *server_args, messages=("",), must_pass=True):
        """The server with SERVER_ARGS, then a client per message at once;
        the Result (a Failed with the outputs when a program failed and
        MUST_PASS)."""
        port = self.run.port()
        ip = self.run.ip(self.hosts[0])
        server = pair.Side(self.run.host(self.hosts[0]),
                           [f"{self.server_bin}/{self.name}-server", ip, port, *server_args],
                           self.server_env, name="server")
        clients = [pair.Side(self.run.host(self.hosts[1]),
                             [f"{self.bin}/{self.name}-client", ip, port] + ([m] if m else []),
                             self.client_env, name=f"client {i + 1}")
                   for i, m in enumerate(messages)]
        result = pair.run(server, clients, self.run.limit(LIMIT), wrapper=self.wrapper,
                          retries=self.retries)
        self.results.append(result)
        if must_pass and not result.ok:
            raise Failed(result.report())
        return result

    def single(self, side, *args):
        """One program alone: its Proc."""
        binary = self.server_bin if side == "server" else self.bin
        proc = self.run.host(self.hosts[0] if side == "server" else self.hosts[1]).call(
            self.wrapper + [f"{binary}/{self.name}-{side}", *args],
            env=self.server_env if side == "server" else self.client_env,
            timeout=self.run.limit(LIMIT))
        proc.name = side
        result = pair.Result([proc], [])
        result.single = True
        self.results.append(result)
        return proc

    def twice(self, server2, client2, *server_args):
        """The pair twice on the same memory: the second finds the first's."""
        self.pair(*server_args, messages=(self.first,))
        r = self.pair(*server_args, messages=(self.second,))
        expect(r, "client 1", f'previous value: "{self.first}"', client2.replace("MSG", self.second))
        expect(r, "server", f'previous value: "{self.first}"', server2.replace("MSG", self.second))
        return r


def expect(result, name, *texts):
    """Each TEXT is in the output of program NAME of RESULT."""
    output = result.output(name)
    missing = [t for t in texts if t not in output]
    if missing:
        raise Failed(f"the {name} did not print: {missing}\n{result.report()}")


def pmem_args(x):
    return [x.memory] if x.memory else []


def check_01(x):
    proc = x.single("client")
    if proc.status != 2 or "usage:" not in proc.output:
        raise Failed(f"client without arguments: exit {proc.status}, not 2:\n{proc.output}")
    proc = x.single("client", x.run.ip(x.hosts[0]), x.run.port())
    refused = "rdma_connect() failed: Connection refused" if x.iwarp else "connection refused"
    if proc.status != 1 or refused not in proc.output:
        raise Failed(f"client without a server: exit {proc.status}, not 1:\n{proc.output}")
    r = x.pair(messages=(f"hello {x.tag}",))
    expect(r, "server", f'the client says: "hello {x.tag}"', "the client disconnected")
    expect(r, "client 1", 'the server says: "Hello client', "disconnected")


def check_02(x):
    r = x.pair(*pmem_args(x))
    expect(r, "client 1", "read from the server: \"Hello client, this was read from the "
           "server's memory!\"")


def check_03(x):
    x.twice('new value (read and persisted): "MSG"', 'the server read "MSG"', *pmem_args(x))


def check_04(x):
    x.twice('new value (persisted): "MSG"', 'wrote "MSG" and flushed it to visibility',
            *pmem_args(x))


def check_05(x):
    if x.pmem:
        r = x.twice("new value (persisted by the client's flush): \"MSG\"",
                    "flush type: RPMA_FLUSH_TYPE_PERSISTENT", x.memory, "--direct-write-to-pmem")
        expect(r, "server", "direct write to pmem: declared")
        expect(r, "client 1", f'wrote "{x.second}" and flushed it to persistence')
    else:
        x.twice('new value (persisted by the server): "MSG"', "flush type: RPMA_FLUSH_TYPE_VISIBILITY",
                *pmem_args(x), "--direct-write-to-pmem")


def check_06(x):
    msgs = [f"{n} {x.tag}" for n in ("one", "two", "three")]
    r = x.pair("--clients", "3", messages=msgs)
    expect(r, "server", "served 3 clients", *[f'says: "{m}"' for m in msgs])
    for i in range(3):
        expect(r, f"client {i + 1}", 'the server answers: "Hello client #')


def check_07(x):
    r = x.pair(*pmem_args(x), messages=(f"entry {x.tag}",))
    expect(r, "client 1", f'appended "entry {x.tag} #3", the tail is now 3')
    expect(r, "server", "log tail: 3 entries", f'log entry 0: "entry {x.tag} #1"',
           f'log entry 2: "entry {x.tag} #3"')


def ping_pong(x):
    r = x.pair(messages=(f"ping {x.tag}",))
    expect(r, "client 1", f'ping #3: "ping {x.tag}"', 'the server answers: "pong #3"', "sent quit")
    expect(r, "server", f'"ping {x.tag}"', "the client said quit")
    return r


def check_08(x):
    ping_pong(x)


def check_09(x):
    r = x.twice('new value: "MSG"', 'wrote "MSG"; the server persisted', *pmem_args(x))
    expect(r, "server", f"persisted {len(x.second) + 1} bytes at offset 0")


def imm_refused(x, call, *server_args, message):
    """iWARP has no immediate data: CALL fails at the call (RPMA_E_PROVIDER,
    EINVAL), and the server, whose receive the closed connection flushes,
    fails too."""
    r = x.pair(*server_args, messages=(message,), must_pass=False)
    if r.ok:
        raise Failed(f"on iWARP the pair passed: {call} should have failed\n{r.report()}")
    expect(r, "client 1", f"{call} failed: Provider error occurred")
    expect(r, "server", "an operation failed: Work Request Flushed Error")


def check_10(x):
    if x.iwarp:
        return imm_refused(x, "rpma_send_with_imm()", message=f"imm {x.tag}")
    r = x.pair(messages=(f"imm {x.tag}",))
    expect(r, "client 1", "with immediate data 0x12345678")
    expect(r, "server", f'received: "imm {x.tag}"', "immediate data: 0x12345678")


def check_11(x):
    msg = f"written {x.tag}"
    if x.iwarp:
        return imm_refused(x, "rpma_write_with_imm()", *pmem_args(x), message=msg)
    r = x.pair(*pmem_args(x), messages=(msg,))
    expect(r, "server", f"immediate data: {len(msg) + 1}", f'the client wrote: "{msg}"')


def check_12(x):
    ping_pong(x)


def check_13(x):
    expect(ping_pong(x), "server", "ping on the connection with QP as expected")


def check_14(x):
    expect(ping_pong(x), "client 1",
           "ping #3: the send completed on the main CQ, the pong on the receive CQ")


def check_15(x):
    r = x.pair(messages=(f"logged {x.tag}",))
    expect(r, "server", "log threshold: NOTICE and more severe", "log: ERROR from ",
           "listening twice on one port failed as expected",
           "log threshold: ERROR and more severe", f'the client says: "logged {x.tag}"',
           "the client disconnected; log messages meanwhile: 0",
           "log messages, 0 without a newline at the end")
    expect(r, "client 1", "log threshold: NOTICE and more severe", "connected",
           "disconnected", "log messages, 0 without a newline at the end")


def flush_opcode(x):
    """What a flush of example 16 completes as: IBV_WC_FLUSH where the
    build posts native FLUSH, the device serves both placements and the
    server invites it (soft-RoCE only with RPMA_RXE_NATIVE=1)."""
    native = x.run.build.has("HAVE_IBV_FLUSH") and x.run.caps["flush"] and (
        not x.run.caps["rxe"] or x.server_env.get("RPMA_RXE_NATIVE") == "1")
    return "IBV_WC_FLUSH" if native else "IBV_WC_RDMA_READ"


def native_flush_pairs(x):
    opcode = flush_opcode(x)
    if x.pmem:
        r = x.pair(x.memory, "--direct-write-to-pmem", messages=(f"pmem {x.tag}",))
        expect(r, "client 1", "flush type: RPMA_FLUSH_TYPE_PERSISTENT",
               f"the flush completed as {opcode}",
               f'wrote "pmem {x.tag}" and flushed it to persistence')
        expect(r, "server", "region: write and flush to visibility or persistence",
               f"written (persisted by the client's flush): \"pmem {x.tag}\"")
    # DRAM: a visibility flush, native as well (no persistence right needed)
    r = x.pair(messages=(f"dram {x.tag}",))
    expect(r, "client 1", f"the flush completed as {opcode}",
           f'wrote "dram {x.tag}" and flushed it to visibility')
    expect(r, "server", "region: write and flush to visibility, no read",
           f'written (in DRAM): "dram {x.tag}"')


def check_16(x):
    """Native FLUSH asked for (on soft-RoCE), then, unless the caller
    asked already (the binary swap), not."""
    asked = "RPMA_RXE_NATIVE" in x.server_env
    for env in ({"RPMA_RXE_NATIVE": "1"},) + (() if asked else ({},)):
        saved = dict(x.server_env), dict(x.client_env)
        x.server_env.update(env)
        x.client_env.update(env)
        try:
            native_flush_pairs(x)
        finally:
            x.server_env, x.client_env = saved


def grants_refused(x, args, msgs):
    """Without type-2 memory windows (soft-iWARP) the server's grant fails
    at the call (RPMA_E_NOSUPP, the log names the capability) and it ends;
    no client gets a part."""
    r = x.pair(*args, messages=msgs, must_pass=False)
    if r.ok:
        raise Failed(f"the pair passed on a device without memory windows\n{r.report()}")
    expect(r, "server", "rpma_grant_new() failed: Not supported", "binds no type-2 memory windows")
    for i in range(len(msgs)):
        # (a client on librpma 1.x says it in the library's words: "Connection refused")
        text = r.output(f"client {i + 1}").lower()
        if "granted: part" in text or not any(
                t in text for t in ("connection refused", "did not come",
                                    "before it granted a part")):
            raise Failed(f"client {i + 1} did not fail for want of a grant\n{r.report()}")


def check_17(x):
    msgs = [f"{n} {x.tag}" for n in ("one", "two", "three")]
    args = pmem_args(x) + (["--direct-write-to-pmem"] if x.pmem else [])
    args += ["--clients", str(len(msgs))]
    if x.iwarp:
        return grants_refused(x, args, msgs)
    r = x.pair(*args, messages=msgs)
    grants_checked(r, msgs, persisted=x.pmem)


def grants_checked(r, msgs, persisted=False):
    """Each client's message is in the part it was granted and in no other,
    and each was refused the part next to it."""
    expect(r, "server", f"served {len(msgs)} clients, each in its own part")
    if persisted:
        expect(r, "server", "the parts, persisted by the clients' flushes:")
    server = r.output("server").splitlines()
    for i, msg in enumerate(msgs):
        name = f"client {i + 1}"
        expect(r, name, f'read back: "{msg}"',
               "with my grant's key: refused (remote access error), no byte read")
        part = re.search(r"granted: part #(\d+) of", r.output(name))
        if not part:
            raise Failed(f"{name} did not say which part it was granted\n{r.report()}")
        expect(r, "server", f'part #{part[1]}: "{msg}"')
        n = sum(1 for line in server if re.fullmatch(rf'part #\d+: "{re.escape(msg)}"', line))
        if n != 1:
            raise Failed(f'"{msg}" is in {n} parts, not 1\n{r.report()}')


def check_refused(x):
    """A file on a DAX file system where the device has no on-demand
    paging: the server exits saying so, and what to use."""
    proc = x.single("server", x.run.ip(x.hosts[0]), x.run.port(), x.memory)
    if proc.status != 1 or not all(t in proc.output for t in (
            "the memory is a file on a DAX file system", "device DAX namespace")):
        raise Failed(f"the server given {x.memory} on a device without on-demand paging: "
                     f"exit {proc.status}\n{proc.output}")


CHECKS = {name: globals()[f"check_{name[:2]}"] for name in EXAMPLES}
