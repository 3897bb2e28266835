# SPDX-License-Identifier: BSD-3-Clause
"""A place where commands run: an agent (agent.py) reached over a byte
stream, on this host, in a Debian root or in a VM. The one way the runner
starts a process anywhere."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

from harness.agent import Line

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "agent.py")
# Debian's, whatever else PATH holds: the agent runs where pytest may not be
PYTHON = "/usr/bin/python3"
# the status of a process whose place went away under it (a host killed)
LOST = "lost"


class Proc:
    """A process the agent started: its output lines and status (a shell's, or LOST)."""

    def __init__(self, remote, n, argv):
        self.remote = remote
        self.id = n
        self.argv = argv
        self.lines = []
        self.status = None
        self.timed_out = False
        self.cond = threading.Condition()

    def _line(self, text):
        with self.cond:
            self.lines.append(text)
            self.cond.notify_all()

    def _exit(self, status, timed_out=False):
        with self.cond:
            if self.status is None:
                self.status, self.timed_out = status, timed_out
            self.cond.notify_all()

    def wait(self, timeout=None):
        """The status, or None if it still runs after TIMEOUT seconds."""
        with self.cond:
            self.cond.wait_for(lambda: self.status is not None, timeout)
            return self.status

    def wait_line(self, pattern, timeout, count=1):
        """PATTERN's match in its COUNTth line; None once it ended or TIMEOUT s passed."""
        regex, found, seen = re.compile(pattern), [], 0

        def scan():
            nonlocal seen
            found.extend(filter(None, map(regex.search, self.lines[seen:])))
            seen = len(self.lines)
            return len(found) >= count or self.status is not None
        with self.cond:
            self.cond.wait_for(scan, timeout)
        return found[count - 1] if len(found) >= count else None

    def signal(self, sig):
        if self.status is None:
            self.remote.send(op="signal", id=self.id, sig=int(sig))

    def kill(self):
        self.signal(signal.SIGKILL)

    @property
    def output(self):
        with self.cond:
            return "\n".join(self.lines)


class Remote(Line):
    """An agent's end of the line: run() starts a process there."""

    def __init__(self, name, rfile, wfile, closer=None, hello_timeout=60, alive=None):
        super().__init__(rfile, wfile)
        self.name = name
        self.closer = closer
        self.next_id = 0
        self.hello = threading.Event()
        self.closed = threading.Event()
        self.env = {}
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + hello_timeout
        while not self.hello.wait(0.2):
            if self.closed.is_set() or time.monotonic() > deadline or \
                    (alive is not None and not alive()):
                self.close()
                raise ConnectionError(f"{name}: no agent answered")

    def _read(self):
        try:
            for event in self.messages():
                self._event(event)
        except OSError:
            pass
        self.closed.set()
        with self.lock:
            procs = list(self.procs.values())
            self.procs.clear()
        for proc in procs:
            proc._exit(LOST)

    def _event(self, event):
        kind = event.get("ev")
        if kind == "hello":
            self.env = event.get("env", {})
            self.hello.set()
            return
        with self.lock:
            proc = (self.procs.pop if kind == "exit" else self.procs.get)(event.get("id"), None)
        if proc is not None and kind == "out":
            proc._line(event["line"])
        elif proc is not None and kind == "exit":
            proc._exit(event["status"], event.get("timed_out", False))

    def send(self, **request):
        if self.closed.is_set():
            return False
        try:
            super().send(**request)
        except OSError:
            return False
        return True

    @property
    def alive(self):
        return not self.closed.is_set()

    def run(self, argv, env=None, cwd=None, timeout=None):
        """ARGV started there, ENV over the agent's (None unsets a variable): a Proc."""
        argv = [str(a) for a in argv]
        with self.lock:
            self.next_id += 1
            proc = Proc(self, self.next_id, argv)
            self.procs[proc.id] = proc
        sent = self.send(op="run", id=proc.id, argv=argv, env=env or {},
                         cwd=None if cwd is None else str(cwd), timeout=timeout)
        if not sent:
            proc._exit(LOST)
        return proc

    def call(self, argv, env=None, cwd=None, timeout=None):
        """ARGV run to its end (up to TIMEOUT seconds): its Proc."""
        proc = self.run(argv, env, cwd, timeout)
        proc.wait()
        return proc

    def checked(self, argv, env=None, cwd=None, timeout=None):
        """call(), failing the test unless ARGV exits 0: its Proc."""
        proc = self.call(argv, env, cwd, timeout)
        assert proc.status == 0, f"{' '.join(argv)} exited {proc.status}:\n{proc.output}"
        return proc

    def control(self, line):
        self.send(op="control", line=line)

    def close(self):
        self.send(op="quit")
        if self.closer is not None:
            self.closer()
            self.closer = None


def spawn(name, argv, hello_timeout=600):
    """An agent started as ARGV (ending in agent.py --stdio), over its stdin and stdout."""
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def closer():
        with contextlib.suppress(OSError):
            child.stdin.close()
        try:
            child.wait(60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    return Remote(name, child.stdout, child.stdin, closer, hello_timeout,
                  alive=lambda: child.poll() is None)


def local():
    """This host, through an agent of its own."""
    return spawn("host", [PYTHON, AGENT, "--stdio"], hello_timeout=60)


def connect(name, path, timeout, alive):
    """The agent behind the unix socket PATH, once it is there and
    answers: within TIMEOUT seconds, while ALIVE() holds. A VM on its way
    out (a host killed) may still take the connection and never answer:
    the next boot's socket is tried then."""
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return Remote(name, sock.makefile("rb"), sock.makefile("wb"), sock.close,
                          max(1, deadline - time.monotonic()), alive)
        except (OSError, ConnectionError):
            sock.close()
        if time.monotonic() > deadline or not alive():
            raise ConnectionError(f"{name}: no agent answered on {path}")
        time.sleep(0.2)


if __name__ == "__main__":
    sys.exit("remote.py is a module of the runner, not a program")
