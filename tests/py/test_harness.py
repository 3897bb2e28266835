# SPDX-License-Identifier: BSD-3-Clause
"""The runner's own tests: the matrix's expansion, the port allocator, the
pair runner's readiness and failure paths, and the count: a broken cmocka
case or pair moves pytest's closing count by exactly one failure."""

import os
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from conftest import TOP, sampled

from harness import pair, remote
from harness.matrix import Matrix, MatrixError
from harness.ports import Ports

# the runner's own parts, on this machine alone
pytestmark = pytest.mark.target(hosts=0, other=False)

ROWS = """
[release]
other = ["host", "a"]
[boot]
host = {hosts = 0, part = "unit", variants = ["slow"]}
a = {kernel = "6.12", device = "rxe", part = "integration", variants = ["slow", "bound"], defects = ["broken"], sample = {slow = 3}}
b = {kernel = "7", device = "siw", hosts = 2, releases = ["trixie"], skip = "later"}
[variant]
plain = {build = "plain"}
slow = {build = "plain", part = "slow"}
bound = {build = "plain", releases = ["trixie"]}
[build]
plain = {dir = "build"}
[defect]
broken = "it breaks"
later = "not today"
"""


def matrix(tmp_path, text=ROWS, release="bookworm"):
    path = tmp_path / "matrix.toml"
    path.write_text(text, encoding="utf-8")
    return Matrix.load(release, str(path))


def test_matrix_expansion(run, tmp_path):
    m = matrix(tmp_path)
    assert [t.id for t in m.targets()] == [
        "host", "host-slow", "a", "a-slow", "trixie-host", "trixie-a", "trixie-a-bound"]
    assert [t.id for t in m.expand(1, {"plain", "slow"})] == ["a", "a-slow", "trixie-a"]
    assert [t.id for t in m.expand(2, {"plain"})] == []
    parts = {t.id: m.parts(t) for t in m.targets()}
    assert parts["a"] == {"integration"} and parts["a-slow"] == {"slow"}
    assert parts["trixie-a"] == {"other-release"} and parts["trixie-a-bound"] == {"integration"}
    a = m.expand(1, {"plain"})[0]
    assert m.defect(a, "broken") == "a: it breaks" and m.defect(a, "other") is None
    trixie = matrix(tmp_path, release="trixie")
    b = trixie.expand(2, {"plain"})[0]
    assert b.id == "b" and "not today" in trixie.skip_reason(b)
    trixie.wanted = {"b"}
    assert trixie.skip_reason(b) is None
    assert b.row.rxe_vm_options("/t") == ["--kernel", "7", "--device", "siw", "--fsdax"]
    a_slow = m.expand(1, {"slow"})[0]
    assert (m.sample(a), m.sample(a_slow), m.sample(m.expand(0, {"slow"})[0])) == (1, 3, 1)
    # the day's third: seed 4 takes a-slow's 2nd, 5th, 8th test
    day = SimpleNamespace(rpma=SimpleNamespace(matrix=m), getoption={"seed": 4}.get,
                          option=SimpleNamespace(keyword="", markexpr=""))
    seen = {}
    assert [k for k in range(9) if sampled(day, a_slow, seen)] == [1, 4, 7]
    assert all(sampled(day, a, seen) for _ in range(3))
    day.option.keyword = "imm"
    assert sampled(day, a_slow, seen)
    # a row that lists plain runs its variants in the order listed
    listed = matrix(tmp_path, ROWS.replace('["slow", "bound"]', '["slow", "plain"]'))
    assert [t.id for t in listed.targets()][2:4] == ["a-slow", "a"]


@pytest.mark.parametrize("old,new,why", [
    ('variants = ["slow", "bound"]', 'variants = ["nothing"]', "no variant nothing"),
    ('defects = ["broken"]', 'defects = ["nothing"]', "no defect nothing"),
    ('kernel = "6.12"', 'kernel = ""', "a boot needs kernel and device"),
    ('releases = ["trixie"], skip', 'releases = ["sid"], skip', "no release sid"),
    ('skip = "later"', 'skip = "never"', "no defect never"),
    ('sample = {slow = 3}', 'sample = {nothing = 3}', "boot a sample: no variant nothing"),
])
def test_matrix_errors(run, tmp_path, old, new, why):
    with pytest.raises(MatrixError, match=why):
        matrix(tmp_path, ROWS.replace(old, new, 1))


def test_ports(run):
    ports = Ports(100, 104)
    assert [ports.take(), ports.take(2), ports.take()] == [100, 101, 103]
    with pytest.raises(RuntimeError, match="out of ports"):
        ports.take(2)
    assert ports.take() == 104
    with pytest.raises(ValueError):
        Ports(10, 5)


@pytest.fixture(scope="module")
def local():
    yield (place := remote.local())
    place.close()


def sh(local, script, name="client", expect=0, *args):
    return pair.Side(local, ["sh", "-c", script, "sh", *args], name=name, expect=expect)


