// SPDX-License-Identifier: BSD-3-Clause
/*
 * peer.c -- an RDMA device with a protection domain, and what the device
 * can do: On-Demand Paging, native ATOMIC WRITE, native FLUSH and memory
 * windows.
 */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "flush.h"
#include "log.h"
#include "peer.h"
#include "utils.h"

/* device_cap_flags_ex bits of the kernel ABI; rdma-core 44 names none of them */
#define DEVICE_CAP_FLUSH_GLOBAL		(1ULL << 38)
#define DEVICE_CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define DEVICE_CAP_ATOMIC_WRITE		(1ULL << 40)

#ifdef HAVE_IBV_FLUSH
_Static_assert(PEER_FLUSH_GLOBAL == IBV_FLUSH_GLOBAL &&
		PEER_FLUSH_PERSISTENT == IBV_FLUSH_PERSISTENT &&
		PEER_ACCESS_FLUSH_GLOBAL == IBV_ACCESS_FLUSH_GLOBAL &&
		PEER_ACCESS_FLUSH_PERSISTENT == IBV_ACCESS_FLUSH_PERSISTENT,
		"the kernel ABI values peer.h names are rdma-core's");
#endif

/*
 * The vendor id soft-RoCE (rxe) reports. Its responder answers a native
 * ATOMIC WRITE or FLUSH it receives again with a remote access error
 * (seen on Linux 6.12; doc/FAILURES.md), so one lost or late packet breaks
 * the connection. On rxe, unless asked for them, the library writes
 * atomically with the inline write, and the descriptors of its regions
 * ask a peer to flush them by a read (mr_access.c): of the two sides, only the
 * responder knows its device, and a peer on librpma 1.3 may need the
 * native FLUSH, granting no read right to take its place.
 */
#define RXE_VENDOR_ID 0xffffff
#define RXE_NATIVE_ENV "RPMA_RXE_NATIVE"

/*
 * rxe's on-demand paging (Linux 7.x) places each access at the start of
 * its page: a write of 100 bytes at offset 512 of a page lands at its
 * offset 0, and a read reads from there, so the peer reads back what it
 * wrote while the memory holds it elsewhere (seen on 7.3.4, raw verbs
 * too; tests/integration/fsdax.c shows it). Unless asked for it, the
 * library does not register with ODP on rxe: memory the kernel does not
 * pin (a file on a DAX file system) is refused at the registration.
 */
#define RXE_ODP_ENV "RPMA_RXE_ODP"

/* an RDMA write of up to this many bytes goes inline (the atomic write fallback) */
#define MAX_INLINE_DATA 8

struct rpma_peer {
	struct ibv_pd *pd;
	bool odp_capable;
	bool odp_refused;	/* the device has ODP, but places accesses wrongly (rxe) */
	bool native_atomic_write;
	unsigned flush_caps;	/* PEER_FLUSH_* the device serves */
	unsigned native_flush;	/* PEER_FLUSH_* this build posts on it */
	bool native_flush_invited;	/* descriptors leave a peer free to post FLUSH */
	bool iwarp;		/* the transport is iWARP */
	bool windows;		/* binds type-2 memory windows (grants) */
	bool windows_bounded;	/* keeps an access through a window inside its range */

	/* connections are made from several threads at once: the flush byte's lock */
	pthread_mutex_t flush_lock;
	struct rpma_flush *flush;	/* NULL until the first connection */
	unsigned flush_users;		/* connections that hold it */
};

/* the placement types of a FLUSH the device reports, as PEER_FLUSH_* */
static unsigned
flush_caps_of(uint64_t caps)
{
	return ((caps & DEVICE_CAP_FLUSH_GLOBAL) ? PEER_FLUSH_GLOBAL : 0) |
		((caps & DEVICE_CAP_FLUSH_PERSISTENT) ? PEER_FLUSH_PERSISTENT : 0);
}

static const char *
flush_caps_str(unsigned caps)
{
	static const char *const str[] = {"no", "global", "persistent", "global, persistent"};

	return str[caps & (PEER_FLUSH_GLOBAL | PEER_FLUSH_PERSISTENT)];
}

/* the environment's NAME is "1" */
static bool
env_is_1(const char *name)
{
	const char *env = getenv(name);
	return env && strcmp(env, "1") == 0;
}

