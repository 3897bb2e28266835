// SPDX-License-Identifier: BSD-3-Clause
/*
 * rpmalog-test.c -- the replicated log end to end, on rpmalogd replicas
 * already started: rpmalog-test CASE REPLICA... (each "addr:port").
 *
 *   basic    appends of 0 B to 64 KiB, walked back byte for byte; opened
 *            again at newer epochs under both policies, the log the same
 *   fence    a writer of a newer epoch fences the older: its appends fail
 *            at the call and none of their bytes is read
 *   killed   (RPMALOG_TEST_KILL: a replica's pid) that replica killed while
 *            appends go on: under "majority" each returns, the replica
 *            left behind; a writer under "all" then fails at the open
 *   killed_all  the same under "all": the append the death meets fails,
 *            and every append that returned is read back, in order
 *   restamp  (RPMALOG_TEST_FILES: the replicas' files, ':' between) a
 *            writer killed before it closes; the next one rewrites the
 *            entries past the committed end at its epoch, on every replica
 *   rejoin   opened while the third replica is not there yet; it is asked
 *            for ("start the third replica"), caught up and counted while
 *            appends go on; then the first (RPMALOG_TEST_KILL) is killed
 *            and the rejoined one makes the majority
 *   bad      bad arguments on an open log, each refused with RPMALOG_E_INVAL
 *            or RPMALOG_E_FULL; then the log (RPMALOG_TEST_FILES: its size)
 *            filled to its end: the append that does not fit fails with
 *            RPMALOG_E_FULL, the log stays whole and takes what still fits
 *   writer_killed  entries of about 64 KiB appended, each told once it
 *            returned ("appended K"), until the test kills the writer; run
 *            again with RPMALOG_TEST_NEXT (one past the last told), the next
 *            writer reads back every one told and any after, each whole
 *   lossy    (across hosts, the link lossy) appends under "majority"; then
 *            ("heal the link") any replica left behind rejoined while
 *            appends go on, and the log read back by the next writer and
 *            on each replica alone
 *   away     (across hosts) a replica taken away ("take a replica away":
 *            its link cut, its host powered off) while appends go on under
 *            "majority"; once it is left behind ("bring it back") it
 *            rejoins while appends go on, and the log is read back as lossy's
 */

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpmalog.h>

#include "scan.h"

#define CHECK(cond)                                                                 \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "%s:%d: not so: %s\n", __FILE__, __LINE__,  \
					#cond);                                     \
			exit(1);                                                    \
		}                                                                   \
	} while (0)

#define OK(call)                                                                    \
	do {                                                                        \
		int ret_ = (call);                                                  \
		if (ret_) {                                                         \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
					rpmalog_err_2str(ret_));                    \
			exit(1);                                                    \
		}                                                                   \
	} while (0)

static const char *const *replicas;
static unsigned n_replicas;
static int large; /* writer_killed's entries: about 64 KiB each */

/* entry K's length and bytes: every entry tells its index and its place */
static size_t
length_of(uint64_t k)
{
	static const size_t lengths[] = { 0, 1, 7, 8, 64, 100, 4096, 65536 };

	if (large)
		return 65536 - k % 8;
	return lengths[k % (sizeof(lengths) / sizeof(lengths[0]))];
}

static void
fill(uint8_t *buf, uint64_t k, uint64_t tag)
{
	for (size_t i = 0; i < length_of(k); i++)
		buf[i] = (uint8_t)(k * 131 + i * 7 + tag);
}

struct expect {
	uint64_t next, tag;
};

/* each entry walked is the one appended, in order */
static int
compare(uint64_t index, const void *data, size_t len, void *arg)
{
	struct expect *e = arg;
	static uint8_t want[65536];

	if (index != e->next || len != length_of(index))
		return 1;
	fill(want, index, e->tag);
	if (memcmp(data, want, len))
		return 2;
	e->next++;
	return 0;
}

static void
walked(struct rpmalog *log, uint64_t next, uint64_t tag)
{
	struct expect e = { 0, tag };
	uint64_t first, end;

	OK(rpmalog_tell(log, &first, &end));
	CHECK(first == 0 && end == next);
	OK(rpmalog_walk(log, 0, compare, &e));
	CHECK(e.next == next);
}

static void
appended(struct rpmalog *log, uint64_t from, uint64_t to, uint64_t tag)
{
	static uint8_t buf[65536];
	uint64_t index;

	for (uint64_t k = from; k < to; k++) {
		fill(buf, k, tag);
		OK(rpmalog_append(log, buf, length_of(k), &index));
		CHECK(index == k);
	}
}

