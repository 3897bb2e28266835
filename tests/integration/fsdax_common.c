// SPDX-License-Identifier: BSD-3-Clause
/* fsdax_common.c -- what both programs' fsdax tests share (fsdax.h) */

#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "fsdax.h"

void
fsdax_mount_of(const char *path, struct fsdax_mount *m)
{
	FILE *f = fopen("/proc/mounts", "r");
	CHECK(f != NULL, "cannot read /proc/mounts");
	char dev[128], dir[256], type[16], opts[512];
	size_t best = 0;
	bool dax = false;

	while (fscanf(f, "%127s %255s %15s %511s %*d %*d", dev, dir, type, opts) == 4) {
		size_t len = strlen(dir);
		if (len <= best || strncmp(path, dir, len) != 0 || path[len] != '/')
			continue;
		best = len;
		snprintf(m->dev, sizeof(m->dev), "%s", dev);
		snprintf(m->dir, sizeof(m->dir), "%s", dir);
		snprintf(m->type, sizeof(m->type), "%s", type);
		/* "dax" (ext4) or "dax=always" (xfs) among the options */
		dax = strstr(opts, "dax") != NULL && strstr(opts, "dax=never") == NULL;
	}
	fclose(f);
	CHECK(best > 0 && dax, "%s lies on no file system mounted -o dax", path);
}

void
fsdax_remount(const struct fsdax_mount *m)
{
	CHECK(umount(m->dir) == 0, "umount %s: %s", m->dir, strerror(errno));
	CHECK(mount(m->dev, m->dir, m->type, 0, "dax") == 0, "mount -o dax %s %s: %s", m->dev,
			m->dir, strerror(errno));
}

int
fsdax_raw_advise(void *addr, size_t len)
{
	struct ibv_context *ctx;
	CHECK_RET(rpma_utils_get_ibv_context(test_ip(), RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx));
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	CHECK(pd != NULL, "ibv_alloc_pd(): %s", strerror(errno));
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECK(mr != NULL, "ibv_reg_mr() with IBV_ACCESS_ON_DEMAND: %s", strerror(errno));
	struct ibv_sge sge = {(uintptr_t)addr, (uint32_t)len, mr->lkey};
	int err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH,
			&sge, 1);
	CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr() failed");
	CHECK(ibv_dealloc_pd(pd) == 0, "ibv_dealloc_pd() failed");
	return err;
}

bool
fsdax_device_odp(void)
{
	struct ibv_device_attr_ex attr;
	uint32_t rw = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;

	test_device_attr(&attr);
	bool odp = (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
		(attr.odp_caps.per_transport_caps.rc_odp_caps & rw) == rw;
	const char *expect = getenv("RPMA_TEST_EXPECT_ODP");
	if (expect != NULL && *expect != '\0')
		CHECK(odp == (strcmp(expect, "1") == 0), "the device %s on-demand paging, "
				"RPMA_TEST_EXPECT_ODP=%s says it %s", odp ? "offers" : "offers no",
				expect, odp ? "does not" : "does");
	return odp;
}
