// SPDX-License-Identifier: BSD-3-Clause
/* log.c -- unit tests of src/log.c: thresholds, the log function, the default one */

#include <stdio.h>
#include <syslog.h>
#include <unistd.h>

#include "fixtures.h"
#include "log.h"

static struct {
	int calls;
	enum rpma_log_level level;
	const char *file;
	int line;
	const char *func;
	const char *fmt;
	char msg[2048];
} got;

static void
log_to_test(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;

	got.calls++;
	got.level = level;
	got.file = file_name;
	got.line = line_no;
	got.func = function_name;
	got.fmt = message_format;
	va_start(ap, message_format);
	vsnprintf(got.msg, sizeof(got.msg), message_format, ap);
	va_end(ap);
}

/* each test starts from the library's defaults and the test's function */
static int
log_setup(void **state)
{
	(void) mock_setup(state);
	memset(&got, 0, sizeof(got));
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
	assert_int_equal(rpma_log_set_function(log_to_test), 0);
	return 0;
}

static void
test_log_set_threshold__invalid(void **state)
{
	(void) state;
	enum rpma_log_level level = RPMA_LOG_LEVEL_INFO;

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, RPMA_LOG_LEVEL_ERROR),
			RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold((enum rpma_log_threshold)-1,
			RPMA_LOG_LEVEL_ERROR), RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD,
			(enum rpma_log_level)(RPMA_LOG_DISABLED - 1)), RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD,
			(enum rpma_log_level)(RPMA_LOG_LEVEL_DEBUG + 1)), RPMA_E_INVAL);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level), RPMA_E_INVAL);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, NULL), RPMA_E_INVAL);
	assert_int_equal(level, RPMA_LOG_LEVEL_INFO);
	/* unchanged */
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
	assert_int_equal(level, RPMA_LOG_LEVEL_WARNING);
}

static void
test_log_set_threshold__round_trip(void **state)
{
	(void) state;
	enum rpma_log_level level;

	for (int l = RPMA_LOG_DISABLED; l <= RPMA_LOG_LEVEL_DEBUG; l++) {
		assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX,
				(enum rpma_log_level)l), 0);
		assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &level), 0);
		assert_int_equal(level, l);
		/* the other one is independent */
		assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
		assert_int_equal(level, RPMA_LOG_LEVEL_WARNING);
	}
}

/* only messages up to the main threshold reach the function */
static void
test_log_threshold__filters(void **state)
{
	(void) state;

	RPMA_LOG_NOTICE("not %s", "delivered");
	RPMA_LOG_INFO("nor this");
	assert_int_equal(got.calls, 0);
	RPMA_LOG_WARNING("warned %d", 42);
	assert_int_equal(got.calls, 1);
	assert_int_equal(got.level, RPMA_LOG_LEVEL_WARNING);
	assert_string_equal(got.msg, "warned 42\n");
	RPMA_LOG_ERROR("an error");
	assert_int_equal(got.calls, 2);
	assert_int_equal(got.level, RPMA_LOG_LEVEL_ERROR);

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO), 0);
	RPMA_LOG_INFO("now %s", "yes");
	assert_int_equal(got.calls, 3);
	assert_string_equal(got.msg, "now yes\n");
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	RPMA_LOG_ERROR("dropped");
	assert_int_equal(got.calls, 3);
}

/* the function learns where the message comes from */
static void
test_log_function__location(void **state)
{
	(void) state;
	int line = __LINE__ + 1;
	RPMA_LOG_ERROR("here");

	assert_int_equal(got.calls, 1);
	assert_non_null(got.file);
	assert_non_null(strstr(got.file, "log.c"));
	assert_int_equal(got.line, line);
	assert_string_equal(got.func, "test_log_function__location");
}

/* a provider failure: one line naming the call, errno left holding the error */
static void
test_log_provider__errno(void **state)
{
	(void) state;
	errno = 0;
	RPMA_LOG_PROVIDER(ENOMEM, "ibv_something()");
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(got.calls, 1);
	assert_non_null(strstr(got.msg, "ibv_something()"));
	assert_non_null(strstr(got.msg, strerror(ENOMEM)));
}

/* as in librpma 1.x: the message's own format, ending with a newline, and its arguments */
static void
test_log_function__format(void **state)
{
	(void) state;

	RPMA_LOG_WARNING("%s of %d", "one", 2);
	assert_int_equal(got.calls, 1);
	assert_string_equal(got.fmt, "%s of %d\n");
	assert_string_equal(got.msg, "one of 2\n");
}

/* the library does not cut a message short: the user's function gets it whole */
static void
test_log_message__long(void **state)
{
	(void) state;
	char longer[1500];

	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	RPMA_LOG_ERROR("%s", longer);
	assert_int_equal(got.calls, 1);
	assert_int_equal(strlen(got.msg), sizeof(longer));
	assert_int_equal(got.msg[sizeof(longer) - 1], '\n');
}

