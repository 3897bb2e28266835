// SPDX-License-Identifier: BSD-3-Clause
/* common.c -- the set-up and the checks every integration test shares */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpmem2.h>

#include "common.h"

const char *integ_role = "?";
int integ_client_index = 0;

static void
print_prefix(FILE *f)
{
	if (strcmp(integ_role, "client") == 0)
		fprintf(f, "[client %d] ", integ_client_index);
	else
		fprintf(f, "[%s] ", integ_role);
}

void
fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	print_prefix(stderr);
	fprintf(stderr, "FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static int
usage(const char *prog, const struct integ_test *tests, size_t n, const char *env_help)
{
	fprintf(stderr, "usage: %s TEST server|client [CLIENT_INDEX]\ntests:", prog);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", tests[i].name);
	fprintf(stderr, "\n%s", env_help ? env_help : "");
	return 2;
}

int
integ_main(const struct integ_test *tests, size_t n, const char *env_help, int argc,
		char *argv[])
{
	const struct integ_test *t = NULL;

	if (argc < 3 || argc > 4)
		return usage(argv[0], tests, n, env_help);
	for (size_t i = 0; i < n; i++)
		if (strcmp(tests[i].name, argv[1]) == 0)
			t = &tests[i];
	bool server = strcmp(argv[2], "server") == 0;
	if (t == NULL || (!server && strcmp(argv[2], "client") != 0))
		return usage(argv[0], tests, n, env_help);
	if ((server ? t->server : t->client) == NULL) {
		fprintf(stderr, "%s has no %s in %s\n", t->name, argv[2], argv[0]);
		return 2;
	}
	integ_role = argv[2];
	integ_client_index = argc == 4 ? atoi(argv[3]) : 0;

	/* the library's errors on stderr, next to the test's own messages */
	CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR));

	(server ? t->server : t->client)();
	note("%s: PASS", t->name);
	return 0;
}

void
note(const char *fmt, ...)
{
	va_list ap;

	print_prefix(stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* what log_keep() keeps, and the level it was asked for */
static char log_text[4096];
static enum rpma_log_level log_level;

static void
log_append(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	char line[1024];
	va_list ap;

	(void) file_name;
	(void) line_no;
	(void) function_name;
	if (level > log_level)
		return;
	va_start(ap, message_format);
	vsnprintf(line, sizeof(line), message_format, ap);
	va_end(ap);
	fprintf(stderr, "librpma: %s\n", line);
	size_t have = strlen(log_text), add = strlen(line) + 1;
	if (have + add >= sizeof(log_text)) {
		size_t keep = sizeof(log_text) / 2;
		memmove(log_text, log_text + have - keep, keep);
		log_text[keep] = '\0';
		have = keep;
	}
	snprintf(log_text + have, sizeof(log_text) - have, "%s\n", line);
}

void
log_keep(enum rpma_log_level level)
{
	log_text[0] = '\0';
	log_level = level;
	CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, level));
	CHECK_RET(rpma_log_set_function(log_append));
}

const char *
log_kept(void)
{
	return log_text;
}

void
log_stop(void)
{
	CHECK_RET(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
	CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING));
}

static const char *
env_required(const char *name, const char *why)
{
	const char *v = getenv(name);
	CHECK(v != NULL && *v != '\0', "%s is not set: %s", name, why);
	return v;
}

bool
on_1x(void)
{
	return strcmp(env_or("RPMA_TEST_1X", ""), integ_role) == 0;
}

/* the vendor id of soft-RoCE (rxe) */
#define RXE_VENDOR_ID 0xffffff

