/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_cfg.h -- the connection configuration as the connection code reads it */

#ifndef RPMA_CONN_CFG_H
#define RPMA_CONN_CFG_H

#include "rpma.h"

/* the defaults, for callers that pass no configuration */
const struct rpma_conn_cfg *conn_cfg_default(void);

int conn_cfg_timeout(const struct rpma_conn_cfg *cfg);
uint32_t conn_cfg_cq_size(const struct rpma_conn_cfg *cfg);
uint32_t conn_cfg_rcq_size(const struct rpma_conn_cfg *cfg);
uint32_t conn_cfg_sq_size(const struct rpma_conn_cfg *cfg);
uint32_t conn_cfg_rq_size(const struct rpma_conn_cfg *cfg);
bool conn_cfg_shared_channel(const struct rpma_conn_cfg *cfg);
struct rpma_srq *conn_cfg_srq(const struct rpma_conn_cfg *cfg);

#endif /* RPMA_CONN_CFG_H */
