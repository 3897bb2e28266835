# SPDX-License-Identifier: BSD-3-Clause
"""tests/py/package_device.py ROOT -- what tests/package/check-packages
checks with a device, in a boot of the matrix's row rxe, each program
chrooted into the packages' root ROOT: the program built on Debian's
librpma, an APM and a GPSPM pair of fio jobs written for fio 3.33's
engines, and example 17 built out of tree, serving two clients.
Exit status: 0 all passed, 1 one failed, 2 bad usage, 125 no boot."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from conftest import TOP  # noqa: E402
from examples import Example, Failed, grants_checked  # noqa: E402
from harness.matrix import Target  # noqa: E402
from harness.session import Run, Session  # noqa: E402
from harness.vm import BootError  # noqa: E402
from test_fio import fio_pair  # noqa: E402

MOUNTS = 'mount -t proc proc "$0/proc" && mount --rbind /sys "$0/sys" && ' \
         'mount --rbind /dev "$0/dev"'


def checks(run, root):
    host, ip, chroot = run.host(), run.ip(), ["chroot", root]
    host.checked(["sh", "-c", MOUNTS, root])
    old = host.call(chroot + ["/root/old-program", ip], timeout=120)
    assert old.status == 0 and re.search(r"^device at .*: peer", old.output, re.M), \
        f"the program built on Debian's: exit {old.status}\n{old.output}"
    print(f"the program built on Debian's runs on ours with the device:\n{old.output}")
    for method in ("apm", "gpspm"):
        fio_pair(run, f"/root/fio-jobs/{method}-server.fio", f"/root/fio-jobs/{method}-client.fio",
                 {"RPMA_TEST_IP": ip}, prefix=chroot)
        print(f"fio pair {method}: the jobs of fio 3.33 ran on the installed engines")
    x = Example(run, "17-grants", bin_dir="/root/grants-build", tag="package", retries=0)
    x.wrapper = chroot
    msgs = ["first client", "second client"]
    grants_checked(x.pair("--clients", "2", messages=msgs), msgs)
    print("example 17, built out of tree on ours, serves two clients, each in its own part")


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    session = Session(TOP, os.path.join(TOP, "test-results", "package"))
    run = Run(session, Target(session.matrix.rows["rxe"], session.matrix.host_release, "host",
                              "plain"))
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
