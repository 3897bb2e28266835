// SPDX-License-Identifier: BSD-3-Clause
/*
 * common.c -- the steps every example repeats, each with its failure
 * reported once, where it happens.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define DEFAULT_CLIENTS 3
#define CLIENTS_MAX 64

static void
server_usage(const char *prog, int accepted)
{
	fprintf(stderr, "usage: %s <addr> <port>%s%s\n", prog,
			(accepted & ARGS_PMEM) ? " [<pmem-path>] [--direct-write-to-pmem]" : "",
			(accepted & ARGS_CLIENTS) ? " [--clients N]" : "");
	if (accepted & ARGS_PMEM)
		fprintf(stderr, "  <pmem-path>  a devdax device, a file on a DAX file system\n"
				"               (needs an RDMA device with on-demand paging;\n"
				"               not soft-RoCE, see doc/HARDWARE.md) or an\n"
				"               ordinary file (created when missing);\n"
				"               without it the server uses DRAM\n"
				"  --direct-write-to-pmem  the platform puts the NIC's writes into\n"
				"               the persistence domain (true pmem only)\n");
	exit(EXIT_USAGE);
}

static unsigned
parse_clients(const char *prog, int accepted, const char *s)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(s, &end, 10);
	if (errno || *end != '\0' || n == 0 || n > CLIENTS_MAX) {
		fprintf(stderr, "%s: --clients wants a number from 1 to %d\n", prog, CLIENTS_MAX);
		server_usage(prog, accepted);
	}
	return (unsigned)n;
}

/*
 * A line at a time, into a file or a pipe as well: a program stopped at a
 * time limit still shows how far it got, where full buffering would lose
 * everything it had not flushed.
 */
static void
stdout_by_line(void)
{
	(void) setvbuf(stdout, NULL, _IOLBF, 0);
}

void
server_args_parse(int argc, char *argv[], int accepted, struct server_args *args)
{
	stdout_by_line();
	const char *prog = argv[0];
	const char *positional[3];
	int npos = 0;

	memset(args, 0, sizeof(*args));
	args->clients = DEFAULT_CLIENTS;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if ((accepted & ARGS_PMEM) && strcmp(arg, "--direct-write-to-pmem") == 0) {
			args->direct_write_to_pmem = true;
		} else if ((accepted & ARGS_CLIENTS) && strcmp(arg, "--clients") == 0) {
			if (++i == argc)
				server_usage(prog, accepted);
			args->clients = parse_clients(prog, accepted, argv[i]);
		} else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0 ||
				(arg[0] == '-' && arg[1] == '-') || npos == 3) {
			server_usage(prog, accepted);
		} else {
			positional[npos++] = arg;
		}
	}

	int max = (accepted & ARGS_PMEM) ? 3 : 2;
	if (npos < 2 || npos > max)
		server_usage(prog, accepted);
	args->addr = positional[0];
	args->port = positional[1];
	args->pmem_path = npos == 3 ? positional[2] : NULL;
}

void
client_args_parse(int argc, char *argv[], const char *default_message,
		struct client_args *args)
{
	stdout_by_line();
	int max = default_message ? 4 : 3;
	if (argc < 3 || argc > max || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s <addr> <port>%s\n", argv[0],
				default_message ? " [<message>]" : "");
		exit(EXIT_USAGE);
	}
	args->addr = argv[1];
	args->port = argv[2];
	args->message = argc == 4 ? argv[3] : (default_message ? default_message : "");
	if (strlen(args->message) >= MSG_MAX) {
		fprintf(stderr, "%s: the message must be shorter than %d bytes\n", argv[0],
				MSG_MAX);
		exit(EXIT_USAGE);
	}
}

void
print_error(const char *what, int ret)
{
	if (ret == RPMA_E_PROVIDER && errno)
		fprintf(stderr, "%s failed: %s (%s)\n", what, rpma_err_2str(ret), strerror(errno));
	else
		fprintf(stderr, "%s failed: %s\n", what, rpma_err_2str(ret));
}

void
print_untrusted(const char *label, const char *bytes, size_t len)
{
	printf("%s: \"", label);
	for (size_t i = 0; i < len && bytes[i] != '\0'; i++)
		putchar(isprint((unsigned char)bytes[i]) ? bytes[i] : '.');
	printf("\"\n");
}

