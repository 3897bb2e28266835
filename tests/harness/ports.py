# SPDX-License-Identifier: BSD-3-Clause
"""TCP ports for the servers of one boot, handed out by the runner.

Each port is handed out once per boot: a test never meets an earlier
test's connection in the CM's time-wait, and tests that run side by side
never share one. The range lies below Linux's ephemeral ports (32768 and
up), which soft-iWARP's connections, real TCP ones, take their local ports
from."""

FIRST = 20000
LAST = 32767


class Ports:
    def __init__(self, first=FIRST, last=LAST):
        if not 0 < first <= last < 65536:
            raise ValueError(f"no port range {first}..{last}")
        self.next = first
        self.last = last

    def take(self, count=1):
        """The first of COUNT ports in a row, none handed out before."""
        if count < 1 or self.next + count - 1 > self.last:
            raise RuntimeError(f"out of ports: {count} more past {self.next - 1}")
        port = self.next
        self.next += count
        return port
