// SPDX-License-Identifier: BSD-3-Clause
/*
 * grant.c -- a grant: a part of a region registered for grants, reachable
 * by the peer of one connection, through that connection only. It is a
 * type-2 memory window bound on the connection's QP (mw.c), described to
 * the peer by a descriptor in the format of a region's, so that any librpma
 * client, 1.x included, uses it as a region (rpma_mr_remote_from_descriptor()).
 *
 * The grant ends with its connection: rpma_conn_delete() revokes its
 * window, and the handle stays the program's to delete.
 */

#include <stdlib.h>

#include "conn.h"
#include "fault.h"
#include "log.h"
#include "mr.h"
#include "mr_access.h"
#include "mr_desc.h"
#include "mw.h"
#include "mw_set.h"
#include "peer.h"

struct rpma_grant {
	struct mw_set *set;	/* its connection's windows; it outlives the connection */
	struct mw *mw;
	uint64_t addr;
	uint64_t length;
	int desc_usage;		/* what its descriptor shows the peer */
};

/* why mr cannot be granted with access (-1: a usage it may not carry) on peer (logged), or 0 */
static int
grant_refused(const struct rpma_peer *peer, const struct rpma_mr_local *mr, int access)
{
	if (!mr->for_grants) {
		RPMA_LOG_ERROR("the region was not registered for grants "
				"(rpma_mr_reg_for_grants()): its own key lets every peer in");
		return RPMA_E_INVAL;
	}
	if (access < 0)
		return RPMA_E_INVAL;
	if (mr->ibv_mr->pd != peer_pd(peer)) {
		RPMA_LOG_ERROR("the region and the connection belong to different peers");
		return RPMA_E_INVAL;
	}
	if (!peer_windows(peer)) {
		RPMA_LOG_ERROR("device %s binds no type-2 memory windows "
				"(IBV_DEVICE_MEM_WINDOW_TYPE_2A or _2B not set): no grant possible",
				ibv_get_device_name(peer_ibv_context(peer)->device));
		return RPMA_E_NOSUPP;
	}
	return 0;
}

/* a window over range with access, in the connection's set, bound on its QP */
static int
grant_bind(struct rpma_grant *grant, struct rpma_conn *conn, struct mw_set *set,
		const struct mw_range *range, int access)
{
	struct mw *mw;
	int ret = mw_new(conn_peer(conn), range, &mw);
	if (ret)
		return ret;
	ret = mw_set_add(set, mw);
	if (ret) {
		(void) mw_revoke(mw);
		mw_free(mw);
		return ret;
	}

	ret = mw_bind(mw, conn_qp(conn), conn_cq(conn), range, access);
	if (ret) {
		/* a bind that may still run keeps its window until the QP is gone */
		if (mw_in_flight(mw))
			mw_set_abandon(set, mw);
		else
			(void) mw_set_drop(set, &mw);
		return ret;
	}
	grant->set = set;
	grant->mw = mw;
	return 0;
}

int
rpma_grant_new(struct rpma_conn *conn, struct rpma_mr_local *mr, size_t offset, size_t len,
		int usage, struct rpma_grant **grant_ptr)
{
	if (conn == NULL || mr == NULL || grant_ptr == NULL || len == 0 ||
			!mr_range_ok(offset, len, mr->size))
		return RPMA_E_INVAL;

	struct rpma_peer *peer = conn_peer(conn);
	int access = mr_window_access(mr, usage);
	int ret = grant_refused(peer, mr, access);
	if (ret)
		return ret;

	struct mw_set *set;
	ret = conn_windows(conn, &set);
	if (ret)
		return ret;

	struct rpma_grant *grant = FI_PTR(malloc(sizeof(*grant)), ENOMEM);
	if (grant == NULL)
		return RPMA_E_NOMEM;

	struct mw_range range = {
		.mr = mr->ibv_mr,
		.mr_access = mr->access,
		.addr = (uint64_t)(uintptr_t)(mr->addr + offset),
		.length = (uint64_t)len,
		.windows = &mr->windows,
	};
	ret = grant_bind(grant, conn, set, &range, access);
	if (ret) {
		free(grant);
		return ret;
	}

	grant->addr = range.addr;
	grant->length = range.length;
	grant->desc_usage = mr_desc_usage(peer, usage, access);
	*grant_ptr = grant;
	return 0;
}

int
rpma_grant_delete(struct rpma_grant **grant_ptr)
{
	if (grant_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_grant *grant = *grant_ptr;
	if (grant == NULL)
		return 0;

	int ret = mw_set_drop(grant->set, &grant->mw);
	if (ret)
		return ret;

	free(grant);
	*grant_ptr = NULL;
	return 0;
}

int
rpma_grant_get_descriptor_size(const struct rpma_grant *grant, size_t *desc_size)
{
	if (grant == NULL || desc_size == NULL)
		return RPMA_E_INVAL;

	*desc_size = MR_DESC_SIZE;
	return 0;
}

int
rpma_grant_get_descriptor(const struct rpma_grant *grant, void *desc)
{
	if (grant == NULL || desc == NULL)
		return RPMA_E_INVAL;

	mr_desc_write(desc, grant->addr, grant->length, mw_rkey(grant->mw), grant->desc_usage);
	return 0;
}
