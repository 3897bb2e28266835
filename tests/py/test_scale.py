# SPDX-License-Identifier: BSD-3-Clause
"""Many connections: one server process and one client process of rpma-scale,
with 128 connections, a shared RQ serving 32; small ones cheap enough for
valgrind (a soak of 4 among them); long ones (soaks of 16) with --long."""

import pytest

from integ import Case, run_pair

# name: (test, environment, the process's time limit, which runs take it)
SCALE = {
    "conns_128": ("conns", {"RPMA_SCALE_CONNS": "128"}, 285, "scale"),
    "srq_32": ("srq", {"RPMA_SCALE_SRQ_CONNS": "32"}, 285, "scale"),
    "soak_45s": ("soak", {"RPMA_SCALE_SOAK_CONNS": "16", "RPMA_SCALE_SECONDS": "45"}, 285, "long"),
    "conns_1024": ("conns", {"RPMA_SCALE_CONNS": "1024"}, 1785, "long"),
    "soak_10min": ("soak", {"RPMA_SCALE_SOAK_CONNS": "16", "RPMA_SCALE_SECONDS": "600"}, 885,
                   "long"),
    "conns_8": ("conns", {"RPMA_SCALE_CONNS": "8"}, 105, "small"),
    "srq_8": ("srq", {"RPMA_SCALE_SRQ_CONNS": "8"}, 105, "small"),
    "soak_4x10s": ("soak", {"RPMA_SCALE_SOAK_CONNS": "4", "RPMA_SCALE_SECONDS": "10"}, 105,
                   "small"),
}


@pytest.mark.target(hosts=1, variants=("scale",))
@pytest.mark.parametrize("name", [n for n, v in SCALE.items() if v[3] != "small"])
def test_scale(run, name):
    test, env, limit, kind = SCALE[name]
    if kind == "long":
        run.long(f"a long run (up to {limit // 60} minutes)")
    run_pair(run, Case(test), env=env, limit=run.limit(limit), prog="rpma-scale")


@pytest.mark.target(hosts=1, variants=("valgrind",))
@pytest.mark.parametrize("name", [n for n, v in SCALE.items() if v[3] == "small"])
def test_scale_small(run, name):
    """Every path of the three, under valgrind."""
    test_scale(run, name)
