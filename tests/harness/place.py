# SPDX-License-Identifier: BSD-3-Clause
"""Where a release's tree is built and its programs started: this host,
or a root of the other Debian release (utils/other-release), each through
its agent. A VM booted from a place sees that place's / as its own."""

import os

from harness import remote

# where utils/other-release keeps its roots and puts its copy of the tree
RELEASE_CACHE = os.environ.get("RPMA_RELEASE_CACHE", "/var/cache/rpma-release")
COPY = "/root/librpma"


class Place:
    """NAME ("host" or "other") of RELEASE, reached through REMOTE, its tree
    at TOP there; RESULTS: a folder of this host's that the place writes
    into too (logs, reports); MAPS: (path here, the same path there)."""

    def __init__(self, name, release, remote_, top, results, maps=()):
        self.name = name
        self.release = release
        self.remote = remote_
        self.top = top
        self.results = results
        self.maps = list(maps)

    def there(self, path):
        """PATH of this host as the place sees it."""
        return _swap(path, self.maps)

    def here(self, path):
        """PATH of the place as this host sees it."""
        return _swap(path, [(there, here) for here, there in self.maps])

    def close(self):
        self.remote.close()


def _swap(path, maps):
    """PATH from under the longest OLD of MAPS ((OLD, NEW) pairs) to its NEW, or PATH."""
    for old, new in sorted(maps, key=lambda m: -len(m[0])):
        old, new = old.rstrip("/"), new.rstrip("/")
        if path == old or path.startswith(old + "/"):
            return (new + path[len(old):]) or "/"
    return path


def host(top, release, results):
    return Place("host", release, remote.local(), top, results)


def other(top, release, results):
    """The tree in a root of RELEASE (utils/other-release); RESULTS: its test-results/."""
    os.makedirs(results, exist_ok=True)
    start = "utils/install-deps >&2 && exec /usr/bin/python3 tests/harness/agent.py --stdio"
    agent = remote.spawn(f"Debian {release}",
                         [f"{top}/utils/other-release", "--suite", release, "--results", results,
                          "--", "bash", "-c", start], hello_timeout=3600)
    root = os.path.join(RELEASE_CACHE, release)
    return Place("other", release, agent, COPY, results,
                 [(results, f"{COPY}/test-results"), (root, "/")])
