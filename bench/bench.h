/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h -- what the parts of rpma-bench share: the workloads, the
 * connection set-up handed between client and server, and the transport
 * interface both modes implement.
 *
 * Both modes, the library ("lib") and raw verbs ("raw"), are reached
 * through the same table of function pointers, so the one indirect call
 * per operation is paid by both and cancels out of the ratio.
 */

#ifndef RPMA_BENCH_H
#define RPMA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

enum workload {
	WL_WRITE,	/* one-sided write, completion awaited */
	WL_APM,		/* write + rpma_flush (the appliance way) */
	WL_GPSPM,	/* write + send "persist this range" + its reply */
	WL_READ,	/* one-sided read */
	WL_ATOMIC,	/* 8-byte atomic write */
	WL_SENDRECV,	/* send/recv ping-pong */
	WL_APM_READ,	/* WL_APM on a region the client may read: a read-after-write flush */
	WL_COUNT
};

enum mode { MODE_LIB, MODE_RAW, MODE_COUNT };

const char *workload_name(enum workload wl);
int workload_from_name(const char *name);	/* -1 if unknown */
const char *mode_name(enum mode mode);

/* Needs receives on both sides (two-sided messaging). */
static inline bool
workload_messaging(enum workload wl)
{
	return wl == WL_GPSPM || wl == WL_SENDRECV;
}

#define HELLO_MAGIC 0x52424e48u	/* "RBNH" */

/* hello.flags: the client holds several connections at once (one-sided only) */
#define HELLO_HOLD 1u
/*
 * ... and wants the data through a grant bound on its connection, its
 * descriptor in a message after ESTABLISHED (lib only, one-sided only: the
 * server's wait for that message's completion would take the client's
 * first requests otherwise)
 */
#define HELLO_GRANT 2u

/* the client's connect private data: what the server must prepare */
struct hello {
	uint32_t magic;
	uint32_t workload;
	uint32_t depth;
	uint32_t msg_size;	/* the largest message either side sends */
	uint32_t flags;		/* HELLO_* */
};

/* what a GPSPM client asks the server to persist */
struct persist_req {
	uint64_t offset;
	uint64_t len;
};

/* the queue sizes of one connection, the same in both modes and on both sides */
struct queue_sizes {
	uint32_t sq, rq, cq;
};

/*
 * The smallest message slot of either side: a persist request, or lib's
 * reply with a grant's descriptor (lib.c checks that it fits).
 */
#define MSG_SLOT_MIN 128

/* the deepest queue a client may ask for */
#define MAX_DEPTH 64
#define MAX_REPS 100
/* the most connections a --scale run opens at once */
#define MAX_CONNS 256

/*
 * Fixed, because a server creates the QP before it reads the client's hello:
 * up to two send-queue entries (write + flush/send) per operation in flight.
 */
static inline struct queue_sizes
bench_queue_sizes(void)
{
	struct queue_sizes q = {.sq = 2 * MAX_DEPTH + 2, .rq = MAX_DEPTH + 2};
	q.cq = q.sq + q.rq;
	return q;
}

/* memory one side of a connection uses, registered by the mode */
struct bench_mem {
	char *data;		/* remote-accessible (server) or write source / read target */
	size_t data_size;
	char *msg;		/* message slots: recv slots first, then send slots */
	size_t msg_size;	/* one slot */
	uint32_t msg_slots;
	bool pmem;		/* data is true pmem (direct write to pmem declared) */
	void (*persist)(const void *addr, size_t len);
};

/* the server's one send slot, after the receive slots of the deepest queue */
static inline size_t
server_send_slot(const struct bench_mem *mem)
{
	return (MAX_DEPTH + 2) * mem->msg_size;
}

struct xconn;

/* one mode's data path, called identically by the client and the server */
struct xport_ops {
	/* post operations; wr_id is returned in the work completion */
	int (*write)(struct xconn *c, size_t loff, size_t roff, size_t len, bool signal);
	int (*read)(struct xconn *c, size_t loff, size_t roff, size_t len);
	int (*flush)(struct xconn *c, size_t roff, size_t len);
	int (*atomic_write)(struct xconn *c, size_t roff, const char src[8]);
	int (*send)(struct xconn *c, size_t msg_off, size_t len, uint64_t wr_id);
	int (*recv)(struct xconn *c, size_t msg_off, size_t len, uint64_t wr_id);
	/* >= 0: completions got; < 0: error */
	int (*poll)(struct xconn *c, struct ibv_wc *wc, int n);
};

