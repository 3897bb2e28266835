// SPDX-License-Identifier: BSD-3-Clause
/*
 * mr_descriptor_round_trip.c -- rpma_mr_get_descriptor() (mr.c) writes a
 * descriptor that rpma_mr_remote_from_descriptor() reads back as the same
 * region.
 *
 * Proven for every local region rpma_mr_reg() accepts (any size the
 * allocator can give, any usage, any keys the provider assigns, the rights
 * of a native FLUSH granted or refused):
 * - rpma_mr_get_descriptor() writes nothing outside a buffer of the
 *   rpma_mr_get_descriptor_size() bytes;
 * - rpma_mr_remote_from_descriptor() accepts it (unless the allocation
 *   fails) and the remote region has the local region's address, size,
 *   rkey and usage, the usage with RPMA_MR_USAGE_READ_SRC added exactly
 *   where a flush usage lacks the rights of a native FLUSH (a device
 *   without FLUSH, or rights refused: the peer then flushes by a read; the
 *   stub device is not soft-RoCE, on which every flush usage shows it);
 * - no undefined behaviour and, once all is deleted, no leak.
 */

#include <stdlib.h>

#include "fixtures.h"

int
main(void)
{
	struct rpma_peer *peer = fixture_peer();
	struct rpma_mr_local *local = fixture_local(peer);
	int granted = stub_last_access;
	bool lacking = ((local->usage & RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY) &&
			!(granted & IBV_ACCESS_FLUSH_GLOBAL)) ||
		((local->usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) &&
			!(granted & IBV_ACCESS_FLUSH_PERSISTENT));
	int shown = lacking ? local->usage | RPMA_MR_USAGE_READ_SRC : local->usage;
	struct rpma_mr_remote *remote = NULL;
	size_t desc_size = 0;
	void *ptr = NULL;
	size_t size = 0;

	__CPROVER_assert(rpma_mr_get_descriptor_size(local, &desc_size) == 0,
			"the descriptor's size is known");
	uint8_t *desc = malloc(desc_size);
	__CPROVER_assume(desc != NULL);
	__CPROVER_assert(rpma_mr_get_descriptor(local, desc) == 0, "the descriptor is written");

	int ret = rpma_mr_remote_from_descriptor(desc, desc_size, &remote);
	__CPROVER_assert(ret == 0 || ret == RPMA_E_NOMEM,
			"the peer accepts every descriptor of a registered region");
	if (ret == 0) {
		WITNESS("a descriptor is read back");
		__CPROVER_assert(rpma_mr_get_ptr(local, &ptr) == 0 &&
				rpma_mr_get_size(local, &size) == 0, "the local region is known");
		__CPROVER_assert(remote->addr == (uint64_t)(uintptr_t)ptr &&
				remote->size == size && remote->rkey == local->ibv_mr->rkey,
				"the remote region is the local one: address, size, rkey");
		__CPROVER_assert(remote->usage == shown, "the remote region has the usage "
				"granted: READ_SRC added where native FLUSH rights lack");
		if (lacking && !(local->usage & RPMA_MR_USAGE_READ_SRC))
			WITNESS("a region without native FLUSH rights shows READ_SRC");
		__CPROVER_assert(rpma_mr_remote_delete(&remote) == 0,
				"the remote region is deleted");
	}

	free(desc);
	ptr = local->addr;
	__CPROVER_assert(rpma_mr_dereg(&local) == 0 && rpma_peer_delete(&peer) == 0,
			"the region and the peer are deleted");
	free(ptr);
	return 0;
}
