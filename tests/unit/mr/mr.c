// SPDX-License-Identifier: BSD-3-Clause
/* mr.c -- unit tests of src/mr.c: registration, access, descriptors, advise */

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>

#include "fixtures.h"
#include "mr.h"
#include "mr_access.h"
#include "peer.h"

/* device_cap_flags_ex: FLUSH of global and of persistent placement (kernel ABI) */
#define CAP_FLUSH_GLOBAL	(1ULL << 38)
#define CAP_FLUSH_PERSISTENT	(1ULL << 39)
#define RIGHTS_FLUSH_GLOBAL	(1 << 8)	/* IBV_ACCESS_FLUSH_GLOBAL */
#define RIGHTS_FLUSH_PERSISTENT	(1 << 9)	/* IBV_ACCESS_FLUSH_PERSISTENT */
#define VIS RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY
#define PERS RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT

#define BUF_SIZE 4096
static char buf[BUF_SIZE];

static void
test_mr_reg__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = (struct rpma_mr_local *)0x1;
	int u = RPMA_MR_USAGE_READ_SRC;

	assert_int_equal(rpma_mr_reg(NULL, buf, BUF_SIZE, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, NULL, BUF_SIZE, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, 0, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, u, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, 0, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, 1 << 8, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, -1, &mr), RPMA_E_INVAL);
	assert_ptr_equal(mr, (struct rpma_mr_local *)0x1);
	assert_int_equal(CALLS(ibv_reg_mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* each usage gets the least access it needs */
static void
test_mr_reg__usage_to_access(void **state)
{
	(void) state;
	static const struct { int usage; int access; } map[] = {
		{RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_READ_DST, IBV_ACCESS_LOCAL_WRITE},
		{RPMA_MR_USAGE_WRITE_SRC, 0},
		{RPMA_MR_USAGE_WRITE_DST, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
		{RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_SEND, 0},
		{RPMA_MR_USAGE_RECV, IBV_ACCESS_LOCAL_WRITE},
		{RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_REMOTE_READ},
	};
	struct rpma_peer *peer = fx_peer();

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_calls_reset();
		struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, map[i].usage);
		assert_int_equal(mock_rec.reg_access[0], map[i].access);
		assert_ptr_equal(mock_rec.reg_addr, buf);
		assert_int_equal(mock_rec.reg_length, BUF_SIZE);
		assert_int_equal(rpma_mr_dereg(&mr), 0);
	}
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* where the device serves FLUSH, a flush usage adds the rights of that placement */
static void
test_mr_reg__flush_rights(void **state)
{
	(void) state;
	static const struct { uint64_t caps; int usage; int access; } map[] = {
		{CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT, VIS,
			IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL},
		{CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT, PERS,
			IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL | RIGHTS_FLUSH_PERSISTENT},
		{CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT, RPMA_MR_USAGE_READ_SRC,
			IBV_ACCESS_REMOTE_READ},
		{CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT, RPMA_MR_USAGE_WRITE_DST,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
		{CAP_FLUSH_GLOBAL, PERS, IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL},
		{CAP_FLUSH_PERSISTENT, VIS | PERS, IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_PERSISTENT},
		{0, VIS | PERS, IBV_ACCESS_REMOTE_READ},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_device_set_caps_ex(map[i].caps);
		struct rpma_peer *peer = fx_peer();
		mock_calls_reset();
		struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, map[i].usage);
		assert_int_equal(mock_rec.reg_access[0], map[i].access);
		assert_int_equal(CALLS(ibv_reg_mr), 1);
		assert_int_equal(rpma_mr_dereg(&mr), 0);
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
}

/* persistent-flush rights refused (rxe on DRAM): the region is registered without them */
static void
test_mr_reg__flush_rights_refused(void **state)
{
	(void) state;
	mock_device_set_caps_ex(CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;
	int all = IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL | RIGHTS_FLUSH_PERSISTENT;

	MOCK_FAIL(ibv_reg_mr, 0, EINVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, PERS, &mr), 0);
	assert_int_equal(CALLS(ibv_reg_mr), 2);
	assert_int_equal(mock_rec.reg_access[0], all);
	assert_int_equal(mock_rec.reg_access[1], IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	/* no flush right at all (a kernel without FLUSH): the read right stays */
	mock_calls_reset();
	MOCK_FAIL(ibv_reg_mr, 0, EOPNOTSUPP);
	MOCK_FAIL_NTH(ibv_reg_mr, 2, 0, EOPNOTSUPP);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, PERS, &mr), 0);
	assert_int_equal(CALLS(ibv_reg_mr), 3);
	assert_int_equal(mock_rec.reg_access[2], IBV_ACCESS_REMOTE_READ);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	/* refused every time: the last error is the caller's */
	mock_calls_reset();
	MOCK_FAIL(ibv_reg_mr, 0, EINVAL);
	MOCK_FAIL_NTH(ibv_reg_mr, 2, 0, EINVAL);
	MOCK_FAIL_NTH(ibv_reg_mr, 3, 0, EINVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, PERS, &mr), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(CALLS(ibv_reg_mr), 3);
	assert_null(mr);

	/* another error is not about the rights: no retry */
	mock_calls_reset();
	MOCK_FAIL(ibv_reg_mr, 0, EFAULT);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, PERS, &mr), RPMA_E_PROVIDER);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* visibility-only rights refused: one retry, without them */
static void
test_mr_reg__flush_global_refused(void **state)
{
	(void) state;
	mock_device_set_caps_ex(CAP_FLUSH_GLOBAL);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	MOCK_FAIL(ibv_reg_mr, 0, EINVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, VIS, &mr), 0);
	assert_int_equal(CALLS(ibv_reg_mr), 2);
	assert_int_equal(mock_rec.reg_access[1], IBV_ACCESS_REMOTE_READ);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_reg__alloc_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	MOCK_FAIL(malloc, 0, 0);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_SEND, &mr), RPMA_E_NOMEM);
	assert_null(mr);
	assert_int_equal(CALLS(ibv_reg_mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_reg__reg_fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	int logged = mock_rec.log_count;
	MOCK_FAIL(ibv_reg_mr, 0, EFAULT);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_SEND, &mr),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EFAULT);
	assert_null(mr);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	/* memory that cannot be pinned gets a line saying what memory to use instead */
	assert_int_equal(mock_rec.log_count, logged + 2);
	logged = mock_rec.log_count;
	MOCK_FAIL(ibv_reg_mr, 0, ENOMEM);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_SEND, &mr),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mock_rec.log_count, logged + 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* pinning refused on an ODP-capable device: retried on demand */
