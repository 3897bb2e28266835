# SPDX-License-Identifier: BSD-3-Clause
"""utils/demo's two boots: python3 boots.py BUILD MESSAGE PMEM_FILE FS
KERNEL. Boot 1: example 05's server on the NVDIMM backed by PMEM_FILE
(or, FS not "-", a file on FS, ext4 or xfs, mounted -o dax on it), its
client writing MESSAGE and flushing it to persistence; the machine is
powered off (its power cut, with FS). Boot 2: a new server on the same
memory finds MESSAGE. KERNEL: the VM's (utils/rxe-vm --kernel), or ""
for its default. Exit status: 0 it survived, 1 it did not, 125 no boot."""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))

from harness import pair, place  # noqa: E402
from harness.session import os_release  # noqa: E402
from harness.vm import Boot, BootError  # noqa: E402

EXAMPLE = "05-flush-to-persistent"


def say(text):
    print(f"\n>>> {text}", flush=True)


def visit(here, build, message, memory, fs, kernel):
    """One boot's pair: the server on the memory, the client writing MESSAGE."""
    options = [f"--pmem-{fs}", f"{memory}:1G"] if fs else ["--pmem", memory]
    options += ["--kernel", kernel] if kernel else []
    vm = Boot("demo", options, 1, here, here.results,
              env={"RXE_VM_POWER_CUT": "1" if fs else "0"})
    vm.start()
    try:
        host = vm.host()
        ip = host.env["RPMA_TEST_IP"]
        mem = f"{host.env[f'RPMA_TEST_FSDAX_{fs.upper()}']}/demo.pmem" if fs else \
            host.env["RPMA_TEST_PMEM"]
        port = vm.ports.take()
        # the library uses soft-RoCE's on-demand paging, which a DAX file needs, when asked
        env = {"RPMA_RXE_ODP": "1"} if fs else {}
        server = pair.Side(host, [f"{build}/examples/{EXAMPLE}-server", ip, port, mem,
                                  "--direct-write-to-pmem"], env, name="server")
        client = pair.Side(host, [f"{build}/examples/{EXAMPLE}-client", ip, port, message], env)
        result = pair.run(server, [client], 120)
    finally:
        vm.stop()
    for proc in result.procs:
        print("\n".join(f"    {proc.name}: {line}" for line in proc.lines))
    return result


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    build, message, memory, fs, kernel = argv[1:]
    fs = "" if fs == "-" else fs
    here = place.host(TOP, os_release(), os.path.join(TOP, "test-results", "demo"))
    try:
        say(f"Boot 1: the server's machine starts with empty persistent memory ({memory}"
            f"{f', {fs} mounted -o dax on it' if fs else ''}).")
        say(f'The client writes "{message}" and flushes it to persistence.')
        if not visit(here, build, message, memory, fs, kernel).ok:
            return 1
        say("The server's machine is off now. Boot 2: the same persistent memory, a new server.")
        again = visit(here, build, "second visit", memory, fs, kernel)
    except BootError as e:
        print(e, file=sys.stderr)
        return 125
    finally:
        here.close()
    if again.ok and f'previous value: "{message}"' in again.output("server"):
        say("The message survived the power-off: it was durable when rpma_flush() completed.")
        return 0
    say("The message did not survive.")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