void
test_device_attr(struct ibv_device_attr_ex *attr)
{
	struct ibv_context *ctx;

	CHECK_RET(rpma_utils_get_ibv_context(test_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
	CHECK(ibv_query_device_ex(ctx, NULL, attr) == 0, "ibv_query_device_ex() failed");
}

bool
test_iwarp(void)
{
	struct ibv_context *ctx;

	CHECK_RET(rpma_utils_get_ibv_context(test_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
	return ctx->device->transport_type == IBV_TRANSPORT_IWARP;
}

bool
test_rxe(void)
{
	struct ibv_device_attr_ex attr;

	test_device_attr(&attr);
	return attr.orig_attr.vendor_id == 0xffffff;
}

bool
test_windows(void)
{
	struct ibv_device_attr_ex attr;

	test_device_attr(&attr);
	return (attr.orig_attr.device_cap_flags &
			(IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
}

static bool
rxe_holds(const struct ibv_device_attr_ex *attr)
{
	return attr->orig_attr.vendor_id == RXE_VENDOR_ID &&
			strcmp(env_or("RPMA_RXE_NATIVE", ""), "1") != 0;
}

bool
rxe_holds_native(void)
{
	struct ibv_device_attr_ex attr;

	test_device_attr(&attr);
	return rxe_holds(&attr);
}

bool
lib_native_atomic_write(void)
{
#ifndef HAVE_IBV_ATOMIC_WRITE
	return false;
#else
	struct ibv_device_attr_ex attr;

	test_device_attr(&attr);
	return (attr.device_cap_flags_ex & CAP_ATOMIC_WRITE) && !rxe_holds(&attr);
#endif
}

const char *
test_ip(void)
{
	return env_required("RPMA_TEST_IP",
			"set it to the IP address of an RDMA device (utils/rxe-vm does)");
}

const char *
test_port(void)
{
	return env_required("RPMA_TEST_PORT", "run-pair sets it from the test's port");
}

const char *
env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v != NULL && *v != '\0' ? v : fallback;
}

long
env_number(const char *name, long fallback, long min, long max)
{
	const char *v = env_or(name, NULL);
	if (v == NULL)
		return fallback;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	CHECK(errno == 0 && *end == '\0' && n >= min && n <= max,
			"%s=%s: want a number from %ld to %ld", name, v, min, max);
	return n;
}

int
wait_ms(void)
{
	static int ms;

	if (ms == 0)
		ms = (int)env_number("RPMA_TEST_WAIT_MS", 30000, 1, INT_MAX);
	return ms;
}

void *
buf_new(size_t size)
{
	void *buf = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
	CHECK(buf != NULL, "out of memory allocating %zu bytes", size);
	memset(buf, 0, size);
	return buf;
}

/* byte i of the pattern: differs between seeds, positions and 4 KiB pages */
static inline uint8_t
pattern_byte(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761u ^ (uint32_t)i ^ (uint32_t)(i >> 12) * 40503u;
	return (uint8_t)(x ^ (x >> 8) ^ (x >> 16));
}

void
pattern_fill(void *buf, size_t size, uint32_t seed, size_t offset)
{
	uint8_t *b = buf;
	for (size_t i = 0; i < size; i++)
		b[i] = pattern_byte(seed, offset + i);
}

size_t
pattern_check(const void *buf, size_t size, uint32_t seed, size_t offset)
{
	const uint8_t *b = buf;
	for (size_t i = 0; i < size; i++)
		if (b[i] != pattern_byte(seed, offset + i))
			return i;
	return SIZE_MAX;
}

uint64_t
checksum(const void *buf, size_t size)
{
	const uint8_t *b = buf;
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < size; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

struct rpma_peer *
peer_open(void)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	/* both sides use the local device that owns the test address */
	CHECK_RET(rpma_utils_get_ibv_context(test_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
	CHECK_RET(rpma_peer_new(ctx, &peer));
	return peer;
}

struct rpma_ep *
ep_open(struct rpma_peer *peer)
{
	struct rpma_ep *ep;

	CHECK_RET(rpma_ep_listen(peer, test_ip(), test_port(), &ep));

	/* the runner starts the clients once it reads this line */
	note("listening on %s:%s", test_ip(), test_port());
	return ep;
}

bool
fd_wait(int fd, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int ret;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	CHECK(ret >= 0, "poll(): %s", strerror(errno));
	return ret == 1;
}

void
fd_set_nonblock(int fd, bool nonblock)
{
	int flags = fcntl(fd, F_GETFL);
	CHECK(flags >= 0, "fcntl(F_GETFL): %s", strerror(errno));
	flags = nonblock ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
	CHECK(fcntl(fd, F_SETFL, flags) == 0, "fcntl(F_SETFL): %s", strerror(errno));
}

struct rpma_conn_req *
ep_next_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg)
{
	struct rpma_conn_req *req = NULL;
	int fd;

	CHECK_RET(rpma_ep_get_fd(ep, &fd));
	CHECK(fd_wait(fd, WAIT_MS), "no connection request within %d ms", WAIT_MS);
	CHECK_RET(rpma_ep_next_conn_req(ep, cfg, &req));
	CHECK(req != NULL, "rpma_ep_next_conn_req() gave no request");
	return req;
}

enum rpma_conn_event
conn_next_event_within(struct rpma_conn *conn, int timeout_ms)
{
	enum rpma_conn_event event = RPMA_CONN_UNDEFINED;
	int fd;

	CHECK_RET(rpma_conn_get_event_fd(conn, &fd));
	CHECK(fd_wait(fd, timeout_ms), "no connection event within %d ms", timeout_ms);
	CHECK_RET(rpma_conn_next_event(conn, &event));
	return event;
}

void
conn_expect_event(struct rpma_conn *conn, enum rpma_conn_event want)
{
	enum rpma_conn_event got = conn_next_event_within(conn, WAIT_MS);
	CHECK(got == want, "connection event %s, expected %s",
			rpma_utils_conn_event_2str(got), rpma_utils_conn_event_2str(want));
}

struct rpma_conn *
server_accept(struct rpma_conn_req **req, const struct rpma_conn_private_data *pdata)
{
	struct rpma_conn *conn = NULL;

	CHECK_RET(rpma_conn_req_connect(req, pdata, &conn));
	CHECK(*req == NULL, "rpma_conn_req_connect() did not consume the request");
	conn_expect_event(conn, RPMA_CONN_ESTABLISHED);
	return conn;
}

const char *
server_ip(void)
{
	return env_or("RPMA_TEST_SERVER_IP", test_ip());
}

/* one attempt: the connection, or NULL with *event saying why not */
static struct rpma_conn *
connect_once(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, req_prep_fn prep, void *arg,
		bool quiet, enum rpma_conn_event *event)
{
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;

	*event = RPMA_CONN_UNDEFINED;
	int ret = rpma_conn_req_new(peer, server_ip(), test_port(), cfg, &req);
	if (ret != 0 && quiet)
		return NULL;
	CHECK(ret == 0, "rpma_conn_req_new() returned %d (%s)", ret, rpma_err_2str(ret));
	if (prep != NULL)
		prep(req, arg);
	CHECK_RET(rpma_conn_req_connect(&req, pdata, &conn));
	*event = conn_next_event_within(conn, WAIT_MS);
	if (*event == RPMA_CONN_ESTABLISHED)
		return conn;
	CHECK(quiet, "connection event %s, expected RPMA_CONN_ESTABLISHED",
			rpma_utils_conn_event_2str(*event));
	CHECK_RET(rpma_conn_delete(&conn));
	return NULL;
}

struct rpma_conn *
client_connect_prep(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, req_prep_fn prep, void *arg)
{
	/*
	 * Across hosts (RPMA_TEST_SERVER_IP set) the server may not listen
	 * yet: nothing but the network says when it does, so a refused or
	 * failed attempt is tried again, for twice as long as the server waits
	 * for its client; the library's error lines for them are muted.
	 */
	bool retry = env_or("RPMA_TEST_SERVER_IP", NULL) != NULL;
	int tries = retry ? 2 * WAIT_MS / CONNECT_RETRY_MS : 1;
	enum rpma_conn_event event;

	for (int i = 1;; i++) {
		bool last = i >= tries;
		if (retry && !last)
			CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED));
		struct rpma_conn *conn = connect_once(peer, cfg, pdata, prep, arg, !last, &event);
		if (retry)
			CHECK_RET(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR));
		if (conn != NULL)
			return conn;
		nap_ms(CONNECT_RETRY_MS);
	}
}

struct rpma_conn *
client_connect(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata)
{
	return client_connect_prep(peer, cfg, pdata, NULL, NULL);
}

long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
nap_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void
conn_close_active(struct rpma_conn **conn)
{
	CHECK_RET(rpma_conn_disconnect(*conn));
	conn_expect_event(*conn, RPMA_CONN_CLOSED);
	CHECK_RET(rpma_conn_delete(conn));
	CHECK(*conn == NULL, "rpma_conn_delete() left the handle set");
}

void
conn_close_passive(struct rpma_conn **conn)
{
	conn_expect_event(*conn, RPMA_CONN_CLOSED);
	CHECK_RET(rpma_conn_disconnect(*conn));
	CHECK_RET(rpma_conn_delete(conn));
	CHECK(*conn == NULL, "rpma_conn_delete() left the handle set");
}

/*
 * run-pair --client-drops-acks tells the server (RPMA_TEST_ACKS_LOST) that
 * no acknowledgement from the client's host reaches it: then none of its
 * last SENDs may complete, each must come back flushed. This, not the
 * number of packets the filter dropped, shows that the case was tested:
 * rxe sends no ACK at all when the client closes between the receive's
 * completion and its acknowledgement (doc/FAILURES.md).
 */
void
expect_unacked_sends(int completed)
{
	if (env_or("RPMA_TEST_ACKS_LOST", NULL) == NULL)
		return;
	CHECK(completed == 0, "%d SEND(s) completed, although the client's host drops every "
			"acknowledgement", completed);
	note("no SEND completed: the client's acknowledgements were lost");
}

/*
 * The client has the server's last message before the server has its ACK;
 * should that ACK be lost, the retransmission finds the client's QP in the
 * error state its disconnect put it in, which answers nothing. The
 * client's close says the message arrived: the send is then flushed.
 */
void
conn_close_passive_after_sends(struct rpma_conn **conn, struct rpma_cq *cq, int sends,
		const void *ctx)
{
	const int total = sends;
	int efd, flushed = 0;
	CHECK_RET(rpma_conn_get_event_fd(*conn, &efd));
	const long deadline = now_ms() + WAIT_MS;
	while (sends > 0 && !fd_wait(efd, 0)) {
		struct ibv_wc wc;
		if (cq_next_wc(cq, 50, &wc)) {
			CHECK(wc.opcode == IBV_WC_SEND && wc.wr_id == (uintptr_t)ctx &&
					wc.status == IBV_WC_SUCCESS, "completion %s, op_context "
					"%#llx, status %s", wc_opcode_str(wc.opcode),
					(unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
			sends--;
		}
		CHECK(now_ms() < deadline, "neither %d SEND completions nor a connection event "
				"within %d ms", sends, WAIT_MS);
	}
	conn_expect_event(*conn, RPMA_CONN_CLOSED);
	CHECK_RET(rpma_conn_disconnect(*conn));
	while (sends > 0) {
		struct ibv_wc wc;
		CHECK(cq_next_wc(cq, WAIT_MS, &wc), "%d SENDs never came back", sends);
		/* an error completion's opcode is undefined: op_context tells */
		if (wc.wr_id == (uintptr_t)ctx) {
			CHECK(wc.status == IBV_WC_SUCCESS || wc.status == IBV_WC_WR_FLUSH_ERR,
					"a SEND after the close: status %s",
					ibv_wc_status_str(wc.status));
			flushed += wc.status == IBV_WC_WR_FLUSH_ERR;
			sends--;
		} else {
			/* a receive still posted */
			CHECK(wc.status == IBV_WC_WR_FLUSH_ERR, "after the close: op_context "
					"%#llx, status %s", (unsigned long long)wc.wr_id,
					ibv_wc_status_str(wc.status));
		}
	}
	CHECK_RET(rpma_conn_delete(conn));
	if (flushed)
		note("the client closed before %d SEND(s) had their ACK: flushed", flushed);
	/* every SEND came back successful or flushed */
	expect_unacked_sends(total - flushed);
}

bool
cq_next_wc(struct rpma_cq *cq, int timeout_ms, struct ibv_wc *wc)
{
	int fd;

	CHECK_RET(rpma_cq_get_fd(cq, &fd));
	fd_set_nonblock(fd, true);
	for (;;) {
		int ret = rpma_cq_get_wc(cq, 1, wc, NULL);
		if (ret == 0)
			return true;
		CHECK(ret == RPMA_E_NO_COMPLETION, "rpma_cq_get_wc() returned %d (%s)", ret,
				rpma_err_2str(ret));
		/* the CQ is armed: a completion after the poll above raises an event */
		if (!fd_wait(fd, timeout_ms))
			return false;
		ret = rpma_cq_wait(cq);
		CHECK(ret == 0 || ret == RPMA_E_NO_COMPLETION, "rpma_cq_wait() returned %d (%s)",
				ret, rpma_err_2str(ret));
	}
}

void
cq_expect_success(struct rpma_cq *cq, struct ibv_wc *wc)
{
	CHECK(cq_next_wc(cq, WAIT_MS, wc), "no completion within %d ms", WAIT_MS);
	/* an error's opcode is not defined: the wr_id tells which operation failed */
	CHECK(wc->status == IBV_WC_SUCCESS, "completion %s status %s, wr_id %#llx",
			wc_opcode_str(wc->opcode), ibv_wc_status_str(wc->status),
			(unsigned long long)wc->wr_id);
}

void
cq_expect(struct rpma_cq *cq, int opcode, const void *ctx, struct ibv_wc *wc)
{
	struct ibv_wc tmp;

	if (wc == NULL)
		wc = &tmp;
	cq_expect_success(cq, wc);
	CHECK(opcode == OPCODE_ANY || (int)wc->opcode == opcode,
			"completion opcode %s, expected %s", wc_opcode_str(wc->opcode),
			wc_opcode_str((enum ibv_wc_opcode)opcode));
	CHECK(wc->wr_id == (uintptr_t)ctx, "completion op_context %#llx, expected %p",
			(unsigned long long)wc->wr_id, ctx);
}

void
expect_send_and_recv(struct rpma_cq *cq, const void *send_ctx, const void *recv_ctx,
		struct ibv_wc *recv_wc)
{
	bool sent = false, received = false;

	while (!sent || !received) {
		struct ibv_wc wc;
		cq_expect_success(cq, &wc);
		if (wc.opcode == IBV_WC_SEND && wc.wr_id == (uintptr_t)send_ctx && !sent) {
			sent = true;
		} else if (wc.opcode == IBV_WC_RECV && wc.wr_id == (uintptr_t)recv_ctx &&
				!received) {
			received = true;
			*recv_wc = wc;
		} else {
			fail_at(__FILE__, __LINE__, "unexpected completion %s, op_context %#llx",
					wc_opcode_str(wc.opcode), (unsigned long long)wc.wr_id);
		}
	}
}

void
cq_expect_empty(struct rpma_cq *cq)
{
	struct ibv_wc wc;
	int ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
	CHECK(ret == RPMA_E_NO_COMPLETION, "unexpected completion: ret %d, opcode %s", ret,
			ret == 0 ? wc_opcode_str(wc.opcode) : "-");
}

#ifdef HAVE_IBV_FLUSH
_Static_assert(WC_FLUSH == IBV_WC_FLUSH, "the opcode of a native FLUSH");
#endif

const char *
wc_opcode_str(enum ibv_wc_opcode opcode)
{
	switch ((int)opcode) {
	case IBV_WC_SEND: return "IBV_WC_SEND";
	case IBV_WC_RDMA_WRITE: return "IBV_WC_RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "IBV_WC_RDMA_READ";
	case IBV_WC_ATOMIC_WRITE: return "IBV_WC_ATOMIC_WRITE";
	case WC_FLUSH: return "IBV_WC_FLUSH";
	case IBV_WC_RECV: return "IBV_WC_RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "IBV_WC_RECV_RDMA_WITH_IMM";
	default: return "IBV_WC_(other)";
	}
}

void
server_desc_make(struct server_desc *sd, const struct rpma_mr_local *mr,
		const struct rpma_peer_cfg *pcfg, struct rpma_conn_private_data *pdata)
{
	size_t len;

	memset(sd, 0, sizeof(*sd));
	CHECK_RET(rpma_mr_get_descriptor_size(mr, &len));
	CHECK(len <= sizeof(sd->mr), "MR descriptor of %zu bytes", len);
	CHECK_RET(rpma_mr_get_descriptor(mr, sd->mr));
	sd->mr_len = (uint8_t)len;
	if (pcfg) {
		CHECK_RET(rpma_peer_cfg_get_descriptor_size(pcfg, &len));
		CHECK(len <= sizeof(sd->pcfg), "peer cfg descriptor of %zu bytes", len);
		CHECK_RET(rpma_peer_cfg_get_descriptor(pcfg, sd->pcfg));
		sd->pcfg_len = (uint8_t)len;
	}
	pdata->ptr = sd;
	pdata->len = sizeof(*sd);
}

struct rpma_mr_remote *
server_desc_take(const struct rpma_conn *conn, struct rpma_peer_cfg **pcfg)
{
	struct rpma_conn_private_data pdata;
	struct rpma_mr_remote *mr = NULL;
	struct server_desc sd;

	CHECK_RET(rpma_conn_get_private_data(conn, &pdata));
	CHECK(pdata.ptr != NULL && pdata.len >= sizeof(sd),
			"the server's private data has %u bytes, expected at least %zu",
			pdata.len, sizeof(sd));
	memcpy(&sd, pdata.ptr, sizeof(sd));
	CHECK(sd.mr_len <= sizeof(sd.mr) && sd.pcfg_len <= sizeof(sd.pcfg),
			"the server's descriptors are malformed");
	CHECK_RET(rpma_mr_remote_from_descriptor(sd.mr, sd.mr_len, &mr));
	if (pcfg) {
		CHECK(sd.pcfg_len > 0, "the server sent no peer configuration");
		CHECK_RET(rpma_peer_cfg_from_descriptor(sd.pcfg, sd.pcfg_len, pcfg));
	}
	return mr;
}

struct pmem_map {
	int fd;
	struct pmem2_map *map;
	pmem2_persist_fn persist;
};

struct pmem_map *
pmem_open(size_t size, void **addr)
{
	const char *path = getenv("RPMA_TEST_PMEM");
	CHECK(path != NULL && *path != '\0', "RPMA_TEST_PMEM is not set: set it to a device "
			"DAX or a file on a DAX file system (utils/rxe-vm does)");

	struct pmem_map *pm = calloc(1, sizeof(*pm));
	CHECK(pm != NULL, "out of memory");
	/* a file on a DAX file system is made, sparse, as large as the test needs */
	pm->fd = open(path, O_RDWR | O_CREAT, 0600);
	CHECK(pm->fd >= 0, "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	CHECK(fstat(pm->fd, &st) == 0, "cannot stat %s: %s", path, strerror(errno));
	if (S_ISREG(st.st_mode) && (size_t)st.st_size < size)
		CHECK(ftruncate(pm->fd, (off_t)size) == 0, "cannot size %s: %s", path,
				strerror(errno));

	struct pmem2_config *cfg;
	struct pmem2_source *src;
	CHECK(pmem2_config_new(&cfg) == 0, "pmem2_config_new(): %s", pmem2_errormsg());
	/* cache-line granularity: true pmem, or the map fails rather than pretend */
	CHECK(pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_CACHE_LINE) == 0,
			"pmem2_config_set_required_store_granularity(): %s", pmem2_errormsg());
	CHECK(pmem2_source_from_fd(&src, pm->fd) == 0, "pmem2_source_from_fd(%s): %s", path,
			pmem2_errormsg());
	CHECK(pmem2_map_new(&pm->map, cfg, src) == 0, "pmem2_map_new(%s): %s", path,
			pmem2_errormsg());
	CHECK(pmem2_source_delete(&src) == 0, "pmem2_source_delete(): %s", pmem2_errormsg());
	CHECK(pmem2_config_delete(&cfg) == 0, "pmem2_config_delete(): %s", pmem2_errormsg());

	CHECK(pmem2_map_get_size(pm->map) >= size, "%s has %zu bytes, the test needs %zu", path,
			pmem2_map_get_size(pm->map), size);
	pm->persist = pmem2_get_persist_fn(pm->map);
	*addr = pmem2_map_get_address(pm->map);
	return pm;
}

void
pmem_persist(struct pmem_map *pm, void *addr, size_t size)
{
	pm->persist(addr, size);
}

void
pmem_close(struct pmem_map **pm)
{
	CHECK(pmem2_map_delete(&(*pm)->map) == 0, "pmem2_map_delete(): %s", pmem2_errormsg());
	CHECK(close((*pm)->fd) == 0, "close(): %s", strerror(errno));
	free(*pm);
	*pm = NULL;
}
