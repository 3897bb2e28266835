// SPDX-License-Identifier: BSD-3-Clause
/*
 * fuzz_example09_flush_req.c -- the flush request a client sends to the
 * server of examples/09-flush-to-persistent-gpspm, as its serve() takes it:
 * a message of other than 16 bytes is refused before any parsing, and
 * range_check() accepts [offset, offset + length) only inside the region.
 * An accepted range is then touched in a buffer of exactly the region's
 * size, so an overflow the check let through shows under ASan.
 *
 * range_check() is static, so the example's server is compiled in here
 * with its main() renamed; the example's own sources are not changed.
 */

#include <stdint.h>
#include <string.h>

#include "fuzz.h"

#define main example09_server_main
#include "09-flush-to-persistent-gpspm/server.c"
#undef main

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *region;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	region = malloc(MEM_DATA_SIZE);
	FUZZ_CHECK(region != NULL);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flush_req req;

	/* serve(): anything but a whole request is refused as malformed */
	if (size != sizeof(req))
		return 0;
	memcpy(&req, data, sizeof(req));

	/* the range, in arithmetic that cannot wrap */
	int inside = req.length != 0 && req.offset <= MEM_DATA_SIZE &&
			req.length <= MEM_DATA_SIZE - req.offset;

	int ret = range_check(&req);
	FUZZ_CHECK(ret == 0 || ret == EINVAL);
	FUZZ_CHECK((ret == 0) == inside);
	if (ret == 0)
		memset(region + req.offset, 0x5a, req.length);	/* what persisting would read */
	return 0;
}
