// SPDX-License-Identifier: BSD-3-Clause
/*
 * log_debug.c -- preloaded (LD_PRELOAD) into a program on librpma, it has
 * the library log everything, down to RPMA_LOG_LEVEL_DEBUG, to stderr with
 * a time stamp, whatever the program did not ask for: utils/stress keeps
 * this log of every failed run.
 *
 * librpma has no environment variable for its log threshold, and the
 * examples and the integration tests set the stderr threshold
 * (RPMA_LOG_THRESHOLD_AUX) to ERROR themselves. So this installs a log
 * function of its own, which ignores that threshold, and raises the main
 * one. A program that sets its own function or lowers the main threshold
 * later wins (examples/15 does both).
 *
 * The symbols are looked up at run time: the object needs no librpma to
 * load, and serves whichever librpma.so.0 the program runs on.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <librpma.h>

static const char *const level_names[] = {
	"FATAL", "ERROR", "WARNING", "NOTICE", "INFO", "DEBUG",
};

static void
log_debug(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	char message[1024];
	struct timespec now;
	va_list ap;

	va_start(ap, message_format);
	int len = vsnprintf(message, sizeof(message), message_format, ap);
	va_end(ap);
	if (len < 0)
		return;
	size_t end = strlen(message);
	if (end > 0 && message[end - 1] == '\n')
		message[end - 1] = '\0';
	/* the clock other logs (dmesg, the other side's) can be set against */
	(void) clock_gettime(CLOCK_MONOTONIC, &now);
	const char *name = level >= RPMA_LOG_LEVEL_FATAL && level <= RPMA_LOG_LEVEL_DEBUG ?
			level_names[level] : "?";
	/* one call per line: threads do not tear each other's lines */
	fprintf(stderr, "librpma-debug %ld.%06ld %s %s:%d %s(): %s\n", (long)now.tv_sec,
			now.tv_nsec / 1000, name, file_name ? file_name : "?", line_no,
			function_name ? function_name : "?", message);
}

__attribute__((constructor)) static void
log_debug_install(void)
{
	int (*set_function)(rpma_log_function *) = dlsym(RTLD_DEFAULT, "rpma_log_set_function");
	int (*set_threshold)(enum rpma_log_threshold, enum rpma_log_level) =
			dlsym(RTLD_DEFAULT, "rpma_log_set_threshold");

	/* a program without librpma (a shell, ctest) is left alone */
	if (set_function == NULL || set_threshold == NULL)
		return;
	if (set_function(log_debug) || set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG))
		fprintf(stderr, "librpma-debug: cannot raise librpma's log level\n");
}
