/* SPDX-License-Identifier: BSD-3-Clause */
/* info.h -- address resolution for endpoints, requests and device lookup */

#ifndef RPMA_INFO_H
#define RPMA_INFO_H

#include <rdma/rdma_cma.h>

#include "rpma.h"

/* resolve addr:port (port may be NULL) for a passive (bind) or active (connect) side */
int info_new(const char *addr, const char *port, bool passive, struct rdma_addrinfo **rai_ptr);

void info_delete(struct rdma_addrinfo **rai_ptr);

#endif /* RPMA_INFO_H */
