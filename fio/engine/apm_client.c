// SPDX-License-Identifier: BSD-3-Clause
/*
 * apm_client.c -- fio engine librpma_apm_client: the Appliance Persistency
 * Method. Writes go straight into the server's memory; rpma_flush() after
 * them makes them persistent when the server announced direct_write_to_pmem
 * on pmem, visible otherwise.
 */

#include "client.h"

static int
apm_flush(struct thread_data *td, struct rpma_fio_client *c, struct io_u *last,
		unsigned long long offset, unsigned long long len)
{
	int ret;

	do {
		ret = rpma_flush(c->conn, c->remote, offset, len, c->flush_type,
				RPMA_F_COMPLETION_ALWAYS, last);
	} while (ret && rpma_fio_client_sq_full(td, c, ret));
	if (ret)
		rpma_fio_err(td, "rpma_flush()", ret);
	return ret;
}

static const struct rpma_fio_client_ops apm_ops = {
	.flush = apm_flush,
};

static int
apm_client_init(struct thread_data *td)
{
	return rpma_fio_client_init(td, &apm_ops);
}

RPMA_FIO_ENGINE = {
	.name = "librpma_apm_client",
	.init = apm_client_init,
	RPMA_FIO_CLIENT_HOOKS,
};
