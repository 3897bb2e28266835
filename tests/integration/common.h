/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h -- what every integration test shares: checks that end the
 * process with a message, the peer, the endpoint and the connection set-up,
 * waiting with a deadline, and the descriptors the server hands over in its
 * private data.
 *
 * Each test is a server function and a client function of one program
 * (main.c); run-pair starts them as separate processes.
 */

#ifndef INTEG_COMMON_H
#define INTEG_COMMON_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <librpma.h>

/*
 * How long any single wait may take before the test fails (ms):
 * RPMA_TEST_WAIT_MS (run-pair sets it from its time limit), or 30 s.
 */
int wait_ms(void);
#define WAIT_MS wait_ms()

/* the variable's value, or fallback when it is unset or empty */
const char *env_or(const char *name, const char *fallback);
/* the variable as a number from min to max (fails the test otherwise), or fallback */
long env_number(const char *name, long fallback, long min, long max);

/* the process fails with file, line and the RPMA_E_* meaning of ret */
#define CHECK_RET(call) do { \
	int ret_ = (call); \
	if (ret_ != 0) \
		fail_at(__FILE__, __LINE__, "%s returned %d (%s)", #call, ret_, \
				rpma_err_2str(ret_)); \
} while (0)

/* the process fails unless call returns exactly want */
#define CHECK_EQ_RET(call, want) do { \
	int ret_ = (call); \
	if (ret_ != (want)) \
		fail_at(__FILE__, __LINE__, "%s returned %d (%s), expected %s", #call, \
				ret_, rpma_err_2str(ret_), #want); \
} while (0)

#define CHECK(cond, ...) do { \
	if (!(cond)) \
		fail_at(__FILE__, __LINE__, __VA_ARGS__); \
} while (0)

__attribute__((noreturn, format(printf, 3, 4)))
void fail_at(const char *file, int line, const char *fmt, ...);

/* one test of a program: its server (NULL: the client runs alone) and client */
struct integ_test {
	const char *name;
	void (*server)(void);
	void (*client)(void);
};

/*
 * The main() of a test program: "PROGRAM TEST server|client [INDEX]" runs
 * that side of the test of tests[] (n of them); 2 and a usage naming the
 * tests and, when not NULL, the environment (env_help) for a bad command line.
 */
int integ_main(const struct integ_test *tests, size_t n, const char *env_help, int argc,
		char *argv[]);

/* the role of the current process and the client's index, for messages */
extern const char *integ_role;
extern int integ_client_index;

/*
 * Whether this process runs librpma 1.x: RPMA_TEST_1X names the side that
 * does (CMakeLists.txt sets it on both sides of a mixed pair with 1.x).
 */
bool on_1x(void);

/* what ibv_query_device_ex() says of the device of RPMA_TEST_IP */
void test_device_attr(struct ibv_device_attr_ex *attr);

/*
 * Whether the device of RPMA_TEST_IP is iWARP (soft-iWARP in utils/rxe-vm
 * --device siw): no immediate data, no atomics, no memory windows, and a
 * connection manager over TCP. What a test asserts there instead is
 * declared in tests.def (IWARP lines).
 */
bool test_iwarp(void);

/* whether the device of RPMA_TEST_IP binds type-2 memory windows (grants) */
bool test_windows(void);

/* the device is soft-RoCE (rxe) */
bool test_rxe(void);

/* device_cap_flags_ex bits of the kernel ABI: FLUSH of both placements, ATOMIC WRITE */
#define CAP_FLUSH ((1ULL << 38) | (1ULL << 39))
#define CAP_ATOMIC_WRITE (1ULL << 40)

/*
 * Whether the library holds back the native operations rxe fails when
 * sent again (src/peer.c): the device of RPMA_TEST_IP is soft-RoCE and
 * RPMA_RXE_NATIVE is not 1.
 */
bool rxe_holds_native(void);

/*
 * Whether this library, built with ibv_wr_atomic_write(), posts an atomic
 * write natively to the device of RPMA_TEST_IP: where it offers ATOMIC
 * WRITE, unless rxe_holds_native().
 */
bool lib_native_atomic_write(void);

/* a note on stdout, prefixed with the role */
__attribute__((format(printf, 1, 2)))
void note(const char *fmt, ...);

/*
 * The library's messages of level (RPMA_LOG_LEVEL_*) and above are kept
 * from here on, printed as well; log_kept() has what came since
 * log_keep() (the last 4 KiB of it), log_stop() goes back to the default.
 */
void log_keep(enum rpma_log_level level);
const char *log_kept(void);
void log_stop(void);

/* RPMA_TEST_IP and RPMA_TEST_PORT, failing clearly when they are unset */
const char *test_ip(void);
const char *test_port(void);

/* a zero-filled buffer of size bytes, aligned to a page */
void *buf_new(size_t size);

/* fill buf with a pattern that depends on seed and the offset */
void pattern_fill(void *buf, size_t size, uint32_t seed, size_t offset);
/* the offset of the first byte that differs from the pattern, or SIZE_MAX */
size_t pattern_check(const void *buf, size_t size, uint32_t seed, size_t offset);
/* a 64-bit FNV-1a checksum */
uint64_t checksum(const void *buf, size_t size);