int
peer_open(const char *addr, bool local, struct rpma_peer **peer_ptr)
{
	struct ibv_context *ibv_ctx;

	/* the library's own error lines say more than a return code */
	(void) rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR);

	int ret = rpma_utils_get_ibv_context(addr,
			local ? RPMA_UTIL_IBV_CONTEXT_LOCAL : RPMA_UTIL_IBV_CONTEXT_REMOTE,
			&ibv_ctx);
	if (ret) {
		fprintf(stderr, "no RDMA device serves %s: %s\n", addr, rpma_err_2str(ret));
		return ret;
	}
	ret = rpma_peer_new(ibv_ctx, peer_ptr);
	if (ret)
		print_error("rpma_peer_new()", ret);
	return ret;
}

int
server_listen(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_ep **ep_ptr)
{
	int ret = rpma_ep_listen(peer, addr, port, ep_ptr);
	if (ret) {
		print_error("rpma_ep_listen()", ret);
		return ret;
	}
	printf("listening on %s:%s\n", addr, port);
	/* a script starting the client waits for this line */
	fflush(stdout);
	return 0;
}

int
conn_establish(struct rpma_conn_req **req_ptr, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr)
{
	struct rpma_conn *conn;
	enum rpma_conn_event event;

	int ret = rpma_conn_req_connect(req_ptr, pdata, &conn);
	if (ret) {
		bool refused = ret == RPMA_E_PROVIDER && errno == ECONNREFUSED;
		print_error("rpma_conn_req_connect()", ret);
		/* iWARP's connection manager opens a TCP connection in the call */
		if (refused)
			fprintf(stderr, "connection refused: no server listens there "
					"(ECONNREFUSED: iWARP connects in the call)\n");
		return ret;
	}
	ret = rpma_conn_next_event(conn, &event);
	if (ret) {
		print_error("rpma_conn_next_event()", ret);
	} else if (event != RPMA_CONN_ESTABLISHED) {
		if (event == RPMA_CONN_REJECTED)
			fprintf(stderr, "connection refused: no server listens there "
					"or it turned us down (RPMA_CONN_REJECTED)\n");
		else if (event == RPMA_CONN_UNREACHABLE)
			fprintf(stderr, "the peer is unreachable (RPMA_CONN_UNREACHABLE)\n");
		else
			fprintf(stderr, "connecting failed: %s\n",
					rpma_utils_conn_event_2str(event));
		ret = RPMA_E_UNKNOWN;
	}
	if (ret) {
		(void) rpma_conn_delete(&conn);
		return ret;
	}
	*conn_ptr = conn;
	return 0;
}

int
client_connect(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr)
{
	struct rpma_conn_req *req;

	int ret = rpma_conn_req_new(peer, addr, port, cfg, &req);
	if (ret) {
		print_error("rpma_conn_req_new()", ret);
		return ret;
	}
	ret = conn_establish(&req, pdata, conn_ptr);
	if (ret)
		fprintf(stderr, "cannot connect to %s:%s\n", addr, port);
	return ret;
}

int
server_accept(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr)
{
	struct rpma_conn_req *req;

	int ret = rpma_ep_next_conn_req(ep, cfg, &req);
	if (ret) {
		print_error("rpma_ep_next_conn_req()", ret);
		return ret;
	}
	return conn_establish(&req, pdata, conn_ptr);
}

int
conn_wait_closed(struct rpma_conn *conn)
{
	enum rpma_conn_event event;

	int ret = rpma_conn_next_event(conn, &event);
	if (ret) {
		print_error("rpma_conn_next_event()", ret);
		return ret;
	}
	if (event != RPMA_CONN_CLOSED) {
		fprintf(stderr, "expected the peer to close the connection, got: %s\n",
				rpma_utils_conn_event_2str(event));
		return RPMA_E_UNKNOWN;
	}
	return 0;
}

