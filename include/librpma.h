/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma.h -- the public API of librpma: remote persistent memory access
 * over RDMA.
 *
 * Source- and binary-compatible with the librpma 1.x API: every function,
 * type and constant below keeps its 1.x name, signature and value.
 *
 * Conventions shared by all functions (see librpma(7) and each man page):
 * - 0 (or a non-negative value) means success, a negative RPMA_E_* code
 *   means failure;
 * - on failure no output argument is written, except where a function says
 *   that it consumes or clears its handle;
 * - NULL or out-of-range arguments give RPMA_E_INVAL;
 * - a failing libibverbs or librdmacm call gives RPMA_E_PROVIDER, errno
 *   keeps its cause and the log names the call.
 */

#ifndef LIBRPMA_H
#define LIBRPMA_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rpma_conn_wait() flag: block until a completion event arrives */
#define RPMA_W_WAIT_FOR_COMPLETION	(1)

/* error codes */
#define RPMA_E_UNKNOWN		(-100000) /* unknown error */
#define RPMA_E_NOSUPP		(-100001) /* not supported */
#define RPMA_E_PROVIDER		(-100002) /* libibverbs or librdmacm failed */
#define RPMA_E_NOMEM		(-100003) /* out of memory */
#define RPMA_E_INVAL		(-100004) /* invalid argument */
#define RPMA_E_NO_COMPLETION	(-100005) /* no completion available */
#define RPMA_E_NO_EVENT		(-100006) /* no event available */
#define RPMA_E_AGAIN		(-100007) /* temporary failure, retry */
#define RPMA_E_SHARED_CHANNEL	(-100008) /* completion channel is shared */
#define RPMA_E_NOT_SHARED_CHNL	(-100009) /* completion channel is not shared */

/* the connection establishment timeout used when none is configured */
#define RPMA_DEFAULT_TIMEOUT_MS 1000

/* which side of a route an address given to rpma_utils_get_ibv_context() is */
enum rpma_util_ibv_context_type {
	RPMA_UTIL_IBV_CONTEXT_LOCAL,	/* an address of this host */
	RPMA_UTIL_IBV_CONTEXT_REMOTE	/* an address of the peer */
};

/* utilities */

/* Find the RDMA device that serves addr (local or remote, see type). */
int rpma_utils_get_ibv_context(const char *addr, enum rpma_util_ibv_context_type type,
		struct ibv_context **ibv_ctx_ptr);

/* Tell whether the device supports On-Demand Paging for RC transports. */
int rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx, int *is_odp_capable);

/* peer configuration: what this host tells its peers about itself */

struct rpma_peer_cfg;

/* Create a peer configuration with direct write to PMem not declared. */
int rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr);

/* Delete a peer configuration; *pcfg_ptr becomes NULL. */
int rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr);

/*
 * Declare whether the NIC's writes reach the persistence domain of this
 * host's PMem (e.g. DDIO is off). Only the operator can know it.
 */
int rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg, bool supported);

/* Read the direct-write-to-PMem declaration. */
int rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg, bool *supported);

/* Serialize the configuration into desc (rpma_peer_cfg_get_descriptor_size() bytes). */
int rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg, void *desc);

/* The size of the buffer rpma_peer_cfg_get_descriptor() writes. */
int rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg, size_t *desc_size);

/*
 * Rebuild a configuration received from a peer. The bytes are untrusted:
 * a descriptor of the wrong size or with unknown values is refused.
 */
int rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_peer_cfg **pcfg_ptr);

/* peer: one RDMA device and a protection domain on it */

struct rpma_peer;

/* Create a peer on the device ibv_ctx (see rpma_utils_get_ibv_context()). */
int rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr);

/* Delete a peer; every object created from it must be deleted before. */
int rpma_peer_delete(struct rpma_peer **peer_ptr);

/* memory regions */

struct rpma_mr_local;
struct rpma_mr_remote;

