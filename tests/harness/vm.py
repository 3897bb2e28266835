# SPDX-License-Identifier: BSD-3-Clause
"""One boot of utils/rxe-vm: its VMs (one host or two), their agents, the
ports handed out in it and what its device can do."""

import os
import re
import shutil
import tempfile

from harness import remote
from harness.ports import Ports

# what a guest console says when its kernel crashed (no test's doing:
# under TCG a guest now and then takes a double fault in rxe's requester,
# or an int3 oops where the kernel patches its own code)
CRASH = re.compile(r"PANIC: double fault[^\x00-\x1f]*|Kernel panic[^\x00-\x1f]*")
# seconds a VM may take from rxe-vm's start to its agent's hello: the
# first boot of a kernel fetches it and builds siw.ko or rxe.ko
BOOT_TIMEOUT = 1800


class BootError(Exception):
    pass


class Boot:
    """The VMs of one row, started by LAUNCHER (the place whose utils/rxe-vm runs them)."""

    def __init__(self, name, options, hosts, launcher, logdir, env=None):
        self.name = name
        self.env = env
        self.options = list(options)
        self.launcher = launcher
        self.logdir = logdir
        self.hosts = hosts
        self.ports = Ports()
        self.remotes = [None] * hosts
        self.proc = self.caps = self.agent_dir = None

    def start(self):
        """Boots the VMs and greets their agents; BootError if it fails. One
        host with a real RDMA device (native()) is this machine: no VM."""
        if self.hosts == 1 and self.launcher.name == "host" and native():
            self.remotes[0] = remote.local()
            return
        there = self.launcher.there
        os.makedirs(self.logdir, exist_ok=True)
        # a unix socket's path is short: under the place's /tmp
        self.agent_dir = tempfile.mkdtemp(prefix="rxe-vm-agent.", dir=self.launcher.here("/tmp"))
        top = self.launcher.top
        argv = [f"{top}/utils/rxe-vm", "--agent", there(self.agent_dir),
                "--log", there(self.console()), "--hosts", self.hosts,
                "--timeout", 6 * 3600, *self.options, "--",
                remote.PYTHON, f"{top}/tests/harness/agent.py", "--port-env", "RXE_VM_AGENT"]
        self.proc = self.launcher.remote.run(argv, self.env)
        try:
            for n in range(self.hosts):
                self.host(n, BOOT_TIMEOUT)
        except ConnectionError as e:
            self.stop()
            raise BootError(f"{self.name}: the VM did not come up ({e}):\n{self.tail()}") from e

    def console(self, n=None):
        """Host N's console log (both hosts' with N None: the base name)."""
        base = os.path.join(self.logdir, "console")
        return base if n is None or self.hosts == 1 else f"{base}.{n}"

    def host(self, n=0, timeout=300):
        """Host N's agent; after a reboot, the new boot's, once it answers."""
        if self.remotes[n] is None or not self.remotes[n].alive:
            self.remotes[n] = remote.connect(f"{self.name} host {n}", f"{self.agent_dir}/agent.{n}",
                                             timeout, lambda: self.proc.status is None)
        return self.remotes[n]

    def revive(self, n):
        """Host N up again if a test killed it and did not boot it."""
        try:
            self.host(n, timeout=5)
        except ConnectionError:
            self.host(1 - n).control(f"boot {n}")
            self.host(n)

    def consoles(self):
        """Each host's console log ("" where there is none yet)."""
        texts = []
        for n in range(self.hosts if self.proc else 0):
            try:
                with open(self.console(n), encoding="utf-8", errors="replace") as f:
                    texts.append(f.read())
            except OSError:
                texts.append("")
        return texts

    def crash(self):
        """The console line that says a guest kernel crashed, or None."""
        return next((m[0] for m in map(CRASH.search, self.consoles()) if m), None)

    def tail(self, lines=25):
        text = self.proc.output.splitlines() if self.proc else []
        for console in self.consoles():
            text += console.splitlines()[-lines:]
        return "\n".join(text[-2 * lines:])

    def stop(self):
        for r in self.remotes:
            if r is not None and r.alive:
                r.close()
        if self.proc is not None and self.proc.wait(120) is None:
            self.proc.kill()
            self.proc.wait(30)
        self.remotes = [None] * self.hosts
        if self.agent_dir:
            shutil.rmtree(self.agent_dir, ignore_errors=True)
            self.agent_dir = None


def native():
    """Whether the tests are pointed (RPMA_TEST_IP) at this machine's RDMA device."""
    devices = "/sys/class/infiniband"
    return bool(os.environ.get("RPMA_TEST_IP")) and os.path.isdir(devices) and \
        bool(os.listdir(devices))
