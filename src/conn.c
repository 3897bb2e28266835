// SPDX-License-Identifier: BSD-3-Clause
/*
 * conn.c -- an established (or establishing) connection: its events, its
 * completion queues and the operations posted on its QP.
 */

#include <arpa/inet.h>
#include <stdlib.h>

#include "fault.h"
#include "cfg.h"
#include "conn.h"
#include "cq.h"
#include "log.h"
#include "mw_set.h"
#include "peer.h"
#include "peer_cfg.h"
#include "post.h"
#include "private_data.h"

struct rpma_conn {
	/* what the data path reads first */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;		/* native ATOMIC WRITE, or NULL */
	struct ibv_qp_ex *flush_qpx;	/* native FLUSH, or NULL */
	unsigned flush_place;		/* PEER_FLUSH_* posted natively, 0 without flush_qpx */
	struct ibv_sge flush_sge;	/* a read-after-write flush's destination: the peer's byte */
	unsigned flush_types;		/* 1 << RPMA_FLUSH_TYPE_* the peer allows */

	int handshake;			/* enum conn_handshake, atomic */
	struct conn_parts parts;
	struct mw_set *windows;		/* the grants' windows, from the first grant on (atomic) */
};

/*
 * Where the passive side's handshake is. Its last message, the client's
 * RTU, may be lost; the CM then says ESTABLISHED only once its REP, sent
 * again seconds later, is answered. A client that has done its work by
 * then and disconnected makes the CM report DISCONNECTED instead, though
 * the connection was up on both sides (a DREQ comes only from a client
 * that got the REP) and the QP took all the client sent. The library then
 * reports ESTABLISHED, disconnects on the program's behalf, and CLOSED
 * follows with the CM's TIMEWAIT_EXIT, about 0.5 s later: a program gets
 * the events a connection has, and a readable event descriptor for each.
 * IBV_EVENT_COMM_EST would tell the QP's first packet earlier, but the
 * device's async events are the program's to read.
 */
enum conn_handshake {
	CONN_UP,		/* established, or the active side, or the program closes */
	CONN_WAITING,		/* passive: ESTABLISHED not seen yet */
	CONN_CLOSED_EARLY,	/* passive: DISCONNECTED came first, the library disconnected */
};

/*
 * The extended QP of the native ATOMIC WRITE and FLUSH, asked for once where
 * the device offers either, and the flush's placement, decided once here: a
 * flush then ANDs it with a byte of its region (mr_remote.c).
 */
static void
conn_native_init(struct rpma_conn *conn, const struct rpma_peer *peer)
{
#if defined(HAVE_IBV_ATOMIC_WRITE) || defined(HAVE_IBV_FLUSH)
	bool atomic = peer_native_atomic_write(peer);
	unsigned place = peer_native_flush(peer);
	struct ibv_qp_ex *qpx = (atomic || place) ? ibv_qp_to_qp_ex(conn->qp) : NULL;
#else
	(void) conn;
	(void) peer;
#endif
#ifdef HAVE_IBV_ATOMIC_WRITE
	conn->qpx = atomic ? qpx : NULL;
#endif
#ifdef HAVE_IBV_FLUSH
	conn->flush_qpx = place ? qpx : NULL;
	conn->flush_place = qpx ? place : 0;
#endif
}

int
conn_new(struct conn_parts *parts, struct rpma_conn **conn_ptr)
{
	struct rpma_conn *conn = FI_PTR(calloc(1, sizeof(*conn)), ENOMEM);
	if (conn == NULL)
		return RPMA_E_NOMEM;

	/* built once: every read-after-write flush reads into the same byte */
	int ret = peer_flush_dst_get(parts->peer, &conn->flush_sge);
	if (ret) {
		free(conn);
		return ret;
	}

	conn->qp = parts->id->qp;
	conn->handshake = parts->passive ? CONN_WAITING : CONN_UP;
	conn->flush_types = 1u << RPMA_FLUSH_TYPE_VISIBILITY;
	conn_native_init(conn, parts->peer);
	conn->parts = *parts;
	*conn_ptr = conn;
	return 0;
}

int
conn_parts_release_queues(struct conn_parts *parts)
{
	int ret = 0;

	if (parts->id && parts->id->qp)
		rdma_destroy_qp(parts->id);
	if (parts->rcq_owned && cq_delete(&parts->rcq))
		ret = RPMA_E_PROVIDER;
	parts->rcq = NULL;
	if (cq_delete(&parts->cq))
		ret = RPMA_E_PROVIDER;
	if (parts->channel && ibv_destroy_comp_channel(parts->channel)) {
		RPMA_LOG_PROVIDER(errno, "ibv_destroy_comp_channel()");
		ret = RPMA_E_PROVIDER;
	}
	parts->channel = NULL;
	return ret;
}

