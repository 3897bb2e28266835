// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr_access.c -- the access policy of memory regions (mr_access.h): the
 * verbs rights each usage needs, those a region for grants and a grant's
 * window get, and the usage a descriptor shows the peer.
 */

#include "log.h"
#include "mr_access.h"
#include "peer.h"

/* usages under which the peer reaches the memory: what a grant may carry */
#define USAGE_REMOTE (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | MR_USAGE_FLUSH)

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
	if (usage & (RPMA_MR_USAGE_READ_SRC | MR_USAGE_FLUSH))
		access |= IBV_ACCESS_REMOTE_READ;
	if ((usage & MR_USAGE_FLUSH) && (caps & PEER_FLUSH_GLOBAL))
		access |= PEER_ACCESS_FLUSH_GLOBAL;
	if ((usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) && (caps & PEER_FLUSH_PERSISTENT))
		access |= PEER_ACCESS_FLUSH_PERSISTENT;
	return access;
}

/* the least access each usage needs, with the FLUSH rights the device serves */
int
mr_usage_access(const struct rpma_peer *peer, int usage)
{
	int access = remote_access(usage, peer_flush_caps(peer));

	if (usage & MR_USAGE_LOCAL_WRITE)
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
 * write right a writable window needs (IBTA C10-74; mr_usage_access() gives
 * it to a write destination), and the FLUSH rights of its usages, which tell
 * what a window over it may be given (mr.c keeps none of them where no
 * window is bound over the region itself).
 */
int
mr_access_for_grants(const struct rpma_peer *peer, int usage)
{
	int access = mr_usage_access(peer, usage) &
		~(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);

	return peer_windows(peer) ? access | IBV_ACCESS_MW_BIND : access;
}

int
mr_grants_refused(const struct rpma_peer *peer, int usage)
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
			((usage & MR_USAGE_FLUSH) && !peer_invites_native_flush(peer)))
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