static struct rpmalog *
opened(enum rpmalog_policy policy, uint64_t epoch)
{
	struct rpmalog *log = NULL;

	OK(rpmalog_open(replicas, n_replicas, policy, epoch, RPMALOG_ACCEPT_VISIBILITY, &log));
	return log;
}

/* the log read back, closed, and read back once more by a writer of EPOCH */
static void
reread(struct rpmalog *log, uint64_t next, uint64_t tag, uint64_t epoch)
{
	walked(log, next, tag);
	OK(rpmalog_close(&log));
	log = opened(RPMALOG_POLICY_MAJORITY, epoch);
	walked(log, next, tag);
	OK(rpmalog_close(&log));
}

static void
basic(void)
{
	struct rpmalog *log = opened(RPMALOG_POLICY_MAJORITY, 1);
	unsigned live, all;

	OK(rpmalog_replicas(log, &live, &all));
	CHECK(live == n_replicas && all == n_replicas);
	walked(log, 0, 0);
	appended(log, 0, 40, 0);
	walked(log, 40, 0);
	OK(rpmalog_close(&log));
	CHECK(log == NULL);
	log = opened(RPMALOG_POLICY_ALL, 2);
	walked(log, 40, 0);
	appended(log, 40, 50, 0);
	OK(rpmalog_close(&log));
	log = opened(RPMALOG_POLICY_MAJORITY, 3);
	walked(log, 50, 0);
	OK(rpmalog_close(&log));
	printf("basic: 50 entries appended, walked at 3 epochs\n");
}

static void
fence(void)
{
	struct rpmalog *old = opened(RPMALOG_POLICY_ALL, 10), *new, *stale = NULL;
	uint64_t index;
	int ret;

	appended(old, 0, 3, 1);
	new = opened(RPMALOG_POLICY_ALL, 11);
	/* the replicas' notice, or the revoked grant where the append meets it first */
	ret = rpmalog_append(old, "late", 4, &index);
	CHECK(ret == RPMALOG_E_FENCED || ret == RPMALOG_E_REPLICA);
	CHECK(rpmalog_append(old, "later", 5, &index) == ret);
	walked(new, 3, 1);
	appended(new, 3, 6, 1);
	CHECK(rpmalog_open(replicas, n_replicas, RPMALOG_POLICY_ALL, 10,
			RPMALOG_ACCEPT_VISIBILITY, &stale) == RPMALOG_E_FENCED);
	CHECK(stale == NULL);
	walked(new, 6, 1);
	(void) rpmalog_close(&old);
	OK(rpmalog_close(&new));
	printf("fence: the writer of epoch 10 fenced by 11's, none of its late bytes read\n");
}

/*
 * Appends from *K on (tag TAG) through a replica's death and 20 past the
 * moment it is seen (a replica killed may take a while to go).
 */
static void
past_death(struct rpmalog *log, uint64_t *k, uint64_t tag)
{
	unsigned live, all;

	for (uint64_t seen = 0; seen < 20; (*k)++) {
		appended(log, *k, *k + 1, tag);
		OK(rpmalog_replicas(log, &live, &all));
		seen += live < n_replicas;
		CHECK(*k < 100000);
	}
}

static void *
killer(void *arg)
{
	usleep(200 * 1000); /* the appends are under way */
	CHECK(kill(*(pid_t *)arg, SIGKILL) == 0);
	return NULL;
}

/* the replica of RPMALOG_TEST_KILL killed by a thread of its own, soon */
static pthread_t
kill_soon(void)
{
	static pid_t pid;
	const char *victim = getenv("RPMALOG_TEST_KILL");
	pthread_t t;

	pid = victim ? (pid_t)atoi(victim) : 0;
	CHECK(pid > 0);
	CHECK(pthread_create(&t, NULL, killer, &pid) == 0);
	return t;
}

static void
killed(void)
{
	struct rpmalog *log = opened(RPMALOG_POLICY_MAJORITY, 1);
	unsigned live = n_replicas, all;
	uint64_t k = 0;
	pthread_t t = kill_soon();

	past_death(log, &k, 2);
	OK(rpmalog_replicas(log, &live, &all));
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(live == n_replicas - 1);
	reread(log, k, 2, 2);
	CHECK(rpmalog_open(replicas, n_replicas, RPMALOG_POLICY_ALL, 3,
			RPMALOG_ACCEPT_VISIBILITY, &log) == RPMALOG_E_QUORUM);
	printf("killed: %llu entries appended through a replica's death, all read back\n",
			(unsigned long long)k);
}

