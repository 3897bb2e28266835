# SPDX-License-Identifier: BSD-3-Clause
"""Against librpma 1.x, case by case: rpma-probe (tests/interop), built
against Debian's librpma.h and library, runs on Debian's library and on
ours; the outputs may differ only as tests/interop/known-differences
lists (doc/COMPATIBILITY.md says why), and every difference listed must
still be there."""

import pytest

from integ import interop_list, skip_1x_on_iwarp


def keyed(lines):
    """Each line keyed by its case (a detail line, "  ...", by the case
    above it): case -> its lines."""
    cases, key = {}, None
    for line in lines:
        if not line.startswith("  "):
            key = line[:44].rstrip()
        cases.setdefault(key, []).append(line)
    return cases


@pytest.mark.target(hosts=1)
def test_differential(run):
    skip_1x_on_iwarp(run)
    probe = run.build.bin("tests", "interop", "rpma-probe")
    port = str(run.port(2))
    outputs = []
    for lib in (run.build.lib_1x, run.build.bin("src")):
        loaded = run.host().call([probe], env={"LD_TRACE_LOADED_OBJECTS": "1",
                                               "LD_LIBRARY_PATH": lib})
        assert f"=> {lib}/librpma.so.0 " in loaded.output, \
            f"the probe does not load {lib}/librpma.so.0:\n{loaded.output}"
        proc = run.host().call([probe], env={"LD_LIBRARY_PATH": lib, "RPMA_TEST_PORT": port},
                               timeout=300)
        assert proc.status == 0, f"the probe failed on {lib} (exit {proc.status}):\n{proc.output}"
        outputs.append(keyed(proc.lines))
    theirs, ours = outputs
    differing = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
    # both scopes: the probe runs with a device here
    listed = interop_list("known-differences", "plain", "device")
    problems = [f"not a known difference: {k}\n  1.x:  {theirs.get(k)}\n  ours: {ours.get(k)}"
                for k in differing if not any(r.search(k) for r in listed)]
    problems += [f"listed but gone (remove it from known-differences): {r.pattern}"
                 for r in listed if not any(r.search(k) for k in differing)]
    assert not problems, "\n".join(problems)
    print(f"{len(ours)} cases, {len(differing)} differ, each listed in known-differences")
