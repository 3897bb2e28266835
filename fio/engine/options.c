// SPDX-License-Identifier: BSD-3-Clause
/*
 * options.c -- the job options of the librpma engines: the names, types and
 * defaults fio 3.33 documents for its librpma_* engines.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rpma_fio.h"

struct fio_option rpma_fio_options[] = {
	{
		.name = "serverip",
		.lname = "rpma_server_ip",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpma_fio_options, serverip),
		.help = "IP address the server listens on",
		.def = "",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "port",
		.lname = "rpma_server_port",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpma_fio_options, port),
		.help = "port of the first job; numjobs clones use the next ports",
		.def = "7204",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "direct_write_to_pmem",
		.lname = "Direct Write to PMem (via RDMA) from the remote host is possible",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct rpma_fio_options, direct_write_to_pmem),
		.help = "Set to true ONLY when Direct Write to PMem from the remote host is possible",
		.def = "",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "busy_wait_polling",
		.lname = "Set to 0 to wait for completion instead of busy-wait polling completion.",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct rpma_fio_options, busy_wait_polling),
		.help = "Set to false if you want to reduce CPU usage",
		.def = "1",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = NULL,
	},
};

int
rpma_fio_port(struct thread_data *td, char *buf, size_t size)
{
	struct rpma_fio_options *o = td->eo;
	char *end;

	errno = 0;
	unsigned long base = strtoul(o->port, &end, 10);
	unsigned long port = base + td->subjob_number;
	if (errno || end == o->port || *end != '\0' || base == 0 || port > 65535) {
		log_err("fio: port=%s: not a port number (1..65535, with numjobs=%u)\n",
				o->port, td->o.numjobs);
		return -1;
	}
	(void) snprintf(buf, size, "%lu", port);
	return 0;
}

int
rpma_fio_serverip_check(struct thread_data *td)
{
	struct rpma_fio_options *o = td->eo;

	if (o->serverip && *o->serverip)
		return 0;
	log_err("fio: %s: serverip= is required\n", td->o.name);
	td_verror(td, EINVAL, "serverip");
	return -1;
}
