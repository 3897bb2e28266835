// SPDX-License-Identifier: BSD-3-Clause
/* twohost.c -- the bound, the clock and the hosts' control of twohost.h */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "twohost.h"

long
retry_bound_ms(void)
{
	return (long)((RETRY_CNT + 1) * 4.096e-3 * (double)(1L << ACK_TIMEOUT_EXP));
}

long
slack_ms(void)
{
	return env_number("RPMA_TEST_SLACK_MS", 3000, 0, 600000);
}

void
shell(const char *cmd)
{
	int ret = system(cmd);
	CHECK(ret == 0, "\"%s\" failed (status %d)", cmd, ret);
}

void
host_control(const char *line)
{
	const char *path = getenv("RXE_VM_CONTROL");
	CHECK(path != NULL && *path != '\0', "RXE_VM_CONTROL is not set: run across hosts");
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0, "cannot open %s: %s", path, strerror(errno));
	size_t len = strlen(line);
	CHECK(write(fd, line, len) == (ssize_t)len && write(fd, "\n", 1) == 1,
			"cannot write to %s: %s", path, strerror(errno));
	CHECK(close(fd) == 0, "close(%s): %s", path, strerror(errno));
	note("asked utils/rxe-vm: %s", line);
}

int
host_boot(void)
{
	return (int)env_number("RPMA_TEST_BOOT", 0, 0, 100);
}

bool
retries_forever(void)
{
	static int forever = -1;

	if (forever < 0) {
		forever = (int)env_number("RPMA_TEST_RETRY_FOREVER", -1, 0, 1);
		if (forever < 0) {
			struct ibv_context *ctx;
			CHECK_RET(rpma_utils_get_ibv_context(test_ip(),
					RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
			forever = RETRY_CNT == 7 &&
				strncmp(ibv_get_device_name(ctx->device), "rxe", 3) == 0;
		}
	}
	return forever;
}

int
conn_give_up(struct rpma_conn **conn, struct rpma_cq *cq)
{
	int efd;
	CHECK_RET(rpma_conn_get_event_fd(*conn, &efd));
	CHECK(!fd_wait(efd, 1000), "a connection event came without a disconnect");
	long t = now_ms();
	CHECK_RET(rpma_conn_disconnect(*conn));
	struct ibv_wc wc;
	int n = 0;
	while (cq_next_wc(cq, 1000, &wc)) {
		CHECK(wc.status == IBV_WC_WR_FLUSH_ERR, "after the disconnect: %s, expected %s",
				ibv_wc_status_str(wc.status), ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR));
		n++;
	}
	CHECK_RET(rpma_conn_delete(conn));
	note("no connection event within 1 s; disconnected: %d in flight came back "
			"IBV_WC_WR_FLUSH_ERR; deleted %ld ms after the disconnect", n, now_ms() - t);
	return n;
}

long
rxe_counter(const char *name)
{
	char path[128];
	long value = -1;

	snprintf(path, sizeof(path), "/sys/class/infiniband/rxe0/ports/1/hw_counters/%s", name);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}
