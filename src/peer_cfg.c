// SPDX-License-Identifier: BSD-3-Clause
/*
 * peer_cfg.c -- the configuration a peer announces about itself.
 *
 * Its descriptor is one byte: 1 when direct write to PMem is declared,
 * 0 when not. As librpma 1.x does, a reader takes the first byte of a
 * longer buffer (private data arrives padded) and any non-zero value as
 * "declared": a byte of 2 claims nothing a byte of 1 does not.
 */

#include <stdlib.h>

#include "cfg.h"
#include "fault.h"
#include "log.h"
#include "peer_cfg.h"

#define DESCRIPTOR_SIZE 1

struct rpma_peer_cfg {
	bool direct_write_to_pmem;
};

static int
peer_cfg_alloc(bool direct_write_to_pmem, struct rpma_peer_cfg **pcfg_ptr)
{
	struct rpma_peer_cfg *pcfg = FI_PTR(malloc(sizeof(*pcfg)), ENOMEM);
	if (pcfg == NULL)
		return RPMA_E_NOMEM;

	CFG_STORE(pcfg->direct_write_to_pmem, direct_write_to_pmem);
	*pcfg_ptr = pcfg;
	return 0;
}

int
rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr)
{
	if (pcfg_ptr == NULL)
		return RPMA_E_INVAL;

	return peer_cfg_alloc(false, pcfg_ptr);
}

int
rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr)
{
	if (pcfg_ptr == NULL)
		return RPMA_E_INVAL;

	free(*pcfg_ptr);
	*pcfg_ptr = NULL;
	return 0;
}

int
rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg, bool supported)
{
	if (pcfg == NULL)
		return RPMA_E_INVAL;

	CFG_STORE(pcfg->direct_write_to_pmem, supported);
	return 0;
}

int
rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg, bool *supported)
{
	if (pcfg == NULL || supported == NULL)
		return RPMA_E_INVAL;

	*supported = CFG_LOAD(pcfg->direct_write_to_pmem);
	return 0;
}

bool
peer_cfg_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg)
{
	return CFG_LOAD(pcfg->direct_write_to_pmem);
}

int
rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg, void *desc)
{
	if (pcfg == NULL || desc == NULL)
		return RPMA_E_INVAL;

	*(uint8_t *)desc = CFG_LOAD(pcfg->direct_write_to_pmem) ? 1 : 0;
	return 0;
}

int
rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg, size_t *desc_size)
{
	if (pcfg == NULL || desc_size == NULL)
		return RPMA_E_INVAL;

	*desc_size = DESCRIPTOR_SIZE;
	return 0;
}

int
rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_peer_cfg **pcfg_ptr)
{
	if (desc == NULL || pcfg_ptr == NULL)
		return RPMA_E_INVAL;

	if (desc_size < DESCRIPTOR_SIZE) {
		RPMA_LOG_ERROR("peer configuration descriptor of %zu bytes, expected %d",
				desc_size, DESCRIPTOR_SIZE);
		return RPMA_E_INVAL;
	}

	uint8_t value = *(const uint8_t *)desc;
	return peer_cfg_alloc(value != 0, pcfg_ptr);
}
