# SPDX-License-Identifier: BSD-3-Clause
"""tests/py/package_device.py ROOT -- what tests/package/check-packages
checks with a device, in a boot of the matrix's row rxe: the packages'
root ROOT (each program chrooted into it) runs the program built on
Debian's librpma, an APM and a GPSPM pair of fio jobs written for fio
3.33's engines, and example 17 built out of tree, serving two clients.
Exit status: 0 all passed, 1 one failed, 2 bad usage, 125 no boot."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from examples import Failed, grants_checked  # noqa: E402
from harness import pair  # noqa: E402
from harness.matrix import Target  # noqa: E402
from harness.session import Run, Session  # noqa: E402
from harness.vm import BootError  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MOUNTS = 'mount -t proc proc "$0/proc" && mount --rbind /sys "$0/sys" && ' \
         'mount --rbind /dev "$0/dev"'


def checks(run, root):
    host = run.host()
    ip = run.ip()
    chroot = ["chroot", root]
    mounted = host.call(["sh", "-c", MOUNTS, root])
    assert mounted.status == 0, mounted.output
    old = host.call(chroot + ["/root/old-program", ip], timeout=120)
    assert old.status == 0 and re.search(r"^device at .*: peer", old.output, re.M), \
        f"the program built on Debian's: exit {old.status}\n{old.output}"
    print(f"the program built on Debian's runs on ours with the device:\n{old.output}")
    for method in ("apm", "gpspm"):
        fio = chroot + ["stdbuf", "-oL", "fio"]
        env = {"RPMA_TEST_IP": ip}
        result = pair.run(pair.Side(host, fio + [f"/root/fio-jobs/{method}-server.fio"], env,
                                    name="server"),
                          [pair.Side(host, fio + [f"/root/fio-jobs/{method}-client.fio"], env)],
                          300, grace=60)
        assert result.ok and "err= 0" in result.output("client"), result.report()
        print(f"fio pair {method}: the jobs of fio 3.33 ran on the installed engines")
    msgs = ["first client", "second client"]
    grants = "/root/grants-build/17-grants"
    port = str(run.port())
    result = pair.run(pair.Side(host, chroot + [f"{grants}-server", ip, port, "--clients", "2"],
                                name="server"),
                      [pair.Side(host, chroot + [f"{grants}-client", ip, port, m],
                                 name=f"client {i + 1}") for i, m in enumerate(msgs)], 120)
    assert result.ok, result.report()
    grants_checked(result, msgs)
    print("example 17, built out of tree on ours, serves two clients, each in its own part")


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    session = Session(TOP, os.path.join(TOP, "test-results", "package"))
    target = Target(session.matrix.rows["rxe"], session.matrix.host_release, "host", "plain")
    run = Run(session, target)
    try:
        run.ready()
        checks(run, argv[1])
    except BootError as e:
        print(e, file=sys.stderr)
        return 125
    except (AssertionError, Failed) as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
