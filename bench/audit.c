// SPDX-License-Identifier: BSD-3-Clause
/*
 * audit.c -- an LD_AUDIT module that counts the calls librpma.so and
 * rpma-bench make into librdmacm and libibverbs, by name, between the
 * phase marks of bench.h (count_mark()): what a connection costs in
 * rdma_cm and verbs calls, for the library (lib) and the raw baseline
 * (raw) alike. The dynamic linker reports every call through a PLT entry
 * it bound (la_pltenter), so no function needs a wrapper of its own
 * signature. Calls the compiler inlined from verbs.h (ibv_post_send(),
 * ibv_alloc_mw(), ibv_dealloc_mw(), ibv_req_notify_cq()...) go through the
 * provider's table, not a PLT: they are not seen here; their system calls
 * are (strace). Neither are the provider's own calls (rdma-core links it
 * with BIND_NOW: its calls made no la_pltenter here).
 *
 *   LD_AUDIT=rpma-bench-audit.so RPMA_BENCH_AUDIT_OUT=FILE rpma-bench ...
 *
 * FILE gets one line per marked phase: "PID PHASE MODE name=count ...".
 */

#define _GNU_SOURCE
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NAMES 256

/* an object: does it call what is counted, or define it */
enum role { ROLE_NONE, ROLE_CALLER, ROLE_CALLEE };

/* the lines, written at the exit: a write at each mark would be a system call of the phase */
#define LINES_MAX (1 << 20)

static struct {
	const char *name[MAX_NAMES];
	unsigned long count[MAX_NAMES];
	int n;
	char phase[64];		/* "PHASE MODE", empty outside a phase */
	int pid;		/* got once: a getpid() at a mark would be a call of the phase */
	FILE *out;
	char lines[LINES_MAX];
	size_t used;
} st;

static enum role
role_of(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	/* the main program has an empty name */
	if (*path == '\0' || strncmp(base, "librpma.so", 10) == 0 ||
			strcmp(base, "rpma-bench") == 0)
		return ROLE_CALLER;
	if (strncmp(base, "librdmacm.so", 12) == 0 || strncmp(base, "libibverbs.so", 13) == 0)
		return ROLE_CALLEE;
	/* write(), for the marks */
	if (strncmp(base, "libc.so", 7) == 0)
		return ROLE_CALLEE;
	return ROLE_NONE;
}

unsigned int
la_version(unsigned int version)
{
	(void) version;
	st.pid = (int)getpid();
	/* opened before the program runs, written at its exit: in no phase */
	const char *path = getenv("RPMA_BENCH_AUDIT_OUT");
	st.out = path ? fopen(path, "a") : NULL;
	if (st.out == NULL)
		st.out = stderr;
	return LAV_CURRENT;
}

unsigned int
la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void) lmid;
	*cookie = (uintptr_t)role_of(map->l_name);
	return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

uintptr_t
la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook, uintptr_t *defcook,
		unsigned int *flags, const char *symname)
{
	(void) ndx;
	bool counted = *refcook == ROLE_CALLER && *defcook == ROLE_CALLEE &&
		(strncmp(symname, "rdma_", 5) == 0 || strncmp(symname, "ibv_", 4) == 0 ||
		 strcmp(symname, "write") == 0);

	*flags |= LA_SYMB_NOPLTEXIT;
	if (!counted)
		*flags |= LA_SYMB_NOPLTENTER;
	return sym->st_value;
}

/* append to the lines (snprintf makes no system call) */
__attribute__((format(printf, 1, 2))) static void
add(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int len = vsnprintf(st.lines + st.used, LINES_MAX - st.used, fmt, ap);
	va_end(ap);
	if (len > 0 && (size_t)len < LINES_MAX - st.used)
		st.used += (size_t)len;
}

/* the phase that ends: one line with its counts */
static void
end_phase(void)
{
	if (st.phase[0] == '\0')
		return;
	add("%d %s", st.pid, st.phase);
	for (int i = 0; i < st.n; i++)
		if (st.count[i])
			add(" %s=%lu", st.name[i], st.count[i]);
	add("\n");
	memset(st.count, 0, sizeof(st.count));
}

__attribute__((destructor)) static void
write_lines(void)
{
	if (st.out == NULL)
		return;
	fwrite(st.lines, 1, st.used, st.out);
	fflush(st.out);
}

static void
mark(const char *buf, size_t len)
{
	size_t plen = strlen("rpma-bench-count ");
	char text[64];

	if (len >= sizeof(text) || len < plen || strncmp(buf, "rpma-bench-count ", plen) != 0)
		return;
	memcpy(text, buf + plen, len - plen);
	text[len - plen] = '\0';
	/* "= PHASE MODE": the phase going on is that one */
	if (text[0] == '=' && text[1] == ' ') {
		if (st.phase[0] != '\0')
			snprintf(st.phase, sizeof(st.phase), "%s", text + 2);
		return;
	}
	end_phase();
	if (text[0] == '-' && text[1] == ' ')
		st.phase[0] = '\0';
	else
		snprintf(st.phase, sizeof(st.phase), "%s", text);
}

static void
count(const char *symname)
{
	int i;

	if (st.phase[0] == '\0')
		return;
	for (i = 0; i < st.n; i++)
		if (st.name[i] == symname || strcmp(st.name[i], symname) == 0)
			break;
	if (i == st.n) {
		if (st.n == MAX_NAMES)
			return;
		st.name[st.n++] = symname;
	}
	st.count[i]++;
}

Elf64_Addr
la_x86_64_gnu_pltenter(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
		uintptr_t *defcook, La_x86_64_regs *regs, unsigned int *flags,
		const char *symname, long *framesizep)
{
	(void) ndx;
	(void) refcook;
	(void) defcook;
	(void) flags;
	(void) framesizep;
	if (strcmp(symname, "write") == 0) {
		/* write(-1, mark, len) */
		if ((int)regs->lr_rdi == -1)
			mark((const char *)regs->lr_rsi, (size_t)regs->lr_rdx);
	} else {
		count(symname);
	}
	return sym->st_value;
}