/* usage flags of a memory region: what the memory may take part in */
#define RPMA_MR_USAGE_READ_SRC			(1 << 0) /* remote side reads it */
#define RPMA_MR_USAGE_READ_DST			(1 << 1) /* a read lands in it */
#define RPMA_MR_USAGE_WRITE_SRC			(1 << 2) /* a write comes from it */
#define RPMA_MR_USAGE_WRITE_DST			(1 << 3) /* remote side writes it */
#define RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY	(1 << 4) /* may be flushed to visibility */
#define RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT	(1 << 5) /* may be flushed to persistence */
#define RPMA_MR_USAGE_SEND			(1 << 6) /* a message is sent from it */
#define RPMA_MR_USAGE_RECV			(1 << 7) /* a message is received in it */

/* Register size bytes at ptr for the given usage (RPMA_MR_USAGE_* bits). */
int rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr);

/*
 * Deregister a local memory region; *mr_ptr becomes NULL. RPMA_E_INVAL while
 * grants of it live (rpma_grant_new()): delete them, or their connections.
 */
int rpma_mr_dereg(struct rpma_mr_local **mr_ptr);

/* Serialize the region for a peer (rpma_mr_get_descriptor_size() bytes). */
int rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc);

/*
 * Rebuild a remote region from a peer's descriptor. The bytes are
 * untrusted: a wrong size gives RPMA_E_INVAL, impossible contents
 * RPMA_E_NOSUPP.
 */
int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_mr_remote **mr_ptr);

/* The size of the buffer rpma_mr_get_descriptor() writes. */
int rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size);

/* The address the local region starts at. */
int rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr);

/* The length of the local region. */
int rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size);

/* The length of the remote region. */
int rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size);

/* The RPMA_MR_USAGE_FLUSH_TYPE_* bits the remote region was registered with. */
int rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type);

/* Delete a remote region; *mr_ptr becomes NULL. */
int rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr);

/* Pass ibv_advise_mr(3) advice (e.g. prefetch) about a range of the region. */
int rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags);

/* connection configuration */

struct rpma_conn_cfg;

/*
 * Create a connection configuration with the defaults: timeout 1000 ms,
 * CQ 10, receive CQ 0 (none), SQ 10, RQ 10, no shared completion channel,
 * no shared RQ.
 */
int rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr);

/* Delete a connection configuration; *cfg_ptr becomes NULL. */
int rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr);

/* Set the connection establishment timeout (milliseconds, >= 0). */
int rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms);

/* Get the connection establishment timeout. */
int rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg, int *timeout_ms);

/* Set the size of the main completion queue. */
int rpma_conn_cfg_set_cq_size(struct rpma_conn_cfg *cfg, uint32_t cq_size);

/* Tell whether the CQ and the receive CQ share one completion channel. */
int rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg, bool *shared);

/* Make the CQ and the receive CQ share one completion channel (rpma_conn_wait()). */
int rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared);

/* Get the size of the main completion queue. */
int rpma_conn_cfg_get_cq_size(const struct rpma_conn_cfg *cfg, uint32_t *cq_size);

/* Set the size of the receive CQ; 0 means no separate receive CQ. */
int rpma_conn_cfg_set_rcq_size(struct rpma_conn_cfg *cfg, uint32_t rcq_size);

/* Get the size of the receive CQ. */
int rpma_conn_cfg_get_rcq_size(const struct rpma_conn_cfg *cfg, uint32_t *rcq_size);

/* Set the send queue size. */
int rpma_conn_cfg_set_sq_size(struct rpma_conn_cfg *cfg, uint32_t sq_size);

/* Get the send queue size. */
int rpma_conn_cfg_get_sq_size(const struct rpma_conn_cfg *cfg, uint32_t *sq_size);

/* Set the receive queue size. */
int rpma_conn_cfg_set_rq_size(struct rpma_conn_cfg *cfg, uint32_t rq_size);

