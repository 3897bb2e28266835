# SPDX-License-Identifier: BSD-3-Clause
"""The runner's hands where the tests run: in a VM, in a Debian root of
the other release, or on this host.

    python3 agent.py --stdio           requests on stdin, events on stdout
    python3 agent.py --port-env VAR    both over the device VAR names (the
                                       VM's port, utils/rxe-vm --agent)

One JSON object a line each way (remote.py is the other end). Requests:
  run {id, argv, env, cwd, timeout}  a process in a session of its own,
        stdout and stderr one pipe, TIMEOUT s at most (TERM, KILL 5 s later)
  signal {id, sig}   to the process's whole group
  control {line}     LINE to utils/rxe-vm's control port ("kill 1", "boot 1")
  quit               every process killed, then exit
as {"op": "run", "id": N, ...}. Events: {"ev": "hello", "env": {...}}
first, then per process {"ev": "out", "id": N, "line": TEXT} and last
{"ev": "exit", "id": N, "status": S, "timed_out": BOOL}, S as a shell
gives it (128 + the signal). What a process leaves behind in its group
dies when it exits: its pipe then ends.
"""

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading

KILL_AFTER = 5
# what the runner learns of the place in the hello
HELLO_VARS = ("RPMA_", "RXE_VM_")


class Line:
    """Either end (Remote, remote.py, the runner's): its processes by id; a
    line that is no object is passed over (what else a place prints)."""

    def __init__(self, rfile, wfile):
        self.rfile = rfile
        self.wfile = wfile
        self.lock = threading.Lock()
        self.procs = {}

    def send(self, **message):
        data = (json.dumps(message) + "\n").encode()
        with self.lock:
            self.wfile.write(data)
            self.wfile.flush()

    def messages(self):
        for raw in self.rfile:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                yield message


class Agent(Line):
    def serve(self):
        self.send(ev="hello", pid=os.getpid(),
                  env={k: v for k, v in os.environ.items() if k.startswith(HELLO_VARS)})
        for request in self.messages():
            op = request.get("op")
            if op == "run":
                self.run(request)
            elif op == "signal":
                self.signal(request["id"], request["sig"])
            elif op == "control":
                with open(os.environ["RXE_VM_CONTROL"], "w", encoding="utf-8") as port:
                    port.write(request["line"] + "\n")
            elif op == "quit":
                break
        for n in list(self.procs):
            self.signal(n, signal.SIGKILL)

    def run(self, request):
        n = request["id"]
        # a value None removes the variable
        env = {k: v for k, v in {**os.environ, **(request.get("env") or {})}.items()
               if v is not None}
        try:
            proc = subprocess.Popen(request["argv"], cwd=request.get("cwd"), env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as e:
            self.send(ev="out", id=n, line=f"agent: cannot run {request['argv'][0]}: {e}")
            self.send(ev="exit", id=n, status=127, timed_out=False)
            return
        self.procs[n] = proc
        threading.Thread(target=self.pump, args=(n, proc, request.get("timeout")),
                         daemon=True).start()

    def pump(self, n, proc, timeout):
        expired = threading.Event()
        waiter = threading.Thread(target=self.reap, args=(proc, timeout, expired), daemon=True)
        waiter.start()
        for raw in proc.stdout:
            self.send(ev="out", id=n, line=raw.decode(errors="replace").rstrip("\n"))
        waiter.join()
        self.procs.pop(n, None)
        status = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        self.send(ev="exit", id=n, status=status, timed_out=expired.is_set())

    @staticmethod
    def reap(proc, timeout, expired):
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            expired.set()
            killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(KILL_AFTER)
            except subprocess.TimeoutExpired:
                killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        # its leftovers hold the pipe open
        killpg(proc.pid, signal.SIGKILL)

    def signal(self, n, sig):
        proc = self.procs.get(n)
        if proc is not None:
            killpg(proc.pid, sig)


def killpg(pgid, sig):
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def main(argv):
    if argv[1:] == ["--stdio"]:
        agent = Agent(sys.stdin.buffer, sys.stdout.buffer)
    elif len(argv) == 3 and argv[1] == "--port-env":
        fd = os.open(os.environ[argv[2]], os.O_RDWR)
        agent = Agent(os.fdopen(fd, "rb"), os.fdopen(os.dup(fd), "wb", buffering=0))
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    agent.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