/* a mode: set-up, connections and the data path */
struct xport {
	const char *name;
	const struct xport_ops *ops;
	/* client */
	int (*client_open)(const char *addr, struct bench_mem *mem, void **ctx);
	int (*connect)(void *ctx, const char *addr, const char *port,
			const struct hello *hello, struct xconn **conn);
	/* server: listening endpoint with its fd for poll() */
	int (*server_open)(const char *addr, const char *port, struct bench_mem *mem,
			void **ctx, int *listen_fd);
	/* got a connection request: prepare what hello asks for and accept */
	int (*accept)(void *ctx, struct xconn **conn, struct hello *hello);
	/* the fd that becomes readable when a connection event (the close) comes */
	int (*event_fd)(const struct xconn *conn);
	/* block until the peer disconnected */
	int (*wait_closed)(struct xconn *conn);
	int (*disconnect)(struct xconn **conn);
	void (*close)(void **ctx);
	/* which flush the connection does ("persistent", "visibility", "-") */
	const char *(*flush_kind)(const struct xconn *conn);
	/* whether ATOMIC WRITE is native on this connection */
	bool (*native_atomic)(const struct xconn *conn);
};

extern const struct xport xport_lib;
extern const struct xport xport_raw;

/* the device capability bits of the kernel ABI (rdma-core 44 names them not) */
#define BENCH_CAP_FLUSH_GLOBAL (1ULL << 38)
#define BENCH_CAP_FLUSH_PERSISTENT (1ULL << 39)
#define BENCH_CAP_ATOMIC_WRITE (1ULL << 40)

/* FLUSH placement types and a region's rights (rdma-core 45+: IBV_FLUSH_*, IBV_ACCESS_FLUSH_*) */
#define BENCH_FLUSH_GLOBAL 1u
#define BENCH_FLUSH_PERSISTENT 2u
#define BENCH_ACCESS_FLUSH_GLOBAL (1 << 8)
#define BENCH_ACCESS_FLUSH_PERSISTENT (1 << 9)

bool device_native_atomic_write(struct ibv_context *ctx);
/* the FLUSH placement types (BENCH_FLUSH_*) the device serves */
unsigned device_flush_caps(struct ibv_context *ctx);
/* ... and those this build can post (0 without ibv_wr_flush) */
unsigned device_native_flush(struct ibv_context *ctx);

/* check a client's hello (private data) against the server's memory and the flags it serves */
int hello_parse(const void *pd, size_t len, const struct bench_mem *mem, uint32_t flags,
		struct hello *hello);

/* server memory with libpmem2: path of a devdax or file, or NULL for /dev/shm */
int pmem_open(const char *path, size_t min_size, struct bench_mem *mem);
void pmem_close(struct bench_mem *mem);

int server_run(const char *addr, const char *port, const char *pmem_path, size_t max_size,
		bool once);

/* the client's options */
struct client_opts {
	const char *addr;
	const char *port;
	bool workloads[WL_COUNT];
	size_t sizes[32];
	int nsizes;
	uint32_t depth;		/* for bandwidth */
	uint64_t iters;		/* measured operations per run, at most */
	uint64_t warmup;	/* warm-up operations per run, at most */
	double duration;	/* seconds per run, at most */
	int reps;		/* runs per mode and point, lib and raw alternating */
	bool modes[MODE_COUNT];
	bool lat, bw;
	const char *csv_path;
	bool print_calls;	/* for callgrind: how often each library call was made */
	bool scale;		/* the set-up rate and the bandwidth of many connections */
	uint32_t rate_conns;	/* connections a set-up rate run opens */
	uint32_t conns[16];	/* connection counts of the aggregate bandwidth */
	int nconns;
	uint32_t conn_calls;	/* connections whose set-up and teardown are marked */
	bool grants;		/* --scale and --conn-calls: lib connections with a grant too */
};

int client_run(const struct client_opts *o);

/* client --scale, on the client's opened modes (client_run calls it) */
int scale_run(const struct client_opts *o, const struct xport *const x[MODE_COUNT],
		void *ctx[MODE_COUNT], const char ports[MODE_COUNT][16]);

/* client --conn-calls: connections opened and closed one by one, each marked */
int conn_calls_run(const struct client_opts *o, const struct xport *const x[MODE_COUNT],
		void *ctx[MODE_COUNT], const char ports[MODE_COUNT][16]);

/*
 * Phase marks for the tools that count what a connection costs (strace,
 * the audit module bench/audit.c): "rpma-bench-count PHASE LABEL" written
 * to fd -1, a system call that fails at once and that both of them see.
 * Off unless count_marks_on() was called; PHASE "-" ends a phase; "=
 * PHASE LABEL" renames the phase going on (a server learns from the hello
 * what it accepts). LABEL: the mode's name, or GRANT_LABEL for lib
 * connections with a grant.
 */
#define COUNT_MARK_PREFIX "rpma-bench-count "
#define COUNT_RENAME "="
#define GRANT_LABEL "grant"
void count_marks_on(void);
void count_mark(const char *phase, const char *label);

/* seconds on the monotonic clock */
double now_s(void);
/* for qsort(): ascending doubles */
int cmp_double(const void *a, const void *b);
/* the median of n values; sorts v */
double median(double *v, size_t n);

#define BENCH_LOG(...) fprintf(stderr, "rpma-bench: " __VA_ARGS__)

#endif /* RPMA_BENCH_H */
