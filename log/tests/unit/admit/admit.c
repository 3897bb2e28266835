// SPDX-License-Identifier: BSD-3-Clause
/* admit.c -- unit tests of log/rpmalogd/admit.c: the epoch rule and the fence */

#include "log_unit.h"
#include "admit.h"

static int conns[ADMIT_MAX + 1]; /* stand-ins for the daemon's connections */

static struct proto_hello
hello(uint64_t epoch, uint64_t writer)
{
	return (struct proto_hello){ .epoch = epoch, .writer = writer };
}

/* a replica at epoch 5 serving writer 1 of epoch 5 on conns[0] */
static struct admit
fx_admit(void)
{
	struct admit a = { .epoch = 5 };
	struct proto_hello h = hello(5, 1);

	assert_int_equal(admit_add(&a, &h, &conns[0]), 0);
	return a;
}

static void
test_admit_judge__epochs(void **state)
{
	(void) state;
	struct admit a = fx_admit();
	uint32_t reason = 0;
	struct proto_hello older = hello(4, 1), newer = hello(6, 2), same = hello(5, 1),
		other = hello(5, 2);

	assert_int_equal(admit_judge(&a, &older, &reason), ADMIT_REFUSE);
	assert_int_equal(reason, PROTO_STALE_EPOCH);
	assert_int_equal(admit_judge(&a, &other, &reason), ADMIT_REFUSE);
	assert_int_equal(reason, PROTO_EPOCH_TAKEN);
	reason = 0;
	assert_int_equal(admit_judge(&a, &same, &reason), ADMIT_SAME_EPOCH);
	assert_int_equal(admit_judge(&a, &newer, &reason), ADMIT_NEW_EPOCH);
	assert_int_equal(reason, 0);
	/* once its writer is gone, the epoch is anyone's who has it */
	admit_remove(&a, &conns[0]);
	assert_int_equal(admit_judge(&a, &other, &reason), ADMIT_SAME_EPOCH);
	assert_int_equal(admit_judge(&a, &older, &reason), ADMIT_REFUSE);
}

/* a newer epoch fences every writer; the same writer again fences its own */
static void
test_admit_fenced__who(void **state)
{
	(void) state;
	struct admit a = fx_admit();
	struct proto_hello again = hello(5, 1), newer = hello(7, 3), h4 = hello(4, 9);
	void *fenced[ADMIT_MAX];

	a.epoch = 4; /* a writer of an older epoch still connected beside it */
	assert_int_equal(admit_add(&a, &h4, &conns[1]), 0);
	assert_int_equal(a.epoch, 4);
	a.epoch = 5;
	assert_int_equal(admit_fenced(&a, &again, fenced), 2);
	assert_true((fenced[0] == &conns[0] && fenced[1] == &conns[1]) ||
			(fenced[0] == &conns[1] && fenced[1] == &conns[0]));
	assert_int_equal(admit_fenced(&a, &newer, fenced), 2);
	admit_remove(&a, &conns[1]);
	assert_int_equal(admit_fenced(&a, &again, fenced), 1);
	assert_ptr_equal(fenced[0], &conns[0]);
	assert_int_equal(admit_add(&a, &newer, &conns[2]), 0);
	assert_int_equal(a.epoch, 7);
}

/* no more than ADMIT_MAX at once; removing frees a place, an unknown one nothing */
static void
test_admit_add__full(void **state)
{
	(void) state;
	struct admit a = { .epoch = 1 };
	struct proto_hello h = hello(1, 1);

	for (int i = 0; i < ADMIT_MAX; i++)
		assert_int_equal(admit_add(&a, &h, &conns[i]), 0);
	assert_int_equal(admit_add(&a, &h, &conns[ADMIT_MAX]), -1);
	admit_remove(&a, &conns[ADMIT_MAX]);
	assert_int_equal(a.n, ADMIT_MAX);
	admit_remove(&a, &conns[3]);
	assert_int_equal(a.n, ADMIT_MAX - 1);
	for (size_t i = 0; i < a.n; i++)
		assert_ptr_not_equal(a.live[i].conn, &conns[3]);
	assert_int_equal(admit_add(&a, &h, &conns[ADMIT_MAX]), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_admit_judge__epochs),
		TEST(test_admit_fenced__who),
		TEST(test_admit_add__full),
	};
	return RUN(tests);
}