/* Get the receive queue size. */
int rpma_conn_cfg_get_rq_size(const struct rpma_conn_cfg *cfg, uint32_t *rq_size);

/* shared receive queue */

struct rpma_srq;

/* Make connections created with cfg receive through srq (NULL: their own RQ). */
int rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq);

/* Get the shared RQ set in cfg (NULL when none). */
int rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr);

/* connection */

struct rpma_conn;

/* The file descriptor that becomes readable when a connection event waits. */
int rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd);

/* connection events */
enum rpma_conn_event {
	RPMA_CONN_UNDEFINED = -1,	/* not a known event */
	RPMA_CONN_ESTABLISHED,		/* the connection is up */
	RPMA_CONN_CLOSED,		/* the connection was closed */
	RPMA_CONN_LOST,			/* the connection broke */
	RPMA_CONN_REJECTED,		/* the peer refused the connection */
	RPMA_CONN_UNREACHABLE		/* the peer could not be reached */
};

/* Take the next connection event (blocks unless the event fd is non-blocking). */
int rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event);

/* A constant string naming a connection event. */
const char *rpma_utils_conn_event_2str(enum rpma_conn_event conn_event);

/* private data exchanged while connecting (at most 255 bytes) */
struct rpma_conn_private_data {
	void *ptr;
	uint8_t len;
};

/* The private data the peer sent; owned by the connection. */
int rpma_conn_get_private_data(const struct rpma_conn *conn, struct rpma_conn_private_data *pdata);

/* Take the peer's configuration into account (e.g. for persistent flush). */
int rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn, const struct rpma_peer_cfg *pcfg);

/* The number of the connection's queue pair. */
int rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num);

struct rpma_cq;

/* The main CQ: every completion but receives when a receive CQ exists. */
int rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr);

/* The receive CQ, or NULL when the connection has none. */
int rpma_conn_get_rcq(const struct rpma_conn *conn, struct rpma_cq **rcq_ptr);

/* Start closing the connection, or finish after RPMA_CONN_CLOSED. */
int rpma_conn_disconnect(struct rpma_conn *conn);

/* Release a closed connection; *conn_ptr becomes NULL even on failure. */
int rpma_conn_delete(struct rpma_conn **conn_ptr);

/* connection requests */

struct rpma_conn_req;

/* Prepare an outgoing connection to addr:port (cfg NULL: defaults). */
int rpma_conn_req_new(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);

/* Drop a request; an incoming one is rejected. *req_ptr becomes NULL. */
int rpma_conn_req_delete(struct rpma_conn_req **req_ptr);

/*
 * Connect (outgoing) or accept (incoming) a request, sending pdata.
 * *req_ptr is consumed whatever the result.
 */
int rpma_conn_req_connect(struct rpma_conn_req **req_ptr,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr);

/* The fd of the completion channel shared by the CQ and the receive CQ. */
int rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd);

/*
 * Wait on the shared completion channel; *cq is the CQ that fired and
 * *is_rcq (when not NULL) tells whether it is the receive CQ.
 */
int rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq, bool *is_rcq);

/* Post a receive before the connection exists. */
int rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context);

/* endpoint: where a server listens */

struct rpma_ep;

/* Listen for connections on addr:port. */
int rpma_ep_listen(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_ep **ep_ptr);

/* Stop listening; established connections stay. *ep_ptr becomes NULL. */
int rpma_ep_shutdown(struct rpma_ep **ep_ptr);

/* The file descriptor that becomes readable when a connection request waits. */
int rpma_ep_get_fd(const struct rpma_ep *ep, int *fd);

/* Take the next incoming connection request (cfg NULL: defaults). */
int rpma_ep_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		struct rpma_conn_req **req_ptr);

/* The private data the connecting peer sent. */
int rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
		struct rpma_conn_private_data *pdata);

/* shared receive queue configuration */