static void
killed_all(void)
{
	static uint8_t buf[65536];
	struct rpmalog *log = opened(RPMALOG_POLICY_ALL, 1);
	struct expect e = { 0, 3 };
	uint64_t k = 0, index;
	pthread_t t = kill_soon();
	int ret;

	do {
		fill(buf, k, 3);
		ret = rpmalog_append(log, buf, length_of(k), &index);
		CHECK(ret != 0 || index == k);
		CHECK(++k < 100000);
	} while (ret == 0);
	CHECK(ret == RPMALOG_E_REPLICA);
	CHECK(rpmalog_append(log, buf, 1, &index) == RPMALOG_E_REPLICA);
	CHECK(pthread_join(t, NULL) == 0);
	(void) rpmalog_close(&log);
	/* the failed append (k - 1) may have landed on the survivors: it may be read, whole */
	log = opened(RPMALOG_POLICY_MAJORITY, 2);
	OK(rpmalog_walk(log, 0, compare, &e));
	CHECK(e.next == k - 1 || e.next == k);
	OK(rpmalog_close(&log));
	printf("killed_all: append %llu failed at the death, the %llu before it read back\n",
			(unsigned long long)(k - 1), (unsigned long long)(k - 1));
}

static int
of_epoch(const struct log_entry *e, const uint8_t *payload, void *arg)
{
	(void) payload;
	return e->epoch != *(uint64_t *)arg;
}

/* every entry of each replica's file of epoch EPOCH, N of them */
static void
all_of_epoch(uint64_t epoch, uint64_t n)
{
	char *files = strdup(getenv("RPMALOG_TEST_FILES") ? getenv("RPMALOG_TEST_FILES") : "");

	CHECK(files && *files);
	for (char *f = strtok(files, ":"); f; f = strtok(NULL, ":")) {
		int fd = open(f, O_RDONLY);
		struct stat st;
		struct log_header h;
		struct scan_end end;
		unsigned slot;
		void *mem;

		CHECK(fd >= 0 && fstat(fd, &st) == 0);
		mem = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		CHECK(mem != MAP_FAILED);
		CHECK(header_read(mem, (uint64_t)st.st_size, &h, &slot) == 0);
		CHECK(scan(mem, h.size, &h, of_epoch, &epoch, &end) == 0);
		CHECK(end.next == n);
		CHECK(munmap(mem, (size_t)st.st_size) == 0 && close(fd) == 0);
	}
	free(files);
}

static void
restamp(void)
{
	struct rpmalog *log;
	pid_t child = fork();
	int status;

	CHECK(child >= 0);
	if (child == 0) {
		/* a writer dies with its entries told to no replica as committed */
		log = opened(RPMALOG_POLICY_MAJORITY, 1);
		appended(log, 0, 10, 5);
		raise(SIGKILL);
	}
	CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
			WTERMSIG(status) == SIGKILL);
	all_of_epoch(1, 10);
	log = opened(RPMALOG_POLICY_MAJORITY, 2);
	all_of_epoch(2, 10);
	walked(log, 10, 5);
	appended(log, 10, 15, 5);
	reread(log, 15, 5, 3);
	printf("restamp: the 10 entries of a writer that died rewritten at the next one's epoch\n");
}

/* appends from *K on (tag TAG), each followed by a rejoin, until every replica counts */
static void
all_back(struct rpmalog *log, uint64_t *k, uint64_t tag)
{
	unsigned live, all, before, rejoined;

	OK(rpmalog_replicas(log, &live, &all));
	for (int tries = 0; live < n_replicas; tries++, (*k)++) {
		CHECK(tries < 1200);
		appended(log, *k, *k + 1, tag);
		OK(rpmalog_replicas(log, &before, &all));
		OK(rpmalog_rejoin(log, &rejoined));
		OK(rpmalog_replicas(log, &live, &all));
		CHECK(live == before + rejoined);
		/* (a replica starting, or a host booting, takes a while) */
		if (live < n_replicas)
			usleep(250 * 1000);
	}
}

static void
rejoin(void)
{
	struct rpmalog *log = opened(RPMALOG_POLICY_MAJORITY, 1);
	const char *victim = getenv("RPMALOG_TEST_KILL");
	unsigned live, all;
	uint64_t k = 30;

	CHECK(victim != NULL);
	OK(rpmalog_replicas(log, &live, &all));
	CHECK(live == n_replicas - 1);
	appended(log, 0, k, 4);
	printf("rejoin: start the third replica\n");
	all_back(log, &k, 4);
	CHECK(kill((pid_t)atoi(victim), SIGKILL) == 0);
	past_death(log, &k, 4);
	OK(rpmalog_replicas(log, &live, &all));
	CHECK(live == n_replicas - 1);
	reread(log, k, 4, 2);
	printf("rejoin: %llu entries, the third replica caught up and counted\n",
			(unsigned long long)k);
}

