// SPDX-License-Identifier: BSD-3-Clause
/* info.c -- rdma_getaddrinfo() for the TCP port space, with its failure logged */

#include "fault.h"
#include "info.h"
#include "log.h"

int
info_new(const char *addr, const char *port, bool passive, struct rdma_addrinfo **rai_ptr)
{
	struct rdma_addrinfo hints = {
		.ai_flags = passive ? RAI_PASSIVE : 0,
		.ai_qp_type = IBV_QPT_RC,
		.ai_port_space = RDMA_PS_TCP,
	};

	if (FI_NEG(rdma_getaddrinfo(addr, port, &hints, rai_ptr), EADDRNOTAVAIL)) {
		int err = errno;
		RPMA_LOG_ERROR("rdma_getaddrinfo(%s, %s) failed: %s", addr, port ? port : "NULL",
				strerror(err));
		errno = err;
		return RPMA_E_PROVIDER;
	}
	return 0;
}

void
info_delete(struct rdma_addrinfo **rai_ptr)
{
	rdma_freeaddrinfo(*rai_ptr);
	*rai_ptr = NULL;
}
