// SPDX-License-Identifier: BSD-3-Clause
/*
 * 06-multiple-connections/server.c -- serve several clients at once from
 * one thread: epoll watches the endpoint's fd (connection requests), and
 * for each connection its event fd (established, closed) and its CQ's fd
 * (completions). Each client sends a message and gets an answer.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common.h"
#include "msg.h"

/* the message buffer of a client: one message comes in, one goes out */
#define RECV 0
#define SEND 1

/* what an epoll event is about */
enum source_type { SOURCE_EP, SOURCE_CONN_EVENT, SOURCE_CQ };

struct client;

struct source {
	enum source_type type;
	struct client *client;	/* NULL for SOURCE_EP */
};

struct client {
	unsigned id;		/* 0: the slot is free */
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *mr;
	struct ping_msg *msgs;
	struct source event_src, cq_src;
};

struct server {
	int epoll_fd;
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct source ep_src;
	struct client *clients;
	unsigned max;		/* clients to serve */
	unsigned accepted;
	unsigned done;
};

static int
watch(struct server *s, int fd, struct source *src)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = src};
	if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
		perror("epoll_ctl()");
		return RPMA_E_UNKNOWN;
	}
	return 0;
}

/* release whatever the client holds; its fds leave epoll as they are closed */
static int
client_release(struct client *c)
{
	int ret = 0, ret2;

	if (c->conn) {
		(void) rpma_conn_disconnect(c->conn);
		ret = rpma_conn_delete(&c->conn);
		if (ret)
			print_error("rpma_conn_delete()", ret);
	}
	if (c->mr && (ret2 = rpma_mr_dereg(&c->mr))) {
		print_error("rpma_mr_dereg()", ret2);
		ret = ret ? ret : ret2;
	}
	free(c->msgs);
	memset(c, 0, sizeof(*c));
	return ret;
}

/* a receive posted before accepting, then accept; the rest comes by epoll */
static int
client_accept(struct server *s, struct client *c, struct rpma_conn_req **req)
{
	int event_fd, cq_fd, ret;

	c->msgs = buffer_alloc(2 * sizeof(*c->msgs));
	if (c->msgs == NULL)
		return RPMA_E_NOMEM;
	ret = rpma_mr_reg(s->peer, c->msgs, 2 * sizeof(*c->msgs),
			RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &c->mr);
	if (ret) {
		print_error("rpma_mr_reg()", ret);
		return ret;
	}
	ret = rpma_conn_req_recv(*req, c->mr, RECV * sizeof(*c->msgs), sizeof(*c->msgs), NULL);
	if (ret) {
		print_error("rpma_conn_req_recv()", ret);
		return ret;
	}
	ret = rpma_conn_req_connect(req, NULL, &c->conn);
	if (ret) {
		print_error("rpma_conn_req_connect()", ret);
		return ret;
	}
	if ((ret = rpma_conn_get_event_fd(c->conn, &event_fd)) ||
			(ret = rpma_conn_get_cq(c->conn, &c->cq)) ||
			(ret = rpma_cq_get_fd(c->cq, &cq_fd))) {
		print_error("getting the connection's fds", ret);
		return ret;
	}
	c->event_src = (struct source){SOURCE_CONN_EVENT, c};
	c->cq_src = (struct source){SOURCE_CQ, c};
	c->id = ++s->accepted;
	ret = watch(s, event_fd, &c->event_src);
	return ret ? ret : watch(s, cq_fd, &c->cq_src);
}

/* the endpoint's fd: a connection request waits */
static int
on_conn_req(struct server *s)
{
	struct rpma_conn_req *req;
	struct client *c = NULL;

	int ret = rpma_ep_next_conn_req(s->ep, NULL, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		return ret;
	}
	for (unsigned i = 0; s->accepted < s->max && i < s->max && c == NULL; i++)
		if (s->clients[i].id == 0)
			c = &s->clients[i];
	if (c == NULL) {
		/* enough clients: deleting a request turns it down */
		printf("turned a client down: %u served already\n", s->max);
		return rpma_conn_req_delete(&req);
	}
	ret = client_accept(s, c, &req);
	if (ret) {
		if (req)
			(void) rpma_conn_req_delete(&req);
		(void) client_release(c);
	}
	return ret;
}

/* the connection's event fd */
static int
on_conn_event(struct server *s, struct client *c)
{
	enum rpma_conn_event event;

	int ret = rpma_conn_next_event(c->conn, &event);
	if (ret) {
		print_error("rpma_conn_next_event()", ret);
		return ret;
	}
	if (event == RPMA_CONN_ESTABLISHED) {
		printf("client #%u connected\n", c->id);
		return 0;
	}
	printf("client #%u %s\n", c->id,
			event == RPMA_CONN_CLOSED ? "disconnected" : rpma_utils_conn_event_2str(event));
	s->done++;
	return client_release(c);
}

