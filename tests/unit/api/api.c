// SPDX-License-Identifier: BSD-3-Clause
/*
 * api.c -- every public name of librpma.map is referenced here, so a missing
 * one fails the link; at run time the list is compared with the map itself,
 * version node by version node: librpma 1.x's 84 functions at LIBRPMA_1.0,
 * the grants at LIBRPMA_1.5.
 */

#include <stdio.h>

#include "fixtures.h"

#define PUBLIC(name) { #name, (void (*)(void))name, "LIBRPMA_1.0" },
#define PUBLIC_1_5(name) { #name, (void (*)(void))name, "LIBRPMA_1.5" },

static const struct {
	const char *name;
	void (*fn)(void);
	const char *version;
} public_api[] = {
	PUBLIC(rpma_atomic_write)
	PUBLIC(rpma_conn_apply_remote_peer_cfg)
	PUBLIC(rpma_conn_cfg_delete)
	PUBLIC(rpma_conn_cfg_get_compl_channel)
	PUBLIC(rpma_conn_cfg_get_cq_size)
	PUBLIC(rpma_conn_cfg_get_rcq_size)
	PUBLIC(rpma_conn_cfg_get_rq_size)
	PUBLIC(rpma_conn_cfg_get_sq_size)
	PUBLIC(rpma_conn_cfg_get_srq)
	PUBLIC(rpma_conn_cfg_get_timeout)
	PUBLIC(rpma_conn_cfg_new)
	PUBLIC(rpma_conn_cfg_set_compl_channel)
	PUBLIC(rpma_conn_cfg_set_cq_size)
	PUBLIC(rpma_conn_cfg_set_rcq_size)
	PUBLIC(rpma_conn_cfg_set_rq_size)
	PUBLIC(rpma_conn_cfg_set_sq_size)
	PUBLIC(rpma_conn_cfg_set_srq)
	PUBLIC(rpma_conn_cfg_set_timeout)
	PUBLIC(rpma_conn_delete)
	PUBLIC(rpma_conn_disconnect)
	PUBLIC(rpma_conn_get_compl_fd)
	PUBLIC(rpma_conn_get_cq)
	PUBLIC(rpma_conn_get_event_fd)
	PUBLIC(rpma_conn_get_private_data)
	PUBLIC(rpma_conn_get_qp_num)
	PUBLIC(rpma_conn_get_rcq)
	PUBLIC(rpma_conn_next_event)
	PUBLIC(rpma_conn_req_connect)
	PUBLIC(rpma_conn_req_delete)
	PUBLIC(rpma_conn_req_get_private_data)
	PUBLIC(rpma_conn_req_new)
	PUBLIC(rpma_conn_req_recv)
	PUBLIC(rpma_conn_wait)
	PUBLIC(rpma_cq_get_fd)
	PUBLIC(rpma_cq_get_wc)
	PUBLIC(rpma_cq_wait)
	PUBLIC(rpma_ep_get_fd)
	PUBLIC(rpma_ep_listen)
	PUBLIC(rpma_ep_next_conn_req)
	PUBLIC(rpma_ep_shutdown)
	PUBLIC(rpma_err_2str)
	PUBLIC(rpma_flush)
	PUBLIC(rpma_log_get_threshold)
	PUBLIC(rpma_log_set_function)
	PUBLIC(rpma_log_set_threshold)
	PUBLIC(rpma_mr_advise)
	PUBLIC(rpma_mr_dereg)
	PUBLIC(rpma_mr_get_descriptor)
	PUBLIC(rpma_mr_get_descriptor_size)
	PUBLIC(rpma_mr_get_ptr)
	PUBLIC(rpma_mr_get_size)
	PUBLIC(rpma_mr_reg)
	PUBLIC(rpma_mr_remote_delete)
	PUBLIC(rpma_mr_remote_from_descriptor)
	PUBLIC(rpma_mr_remote_get_flush_type)
	PUBLIC(rpma_mr_remote_get_size)
	PUBLIC(rpma_peer_cfg_delete)
	PUBLIC(rpma_peer_cfg_from_descriptor)
	PUBLIC(rpma_peer_cfg_get_descriptor)
	PUBLIC(rpma_peer_cfg_get_descriptor_size)
	PUBLIC(rpma_peer_cfg_get_direct_write_to_pmem)
	PUBLIC(rpma_peer_cfg_new)
	PUBLIC(rpma_peer_cfg_set_direct_write_to_pmem)
	PUBLIC(rpma_peer_delete)
	PUBLIC(rpma_peer_new)
	PUBLIC(rpma_read)
	PUBLIC(rpma_recv)
	PUBLIC(rpma_send)
	PUBLIC(rpma_send_with_imm)
	PUBLIC(rpma_srq_cfg_delete)
	PUBLIC(rpma_srq_cfg_get_rcq_size)
	PUBLIC(rpma_srq_cfg_get_rq_size)
	PUBLIC(rpma_srq_cfg_new)
	PUBLIC(rpma_srq_cfg_set_rcq_size)
	PUBLIC(rpma_srq_cfg_set_rq_size)
	PUBLIC(rpma_srq_delete)
	PUBLIC(rpma_srq_get_rcq)
	PUBLIC(rpma_srq_new)
	PUBLIC(rpma_srq_recv)
	PUBLIC(rpma_utils_conn_event_2str)
	PUBLIC(rpma_utils_get_ibv_context)
	PUBLIC(rpma_utils_ibv_context_is_odp_capable)
	PUBLIC(rpma_write)
	PUBLIC(rpma_write_with_imm)
	PUBLIC_1_5(rpma_grant_delete)
	PUBLIC_1_5(rpma_grant_get_descriptor)
	PUBLIC_1_5(rpma_grant_get_descriptor_size)
	PUBLIC_1_5(rpma_grant_new)
	PUBLIC_1_5(rpma_mr_reg_for_grants)
};

