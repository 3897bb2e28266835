// SPDX-License-Identifier: BSD-3-Clause
/* post.c -- unit tests of src/post.h and src/post.c: the work requests posted */

#include <arpa/inet.h>
#include <errno.h>

#include "mocks.h"
#include "post.h"

#define SIZE 64

static char buf[SIZE];

struct fx {
	struct ibv_qp qp;
	struct rpma_mr_local local;
	struct rpma_mr_remote remote;
};

static void
fx_init(struct fx *f)
{
	f->qp = (struct ibv_qp){ .context = mock_ibv_ctx(), .qp_num = 7 };
	f->local = (struct rpma_mr_local){ .addr = buf, .size = SIZE, .lkey = 0x11 };
	f->remote = (struct rpma_mr_remote){ .addr = 0x10000, .size = SIZE, .rkey = 0x22 };
}

static void
test_post_rdma__ranges(void **state)
{
	(void) state;
	struct fx f;
	fx_init(&f);

	assert_int_equal(post_rdma(&f.qp, IBV_WR_RDMA_WRITE, &f.local, SIZE + 1, &f.remote, 0, 0,
			RPMA_F_COMPLETION_ALWAYS, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(post_rdma(&f.qp, IBV_WR_RDMA_WRITE, &f.local, 8, &f.remote, 0, SIZE - 7,
			RPMA_F_COMPLETION_ALWAYS, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(post_rdma(&f.qp, IBV_WR_RDMA_WRITE, &f.local, 0, &f.remote, SIZE, 1,
			RPMA_F_COMPLETION_ALWAYS, 0, NULL), RPMA_E_INVAL);
	/* a length past 32 bits, even where a region were that large */
	f.local.size = f.remote.size = (size_t)1 << 33;
	assert_int_equal(post_rdma(&f.qp, IBV_WR_RDMA_WRITE, &f.local, 0, &f.remote, 0,
			(size_t)1 << 32, RPMA_F_COMPLETION_ALWAYS, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
}

static void
test_post_rdma__fields(void **state)
{
	(void) state;
	struct fx f;
	fx_init(&f);

	assert_int_equal(post_rdma(&f.qp, IBV_WR_RDMA_WRITE_WITH_IMM, &f.local, 8, &f.remote, 16,
			SIZE - 16, RPMA_F_COMPLETION_ALWAYS, htonl(5), buf), 0);
	assert_int_equal(mock_rec.send_wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	assert_int_equal(mock_rec.send_wr.wr_id, (uintptr_t)buf);
	assert_int_equal(mock_rec.send_wr.send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(mock_rec.send_wr.imm_data, htonl(5));
	assert_int_equal(mock_rec.send_wr.num_sge, 1);
	assert_int_equal(mock_rec.send_sge.addr, (uintptr_t)(buf + 8));
	assert_int_equal(mock_rec.send_sge.length, SIZE - 16);
	assert_int_equal(mock_rec.send_sge.lkey, 0x11);
	assert_int_equal(mock_rec.send_wr.wr.rdma.remote_addr, 0x10000 + 16);
	assert_int_equal(mock_rec.send_wr.wr.rdma.rkey, 0x22);
	/* ON_ERROR alone: unsignaled; unknown bits do not leak into the send flags */
	assert_int_equal(post_rdma(&f.qp, IBV_WR_RDMA_READ, &f.local, 0, &f.remote, 0, 1,
			RPMA_F_COMPLETION_ON_ERROR | 0x100, 0, NULL), 0);
	assert_int_equal(mock_rec.send_wr.send_flags, 0);
}

static void
test_post_read_within(void **state)
{
	(void) state;
	struct fx f;
	fx_init(&f);

	struct ibv_sge dst = {.addr = (uintptr_t)buf, .length = 1, .lkey = 0x11};

	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, SIZE, 1, 1, NULL),
			RPMA_E_INVAL);
	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, SIZE + 1, 0, 1, NULL),
			RPMA_E_INVAL);
	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, 1ULL << 32, 0, 1, NULL),
			RPMA_E_INVAL);
	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, 0, SIZE + 1, 1, NULL),
			RPMA_E_INVAL);
	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, 1, SIZE_MAX, 1, NULL),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, 10, 20, 2, NULL), 0);
	assert_int_equal(mock_rec.send_wr.opcode, IBV_WR_RDMA_READ);
	assert_int_equal(mock_rec.send_sge.length, 1);
	assert_int_equal(mock_rec.send_sge.addr, (uintptr_t)buf);
	assert_int_equal(mock_rec.send_sge.lkey, 0x11);
	assert_int_equal(mock_rec.send_wr.wr.rdma.remote_addr, 0x10000 + 10);
	assert_int_equal(mock_rec.send_wr.wr.rdma.rkey, 0x22);
	assert_int_equal(mock_rec.send_wr.send_flags, IBV_SEND_SIGNALED);
	/* an empty range at the very end reads the last byte, the whole region its first */
	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, SIZE, 0, 2, NULL), 0);
	assert_int_equal(mock_rec.send_wr.wr.rdma.remote_addr, 0x10000 + SIZE - 1);
	assert_int_equal(post_read_within(&f.qp, &dst, &f.remote, 0, SIZE, 2, NULL), 0);
	assert_int_equal(mock_rec.send_wr.wr.rdma.remote_addr, 0x10000);
}

