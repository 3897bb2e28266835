# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix.toml, read and expanded: the rows (this host, and the
boots of utils/rxe-vm), the variants, builds, defects and memory kinds,
and the targets a test runs on."""

import os
import tomllib
from dataclasses import dataclass, field

RELEASES = ("bookworm", "trixie")
PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "matrix.toml")


def memory_kinds(having=None):
    """The memory kinds of the matrix file (those with the field HAVING)."""
    with open(PATH, "rb") as f:
        kinds = tomllib.load(f).get("memory", {})
    return [name for name, spec in kinds.items() if having is None or having in spec]


class MatrixError(Exception):
    pass


@dataclass(frozen=True)
class Row:
    name: str
    hosts: int = 1
    kernel: str = ""
    device: str = ""
    patch: str = ""
    releases: tuple = RELEASES
    variants: tuple = ()
    defects: tuple = ()
    skip: str = ""
    part: str = ""
    memory: tuple = ()
    sample: tuple = ()      # (variant, N): a run of every part runs 1 in N of its tests

    @property
    def order(self):
        """Its variants in the order its tests run (plain first unless listed)."""
        return self.variants if "plain" in self.variants else ("plain",) + self.variants

    def rxe_vm_options(self, top):
        """utils/rxe-vm's options for a boot of this row, the tree at TOP."""
        options = ["--kernel", self.kernel, "--device", self.device, "--fsdax"]
        if self.patch:
            options += ["--patch", f"{top}/{self.patch}"]
        return options


@dataclass(frozen=True)
class Target:
    """Where a test runs: a row, on a release (place: the host's or "other"), in a variant."""
    row: Row
    release: str
    place: str      # "host" or "other"
    variant: str

    @property
    def id(self):
        prefix = f"{self.release}-" if self.place == "other" else ""
        suffix = "" if self.variant == "plain" else f"-{self.variant}"
        return f"{prefix}{self.row.name}{suffix}"

    @property
    def boot_key(self):
        return (self.place, self.row.name)


@dataclass
class Matrix:
    rows: dict
    variants: dict
    builds: dict
    defects: dict
    memory: dict
    other: tuple
    host_release: str
    wanted: set = field(default_factory=set)

    @classmethod
    def load(cls, host_release, path=PATH):
        if host_release not in RELEASES:
            raise MatrixError(f"this host is neither of {RELEASES}: {host_release!r}")
        with open(path, "rb") as f:
            data = tomllib.load(f)
        rows = {}
        for name, entry in data.get("boot", {}).items():
            try:
                rows[name] = Row(name=name, **{k: tuple(v) if isinstance(v, list) else
                                               tuple(v.items()) if isinstance(v, dict) else v
                                               for k, v in entry.items()})
            except TypeError as e:
                raise MatrixError(f"{path}: boot {name}: {e}") from e
        matrix = cls(rows=rows, variants=data.get("variant", {}), builds=data.get("build", {}),
                     defects=data.get("defect", {}), memory=data.get("memory", {}),
                     other=tuple(data.get("release", {}).get("other", ())),
                     host_release=host_release)
        matrix.check(path)
        return matrix

    def check(self, path):
        """Every name a row or variant uses is declared."""
        def need(where, kind, names, known):
            for name in names:
                if name not in known:
                    raise MatrixError(f"{path}: {where}: no {kind} {name}")
        if "plain" not in self.variants:
            raise MatrixError(f"{path}: no variant plain")
        for row in self.rows.values():
            where = f"boot {row.name}"
            need(where, "variant", row.variants, self.variants)
            need(where + " sample", "variant", dict(row.sample), row.variants)
            need(where, "defect", row.defects + ((row.skip,) if row.skip else ()), self.defects)
            need(where, "release", row.releases, RELEASES)
            if row.hosts and not (row.kernel and row.device):
                raise MatrixError(f"{path}: {where}: a boot needs kernel and device")
        for name, variant in self.variants.items():
            need(f"variant {name}", "build", [variant.get("build")], self.builds)
        need("release.other", "boot", self.other, self.rows)

    @property
    def other_release(self):
        return next(r for r in RELEASES if r != self.host_release)

    def targets(self):
        """Every target in the runner's order: this release's rows, then the other's."""
        found = []
        for place, release in (("host", self.host_release), ("other", self.other_release)):
            for row in self.rows.values():
                if release not in row.releases or (place == "other" and row.name not in self.other):
                    continue
                for variant in row.order:
                    # on the other release: plain, and the variants bound to it
                    bound = self.variants[variant].get("releases")
                    if (bound and release not in bound) or \
                            (place == "other" and variant != "plain" and not bound):
                        continue
                    found.append(Target(row, release, place, variant))
        return found

    def expand(self, hosts, variants):
        """The targets of a test on HOSTS hosts (0: no VM) that runs in VARIANTS."""
        return [t for t in self.targets() if t.row.hosts == hosts and t.variant in variants]

    def runs(self, target, memory):
        """Whether TARGET's row runs a test of server memory MEMORY (None:
        it takes none): a row that names its kinds runs only those."""
        return not target.row.memory or memory in target.row.memory

    def parts(self, target):
        """The parts of utils/test that run TARGET: its variant's, else its row's;
        "other-release" on the other release, but for variants bound to one."""
        variant = self.variants[target.variant]
        if target.place == "other" and not variant.get("releases"):
            return {"other-release"}
        return {variant.get("part") or target.row.part}

    def sample(self, target):
        """N where a run of every part runs one in N of TARGET's tests, else 1."""
        return dict(target.row.sample).get(target.variant, 1) if target.place == "host" else 1

    def skip_reason(self, target):
        """Why TARGET's row is not run, or None."""
        row = target.row
        if row.skip and row.name not in self.wanted:
            return f"{row.name}: {self.defects[row.skip]} (utils/test --boot {row.name} runs it)"
        return None

    def defect(self, target, name):
        """The reason of defect NAME where TARGET's row has it, else None."""
        return f"{target.row.name}: {self.defects[name]}" if name in target.row.defects else None
