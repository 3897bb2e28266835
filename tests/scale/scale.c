// SPDX-License-Identifier: BSD-3-Clause
/* scale.c -- the set-up of many connections and the process's resource counts */

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "scale.h"

struct rpma_peer *
client_peer_open(void)
{
	struct ibv_context *ctx;
	struct rpma_peer *peer;

	CHECK_RET(rpma_utils_get_ibv_context(server_ip(), RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx));
	CHECK_RET(rpma_peer_new(ctx, &peer));
	return peer;
}

struct scale_hello
hello_take(struct rpma_conn_req *req, uint32_t conns, uint32_t slot_size, bool *taken)
{
	struct rpma_conn_private_data pd;
	struct scale_hello h;

	CHECK_RET(rpma_conn_req_get_private_data(req, &pd));
	/* the client's bytes: every field checked before use */
	CHECK(pd.ptr != NULL && pd.len >= sizeof(h), "a request with %u bytes of private data",
			pd.len);
	memcpy(&h, pd.ptr, sizeof(h));
	CHECK(h.magic == SCALE_MAGIC, "a request without the scale test's hello");
	CHECK(h.conns == conns && h.slot_size == slot_size,
			"the client opens %u connections of %u bytes, the server expects %u of %u"
			" (set RPMA_SCALE_* alike on both hosts)", h.conns, h.slot_size, conns,
			slot_size);
	CHECK(h.index < conns && !taken[h.index], "connection %u twice or out of range",
			h.index);
	taken[h.index] = true;
	return h;
}

struct rpma_conn *
conn_open(struct rpma_peer *peer, const struct rpma_conn_cfg *cfg,
		const struct scale_hello *hello)
{
	struct rpma_conn_private_data pd = {(void *)hello, sizeof(*hello)};

	return client_connect(peer, cfg, &pd);
}

struct rpma_mr_remote *
reply_take(const struct rpma_conn *conn, uint32_t index)
{
	struct rpma_conn_private_data pd;
	struct scale_reply r;

	CHECK_RET(rpma_conn_get_private_data(conn, &pd));
	CHECK(pd.ptr != NULL && pd.len >= sizeof(r), "a reply of %u bytes", pd.len);
	memcpy(&r, pd.ptr, sizeof(r));
	CHECK(r.index == index, "connection %u got the reply of connection %u", index, r.index);
	return server_desc_take(conn, NULL);
}

struct rpma_conn *
accept_start(struct rpma_conn_req **req, const struct rpma_mr_local *mr, uint32_t index)
{
	struct rpma_conn_private_data pd;
	struct scale_reply r;
	struct rpma_conn *conn = NULL;

	memset(&r, 0, sizeof(r));	/* the padding goes to the peer too */
	server_desc_make(&r.sd, mr, NULL, &pd);
	r.index = index;
	pd.ptr = &r;
	pd.len = sizeof(r);
	CHECK_RET(rpma_conn_req_connect(req, &pd, &conn));
	CHECK(*req == NULL && conn != NULL, "rpma_conn_req_connect() gave no connection");
	return conn;
}

static long
nr_open(void)
{
	long n = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld", &n) != 1)
		n = 0;
	(void) fclose(f);
	return n;
}

void
nofile_raise(long conns, long fds_per_conn)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)(conns * fds_per_conn + 64);

	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0, "getrlimit(): %s", strerror(errno));
	if (rl.rlim_cur >= want)
		return;
	if (rl.rlim_max < want && geteuid() == 0) {
		long max = nr_open();
		rl.rlim_max = max > 0 && (rlim_t)max < want ? (rlim_t)max : want;
	}
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit(RLIMIT_NOFILE, %llu): %s",
			(unsigned long long)rl.rlim_cur, strerror(errno));
	CHECK(rl.rlim_cur >= want, "%ld connections need %llu descriptors, the limit is %llu"
			" (ulimit -Hn)", conns, (unsigned long long)want,
			(unsigned long long)rl.rlim_cur);
}

struct usage
usage_now(void)
{
	struct usage u = {0, 0};
	long pages_total, pages_rss;

	FILE *f = fopen("/proc/self/statm", "r");
	CHECK(f != NULL, "cannot open /proc/self/statm: %s", strerror(errno));
	CHECK(fscanf(f, "%ld %ld", &pages_total, &pages_rss) == 2, "cannot read /proc/self/statm");
	(void) fclose(f);
	u.rss_kib = pages_rss * (sysconf(_SC_PAGESIZE) / 1024);

	DIR *d = opendir("/proc/self/fd");
	CHECK(d != NULL, "cannot open /proc/self/fd: %s", strerror(errno));
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (e->d_name[0] != '.')
			u.fds++;
	(void) closedir(d);
	u.fds--;	/* the directory's own descriptor */
	return u;
}

double
now_s(void)
{
	return (double)now_ms() / 1e3;
}
