# SPDX-License-Identifier: BSD-3-Clause
"""fio's librpma engines (fio/), built against the installed fio's source:
each job shape of fio/jobs as a server job and a client job against it,
with fio's verify, on pmem (devdax, direct write to PMem: persistent
flush) and on DRAM (visibility flush); bad input ends in fio's error."""

import os

import pytest

from harness import pair

pytestmark = pytest.mark.target(hosts=1, variants=("fio",))
JOBS = os.path.join("fio", "jobs")
# case: (client job, environment, what the client must fail with); the
# server job is its method's; READS: the memory outlives the server job
# (on DRAM a file in SHM, not malloc)
SHAPES = {
    "apm-randwrite-4k": ("apm-randwrite-4k", {"RPMA_FIO_SIZE": "4m"}),
    "apm-randwrite-64b": ("apm-randwrite-64b", {"RPMA_FIO_SIZE": "256k"}),
    "apm-write-64k-qd8": ("apm-write-64k-qd8", {"RPMA_FIO_SIZE": "16m"}),
    "gpspm-randwrite-4k": ("gpspm-randwrite-4k", {"RPMA_FIO_SIZE": "4m"}),
    # the reads verify what a first server job was given, served by a second one
    "apm-randread-4k-fill": ("apm-randread-4k", {"RPMA_FIO_SIZE": "4m", "READS": "1"}),
    "apm-randread-4k": ("apm-randread-4k", {"RPMA_FIO_SIZE": "4m", "READS": "1",
                                            "RPMA_FIO_RW": "randread"}),
    # two connections (a port and the next, a workspace each), waiting on the channel
    "gpspm-randwrite-4k-2jobs-nobusy": ("gpspm-randwrite-4k", {
        "RPMA_FIO_SIZE": "1m", "READS": "1", "RPMA_FIO_NUMJOBS": "2", "RPMA_FIO_BUSY": "0"}),
    # verify would see it if they were not there: fresh memory fails it
    "apm-randread-4k-fresh": ("apm-randread-4k", {
        "RPMA_FIO_SIZE": "4m", "RPMA_FIO_MEM": "malloc", "RPMA_FIO_RW": "randread"}, "verify"),
}
# bad input: (environment, fio's arguments, what its error says)
ERRORS = {
    "bad-option": ({"RPMA_FIO_PORT": "abc"}, ["{jobs}/apm-randwrite-4k.fio"], "not a port number"),
    "unknown-option": ({}, ["--name=x", "--ioengine=external:{engines}/librpma_apm_client.so",
                            "--bogus=1"], "bogus"),
    "no-server": ({}, ["{jobs}/apm-randwrite-4k.fio"], "is the server's job running"),
    "no-memory": ({"RPMA_FIO_MEM": "/nonexistent/pmem"}, ["{jobs}/apm-server.fio"],
                  "/nonexistent/pmem"),
}
SHM = "/dev/shm/rpma-fio-jobs"


def fio_env(run, port):
    return {"RPMA_FIO_ENGINES": run.build.bin("fio"), "RPMA_FIO_SERVERIP": run.ip(),
            "RPMA_FIO_PORT": str(port), "RPMA_FIO_BUSY": "1", "RPMA_FIO_NUMJOBS": "1",
            "RPMA_FIO_TIME_BASED": "0", "RPMA_FIO_RUNTIME": "0", "RPMA_FIO_VERIFY": "crc32c",
            "RPMA_FIO_RW": "randwrite"}


def fio_pair(run, server_job, client_job, env, fails_with=None, prefix=()):
    """fio's server job, ready once each of its jobs listens, and its client
    job, each run after PREFIX: both end well and the client reports err=0,
    or the client ends in fio's error naming FAILS_WITH."""
    fio = [*prefix, "stdbuf", "-oL", "fio"]
    server = pair.Side(run.host(), fio + [server_job], env, name="server")
    client = pair.Side(run.host(), fio + [client_job], env, expect=1 if fails_with else 0)
    result = pair.run(server, [client], 300, grace=60,
                      listeners=int(env.get("RPMA_FIO_NUMJOBS", 1)))
    assert (fails_with or "err= 0") in result.output("client"), result.report()
    assert result.ok, result.report()


@pytest.mark.parametrize("memory", ("pmem", "dram"))
@pytest.mark.parametrize("name", SHAPES)
def test_fio(run, name, memory):
    client_job, extra, *fails = SHAPES[name] + (None,)
    extra = dict(extra)
    reads, pmem = extra.pop("READS", None), memory == "pmem"
    mem = run.host().env["RPMA_TEST_PMEM"] if pmem else SHM if reads else "malloc"
    env = {**fio_env(run, run.port(2)), "RPMA_FIO_MEM": mem,
           "RPMA_FIO_DWTP": "1" if pmem else "0", **extra}
    if reads and not pmem:
        run.host().checked(["truncate", "-s", "4m", SHM])
    jobs = f"{run.place.top}/{JOBS}"
    fio_pair(run, f"{jobs}/{client_job.split('-')[0]}-server.fio", f"{jobs}/{client_job}.fio",
             env, fails[0])


@pytest.mark.parametrize("name", ERRORS)
def test_fio_error(run, name):
    """fio's error exit (1) and a message that says why, no signal."""
    extra, args, what = ERRORS[name]
    env = {**fio_env(run, run.port()), "RPMA_FIO_MEM": "malloc", "RPMA_FIO_SIZE": "1m",
           "RPMA_FIO_VERIFY": "0", "RPMA_FIO_DWTP": "0", **extra}
    fill = {"jobs": f"{run.place.top}/{JOBS}", "engines": run.build.bin("fio")}
    proc = run.host().call(["fio"] + [a.format(**fill) for a in args], env=env, timeout=120)
    assert proc.status == 1 and what in proc.output, \
        f"exit {proc.status}, expected 1 and a message with {what!r}:\n{proc.output}"


@pytest.mark.parametrize("method", ("apm", "gpspm"))
def test_fio_example(run, method, tmp_path):
    """fio's example jobs for these engines (Debian's fio-examples), unchanged but
    for the ioengine= line and the serverip placeholder; 15 s ramp, 60 s each."""
    run.long("runs fio's examples for 2.5 minutes")
    jobs = []
    for side in ("server", "client"):
        with open(f"/usr/share/doc/fio/examples/librpma_{method}-{side}.fio",
                  encoding="utf-8") as f:
            lines = f.read().splitlines()
        engine = f"ioengine=external:{run.build.bin('fio')}/librpma_{method}_{side}.so"
        text = "\n".join(engine if line.startswith("ioengine=librpma_") else line for line in lines)
        jobs.append(tmp_path / f"{method}-{side}.fio")
        jobs[-1].write_text(text.replace("[serverip]", run.ip()) + "\n", encoding="utf-8")
    fio_pair(run, *[run.place.there(str(job)) for job in jobs], fio_env(run, run.port(2)))