static void
test_post_empty_and_recv(void **state)
{
	(void) state;
	struct fx f;
	fx_init(&f);
	struct ibv_srq srq = { .context = mock_ibv_ctx() };

	assert_int_equal(post_empty(&f.qp, IBV_WR_SEND_WITH_IMM, RPMA_F_COMPLETION_ALWAYS, 9, buf),
			0);
	assert_int_equal(mock_rec.send_wr.num_sge, 0);
	assert_int_equal(mock_rec.send_wr.opcode, IBV_WR_SEND_WITH_IMM);
	assert_int_equal(mock_rec.send_wr.imm_data, 9);
	assert_int_equal(mock_rec.send_wr.wr_id, (uintptr_t)buf);

	assert_int_equal(post_recv_empty(&f.qp, NULL, buf), 0);
	assert_ptr_equal(mock_rec.recv_target, &f.qp);
	assert_int_equal(mock_rec.recv_wr.num_sge, 0);
	assert_int_equal(post_recv_empty(NULL, &srq, buf), 0);
	assert_ptr_equal(mock_rec.recv_target, &srq);

	assert_int_equal(post_recv(NULL, &srq, &f.local, SIZE, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(post_recv(NULL, &srq, &f.local, 4, 8, buf), 0);
	assert_ptr_equal(mock_rec.recv_target, &srq);
	assert_int_equal(mock_rec.recv_sge.addr, (uintptr_t)(buf + 4));
	assert_int_equal(mock_rec.recv_sge.length, 8);
	assert_int_equal(mock_rec.recv_sge.lkey, 0x11);

	MOCK_FAIL(ibv_post_srq_recv, ENOMEM, 0);
	assert_int_equal(post_recv_empty(NULL, &srq, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	MOCK_FAIL(ibv_post_send, EIO, 0);
	assert_int_equal(post_empty(&f.qp, IBV_WR_SEND, 1, 0, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_true(mock_rec.log_count >= 2);
}

static void
test_post_write_inline8(void **state)
{
	(void) state;
	struct fx f;
	fx_init(&f);
	const char value[8] = "12345678";

	assert_int_equal(post_write_inline8(&f.qp, &f.remote, SIZE - 4, value, 2, NULL),
			RPMA_E_INVAL);
	assert_int_equal(CALLS(ibv_post_send), 0);
	assert_int_equal(post_write_inline8(&f.qp, &f.remote, SIZE - 8, value, 2, buf), 0);
	assert_int_equal(mock_rec.send_wr.opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(mock_rec.send_wr.send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE);
	assert_int_equal(mock_rec.send_sge.addr, (uintptr_t)value);
	assert_int_equal(mock_rec.send_sge.length, 8);
	assert_int_equal(mock_rec.send_wr.wr.rdma.remote_addr, 0x10000 + SIZE - 8);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_post_rdma__ranges),
		TEST(test_post_rdma__fields),
		TEST(test_post_read_within),
		TEST(test_post_empty_and_recv),
		TEST(test_post_write_inline8),
	};
	return RUN(tests);
}
