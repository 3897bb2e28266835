// SPDX-License-Identifier: BSD-3-Clause
/*
 * log_print.c -- librpma's log through a function of our own.
 *
 * librpma calls the function for every message at or below the main
 * threshold (RPMA_LOG_THRESHOLD), with the message's level, where in the
 * library it comes from (file_name may be NULL) and its printf format and
 * arguments. The format ends with a newline, as librpma 1.x's do: this
 * function prints the message as it comes, so the newline ends the line,
 * and counts the messages that lack one. The second threshold
 * (RPMA_LOG_THRESHOLD_AUX) is for the log function to use as it likes: the
 * default one writes to stderr up to it. This one has no use for it.
 *
 * librpma may log from any thread that calls it: the counters are atomic
 * and every message is printed with one call.
 */

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "log_print.h"

static atomic_int messages;
static atomic_int without_newline;

static const char *const level_names[] = {
	"FATAL", "ERROR", "WARNING", "NOTICE", "INFO", "DEBUG",
};

static const char *
level_name(enum rpma_log_level level)
{
	if (level < RPMA_LOG_LEVEL_FATAL || level > RPMA_LOG_LEVEL_DEBUG)
		return "?";
	return level_names[level];
}

static void
log_print(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	char message[512];
	va_list ap;

	va_start(ap, message_format);
	int len = vsnprintf(message, sizeof(message), message_format, ap);
	va_end(ap);
	if (len < 0)
		return;
	atomic_fetch_add(&messages, 1);
	size_t end = strlen(message);
	const char *tail = "";
	if (end == 0 || message[end - 1] != '\n') {
		atomic_fetch_add(&without_newline, 1);
		tail = " [no newline at the end]\n";
	}
	/* the message's own newline ends the line */
	if (file_name)
		printf("log: %s from %s:%d %s(): %s%s", level_name(level), file_name, line_no,
				function_name, message, tail);
	else
		printf("log: %s: %s%s", level_name(level), message, tail);
}

int
log_print_threshold(enum rpma_log_level level)
{
	int ret = rpma_log_set_threshold(RPMA_LOG_THRESHOLD, level);
	if (ret) {
		print_error("rpma_log_set_threshold()", ret);
		return ret;
	}
	/* read back: the threshold librpma compares every message with */
	enum rpma_log_level now;
	ret = rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &now);
	if (ret) {
		print_error("rpma_log_get_threshold()", ret);
		return ret;
	}
	printf("log threshold: %s and more severe\n", level_name(now));
	return 0;
}

int
log_print_install(enum rpma_log_level level)
{
	int ret = rpma_log_set_function(log_print);
	if (ret) {
		print_error("rpma_log_set_function()", ret);
		return ret;
	}
	return log_print_threshold(level);
}

int
log_print_uninstall(void)
{
	int ret = rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
	if (ret)
		print_error("rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION)", ret);
	printf("%d log messages, %d without a newline at the end\n", atomic_load(&messages),
			atomic_load(&without_newline));
	return ret;
}

int
log_print_count(void)
{
	return atomic_load(&messages);
}
