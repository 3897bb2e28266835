// SPDX-License-Identifier: BSD-3-Clause
/*
 * libc.c -- the system calls the library makes around a connection, for the
 * proofs: an anonymous mapping is an object of its length (so that the
 * library's pointers into it are checked against its bounds), a page is
 * 4 KiB.
 */

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stubs.h"

void *stub_mapped;

void *
mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
	(void) addr;
	(void) prot;
	(void) flags;
	(void) fd;
	(void) offset;
	void *p = malloc(length);
	if (p == NULL)
		return MAP_FAILED;
	stub_mapped = p;
	return p;
}

int
munmap(void *addr, size_t length)
{
	(void) length;
	free(addr);
	return 0;
}

long
sysconf(int name)
{
	return name == _SC_PAGESIZE ? 4096 : -1;
}
