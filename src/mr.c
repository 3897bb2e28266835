// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr.c -- local and remote memory regions and their descriptors (the
 * operations between them are posted by post.h).
 *
 * The descriptor is 21 bytes, little-endian whatever the host:
 *   0  address   8 bytes
 *   8  length    8 bytes
 *   16 rkey      4 bytes
 *   20 usage     1 byte (RPMA_MR_USAGE_* bits)
 * It comes from the peer, so rpma_mr_remote_from_descriptor() trusts none of it.
 */

#include <arpa/inet.h>
#include <endian.h>
#include <inttypes.h>
#include <stdlib.h>

#include "fault.h"
#include "log.h"
#include "mr.h"
#include "peer.h"

#define DESC_SIZE	MR_DESC_SIZE
#define DESC_ADDR	0
#define DESC_LENGTH	8
#define DESC_RKEY	16
#define DESC_USAGE	20

#define USAGE_ALL (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST | \
		RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_WRITE_DST | \
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | \
		RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

#define USAGE_FLUSH (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)

/* usages under which the peer reaches the memory: what a grant may carry */
#define USAGE_REMOTE (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | USAGE_FLUSH)

/* usages under which the NIC writes into local memory */
#define USAGE_LOCAL_WRITE (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_DST | \
		RPMA_MR_USAGE_RECV)

/*
 * The remote rights of usage: the peer gets no right it was not given. A
 * flush usage gives the read right of a read-after-write flush (every
 * librpma peer can post one) and, for the placements in caps (PEER_FLUSH_*),
 * the rights of the native FLUSH a peer may post instead (librpma 1.3 posts
 * one where it can): GLOBAL for either type, as a visibility flush of a
 * persistent-only region may be posted as either placement.
 */
static int
remote_access(int usage, unsigned caps)
{
	int access = 0;

	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE;
	if (usage & (RPMA_MR_USAGE_READ_SRC | USAGE_FLUSH))
		access |= IBV_ACCESS_REMOTE_READ;
	if ((usage & USAGE_FLUSH) && (caps & PEER_FLUSH_GLOBAL))
		access |= PEER_ACCESS_FLUSH_GLOBAL;
	if ((usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) && (caps & PEER_FLUSH_PERSISTENT))
		access |= PEER_ACCESS_FLUSH_PERSISTENT;
	return access;
}

/* the least access each usage needs, with the FLUSH rights the device serves */
static int
usage_to_access(const struct rpma_peer *peer, int usage)
{
	int access = remote_access(usage, peer_flush_caps(peer));

	if (usage & USAGE_LOCAL_WRITE)
		access |= IBV_ACCESS_LOCAL_WRITE;
	if (usage & RPMA_MR_USAGE_READ_DST) {
		int dst = peer_read_dst_access(peer);
		if (dst & IBV_ACCESS_REMOTE_WRITE)
			RPMA_LOG_DEBUG("RPMA_MR_USAGE_READ_DST on an iWARP device: registered with "
					"IBV_ACCESS_REMOTE_WRITE, as a read's response is placed "
					"like a write");
		access |= dst;
	}
	return access;
}

/*
 * A region registered for grants has no remote read or write right of its
 * own: every QP of the protection domain may use a region's rights with its
 * key, and the key is easy to guess. It has what a window bound over it
 * needs: the right to bind one (where the device binds them), the local
 * write right a writable window needs (IBTA C10-74; usage_to_access() gives
 * it to a write destination), and the FLUSH rights of its usages, which tell
 * what a window over it may be given (grants_reg() keeps none of them where
 * no window is bound over the region itself).
 */
static int
grants_access(const struct rpma_peer *peer, int usage)
{
	int access = usage_to_access(peer, usage) &
		~(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);

	return peer_windows(peer) ? access | IBV_ACCESS_MW_BIND : access;
}

/* why usage cannot be registered for grants on peer (logged), or 0 */
static int
grants_refused(const struct rpma_peer *peer, int usage)
{
	if ((usage & RPMA_MR_USAGE_READ_DST) &&
			(peer_read_dst_access(peer) & IBV_ACCESS_REMOTE_WRITE)) {
		RPMA_LOG_ERROR("on an iWARP device a read's destination is written by the peer "
				"with the region's own key: a region for grants cannot be one "
				"(register the destination with rpma_mr_reg())");
		return RPMA_E_NOSUPP;
	}
	return 0;
}