/* a message came: print it and answer */
static int
on_recv(struct client *c, const struct ibv_wc *wc)
{
	struct ping_msg *msgs = c->msgs;

	/* the client's bytes */
	if (wc->byte_len != sizeof(*msgs) || msgs[RECV].op != MSG_PING) {
		fprintf(stderr, "client #%u sent a malformed message\n", c->id);
		return RPMA_E_INVAL;
	}
	printf("client #%u ", c->id);
	print_untrusted("says", msgs[RECV].text, sizeof(msgs[RECV].text));

	msgs[SEND].op = MSG_PONG;
	msgs[SEND].seq = msgs[RECV].seq;
	snprintf(msgs[SEND].text, sizeof(msgs[SEND].text), "Hello client #%u!", c->id);
	int ret = rpma_send(c->conn, c->mr, SEND * sizeof(*msgs), sizeof(*msgs),
			RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret)
		print_error("rpma_send()", ret);
	return ret;
}

/* the CQ's fd: take the event (which re-arms the CQ), then every completion */
static int
on_completion(struct client *c)
{
	struct ibv_wc wc;

	int ret = rpma_cq_wait(c->cq);
	if (ret) {
		print_error("rpma_cq_wait()", ret);
		return ret;
	}
	while ((ret = rpma_cq_get_wc(c->cq, 1, &wc, NULL)) == 0) {
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "client #%u: %s\n", c->id, ibv_wc_status_str(wc.status));
			return RPMA_E_UNKNOWN;
		}
		if (wc.opcode == IBV_WC_RECV && (ret = on_recv(c, &wc)))
			return ret;
		/* a send's completion only tells its buffer is free again */
	}
	if (ret != RPMA_E_NO_COMPLETION) {
		print_error("rpma_cq_get_wc()", ret);
		return ret;
	}
	return 0;
}

static int
serve(struct server *s)
{
	struct epoll_event ev;
	int ret = 0;

	while (!ret && s->done < s->max) {
		int n = epoll_wait(s->epoll_fd, &ev, 1, -1);
		if (n < 0) {
			perror("epoll_wait()");
			return RPMA_E_UNKNOWN;
		}
		if (n == 0)
			continue;
		struct source *src = ev.data.ptr;
		if (src->type == SOURCE_EP)
			ret = on_conn_req(s);
		else if (src->type == SOURCE_CONN_EVENT)
			ret = on_conn_event(s, src->client);
		else
			ret = on_completion(src->client);
	}
	if (!ret)
		printf("served %u clients\n", s->done);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct server_args args;
	struct server s = {.epoll_fd = -1};
	int ep_fd, ret, ret2;

	server_args_parse(argc, argv, ARGS_CLIENTS, &args);
	s.max = args.clients;
	s.clients = calloc(s.max, sizeof(*s.clients));
	if (s.clients == NULL) {
		fprintf(stderr, "out of memory\n");
		return EXIT_FAILURE;
	}
	s.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (s.epoll_fd < 0) {
		perror("epoll_create1()");
		ret = RPMA_E_UNKNOWN;
		goto err_free;
	}
	ret = peer_open(args.addr, true, &s.peer);
	if (ret)
		goto err_close;
	ret = server_listen(s.peer, args.addr, args.port, &s.ep);
	if (ret)
		goto err_peer_delete;
	ret = rpma_ep_get_fd(s.ep, &ep_fd);
	if (ret)
		print_error("rpma_ep_get_fd()", ret);
	s.ep_src = (struct source){SOURCE_EP, NULL};
	if (!ret)
		ret = watch(&s, ep_fd, &s.ep_src);

	if (!ret)
		ret = serve(&s);

	for (unsigned i = 0; i < s.max; i++) {
		if (s.clients[i].id && (ret2 = client_release(&s.clients[i])))
			ret = ret ? ret : ret2;
	}
	ret2 = rpma_ep_shutdown(&s.ep);
	if (ret2)
		print_error("rpma_ep_shutdown()", ret2);
	ret = ret ? ret : ret2;
err_peer_delete:
	ret2 = rpma_peer_delete(&s.peer);
	if (ret2)
		print_error("rpma_peer_delete()", ret2);
	ret = ret ? ret : ret2;
err_close:
	(void) close(s.epoll_fd);
err_free:
	free(s.clients);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
