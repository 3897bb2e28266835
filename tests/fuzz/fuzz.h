/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz.h -- what the fuzz targets share: a check that aborts (libFuzzer
 * then keeps the input as a crash) and a quiet logger that still formats
 * every message, so a bad format argument shows under the sanitizers.
 *
 * The check's message goes through the sanitizers' report channel: it is
 * seen even when the runner silences the targets with -close_fd_mask=3.
 */

#ifndef FUZZ_H
#define FUZZ_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <sanitizer/common_interface_defs.h>

#include "librpma.h"

#define FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) \
			fuzz_fail(__FILE__, __LINE__, #cond); \
	} while (0)

static inline void
fuzz_fail(const char *file, int line, const char *cond)
{
	char msg[512];

	(void) snprintf(msg, sizeof(msg), "%s:%d: invariant broken: %s", file, line, cond);
	__sanitizer_report_error_summary(msg);
	abort();
}

/* formats into a buffer and drops it: no syslog call per rejected input */
static inline void
fuzz_log(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	char buf[512];
	va_list ap;

	(void) level;
	(void) file_name;
	(void) line_no;
	(void) function_name;
	va_start(ap, message_format);
	(void) vsnprintf(buf, sizeof(buf), message_format, ap);
	va_end(ap);
}

/* every message built (threshold DEBUG), none written anywhere */
static inline void
fuzz_log_quiet(void)
{
	FUZZ_CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG) == 0);
	FUZZ_CHECK(rpma_log_set_function(fuzz_log) == 0);
}

#endif /* FUZZ_H */
