/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.h -- the logging the modules use: a message is built only when its
 * level passes the main threshold.
 */

#ifndef RPMA_LOG_H
#define RPMA_LOG_H

#include <errno.h>
#include <string.h>

#include "rpma.h"

/* the main threshold, read without a lock */
enum rpma_log_level rpma_log_threshold_main(void);

/*
 * The log function as the modules call it: the format attribute makes the
 * compiler check every message against its arguments.
 */
typedef void rpma_log_checked_function(enum rpma_log_level level, const char *file,
		int line, const char *func, const char *fmt, ...)
		__attribute__((format(printf, 5, 6)));

/* the current log function (the user's or the default one) */
rpma_log_checked_function *rpma_log_function_current(void);

/*
 * As librpma 1.x does, the log function gets the message's own format and
 * arguments, the format ending with a newline.
 */
#define RPMA_LOG(level, fmt, ...) \
	do { \
		if ((level) <= rpma_log_threshold_main()) \
			rpma_log_function_current()((level), __FILE__, __LINE__, __func__, \
					fmt "\n", ##__VA_ARGS__); \
	} while (0)

#define RPMA_LOG_ERROR(...)	RPMA_LOG(RPMA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define RPMA_LOG_WARNING(...)	RPMA_LOG(RPMA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define RPMA_LOG_NOTICE(...)	RPMA_LOG(RPMA_LOG_LEVEL_NOTICE, __VA_ARGS__)
#define RPMA_LOG_INFO(...)	RPMA_LOG(RPMA_LOG_LEVEL_INFO, __VA_ARGS__)
#define RPMA_LOG_DEBUG(...)	RPMA_LOG(RPMA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/* one line naming the failed provider call; errno is left holding err */
#define RPMA_LOG_PROVIDER(err, call) \
	do { \
		int err_ = (err); \
		RPMA_LOG_ERROR("%s failed: %s", (call), strerror(err_)); \
		errno = err_; \
	} while (0)

#endif /* RPMA_LOG_H */