/*
 * The usage a descriptor shows (of a region, or of a grant's window): the
 * caller's, plus RPMA_MR_USAGE_READ_SRC where a flush usage lacks the rights
 * of the native FLUSH a peer would post for it (a device without FLUSH, or
 * rights refused, as rxe refuses persistence on DRAM), or where the device
 * fails a native FLUSH sent again (rxe, see peer.c). The memory has the read
 * right of a flush usage, so the bit says what was granted, and a client of
 * this library then flushes by a read instead of a FLUSH the responder would
 * refuse with a remote access error (see librpma(7)).
 */
int
mr_desc_usage(const struct rpma_peer *peer, int usage, int access)
{
	bool global = (access & PEER_ACCESS_FLUSH_GLOBAL) != 0;
	bool persistent = (access & PEER_ACCESS_FLUSH_PERSISTENT) != 0;

	if (((usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY) && !global) ||
			((usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) && !persistent) ||
			((usage & USAGE_FLUSH) && !peer_invites_native_flush(peer)))
		return usage | RPMA_MR_USAGE_READ_SRC;
	return usage;
}

int
mr_window_access(const struct rpma_mr_local *mr, int usage)
{
	if (!mr->for_grants || usage == 0 || (usage & ~USAGE_REMOTE) || (usage & ~mr->usage))
		return -1;

	/* a window gets the FLUSH rights its region was granted (rxe: persistence on PMem only) */
	unsigned caps = ((mr->access & PEER_ACCESS_FLUSH_GLOBAL) ? PEER_FLUSH_GLOBAL : 0) |
		((mr->access & PEER_ACCESS_FLUSH_PERSISTENT) ? PEER_FLUSH_PERSISTENT : 0);
	return remote_access(usage, caps);
}

/* where the device learns the rights of a region for grants on rxe: its first page */
#define PROBE_SIZE 4096

/*
 * Register a region for grants (*access: what it was asked for, then what
 * the device granted, the record of what a window over it may get). Where
 * each window is bound over a registration of its own range (rxe, mw.c),
 * no window is bound over the region itself, and it keeps no right a peer
 * could use by its key, FLUSH's included (a FLUSH moves no byte, but a
 * peer that guessed the key could make the device write the whole region
 * back at every request): only local write. What rxe grants - persistence
 * on persistent memory only - is learnt from a registration of the
 * region's first page, asked for every right, and released at once.
 */
static int
grants_reg(const struct rpma_peer *peer, void *ptr, size_t size, int *access,
		struct ibv_mr **mr_ptr)
{
	if (peer_windows_bounded(peer))
		return peer_reg_mr(peer, ptr, size, access, mr_ptr);

	struct ibv_mr *probe;
	int ret = peer_reg_mr(peer, ptr, size < PROBE_SIZE ? size : PROBE_SIZE, access, &probe);
	if (ret)
		return ret;
	int err = ibv_dereg_mr(probe);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_dereg_mr()");
		return RPMA_E_PROVIDER;
	}
	int own = *access & IBV_ACCESS_LOCAL_WRITE;
	ret = peer_reg_mr(peer, ptr, size, &own, mr_ptr);
	if (ret == 0)
		*access |= own & IBV_ACCESS_ON_DEMAND;
	return ret;
}

static int
mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage, bool for_grants,
		struct rpma_mr_local **mr_ptr)
{
	if (peer == NULL || ptr == NULL || size == 0 || mr_ptr == NULL)
		return RPMA_E_INVAL;
	if (usage == 0 || (usage & ~USAGE_ALL))
		return RPMA_E_INVAL;

	int ret = for_grants ? grants_refused(peer, usage) : 0;
	if (ret)
		return ret;

	struct rpma_mr_local *mr = FI_PTR(malloc(sizeof(*mr)), ENOMEM);
	if (mr == NULL)
		return RPMA_E_NOMEM;

