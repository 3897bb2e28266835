/* SPDX-License-Identifier: BSD-3-Clause */
/* utils.h -- device facts more than one module reads */

#ifndef RPMA_UTILS_H
#define RPMA_UTILS_H

#include "rpma.h"

/* ODP usable for RC reads and writes, per the device's attributes */
bool utils_odp_capable(const struct ibv_device_attr_ex *attr);

#endif /* RPMA_UTILS_H */