/* a peer on the device serving RPMA_TEST_IP */
struct rpma_peer *peer_open(void);

/* listen and tell run-pair that the server is ready */
struct rpma_ep *ep_open(struct rpma_peer *peer);

/* wait until fd is readable; false when timeout_ms passed */
bool fd_wait(int fd, int timeout_ms);
/* set or clear O_NONBLOCK */
void fd_set_nonblock(int fd, bool nonblock);

/* the next connection request, waiting at most WAIT_MS */
struct rpma_conn_req *ep_next_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg);

/* the next connection event, waiting at most timeout_ms */
enum rpma_conn_event conn_next_event_within(struct rpma_conn *conn, int timeout_ms);
/* the next event must be want */
void conn_expect_event(struct rpma_conn *conn, enum rpma_conn_event want);

/* accept req with pdata and wait for ESTABLISHED */
struct rpma_conn *server_accept(struct rpma_conn_req **req,
		const struct rpma_conn_private_data *pdata);
/* the server's address: RPMA_TEST_SERVER_IP (across hosts) or RPMA_TEST_IP */
const char *server_ip(void);

/* connect to the test server and wait for ESTABLISHED */
struct rpma_conn *client_connect(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata);

/* what a client does to its request before it connects (post receives) */
typedef void (*req_prep_fn)(struct rpma_conn_req *req, void *arg);

/*
 * client_connect() calling prep(req, arg) first; across hosts every
 * attempt does so, refused ones retried every CONNECT_RETRY_MS until the
 * server listens
 */
struct rpma_conn *client_connect_prep(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, req_prep_fn prep, void *arg);
#define CONNECT_RETRY_MS 250

/* sleep ms milliseconds */
void nap_ms(int ms);
/* a monotonic clock, in ms */
long now_ms(void);

/* client side: disconnect, wait for CLOSED, delete */
void conn_close_active(struct rpma_conn **conn);
/* server side: wait for the client's CLOSED, disconnect, delete */
void conn_close_passive(struct rpma_conn **conn);
/*
 * server side, when what it sent last (sends SENDs with op_context ctx
 * outstanding) is what the client waits for before it closes: each send's
 * successful completion, unless the client's CLOSED comes first; then
 * disconnect, the rest come back successful or IBV_WC_WR_FLUSH_ERR, and
 * delete; then expect_unacked_sends().
 */
void conn_close_passive_after_sends(struct rpma_conn **conn, struct rpma_cq *cq, int sends,
		const void *ctx);
/*
 * server side, after its last SENDs came back, completed of them
 * successfully: with RPMA_TEST_ACKS_LOST set (run-pair --client-drops-acks)
 * that must be none
 */
void expect_unacked_sends(int completed);

/*
 * One completion from cq, waiting for it at most timeout_ms on the CQ's fd
 * (switched to non-blocking); false when none came in time.
 */
bool cq_next_wc(struct rpma_cq *cq, int timeout_ms, struct ibv_wc *wc);
/* any opcode, for cq_expect() */
#define OPCODE_ANY (-1)
/* one successful completion of opcode (or OPCODE_ANY) with op_context ctx */
void cq_expect(struct rpma_cq *cq, int opcode, const void *ctx, struct ibv_wc *wc);
/* the next completion, which must be a success */
void cq_expect_success(struct rpma_cq *cq, struct ibv_wc *wc);
/* one SEND and one RECV completion, in whichever order they come */
void expect_send_and_recv(struct rpma_cq *cq, const void *send_ctx, const void *recv_ctx,
		struct ibv_wc *recv_wc);
/* no completion is waiting on cq */
void cq_expect_empty(struct rpma_cq *cq);

const char *wc_opcode_str(enum ibv_wc_opcode opcode);

/* the completion of a native FLUSH: IBV_WC_FLUSH of rdma-core 45 and later */
#define WC_FLUSH 8
/* the completion of an rpma_flush(): a native FLUSH or a read after the writes */
#define WC_IS_FLUSH(opcode) ((opcode) == WC_FLUSH || (opcode) == IBV_WC_RDMA_READ)

/*
 * What the server sends in its private data: the descriptor of a memory
 * region and of its peer configuration.
 */
struct server_desc {
	uint8_t mr_len;
	uint8_t pcfg_len;
	char mr[64];
	char pcfg[32];
};

/* fill sd from mr and (when not NULL) pcfg; *pdata points at sd */
void server_desc_make(struct server_desc *sd, const struct rpma_mr_local *mr,
		const struct rpma_peer_cfg *pcfg, struct rpma_conn_private_data *pdata);
/* the remote region (and, when pcfg is not NULL, the peer config) the server sent */
struct rpma_mr_remote *server_desc_take(const struct rpma_conn *conn,
		struct rpma_peer_cfg **pcfg);

/* a region of RPMA_TEST_PMEM (device DAX) mapped with libpmem2 */
struct pmem_map;
struct pmem_map *pmem_open(size_t size, void **addr);
void pmem_persist(struct pmem_map *pm, void *addr, size_t size);
void pmem_close(struct pmem_map **pm);

#endif /* INTEG_COMMON_H */
