// SPDX-License-Identifier: BSD-3-Clause
/*
 * old-program.c -- a librpma 1.x program: check-packages builds it against
 * Debian's librpma-dev and runs the same binary on the packages of this
 * tree.
 *
 *   old-program            objects that need no RDMA device
 *   old-program ADDRESS    also the device that has ADDRESS: a peer and a
 *                          registered region on it, a listening endpoint
 *
 * Prints one line per check and "old-program: ok" at the end; exits 1 at
 * the first check that fails.
 */

#include <librpma.h>
#include <stdio.h>
#include <string.h>

static int failed(const char *what, int ret)
{
	fprintf(stderr, "old-program: %s: %d (%s)\n", what, ret, rpma_err_2str(ret));
	return 1;
}

#define CHECK(call) do { \
		int ret_ = (call); \
		if (ret_) \
			return failed(#call, ret_); \
	} while (0)

#define EXPECT(cond) do { \
		if (!(cond)) { \
			fprintf(stderr, "old-program: not true: %s\n", #cond); \
			return 1; \
		} \
	} while (0)

static int log_calls;

static void count_log(enum rpma_log_level level, const char *file, int line,
		const char *func, const char *format, ...)
{
	(void) level; (void) file; (void) line; (void) func; (void) format;
	log_calls++;
}

static int no_device(void)
{
	struct rpma_conn_cfg *cfg = NULL;
	int timeout = 0;
	uint32_t sq = 0;

	CHECK(rpma_conn_cfg_new(&cfg));
	CHECK(rpma_conn_cfg_get_timeout(cfg, &timeout));
	EXPECT(timeout == RPMA_DEFAULT_TIMEOUT_MS);
	CHECK(rpma_conn_cfg_set_timeout(cfg, 2345));
	CHECK(rpma_conn_cfg_get_timeout(cfg, &timeout));
	EXPECT(timeout == 2345);
	CHECK(rpma_conn_cfg_set_sq_size(cfg, 77));
	CHECK(rpma_conn_cfg_get_sq_size(cfg, &sq));
	EXPECT(sq == 77);
	CHECK(rpma_conn_cfg_delete(&cfg));
	EXPECT(cfg == NULL);
	EXPECT(rpma_conn_cfg_new(NULL) == RPMA_E_INVAL);
	printf("conn_cfg: new, set/get timeout and SQ size, delete\n");

	enum rpma_log_level level;
	CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG));
	CHECK(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level));
	EXPECT(level == RPMA_LOG_LEVEL_DEBUG);
	CHECK(rpma_log_set_function(count_log));
	CHECK(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
	CHECK(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING));
	printf("log: thresholds, own function set and reset\n");

	EXPECT(strlen(rpma_err_2str(RPMA_E_INVAL)) > 0);
	EXPECT(strlen(rpma_err_2str(RPMA_E_PROVIDER)) > 0);
	printf("err_2str: %s\n", rpma_err_2str(RPMA_E_INVAL));
	return 0;
}

static int device(const char *addr)
{
	struct ibv_context *ctx = NULL;
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_ep *ep = NULL;
	size_t desc_size = 0;
	static char buf[4096];

	CHECK(rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
	EXPECT(ctx != NULL);
	CHECK(rpma_peer_new(ctx, &peer));
	CHECK(rpma_mr_reg(peer, buf, sizeof(buf),
			RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST, &mr));
	CHECK(rpma_mr_get_descriptor_size(mr, &desc_size));
	EXPECT(desc_size > 0);
	CHECK(rpma_ep_listen(peer, addr, "7799", &ep));
	CHECK(rpma_ep_shutdown(&ep));
	CHECK(rpma_mr_dereg(&mr));
	CHECK(rpma_peer_delete(&peer));
	EXPECT(peer == NULL && mr == NULL && ep == NULL);
	printf("device at %s: peer, region (descriptor %zu bytes), endpoint\n",
			addr, desc_size);
	return 0;
}

int main(int argc, char *argv[])
{
	if (no_device())
		return 1;
	if (argc > 1 && device(argv[1]))
		return 1;
	printf("old-program: ok\n");
	return 0;
}
