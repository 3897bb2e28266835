/* SPDX-License-Identifier: BSD-3-Clause */
/* srq_cfg.h -- the shared RQ configuration as rpma_srq_new() reads it */

#ifndef RPMA_SRQ_CFG_H
#define RPMA_SRQ_CFG_H

#include "rpma.h"

const struct rpma_srq_cfg *srq_cfg_default(void);
uint32_t srq_cfg_rq_size(const struct rpma_srq_cfg *cfg);
uint32_t srq_cfg_rcq_size(const struct rpma_srq_cfg *cfg);

#endif /* RPMA_SRQ_CFG_H */
