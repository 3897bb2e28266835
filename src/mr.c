// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr.c -- a local memory region: its registration (with the access
 * mr_access.c gives its usage), its descriptor (mr_desc.c) and its
 * prefetch. The operations between regions are posted by post.h.
 */

#include <stdlib.h>

#include "fault.h"
#include "log.h"
#include "mr.h"
#include "mr_access.h"
#include "mr_desc.h"
#include "peer.h"

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
	if (usage == 0 || (usage & ~MR_USAGE_ALL))
		return RPMA_E_INVAL;

	int ret = for_grants ? mr_grants_refused(peer, usage) : 0;
	if (ret)
		return ret;

	struct rpma_mr_local *mr = FI_PTR(malloc(sizeof(*mr)), ENOMEM);
	if (mr == NULL)
		return RPMA_E_NOMEM;

	int access = for_grants ? mr_access_for_grants(peer, usage) : mr_usage_access(peer, usage);
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

	*desc_size = MR_DESC_SIZE;
	return 0;
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
		return (mr->usage & MR_USAGE_LOCAL_WRITE) != 0;
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
