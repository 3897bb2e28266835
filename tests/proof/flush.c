// SPDX-License-Identifier: BSD-3-Clause
/*
 * flush.c -- rpma_flush() (conn.c, post.h) posts a native FLUSH or a
 * read-after-write only inside the remote region, and only of a type the
 * region and the peer allow.
 *
 * Proven for every offset, length and flags (64 bits each), every value of
 * the type (the enum's two and any other int), every remote region a peer
 * can describe, a device of any capabilities (native FLUSH posted or not)
 * and a peer that declares direct write to PMem or not:
 * - a native FLUSH reaches ibv_wr_flush() only when [offset, +len) lies in
 *   the region, as an exact sum (no wrap-around), with exactly
 *   remote->addr + offset, len, the region's rkey, a placement of
 *   IBV_FLUSH_GLOBAL or IBV_FLUSH_PERSISTENT and IBV_FLUSH_RANGE;
 * - a read-after-write reaches ibv_post_send() only for such a range, and
 *   reads one byte that lies in the region (in the range, or its last
 *   byte before the end of an empty one) into the byte the peer
 *   registered for its connections' flushes;
 * - a persistent flush is posted only where the region's usage and the
 *   peer's declaration allow it, a visibility flush only where the region
 *   allows it, any other type never (the type never indexes out of bounds);
 * - every allowed flush inside the region is posted, exactly one request;
 * - no undefined behaviour, no read or write outside an object, no
 *   arithmetic that wraps.
 */

#include "fixtures.h"

int
main(void)
{
	struct rpma_peer *peer = fixture_peer();
	struct rpma_conn *conn = fixture_conn(peer);
	struct rpma_mr_remote *dst = fixture_remote();
	struct rpma_peer_cfg *pcfg = NULL;
	bool direct_write = nondet_bool();
	size_t off = nondet_size(), len = nondet_size();
	int flags = nondet_int();
	enum rpma_flush_type type = (enum rpma_flush_type)nondet_int();

	__CPROVER_assume(rpma_peer_cfg_new(&pcfg) == 0);
	__CPROVER_assume(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, direct_write) == 0);
	__CPROVER_assume(rpma_conn_apply_remote_peer_cfg(conn, pcfg) == 0);
	/* what the first connection made last: the peer's flush byte, mapped and registered */
	const uint8_t *flush_byte = stub_mapped;
	const struct ibv_mr *flush_mr = stub_last_mr;

	stub_record_clear();
	int ret = rpma_flush(conn, dst, off, len, type, flags, &ret);

	bool native = stub_rec.flush_calls > 0, read = stub_rec.send_calls > 0;
	bool posted = native || read;
	bool allowed = (type == RPMA_FLUSH_TYPE_VISIBILITY &&
			(dst->usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_READ_SRC))) ||
		(type == RPMA_FLUSH_TYPE_PERSISTENT &&
			(dst->usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) && direct_write);

	__CPROVER_assert(stub_rec.flush_calls + stub_rec.send_calls <= 1,
			"a flush posts at most one request");
	__CPROVER_assert(posted == (ret == 0 || ret == RPMA_E_PROVIDER),
			"a request is posted exactly when the call succeeds or the provider "
			"fails it");
	__CPROVER_assert(posted || ret == RPMA_E_INVAL || ret == RPMA_E_NOSUPP,
			"a flush not posted is RPMA_E_INVAL or RPMA_E_NOSUPP");
	if (posted) {
		__CPROVER_assert(allowed,
				"a flush is posted only of a type the region and peer allow");
		__CPROVER_assert(flags != 0, "no request without completion flags");
		__CPROVER_assert(sum_within(off, len, dst->size),
				"a flush is posted only inside the remote region");
	}
	if (native) {
		WITNESS("a native FLUSH is posted");
		__CPROVER_assert(sum_within(dst->addr, off, UINT64_MAX) &&
				stub_rec.flush_addr == dst->addr + off && stub_rec.flush_len == len,
				"a native FLUSH covers exactly the range asked for");
		__CPROVER_assert(stub_rec.flush_rkey == dst->rkey, "a native FLUSH has the rkey");
		__CPROVER_assert((stub_rec.flush_type == IBV_FLUSH_GLOBAL ||
				stub_rec.flush_type == IBV_FLUSH_PERSISTENT) &&
				stub_rec.flush_level == IBV_FLUSH_RANGE,
				"a native FLUSH has a placement and the range level");
		__CPROVER_assert(stub_rec.complete_calls == 1, "a native FLUSH is posted");
	}
	if (read) {
		const struct ibv_send_wr *wr = &stub_rec.send_wr;
		uint64_t at = wr->wr.rdma.remote_addr;

		WITNESS("a read-after-write flush is posted");

		__CPROVER_assert(wr->opcode == IBV_WR_RDMA_READ && wr->num_sge == 1 &&
				stub_rec.send_sge.length == 1,
				"a read-after-write flush reads one byte");
		__CPROVER_assert(at >= dst->addr && at - dst->addr < dst->size,
				"the byte read lies in the remote region");
		__CPROVER_assert(len == 0 || (at - dst->addr >= off && at - dst->addr - off < len),
				"the byte read lies in the flushed range, when it is not empty");
		__CPROVER_assert(wr->wr.rdma.rkey == dst->rkey, "the read has the rkey");
		__CPROVER_assert(stub_rec.send_sge.addr == (uint64_t)(uintptr_t)flush_byte &&
				flush_mr->addr == flush_byte && flush_mr->length >= 1 &&
				stub_rec.send_sge.lkey == flush_mr->lkey,
				"the byte is read into the peer's registered byte");
	}

	if (ret == RPMA_E_INVAL && flags != 0 && allowed)
		WITNESS("an allowed flush is refused");
	if (flags != 0 && allowed && sum_within(off, len, dst->size))
		__CPROVER_assert(posted, "an allowed flush inside the region is posted");
	return 0;
}
