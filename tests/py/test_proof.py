# SPDX-License-Identifier: BSD-3-Clause
"""The CBMC proofs of tests/proof (doc/PROOFS.md), each harness's program
built by its CMake build and proven here, ahead while the VMs run; CBMC is
Debian 13's: on a Debian 12 host they run in the Debian 13 root. With
--long, the red checks: each proof fails when a check it proves is removed
or weakened."""

import filecmp
import json
import os
import pathlib
import re
import shutil

import pytest
from conftest import TOP

pytestmark = pytest.mark.target(hosts=0, variants=("proof",))
PROOF = os.path.join(TOP, "tests", "proof")
HARNESSES = sorted(f[:-2] for f in os.listdir(PROOF) if f.endswith(".c"))
# CBMC's default checks (bounds, pointers, signed overflow, shifts, division),
# pointer wrap-around; any allocation may fail; the functions a harness cannot
# reach are left out. Every loop proven has a constant bound under 32 (the 21
# bytes of a descriptor the longest): the unwinding assertions check that 32
# passes finish each, so that nothing holds only up to a bound.
CHECKS = ["--pointer-overflow-check", "--malloc-may-fail", "--malloc-fail-null", "--unwind",
          "32", "--unwinding-assertions", "--drop-unused-functions", "--compact-trace"]
# those that also check that everything allocated is freed (the others keep
# their connection: what they prove is the post)
LEAK_CHECKED = {"mr_remote_from_descriptor", "mr_descriptor_round_trip", "peer_cfg_descriptor",
                "private_data", "conn_private_data"}
# the descriptor's reader detects a wrapping range by its wrapped sum (defined
# for unsigned numbers; the harness proves the detection exact): the others
# also check for unsigned wrap-around
WRAP_ALLOWED = {"mr_remote_from_descriptor"}
RESULT = re.compile(r"^\[(?P<name>[^\]]+)\] (?P<text>.*): (?P<status>SUCCESS|FAILURE)$")
WITNESS = "witness: "
# the stub's operation (stubs/verbs.c) of each inline function of verbs.h that
# calls a provider's; the stubs' device has no poll_cq: a CQ's is the stash's
PROVIDER_OPS = {"ibv_post_send": "op_post_send", "ibv_post_recv": "op_post_recv",
                "ibv_post_srq_recv": "op_post_srq_recv", "ibv_poll_cq": "stash_poll"}
# goto-cc names a static inline function of each translation unit apart
INLINE_COPY = re.compile(r"^(?P<name>\w+)(\$link\d+)? ")


def restrict(place, program):
    """PROGRAM with each call through the context's ops restricted to the stub's
    operation: CBMC otherwise takes every function of a compatible type as a
    target, the completion stash's poll (cq_stash.c) among them, and unwinds it,
    recursion included, at every post."""
    symbols = place.remote.checked(["goto-instrument", "--list-symbols", program],
                                   timeout=600).lines
    names = {line.split(" ", 1)[0] for line in symbols}
    copies = [(m[0].strip(), PROVIDER_OPS.get(m["name"]))
              for m in map(INLINE_COPY.match, symbols) if m]
    calls = {f"{copy}.function_pointer_call.1": [op] for copy, op in copies if op in names}
    pathlib.Path(place.here(program + ".restrict.json")).write_text(json.dumps(calls, indent=1))
    place.remote.checked(["goto-instrument", "--function-pointer-restrictions-file",
                          program + ".restrict.json", program, program + ".restricted"],
                         timeout=600)
    return program + ".restricted"