struct rpma_srq_cfg;

/* Create a shared RQ configuration with the defaults: RQ 100, receive CQ 100. */
int rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr);

/* Delete a shared RQ configuration; *cfg_ptr becomes NULL. */
int rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr);

/* Set the size of the shared RQ. */
int rpma_srq_cfg_set_rq_size(struct rpma_srq_cfg *cfg, uint32_t rq_size);

/* Get the size of the shared RQ. */
int rpma_srq_cfg_get_rq_size(const struct rpma_srq_cfg *cfg, uint32_t *rq_size);

/* Set the size of the shared RQ's receive CQ; 0 means none. */
int rpma_srq_cfg_set_rcq_size(struct rpma_srq_cfg *cfg, uint32_t rcq_size);

/* Get the size of the shared RQ's receive CQ. */
int rpma_srq_cfg_get_rcq_size(const struct rpma_srq_cfg *cfg, uint32_t *rcq_size);

/* shared receive queue */

/* Create a shared RQ (and its receive CQ unless its size is 0). */
int rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr);

/* Delete a shared RQ; *srq_ptr becomes NULL even on failure. */
int rpma_srq_delete(struct rpma_srq **srq_ptr);

/* Post a receive to the shared RQ. */
int rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst, size_t offset, size_t len,
	const void *op_context);

/* The shared RQ's receive CQ, or NULL when it has none. */
int rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr);

/* operations */

/* completion flags of an operation */
#define RPMA_F_COMPLETION_ON_ERROR	(1 << 0) /* a completion only on error */
#define RPMA_F_COMPLETION_ALWAYS	(1 << 1 | RPMA_F_COMPLETION_ON_ERROR) /* always */

/* Read len bytes of the remote src into the local dst. */
int rpma_read(struct rpma_conn *conn,
		struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset,
		size_t len, int flags, const void *op_context);

/* Write len bytes of the local src into the remote dst. */
int rpma_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, const void *op_context);

/* Write like rpma_write() and deliver imm to the peer's receive completion. */
int rpma_write_with_imm(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, uint32_t imm, const void *op_context);

/* the size and the alignment of rpma_atomic_write() */
#define RPMA_ATOMIC_WRITE_ALIGNMENT 8

/* Store 8 bytes atomically at an 8-byte-aligned offset of the remote dst. */
int rpma_atomic_write(struct rpma_conn *conn,
	struct rpma_mr_remote *dst, size_t dst_offset,
	const char src[8], int flags, const void *op_context);

/* how far rpma_flush() takes the data */
enum rpma_flush_type {
	RPMA_FLUSH_TYPE_PERSISTENT,	/* into the persistence domain */
	RPMA_FLUSH_TYPE_VISIBILITY,	/* visible to the remote CPU */
};

/* Make the writes to a range of the remote dst visible or persistent. */
int rpma_flush(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
		enum rpma_flush_type type, int flags, const void *op_context);

/* Send len bytes of src as a message (src NULL, 0, 0: an empty message). */
int rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset, size_t len,
		int flags, const void *op_context);

/* Send like rpma_send() with immediate data imm (host byte order). */
int rpma_send_with_imm(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset,
	size_t len, int flags, uint32_t imm, const void *op_context);

/* Post a buffer for one incoming message. */
int rpma_recv(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context);

/* completions */

/* The fd that becomes readable when the CQ has a completion event. */
int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd);

/* Wait for a completion event, acknowledge it and re-arm the CQ. */
int rpma_cq_wait(struct rpma_cq *cq);

/* Poll up to num_entries completions into wc, as ibv_poll_cq(3) does. */
int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *num_entries_got);

/* errors */

/* A constant string describing an RPMA_E_* code. */
const char *rpma_err_2str(int ret);

/* logging */