def test_pair_ready(run, local, tmp_path):
    """The clients start once the server said it listens, not before."""
    said = tmp_path / "said"
    server = sh(local, 'echo x; : >"$1"; echo "listening on 192.0.2.1:1"; read -r _ <"$2"',
                "server", 0, said, tmp_path / "fifo")
    os.mkfifo(tmp_path / "fifo")
    client = sh(local, '[ -e "$1" ] && echo go >"$2"', "client 0", 0, said, tmp_path / "fifo")
    result = pair.run(server, [client], 10)
    assert result.ok, result.report()


def test_pair_never_ready(run, local):
    result = pair.run(sh(local, "echo starting; exit 3", "server"), [sh(local, "exit 0")], 10)
    assert result.failures == ["the server never got ready (status 3)"]
    assert [p.name for p in result.procs] == ["server"]


def test_pair_client_fails(run, local):
    """A failed client ends its waiting server after the grace time."""
    server = sh(local, 'echo "listening on 192.0.2.1:1"; sleep 60', "server")
    result = pair.run(server, [sh(local, "exit 4")], 30, grace=0.5)
    assert sorted(result.failures) == ["the client failed with status 4",
                                       "the server was stopped, its peers being done"]


def test_pair_expected_status(run, local):
    """A side that kills itself (137) passes; one that should and does not fails."""
    killer = sh(local, 'echo "listening on 192.0.2.1:1"; kill -9 $$', "server", 137)
    assert pair.run(killer, [sh(local, "exit 0")], 10).ok
    alive = sh(local, 'echo "listening on 192.0.2.1:1"', "server", 137)
    assert pair.run(alive, [sh(local, "exit 0")], 10).failures == [
        "the server exited with 0, expected it to be killed"]


def test_pair_timeout(run, local):
    result = pair.run(None, [sh(local, "sleep 30")], 1)
    assert result.failures == ["the client did not finish within 1 s"]


def test_pair_rejected_again(run, local, tmp_path, monkeypatch):
    """A client rejected (the CM's time-wait) runs again, saying so."""
    monkeypatch.setattr(pair, "REJECTED_PAUSE", 0)
    once = 'if [ -e "$1" ]; then exit 0; fi; : >"$1"; echo RPMA_CONN_REJECTED; exit 1'
    result = pair.run(None, [sh(local, once, "client", 0, tmp_path / "tried")], 10, retries=2)
    assert result.ok and len(result.procs) == 1, result.report()
    result = pair.run(None, [sh(local, "echo ECONNREFUSED; exit 1")], 10, retries=2)
    assert result.failures == ["the client failed with status 1"]


SAMPLE = '''
import pytest
from harness import cmocka, pair, remote

CASES = ["test_first", "test_second", "test_third"]


@pytest.fixture(scope="module")
def place():
    yield (agent := remote.local())
    agent.close()


@pytest.fixture(scope="module")
def report(place):
    return cmocka.run(place, [{program!r}], ({xml!r}, {xml!r}))


@pytest.mark.parametrize("case", CASES)
def test_case(report, case):
    report.verdict(case)


def test_program(report):
    assert report.program(CASES) is None


def test_pair(place):
    broken = __import__("os").environ.get("COUNT_SAMPLE_BREAK") == "pair"
    server = pair.Side(place, ["sh", "-c", "echo listening on 192.0.2.1:1"], name="server")
    client = pair.Side(place, ["sh", "-c", "exit 1" if broken else "exit 0"])
    assert pair.run(server, [client], 10).ok
'''


@pytest.mark.parametrize("mode,counts", [
    ("", (5, 0, 0)), ("fail", (4, 1, 0)), ("exit", (1, 1, 3)), ("pair", (4, 1, 0))])
def test_count(run, tmp_path, mode, counts):
    """count_sample's three cases, its program and a pair, whole; with a
    case failing; leaving in the middle of a case without a report; with
    the pair's client failing: (passed, failed, skipped)."""
    program = run.build.bin("tests", "count", "count_sample")
    (tmp_path / "test_sample.py").write_text(SAMPLE.format(
        program=program, xml=str(tmp_path / "sample.xml")), encoding="utf-8")
    junit = tmp_path / "junit.xml"
    proc = run.place.remote.call(
        ["/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider", "-q",
         f"--junit-xml={junit}", "--rootdir", str(tmp_path), str(tmp_path / "test_sample.py")],
        env={"COUNT_SAMPLE_BREAK": mode, "PYTHONPATH": os.path.join(TOP, "tests")}, timeout=120)
    suite = ET.parse(junit).getroot().find("testsuite")
    tests, failed, skipped = (int(suite.get(k)) for k in ("tests", "failures", "skipped"))
    assert (tests - failed - skipped, failed, skipped) == counts, proc.output
    assert int(suite.get("errors")) == 0, proc.output
