// SPDX-License-Identifier: BSD-3-Clause
/* conn_cfg.c -- the connection configuration: queue sizes, timeout, sharing */

#include <stdlib.h>

#include "cfg.h"
#include "fault.h"
#include "conn_cfg.h"

struct rpma_conn_cfg {
	int timeout_ms;
	uint32_t cq_size;
	uint32_t rcq_size;
	uint32_t sq_size;
	uint32_t rq_size;
	bool shared_channel;
	struct rpma_srq *srq;
};

static const struct rpma_conn_cfg defaults = {
	.timeout_ms = RPMA_DEFAULT_TIMEOUT_MS,
	.cq_size = 10,
	.rcq_size = 0,
	.sq_size = 10,
	.rq_size = 10,
	.shared_channel = false,
	.srq = NULL,
};

const struct rpma_conn_cfg *
conn_cfg_default(void)
{
	return &defaults;
}

int
rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn_cfg *cfg = FI_PTR(malloc(sizeof(*cfg)), ENOMEM);
	if (cfg == NULL)
		return RPMA_E_NOMEM;

	*cfg = defaults;
	*cfg_ptr = cfg;
	return 0;
}

int
rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

int
rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms)
{
	if (cfg == NULL || timeout_ms < 0)
		return RPMA_E_INVAL;

	CFG_STORE(cfg->timeout_ms, timeout_ms);
	return 0;
}

int
rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg, int *timeout_ms)
{
	if (cfg == NULL || timeout_ms == NULL)
		return RPMA_E_INVAL;

	*timeout_ms = CFG_LOAD(cfg->timeout_ms);
	return 0;
}

/* the setters and getters of the four queue sizes differ only in the field */
#define QUEUE_SIZE_ACCESSORS(field) \
int \
rpma_conn_cfg_set_##field(struct rpma_conn_cfg *cfg, uint32_t field) \
{ \
	if (cfg == NULL) \
		return RPMA_E_INVAL; \
	CFG_STORE(cfg->field, field); \
	return 0; \
} \
int \
rpma_conn_cfg_get_##field(const struct rpma_conn_cfg *cfg, uint32_t *field) \
{ \
	if (cfg == NULL || field == NULL) \
		return RPMA_E_INVAL; \
	*field = CFG_LOAD(cfg->field); \
	return 0; \
} \
uint32_t \
conn_cfg_##field(const struct rpma_conn_cfg *cfg) \
{ \
	return CFG_LOAD(cfg->field); \
}

QUEUE_SIZE_ACCESSORS(cq_size)
QUEUE_SIZE_ACCESSORS(rcq_size)
QUEUE_SIZE_ACCESSORS(sq_size)
QUEUE_SIZE_ACCESSORS(rq_size)

int
rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared)
{
	if (cfg == NULL)
		return RPMA_E_INVAL;

	CFG_STORE(cfg->shared_channel, shared);
	return 0;
}

int
rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg, bool *shared)
{
	if (cfg == NULL || shared == NULL)
		return RPMA_E_INVAL;

	*shared = CFG_LOAD(cfg->shared_channel);
	return 0;
}

int
rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq)
{
	if (cfg == NULL)
		return RPMA_E_INVAL;

	CFG_STORE(cfg->srq, srq);
	return 0;
}

int
rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr)
{
	if (cfg == NULL || srq_ptr == NULL)
		return RPMA_E_INVAL;

	*srq_ptr = CFG_LOAD(cfg->srq);
	return 0;
}

int
conn_cfg_timeout(const struct rpma_conn_cfg *cfg)
{
	return CFG_LOAD(cfg->timeout_ms);
}

bool
conn_cfg_shared_channel(const struct rpma_conn_cfg *cfg)
{
	return CFG_LOAD(cfg->shared_channel);
}

struct rpma_srq *
conn_cfg_srq(const struct rpma_conn_cfg *cfg)
{
	return CFG_LOAD(cfg->srq);
}
