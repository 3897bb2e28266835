/* SPDX-License-Identifier: BSD-3-Clause */
/* fixtures.h -- the library objects tests build on, made through the public API */

#ifndef FIXTURES_H
#define FIXTURES_H

#include <endian.h>
#include <string.h>

#include "librpma.h"
#include "mocks.h"

#define FX_DESC_SIZE 21

static inline struct rpma_peer *
fx_peer(void)
{
	struct rpma_peer *peer = NULL;

	assert_int_equal(rpma_peer_new(mock_ibv_ctx(), &peer), 0);
	return peer;
}

/* an outgoing request (rdma_create_id, resolution, CQ, QP) */
static inline struct rpma_conn_req *
fx_conn_req(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req = NULL;

	assert_int_equal(rpma_conn_req_new(peer, "192.0.2.1", "7204", cfg, &req), 0);
	return req;
}

/* a connection of an outgoing request, connected */
static inline struct rpma_conn *
fx_conn(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req = fx_conn_req(peer, cfg);
	struct rpma_conn *conn = NULL;

	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	return conn;
}

static inline struct rpma_mr_local *
fx_mr(struct rpma_peer *peer, void *buf, size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;

	assert_int_equal(rpma_mr_reg(peer, buf, size, usage, &mr), 0);
	return mr;
}

/* the 21-byte descriptor of a region, as a peer would send it */
static inline void
fx_desc(uint8_t desc[FX_DESC_SIZE], uint64_t addr, uint64_t size, uint32_t rkey, uint8_t usage)
{
	uint64_t a = htole64(addr), s = htole64(size);
	uint32_t k = htole32(rkey);

	memcpy(desc, &a, 8);
	memcpy(desc + 8, &s, 8);
	memcpy(desc + 16, &k, 4);
	desc[20] = usage;
}

static inline struct rpma_mr_remote *
fx_mr_remote(uint64_t addr, uint64_t size, uint32_t rkey, int usage)
{
	uint8_t desc[FX_DESC_SIZE];
	struct rpma_mr_remote *mr = NULL;

	fx_desc(desc, addr, size, rkey, (uint8_t)usage);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	return mr;
}

#endif /* FIXTURES_H */