int
rpma_conn_delete(struct rpma_conn **conn_ptr)
{
	if (conn_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn *conn = *conn_ptr;
	if (conn == NULL)
		return 0;

	struct conn_parts *parts = &conn->parts;
	/* before the QP, which a bound window holds on rxe: the grants end with it */
	int ret = mw_set_close(&conn->windows);
	if (conn_parts_release_queues(parts))
		ret = RPMA_E_PROVIDER;
	/* after the QP: no flush reads into the byte any more */
	peer_flush_dst_put(parts->peer);
	if (rdma_destroy_id(parts->id)) {
		RPMA_LOG_PROVIDER(errno, "rdma_destroy_id()");
		ret = RPMA_E_PROVIDER;
	}
	rdma_destroy_event_channel(parts->evch);
	private_data_delete(&parts->data);
	free(conn);
	*conn_ptr = NULL;
	return ret;
}

struct ibv_qp *
conn_qp(const struct rpma_conn *conn)
{
	return conn->qp;
}

struct rpma_peer *
conn_peer(const struct rpma_conn *conn)
{
	return conn->parts.peer;
}

struct rpma_cq *
conn_cq(const struct rpma_conn *conn)
{
	return conn->parts.cq;
}

int
conn_windows(struct rpma_conn *conn, struct mw_set **set_ptr)
{
	struct mw_set *set = __atomic_load_n(&conn->windows, __ATOMIC_ACQUIRE);
	if (set) {
		*set_ptr = set;
		return 0;
	}

	int ret = mw_set_new(&set);
	if (ret)
		return ret;
	struct mw_set *none = NULL;
	if (!__atomic_compare_exchange_n(&conn->windows, &none, set, false, __ATOMIC_ACQ_REL,
			__ATOMIC_ACQUIRE)) {
		/* another thread's first grant made the set: none holds it */
		(void) mw_set_close(&set);
		set = none;
	}
	*set_ptr = set;
	return 0;
}

static enum rpma_conn_event
event_map(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return RPMA_CONN_ESTABLISHED;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return RPMA_CONN_CLOSED;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return RPMA_CONN_LOST;
	case RDMA_CM_EVENT_REJECTED:
		return RPMA_CONN_REJECTED;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return RPMA_CONN_UNREACHABLE;
	default:
		return RPMA_CONN_UNDEFINED;
	}
}

/* move the handshake from `from` to `to`; false (and *from the state) when it was elsewhere */
static bool
handshake_move(struct rpma_conn *conn, int *from, int to)
{
	return __atomic_compare_exchange_n(&conn->handshake, from, to, false, __ATOMIC_SEQ_CST,
			__ATOMIC_SEQ_CST);
}

/* DISCONNECTED before ESTABLISHED on the passive side: ESTABLISHED now, CLOSED next */
static enum rdma_cm_event_type
handshake_closed_early(struct rpma_conn *conn)
{
	if (FI_NEG(rdma_disconnect(conn->parts.id), EIO)) {
		/* no TIMEWAIT_EXIT would follow: CLOSED now, and the program disconnects */
		RPMA_LOG_PROVIDER(errno, "rdma_disconnect()");
		CFG_STORE(conn->handshake, CONN_UP);
		return RDMA_CM_EVENT_DISCONNECTED;
	}
	RPMA_LOG_NOTICE("the client closed before the handshake ended here (its last message "
			"was lost): reported as established, RPMA_CONN_CLOSED follows");
	return RDMA_CM_EVENT_ESTABLISHED;
}

/* the event a program is told of (the handshake's events only once) */
static enum rdma_cm_event_type
handshake_event(struct rpma_conn *conn, enum rdma_cm_event_type type)
{
	int waiting = CONN_WAITING;

	if (type == RDMA_CM_EVENT_ESTABLISHED)
		(void) handshake_move(conn, &waiting, CONN_UP);
	else if (type == RDMA_CM_EVENT_DISCONNECTED &&
			handshake_move(conn, &waiting, CONN_CLOSED_EARLY))
		return handshake_closed_early(conn);
	return type;
}

