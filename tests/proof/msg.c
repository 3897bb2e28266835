// SPDX-License-Identifier: BSD-3-Clause
/*
 * msg.c -- rpma_send(), rpma_send_with_imm(), rpma_recv() (conn.c),
 * rpma_srq_recv() (srq.c) and rpma_conn_req_recv() (conn_req.c) post a
 * message buffer only inside its region (post.h).
 *
 * Proven for every offset, length and flags (64 bits each) and every local
 * region (any size the allocator can give, any usage):
 * - a send reaches ibv_post_send(), a receive ibv_post_recv() or
 *   ibv_post_srq_recv(), only when [offset, +len) lies in the region, as an
 *   exact sum (no wrap-around); its one scatter entry is then exactly
 *   region->addr + offset with len in 32 bits (never truncated) and the
 *   region's lkey;
 * - every message inside the region with a length below 2^32 is posted,
 *   one request; a refused one is RPMA_E_INVAL having posted nothing;
 * - without a region, only an empty message is posted, with no scatter
 *   entry;
 * - no undefined behaviour, no read or write outside an object, no
 *   arithmetic that wraps.
 */

#include "fixtures.h"

int
main(void)
{
	struct rpma_peer *peer = fixture_peer();
	struct rpma_mr_local *mr = nondet_bool() ? fixture_local(peer) : NULL;
	size_t off = nondet_size(), len = nondet_size();
	int flags = nondet_int();
	int which = nondet_int();
	/* sends and receives of a connection, receives of a shared RQ and of a request */
	bool send = which == 0 || which == 1, needs_flags = send;
	struct rpma_conn *conn = which >= 0 && which <= 2 ? fixture_conn(peer) : NULL;
	int ret;

	switch (which) {
	case 0:
		stub_record_clear();
		ret = rpma_send(conn, mr, off, len, flags, &ret);
		break;
	case 1:
		stub_record_clear();
		ret = rpma_send_with_imm(conn, mr, off, len, flags, nondet_u32(), &ret);
		break;
	case 2:
		stub_record_clear();
		ret = rpma_recv(conn, mr, off, len, &ret);
		break;
	case 3: {
		struct rpma_srq *srq = NULL;
		__CPROVER_assume(rpma_srq_new(peer, NULL, &srq) == 0);
		stub_record_clear();
		ret = rpma_srq_recv(srq, mr, off, len, &ret);
		break;
	}
	default: {
		struct rpma_conn_req *req = NULL;
		__CPROVER_assume(rpma_conn_req_new(peer, "192.0.2.1", "7204", NULL, &req) == 0);
		stub_record_clear();
		ret = rpma_conn_req_recv(req, mr, off, len, &ret);
		/* a request has no empty receive: it wants a region */
		if (mr == NULL)
			__CPROVER_assert(ret == RPMA_E_INVAL, "a request's receive needs a region");
		break;
	}
	}

	int calls = send ? stub_rec.send_calls : stub_rec.recv_calls;
	const struct ibv_sge *sge = send ? &stub_rec.send_sge : &stub_rec.recv_sge;
	int num_sge = send ? stub_rec.send_wr.num_sge : stub_rec.recv_wr.num_sge;
	bool posted = calls > 0;

	__CPROVER_assert(stub_rec.send_calls + stub_rec.recv_calls == calls && calls <= 1,
			"a message posts at most one request, to its own queue");
	__CPROVER_assert(posted == (ret == 0 || ret == RPMA_E_PROVIDER),
			"a request is posted exactly when the call succeeds or the provider "
			"fails it");
	__CPROVER_assert(posted || ret == RPMA_E_INVAL, "a message not posted is RPMA_E_INVAL");
	if (posted && needs_flags)
		__CPROVER_assert(flags != 0, "no send without completion flags");
	if (posted && mr) {
		WITNESS("a message with a region is posted");
		if (which == 3)
			WITNESS("a receive is posted to a shared RQ");
		if (which > 3)
			WITNESS("a receive is posted to a request");
		__CPROVER_assert(num_sge == 1, "a message with a region has one scatter entry");
		__CPROVER_assert(sum_within(off, len, mr->size), "posted only inside the region");
		__CPROVER_assert(len <= UINT32_MAX && sge->length == len,
				"the scatter length is the whole length, never truncated");
		__CPROVER_assert(sum_within((uint64_t)(uintptr_t)mr->addr, off, UINT64_MAX) &&
				sge->addr == (uint64_t)(uintptr_t)mr->addr + off,
				"the scatter address is the region's address plus the offset");
		__CPROVER_assert(sge->lkey == mr->lkey, "the scatter entry has the region's lkey");
	}
	if (ret == RPMA_E_INVAL && mr && (flags != 0 || !needs_flags))
		WITNESS("a message with a region is refused");
	if (posted && mr == NULL)
		__CPROVER_assert(off == 0 && len == 0 && num_sge == 0,
				"a message without a region is empty and has no scatter entry");

	if ((flags != 0 || !needs_flags) && mr && len <= UINT32_MAX &&
			sum_within(off, len, mr->size))
		__CPROVER_assert(posted, "a message inside its region is posted");
	return 0;
}
