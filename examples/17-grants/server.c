// SPDX-License-Identifier: BSD-3-Clause
/*
 * 17-grants/server.c -- keep several clients at once in one region of
 * persistent memory, each in a part of its own that the others cannot
 * reach: the region is registered for grants (its own key opens nothing)
 * and each client gets a grant of its part, bound on its connection.
 *
 * A grant is bound by a request on the connection's send queue, so it is
 * made once the connection is established, and its descriptor travels in a
 * message on that connection, not in the private data of the accept.
 */

#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "mem.h"
#include "msg.h"

/* parts start on a cache line of their own: no two clients share one */
#define PART_ALIGN 64

struct client {
	struct rpma_conn *conn;
	struct rpma_grant *grant;
};

struct server {
	struct server_mem mem;
	struct rpma_mr_local *mr;	/* the data area, registered for grants */
	int usage;			/* what each grant carries */
	size_t part_size;
	const struct rpma_peer_cfg *pcfg;
	struct grant_msg *msgs;		/* a message per client, in msg_mr */
	struct rpma_mr_local *msg_mr;
	struct client *clients;
	unsigned n;
};

/* the message to client i: the descriptors of its grant and of the peer configuration */
static int
msg_pack(struct server *s, unsigned i)
{
	struct grant_msg *msg = &s->msgs[i];
	char desc[sizeof(msg->descs.descs)];
	size_t size;

	int ret = rpma_grant_get_descriptor_size(s->clients[i].grant, &size);
	if (!ret && size > sizeof(desc))
		ret = RPMA_E_NOSUPP;
	if (!ret)
		ret = rpma_grant_get_descriptor(s->clients[i].grant, desc);
	if (ret) {
		print_error("getting the grant's descriptor", ret);
		return ret;
	}
	msg->part = (uint8_t)i;
	msg->parts = (uint8_t)s->n;
	return descs_pack_desc(desc, size, s->pcfg, &msg->descs);
}

/* accept client #i+1, grant it part i and send it the message */
static int
client_serve(struct server *s, struct rpma_ep *ep, unsigned i)
{
	struct client *c = &s->clients[i];
	size_t offset = i * s->part_size;
	struct ibv_wc wc;

	/* established: the grant's bind goes on the connection's send queue */
	int ret = server_accept(ep, NULL, NULL, &c->conn);
	if (ret)
		return ret;
	ret = rpma_grant_new(c->conn, s->mr, offset, s->part_size, s->usage, &c->grant);
	if (ret) {
		print_error("rpma_grant_new()", ret);
		return ret;
	}
	ret = msg_pack(s, i);
	if (ret)
		return ret;
	/* rpma_grant_new() returned with the window bound: the descriptor may go */
	ret = rpma_send(c->conn, s->msg_mr, i * sizeof(*s->msgs), sizeof(*s->msgs),
			RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		print_error("rpma_send()", ret);
		return ret;
	}
	/*
	 * The client tries the next part with its grant's key once it has the
	 * message, which breaks its connection: the send's acknowledgement may
	 * come after that, and its completion then says flushed
	 */
	struct rpma_cq *cq;
	ret = rpma_conn_get_cq(c->conn, &cq);
	if (!ret)
		ret = cq_next_wc_any(cq, &wc);
	if (ret)
		return ret;
	if (wc.status != IBV_WC_SUCCESS && wc.status != IBV_WC_WR_FLUSH_ERR) {
		fprintf(stderr, "sending the descriptor failed: %s\n", ibv_wc_status_str(wc.status));
		return RPMA_E_UNKNOWN;
	}
	printf("client #%u: granted part #%u (bytes %zu to %zu)\n", i + 1, i + 1, offset,
			offset + s->part_size - 1);
	return 0;
}

/* every client at once: all are accepted and granted, then each closes when done */
static int
serve(struct server *s, struct rpma_ep *ep)
{
	int ret = 0;

	for (unsigned i = 0; !ret && i < s->n; i++)
		ret = client_serve(s, ep, i);
	for (unsigned i = 0; !ret && i < s->n; i++) {
		ret = conn_wait_closed(s->clients[i].conn);
		/* deleting the connection revokes its grant */
		int ret2 = conn_close(&s->clients[i].conn, false);
		ret = ret ? ret : ret2;
		if (!ret)
			printf("client #%u disconnected\n", i + 1);
	}
	return ret;
}