int
conn_close(struct rpma_conn **conn_ptr, bool wait_for_closed)
{
	int ret = rpma_conn_disconnect(*conn_ptr);
	if (ret)
		print_error("rpma_conn_disconnect()", ret);
	else if (wait_for_closed)
		ret = conn_wait_closed(*conn_ptr);

	int ret2 = rpma_conn_delete(conn_ptr);
	if (ret2) {
		print_error("rpma_conn_delete()", ret2);
		if (!ret)
			ret = ret2;
	}
	return ret;
}

int
cq_next_wc_any(struct rpma_cq *cq, struct ibv_wc *wc)
{
	int ret;

	/* poll first: the completion may be there already, then sleep on the channel */
	while ((ret = rpma_cq_get_wc(cq, 1, wc, NULL)) == RPMA_E_NO_COMPLETION) {
		ret = rpma_cq_wait(cq);
		if (ret) {
			print_error("rpma_cq_wait()", ret);
			return ret;
		}
	}
	if (ret)
		print_error("rpma_cq_get_wc()", ret);
	return ret;
}

int
cq_next_wc(struct rpma_cq *cq, struct ibv_wc *wc)
{
	int ret = cq_next_wc_any(cq, wc);
	if (ret)
		return ret;
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "an operation failed: %s\n", ibv_wc_status_str(wc->status));
		return RPMA_E_UNKNOWN;
	}
	return 0;
}

int
conn_next_wc(struct rpma_conn *conn, struct ibv_wc *wc)
{
	struct rpma_cq *cq;

	int ret = rpma_conn_get_cq(conn, &cq);
	if (ret) {
		print_error("rpma_conn_get_cq()", ret);
		return ret;
	}
	return cq_next_wc(cq, wc);
}

int
conn_wait_for(struct rpma_conn *conn, enum ibv_wc_opcode opcode, struct ibv_wc *wc)
{
	int ret = conn_next_wc(conn, wc);
	if (ret)
		return ret;
	if (wc->opcode != opcode) {
		fprintf(stderr, "unexpected completion: opcode %d, expected %d\n",
				wc->opcode, opcode);
		return RPMA_E_UNKNOWN;
	}
	return 0;
}

int
descs_pack(const struct rpma_mr_local *mr, const struct rpma_peer_cfg *pcfg,
		struct descs_pdata *pd)
{
	char desc[sizeof(pd->descs)];
	size_t size;

	int ret = rpma_mr_get_descriptor_size(mr, &size);
	if (!ret && size > sizeof(desc))
		ret = RPMA_E_NOSUPP;
	if (!ret)
		ret = rpma_mr_get_descriptor(mr, desc);
	if (ret) {
		print_error("getting the region's descriptor", ret);
		return ret;
	}
	return descs_pack_desc(desc, size, pcfg, pd);
}

int
descs_pack_desc(const void *desc, size_t desc_size, const struct rpma_peer_cfg *pcfg,
		struct descs_pdata *pd)
{
	size_t pcfg_size = 0;
	int ret = 0;

	memset(pd, 0, sizeof(*pd));
	if (pcfg)
		ret = rpma_peer_cfg_get_descriptor_size(pcfg, &pcfg_size);
	if (ret) {
		print_error("rpma_peer_cfg_get_descriptor_size()", ret);
		return ret;
	}
	if (desc_size + pcfg_size > sizeof(pd->descs)) {
		fprintf(stderr, "the descriptors do not fit the private data\n");
		return RPMA_E_NOSUPP;
	}
	memcpy(pd->descs, desc, desc_size);
	if (pcfg)
		ret = rpma_peer_cfg_get_descriptor(pcfg, pd->descs + desc_size);
	if (ret) {
		print_error("rpma_peer_cfg_get_descriptor()", ret);
		return ret;
	}
	pd->mr_desc_size = (uint8_t)desc_size;
	pd->pcfg_desc_size = (uint8_t)pcfg_size;
	return 0;
}

int
descs_unpack_pdata(const struct rpma_conn_private_data *pdata,
		struct rpma_mr_remote **mr_ptr, struct rpma_peer_cfg **pcfg_ptr)
{
	struct descs_pdata pd;

	/* the peer's bytes: they must hold what they claim to */
	if (pdata->ptr == NULL || pdata->len < sizeof(pd)) {
		fprintf(stderr, "the peer sent no descriptors\n");
		return RPMA_E_INVAL;
	}
	memcpy(&pd, pdata->ptr, sizeof(pd));
	if ((size_t)pd.mr_desc_size + pd.pcfg_desc_size > sizeof(pd.descs)) {
		fprintf(stderr, "the peer's descriptors are malformed\n");
		return RPMA_E_INVAL;
	}

