// SPDX-License-Identifier: BSD-3-Clause
/*
 * flush.c -- the byte a read-after-write flush reads into.
 *
 * An RDMA read on a reliable connection completes only after every write
 * posted before it has been placed in the responder's memory, so its
 * completion proves the writes are visible there; where the peer declared
 * direct write to PMem they are then persistent too. One byte of the
 * flushed range is read (post_read_within() of post.h) into a byte of the
 * peer, which all its connections share (peer.c registers it at the first
 * connection): the device writes the byte, nobody reads it, so reads of
 * concurrent flushes may land there in any order. Where a native FLUSH is
 * posted instead (conn.c), the byte is not used.
 *
 * The byte has a page of its own: with fork safety (ibv_fork_init(),
 * RDMAV_FORK_SAFE) kernels before 5.13 withhold every registered page from
 * a forked child, and a page shared with the heap would take the child's
 * heap objects with it. It is registered here, on the peer's protection
 * domain, not as a region of mr.c: the peer owns it, and mr.c calls the
 * peer.
 */

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault.h"
#include "flush.h"
#include "log.h"

#define RAW_SIZE 1

struct rpma_flush {
	char *raw;		/* a page of its own, RAW_SIZE bytes registered */
	size_t raw_page;
	struct ibv_mr *raw_mr;
};

int
flush_new(struct ibv_pd *pd, int access, struct rpma_flush **flush_ptr)
{
	struct rpma_flush *flush = FI_PTR(malloc(sizeof(*flush)), ENOMEM);
	if (flush == NULL)
		return RPMA_E_NOMEM;

	int ret = RPMA_E_NOMEM;
	flush->raw_page = (size_t)sysconf(_SC_PAGESIZE);
	void *page = FAULT_HIT() ? (errno = ENOMEM, MAP_FAILED) :
		mmap(NULL, flush->raw_page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		RPMA_LOG_PROVIDER(errno, "mmap()");
		goto err_free;
	}
	flush->raw = page;

	flush->raw_mr = FI_PTR(ibv_reg_mr(pd, flush->raw, RAW_SIZE, access), ENOMEM);
	if (flush->raw_mr == NULL) {
		RPMA_LOG_PROVIDER(errno, "ibv_reg_mr()");
		ret = RPMA_E_PROVIDER;
		goto err_unmap;
	}

	*flush_ptr = flush;
	return 0;

err_unmap:
	(void) munmap(flush->raw, flush->raw_page);
err_free:
	free(flush);
	return ret;
}

int
flush_delete(struct rpma_flush **flush_ptr)
{
	struct rpma_flush *flush = *flush_ptr;
	if (flush == NULL)
		return 0;

	int ret = 0;
	int err = ibv_dereg_mr(flush->raw_mr);
	if (err) {
		RPMA_LOG_PROVIDER(err, "ibv_dereg_mr()");
		ret = RPMA_E_PROVIDER;
	}
	(void) munmap(flush->raw, flush->raw_page);
	free(flush);
	*flush_ptr = NULL;
	return ret;
}

void
flush_dst(const struct rpma_flush *flush, struct ibv_sge *sge)
{
	sge->addr = (uint64_t)(uintptr_t)flush->raw;
	sge->length = RAW_SIZE;
	sge->lkey = flush->raw_mr->lkey;
}
