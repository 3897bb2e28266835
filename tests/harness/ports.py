# SPDX-License-Identifier: BSD-3-Clause
"""TCP ports for the servers of one boot, each handed out once: a test
never meets an earlier one's connection in the CM's time-wait, nor shares
a port with one beside it. The range lies below Linux's ephemeral ports
(32768 and up), where soft-iWARP's connections, real TCP ones, take
their local ports."""

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
