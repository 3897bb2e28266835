# SPDX-License-Identifier: BSD-3-Clause
"""The libFuzzer targets of tests/fuzz (clang, ASan + UBSan), one for each
function that parses bytes a peer controls: each runs --fuzz-seconds on a
copy of its seed corpus (ahead, while the VMs run), and must neither crash
nor misbehave. A crash's input is kept in BUILD/fuzz-artifacts/TARGET/;
reproduce it with BUILD/tests/fuzz/TARGET BUILD/fuzz-artifacts/TARGET/crash-..."""

import os
import re
import shutil

import pytest
from conftest import TOP

FUZZ = os.path.join(TOP, "tests", "fuzz")
TARGETS = sorted(f[:-2] for f in os.listdir(FUZZ) if re.fullmatch(r"fuzz_\w+\.c", f))


def fuzz(session, target, name):
    """NAME run on a fresh copy of its corpus: its Proc and what it left."""
    place = session.place(target.place)
    build = session.build(target.place, "fuzz")
    seconds = session.options.fuzz_seconds
    artifacts = os.path.join(place.here(build.path), "fuzz-artifacts", name)
    corpus = os.path.join(place.results, "fuzz", name)
    for folder in (artifacts, corpus):
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    shutil.copytree(os.path.join(FUZZ, "corpus", name), corpus, dirs_exist_ok=True)
    # the targets' own chatter is dropped (-close_fd_mask=3); libFuzzer's
    # and the sanitizers' reports still come
    proc = place.remote.call([build.bin("tests", "fuzz", name), f"-max_total_time={seconds}",
                              "-print_final_stats=1", "-close_fd_mask=3", "-timeout=25",
                              f"-artifact_prefix={place.there(artifacts)}/", place.there(corpus)],
                             timeout=seconds + 60)
    return proc, sorted(os.listdir(artifacts))


@pytest.mark.target(hosts=0, variants=("fuzz",))
@pytest.mark.ahead(work=fuzz)
@pytest.mark.parametrize("name", TARGETS)
def test_fuzz(run, name):
    proc, crashes = run.ahead()
    execs = re.findall(r"^stat::number_of_executed_units: *(\d+)", proc.output, re.M)
    print(f"{name}: {execs[-1] if execs else '?'} executions")
    assert proc.status == 0 and not crashes, f"{name} exited {proc.status}, inputs kept: " \
        f"{crashes}\n" + "\n".join(line for line in proc.lines if re.match(
            r"SUMMARY|.*invariant broken|==\d+==ERROR", line))