/* whether the native operations rxe fails when sent again are wanted */
static bool
peer_native_wanted(const struct ibv_device_attr_ex *attr)
{
	if (attr->orig_attr.vendor_id != RXE_VENDOR_ID)
		return true;

	if (env_is_1(RXE_NATIVE_ENV))
		return true;

	if (attr->device_cap_flags_ex & (DEVICE_CAP_ATOMIC_WRITE | DEVICE_CAP_FLUSH_GLOBAL |
			DEVICE_CAP_FLUSH_PERSISTENT))
		RPMA_LOG_NOTICE("soft-RoCE: no native ATOMIC WRITE posted, regions shown to be "
				"flushed by a read, as rxe fails either native operation sent "
				"again (%s=1 allows them)", RXE_NATIVE_ENV);
	return false;
}

static int
peer_query(struct ibv_context *ibv_ctx, struct rpma_peer *peer)
{
	struct ibv_device_attr_ex attr;

	int err = FI_ERR(ibv_query_device_ex(ibv_ctx, NULL, &attr), EIO);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_query_device_ex()");
		return RPMA_E_PROVIDER;
	}

	uint64_t caps = attr.device_cap_flags_ex;
	bool wanted = peer_native_wanted(&attr);
	peer->odp_capable = utils_odp_capable(&attr);
	peer->odp_refused = peer->odp_capable && attr.orig_attr.vendor_id == RXE_VENDOR_ID &&
		!env_is_1(RXE_ODP_ENV);
#ifdef HAVE_IBV_ATOMIC_WRITE
	peer->native_atomic_write = wanted && (caps & DEVICE_CAP_ATOMIC_WRITE) != 0;
#endif
	/* the rights are granted whatever this build posts: its peer may post FLUSH */
	peer->flush_caps = flush_caps_of(caps);
	peer->native_flush_invited = wanted;
#ifdef HAVE_IBV_FLUSH
	peer->native_flush = peer->flush_caps;