int
rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event)
{
	struct rdma_cm_event *cm_event;
	int ret = 0;

	if (conn == NULL || event == NULL)
		return RPMA_E_INVAL;

	if (FI_NEG(rdma_get_cm_event(conn->parts.evch, &cm_event), EIO)) {
		/*
		 * No event on a non-blocking descriptor: RPMA_E_PROVIDER with errno
		 * EAGAIN, as librpma 1.x documents (rdma_get_cm_event() failed) and
		 * does, so that a 1.x program polling for events works unchanged.
		 * Not logged: it is no error for such a program.
		 */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return RPMA_E_PROVIDER;
		RPMA_LOG_PROVIDER(errno, "rdma_get_cm_event()");
		return RPMA_E_PROVIDER;
	}

	enum rdma_cm_event_type type = cm_event->event;
	/* the active side learns the peer's private data when the connection is up */
	if (type == RDMA_CM_EVENT_ESTABLISHED && conn->parts.data.ptr == NULL)
		ret = private_data_store(cm_event->param.conn.private_data,
				cm_event->param.conn.private_data_len, &conn->parts.data);

	if (rdma_ack_cm_event(cm_event)) {
		RPMA_LOG_PROVIDER(errno, "rdma_ack_cm_event()");
		return RPMA_E_PROVIDER;
	}
	if (ret)
		return ret;

	enum rpma_conn_event mapped = event_map(handshake_event(conn, type));
	if (mapped == RPMA_CONN_UNDEFINED) {
		RPMA_LOG_ERROR("unexpected connection event: %s", rdma_event_str(type));
		return RPMA_E_UNKNOWN;
	}

	RPMA_LOG_NOTICE("%s", rpma_utils_conn_event_2str(mapped));
	*event = mapped;
	return 0;
}

int
rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd)
{
	if (conn == NULL || fd == NULL)
		return RPMA_E_INVAL;

	*fd = conn->parts.evch->fd;
	return 0;
}

int
rpma_conn_get_private_data(const struct rpma_conn *conn, struct rpma_conn_private_data *pdata)
{
	if (conn == NULL || pdata == NULL)
		return RPMA_E_INVAL;

	*pdata = conn->parts.data;
	return 0;
}

int
rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn, const struct rpma_peer_cfg *pcfg)
{
	if (conn == NULL || pcfg == NULL)
		return RPMA_E_INVAL;

	/* persistence needs the peer's word that the NIC's writes reach its PMem */
	conn->flush_types = 1u << RPMA_FLUSH_TYPE_VISIBILITY;
	if (peer_cfg_direct_write_to_pmem(pcfg))
		conn->flush_types |= 1u << RPMA_FLUSH_TYPE_PERSISTENT;
	return 0;
}

int
rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num)
{
	if (conn == NULL || qp_num == NULL)
		return RPMA_E_INVAL;

	*qp_num = conn->qp->qp_num;
	return 0;
}

int
rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr)
{
	if (conn == NULL || cq_ptr == NULL)
		return RPMA_E_INVAL;

	*cq_ptr = conn->parts.cq;
	return 0;
}

int
rpma_conn_get_rcq(const struct rpma_conn *conn, struct rpma_cq **rcq_ptr)
{
	if (conn == NULL || rcq_ptr == NULL)
		return RPMA_E_INVAL;

	*rcq_ptr = conn->parts.rcq;
	return 0;
}

int
rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd)
{
	if (conn == NULL || fd == NULL)
		return RPMA_E_INVAL;
	if (conn->parts.channel == NULL)
		return RPMA_E_NOT_SHARED_CHNL;

	*fd = conn->parts.channel->fd;
	return 0;
}

/* which of the connection's CQs an event came from, or NULL */
static struct rpma_cq *
conn_cq_of(const struct rpma_conn *conn, const struct ibv_cq *ev_cq)
{
	if (ev_cq == cq_ibv_cq(conn->parts.cq))
		return conn->parts.cq;
	if (conn->parts.rcq && ev_cq == cq_ibv_cq(conn->parts.rcq))
		return conn->parts.rcq;
	return NULL;
}