static void
test_mr_reg__odp_fallback(void **state)
{
	(void) state;
	mock_device_set_odp(1);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	MOCK_FAIL(ibv_reg_mr, 0, EOPNOTSUPP);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr), 0);
	assert_int_equal(CALLS(ibv_reg_mr), 2);
	assert_int_equal(mock_rec.reg_access[0], IBV_ACCESS_REMOTE_READ);
	assert_int_equal(mock_rec.reg_access[1], IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND);
	assert_int_equal(mr->access, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/*
 * soft-RoCE's ODP places accesses at the start of their pages: not used
 * unless RPMA_RXE_ODP=1, the log says why
 */
static void
test_mr_reg__odp_rxe(void **state)
{
	(void) state;
	mock_device_set_odp(1);
	mock_device_set_vendor_id(0xffffff);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	MOCK_FAIL(ibv_reg_mr, 0, EOPNOTSUPP);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_null(mr);
	assert_non_null(strstr(mock_rec.log_prev, "start of its page"));
	assert_non_null(strstr(mock_rec.log_prev, "RPMA_RXE_ODP=1"));
	assert_int_equal(rpma_peer_delete(&peer), 0);

	/* asked for: registered with ODP */
	assert_int_equal(setenv("RPMA_RXE_ODP", "1", 1), 0);
	peer = fx_peer();
	assert_int_equal(unsetenv("RPMA_RXE_ODP"), 0);
	MOCK_FAIL(ibv_reg_mr, 0, EOPNOTSUPP);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr), 0);
	assert_int_equal(mock_rec.reg_access[2], IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_reg__odp_fallback_fails(void **state)
{
	(void) state;
	mock_device_set_odp(1);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	MOCK_FAIL(ibv_reg_mr, 0, EOPNOTSUPP);
	MOCK_FAIL_NTH(ibv_reg_mr, 2, 0, EINVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_null(mr);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the debug log says a region needed on-demand paging */
static void
test_mr_reg__odp_logged(void **state)
{
	(void) state;
	mock_device_set_odp(1);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);

	MOCK_FAIL(ibv_reg_mr, 0, EOPNOTSUPP);
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr), 0);
	assert_non_null(strstr(mock_rec.log_last, "registered with on-demand paging"));
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* pinning refused and no ODP (a DAX file on rxe of Linux 6.x): the cause and the ways out */
static void
test_mr_reg__no_odp_no_retry(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	MOCK_FAIL(ibv_reg_mr, 0, EOPNOTSUPP);
	int logged = mock_rec.log_count;
	assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr),
			RPMA_E_PROVIDER);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	/* the explanation, then the call's failure */
	assert_int_equal(mock_rec.log_count, logged + 2);
	assert_non_null(strstr(mock_rec.log_last, "ibv_reg_mr()"));
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_dereg__invalid(void **state)
{
	(void) state;
	struct rpma_mr_local *mr = NULL;

	assert_int_equal(rpma_mr_dereg(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(CALLS(ibv_dereg_mr), 0);
}

static void
test_mr_dereg__fails(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, RPMA_MR_USAGE_SEND);

	MOCK_FAIL(ibv_dereg_mr, EBUSY, 0);
	assert_int_equal(rpma_mr_dereg(&mr), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	/* still registered: the caller may retry */
	assert_non_null(mr);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_null(mr);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_get_ptr_size__all(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = fx_mr(peer, buf + 8, 100, RPMA_MR_USAGE_SEND);
	void *ptr = (void *)0x1;
	size_t size = 7, desc_size = 7;

	assert_int_equal(rpma_mr_get_ptr(NULL, &ptr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_ptr(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_size(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor_size(NULL, &desc_size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor_size(mr, NULL), RPMA_E_INVAL);
	assert_ptr_equal(ptr, (void *)0x1);
	assert_int_equal(size, 7);
	assert_int_equal(desc_size, 7);

	assert_int_equal(rpma_mr_get_ptr(mr, &ptr), 0);
	assert_ptr_equal(ptr, buf + 8);
	assert_int_equal(rpma_mr_get_size(mr, &size), 0);
	assert_int_equal(size, 100);
	assert_int_equal(rpma_mr_get_descriptor_size(mr, &desc_size), 0);
	assert_int_equal(desc_size, FX_DESC_SIZE);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/*
 * The descriptor shows RPMA_MR_USAGE_READ_SRC where a flush usage lacks the
 * rights of its native FLUSH: refused at registration, or a device without
 * FLUSH. fails: how many registrations the device refuses (EINVAL) first.
 */
static void
test_mr_get_descriptor__usage_granted(void **state)
{
	(void) state;
	static const uint64_t both = CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT;
	static const int RD = RPMA_MR_USAGE_READ_SRC, WR = RPMA_MR_USAGE_WRITE_DST;
	static const struct { uint64_t caps; int fails; int usage; int shown; } map[] = {
		/* every right granted: the caller's usage */
		{both, 0, WR | VIS | PERS, WR | VIS | PERS},
		{both, 0, WR | PERS, WR | PERS},
		{both, 0, WR | VIS, WR | VIS},
		{CAP_FLUSH_GLOBAL, 0, WR | VIS, WR | VIS},
		/* persistence refused (rxe on DRAM), or another placement only */
		{both, 1, WR | VIS | PERS, WR | VIS | PERS | RD},
		{both, 1, WR | PERS, WR | PERS | RD},
		{CAP_FLUSH_GLOBAL, 0, WR | PERS, WR | PERS | RD},
		{CAP_FLUSH_PERSISTENT, 0, WR | VIS, WR | VIS | RD},
		/* every flush right refused, or none served */
		{both, 1, WR | VIS, WR | VIS | RD},
		{both, 2, WR | VIS | PERS, WR | VIS | PERS | RD},
		{0, 0, WR | VIS | PERS, WR | VIS | PERS | RD},
		/* no flush usage, or READ_SRC already: nothing to add */
		{0, 0, WR, WR},
		{0, 0, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV},
		{both, 1, RD | PERS, RD | PERS},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_device_set_caps_ex(map[i].caps);
		struct rpma_peer *peer = fx_peer();
		struct rpma_mr_local *mr = NULL;
		uint8_t desc[FX_DESC_SIZE];

		mock_calls_reset();
		for (int f = 1; f <= map[i].fails; f++)
			MOCK_FAIL_NTH(ibv_reg_mr, f, 0, EINVAL);
		assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, map[i].usage, &mr), 0);
		assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
		assert_int_equal(desc[FX_DESC_SIZE - 1], map[i].shown);
		assert_int_equal(mr->usage, map[i].usage);
		assert_int_equal(rpma_mr_dereg(&mr), 0);
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
}

/*
 * rxe fails a native FLUSH sent again: a flush usage's descriptor shows
 * RPMA_MR_USAGE_READ_SRC there, though the FLUSH rights are granted (a
 * peer on librpma 1.3 posts FLUSH whatever the descriptor says), unless
 * RPMA_RXE_NATIVE=1
 */
static void
test_mr_get_descriptor__rxe(void **state)
{
	(void) state;
	static const int RD = RPMA_MR_USAGE_READ_SRC, WR = RPMA_MR_USAGE_WRITE_DST;
	static const struct { const char *env; int usage; int shown; } map[] = {
		{NULL, WR | VIS | PERS, WR | VIS | PERS | RD},
		{NULL, WR | VIS, WR | VIS | RD},
		{"0", WR | PERS, WR | PERS | RD},
		{NULL, WR, WR},
		{NULL, RD | VIS, RD | VIS},
		{"1", WR | VIS | PERS, WR | VIS | PERS},
		{"1", WR | VIS, WR | VIS},
	};
	int rights = IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL;

	mock_device_set_vendor_id(0xffffff);
	mock_device_set_caps_ex(CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].env)
			assert_int_equal(setenv("RPMA_RXE_NATIVE", map[i].env, 1), 0);
		else
			assert_int_equal(unsetenv("RPMA_RXE_NATIVE"), 0);
		struct rpma_peer *peer = fx_peer();
		struct rpma_mr_local *mr = NULL;
		uint8_t desc[FX_DESC_SIZE];

		mock_calls_reset();
		assert_int_equal(rpma_mr_reg(peer, buf, BUF_SIZE, map[i].usage, &mr), 0);
		if (map[i].usage & VIS)
			assert_int_equal(mock_rec.reg_access[0] & rights, rights);
		assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
		assert_int_equal(desc[FX_DESC_SIZE - 1], map[i].shown);
		assert_int_equal(rpma_mr_dereg(&mr), 0);
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
	assert_int_equal(unsetenv("RPMA_RXE_NATIVE"), 0);
}

static void
test_mr_get_descriptor__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, RPMA_MR_USAGE_SEND);
	uint8_t desc[FX_DESC_SIZE] = {0};

	assert_int_equal(rpma_mr_get_descriptor(NULL, desc), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor(mr, NULL), RPMA_E_INVAL);
	for (size_t i = 0; i < sizeof(desc); i++)
		assert_int_equal(desc[i], 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/*
 * local region -> descriptor -> remote region keeps address, size, rkey and
 * flush type (on a device that grants the region its native FLUSH rights)
 */
static void
test_mr_descriptor__round_trip(void **state)
{
	(void) state;
	mock_device_set_caps_ex(CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT);
	struct rpma_peer *peer = fx_peer();
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, usage);
	uint8_t desc[FX_DESC_SIZE], expected[FX_DESC_SIZE];
	struct rpma_mr_remote *remote = NULL;
	size_t size = 0;
	int flush_type = 0;

	assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
	/* little-endian on the wire, whatever the host */
	fx_desc(expected, (uintptr_t)buf, BUF_SIZE, 0x2000, (uint8_t)usage);
	assert_memory_equal(desc, expected, sizeof(desc));

	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &remote), 0);
	assert_int_equal(rpma_mr_remote_get_size(remote, &size), 0);
	assert_int_equal(size, BUF_SIZE);
	assert_int_equal(rpma_mr_remote_get_flush_type(remote, &flush_type), 0);
	assert_int_equal(flush_type, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_mr_remote_delete(&remote), 0);
	assert_null(remote);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_advise__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, RPMA_MR_USAGE_SEND);
	int pf = IBV_ADVISE_MR_ADVICE_PREFETCH;

	assert_int_equal(rpma_mr_advise(NULL, 0, 8, pf, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, BUF_SIZE, 1, pf, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 1, BUF_SIZE, pf, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, 8, 99, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(mr, 0, 8, pf, 0x80), RPMA_E_INVAL);
	/* prefetch for writing a region the NIC never writes */
	assert_int_equal(rpma_mr_advise(mr, 0, 8, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_advise_mr), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_advise__success(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, RPMA_MR_USAGE_RECV);

	assert_int_equal(rpma_mr_advise(mr, 16, 32, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			IBV_ADVISE_MR_FLAG_FLUSH), 0);
	assert_int_equal(mock_rec.advise.advice, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE);
	assert_int_equal(mock_rec.advise.flags, IBV_ADVISE_MR_FLAG_FLUSH);
	assert_int_equal(mock_rec.advise.num_sge, 1);
	assert_int_equal(mock_rec.advise.sge.addr, (uintptr_t)(buf + 16));
	assert_int_equal(mock_rec.advise.sge.length, 32);
	assert_int_equal(mock_rec.advise.sge.lkey, 0x1000);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* an SGE's length has 32 bits: a larger range is refused, not cut short */
static void
test_mr_advise__sge_length_limit(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	/* the mocks never touch the memory of a region */
	size_t size = (size_t)UINT32_MAX + 2;
	struct rpma_mr_local *mr = fx_mr(peer, buf, size, RPMA_MR_USAGE_RECV);

	assert_int_equal(rpma_mr_advise(mr, 0, (size_t)UINT32_MAX + 1,
			IBV_ADVISE_MR_ADVICE_PREFETCH, 0), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_advise_mr), 0);
	assert_int_equal(rpma_mr_advise(mr, 1, UINT32_MAX, IBV_ADVISE_MR_ADVICE_PREFETCH, 0), 0);
	assert_int_equal(mock_rec.advise.sge.length, UINT32_MAX);
	assert_int_equal(mock_rec.advise.sge.addr, (uintptr_t)(buf + 1));
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_advise__provider_errors(void **state)
{
	(void) state;
	static const struct { int err; int ret; } map[] = {
		{EOPNOTSUPP, RPMA_E_NOSUPP},
		{EINVAL, RPMA_E_INVAL},
		{EFAULT, RPMA_E_INVAL},
		{EIO, RPMA_E_PROVIDER},
	};
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, RPMA_MR_USAGE_SEND);

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		MOCK_FAIL(ibv_advise_mr, map[i].err, 0);
		assert_int_equal(rpma_mr_advise(mr, 0, 8, IBV_ADVISE_MR_ADVICE_PREFETCH, 0),
				map[i].ret);
		assert_int_equal(errno, map[i].err);
	}
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/*
 * librpma 1.x's iWARP rule: an RDMA READ's response is placed like a write,
 * so on iWARP a read's destination is registered with remote write
 */
static void
test_mr_reg__iwarp_read_dst(void **state)
{
	(void) state;
	static const struct { enum ibv_transport_type transport; int usage; int access; } map[] = {
		{IBV_TRANSPORT_IB, RPMA_MR_USAGE_READ_DST, IBV_ACCESS_LOCAL_WRITE},
		{IBV_TRANSPORT_IWARP, RPMA_MR_USAGE_READ_DST,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
		{IBV_TRANSPORT_IWARP, RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
		/* the other usages as on InfiniBand and RoCE */
		{IBV_TRANSPORT_IWARP, RPMA_MR_USAGE_RECV, IBV_ACCESS_LOCAL_WRITE},
		{IBV_TRANSPORT_IWARP, RPMA_MR_USAGE_WRITE_SRC, 0},
		{IBV_TRANSPORT_IWARP, RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_REMOTE_READ},
	};
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_device_set_transport(map[i].transport);
		struct rpma_peer *peer = fx_peer();
		mock_calls_reset();
		mock_rec.log_last[0] = '\0';
		struct rpma_mr_local *mr = fx_mr(peer, buf, BUF_SIZE, map[i].usage);
		assert_int_equal(mock_rec.reg_access[0], map[i].access);
		/* said at debug level where the rule adds the right */
		if (map[i].access & IBV_ACCESS_REMOTE_WRITE)
			assert_non_null(strstr(mock_rec.log_last, "iWARP device"));
		else
			assert_null(strstr(mock_rec.log_last, "iWARP"));
		assert_int_equal(rpma_mr_dereg(&mr), 0);
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
}

/* a region for grants: no remote read or write of its own, the right to bind windows */
static void
test_mr_reg_for_grants__access(void **state)
{
	(void) state;
	static const struct { uint64_t caps; uint64_t caps_ex; int usage; int access; } map[] = {
		{IBV_DEVICE_MEM_WINDOW_TYPE_2B, 0, RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_MW_BIND},
		{IBV_DEVICE_MEM_WINDOW_TYPE_2B, 0, RPMA_MR_USAGE_WRITE_DST,
			IBV_ACCESS_MW_BIND | IBV_ACCESS_LOCAL_WRITE},
		{IBV_DEVICE_MEM_WINDOW_TYPE_2B, CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT,
			RPMA_MR_USAGE_READ_SRC | PERS,
			IBV_ACCESS_MW_BIND | RIGHTS_FLUSH_GLOBAL | RIGHTS_FLUSH_PERSISTENT},
		/* local usages as rpma_mr_reg() */
		{IBV_DEVICE_MEM_WINDOW_TYPE_2B, 0, RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_SEND,
			IBV_ACCESS_MW_BIND | IBV_ACCESS_LOCAL_WRITE},
		/* a device without windows: the region still serves local use */
		{0, 0, RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_LOCAL_WRITE},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		mock_device_set_caps(map[i].caps);
		mock_device_set_caps_ex(map[i].caps_ex);
		struct rpma_peer *peer = fx_peer();
		struct rpma_mr_local *mr = NULL;
		mock_calls_reset();
		assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, map[i].usage, &mr), 0);
		assert_int_equal(mock_rec.reg_access[0], map[i].access);
		assert_int_equal(mr->access, map[i].access);
		assert_true(mr->for_grants);
		assert_int_equal(rpma_mr_dereg(&mr), 0);
		assert_int_equal(rpma_peer_delete(&peer), 0);
	}
}

/*
 * rxe binds each window over a registration of its own range: the region
 * keeps no FLUSH right a guessed key could use; what rxe grants is learnt
 * from a registration of its first page, asked for every right
 */
static void
test_mr_reg_for_grants__rxe_no_flush(void **state)
{
	(void) state;
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	mock_device_set_caps_ex(CAP_FLUSH_GLOBAL | CAP_FLUSH_PERSISTENT);
	mock_device_set_vendor_id(0xffffff);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;
	int pmem = RPMA_MR_USAGE_WRITE_DST | PERS;
	int asked = IBV_ACCESS_MW_BIND | IBV_ACCESS_LOCAL_WRITE | RIGHTS_FLUSH_GLOBAL |
		RIGHTS_FLUSH_PERSISTENT;

	mock_calls_reset();
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, pmem, &mr), 0);
	/* the first page with every right, released, then the region with local write alone */
	assert_int_equal(CALLS(ibv_reg_mr), 2);
	assert_int_equal(mock_rec.reg_access[0], asked);
	assert_int_equal(mock_rec.reg_access[1], IBV_ACCESS_LOCAL_WRITE);
	assert_ptr_equal(mock_rec.reg_addr, buf);
	assert_int_equal(mock_rec.reg_length, BUF_SIZE);
	assert_int_equal(CALLS(ibv_dereg_mr), 1);
	assert_int_equal(mr->access, asked);
	assert_int_equal(mr_window_access(mr, PERS), IBV_ACCESS_REMOTE_READ |
			RIGHTS_FLUSH_GLOBAL | RIGHTS_FLUSH_PERSISTENT);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	/* persistence refused on the first page (not PMem): no window gets it */
	mock_calls_reset();
	MOCK_FAIL(ibv_reg_mr, 0, EINVAL);
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, pmem, &mr), 0);
	assert_int_equal(mr_window_access(mr, PERS), IBV_ACCESS_REMOTE_READ | RIGHTS_FLUSH_GLOBAL);
	assert_int_equal(mock_rec.reg_access[CALLS(ibv_reg_mr) - 1], IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(rpma_mr_dereg(&mr), 0);

	/* each step's failure leaves nothing registered */
	for (int step = 1; step <= 2; step++) {
		int objects = mock_live_objects();
		mock_calls_reset();
		MOCK_FAIL_NTH(ibv_reg_mr, step, 0, EFAULT);
		assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, pmem, &mr),
				RPMA_E_PROVIDER);
		assert_null(mr);
		assert_int_equal(mock_live_objects(), objects);
	}
	/* the first page's registration not released: the call fails, nothing else made */
	mock_calls_reset();
	MOCK_FAIL(ibv_dereg_mr, EBUSY, 0);
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, pmem, &mr), RPMA_E_PROVIDER);
	assert_null(mr);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	mock_release_all();

	/* a device that binds windows over the region itself: one registration, every right */
	mock_device_set_vendor_id(0);
	peer = fx_peer();
	mock_calls_reset();
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, pmem, &mr), 0);
	assert_int_equal(CALLS(ibv_reg_mr), 1);
	assert_int_equal(mock_rec.reg_access[0], asked);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/*
 * iWARP places a read's response with the destination's own key, which
 * must let the peer write: never so for a region for grants
 */
