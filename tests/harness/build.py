# SPDX-License-Identifier: BSD-3-Clause
"""The tree's builds in one place, each configured and built when a test
first needs it (once: the session keeps what get() returned or raised,
so that a build that failed fails every test that needs it, with its
log's end)."""

import os

# what the plain build gets librpma 1.x from: Debian's packages, unpacked
# (never installed) where the interop tests and the 1.x examples find them
PACKAGES_1X = ("librpma-dev", "librpma0")


class BuildError(Exception):
    pass


class Build:
    def __init__(self, name, place, path, cache, why_no_1x=""):
        self.name = name
        self.place = place
        self.path = path            # as the place sees it
        self.cache = cache          # CMakeCache.txt's NAME:TYPE=VALUE, by NAME
        self.why_no_1x = why_no_1x  # why the build has no librpma 1.x

    def has(self, flag):
        """Whether the build defines FLAG (HAVE_IBV_FLUSH, ...) true."""
        return self.cache.get(flag, "").upper() in ("1", "ON", "TRUE", "YES")

    def bin(self, *parts):
        return os.path.join(self.path, *parts)

    @property
    def lib_1x(self):
        """Debian's librpma 1.x folder the build was configured with, or ''."""
        return self.cache.get("LIBRPMA_1X_LIBDIR", "")


class Builds:
    def __init__(self, place, specs, logdir, jobs=None):
        self.place = place
        self.specs = specs
        self.logdir = logdir
        self.jobs = jobs or os.cpu_count() or 2

    def _run(self, name, argv, env=None, timeout=3600):
        proc = self.place.remote.call(argv, env=env, cwd=self.place.top, timeout=timeout)
        os.makedirs(self.logdir, exist_ok=True)
        with open(os.path.join(self.logdir, f"build-{name}.log"), "a", encoding="utf-8") as log:
            log.write(f"$ {' '.join(argv)}\n{proc.output}\n(status {proc.status})\n")
        if proc.status != 0:
            tail = "\n".join(proc.lines[-40:])
            raise BuildError(f"the build {name} failed: {' '.join(argv)} "
                             f"(status {proc.status}):\n{tail}")
        return proc

    def get(self, name):
        """Build NAME, made; BuildError if it failed."""
        spec = self.specs[name]
        top = self.place.top
        path = os.path.join(top, spec["dir"])
        options = ["-DDEVELOPER_MODE=ON"] + list(spec.get("options", ()))
        why_no_1x = ""
        if spec.get("peer_1x"):
            try:
                options.append(f"-DLIBRPMA_1X_LIBDIR={self._fetch_1x(name, path)}")
            except BuildError as e:
                why_no_1x = str(e)
        env = {"CC": spec["cc"]} if "cc" in spec else None
        self._run(name, ["cmake", "-S", top, "-B", path, *options], env)
        targets = [arg for target in spec.get("targets", ()) for arg in ("--target", target)]
        self._run(name, ["cmake", "--build", path, "-j", str(self.jobs), *targets])
        return Build(name, self.place, path, read_cache(self.place.here(path)), why_no_1x)

    def _fetch_1x(self, name, path):
        """Debian's librpma 1.x unpacked under PATH: its library's folder
        (BuildError when the archive has none: the tests on 1.x say why)."""
        work = os.path.join(path, "tests", "interop", "work")
        script = ('set -e; [ -f debian/usr/include/librpma.h ] && exit 0; rm -rf debs debian; '
                  'mkdir -p debs; cd debs; apt-get download "$@" >/dev/null 2>&1 || '
                  '{ apt-get update -qq && apt-get download "$@"; }; '
                  'for d in *.deb; do dpkg -x "$d" ../debian; done')
        self._run(name, ["sh", "-c", f"mkdir -p {work} && cd {work} && {script}",
                         "sh", *PACKAGES_1X])
        proc = self.place.remote.call(["find", f"{work}/debian", "-name", "librpma.so.0"])
        found = [line for line in proc.lines if line.endswith("librpma.so.0")]
        if not found:
            raise BuildError(f"no librpma.so.0 in Debian's {' '.join(PACKAGES_1X)}")
        return os.path.dirname(found[0])


def read_cache(path):
    """The entries of PATH/CMakeCache.txt, by name."""
    try:
        with open(os.path.join(path, "CMakeCache.txt"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    entries = (line.split("=", 1) for line in lines
               if "=" in line and not line.startswith(("#", "//")))
    return {key.split(":", 1)[0]: value for key, value in entries}