#endif
	peer->iwarp = ibv_ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	peer->windows = (attr.orig_attr.device_cap_flags &
			(IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
	/*
	 * Trusted, not tested: the InfiniBand Architecture Specification has a
	 * responder check an access through a memory window against the
	 * window's own range (volume 1, chapter 10, memory windows), so a
	 * grant's window is bound over the region itself and the device keeps
	 * each peer inside its part. rxe checks the range of the region under
	 * the window instead (seen on 6.1, 6.12 and 7.3.4): there each window
	 * gets a registration of its own range (mw.c). Another device that
	 * broke the rule as rxe does would let a peer past its part.
	 */
	peer->windows_bounded = attr.orig_attr.vendor_id != RXE_VENDOR_ID;
	RPMA_LOG_INFO("device %s (%s): on-demand paging %s, native ATOMIC WRITE %s, "
			"FLUSH served %s, native FLUSH invited %s, posted %s, "
			"type-2 memory windows %s",
			ibv_get_device_name(ibv_ctx->device), peer->iwarp ? "iWARP" : "IB/RoCE",
			!peer->odp_capable ? "no" : peer->odp_refused ?
				"not used (soft-RoCE: " RXE_ODP_ENV "=1 allows it)" : "yes",
			peer->native_atomic_write ? "yes" : "no",
			flush_caps_str(peer->flush_caps), wanted ? "yes" : "no",
			flush_caps_str(peer->native_flush), peer->windows ? "yes" : "no");
	return 0;
}

int
rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr)
{
	if (ibv_ctx == NULL || peer_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_peer *peer = FI_PTR(calloc(1, sizeof(*peer)), ENOMEM);
	if (peer == NULL)
		return RPMA_E_NOMEM;

	int ret = peer_query(ibv_ctx, peer);
	if (ret)
		goto err_free;

	int err = pthread_mutex_init(&peer->flush_lock, NULL);
	if (err) {
		RPMA_LOG_PROVIDER(err, "pthread_mutex_init()");
		ret = RPMA_E_UNKNOWN;
		goto err_free;
	}

	errno = 0;
	peer->pd = FI_PTR(ibv_alloc_pd(ibv_ctx), ENOMEM);
	if (peer->pd == NULL) {
		if (errno == 0) {
			RPMA_LOG_ERROR("ibv_alloc_pd() failed without an error code");
			ret = RPMA_E_UNKNOWN;
		} else {
			ret = (errno == ENOMEM) ? RPMA_E_NOMEM : RPMA_E_PROVIDER;
			RPMA_LOG_PROVIDER(errno, "ibv_alloc_pd()");
		}
		goto err_destroy_lock;
	}

	*peer_ptr = peer;
	return 0;

err_destroy_lock:
	(void) pthread_mutex_destroy(&peer->flush_lock);
err_free:
	free(peer);
	return ret;
}

int
rpma_peer_delete(struct rpma_peer **peer_ptr)
{
	if (peer_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_peer *peer = *peer_ptr;
	if (peer == NULL)
		return 0;

	/*
	 * A connection still open keeps the byte (and its QP makes the PD
	 * busy: ibv_dealloc_pd() below fails, as it did before the byte was
	 * shared); the next connection registers the byte anew when a
	 * deregistration or the deallocation failed.
	 */
	(void) pthread_mutex_lock(&peer->flush_lock);
	int ret = peer->flush_users ? 0 : flush_delete(&peer->flush);
	(void) pthread_mutex_unlock(&peer->flush_lock);
	if (ret)
		return ret;

	int err = ibv_dealloc_pd(peer->pd);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_dealloc_pd()");
		return RPMA_E_PROVIDER;
	}

	(void) pthread_mutex_destroy(&peer->flush_lock);
	free(peer);
	*peer_ptr = NULL;
	return 0;
}

struct ibv_context *
peer_ibv_context(const struct rpma_peer *peer)
{
	return peer->pd->context;
}

struct ibv_pd *
peer_pd(const struct rpma_peer *peer)
{
	return peer->pd;
}

bool
peer_native_atomic_write(const struct rpma_peer *peer)
{
	return peer->native_atomic_write;
}

unsigned
peer_flush_caps(const struct rpma_peer *peer)
{
	return peer->flush_caps;
}

unsigned
peer_native_flush(const struct rpma_peer *peer)
{
	return peer->native_flush;
}

bool
peer_invites_native_flush(const struct rpma_peer *peer)
{
	return peer->native_flush_invited;
}

int
peer_read_dst_access(const struct rpma_peer *peer)
{
	return peer->iwarp ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
		IBV_ACCESS_LOCAL_WRITE;
}

bool
peer_windows(const struct rpma_peer *peer)
{
	return peer->windows;
}

bool
peer_windows_bounded(const struct rpma_peer *peer)
{
	return peer->windows_bounded;
}

int
peer_flush_dst_get(struct rpma_peer *peer, struct ibv_sge *sge)
{
	int ret = 0;

	(void) pthread_mutex_lock(&peer->flush_lock);
	if (peer->flush == NULL)
		ret = flush_new(peer->pd, peer_read_dst_access(peer), &peer->flush);
	if (ret == 0) {
		peer->flush_users++;
		flush_dst(peer->flush, sge);
	}
	(void) pthread_mutex_unlock(&peer->flush_lock);
	return ret;
}

void
peer_flush_dst_put(struct rpma_peer *peer)
{
	(void) pthread_mutex_lock(&peer->flush_lock);
	peer->flush_users--;
	(void) pthread_mutex_unlock(&peer->flush_lock);
}

/*
 * One registration, retried with ODP where the device offers it and
 * pinning is refused; *odp says whether the retry made it.
 */
static struct ibv_mr *
reg_mr_odp(const struct rpma_peer *peer, void *addr, size_t length, int access, bool *odp)
{
	struct ibv_mr *mr = FI_PTR(ibv_reg_mr(peer->pd, addr, length, access), ENOMEM);

	/* memory that cannot be pinned (a file on a DAX file system) is reachable with ODP */
	*odp = mr == NULL && errno == EOPNOTSUPP && peer->odp_capable && !peer->odp_refused;
	if (*odp) {
		mr = FI_PTR(ibv_reg_mr(peer->pd, addr, length, access | IBV_ACCESS_ON_DEMAND), ENOMEM);
		if (mr)
			RPMA_LOG_DEBUG("%zu bytes at %p registered with on-demand paging: the kernel "
					"does not pin them (a file on a DAX file system?)", length, addr);
	}
	return mr;
}

/* the registration failed with err: what the program can do about it (logged) */
static void
reg_failed(const struct rpma_peer *peer, void *addr, size_t length, int err)
{
	if (err == EFAULT)
		RPMA_LOG_ERROR("the kernel refused to pin %zu bytes at %p: memory mapped "
				"from an ordinary file (not DAX, not tmpfs) cannot be "
				"registered; use anonymous memory, a tmpfs or hugetlbfs "
				"file, or a DAX device", length, addr);
	else if (err == EOPNOTSUPP && peer->odp_refused)
		RPMA_LOG_ERROR("the kernel does not pin the %zu bytes at %p for long (a file "
				"on a file system mounted with -o dax is never pinned so), and the "
				"on-demand paging of soft-RoCE (%s) that could reach them places "
				"each access at the start of its page, so data would land "
				"elsewhere than written: not used unless %s=1; use a device DAX "
				"(devdax) namespace (doc/HARDWARE.md)", length, addr,
				ibv_get_device_name(peer->pd->context->device), RXE_ODP_ENV);
	else if (err == EOPNOTSUPP && !peer->odp_capable)
		RPMA_LOG_ERROR("the kernel does not pin the %zu bytes at %p for long (a file "
				"on a file system mounted with -o dax is never pinned so), and "
				"device %s offers no on-demand paging to reach them without: "
				"use a device DAX (devdax) namespace, or a kernel and device "
				"with on-demand paging (doc/HARDWARE.md)", length, addr,
				ibv_get_device_name(peer->pd->context->device));
	RPMA_LOG_PROVIDER(err, "ibv_reg_mr()");
}

int
peer_reg_mr(const struct rpma_peer *peer, void *addr, size_t length, int *access,
		struct ibv_mr **mr_ptr)
{
	/*
	 * rxe grants persistent-flush rights only on persistent memory (EINVAL
	 * on DRAM), a kernel without FLUSH no flush rights (EOPNOTSUPP): such a
	 * region is still flushed by a read after the writes, which its read
	 * right serves (the caller learns what was granted from *access).
	 */
	const int tries[] = {
		*access,
		*access & ~PEER_ACCESS_FLUSH_PERSISTENT,
		*access & ~(PEER_ACCESS_FLUSH_PERSISTENT | PEER_ACCESS_FLUSH_GLOBAL),
	};
	bool odp;
	struct ibv_mr *mr = reg_mr_odp(peer, addr, length, tries[0], &odp);
	size_t i = 0;

	while (mr == NULL && i < 2 && (errno == EINVAL || errno == EOPNOTSUPP)) {
		i++;
		if (tries[i] == tries[i - 1])
			continue;
		mr = reg_mr_odp(peer, addr, length, tries[i], &odp);
		if (mr)
			RPMA_LOG_NOTICE("%zu bytes at %p registered without the rights of a native "
					"%s FLUSH, which were refused (not persistent memory?): "
					"a flush of them is a read", length, addr,
					i == 1 ? "persistent" : "global or persistent");
	}

	if (mr == NULL) {
		reg_failed(peer, addr, length, errno);
		return RPMA_E_PROVIDER;
	}

	*access = tries[i] | (odp ? IBV_ACCESS_ON_DEMAND : 0);
	*mr_ptr = mr;
	return 0;
}

/* the extended QP's operations, where an operation is posted natively */
static void
qp_attr_send_ops(const struct rpma_peer *peer, struct ibv_qp_init_attr_ex *attr)
{
	uint64_t ops = 0;

	(void) peer;	/* a build with neither operation */
#ifdef HAVE_IBV_ATOMIC_WRITE
	if (peer->native_atomic_write)
		ops |= IBV_QP_EX_WITH_ATOMIC_WRITE;
#endif
#ifdef HAVE_IBV_FLUSH
	if (peer->native_flush)
		ops |= IBV_QP_EX_WITH_FLUSH;
#endif
	if (ops == 0)
		return;
	/* a grant binds its window on the QP (mw.c) */
	if (peer->windows)
		ops |= IBV_QP_EX_WITH_BIND_MW;
	attr->comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr->send_ops_flags = ops | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ;
}

int
peer_create_qp(const struct rpma_peer *peer, struct rdma_cm_id *id,
		const struct peer_qp_attr *qattr)
{
	struct ibv_qp_init_attr_ex attr = {
		.send_cq = qattr->cq,
		.recv_cq = qattr->rcq ? qattr->rcq : qattr->cq,
		.srq = qattr->srq,
		.cap = {
			.max_send_wr = qattr->sq_size,
			.max_recv_wr = qattr->srq ? 0 : qattr->rq_size,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = MAX_INLINE_DATA,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = peer->pd,
	};
	qp_attr_send_ops(peer, &attr);

	if (FI_NEG(rdma_create_qp_ex(id, &attr), ENOMEM)) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_qp_ex()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}
