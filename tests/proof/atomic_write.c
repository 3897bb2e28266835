// SPDX-License-Identifier: BSD-3-Clause
/*
 * atomic_write.c -- rpma_atomic_write() (conn.c, post.c) writes 8 bytes
 * only inside the remote region.
 *
 * Proven for every offset and flags, every remote region a peer can
 * describe and a device of any capabilities (native ATOMIC WRITE or the
 * inline RDMA write that stands in for it):
 * - the 8 bytes are posted only at an offset that is a multiple of 8 with
 *   [offset, +8) in the region, as an exact sum (no wrap-around), at
 *   exactly remote->addr + offset with the region's rkey;
 * - the provider reads exactly the caller's 8 bytes (an inline write's one
 *   scatter entry is them, 8 bytes long), nothing outside them;
 * - every aligned write inside the region is posted, one request; a
 *   refused one is RPMA_E_INVAL having posted nothing;
 * - no undefined behaviour, no read or write outside an object, no
 *   arithmetic that wraps.
 */

#include "fixtures.h"

int
main(void)
{
	struct rpma_peer *peer = fixture_peer();
	struct rpma_conn *conn = fixture_conn(peer);
	struct rpma_mr_remote *dst = nondet_bool() ? fixture_remote() : NULL;
	char value[8];
	const char *src = nondet_bool() ? value : NULL;
	size_t off = nondet_size();
	int flags = nondet_int();

	stub_record_clear();
	int ret = rpma_atomic_write(conn, dst, off, src, flags, &ret);

	bool native = stub_rec.atomic_calls > 0, write = stub_rec.send_calls > 0;
	bool posted = native || write;

	__CPROVER_assert(stub_rec.atomic_calls + stub_rec.send_calls <= 1,
			"an atomic write posts at most one request");
	__CPROVER_assert(posted == (ret == 0 || ret == RPMA_E_PROVIDER),
			"a request is posted exactly when the call succeeds or the provider "
			"fails it");
	__CPROVER_assert(posted || ret == RPMA_E_INVAL, "a write not posted is RPMA_E_INVAL");
	if (posted) {
		__CPROVER_assert(dst != NULL && src != NULL && flags != 0,
				"posted only with a region, 8 bytes and completion flags");
		__CPROVER_assert(off % 8 == 0, "posted only at an aligned offset");
		__CPROVER_assert(sum_within(off, 8, dst->size),
				"posted only inside the remote region");
	}
	if (native) {
		WITNESS("a native ATOMIC WRITE is posted");
		__CPROVER_assert(sum_within(dst->addr, off, UINT64_MAX) &&
				stub_rec.atomic_addr == dst->addr + off &&
				stub_rec.atomic_rkey == dst->rkey,
				"a native ATOMIC WRITE goes to the region's address plus the "
				"offset");
	}
	if (write) {
		const struct ibv_send_wr *wr = &stub_rec.send_wr;

		WITNESS("an inline write stands in for ATOMIC WRITE");
		__CPROVER_assert(wr->opcode == IBV_WR_RDMA_WRITE &&
				(wr->send_flags & IBV_SEND_INLINE) && wr->num_sge == 1 &&
				stub_rec.send_sge.addr == (uint64_t)(uintptr_t)src &&
				stub_rec.send_sge.length == 8,
				"the inline write carries the caller's 8 bytes");
		__CPROVER_assert(sum_within(dst->addr, off, UINT64_MAX) &&
				wr->wr.rdma.remote_addr == dst->addr + off &&
				wr->wr.rdma.rkey == dst->rkey,
				"the inline write goes to the region's address plus the offset");
	}

	if (dst != NULL && src != NULL && flags != 0 && off % 8 == 0 &&
			sum_within(off, 8, dst->size))
		__CPROVER_assert(posted, "an aligned write inside the region is posted");
	return 0;
}
