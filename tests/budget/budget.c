// SPDX-License-Identifier: BSD-3-Clause
/*
 * budget.c -- rpma-budget: every data-path call, each in a function of its
 * own (case_*), made N_CALLS times on a connection of the unit tests' mocked
 * provider, for check-budget to count the library's instructions per call
 * under callgrind. The library's objects are librpma.so's; the provider
 * behind them is what changes nothing in what they run: a post that
 * succeeds, a poll that finds a completion (and one that finds none).
 */

#include <stdio.h>
#include <string.h>

#include "fixtures.h"

#define N_CALLS 1000
#define SIZE 4096
#define REMOTE 0x10000ULL
#define ALWAYS RPMA_F_COMPLETION_ALWAYS
#define DEVICE_CAP_ATOMIC_WRITE (1ULL << 40)
#define DEVICE_CAP_FLUSH ((1ULL << 38) | (1ULL << 39))

static char buf[SIZE];

struct conn {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *local;
	struct rpma_mr_remote *remote;	/* READ_SRC: flushed by a read */
	struct rpma_mr_remote *flushable;	/* no READ_SRC: a native FLUSH where posted */
	/* a grant on the connection, as its peer imports it: the same path as a region */
	struct rpma_mr_local *for_grants;
	struct rpma_grant *grant;
	struct rpma_mr_remote *granted;
};

/* the remote region a peer makes of a grant of buf on c's connection */
static void
grant_up(struct conn *c)
{
	uint8_t desc[FX_DESC_SIZE];

	assert_int_equal(rpma_mr_reg_for_grants(c->peer, buf, SIZE, RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
			&c->for_grants), 0);
	assert_int_equal(rpma_grant_new(c->conn, c->for_grants, 0, SIZE, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &c->grant), 0);
	assert_int_equal(rpma_grant_get_descriptor(c->grant, desc), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &c->granted), 0);
}

static void
conn_up(struct conn *c, uint64_t caps)
{
	mock_device_set_caps_ex(caps);
	mock_device_set_caps(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	c->peer = fx_peer();
	c->conn = fx_conn(c->peer, NULL);
	c->local = fx_mr(c->peer, buf, SIZE, RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV);
	c->remote = fx_mr_remote(REMOTE, SIZE, 7, RPMA_MR_USAGE_READ_SRC |
			RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	c->flushable = fx_mr_remote(REMOTE, SIZE, 7, RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_conn_get_cq(c->conn, &c->cq), 0);
	grant_up(c);
}

static void
conn_down(struct conn *c)
{
	assert_int_equal(rpma_mr_remote_delete(&c->granted), 0);
	assert_int_equal(rpma_grant_delete(&c->grant), 0);
	assert_int_equal(rpma_mr_dereg(&c->for_grants), 0);
	assert_int_equal(rpma_mr_remote_delete(&c->flushable), 0);
	assert_int_equal(rpma_mr_remote_delete(&c->remote), 0);
	assert_int_equal(rpma_mr_dereg(&c->local), 0);
	assert_int_equal(rpma_conn_delete(&c->conn), 0);
	assert_int_equal(rpma_peer_delete(&c->peer), 0);
}

/* the offsets move, as an application's do */
#define OFF(i) ((size_t)((i) % 32) * 64)

__attribute__((noinline)) static void
case_write(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_write(c->conn, c->remote, OFF(i), c->local, OFF(i), 64, ALWAYS,
				NULL), 0);
}

__attribute__((noinline)) static void
case_read(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_read(c->conn, c->local, OFF(i), c->remote, OFF(i), 64, ALWAYS,
				NULL), 0);
}

__attribute__((noinline)) static void
case_write_with_imm(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_write_with_imm(c->conn, c->remote, OFF(i), c->local, OFF(i),
				64, ALWAYS, (uint32_t)i, NULL), 0);
}

__attribute__((noinline)) static void
case_flush_read(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_flush(c->conn, c->remote, OFF(i), 64,
				RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, NULL), 0);
}

__attribute__((noinline)) static void
case_flush_native(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_flush(c->conn, c->flushable, OFF(i), 64,
				RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, NULL), 0);
}

__attribute__((noinline)) static void
case_send(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_send(c->conn, c->local, OFF(i), 64, ALWAYS, NULL), 0);
}

__attribute__((noinline)) static void
case_send_with_imm(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_send_with_imm(c->conn, c->local, OFF(i), 64, ALWAYS,
				(uint32_t)i, NULL), 0);
}

__attribute__((noinline)) static void
case_recv(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_recv(c->conn, c->local, OFF(i), 64, NULL), 0);
}