#define API_SIZE (sizeof(public_api) / sizeof(public_api[0]))

static const char *map_path;

/* the version node name is listed under here, or NULL when it is not listed */
static const char *
listed(const char *name)
{
	for (size_t i = 0; i < API_SIZE; i++)
		if (strcmp(public_api[i].name, name) == 0)
			return public_api[i].version;
	return NULL;
}

static size_t
count_at(const char *version)
{
	size_t n = 0;
	for (size_t i = 0; i < API_SIZE; i++)
		n += strcmp(public_api[i].version, version) == 0;
	return n;
}

static void
test_api__all_linked(void **state)
{
	(void) state;
	assert_int_equal(count_at("LIBRPMA_1.0"), 84);
	assert_int_equal(count_at("LIBRPMA_1.5"), 5);
	for (size_t i = 0; i < API_SIZE; i++) {
		assert_non_null(public_api[i].fn);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(public_api[i].name, public_api[j].name);
	}
}

/* the map exports exactly the names referenced above, each at its version node */
static void
test_api__matches_map(void **state)
{
	(void) state;
	char line[256], name[128], node[sizeof("LIBRPMA_") + sizeof(name)] = "";
	size_t in_map = 0;
	FILE *map = fopen(map_path, "r");

	assert_non_null(map);
	while (fgets(line, sizeof(line), map)) {
		if (sscanf(line, " LIBRPMA_%60[0-9.] {", name) == 1)
			(void) snprintf(node, sizeof(node), "LIBRPMA_%s", name);
		if (sscanf(line, " %127[a-z0-9_];", name) == 1 && strncmp(name, "rpma_", 5) == 0) {
			const char *version = listed(name);
			if (version == NULL)
				fail_msg("%s is exported but not referenced here", name);
			if (strcmp(version, node) != 0)
				fail_msg("%s is exported at %s, expected %s", name, node, version);
			in_map++;
		}
	}
	fclose(map);
	assert_int_equal(in_map, API_SIZE);
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		TEST(test_api__all_linked),
		TEST(test_api__matches_map),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/librpma.map\n", argv[0]);
		return 2;
	}
	map_path = argv[1];
	return RUN(tests);
}