/* the severity of a log message, or the level of a threshold */
enum rpma_log_level {
	RPMA_LOG_DISABLED = -1,		/* as a threshold: log nothing */
	RPMA_LOG_LEVEL_FATAL,		/* the library cannot go on */
	RPMA_LOG_LEVEL_ERROR,		/* an operation failed */
	RPMA_LOG_LEVEL_WARNING,		/* something the caller may handle */
	RPMA_LOG_LEVEL_NOTICE,		/* rare events, e.g. a connection is up */
	RPMA_LOG_LEVEL_INFO,		/* frequent events */
	RPMA_LOG_LEVEL_DEBUG,		/* details for debugging */
};

/* the thresholds a log message is compared with */
enum rpma_log_threshold {
	RPMA_LOG_THRESHOLD,		/* messages above it are dropped */
	RPMA_LOG_THRESHOLD_AUX,		/* a second one the log function may use */
	RPMA_LOG_THRESHOLD_MAX
};

/* Set a threshold (defaults: main RPMA_LOG_LEVEL_WARNING, aux RPMA_LOG_DISABLED). */
int rpma_log_set_threshold(enum rpma_log_threshold threshold, enum rpma_log_level level);

/* Get a threshold. */
int rpma_log_get_threshold(enum rpma_log_threshold threshold, enum rpma_log_level *level);

/* a log function; file_name may be NULL, then line_no and function_name mean nothing */
typedef void rpma_log_function(
	enum rpma_log_level level,
	const char *file_name,
	const int line_no,
	const char *function_name,
	const char *message_format,
	...);

/* rpma_log_set_function() argument that restores the default function */
#define RPMA_LOG_USE_DEFAULT_FUNCTION (NULL)

/*
 * Send the log to log_function (it must be thread-safe). The default one
 * writes to syslog(3) up to the main threshold and to stderr up to the
 * auxiliary one.
 */
int rpma_log_set_function(rpma_log_function *log_function);

/*
 * grants (symbol version LIBRPMA_1.5; not in librpma 1.x): a part of a
 * region that the peer of one connection reaches, through that connection
 * only. Another connection that uses the grant's key, guessed or stolen,
 * gets a remote access error and no byte. A grant ends with its connection.
 */

struct rpma_grant;

/*
 * Register memory that peers reach through grants only: its own key gives
 * no peer any remote read or write, on any transport, and it has no
 * descriptor of its own. usage says what grants of it may carry
 * (RPMA_MR_USAGE_READ_SRC, _WRITE_DST, _FLUSH_TYPE_*) and how it is used
 * locally; RPMA_E_NOSUPP for RPMA_MR_USAGE_READ_DST on iWARP, where a
 * read's destination is written by the peer with the region's own key.
 */
int rpma_mr_reg_for_grants(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr);

/*
 * Let the peer of conn reach mr[offset, +len) for usage (a subset of mr's
 * remote usages), through conn only. Returns once the grant's window is
 * bound (a bind that fails is RPMA_E_PROVIDER), with no completion left for
 * the program. RPMA_E_NOSUPP where the device binds no type-2 windows.
 */
int rpma_grant_new(struct rpma_conn *conn, struct rpma_mr_local *mr, size_t offset,
		size_t len, int usage, struct rpma_grant **grant_ptr);

/*
 * Revoke the grant (unless its connection is gone) and free it; *grant_ptr
 * becomes NULL. Safe while another thread deletes the grant's connection.
 */
int rpma_grant_delete(struct rpma_grant **grant_ptr);

/* The size of the buffer rpma_grant_get_descriptor() writes. */
int rpma_grant_get_descriptor_size(const struct rpma_grant *grant, size_t *desc_size);

/*
 * Serialize the grant for its peer, in the format of a region's
 * descriptor: the peer rebuilds it with rpma_mr_remote_from_descriptor().
 */
int rpma_grant_get_descriptor(const struct rpma_grant *grant, void *desc);

#ifdef __cplusplus
}
#endif

#endif /* LIBRPMA_H */
