/* SPDX-License-Identifier: BSD-3-Clause */
/* srq.h -- what the shared RQ offers connections */

#ifndef RPMA_SRQ_H
#define RPMA_SRQ_H

#include "rpma.h"

struct ibv_srq *srq_ibv_srq(const struct rpma_srq *srq);

/* the shared receive CQ, or NULL when the shared RQ has none */
struct rpma_cq *srq_rcq(const struct rpma_srq *srq);

#endif /* RPMA_SRQ_H */
