// SPDX-License-Identifier: BSD-3-Clause
/* fixtures.c -- the objects the harnesses start from (fixtures.h) */

#include <stdlib.h>

#include "fixtures.h"

struct rpma_peer *
fixture_peer(void)
{
	struct rpma_peer *peer = NULL;

	__CPROVER_assume(rpma_peer_new(stub_device(), &peer) == 0);
	return peer;
}

struct rpma_conn *
fixture_conn(struct rpma_peer *peer)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;

	__CPROVER_assume(rpma_conn_req_new(peer, "192.0.2.1", "7204", NULL, &req) == 0);
	__CPROVER_assume(rpma_conn_req_connect(&req, NULL, &conn) == 0);
	return conn;
}

struct rpma_mr_local *
fixture_local(struct rpma_peer *peer)
{
	size_t size = nondet_size();
	int usage = nondet_int();
	struct rpma_mr_local *mr = NULL;
	/* memory of this process: an object of that size, pointers into it checked against it */
	void *ptr = malloc(size);

	__CPROVER_assume(ptr != NULL && sum_within((uintptr_t)ptr, size, UINT64_MAX));
	__CPROVER_assume(rpma_mr_reg(peer, ptr, size, usage, &mr) == 0);
	return mr;
}

struct rpma_mr_remote *
fixture_remote(void)
{
	uint8_t desc[21];
	struct rpma_mr_remote *mr = NULL;
	uint64_t addr = 0, size = 0;

	for (int i = 0; i < 21; i++)
		desc[i] = nondet_u8();
	for (int i = 7; i >= 0; i--) {
		addr = addr << 8 | desc[i];
		size = size << 8 | desc[8 + i];
	}
	/* a wrapping range is refused (mr_remote_from_descriptor.c proves it) */
	__CPROVER_assume(sum_within(addr, size, UINT64_MAX));
	__CPROVER_assume(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr) == 0);
	return mr;
}

bool
sum_within(uint64_t a, uint64_t b, uint64_t limit)
{
	return (unsigned __int128)a + b <= limit;
}
