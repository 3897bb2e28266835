/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what every example shares: the command line, error
 * messages, the connect/accept sequence, waiting for completions and
 * passing memory region descriptors through private data.
 */

#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <librpma.h>

/* exit codes of every example */
#define EXIT_USAGE 2

/* the longest message an example stores or sends, with its NUL */
#define MSG_MAX 64
/* the first message of a client whose server acts once it has one (03) */
#define READY_MSG "ready"
#define READY_LEN sizeof(READY_MSG)

/* what a server's command line may hold besides <addr> <port> */
#define ARGS_PMEM	(1 << 0)	/* [<pmem-path>] [--direct-write-to-pmem] */
#define ARGS_CLIENTS	(1 << 1)	/* [--clients N] */

struct server_args {
	const char *addr;
	const char *port;
	const char *pmem_path;	/* NULL: DRAM */
	bool direct_write_to_pmem;
	unsigned clients;	/* ARGS_CLIENTS: how many clients to serve */
};

struct client_args {
	const char *addr;
	const char *port;
	const char *message;	/* never NULL: the default when not given */
};

/* Parse a server's command line; prints the usage and exits 2 when it is wrong. */
void server_args_parse(int argc, char *argv[], int accepted, struct server_args *args);

/*
 * Parse a client's command line; prints the usage and exits 2 when it is
 * wrong. default_message NULL: the client takes no message.
 */
void client_args_parse(int argc, char *argv[], const char *default_message,
		struct client_args *args);

/* Print "<what> failed: <why>" on stderr for an RPMA_E_* code. */
void print_error(const char *what, int ret);

/*
 * Print len bytes that came from elsewhere (a peer, persistent memory) as a
 * string: up to the first NUL, other unprintable bytes shown as '.'.
 */
void print_untrusted(const char *label, const char *bytes, size_t len);

/* The RDMA device serving addr (local for a server) and a peer on it. */
int peer_open(const char *addr, bool local, struct rpma_peer **peer_ptr);

/* Listen on addr:port and report it. */
int server_listen(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_ep **ep_ptr);

/*
 * Connect or accept *req_ptr (consumed) with pdata and wait until the
 * connection is established; a refused or unreachable peer is reported.
 */
int conn_establish(struct rpma_conn_req **req_ptr, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr);

/* Client: connect to addr:port and wait until the connection is up. */
int client_connect(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr);

/* Server: take the next connection request, accept it and wait until it is up. */
int server_accept(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr);

/* Wait until the peer closes the connection (RPMA_CONN_CLOSED). */
int conn_wait_closed(struct rpma_conn *conn);

/*
 * Close the connection from this side (or finish closing it after
 * conn_wait_closed()) and delete it; *conn_ptr becomes NULL.
 * wait_for_closed: wait for the peer's answer (RPMA_CONN_CLOSED). Not after
 * a failure: a peer that is stuck or gone never answers, and the wait ends
 * only when the kernel gives up on the disconnect, about a minute later.
 */
int conn_close(struct rpma_conn **conn_ptr, bool wait_for_closed);

/*
 * Wait for the next completion on cq; a completion with an error status
 * is reported and fails.
 */
int cq_next_wc(struct rpma_cq *cq, struct ibv_wc *wc);

/* Wait for the next completion on cq, whatever its status: for a failure expected. */
int cq_next_wc_any(struct rpma_cq *cq, struct ibv_wc *wc);

/* Wait for the next completion on the connection's main CQ. */
int conn_next_wc(struct rpma_conn *conn, struct ibv_wc *wc);

/* Wait for the next completion on the connection's main CQ and check its opcode. */
int conn_wait_for(struct rpma_conn *conn, enum ibv_wc_opcode opcode, struct ibv_wc *wc);

/*
 * The memory region descriptor (and the server's peer configuration
 * descriptor) a server hands its client in the private data; a grant's
 * in a message (example 17).
 */
struct descs_pdata {
	uint8_t mr_desc_size;
	uint8_t pcfg_desc_size;	/* 0: no peer configuration */
	char descs[32];	/* a connection request carries at most 56 bytes */
};

/* Fill pd with mr's descriptor and pcfg's (pcfg may be NULL). */
int descs_pack(const struct rpma_mr_local *mr, const struct rpma_peer_cfg *pcfg,
		struct descs_pdata *pd);

/*
 * Fill pd with the desc_size bytes at desc (a region's descriptor, or a
 * grant's) and pcfg's descriptor (pcfg may be NULL).
 */
int descs_pack_desc(const void *desc, size_t desc_size, const struct rpma_peer_cfg *pcfg,
		struct descs_pdata *pd);

/*
 * Take the peer's descriptors out of private data; the bytes are the
 * peer's, so every size is checked. *pcfg_ptr (when pcfg_ptr is not NULL)
 * is NULL if the peer sent no configuration.
 */
int descs_unpack_pdata(const struct rpma_conn_private_data *pdata,
		struct rpma_mr_remote **mr_ptr, struct rpma_peer_cfg **pcfg_ptr);

/* descs_unpack_pdata() of the private data the connection got. */
int descs_unpack(const struct rpma_conn *conn, struct rpma_mr_remote **mr_ptr,
		struct rpma_peer_cfg **pcfg_ptr);

/*
 * The client's choice in examples 05 and 07: RPMA_FLUSH_TYPE_PERSISTENT when
 * the remote region allows it and the server declared direct write to pmem
 * (pcfg, may be NULL), RPMA_FLUSH_TYPE_VISIBILITY otherwise; says which.
 */
int flush_type_choose(const struct rpma_mr_remote *remote, const struct rpma_peer_cfg *pcfg,
		enum rpma_flush_type *type);

/*
 * Wait on the connection's main CQ for the completions of one send and one
 * receive, in whatever order they come; the receive's is put in recv_wc.
 */
int conn_wait_send_and_recv(struct rpma_conn *conn, struct ibv_wc *recv_wc);

/* Check that the peer's region has at least size bytes. */
int remote_size_check(const struct rpma_mr_remote *mr, size_t size);

/* Page-aligned, zeroed memory for a local region; NULL on failure (reported). */
void *buffer_alloc(size_t size);

#endif /* EXAMPLES_COMMON_H */
