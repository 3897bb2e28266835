# SPDX-License-Identifier: BSD-3-Clause
"""The CBMC proofs of tests/proof (doc/PROOFS.md): each harness checked
for all inputs, as its build (tests/proof/CMakeLists.txt) says, by
tests/proof/run-proof; ahead, while the VMs run. CBMC is Debian 13's: on a
Debian 12 host they run in the Debian 13 root."""

import os

import pytest
from conftest import TOP

PROOF = os.path.join(TOP, "tests", "proof")
HARNESSES = sorted(f[:-2] for f in os.listdir(PROOF) if f.endswith(".c"))


def prove(session, target, name):
    build = session.build(target.place, "proof")
    return session.place(target.place).remote.call(
        ["ctest", "--test-dir", build.path, "-R", f"^proof_{name}$", "--output-on-failure",
         "--no-tests=error"], timeout=900)


@pytest.mark.target(hosts=0, variants=("proof",))
@pytest.mark.ahead(work=prove)
@pytest.mark.parametrize("name", HARNESSES)
def test_proof(run, name):
    proc = run.ahead()
    assert proc.status == 0, proc.output
