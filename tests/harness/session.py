# SPDX-License-Identifier: BSD-3-Clause
"""One run of the suite: its places and builds, the boot up, and what a
test works with (Run)."""

import contextlib
import os
import platform
import re
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

import pytest

from harness import matrix as matrix_
from harness import place as place_
from harness.build import Builds
from harness.vm import Boot, BootError

CAPS = re.compile(r"^caps (\w+) (yes|no)$")
DIAGNOSIS = ("echo '# dmesg'; dmesg | tail -n 30; echo '# rdma res'; rdma res show; "
             "rdma res show qp; echo '# hw_counters'; "
             "grep -r . /sys/class/infiniband/*/ports/1/hw_counters/ 2>/dev/null | grep -v ':0$'")


def os_release():
    return platform.freedesktop_os_release().get("VERSION_CODENAME", "")


class Session:
    def __init__(self, top, results, wanted=()):
        self.top = top
        self.results = results
        self.matrix = matrix_.Matrix.load(os_release())
        self.matrix.wanted = set(wanted)
        self.places = {}
        self.builds = {}
        self.needs = {}         # boot key: the variants its tests take
        self.boot = self.boot_key = None
        self.broken = {}        # boot key: why it did not come up
        self.boots_made = 0
        self.restart = False
        # work done ahead, on a thread of its own, while the VMs run
        self.ahead = ThreadPoolExecutor(max_workers=1)
        self.work = {}
        self.lock = threading.Lock()

    def early(self, key, work):
        """WORK queued on the thread of work done ahead (once per KEY)."""
        with self.lock:
            if key not in self.work:
                self.work[key] = self.ahead.submit(work)

    def later(self, key, work):
        """What WORK returns (or raises): done ahead, or now if not begun."""
        with self.lock:
            future = self.work.get(key)
            now = future is None or future.cancel()
            if now:
                self.work[key] = future = Future()
                future.set_running_or_notify_cancel()
        if now:
            try:
                future.set_result(work())
            except Exception as e:  # kept, and raised to every caller
                future.set_exception(e)
        return future.result()

    def place(self, name):
        return self.later(("place", name), partial(self._place, name))

    def _place(self, name):
        made = place_.host(self.top, self.matrix.host_release, self.results) if name == "host" \
            else place_.other(self.top, self.matrix.other_release, f"{self.results}/other")
        self.places[name] = made
        self.builds[name] = Builds(made, self.matrix.builds,
                                   os.path.join(self.results, "builds", name))
        return made

    def build(self, place, name):
        return self.later(("build", place, name), partial(self._build, place, name))

    def _build(self, place, name):
        self.place(place)
        return self.builds[place].get(name)

    def plan(self, targets, works=()):
        """Each boot's variants noted, to start it with their builds made (a
        build made while a VM runs may look stale to the guest's cache); those
        builds, then WORKS ((key, work): the tests' own), queued ahead."""
        for target in targets:
            if target.row.hosts:
                self.needs.setdefault(target.boot_key, set()).add(target.variant)
            build = self.matrix.variants[target.variant]["build"]
            self.early(("build", target.place, build), partial(self._build, target.place, build))
        for key, work in works:
            self.early(key, work)

    def enter(self, target):
        """TARGET's boot up: the current one, unless another's or a restart's."""
        key = target.boot_key
        if self.boot is not None and (self.boot_key != key or self.restart):
            self.stop_boot()
        if key in self.broken:
            raise BootError(self.broken[key])
        if self.boot is None:
            launcher = self.place(target.place)
            for variant in sorted(self.needs.get(key, {target.variant})):
                self.build(target.place, self.matrix.variants[variant]["build"])
            self.boots_made += 1
            name = target.row.name if target.place == "host" else \
                f"{target.place}-{target.row.name}"
            logdir = os.path.join(launcher.results, "boots", f"{self.boots_made:02d}-{name}")
            boot = Boot(name, target.row.rxe_vm_options(launcher.top), target.row.hosts,
                        launcher, logdir)
            try:
                boot.start()
                boot.caps = self.probe(boot, target.place)
            except BootError as e:
                boot.stop()
                self.broken[key] = str(e)
                raise
            self.boot, self.boot_key, self.restart = boot, key, False
        return self.boot

    def probe(self, boot, place):
        """What the boot's device can do, as the tests read it (caps.c)."""
        integ = self.build(place, "plain").bin("tests", "integration", "rpma-integ")
        proc = boot.host(0).call([integ, "caps", "client"], timeout=120)
        caps = {m[1]: m[2] == "yes" for m in map(CAPS.match, proc.lines) if m}
        if proc.status != 0 or not caps:
            raise BootError(f"{boot.name}: the device's capabilities are unknown:\n{proc.output}")
        return caps

    def stop_boot(self):
        if self.boot is not None:
            self.boot.stop()
        self.boot = self.boot_key = None

    def diagnose(self):
        """Each host's last kernel lines, RDMA resources left and device counters."""
        if self.boot is None:
            return "no boot"
        return "\n".join(f"host {n}: gone" if r is None or not r.alive else
                         f"host {n}:\n{r.call(['sh', '-c', DIAGNOSIS], timeout=60).output}"
                         for n, r in enumerate(self.boot.remotes))

    def close(self):
        self.ahead.shutdown(cancel_futures=True)
        self.stop_boot()
        for made in self.places.values():
            made.close()


class Run:
    """What a test works with: place, build, boot, hosts, ports, caps, defects."""

    def __init__(self, session, target, round_=1, long_runs=False):
        self.session = session
        self.target = target
        self.row = target.row
        self.variant = session.matrix.variants[target.variant]
        self.wrapper = list(self.variant.get("wrapper", ()))
        self.slower = self.variant.get("slower", 1)
        self.env = dict(self.variant.get("env", {}))
        self.boot = None
        self.round, self.long_runs = round_, long_runs

    def ready(self):
        """The target's build made and its boot up: raises what failed."""
        self.place = self.session.place(self.target.place)
        self.build = self.session.build(self.target.place, self.variant["build"])
        if self.row.hosts:
            self.boot = self.session.enter(self.target)

    def long(self, why):
        """Skipped, for WHY, but in a run with --long."""
        if not self.long_runs:
            pytest.skip(f"{why}: utils/test --long runs it")

    def limit(self, seconds):
        return seconds * self.slower

    def host(self, n=0):
        return self.boot.host(n)

    def ip(self, n=0):
        return self.boot.host(n).env["RPMA_TEST_IP"]

    def port(self, count=1):
        return self.boot.ports.take(count)

    @property
    def caps(self):
        return self.boot.caps

    def other_build(self, name):
        return self.session.build(self.target.place, name)

    @contextlib.contextmanager
    def defect(self, name, when=True):
        """The block is a strict expected failure where the row has defect
        NAME (and WHEN holds): passing there fails the test."""
        reason = self.session.matrix.defect(self.target, name) if when else None
        if reason is None:
            yield
            return
        try:
            yield
        except (AssertionError, pytest.fail.Exception):
            pytest.xfail(reason)
        pytest.fail(f"[XPASS(strict)] {reason}: it passed, so the defect is gone from this "
                    f"kernel: take it out of the row in tests/matrix.toml", pytrace=False)

    def skip_defect(self, name, seen):
        """Skipped where the row has defect NAME, seen now and then (SEEN: how often)."""
        reason = self.session.matrix.defect(self.target, name)
        if reason is not None:
            pytest.skip(f"{reason}; here it shows only now and then ({seen})")