/* the connections left (revoking their grants), then every grant's handle */
static int
clients_release(struct server *s)
{
	int ret = 0, ret2;

	for (unsigned i = 0; i < s->n; i++) {
		struct client *c = &s->clients[i];
		if (c->conn && (ret2 = conn_close(&c->conn, false)))
			ret = ret ? ret : ret2;
		if (c->grant && (ret2 = rpma_grant_delete(&c->grant))) {
			print_error("rpma_grant_delete()", ret2);
			ret = ret ? ret : ret2;
		}
	}
	return ret;
}

/* persist what the clients could not, and show each part */
static void
parts_print(struct server *s, bool direct)
{
	char label[32];

	if (!direct)
		mem_persist(&s->mem, s->mem.data, MEM_DATA_SIZE);
	printf("the parts, %s:\n", direct ? "persisted by the clients' flushes" :
			s->mem.mapped ? "persisted by the server" : "in DRAM");
	for (unsigned i = 0; i < s->n; i++) {
		snprintf(label, sizeof(label), "part #%u", i + 1);
		print_untrusted(label, s->mem.data + i * s->part_size, MSG_MAX);
	}
	printf("served %u client%s, each in its own part\n", s->n, s->n == 1 ? "" : "s");
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct server s = {0};
	struct rpma_peer *peer;
	struct rpma_peer_cfg *pcfg;
	struct rpma_ep *ep;
	bool direct;
	int ret, ret2;

	server_args_parse(argc, argv, ARGS_PMEM | ARGS_CLIENTS, &args);
	s.n = args.clients;
	s.part_size = MEM_DATA_SIZE / s.n / PART_ALIGN * PART_ALIGN;
	s.clients = calloc(s.n, sizeof(*s.clients));
	s.msgs = buffer_alloc(s.n * sizeof(*s.msgs));
	if (s.clients == NULL || s.msgs == NULL) {
		fprintf(stderr, "out of memory\n");
		ret = RPMA_E_NOMEM;
		goto err_free;
	}
	if (mem_open(args.pmem_path, &s.mem)) {
		ret = RPMA_E_UNKNOWN;
		goto err_free;
	}

	ret = peer_open(args.addr, true, &peer);
	if (ret)
		goto err_mem_close;
	ret = mem_peer_cfg(&s.mem, args.direct_write_to_pmem, &pcfg);
	if (ret)
		goto err_peer_delete;
	s.pcfg = pcfg;
	ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct);
	if (ret) {
		print_error("rpma_peer_cfg_get_direct_write_to_pmem()", ret);
		goto err_pcfg_delete;
	}

	s.usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	if (s.mem.true_pmem)
		s.usage |= RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	/* its own key opens nothing: a client reaches only the part granted to it */
	ret = rpma_mr_reg_for_grants(peer, s.mem.data, MEM_DATA_SIZE, s.usage, &s.mr);
	if (ret) {
		mem_reg_failed(&s.mem, "rpma_mr_reg_for_grants()", ret);
		goto err_pcfg_delete;
	}
	ret = rpma_mr_reg(peer, s.msgs, s.n * sizeof(*s.msgs), RPMA_MR_USAGE_SEND, &s.msg_mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		goto err_mr_dereg;
	}
	printf("region: %d bytes for grants only, %u part%s of %zu bytes\n", MEM_DATA_SIZE, s.n,
			s.n == 1 ? "" : "s", s.part_size);
	ret = server_listen(peer, args.addr, args.port, &ep);
	if (ret)
		goto err_msg_mr_dereg;

	ret = serve(&s, ep);
	/* the grants go before their region */
	ret2 = clients_release(&s);
	ret = ret ? ret : ret2;
	if (!ret)
		parts_print(&s, direct);

	ret2 = rpma_ep_shutdown(&ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
	ret = ret ? ret : ret2;
err_msg_mr_dereg:
	ret2 = rpma_mr_dereg(&s.msg_mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_mr_dereg:
	ret2 = rpma_mr_dereg(&s.mr);
	if (ret2)
		print_error("rpma_mr_dereg()", ret2);
	ret = ret ? ret : ret2;
err_pcfg_delete:
	ret2 = rpma_peer_cfg_delete(&pcfg);
	if (ret2)
		print_error("rpma_peer_cfg_delete()", ret2);
	ret = ret ? ret : ret2;
err_peer_delete:
	ret2 = rpma_peer_delete(&peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
err_mem_close:
	mem_close(&s.mem);
err_free:
	free(s.msgs);
	free(s.clients);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
