// SPDX-License-Identifier: BSD-3-Clause
/* common.c -- planned failures, call counts, live objects and the allocator seam */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "librpma.h"
#include "mocks.h"

#define PLANS_MAX 8
#define OBJECTS_MAX 256

struct plan {
	int at_call;	/* the call number it applies to, 0: unused */
	int ret;
	int err;
};

static struct plan plans[MOCK_FN_NUM][PLANS_MAX];
static int calls[MOCK_FN_NUM];
static int orders[MOCK_FN_NUM];
static int sequence;
static void *objects[OBJECTS_MAX];
/* atomic: a test may free from two threads */
static _Atomic long heap_live;
int unacked_at_destroy;

struct mock_record mock_rec;

void *__real_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void __real_free(void *ptr);

void
mock_plan(enum mock_fn fn, int nth, int ret, int err)
{
	for (int i = 0; i < PLANS_MAX; i++) {
		if (plans[fn][i].at_call == 0) {
			plans[fn][i] = (struct plan){ calls[fn] + nth, ret, err };
			return;
		}
	}
	fail_msg("too many plans for mocked function %d", fn);
}

void
mock_plans_clear(void)
{
	memset(plans, 0, sizeof(plans));
}

int
mock_call(enum mock_fn fn, struct mock_plan_hit *hit)
{
	int n = ++calls[fn];

	orders[fn] = ++sequence;
	for (int i = 0; i < PLANS_MAX; i++) {
		if (plans[fn][i].at_call == n) {
			hit->ret = plans[fn][i].ret;
			hit->err = plans[fn][i].err;
			plans[fn][i].at_call = 0;
			return 1;
		}
	}
	return 0;
}

void
mock_calls_reset(void)
{
	memset(calls, 0, sizeof(calls));
	memset(orders, 0, sizeof(orders));
	mock_plans_clear();
	mock_rec.log_count = 0;
}

int
mock_calls(enum mock_fn fn)
{
	return calls[fn];
}

int
mock_order(enum mock_fn fn)
{
	return calls[fn] ? orders[fn] : -1;
}

void *
mock_obj_new(size_t size)
{
	void *obj = __real_calloc(1, size);
	assert_non_null(obj);
	for (int i = 0; i < OBJECTS_MAX; i++) {
		if (objects[i] == NULL) {
			objects[i] = obj;
			return obj;
		}
	}
	fail_msg("too many mock objects");
	return NULL;
}

void
mock_obj_free(void *obj)
{
	for (int i = 0; i < OBJECTS_MAX; i++) {
		if (objects[i] == obj && obj != NULL) {
			objects[i] = NULL;
			__real_free(obj);
			return;
		}
	}
	fail_msg("mock object %p released twice or never handed out", obj);
}

void
mock_release_all(void)
{
	for (int i = 0; i < OBJECTS_MAX; i++) {
		__real_free(objects[i]);
		objects[i] = NULL;
	}
}

int
mock_live_objects(void)
{
	int n = 0;

	for (int i = 0; i < OBJECTS_MAX; i++)
		n += objects[i] != NULL;
	return n;
}

long
mock_heap_live(void)
{
	return heap_live;
}

int
mock_unacked_at_destroy(void)
{
	return unacked_at_destroy;
}

/* the allocator seam: -Wl,--wrap=malloc,--wrap=calloc,--wrap=free */

/*
 * The clock the library reads: it moves on 1 ms at every reading, and by
 * what the library sleeps, so a wait for a completion that never comes
 * ends at once, after as many polls as its time limit in ms.
 */
static struct timespec mock_now;

static void
mock_clock_add(long ns)
{
	mock_now.tv_nsec += ns;
	mock_now.tv_sec += mock_now.tv_nsec / 1000000000;
	mock_now.tv_nsec %= 1000000000;
}

int
__wrap_clock_gettime(clockid_t clock, struct timespec *ts)
{
	(void) clock;
	mock_clock_add(1000000);
	*ts = mock_now;
	return 0;
}

int
__wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void) rem;
	mock_clock_add(req->tv_sec * 1000000000 + req->tv_nsec);
	return 0;
}

void *
__wrap_malloc(size_t size)
{
	struct mock_plan_hit hit;

	if (mock_call(MOCK_malloc, &hit)) {
		errno = ENOMEM;
		return NULL;
	}
	/* the library never needs an empty block: one is a size gone wrong */
	assert_true(size > 0);
	void *p = __real_malloc(size);
	if (p)
		heap_live++;
	return p;
}

void *
__wrap_calloc(size_t nmemb, size_t size)
{
	struct mock_plan_hit hit;

	if (mock_call(MOCK_malloc, &hit)) {
		errno = ENOMEM;
		return NULL;
	}
	assert_true(nmemb > 0 && size > 0);
	void *p = __real_calloc(nmemb, size);
	if (p)
		heap_live++;
	return p;
}

void
__wrap_free(void *ptr)
{
	if (ptr)
		heap_live--;
	__real_free(ptr);
}

/* syslog() (or its fortified form) records instead of sending */
static void
syslog_record(int priority, const char *format, va_list ap)
{
	mock_rec.syslog_count++;
	mock_rec.syslog_priority = priority;
	vsnprintf(mock_rec.syslog_last, sizeof(mock_rec.syslog_last), format, ap);
}

void __wrap_syslog(int priority, const char *format, ...);
void __wrap___syslog_chk(int priority, int flag, const char *format, ...);

void
__wrap_syslog(int priority, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	syslog_record(priority, format, ap);
	va_end(ap);
}

void
__wrap___syslog_chk(int priority, int flag, const char *format, ...)
{
	va_list ap;

	(void) flag;
	va_start(ap, format);
	syslog_record(priority, format, ap);
	va_end(ap);
}

/* the library's messages are kept, not printed: a test may check one was logged */
static void
mock_log(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	(void) level;
	(void) file_name;
	(void) line_no;
	(void) function_name;
	memcpy(mock_rec.log_prev, mock_rec.log_last, sizeof(mock_rec.log_prev));
	va_start(ap, message_format);
	vsnprintf(mock_rec.log_last, sizeof(mock_rec.log_last), message_format, ap);
	va_end(ap);
	mock_rec.log_count++;
}

int
mock_setup(void **state)
{
	(void) state;
	mock_plans_clear();
	memset(calls, 0, sizeof(calls));
	memset(orders, 0, sizeof(orders));
	memset(&mock_rec, 0, sizeof(mock_rec));
	sequence = 0;
	heap_live = 0;
	unacked_at_destroy = 0;
	mock_ibverbs_reset();
	mock_rdmacm_reset();
	(void) rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
	(void) rpma_log_set_function(mock_log);
	return 0;
}

int
mock_teardown(void **state)
{
	(void) state;
	int live = mock_live_objects();
	long heap = heap_live;
	int unacked = unacked_at_destroy;

	mock_release_all();
	mock_rdmacm_reset();
	(void) rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
	/* what the library acquired through a test must be released by it */
	assert_int_equal(live, 0);
	assert_int_equal(heap, 0);
	assert_int_equal(unacked, 0);
	return 0;
}
