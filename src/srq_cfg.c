// SPDX-License-Identifier: BSD-3-Clause
/* srq_cfg.c -- the shared RQ configuration: the RQ and receive CQ sizes */

#include <stdlib.h>

#include "cfg.h"
#include "fault.h"
#include "srq_cfg.h"

struct rpma_srq_cfg {
	uint32_t rq_size;
	uint32_t rcq_size;
};

static const struct rpma_srq_cfg defaults = {
	.rq_size = 100,
	.rcq_size = 100,
};

const struct rpma_srq_cfg *
srq_cfg_default(void)
{
	return &defaults;
}

int
rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_srq_cfg *cfg = FI_PTR(malloc(sizeof(*cfg)), ENOMEM);
	if (cfg == NULL)
		return RPMA_E_NOMEM;

	*cfg = defaults;
	*cfg_ptr = cfg;
	return 0;
}

int
rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

int
rpma_srq_cfg_set_rq_size(struct rpma_srq_cfg *cfg, uint32_t rq_size)
{
	if (cfg == NULL)
		return RPMA_E_INVAL;

	CFG_STORE(cfg->rq_size, rq_size);
	return 0;
}

int
rpma_srq_cfg_get_rq_size(const struct rpma_srq_cfg *cfg, uint32_t *rq_size)
{
	if (cfg == NULL || rq_size == NULL)
		return RPMA_E_INVAL;

	*rq_size = CFG_LOAD(cfg->rq_size);
	return 0;
}

int
rpma_srq_cfg_set_rcq_size(struct rpma_srq_cfg *cfg, uint32_t rcq_size)
{
	if (cfg == NULL)
		return RPMA_E_INVAL;

	CFG_STORE(cfg->rcq_size, rcq_size);
	return 0;
}

int
rpma_srq_cfg_get_rcq_size(const struct rpma_srq_cfg *cfg, uint32_t *rcq_size)
{
	if (cfg == NULL || rcq_size == NULL)
		return RPMA_E_INVAL;

	*rcq_size = CFG_LOAD(cfg->rcq_size);
	return 0;
}

uint32_t
srq_cfg_rq_size(const struct rpma_srq_cfg *cfg)
{
	return CFG_LOAD(cfg->rq_size);
}

uint32_t
srq_cfg_rcq_size(const struct rpma_srq_cfg *cfg)
{
	return CFG_LOAD(cfg->rcq_size);
}
