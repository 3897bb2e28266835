// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr_remote.c -- a remote memory region: what the peer's descriptor
 * (mr_desc.c) says, checked, and how a flush of each type reaches it.
 */

#include <inttypes.h>
#include <stdlib.h>

#include "fault.h"
#include "log.h"
#include "mr_access.h"
#include "mr_desc.h"
#include "peer.h"

/*
 * Whether a librpma peer could have written the descriptor: a known, non-empty
 * usage and a non-empty range that does not wrap and fits a size_t; logged
 * where not.
 */
static bool
remote_valid(const struct rpma_mr_remote *mr)
{
	if (mr->usage == 0 || (mr->usage & ~MR_USAGE_ALL)) {
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
	struct mr_desc desc_read;

	if (desc == NULL || mr_ptr == NULL)
		return RPMA_E_INVAL;
	/* as librpma 1.x: a longer buffer (padded private data) holds the
	 * descriptor in its first bytes */
	if (desc_size < MR_DESC_SIZE) {
		RPMA_LOG_ERROR("remote memory descriptor of %zu bytes, expected %d",
				desc_size, MR_DESC_SIZE);
		return RPMA_E_INVAL;
	}

	mr_desc_read(desc, &desc_read);
	tmp.addr = desc_read.addr;
	tmp.size = desc_read.length;
	tmp.rkey = desc_read.rkey;
	tmp.usage = desc_read.usage;
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
