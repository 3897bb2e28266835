/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scale.h -- what the scale tests share: many connections of one process,
 * the addresses of two hosts, and the process's own resource counts.
 *
 * Each test is a server function and a client function of rpma-scale
 * (main.c); tests/integration/run-pair starts them as separate processes,
 * on one host, or by hand on two (see RPMA_TEST_SERVER_IP below).
 */

#ifndef SCALE_H
#define SCALE_H 1

#include "../integration/common.h"

/* "RPSC": the first word of a client's private data */
#define SCALE_MAGIC 0x43535052u

/* what a client says when it connects: who it is and what it expects */
struct scale_hello {
	uint32_t magic;
	uint32_t index;		/* the connection's number, 0 .. conns-1 */
	uint32_t conns;		/* how many the client opens */
	uint32_t slot_size;	/* the bytes of the server's region each connection owns */
};

/* what the server answers: its region and the connection's number again */
struct scale_reply {
	struct server_desc sd;
	uint32_t index;
};

/* the client's peer: the device that routes to server_ip() (common.h) */
struct rpma_peer *client_peer_open(void);

/* the hello of connection index; fails the test unless it is valid and new */
struct scale_hello hello_take(struct rpma_conn_req *req, uint32_t conns,
		uint32_t slot_size, bool *taken);

/*
 * connect with the hello as private data and wait until it is established
 * (across hosts, retried while the server does not listen yet: common.h)
 */
struct rpma_conn *conn_open(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct scale_hello *hello);
/* the remote region of an established client connection; checks the index */
struct rpma_mr_remote *reply_take(const struct rpma_conn *conn, uint32_t index);
/* accept req with the region's descriptor for connection index (no wait) */
struct rpma_conn *accept_start(struct rpma_conn_req **req, const struct rpma_mr_local *mr,
		uint32_t index);

/*
 * Raise RLIMIT_NOFILE so that conns connections fit (fds_per_conn each
 * and a margin): to the hard limit, or as root above it up to nr_open.
 */
void nofile_raise(long conns, long fds_per_conn);

/* the process's resident set (KiB) and its open descriptors */
struct usage {
	long rss_kib;
	long fds;
};
struct usage usage_now(void);

/* seconds on the monotonic clock */
double now_s(void);

/* the seed of connection index's data in round */
static inline uint32_t
conn_seed(uint32_t index, uint32_t round)
{
	return 0x5ca1e000u ^ (index * 7919u) ^ (round * 104729u);
}

#endif /* SCALE_H */
