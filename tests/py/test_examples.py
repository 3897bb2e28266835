# SPDX-License-Identifier: BSD-3-Clause
"""Every example pair on every one-host boot, on each kind of server memory
it takes; and the binary swap: the examples built against 1.x's header
run on 1.x and on ours, printing the same."""

import difflib
import re

import pytest

from examples import CHECKS, EXAMPLES, WITH_MEMORY, Example, Failed
from harness.matrix import memory_kinds
from integ import interop_list, skip_1x_on_iwarp

SERVER_MEMORY = [m for m in memory_kinds() if m != "dram"]
PAIRS = [(name, memory) for name in EXAMPLES
         for memory in (SERVER_MEMORY if name[:2] in WITH_MEMORY else ["dram"])]
# those that write at an offset within a page (07's log entries, 17's parts)
WITHIN_PAGES = {"07", "17"}
FIRST_PAIR = re.compile(r"previous value: |[^ ]+ (had no data|holds data) of an earlier run")


def memory_of(x, kind):
    """The example's server memory of KIND on the boot: its path, made
    anew where it is a file, or None; x.pmem says whether it is pmem."""
    spec = x.run.session.matrix.memory[kind]
    host = x.run.host(x.hosts[0])
    x.pmem = spec.get("pmem", False)
    if "env" in spec and "fs" not in spec:
        return host.env[spec["env"]]
    if "env" not in spec and "dir" not in spec:
        return None
    path = f"{host.env[spec['env']] if 'env' in spec else spec['dir']}/example-{x.nn}.mem"
    host.checked(["sh", "-c", 'rm -f "$1" && : >"$1"', "sh", path])
    return path


@pytest.mark.target(hosts=1, variants=("plain", "sanitizers"))
@pytest.mark.parametrize("name,memory", PAIRS, ids=[f"{n}-{m}" for n, m in PAIRS])
def test_example(run, name, memory):
    fs = "fs" in run.session.matrix.memory[memory]
    # the library uses soft-RoCE's on-demand paging only when asked (src/peer.c)
    x = Example(run, name, server_env={"RPMA_RXE_ODP": "1"} if fs else {})
    x.memory = memory_of(x, memory)
    if fs and not run.caps["odp"]:
        # the kernel never pins such a file: the server exits saying so, and what to use
        return x.alone("server", [run.ip(), run.port(), x.memory], 1,
                       ["the memory is a file on a DAX file system", "device DAX namespace"],
                       f"given {x.memory} on a device without on-demand paging")
    with run.defect("odp-copy", when=fs and x.nn in WITHIN_PAGES):
        CHECKS[name](x)


def normalized(x, ip):
    """Every line the swap's pairs printed, keyed by pair and program, but
    what differs by design: the ports, what the memory held before the
    first of two pairs, the order (and so the numbers) of clients served at
    once (06, 17), and the lines tests/interop/swap-differences lists."""
    skip = interop_list("swap-differences", x.name, "*")
    lines, pairs, at_once = [], 0, x.nn in ("06", "17")
    for n, result in enumerate(x.results, 1):
        pairs += len(result.procs) > 1  # (a program alone is one)
        for proc in result.procs:
            for line in proc.lines:
                line = re.sub(re.escape(ip) + r":\d+", "ADDR:PORT", line)
                if pairs == 1 and FIRST_PAIR.match(line) or any(r.search(line) for r in skip):
                    continue
                if at_once:
                    line = re.sub(r"#\d+", "#N", line)
                if x.nn == "17":
                    line = re.sub(r"^the (next|previous) part,", "the next or previous part,", line)
                lines.append(f"{n}-{proc.name}|{line}")
    return sorted(lines) if at_once else lines


@pytest.mark.target(hosts=1)
@pytest.mark.parametrize("name", EXAMPLES)
def test_swap(run, name):
    """NAME's programs built on 1.x (examples/1x) run on 1.x's library, then on
    ours; 17's server, which grants, is ours both times."""
    skip_1x_on_iwarp(run)
    ours_server = name.startswith("17")
    if ours_server and run.caps["iwarp"]:
        pytest.skip("on iWARP the server refuses every grant, and how each of its three "
                    "clients learns it depends on the order they came in: no two runs print "
                    "the same")
    outputs = []
    bin_1x = run.build.bin("examples", "1x")
    for lib in (run.build.lib_1x, run.build.bin("src")):
        env = {"LD_LIBRARY_PATH": lib, "RPMA_RXE_NATIVE": "1"}
        x = Example(run, name, bin_dir=bin_1x,
                    server_bin_dir=run.build.bin("examples") if ours_server else bin_1x,
                    server_env={"RPMA_RXE_NATIVE": "1"} if ours_server else env,
                    client_env=env, tag="swap", pmem=name[:2] in WITH_MEMORY)
        loaded = run.host().call([f"{bin_1x}/{name}-client"],
                                 env={"LD_TRACE_LOADED_OBJECTS": "1", "LD_LIBRARY_PATH": lib})
        assert f"=> {lib}/librpma.so.0 " in loaded.output, \
            f"{name}-client does not load {lib}/librpma.so.0:\n{loaded.output}"
        try:
            CHECKS[name](x)
        except Failed as e:
            raise Failed(f"on {lib}: {e}") from None
        outputs.append(normalized(x, run.ip()))
    assert outputs[0] == outputs[1], "the programs print differently on 1.x and on ours:\n" + \
        "\n".join(difflib.unified_diff(*outputs, "1.x", "ours", lineterm=""))