	int access = for_grants ? grants_access(peer, usage) : usage_to_access(peer, usage);
	ret = for_grants ? grants_reg(peer, ptr, size, &access, &mr->ibv_mr) :
		peer_reg_mr(peer, ptr, size, &access, &mr->ibv_mr);
	if (ret) {
		free(mr);
		return ret;
	}

	mr->addr = ptr;
	mr->size = size;
	mr->lkey = mr->ibv_mr->lkey;
	mr->usage = usage;
	mr->desc_usage = mr_desc_usage(peer, usage, access);
	mr->access = access;
	mr->for_grants = for_grants;
	mr->windows = 0;
	*mr_ptr = mr;
	return 0;
}

int
rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr)
{
	return mr_reg(peer, ptr, size, usage, false, mr_ptr);
}

int
rpma_mr_reg_for_grants(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr)
{
	return mr_reg(peer, ptr, size, usage, true, mr_ptr);
}

int
rpma_mr_dereg(struct rpma_mr_local **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_mr_local *mr = *mr_ptr;
	if (mr == NULL)
		return 0;
	/* a window outliving its region would serve memory the program reuses */
	unsigned windows = __atomic_load_n(&mr->windows, __ATOMIC_ACQUIRE);
	if (windows) {
		RPMA_LOG_ERROR("the region still has %u grant%s: delete %s (rpma_grant_delete()) "
				"or %s connection%s (rpma_conn_delete()) first", windows,
				windows == 1 ? "" : "s", windows == 1 ? "it" : "them",
				windows == 1 ? "its" : "their", windows == 1 ? "" : "s");
		return RPMA_E_INVAL;
	}

	int err = ibv_dereg_mr(mr->ibv_mr);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_dereg_mr()");
		return RPMA_E_PROVIDER;
	}

	free(mr);
	*mr_ptr = NULL;
	return 0;
}

int
rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr)
{
	if (mr == NULL || ptr == NULL)
		return RPMA_E_INVAL;

	*ptr = mr->addr;
	return 0;
}

int
rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = mr->size;
	return 0;
}

int
rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size)
{
	if (mr == NULL || desc_size == NULL)
		return RPMA_E_INVAL;

	*desc_size = DESC_SIZE;
	return 0;
}

void
mr_desc_write(void *desc, uint64_t addr, uint64_t length, uint32_t rkey, int usage)
{
	uint8_t *d = desc;

	addr = htole64(addr);
	length = htole64(length);
	rkey = htole32(rkey);
	memcpy(d + DESC_ADDR, &addr, sizeof(addr));
	memcpy(d + DESC_LENGTH, &length, sizeof(length));
	memcpy(d + DESC_RKEY, &rkey, sizeof(rkey));
	d[DESC_USAGE] = (uint8_t)usage;
}

int
rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	if (mr == NULL || desc == NULL)
		return RPMA_E_INVAL;
	if (mr->for_grants) {
		RPMA_LOG_ERROR("a region registered for grants lets no peer in by its own "
				"descriptor: send a grant's (rpma_grant_get_descriptor())");
		return RPMA_E_INVAL;
	}

	mr_desc_write(desc, (uint64_t)(uintptr_t)mr->addr, (uint64_t)mr->size,
			mr->ibv_mr->rkey, mr->desc_usage);
	return 0;
}

/* a descriptor no librpma peer could have written: no usage, empty or wrapping range */
static bool
remote_valid(const struct rpma_mr_remote *mr)
{
	if (mr->usage == 0 || (mr->usage & ~USAGE_ALL)) {
		RPMA_LOG_ERROR("remote memory descriptor: unknown usage 0x%x", mr->usage);
		return false;
	}
	if (mr->size == 0 || mr->addr + mr->size < mr->addr || mr->size > SIZE_MAX) {
		RPMA_LOG_ERROR("remote memory descriptor: impossible range 0x%" PRIx64
				" + 0x%" PRIx64, mr->addr, mr->size);
		return false;
	}
	return true;
}

/* a flush reads the region: visibility needs remote read, persistence its own usage bit */
static unsigned
remote_flush_types(int usage)
{
	unsigned types = 0;

	if (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT |
			RPMA_MR_USAGE_READ_SRC))
		types |= 1u << RPMA_FLUSH_TYPE_VISIBILITY;
	if (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
		types |= 1u << RPMA_FLUSH_TYPE_PERSISTENT;
	return types;
}