def prove(place, build, harness):
    """CBMC on HARNESS's program in BUILD, its output kept beside it: (the
    properties that fail, the witnesses no execution reaches, the failed
    properties' traces). A witness, an assertion that fails exactly when an
    execution reaches it, must fail: an assumption no input meets would make
    every property hold for no input at all."""
    program = f"{build}/tests/proof/{harness}.goto"
    checks = CHECKS + ["--unsigned-overflow-check"] * (harness not in WRAP_ALLOWED) + \
        ["--memory-leak-check"] * (harness in LEAK_CHECKED)
    proc = place.remote.call(["cbmc", restrict(place, program), *checks], timeout=900)
    pathlib.Path(place.here(program + ".out")).write_text(proc.output, encoding="utf-8")
    results = [match for match in map(RESULT.match, proc.lines) if match]
    # CBMC: 0 all hold, 10 some fail; anything else is no verdict
    assert proc.status in (0, 10) and results, \
        f"CBMC exited {proc.status} without a verdict:\n{proc.output[-4000:]}"
    failed = [m for m in results if m["status"] == "FAILURE" and WITNESS not in m["text"]]
    unreached = [f"never reached: {m[0]}" for m in results
                 if m["status"] == "SUCCESS" and WITNESS in m["text"]]
    # each failed property's trace: from "Trace for NAME:" to the next trace or "** " line
    names = {m["name"] for m in failed}
    blocks = re.split(r"^(?=Trace for |\*\* )", proc.output, flags=re.M)
    traces = [b.removesuffix("\n") for b in blocks if b.startswith("Trace for ")
              and b.split("\n", 1)[0].removeprefix("Trace for ").rstrip(":") in names]
    return [m[0] for m in failed], unreached, traces


def prove_ahead(session, target, name):
    return prove(session.place(target.place), session.build(target.place, "proof").path, name)


@pytest.mark.ahead(work=prove_ahead)
@pytest.mark.parametrize("name", HARNESSES)
def test_proof(run, name):
    failed, unreached, traces = run.ahead()
    assert not failed and not unreached, "\n".join(failed + unreached + traces)


def edits(path, original, *changes):
    """Rows of CHANGES that each weaken the same original text."""
    return [(path, original, *change) for change in changes]


def guard(cond, ret="RPMA_E_INVAL"):
    """The text of a check that returns at once: a change removes it whole."""
    return f"\tif ({cond})\n\t\treturn {ret};\n"


