// SPDX-License-Identifier: BSD-3-Clause
/* utils.c -- unit tests of src/utils.c: ODP detection, device lookup, event names */

#include <errno.h>

#include "fixtures.h"
#include "utils.h"

static void
test_utils_ibv_context_is_odp_capable__all(void **state)
{
	(void) state;
	int capable = 7;

	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(NULL, &capable), RPMA_E_INVAL);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_ctx(), NULL),
			RPMA_E_INVAL);
	MOCK_FAIL(ibv_query_device_ex, EIO, 0);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_ctx(), &capable),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_int_equal(capable, 7);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_ctx(), &capable), 0);
	assert_int_equal(capable, 0);
	mock_device_set_odp(1);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(mock_ibv_ctx(), &capable), 0);
	assert_int_equal(capable, 1);
}

/* ODP counts only with both RC reads and writes */
static void
test_utils_odp_capable__caps(void **state)
{
	(void) state;
	struct ibv_device_attr_ex attr = {0};

	attr.odp_caps.general_caps = IBV_ODP_SUPPORT;
	attr.odp_caps.per_transport_caps.rc_odp_caps = IBV_ODP_SUPPORT_WRITE;
	assert_false(utils_odp_capable(&attr));
	attr.odp_caps.per_transport_caps.rc_odp_caps |= IBV_ODP_SUPPORT_READ;
	assert_true(utils_odp_capable(&attr));
	attr.odp_caps.general_caps = 0;
	assert_false(utils_odp_capable(&attr));
}

static void
test_utils_get_ibv_context__invalid(void **state)
{
	(void) state;
	struct ibv_context *ctx = (struct ibv_context *)0x1;

	assert_int_equal(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
			RPMA_E_INVAL);
	assert_int_equal(rpma_utils_get_ibv_context("192.0.2.1", RPMA_UTIL_IBV_CONTEXT_LOCAL,
			NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_utils_get_ibv_context("192.0.2.1",
			(enum rpma_util_ibv_context_type)7, &ctx), RPMA_E_INVAL);
	assert_ptr_equal(ctx, (struct ibv_context *)0x1);
	assert_int_equal(CALLS(rdma_getaddrinfo), 0);
}

static void
test_utils_get_ibv_context__local(void **state)
{
	(void) state;
	struct ibv_context *ctx = NULL;

	assert_int_equal(rpma_utils_get_ibv_context("192.0.2.1", RPMA_UTIL_IBV_CONTEXT_LOCAL,
			&ctx), 0);
	assert_ptr_equal(ctx, mock_ibv_ctx());
	assert_true(mock_rec.hints.ai_flags & RAI_PASSIVE);
	assert_int_equal(CALLS(rdma_bind_addr), 1);
	assert_int_equal(CALLS(rdma_resolve_addr), 0);
	/* the throw-away id and the address info are released */
	assert_int_equal(CALLS(rdma_destroy_id), 1);
	assert_int_equal(CALLS(rdma_freeaddrinfo), 1);
	assert_true(ORDER(rdma_destroy_id) < ORDER(rdma_freeaddrinfo));
}

static void
test_utils_get_ibv_context__remote(void **state)
{
	(void) state;
	struct ibv_context *ctx = NULL;

	assert_int_equal(rpma_utils_get_ibv_context("192.0.2.1", RPMA_UTIL_IBV_CONTEXT_REMOTE,
			&ctx), 0);
	assert_ptr_equal(ctx, mock_ibv_ctx());
	assert_int_equal(mock_rec.hints.ai_flags & RAI_PASSIVE, 0);
	assert_int_equal(CALLS(rdma_resolve_addr), 1);
	assert_int_equal(mock_rec.resolve_timeout, RPMA_DEFAULT_TIMEOUT_MS);
	assert_int_equal(CALLS(rdma_bind_addr), 0);
}

static void
test_utils_get_ibv_context__fails(void **state)
{
	(void) state;
	static const struct { enum mock_fn fn; enum rpma_util_ibv_context_type type; } steps[] = {
		{MOCK_rdma_getaddrinfo, RPMA_UTIL_IBV_CONTEXT_LOCAL},
		{MOCK_rdma_create_id, RPMA_UTIL_IBV_CONTEXT_LOCAL},
		{MOCK_rdma_bind_addr, RPMA_UTIL_IBV_CONTEXT_LOCAL},
		{MOCK_rdma_resolve_addr, RPMA_UTIL_IBV_CONTEXT_REMOTE},
	};
	struct ibv_context *ctx = (struct ibv_context *)0x1;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		mock_calls_reset();
		mock_plan(steps[i].fn, 1, -1, ENODEV);
		assert_int_equal(rpma_utils_get_ibv_context("192.0.2.1", steps[i].type, &ctx),
				RPMA_E_PROVIDER);
		assert_int_equal(errno, ENODEV);
		assert_ptr_equal(ctx, (struct ibv_context *)0x1);
		assert_int_equal(CALLS(rdma_freeaddrinfo), i >= 1);
		assert_int_equal(CALLS(rdma_destroy_id), i >= 2);
	}
}

static void
test_utils_get_ibv_context__no_device(void **state)
{
	(void) state;
	struct ibv_context *ctx = (struct ibv_context *)0x1;

	mock_cm_id_set_verbs(NULL);
	assert_int_equal(rpma_utils_get_ibv_context("192.0.2.1", RPMA_UTIL_IBV_CONTEXT_LOCAL,
			&ctx), RPMA_E_PROVIDER);
	assert_ptr_equal(ctx, (struct ibv_context *)0x1);
	assert_int_equal(CALLS(rdma_destroy_id), 1);
}

static void
test_utils_conn_event_2str__all(void **state)
{
	(void) state;
	static const enum rpma_conn_event events[] = {
		RPMA_CONN_UNDEFINED, RPMA_CONN_ESTABLISHED, RPMA_CONN_CLOSED, RPMA_CONN_LOST,
		RPMA_CONN_REJECTED, RPMA_CONN_UNREACHABLE,
	};
	const size_t n = sizeof(events) / sizeof(events[0]);
	const char *unknown = rpma_utils_conn_event_2str((enum rpma_conn_event)99);

	assert_non_null(unknown);
	assert_string_equal(rpma_utils_conn_event_2str(RPMA_CONN_ESTABLISHED),
			"Connection established");
	for (size_t i = 0; i < n; i++) {
		const char *s = rpma_utils_conn_event_2str(events[i]);
		assert_non_null(s);
		assert_string_not_equal(s, unknown);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(s, rpma_utils_conn_event_2str(events[j]));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_utils_ibv_context_is_odp_capable__all),
		TEST(test_utils_odp_capable__caps),
		TEST(test_utils_get_ibv_context__invalid),
		TEST(test_utils_get_ibv_context__local),
		TEST(test_utils_get_ibv_context__remote),
		TEST(test_utils_get_ibv_context__fails),
		TEST(test_utils_get_ibv_context__no_device),
		TEST(test_utils_conn_event_2str__all),
	};
	return RUN(tests);
}