/*
 * How a flush of each type reaches the region where the connection can post
 * a native FLUSH (see librpma(7), "Native FLUSH and mixed peers"): a region
 * the peer may read is flushed by a read, which every librpma server
 * serves; otherwise by a FLUSH of the placement the server gave rights for
 * (librpma 1.3 gives a region the flush rights of its usage and no read
 * right, so a visibility flush of a persistent-only region is persistent).
 */
static void
remote_flush_place(int usage, uint8_t place[2])
{
	place[RPMA_FLUSH_TYPE_PERSISTENT] = 0;
	place[RPMA_FLUSH_TYPE_VISIBILITY] = 0;
	if (usage & RPMA_MR_USAGE_READ_SRC)
		return;
	if (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
		place[RPMA_FLUSH_TYPE_PERSISTENT] = place[RPMA_FLUSH_TYPE_VISIBILITY] =
			PEER_FLUSH_PERSISTENT;
	if (usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)
		place[RPMA_FLUSH_TYPE_VISIBILITY] = PEER_FLUSH_GLOBAL;
}

int
rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_mr_remote **mr_ptr)
{
	struct rpma_mr_remote tmp;
	uint64_t addr, length;
	uint32_t rkey;

	if (desc == NULL || mr_ptr == NULL)
		return RPMA_E_INVAL;
	/* as librpma 1.x: a longer buffer (padded private data) holds the
	 * descriptor in its first bytes */
	if (desc_size < DESC_SIZE) {
		RPMA_LOG_ERROR("remote memory descriptor of %zu bytes, expected %d",
				desc_size, DESC_SIZE);
		return RPMA_E_INVAL;
	}

	const uint8_t *d = desc;
	memcpy(&addr, d + DESC_ADDR, sizeof(addr));
	memcpy(&length, d + DESC_LENGTH, sizeof(length));
	memcpy(&rkey, d + DESC_RKEY, sizeof(rkey));
	tmp.addr = le64toh(addr);
	tmp.size = le64toh(length);
	tmp.rkey = le32toh(rkey);
	tmp.usage = d[DESC_USAGE];
	if (!remote_valid(&tmp))
		return RPMA_E_NOSUPP;
	tmp.flush_types = remote_flush_types(tmp.usage);
	remote_flush_place(tmp.usage, tmp.flush_place);

	struct rpma_mr_remote *mr = FI_PTR(malloc(sizeof(*mr)), ENOMEM);
	if (mr == NULL)
		return RPMA_E_NOMEM;

	*mr = tmp;
	*mr_ptr = mr;
	return 0;
}

int
rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = (size_t)mr->size;
	return 0;
}

int
rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type)
{
	if (mr == NULL || flush_type == NULL)
		return RPMA_E_INVAL;

	*flush_type = mr->usage &
		(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	return 0;
}

int
rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	free(*mr_ptr);
	*mr_ptr = NULL;
	return 0;
}

static int
advise_args_valid(const struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags)
{
	if (!mr_range_ok(offset, len, mr->size))
		return 0;
	if (flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH)
		return 0;
	switch (advice) {
	case IBV_ADVISE_MR_ADVICE_PREFETCH:
	case IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		return 1;
	case IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		return (mr->usage & USAGE_LOCAL_WRITE) != 0;
	default:
		return 0;
	}
}

int
rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags)
{
	if (mr == NULL || !advise_args_valid(mr, offset, len, advice, flags))
		return RPMA_E_INVAL;
	if (len > UINT32_MAX)
		return RPMA_E_INVAL;

	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)(mr->addr + offset),
		.length = (uint32_t)len,
		.lkey = mr->lkey,
	};

	int err = FI_ERR(ibv_advise_mr(mr->ibv_mr->pd, (enum ibv_advise_mr_advice)advice, flags,
			&sge, 1), EIO);
	if (err == 0)
		return 0;

	RPMA_LOG_PROVIDER(err, "ibv_advise_mr()");
	if (err == EOPNOTSUPP || err == ENOTSUP)
		return RPMA_E_NOSUPP;
	if (err == EINVAL || err == EFAULT)
		return RPMA_E_INVAL;
	return RPMA_E_PROVIDER;
}
