// SPDX-License-Identifier: BSD-3-Clause
/* a user's program: builds against the installed librpma and calls into it */

#include <librpma.h>
#include <stdio.h>
#include <string.h>

int
main(void)
{
	struct rpma_conn_cfg *cfg;
	uint32_t cq_size = 0;

	if (rpma_conn_cfg_new(&cfg) || rpma_conn_cfg_get_cq_size(cfg, &cq_size) ||
			rpma_conn_cfg_delete(&cfg))
		return 1;
	if (cq_size != 10 || strcmp(rpma_err_2str(RPMA_E_INVAL), "Invalid argument") != 0)
		return 1;
	printf("librpma consumer OK\n");
	return 0;
}
