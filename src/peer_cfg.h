/* SPDX-License-Identifier: BSD-3-Clause */
/* peer_cfg.h -- what the peer configuration offers the connection */

#ifndef RPMA_PEER_CFG_H
#define RPMA_PEER_CFG_H

#include "rpma.h"

/* whether the peer declared direct write to PMem (pcfg must be valid) */
bool peer_cfg_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg);

#endif /* RPMA_PEER_CFG_H */
