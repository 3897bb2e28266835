// SPDX-License-Identifier: BSD-3-Clause
/* utils.c -- device lookup by address, ODP detection, event names */

#include <rdma/rdma_cma.h>

#include "fault.h"
#include "info.h"
#include "log.h"
#include "utils.h"

bool
utils_odp_capable(const struct ibv_device_attr_ex *attr)
{
	uint32_t needed = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;

	return (attr->odp_caps.general_caps & IBV_ODP_SUPPORT) &&
		(attr->odp_caps.per_transport_caps.rc_odp_caps & needed) == needed;
}

int
rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx, int *is_odp_capable)
{
	struct ibv_device_attr_ex attr;

	if (ibv_ctx == NULL || is_odp_capable == NULL)
		return RPMA_E_INVAL;

	int err = FI_ERR(ibv_query_device_ex(ibv_ctx, NULL, &attr), EIO);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_query_device_ex()");
		return RPMA_E_PROVIDER;
	}

	*is_odp_capable = utils_odp_capable(&attr);
	return 0;
}

/* bind (local) or resolve (remote) a throw-away id: either way it learns the device */
static int
id_find_device(struct rdma_cm_id *id, struct rdma_addrinfo *rai,
		enum rpma_util_ibv_context_type type)
{
	if (type == RPMA_UTIL_IBV_CONTEXT_LOCAL) {
		if (FI_NEG(rdma_bind_addr(id, rai->ai_src_addr), EADDRINUSE)) {
			RPMA_LOG_PROVIDER(errno, "rdma_bind_addr()");
			return RPMA_E_PROVIDER;
		}
	} else if (FI_NEG(rdma_resolve_addr(id, rai->ai_src_addr, rai->ai_dst_addr,
			RPMA_DEFAULT_TIMEOUT_MS), ETIMEDOUT)) {
		RPMA_LOG_PROVIDER(errno, "rdma_resolve_addr()");
		return RPMA_E_PROVIDER;
	}
	return 0;
}

int
rpma_utils_get_ibv_context(const char *addr, enum rpma_util_ibv_context_type type,
		struct ibv_context **ibv_ctx_ptr)
{
	struct rdma_addrinfo *rai;
	struct rdma_cm_id *id;

	if (addr == NULL || ibv_ctx_ptr == NULL)
		return RPMA_E_INVAL;
	if (type != RPMA_UTIL_IBV_CONTEXT_LOCAL && type != RPMA_UTIL_IBV_CONTEXT_REMOTE)
		return RPMA_E_INVAL;

	int ret = info_new(addr, NULL, type == RPMA_UTIL_IBV_CONTEXT_LOCAL, &rai);
	if (ret)
		return ret;

	if (FI_NEG(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), ENOMEM)) {
		RPMA_LOG_PROVIDER(errno, "rdma_create_id()");
		ret = RPMA_E_PROVIDER;
		goto err_info_delete;
	}

	ret = id_find_device(id, rai, type);
	if (ret == 0 && id->verbs == NULL) {
		RPMA_LOG_ERROR("no RDMA device serves %s", addr);
		ret = RPMA_E_PROVIDER;
	}
	/* librdmacm keeps device contexts open for the process: the context outlives the id */
	if (ret == 0)
		*ibv_ctx_ptr = id->verbs;

	int err = errno;
	(void) rdma_destroy_id(id);
	errno = err;
err_info_delete:
	info_delete(&rai);
	return ret;
}

const char *
rpma_utils_conn_event_2str(enum rpma_conn_event conn_event)
{
	switch (conn_event) {
	case RPMA_CONN_UNDEFINED:
		return "Undefined connection event";
	case RPMA_CONN_ESTABLISHED:
		return "Connection established";
	case RPMA_CONN_CLOSED:
		return "Connection closed";
	case RPMA_CONN_LOST:
		return "Connection lost";
	case RPMA_CONN_REJECTED:
		return "Connection rejected";
	case RPMA_CONN_UNREACHABLE:
		return "Connection unreachable";
	default:
		return "Unsupported connection event";
	}
}