/* the size of the first of the replicas' files */
static uint64_t
log_size(void)
{
	const char *files = getenv("RPMALOG_TEST_FILES");
	char first[4096];
	struct stat st;

	CHECK(files && strlen(files) < sizeof(first));
	strcpy(first, files);
	first[strcspn(first, ":")] = '\0';
	CHECK(stat(first, &st) == 0);
	return (uint64_t)st.st_size;
}

/* entry K of the full log: 64 KiB of its own bytes */
static void
fill_full(uint8_t *buf, uint64_t k)
{
	for (size_t i = 0; i < 65536; i++)
		buf[i] = (uint8_t)(k * 131 + i * 7 + 5);
}

struct full {
	uint64_t k, seen;	/* entries of 64 KiB before the one of 0 B; walked so far */
};

/* each entry of the full log walked is the one appended */
static int
full_compare(uint64_t index, const void *data, size_t len, void *arg)
{
	static uint8_t want[65536];
	struct full *f = arg;

	fill_full(want, index);
	if (index != f->seen++ || (index < f->k ?
			len != sizeof(want) || memcmp(data, want, len) : len != 0))
		return 1;
	return 0;
}

/* the full log of K entries of 64 KiB and one of 0 B, walked back whole */
static void
full_walked(struct rpmalog *log, uint64_t k)
{
	struct full f = { k, 0 };

	OK(rpmalog_walk(log, 0, full_compare, &f));
	CHECK(f.seen == k + 1);
}

static void
bad(void)
{
	struct rpmalog *log = opened(RPMALOG_POLICY_MAJORITY, 1);
	static uint8_t buf[65536];
	struct iovec iov[2] = { { NULL, 5 }, { buf, 1 } };
	/* each entry takes its header and its payload: 32 + 65536 bytes */
	uint64_t room = log_size() - 4096 - 32, index, first, next, k;
	int ret;

	CHECK(rpmalog_append(log, NULL, 1, &index) == RPMALOG_E_INVAL);
	CHECK(rpmalog_append(log, buf, 1, NULL) == RPMALOG_E_INVAL);
	CHECK(rpmalog_appendv(log, iov, 2, &index) == RPMALOG_E_INVAL);
	CHECK(rpmalog_appendv(log, iov, -1, &index) == RPMALOG_E_INVAL);
	CHECK(rpmalog_appendv(log, NULL, 1, &index) == RPMALOG_E_INVAL);
	/* lengths whose sum wraps around: still too long for an entry */
	iov[0] = (struct iovec){ buf, SIZE_MAX / 2 + 1 };
	iov[1] = (struct iovec){ buf, SIZE_MAX / 2 + 1 };
	CHECK(rpmalog_appendv(log, iov, 2, &index) == RPMALOG_E_FULL);
	CHECK(rpmalog_set_timeout(log, 0) == RPMALOG_E_INVAL);
	CHECK(rpmalog_set_timeout(log, -5) == RPMALOG_E_INVAL);
	CHECK(rpmalog_walk(log, 0, NULL, NULL) == RPMALOG_E_INVAL);
	CHECK(rpmalog_tell(log, NULL, &index) == RPMALOG_E_INVAL);
	walked(log, 0, 5);
	for (k = 0; fill_full(buf, k), (ret = rpmalog_append(log, buf, sizeof(buf), &index)) == 0;
			k++)
		CHECK(index == k);
	CHECK(ret == RPMALOG_E_FULL && k == room / (32 + sizeof(buf)));
	CHECK(rpmalog_append(log, buf, sizeof(buf), &index) == RPMALOG_E_FULL);
	/* what still fits is taken */
	OK(rpmalog_append(log, NULL, 0, &index));
	CHECK(index == k);
	OK(rpmalog_tell(log, &first, &next));
	CHECK(first == 0 && next == k + 1);
	full_walked(log, k);
	OK(rpmalog_close(&log));
	log = opened(RPMALOG_POLICY_ALL, 2);
	full_walked(log, k);
	OK(rpmalog_close(&log));
	printf("bad: each bad argument refused; %llu entries of 64 KiB filled the log\n",
			(unsigned long long)k);
}

