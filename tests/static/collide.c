// SPDX-License-Identifier: BSD-3-Clause
/*
 * A static program with names of its own that librpma uses internally:
 * it must link against librpma.a (no duplicate definition) and each side
 * must call its own function.
 */

#include <librpma.h>
#include <stdio.h>

int conn_new(void);
int cq_new(void);
int flush_new(void);
int post_failed(void);

/* the application's own functions, nothing to do with librpma's */
int conn_new(void) { return 101; }
int cq_new(void) { return 102; }
int flush_new(void) { return 103; }
int post_failed(void) { return 104; }

/*
 * Referenced, never called: they pull the library's connection and CQ code
 * (which uses its own conn_new, cq_new, flush_new, post_failed) into the
 * link even from an archive of separate objects.
 */
static int (*volatile const pulled[])(void) = {
	(int (*)(void))rpma_conn_delete,
	(int (*)(void))rpma_cq_get_fd,
};

int
main(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	uint32_t cq_size = 0;

	/* rpma_conn_cfg_new runs the library's internal conn_cfg code */
	if (rpma_conn_cfg_new(&cfg) || rpma_conn_cfg_get_cq_size(cfg, &cq_size) ||
			rpma_conn_cfg_delete(&cfg) || cq_size == 0) {
		fprintf(stderr, "collide: librpma calls failed\n");
		return 1;
	}
	if (pulled[0] == NULL || pulled[1] == NULL)
		return 1;
	if (conn_new() != 101 || cq_new() != 102 || flush_new() != 103 ||
			post_failed() != 104) {
		fprintf(stderr, "collide: an application name was bound to librpma's\n");
		return 1;
	}
	printf("collide: librpma.a and the application's own names coexist\n");
	return 0;
}
