/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr_access.h -- the access policy of memory regions: which verbs access
 * flags each RPMA_MR_USAGE_* needs, on which device, for a region, a
 * region for grants and a grant's window, and what a descriptor shows the
 * peer of them. Every rule a remote peer's reach depends on is here.
 */

#ifndef RPMA_MR_ACCESS_H
#define RPMA_MR_ACCESS_H

#include "mr.h"

#define MR_USAGE_ALL (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST | \
		RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_WRITE_DST | \
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | \
		RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

#define MR_USAGE_FLUSH (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | \
		RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)

/* usages under which the NIC writes into local memory */
#define MR_USAGE_LOCAL_WRITE (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_DST | \
		RPMA_MR_USAGE_RECV)

/* The least access a region of usage needs on peer's device. */
int mr_usage_access(const struct rpma_peer *peer, int usage);

/*
 * The access a region for grants of usage is asked for on peer's device: no
 * remote read or write right of its own (see mr_access.c).
 */
int mr_access_for_grants(const struct rpma_peer *peer, int usage);

/* RPMA_E_NOSUPP (logged) where usage cannot be registered for grants on peer, or 0 */
int mr_grants_refused(const struct rpma_peer *peer, int usage);

/*
 * The access a window over mr needs for usage, or -1 when usage is not a
 * non-empty subset of the remote usages (read source, write destination,
 * flush) mr was registered for grants with.
 */
int mr_window_access(const struct rpma_mr_local *mr, int usage);

/*
 * The usage the descriptor of a region or window with access shows the
 * peer: usage, plus RPMA_MR_USAGE_READ_SRC where a flush usage lacks the
 * rights of the native FLUSH a peer would post for it (see mr_access.c).
 */
int mr_desc_usage(const struct rpma_peer *peer, int usage, int access);

#endif /* RPMA_MR_ACCESS_H */