int
rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq, bool *is_rcq)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	(void) flags; /* waiting for a completion is the only mode */
	if (conn == NULL || cq == NULL)
		return RPMA_E_INVAL;
	if (conn->parts.channel == NULL)
		return RPMA_E_NOT_SHARED_CHNL;
	/* completions a grant's bind kept came with events the program may have had */
	if (cq_holds_kept(conn->parts.cq)) {
		*cq = conn->parts.cq;
		if (is_rcq)
			*is_rcq = false;
		return 0;
	}

	if (FI_NEG(ibv_get_cq_event(conn->parts.channel, &ev_cq, &ev_ctx), EIO))
		return RPMA_E_NO_COMPLETION;

	struct rpma_cq *which = conn_cq_of(conn, ev_cq);
	if (which == NULL) {
		ibv_ack_cq_events(ev_cq, 1);
		RPMA_LOG_ERROR("ibv_get_cq_event() returned an unknown CQ");
		return RPMA_E_UNKNOWN;
	}

	int ret = cq_event_got(which);
	if (ret)
		return ret;

	*cq = which;
	if (is_rcq)
		*is_rcq = (which == conn->parts.rcq);
	return 0;
}

int
rpma_conn_disconnect(struct rpma_conn *conn)
{
	if (conn == NULL)
		return RPMA_E_INVAL;

	/* the program's own disconnect ends the handshake, unless the library did it */
	int waiting = CONN_WAITING;
	if (!handshake_move(conn, &waiting, CONN_UP) && waiting == CONN_CLOSED_EARLY)
		return 0;

	if (FI_NEG(rdma_disconnect(conn->parts.id), EIO)) {
		RPMA_LOG_PROVIDER(errno, "rdma_disconnect()");
		return RPMA_E_PROVIDER;
	}
	RPMA_LOG_NOTICE("requesting to disconnect");
	return 0;
}

/* operations: the connection's checks here, the regions' and the post in post.h */

/*
 * A read or write the fast path leaves: a region missing (valid when it
 * moves nothing) or an offset or the length of 4 GiB or more (every check
 * made in full).
 */
__attribute__((noinline, cold)) static int
rdma_rare(struct rpma_conn *conn, enum ibv_wr_opcode opcode,
		const struct rpma_mr_local *local, size_t local_offset,
		const struct rpma_mr_remote *remote, size_t remote_offset, size_t len,
		int flags, uint32_t imm, const void *op_context)
{
	if (local == NULL || remote == NULL) {
		if (local != NULL || remote != NULL || (local_offset | remote_offset | len) != 0)
			return RPMA_E_INVAL;
		return post_empty(conn->qp, opcode, flags, imm, op_context);
	}
	return post_rdma(conn->qp, opcode, local, local_offset, remote, remote_offset, len,
			flags, imm, op_context);
}

/*
 * A read or write of local[local_offset, +len) with remote[remote_offset,
 * +len): offsets and length below 4 GiB (nearly always) cannot wrap when
 * added, so each range is one compare; the rest goes to rdma_rare().
 */
static inline int
rdma_op(struct rpma_conn *conn, enum ibv_wr_opcode opcode,
		const struct rpma_mr_local *local, size_t local_offset,
		const struct rpma_mr_remote *remote, size_t remote_offset, size_t len,
		int flags, uint32_t imm, const void *op_context)
{
	if (unlikely(conn == NULL || flags == 0))
		return RPMA_E_INVAL;
	if (unlikely(local == NULL || remote == NULL ||
			((local_offset | remote_offset | len) >> 32) != 0))
		return rdma_rare(conn, opcode, local, local_offset, remote, remote_offset, len,
				flags, imm, op_context);
	if (unlikely(local_offset + len > local->size || remote_offset + len > remote->size))
		return RPMA_E_INVAL;

	return post_rdma_valid(conn->qp, opcode, local, local_offset, remote, remote_offset, len,
			flags, imm, op_context);
}

int
rpma_read(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len, int flags,
		const void *op_context)
{
	return rdma_op(conn, IBV_WR_RDMA_READ, dst, dst_offset, src, src_offset, len, flags, 0,
			op_context);
}

int
rpma_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
		const void *op_context)
{
	return rdma_op(conn, IBV_WR_RDMA_WRITE, src, src_offset, dst, dst_offset, len, flags, 0,
			op_context);
}

int
rpma_write_with_imm(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
		uint32_t imm, const void *op_context)
{
	return rdma_op(conn, IBV_WR_RDMA_WRITE_WITH_IMM, src, src_offset, dst, dst_offset, len,
			flags, htonl(imm), op_context);
}

int
rpma_atomic_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context)
{
	if (unlikely(conn == NULL || dst == NULL || src == NULL || flags == 0))
		return RPMA_E_INVAL;
	if (unlikely(dst_offset % RPMA_ATOMIC_WRITE_ALIGNMENT))
		return RPMA_E_INVAL;

	if (conn->qpx)
		return post_atomic_write(conn->qpx, dst, dst_offset, src, flags, op_context);
	return post_write_inline8(conn->qp, dst, dst_offset, src, flags, op_context);
}

