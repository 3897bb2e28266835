// SPDX-License-Identifier: BSD-3-Clause
/* private_data.c -- owned copies of the private data rdma_cm hands over */

#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "private_data.h"

int
private_data_store(const void *ptr, uint8_t len, struct rpma_conn_private_data *pdata)
{
	if (ptr == NULL || len == 0) {
		pdata->ptr = NULL;
		pdata->len = 0;
		return 0;
	}

	void *copy = FI_PTR(malloc(len), ENOMEM);
	if (copy == NULL)
		return RPMA_E_NOMEM;

	memcpy(copy, ptr, len);
	pdata->ptr = copy;
	pdata->len = len;
	return 0;
}

void
private_data_delete(struct rpma_conn_private_data *pdata)
{
	free(pdata->ptr);
	pdata->ptr = NULL;
	pdata->len = 0;
}