static void
test_mr_reg_for_grants__iwarp_read_dst(void **state)
{
	(void) state;
	mock_device_set_transport(IBV_TRANSPORT_IWARP);
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;

	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE,
			RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_READ_SRC, &mr), RPMA_E_NOSUPP);
	assert_null(mr);
	assert_int_equal(CALLS(ibv_reg_mr), 0);
	assert_non_null(strstr(mock_rec.log_last, "rpma_mr_reg()"));
	/* the other usages are registered, with no remote write */
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, RPMA_MR_USAGE_WRITE_DST, &mr),
			0);
	assert_int_equal(mock_rec.reg_access[0] & IBV_ACCESS_REMOTE_WRITE, 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);

	/* on InfiniBand and RoCE a read's destination needs the local write right only */
	mock_device_set_transport(IBV_TRANSPORT_IB);
	peer = fx_peer();
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_DST, &mr),
			0);
	assert_int_equal(mock_rec.reg_access[1], IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void
test_mr_reg_for_grants__invalid(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = (struct rpma_mr_local *)0x1;
	int u = RPMA_MR_USAGE_READ_SRC;

	assert_int_equal(rpma_mr_reg_for_grants(NULL, buf, BUF_SIZE, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg_for_grants(peer, NULL, BUF_SIZE, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, 0, u, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, u, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, 0, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, 1 << 8, &mr), RPMA_E_INVAL);
	assert_ptr_equal(mr, (struct rpma_mr_local *)0x1);
	assert_int_equal(CALLS(ibv_reg_mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* its key lets nobody in: it has no descriptor to hand out */
static void
test_mr_reg_for_grants__no_descriptor(void **state)
{
	(void) state;
	struct rpma_peer *peer = fx_peer();
	struct rpma_mr_local *mr = NULL;
	uint8_t desc[FX_DESC_SIZE];
	size_t size = 0;

	assert_int_equal(rpma_mr_reg_for_grants(peer, buf, BUF_SIZE, RPMA_MR_USAGE_READ_SRC, &mr),
			0);
	assert_int_equal(rpma_mr_get_descriptor(mr, desc), RPMA_E_INVAL);
	assert_non_null(strstr(mock_rec.log_last, "rpma_grant_get_descriptor()"));
	assert_int_equal(rpma_mr_get_descriptor_size(mr, &size), 0);
	assert_int_equal(size, FX_DESC_SIZE);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_mr_reg__invalid),
		TEST(test_mr_reg__iwarp_read_dst),
		TEST(test_mr_reg_for_grants__access),
		TEST(test_mr_reg_for_grants__rxe_no_flush),
		TEST(test_mr_reg_for_grants__iwarp_read_dst),
		TEST(test_mr_reg_for_grants__invalid),
		TEST(test_mr_reg_for_grants__no_descriptor),
		TEST(test_mr_reg__usage_to_access),
		TEST(test_mr_reg__flush_rights),
		TEST(test_mr_reg__flush_rights_refused),
		TEST(test_mr_reg__flush_global_refused),
		TEST(test_mr_reg__alloc_fails),
		TEST(test_mr_reg__reg_fails),
		TEST(test_mr_reg__odp_fallback),
		TEST(test_mr_reg__odp_rxe),
		TEST(test_mr_reg__odp_fallback_fails),
		TEST(test_mr_reg__odp_logged),
		TEST(test_mr_reg__no_odp_no_retry),
		TEST(test_mr_dereg__invalid),
		TEST(test_mr_dereg__fails),
		TEST(test_mr_get_ptr_size__all),
		TEST(test_mr_get_descriptor__invalid),
		TEST(test_mr_get_descriptor__usage_granted),
		TEST(test_mr_get_descriptor__rxe),
		TEST(test_mr_descriptor__round_trip),
		TEST(test_mr_advise__invalid),
		TEST(test_mr_advise__success),
		TEST(test_mr_advise__sge_length_limit),
		TEST(test_mr_advise__provider_errors),
	};
	return RUN(tests);
}