	int ret = rpma_mr_remote_from_descriptor(pd.descs, pd.mr_desc_size, mr_ptr);
	if (ret) {
		print_error("rpma_mr_remote_from_descriptor()", ret);
		return ret;
	}
	if (pcfg_ptr == NULL)
		return 0;
	*pcfg_ptr = NULL;
	if (pd.pcfg_desc_size == 0)
		return 0;
	ret = rpma_peer_cfg_from_descriptor(pd.descs + pd.mr_desc_size, pd.pcfg_desc_size,
			pcfg_ptr);
	if (ret) {
		print_error("rpma_peer_cfg_from_descriptor()", ret);
		(void) rpma_mr_remote_delete(mr_ptr);
	}
	return ret;
}

int
descs_unpack(const struct rpma_conn *conn, struct rpma_mr_remote **mr_ptr,
		struct rpma_peer_cfg **pcfg_ptr)
{
	struct rpma_conn_private_data pdata;

	int ret = rpma_conn_get_private_data(conn, &pdata);
	if (ret) {
		print_error("rpma_conn_get_private_data()", ret);
		return ret;
	}
	return descs_unpack_pdata(&pdata, mr_ptr, pcfg_ptr);
}

int
flush_type_choose(const struct rpma_mr_remote *remote, const struct rpma_peer_cfg *pcfg,
		enum rpma_flush_type *type)
{
	bool direct = false;
	int flush_types;

	int ret = rpma_mr_remote_get_flush_type(remote, &flush_types);
	if (ret) {
		print_error("rpma_mr_remote_get_flush_type()", ret);
		return ret;
	}
	if (pcfg) {
		ret = rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct);
		if (ret) {
			print_error("rpma_peer_cfg_get_direct_write_to_pmem()", ret);
			return ret;
		}
	}

	if ((flush_types & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) && direct) {
		*type = RPMA_FLUSH_TYPE_PERSISTENT;
		printf("flush type: RPMA_FLUSH_TYPE_PERSISTENT (the server's memory is pmem "
				"and it declared direct write to pmem)\n");
	} else {
		*type = RPMA_FLUSH_TYPE_VISIBILITY;
		printf("flush type: RPMA_FLUSH_TYPE_VISIBILITY (fallback: %s)\n",
				!(flush_types & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) ?
				"the server's memory is not true pmem" :
				"the server did not declare direct write to pmem");
	}
	return 0;
}

int
conn_wait_send_and_recv(struct rpma_conn *conn, struct ibv_wc *recv_wc)
{
	bool sent = false, received = false;
	struct ibv_wc wc;

	while (!sent || !received) {
		int ret = conn_next_wc(conn, &wc);
		if (ret)
			return ret;
		if (wc.opcode == IBV_WC_SEND && !sent) {
			sent = true;
		} else if (wc.opcode == IBV_WC_RECV && !received) {
			received = true;
			*recv_wc = wc;
		} else {
			fprintf(stderr, "unexpected completion: opcode %d\n", wc.opcode);
			return RPMA_E_UNKNOWN;
		}
	}
	return 0;
}

int
remote_size_check(const struct rpma_mr_remote *mr, size_t size)
{
	size_t remote_size;

	int ret = rpma_mr_remote_get_size(mr, &remote_size);
	if (ret) {
		print_error("rpma_mr_remote_get_size()", ret);
		return ret;
	}
	if (remote_size < size) {
		fprintf(stderr, "the peer's region has %zu bytes, %zu needed\n", remote_size,
				size);
		return RPMA_E_INVAL;
	}
	return 0;
}

void *
buffer_alloc(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t align = page > 0 ? (size_t)page : 4096;
	size_t rounded = (size + align - 1) / align * align;

	void *buf = aligned_alloc(align, rounded);
	if (buf == NULL) {
		fprintf(stderr, "cannot allocate %zu bytes\n", size);
		return NULL;
	}
	memset(buf, 0, rounded);
	return buf;
}