/* what emit() writes to stderr, through the default function */
static void
stderr_of(void (*emit)(void), char *out, size_t size)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);

	assert_non_null(tmp);
	assert_true(saved >= 0);
	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	emit();
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	memset(out, 0, size);
	size_t n = fread(out, 1, size - 1, tmp);
	fclose(tmp);
	assert_true(n > 0);
}

static void
emit_info_and_warning(void)
{
	RPMA_LOG_INFO("not on stderr");
	RPMA_LOG_WARNING("on stderr %d", 7);
}

/* the default function writes to stderr up to the auxiliary threshold */
static void
test_log_default__stderr(void **state)
{
	(void) state;
	char out[512];

	/* both pass the main threshold (to syslog); the aux one picks for stderr */
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_WARNING),
			0);
	stderr_of(emit_info_and_warning, out, sizeof(out));
	/* one line per message: the message's newline is not doubled */
	assert_non_null(strstr(out, "on stderr 7\n"));
	assert_null(strstr(out, "\n\n"));
	assert_non_null(strstr(out, "WARNING"));
	assert_null(strstr(out, "not on stderr"));
	assert_int_equal(got.calls, 0);	/* the test's function was replaced */
}

static void
emit_every_level(void)
{
	rpma_log_function_current()(RPMA_LOG_LEVEL_FATAL, NULL, 0, NULL, "fatal one\n");
	rpma_log_function_current()(RPMA_LOG_LEVEL_DEBUG, "f.c", 3, "fn", "debug one\n");
	/* no level: never printed, never an index out of the names */
	rpma_log_function_current()(RPMA_LOG_DISABLED, NULL, 0, NULL, "never\n");
	rpma_log_function_current()((enum rpma_log_level)(RPMA_LOG_LEVEL_DEBUG + 1), NULL, 0, NULL, "never\n");
}

/* the first and the last level are printed with their names, what is beyond is dropped */
static void
test_log_default__levels(void **state)
{
	(void) state;
	char out[512];

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG),
			0);
	stderr_of(emit_every_level, out, sizeof(out));
	assert_non_null(strstr(out, "librpma FATAL: fatal one\n"));
	assert_non_null(strstr(out, "librpma DEBUG: f.c:3 fn(): debug one\n"));
	assert_null(strstr(out, "never"));
}

/* syslog gets what passes the main threshold, inclusive, at the matching priority */
static void
test_log_default__syslog(void **state)
{
	(void) state;

	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	rpma_log_function_current()(RPMA_LOG_LEVEL_WARNING, "f.c", 1, "fn", "warned %d\n", 1);
	assert_int_equal(mock_rec.syslog_count, 1);
	assert_int_equal(mock_rec.syslog_priority, LOG_WARNING);
	assert_string_equal(mock_rec.syslog_last, "librpma WARNING: warned 1");
	rpma_log_function_current()(RPMA_LOG_LEVEL_NOTICE, "f.c", 1, "fn", "noticed\n");
	assert_int_equal(mock_rec.syslog_count, 1);
	rpma_log_function_current()(RPMA_LOG_LEVEL_FATAL, "f.c", 1, "fn", "fatal\n");
	assert_int_equal(mock_rec.syslog_count, 2);
	assert_int_equal(mock_rec.syslog_priority, LOG_CRIT);
}

/* an empty message, a bare newline and no newline: one whole line each */
static void
test_log_default__empty(void **state)
{
	(void) state;
	const char *empty = "";

	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	rpma_log_function_current()(RPMA_LOG_LEVEL_ERROR, NULL, 0, NULL, "%s", empty);
	assert_int_equal(mock_rec.syslog_count, 1);
	assert_string_equal(mock_rec.syslog_last, "librpma ERROR: ");
	rpma_log_function_current()(RPMA_LOG_LEVEL_ERROR, NULL, 0, NULL, "\n");
	assert_int_equal(mock_rec.syslog_count, 2);
	assert_string_equal(mock_rec.syslog_last, "librpma ERROR: ");
	/* a message without the newline loses nothing */
	rpma_log_function_current()(RPMA_LOG_LEVEL_ERROR, NULL, 0, NULL, "no newline");
	assert_string_equal(mock_rec.syslog_last, "librpma ERROR: no newline");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define LTEST(f) cmocka_unit_test_setup_teardown(f, log_setup, mock_teardown)
		LTEST(test_log_set_threshold__invalid),
		LTEST(test_log_set_threshold__round_trip),
		LTEST(test_log_threshold__filters),
		LTEST(test_log_function__location),
		LTEST(test_log_provider__errno),
		LTEST(test_log_function__format),
		LTEST(test_log_message__long),
		LTEST(test_log_default__stderr),
		LTEST(test_log_default__levels),
		LTEST(test_log_default__syslog),
		LTEST(test_log_default__empty),
	};
	return RUN(tests);
}