/* the log read back: entries from 0 to AT_LEAST at least, each whole; how many */
static uint64_t
read_back(struct rpmalog *log, uint64_t at_least, uint64_t tag)
{
	struct expect e = { 0, tag };
	uint64_t first, next;

	OK(rpmalog_walk(log, 0, compare, &e));
	OK(rpmalog_tell(log, &first, &next));
	CHECK(first == 0 && next == e.next && e.next >= at_least);
	return e.next;
}

/*
 * The invariant after a failure, checked by a writer of EPOCH: each of the
 * AT_LEAST appends that returned read back, and any entry after them,
 * each whole, in order, once; then the same log on each replica alone
 * (opened at the epochs after EPOCH). How many there are.
 */
static uint64_t
checked(uint64_t at_least, uint64_t tag, uint64_t epoch)
{
	struct rpmalog *log = opened(RPMALOG_POLICY_ALL, epoch);
	uint64_t n = read_back(log, at_least, tag);

	OK(rpmalog_close(&log));
	for (unsigned i = 0; i < n_replicas; i++) {
		OK(rpmalog_open(&replicas[i], 1, RPMALOG_POLICY_ALL, epoch + 1 + i,
				RPMALOG_ACCEPT_VISIBILITY, &log));
		CHECK(read_back(log, n, tag) == n);
		OK(rpmalog_close(&log));
	}
	return n;
}

static void
writer_killed(void)
{
	const char *next = getenv("RPMALOG_TEST_NEXT");
	struct rpmalog *log;
	uint64_t told, n;

	large = 1;
	if (next) {
		told = strtoull(next, NULL, 10);
		n = checked(told, 6, 2);
		printf("writer_killed: the %llu appends told and %llu after them read back "
				"whole, in order, on each replica\n", (unsigned long long)told,
				(unsigned long long)(n - told));
		return;
	}
	log = opened(RPMALOG_POLICY_MAJORITY, 1);
	for (uint64_t k = 0;; k++) {
		/* (a full log fails the append: the test never killed it) */
		appended(log, k, k + 1, 6);
		printf("appended %llu\n", (unsigned long long)k);
	}
}

static void
lossy(void)
{
	struct rpmalog *log = opened(RPMALOG_POLICY_MAJORITY, 1);
	unsigned live, all;
	uint64_t k = 60, n;

	appended(log, 0, k, 7);
	OK(rpmalog_replicas(log, &live, &all));
	printf("lossy: %llu appended, %u replicas left behind; heal the link\n",
			(unsigned long long)k, n_replicas - live);
	all_back(log, &k, 7);
	OK(rpmalog_close(&log));
	n = checked(k, 7, 2);
	printf("lossy: %llu entries read back whole, in order, on each replica\n",
			(unsigned long long)n);
}

static void
away(void)
{
	struct rpmalog *log = opened(RPMALOG_POLICY_MAJORITY, 1);
	uint64_t k = 10, n;

	appended(log, 0, k, 8);
	printf("away: %llu appended; take a replica away\n", (unsigned long long)k);
	past_death(log, &k, 8);
	printf("away: %llu appended, one replica left behind; bring it back\n",
			(unsigned long long)k);
	all_back(log, &k, 8);
	OK(rpmalog_close(&log));
	n = checked(k, 8, 2);
	printf("away: %llu entries read back whole, in order, on each replica\n",
			(unsigned long long)n);
}

int
main(int argc, char *argv[])
{
	if (argc < 3) {
		fprintf(stderr, "usage: rpmalog-test basic|fence|killed|killed_all|restamp|rejoin|"
				"writer_killed|lossy|away|bad REPLICA...\n");
		return 2;
	}
	/* each line out as it is told: the test acts on them */
	setvbuf(stdout, NULL, _IOLBF, 0);
	replicas = (const char *const *)&argv[2];
	n_replicas = (unsigned)(argc - 2);
	if (strcmp(argv[1], "basic") == 0)
		basic();
	else if (strcmp(argv[1], "fence") == 0)
		fence();
	else if (strcmp(argv[1], "killed") == 0)
		killed();
	else if (strcmp(argv[1], "killed_all") == 0)
		killed_all();
	else if (strcmp(argv[1], "rejoin") == 0)
		rejoin();
	else if (strcmp(argv[1], "restamp") == 0)
		restamp();
	else if (strcmp(argv[1], "bad") == 0)
		bad();
	else if (strcmp(argv[1], "writer_killed") == 0)
		writer_killed();
	else if (strcmp(argv[1], "lossy") == 0)
		lossy();
	else if (strcmp(argv[1], "away") == 0)
		away();
	else
		return 2;
	return 0;
}
