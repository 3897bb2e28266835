/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * private_data.h -- private data received through rdma_cm, kept in a copy
 * the library owns. The bytes come from the peer: nothing in them is used
 * but as opaque data of the length rdma_cm reports.
 */

#ifndef RPMA_PRIVATE_DATA_H
#define RPMA_PRIVATE_DATA_H

#include "rpma.h"

/* Copy len bytes at ptr into pdata; ptr NULL or len 0 store an empty one. */
int private_data_store(const void *ptr, uint8_t len, struct rpma_conn_private_data *pdata);

/* Release a stored copy; pdata becomes empty. */
void private_data_delete(struct rpma_conn_private_data *pdata);

#endif /* RPMA_PRIVATE_DATA_H */
