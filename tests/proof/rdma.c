// SPDX-License-Identifier: BSD-3-Clause
/*
 * rdma.c -- rpma_read(), rpma_write() and rpma_write_with_imm() (conn.c,
 * post.h) post a request only inside both regions.
 *
 * Proven for every offset, length and flags (64 bits each), every local
 * region (any size the allocator can give, any usage) and every remote
 * region a peer can describe, on a device of any capabilities:
 * - a request reaches ibv_post_send() only when [local_offset, +len) lies
 *   in the local region and [remote_offset, +len) in the remote one, as
 *   exact sums (no wrap-around); its one scatter entry is then exactly
 *   local->addr + local_offset with len in 32 bits (never truncated), its
 *   remote address exactly remote->addr + remote_offset, with the regions'
 *   keys and the operation's opcode;
 * - every request inside both regions with a length below 2^32 is posted
 *   (the checks refuse nothing valid), and a refused one returns
 *   RPMA_E_INVAL having posted nothing;
 * - without regions, only an empty operation is posted, with no scatter
 *   entry;
 * - no undefined behaviour, no read or write outside an object, no
 *   arithmetic that wraps, on any of these paths.
 */

#include "fixtures.h"

int
main(void)
{
	struct rpma_peer *peer = fixture_peer();
	struct rpma_conn *conn = fixture_conn(peer);
	struct rpma_mr_local *local = nondet_bool() ? fixture_local(peer) : NULL;
	struct rpma_mr_remote *remote = nondet_bool() ? fixture_remote() : NULL;
	size_t local_offset = nondet_size(), remote_offset = nondet_size(), len = nondet_size();
	int flags = nondet_int();
	uint32_t imm = nondet_u32();
	int ret;

	stub_record_clear();
	enum ibv_wr_opcode opcode;
	switch (nondet_int()) {
	case 0:
		opcode = IBV_WR_RDMA_READ;
		ret = rpma_read(conn, local, local_offset, remote, remote_offset, len, flags,
				&opcode);
		break;
	case 1:
		opcode = IBV_WR_RDMA_WRITE;
		ret = rpma_write(conn, remote, remote_offset, local, local_offset, len, flags,
				&opcode);
		break;
	default:
		opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		ret = rpma_write_with_imm(conn, remote, remote_offset, local, local_offset, len,
				flags, imm, &opcode);
		break;
	}

	const struct ibv_send_wr *wr = &stub_rec.send_wr;
	const struct ibv_sge *sge = &stub_rec.send_sge;
	bool posted = stub_rec.send_calls == 1;

	__CPROVER_assert(stub_rec.send_calls <= 1, "one operation posts at most one request");
	__CPROVER_assert(posted == (ret == 0 || ret == RPMA_E_PROVIDER),
			"a request is posted exactly when the call succeeds or the provider "
			"fails it");
	__CPROVER_assert(ret == 0 || ret == RPMA_E_PROVIDER || ret == RPMA_E_INVAL,
			"the call returns 0, RPMA_E_PROVIDER or RPMA_E_INVAL");
	if (posted) {
		__CPROVER_assert(wr->opcode == opcode, "the request has the operation's opcode");
		__CPROVER_assert(wr->next == NULL, "one request, not a list");
		__CPROVER_assert(flags != 0, "no request without completion flags");
	}

	if (posted && local && remote) {
		WITNESS("a request between two regions is posted");
		__CPROVER_assert(wr->num_sge == 1 && wr->sg_list != NULL,
				"a data request has one scatter entry");
		__CPROVER_assert(sum_within(local_offset, len, local->size),
				"posted only inside the local region");
		__CPROVER_assert(sum_within(remote_offset, len, remote->size),
				"posted only inside the remote region");
		__CPROVER_assert(len <= UINT32_MAX && sge->length == len,
				"the scatter length is the whole length, never truncated");
		uint64_t local_addr = (uint64_t)(uintptr_t)local->addr;
		__CPROVER_assert(sum_within(local_addr, local_offset, UINT64_MAX) &&
				sge->addr == local_addr + local_offset,
				"the scatter address is the region's address plus the offset");
		__CPROVER_assert(sge->lkey == local->lkey, "the scatter entry has the local key");
		__CPROVER_assert(sum_within(remote->addr, remote_offset, UINT64_MAX) &&
				wr->wr.rdma.remote_addr == remote->addr + remote_offset,
				"the remote address is the region's address plus the offset");
		__CPROVER_assert(wr->wr.rdma.rkey == remote->rkey,
				"the request has the remote key");
	}
	if (ret == RPMA_E_INVAL && local && remote && flags != 0)
		WITNESS("a request between two regions is refused");
	if (posted && (local == NULL || remote == NULL)) {
		WITNESS("an empty request is posted");
		__CPROVER_assert(local == NULL && remote == NULL,
				"no request with one region only");
		__CPROVER_assert(local_offset == 0 && remote_offset == 0 && len == 0,
				"a request without regions moves nothing");
		__CPROVER_assert(wr->num_sge == 0,
				"a request without regions has no scatter entry");
	}

	/* what is inside both regions is posted */
	if (flags != 0 && local && remote && len <= UINT32_MAX &&
			sum_within(local_offset, len, local->size) &&
			sum_within(remote_offset, len, remote->size))
		__CPROVER_assert(posted, "a request inside both regions is posted");
	return 0;
}