# words of the properties most changes break
LOCAL, REMOTE = "posted only inside the local region", "posted only inside the remote region"
REGION, TRUNCATED = "posted only inside the region", "never truncated"
EMPTY, EXACT = "a message without a region is empty", "holds exactly when off + len <= size"
OUTSIDE = "dereference failure: pointer outside object bounds"
READABLE = "memcpy source region readable"
# (file of src/, original text, weakened text, harness, words of the property
# it then violates); the original must occur once in the file
CHANGES = [
    # mr.h: the range check every post and advice relies on
    *edits("mr.h", "return off <= size && len <= size - off;",
           ("return len <= size - off;", "range_ok", EXACT),
           ("return off <= size;", "range_ok", EXACT),
           ("return off + len <= size;", "range_ok", EXACT),
           ("return off + len <= size;", "rdma", LOCAL)),
    # conn.c: the fast path of reads and writes, below 4 GiB
    *edits("conn.c", "local_offset + len > local->size || remote_offset + len > remote->size",
           ("remote_offset + len > remote->size", "rdma", LOCAL),
           ("local_offset + len > local->size", "rdma", REMOTE)),
    *edits("conn.c", "((local_offset | remote_offset | len) >> 32) != 0))",
           ("((local_offset | len) >> 32) != 0))", "rdma", REMOTE),
           ("((local_offset | remote_offset) >> 32) != 0))", "rdma", TRUNCATED)),
    # post.h: the rest of them, the full check
    ("post.h", "return (len >> 32) == 0 && mr_range_ok(local_off",
     "return mr_range_ok(local_off", "rdma", TRUNCATED),
    ("post.h", "return (len >> 32) == 0 && mr_range_ok(local_off, len, local_size) &&",
     "return (len >> 32) == 0 &&", "rdma", LOCAL),
    ("post.h", " &&\n\t\tmr_range_ok(remote_off, len, remote_size);", ";", "rdma", REMOTE),
    # post.h: the read of a read-after-write flush
    ("post.h", guard("unlikely(!post_within(src_offset, (size_t)src->size, len))"), "",
     "flush", REMOTE),
    ("post.h", "\t\treturn off + len <= size;\n\treturn mr_range_ok(off, len, size);",
     "\t\treturn off + len <= size;\n\treturn off + len <= size;", "flush", REMOTE),
    ("post.h", "size_t at = src_offset + (src_offset < src->size) - 1;",
     "size_t at = src_offset;", "flush", "the byte read lies in the remote region"),
    # conn.c: the fast path of sends, below 4 GiB
    ("conn.c", guard("unlikely(offset + len > src->size)"), "", "msg", REGION),
    ("conn.c", "if (unlikely(src == NULL || ((offset | len) >> 32) != 0))",
     "if (unlikely(src == NULL || (offset >> 32) != 0))", "msg", TRUNCATED),
    # post.h: sends (the rest of them) and receives
    ("post.h", "return (len >> 32) == 0 && mr_range_ok(off, len, size);",
     "return mr_range_ok(off, len, size);", "msg", TRUNCATED),
    ("post.h", "\tif (likely(((off | len) >> 32) == 0))\n\t\treturn off + len <= size;\n"
     "\treturn (len >> 32)", "\tif (likely((off >> 32) == 0))\n\t\treturn off + len <= size;\n"
     "\treturn (len >> 32)", "msg", REGION),
    ("post.h", guard("unlikely(!post_range_ok(offset, src->size, len))"), "", "msg", REGION),
    ("post.h", guard("unlikely(!post_range_ok(offset, dst->size, len))"), "", "msg", REGION),
    # post.h: the 8 bytes of the ATOMIC WRITE fallback, an inline write
    ("post.h", "size < RPMA_ATOMIC_WRITE_ALIGNMENT ||\n\t\t\t", "", "atomic_write", REMOTE),
    ("post.h", "dst_offset > size - RPMA_ATOMIC_WRITE_ALIGNMENT", "dst_offset > size",
     "atomic_write", REMOTE),
    # post.h: the native FLUSH
    ("post.h", guard("unlikely(!mr_range_ok(dst_offset, len, dst->size))") +
     "\n\tpost_qpx_start", "\tpost_qpx_start", "flush", REMOTE),
    # post.c: the 8 bytes of a native ATOMIC WRITE
    ("post.c", "#ifdef HAVE_IBV_ATOMIC_WRITE\n" +
     guard("unlikely(!mr_range_ok(dst_offset, RPMA_ATOMIC_WRITE_ALIGNMENT, dst->size))"),
     "#ifdef HAVE_IBV_ATOMIC_WRITE\n", "atomic_write", REMOTE),
    # conn.c: the operations' own checks
    ("conn.c", guard("unlikely(dst_offset % RPMA_ATOMIC_WRITE_ALIGNMENT)"), "",
     "atomic_write", "posted only at an aligned offset"),
    ("conn.c", "(unsigned)type > RPMA_FLUSH_TYPE_VISIBILITY ||\n\t\t\t", "",
     "flush", "shift distance"),
    ("conn.c", "!(conn->flush_types & dst->flush_types & (1u << type))",
     "!(dst->flush_types & (1u << type))",
     "flush", "a flush is posted only of a type the region and peer allow"),
    *edits("conn.c",
           "if (local != NULL || remote != NULL || (local_offset | remote_offset | len) != 0)",
           ("if (local != NULL || remote != NULL)", "rdma",
            "a request without regions moves nothing"),
           ("if ((local_offset | remote_offset | len) != 0)", "rdma",
            "no request with one region only")),
    ("conn.c", "(offset | len) ? RPMA_E_INVAL :\n\t\t\tpost_empty(conn->qp, opcode, ",
     "post_empty(conn->qp, opcode, ", "msg", EMPTY),
    ("conn.c", "(offset | len) ? RPMA_E_INVAL : post_recv_empty(conn->qp",
     "post_recv_empty(conn->qp", "msg", EMPTY),
    ("srq.c", "srq == NULL || (dst == NULL && (offset || len))", "srq == NULL", "msg", EMPTY),
    # mr_remote.c and mr_desc.c: the remote region's descriptor
    *edits("mr_remote.c", "if (desc_size < MR_DESC_SIZE) {",
           ("if (desc_size < MR_DESC_SIZE - 1) {", "mr_remote_from_descriptor",
            "pointer outside object bounds in d[(signed long int)20]"),
           ("if (false) {", "mr_remote_from_descriptor", READABLE)),
    ("mr_remote.c", "mr->size == 0 || mr->addr + mr->size", "mr->addr + mr->size",
     "mr_remote_from_descriptor", "range is not empty and does not wrap"),
    ("mr_remote.c", "mr->addr + mr->size < mr->addr || ", "",
     "mr_remote_from_descriptor", "range is not empty and does not wrap"),
    ("mr_remote.c", "if (mr->usage == 0 || (mr->usage & ~MR_USAGE_ALL)) {",
     "if (mr->usage & ~MR_USAGE_ALL) {", "mr_remote_from_descriptor", "usage is not 0"),
    ("mr.c", "*desc_size = MR_DESC_SIZE;", "*desc_size = MR_DESC_SIZE - 1;",
     "mr_descriptor_round_trip", OUTSIDE),
    ("mr_desc.c", "#define DESC_USAGE\t20", "#define DESC_USAGE\t21",
     "mr_descriptor_round_trip", OUTSIDE),
    ("mr_access.c", "return usage | RPMA_MR_USAGE_READ_SRC;", "return usage;",
     "mr_descriptor_round_trip", "the remote region has the usage granted"),
    ("mr_desc.c", "#define DESC_USAGE\t20", "#define DESC_USAGE\t21",
     "mr_remote_from_descriptor", OUTSIDE),
    # mr.c: the advice
    ("mr.c", guard("!mr_range_ok(offset, len, mr->size)", "0"), "",
     "mr_advise", "advised only inside the region"),
    ("mr.c", guard("len > UINT32_MAX"), "", "mr_advise", TRUNCATED),
    # peer_cfg.c: the peer configuration's descriptor
    ("peer_cfg.c", "if (desc_size < DESCRIPTOR_SIZE) {", "if (false) {",
     "peer_cfg_descriptor", OUTSIDE),
    ("peer_cfg.c", "*desc_size = DESCRIPTOR_SIZE;", "*desc_size = 0;",
     "peer_cfg_descriptor", OUTSIDE),
    # private_data.c: the copy
    ("private_data.c", "memcpy(copy, ptr, len);", "memcpy(copy, ptr, len + 1);",
     "private_data", READABLE),
    ("private_data.c", "malloc(len)", "malloc(len - 1u)",
     "private_data", "memcpy destination region writeable"),
    *edits("private_data.c", "if (ptr == NULL || len == 0) {",
           ("if (len == 0) {", "private_data", READABLE),
           ("if (ptr == NULL) {", "private_data", "no bytes are stored as empty")),
    ("private_data.c", "pdata->len = len;", "pdata->len = 56;",
     "private_data", "the stored length is the reported one"),
    # conn.c, conn_req.c: where the private data comes from and goes to
    ("conn.c", "cm_event->param.conn.private_data_len, &conn->parts.data",
     "196, &conn->parts.data", "conn_private_data", READABLE),
    ("conn_req.c", "event->param.conn.private_data_len, &req->parts.data",
     "56, &req->parts.data", "conn_private_data", READABLE),
    ("conn_req.c", ".private_data_len = pdata ? pdata->len : 0,",
     ".private_data_len = pdata ? 56 : 0,", "conn_private_data", OUTSIDE),
    *edits("conn_req.c", "(pdata->len == 0 || pdata->ptr == NULL)",
           ("pdata->len == 0", "conn_private_data", "private data without bytes is refused"),
           ("pdata->ptr == NULL", "conn_private_data", "private data without bytes is refused")),
    # flush.c: the entry a read-after-write flush reads into, the peer's byte, and its size
    ("flush.c", "sge->length = RAW_SIZE;", "sge->length = 2;", "flush", "reads one byte"),
    ("flush.c", "sge->addr = (uint64_t)(uintptr_t)flush->raw;",
     "sge->addr = (uint64_t)(uintptr_t)flush->raw + 1;",
     "flush", "into the peer's registered byte"),
    ("flush.c", "#define RAW_SIZE 1", "#define RAW_SIZE 0", "flush", "reads one byte"),
]

