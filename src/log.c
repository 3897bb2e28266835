// SPDX-License-Identifier: BSD-3-Clause
/*
 * log.c -- the logger: two thresholds and a log function, all atomics so
 * that any thread may log or reconfigure at any time without a lock.
 */

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "log.h"

#define MESSAGE_MAX 1024

static void default_function(enum rpma_log_level level, const char *file_name,
		const int line_no, const char *function_name, const char *message_format, ...);

static _Atomic int thresholds[RPMA_LOG_THRESHOLD_MAX] = {
	RPMA_LOG_LEVEL_WARNING,	/* RPMA_LOG_THRESHOLD */
	RPMA_LOG_DISABLED,	/* RPMA_LOG_THRESHOLD_AUX */
};

static _Atomic(rpma_log_function *) log_function = default_function;

static const char *const level_names[] = {
	"FATAL", "ERROR", "WARNING", "NOTICE", "INFO", "DEBUG",
};

static const int syslog_priorities[] = {
	LOG_CRIT, LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG,
};

enum rpma_log_level
rpma_log_threshold_main(void)
{
	return atomic_load_explicit(&thresholds[RPMA_LOG_THRESHOLD], memory_order_relaxed);
}

static void
default_function(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	char message[MESSAGE_MAX];
	va_list ap;

	if (level < RPMA_LOG_LEVEL_FATAL || level > RPMA_LOG_LEVEL_DEBUG)
		return;

	va_start(ap, message_format);
	int len = vsnprintf(message, sizeof(message), message_format, ap);
	va_end(ap);
	if (len < 0)
		return;
	/* the messages end with a newline (as 1.x's do); the lines below add their own */
	size_t end = strlen(message);
	if (end > 0 && message[end - 1] == '\n')
		message[end - 1] = '\0';

	if (level <= atomic_load(&thresholds[RPMA_LOG_THRESHOLD]))
		syslog(syslog_priorities[level], "librpma %s: %s", level_names[level], message);

	if (level > atomic_load(&thresholds[RPMA_LOG_THRESHOLD_AUX]))
		return;
	if (file_name)
		fprintf(stderr, "librpma %s: %s:%d %s(): %s\n", level_names[level],
				file_name, line_no, function_name, message);
	else
		fprintf(stderr, "librpma %s: %s\n", level_names[level], message);
}

rpma_log_checked_function *
rpma_log_function_current(void)
{
	/* acquire: whatever the user set up before installing the function is seen */
	return (rpma_log_checked_function *)atomic_load_explicit(&log_function,
			memory_order_acquire);
}

static int
threshold_valid(enum rpma_log_threshold threshold)
{
	return threshold == RPMA_LOG_THRESHOLD || threshold == RPMA_LOG_THRESHOLD_AUX;
}

int
rpma_log_set_threshold(enum rpma_log_threshold threshold, enum rpma_log_level level)
{
	if (!threshold_valid(threshold))
		return RPMA_E_INVAL;
	if (level < RPMA_LOG_DISABLED || level > RPMA_LOG_LEVEL_DEBUG)
		return RPMA_E_INVAL;

	atomic_store(&thresholds[threshold], level);
	return 0;
}

int
rpma_log_get_threshold(enum rpma_log_threshold threshold, enum rpma_log_level *level)
{
	if (!threshold_valid(threshold) || level == NULL)
		return RPMA_E_INVAL;

	*level = atomic_load(&thresholds[threshold]);
	return 0;
}

int
rpma_log_set_function(rpma_log_function *function)
{
	atomic_store(&log_function, function ? function : default_function);
	return 0;
}