/* a loop of its own in each case: a shared one would be tail-called, and no case_ would show */
#define ATOMIC_WRITE_LOOP(c) \
	do { \
		const char value_[8] = "budget!"; \
		for (int i = 0; i < N_CALLS; i++) \
			assert_int_equal(rpma_atomic_write((c)->conn, (c)->remote, OFF(i), value_, \
					ALWAYS, NULL), 0); \
	} while (0)

__attribute__((noinline)) static void
case_atomic_write(struct conn *c)
{
	ATOMIC_WRITE_LOOP(c);
}

__attribute__((noinline)) static void
case_atomic_write_native(struct conn *c)
{
	ATOMIC_WRITE_LOOP(c);
}

/*
 * The same calls through a grant's remote region (budgets: "= CASE", the
 * count of the call through a region): one remote region is as another
 */
__attribute__((noinline)) static void
case_grant_write(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_write(c->conn, c->granted, OFF(i), c->local, OFF(i), 64,
				ALWAYS, NULL), 0);
}

__attribute__((noinline)) static void
case_grant_read(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_read(c->conn, c->local, OFF(i), c->granted, OFF(i), 64,
				ALWAYS, NULL), 0);
}

/* a read where the device serves no FLUSH, a native FLUSH where it does and is posted */
__attribute__((noinline)) static void
case_grant_flush_read(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_flush(c->conn, c->granted, OFF(i), 64,
				RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, NULL), 0);
}

__attribute__((noinline)) static void
case_grant_flush_native(struct conn *c)
{
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_flush(c->conn, c->granted, OFF(i), 64,
				RPMA_FLUSH_TYPE_VISIBILITY, ALWAYS, NULL), 0);
}

__attribute__((noinline)) static void
case_grant_atomic_write(struct conn *c)
{
	const char value[8] = "budget!";
	for (int i = 0; i < N_CALLS; i++)
		assert_int_equal(rpma_atomic_write(c->conn, c->granted, OFF(i), value, ALWAYS,
				NULL), 0);
}

/* half the polls find a completion, half none (RPMA_E_NO_COMPLETION) */
#define POLL_LOOP(c, n) \
	do { \
		struct ibv_wc wc_[16]; \
		int got_; \
		for (int i = 0; i < N_CALLS; i++) { \
			if (i % 2) \
				mock_plan(MOCK_ibv_poll_cq, 1, 1, 0); \
			assert_int_equal(rpma_cq_get_wc((c)->cq, (n), wc_, &got_), \
					i % 2 ? 0 : RPMA_E_NO_COMPLETION); \
		} \
	} while (0)

__attribute__((noinline)) static void
case_cq_get_wc_one(struct conn *c)
{
	POLL_LOOP(c, 1);
}

__attribute__((noinline)) static void
case_cq_get_wc_batch(struct conn *c)
{
	POLL_LOOP(c, 16);
}

int
main(int argc, char *argv[])
{
	void *state = NULL;
	struct conn c;

	(void) argc;
	(void) argv;
	mock_setup(&state);
	(void) rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);

	/* a device without native ATOMIC WRITE and FLUSH: the fallbacks */
	conn_up(&c, 0);
	case_write(&c);
	case_read(&c);
	case_write_with_imm(&c);
	case_flush_read(&c);
	case_send(&c);
	case_send_with_imm(&c);
	case_recv(&c);
	case_atomic_write(&c);
	case_grant_write(&c);
	case_grant_read(&c);
	case_grant_flush_read(&c);
	case_grant_atomic_write(&c);
	case_cq_get_wc_one(&c);
	case_cq_get_wc_batch(&c);
	conn_down(&c);
	mock_calls_reset();

	/* one that has both, where this build posts them */
	conn_up(&c, DEVICE_CAP_ATOMIC_WRITE | DEVICE_CAP_FLUSH);
#ifdef HAVE_IBV_ATOMIC_WRITE
	case_atomic_write_native(&c);
#else
	(void) case_atomic_write_native;
	printf("absent atomic_write_native: built without ibv_wr_atomic_write\n");
#endif
#ifdef HAVE_IBV_FLUSH
	case_flush_native(&c);
	case_grant_flush_native(&c);
#else
	(void) case_flush_native;
	(void) case_grant_flush_native;
	printf("absent flush_native: built without ibv_wr_flush\n");
	printf("absent grant_flush_native: built without ibv_wr_flush\n");
#endif
	conn_down(&c);
	printf("calls per case: %d\n", N_CALLS);
	return 0;
}