# Not changed, for no input can tell them removed or weakened: mr_remote.c's
# "mr->size > SIZE_MAX" (the size is 64 bits, as size_t is on the 64-bit
# targets the library builds for) and "(mr->usage & ~MR_USAGE_ALL)" (the
# usage is read from one byte and MR_USAGE_ALL has all 8 bits); conn.c's
# "(unsigned)type > RPMA_FLUSH_TYPE_VISIBILITY" weakened to any bound up to
# 31 (the masks, bits 0 and 1 only, refuse types 2 to 31; removed, the
# shift is undefined and proof_flush fails: a change above).

# the place's name: the copy of its tree, beside its builds (so that a change
# never meets another build's compiler), and that copy's build, as the place
# sees them; or why there is none
COPIES = {}


def red_copy(run):
    """The copy of the place's tree, configured for the proofs. Only the files
    that differ are copied, and stamped now, so that make rebuilds what changed
    since the last run (a change a stopped run left in place included)."""
    if run.place.name not in COPIES:
        top = run.place.here(run.place.top)
        tree = os.path.join(top, "build-red", "src")

        def skipped(folder, names):
            return [name for name in names if os.path.isdir(os.path.join(folder, name))
                    and name.startswith(("build", ".git", "test-results"))]

        def fresh(src, dest):
            if not os.path.isfile(dest) or not filecmp.cmp(src, dest, shallow=False):
                shutil.copy(src, dest)

        shutil.copytree(top, tree, ignore=skipped, copy_function=fresh, dirs_exist_ok=True)
        there = run.place.there(tree)
        build = os.path.join(os.path.dirname(there), "build")
        proc = run.place.remote.call(["cmake", "-S", there, "-B", build,
                                      *run.session.matrix.builds["proof"]["options"]],
                                     timeout=600)
        COPIES[run.place.name] = (there, build) if proc.status == 0 else proc.output
    copy = COPIES[run.place.name]
    assert isinstance(copy, tuple), f"the copy could not be configured:\n{copy}"
    return copy


@pytest.mark.parametrize("n", range(len(CHANGES)),
                         ids=[f"{n + 1:02}-{c[3]}" for n, c in enumerate(CHANGES)])
def test_red_check(run, n):
    run.long("a change costs a rebuild and a proof (with --proof)")
    path, original, weakened, harness, expected = CHANGES[n]
    tree, build = red_copy(run)
    file = pathlib.Path(run.place.here(os.path.join(tree, "src", path)))
    text = file.read_text(encoding="utf-8")
    assert text.count(original) == 1, f"{path}: the original occurs {text.count(original)} times"
    try:
        file.write_text(text.replace(original, weakened), encoding="utf-8")
        run.place.remote.checked(["cmake", "--build", build, "--target",
                                  f"proof_program_{harness}"], timeout=1800)
        failed, unreached, _ = prove(run.place, build, harness)
    finally:
        file.write_text(text, encoding="utf-8")
    assert any(expected in line for line in failed + unreached), \
        f"{path}: {original!r} -> {weakened!r}: proof_{harness} did not fail with " \
        f"{expected!r} but with:\n" + "\n".join(failed + unreached or ["nothing"])