/* why a flush of this type cannot be done here (logged), as an error code */
__attribute__((noinline, cold)) static int
flush_refused(const struct rpma_conn *conn, const struct rpma_mr_remote *dst,
		enum rpma_flush_type type)
{
	if (type != RPMA_FLUSH_TYPE_PERSISTENT && type != RPMA_FLUSH_TYPE_VISIBILITY)
		return RPMA_E_INVAL;

	if (!(dst->flush_types & (1u << type)))
		RPMA_LOG_ERROR("the remote region was not registered for a %s flush",
				type == RPMA_FLUSH_TYPE_PERSISTENT ? "persistent" : "visibility");
	else if (!(conn->flush_types & (1u << type)))
		RPMA_LOG_ERROR("the peer did not declare direct write to PMem: "
				"a persistent flush is not possible");
	return RPMA_E_NOSUPP;
}

/*
 * A flush by a read, a function of its own that rpma_flush() jumps to:
 * inline, it would share a frame with the native FLUSH, whose three calls
 * through the extended QP keep values in registers a callee must save.
 * It takes rpma_flush()'s arguments, so that the jump moves none; a read
 * flushes for either type.
 */
KEEP_SIGNATURE static int
flush_by_read(const struct rpma_conn *conn, const struct rpma_mr_remote *dst,
		size_t dst_offset, size_t len, enum rpma_flush_type type, int flags,
		const void *op_context)
{
	(void) type;
	return post_read_within(conn->qp, &conn->flush_sge, dst, dst_offset, len, flags,
			op_context);
}

int
rpma_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
		enum rpma_flush_type type, int flags, const void *op_context)
{
	if (unlikely(conn == NULL || dst == NULL || flags == 0))
		return RPMA_E_INVAL;
	/* the masks hold bits 0 and 1 only: a larger type finds none */
	if (unlikely((unsigned)type > RPMA_FLUSH_TYPE_VISIBILITY ||
			!(conn->flush_types & dst->flush_types & (1u << type))))
		return flush_refused(conn, dst, type);

#ifdef HAVE_IBV_FLUSH
	/* native where the device posts the placement the region was given (mr_remote.c) */
	unsigned place = dst->flush_place[type] & conn->flush_place;
	if (place)
		return post_flush(conn->flush_qpx, dst, dst_offset, len, place, flags, op_context);
#endif
	return flush_by_read(conn, dst, dst_offset, len, type, flags, op_context);
}

/* a send the fast path leaves: no region (valid when empty), or an offset or length of 4 GiB or more */
__attribute__((noinline, cold)) static int
send_rare(struct rpma_conn *conn, enum ibv_wr_opcode opcode, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, uint32_t imm, const void *op_context)
{
	if (src == NULL)
		return (offset | len) ? RPMA_E_INVAL :
			post_empty(conn->qp, opcode, flags, imm, op_context);
	return post_msg(conn->qp, opcode, src, offset, len, flags, imm, op_context);
}

/* a send of src[offset, +len), imm in network byte order */
static inline int
send_op(struct rpma_conn *conn, enum ibv_wr_opcode opcode, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, uint32_t imm, const void *op_context)
{
	if (unlikely(conn == NULL || flags == 0))
		return RPMA_E_INVAL;
	if (unlikely(src == NULL || ((offset | len) >> 32) != 0))
		return send_rare(conn, opcode, src, offset, len, flags, imm, op_context);
	if (unlikely(offset + len > src->size))
		return RPMA_E_INVAL;

	return post_msg_valid(conn->qp, opcode, src, offset, len, flags, imm, op_context);
}

int
rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset, size_t len,
		int flags, const void *op_context)
{
	return send_op(conn, IBV_WR_SEND, src, offset, len, flags, 0, op_context);
}

int
rpma_send_with_imm(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, uint32_t imm, const void *op_context)
{
	return send_op(conn, IBV_WR_SEND_WITH_IMM, src, offset, len, flags, htonl(imm),
			op_context);
}

int
rpma_recv(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context)
{
	if (unlikely(conn == NULL))
		return RPMA_E_INVAL;
	if (unlikely(dst == NULL))
		return (offset | len) ? RPMA_E_INVAL : post_recv_empty(conn->qp, NULL, op_context);

	return post_recv(conn->qp, NULL, dst, offset, len, op_context);
}
