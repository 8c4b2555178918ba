// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu selftests: create/destroy cycles, teardown with jobs in flight,
 * VRAM accounting, and a kmemleak scan of it all.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "simgpu_test.h"

#define PAGE		4096
#define CYCLES		10000
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

/*
 * The cycles take about 15 s each under User Mode Linux with KASAN, more on
 * a busy machine: more than the harness's default 30 s per test.
 */
#define LONG_TIMEOUT	300

/* Each test is a new client of simgpu */
FIXTURE(stress) {
	int fd;
};

FIXTURE_SETUP(stress)
{
	self->fd = open_simgpu();
	if (self->fd == -ENODEV)
		SKIP(return, SIMGPU_NO_DEVICE);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(stress)
{
	if (self->fd >= 0)
		close(self->fd);
}

static uint64_t vram_used(int fd);
static uint64_t vram_total(int fd);

/* The fixture's file is a simgpu render node */
TEST_F(stress, open_device)
{
	struct drm_version v = {};
	char name[32] = "";

	v.name = name;
	v.name_len = sizeof(name) - 1;
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_VERSION, &v));
	ASSERT_STREQ("simgpu", name);
}

TEST_F_TIMEOUT(stress, queue_cycles, LONG_TIMEOUT)
{
	int fd = self->fd;
	unsigned int i;
	uint32_t id;

	for (i = 0; i < CYCLES; i++) {
		ASSERT_EQ(0, queue_create(fd, i % DRM_SIMGPU_ENGINE_CLASS_COUNT,
					  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &id));
		ASSERT_EQ(0, queue_destroy(fd, id));
	}
}

TEST_F_TIMEOUT(stress, bo_cycles, LONG_TIMEOUT)
{
	int fd = self->fd;
	unsigned int i;
	uint32_t bo;

	for (i = 0; i < CYCLES; i++) {
		size_t size = PAGE * (1 + i % 16);

		ASSERT_EQ(0, bo_create(fd, size, i % DRM_SIMGPU_REGION_COUNT,
				       &bo));
		if (i % 100 == 0) {
			uint32_t *map = bo_mmap(fd, bo, size);

			ASSERT_NE(NULL, map);
			map[size / 4 - 1] = i;
			munmap(map, size);
		}
		ASSERT_EQ(0, bo_close(fd, bo));
	}
}

/* Queues with jobs in flight and queued are torn down at close */
TEST_F_TIMEOUT(stress, close_with_jobs, LONG_TIMEOUT)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 1000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .value = 1 },
	};
	uint64_t before = vram_used(fd);
	unsigned int round, i;
	int status;

	for (round = 0; round < 20; round++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			uint32_t queue[4], bo;
			int f = open_simgpu();
			unsigned int i, j;

			if (f < 0 || bo_create(f, PAGE, round % 2, &bo))
				_exit(1);
			cmds[1].handle = bo;
			for (i = 0; i < 4; i++)
				if (queue_create(f, i, DRM_SIMGPU_ENGINE_INSTANCE_ANY,
						 &queue[i]))
					_exit(1);
			for (j = 0; j < 20; j++)
				for (i = 0; i < 4; i++)
					if (submit(f, queue[i], cmds, 2))
						_exit(1);
			/* Destroy one queue explicitly, close the rest */
			if (queue_destroy(f, queue[0]))
				_exit(1);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}

	/* The buffers go once the last jobs of the closed files are done */
	for (i = 0; i < 500 && vram_used(fd) != before; i++)
		usleep(10000);
	ASSERT_EQ(before, vram_used(fd));
}

static uint64_t vram_used(int fd)
{
	struct {
		struct drm_simgpu_query_regions r;
		struct drm_simgpu_region_info info[DRM_SIMGPU_REGION_COUNT];
	} regions;
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_REGIONS,
		.size = sizeof(regions),
		.data = (uintptr_t)&regions,
	};

	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q))
		return ~0ULL;
	return regions.info[DRM_SIMGPU_REGION_VRAM0].used_size;
}

static uint64_t vram_total(int fd)
{
	struct {
		struct drm_simgpu_query_regions r;
		struct drm_simgpu_region_info info[DRM_SIMGPU_REGION_COUNT];
	} regions;
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_REGIONS,
		.size = sizeof(regions),
		.data = (uintptr_t)&regions,
	};

	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q))
		return 0;
	return regions.info[DRM_SIMGPU_REGION_VRAM0].total_size;
}

/* VRAM0 fills up with -ENOSPC and is given back when buffers are freed */
TEST_F(stress, vram_accounting)
{
	int fd = self->fd;
	uint64_t before = vram_used(fd), total = vram_total(fd), chunk;
	uint32_t handles[64];
	unsigned int n = 0, i;
	int ret;

	ASSERT_LT(0, total);
	ASSERT_GE(total, before);
	chunk = total / 16;
	if (chunk < PAGE)
		chunk = PAGE;
	chunk &= ~(uint64_t)(PAGE - 1);
	for (;;) {
		ASSERT_GT(64, n);
		ret = bo_create(fd, chunk, DRM_SIMGPU_REGION_VRAM0, &handles[n]);
		if (ret)
			break;
		n++;
	}
	ASSERT_EQ(-ENOSPC, ret);
	ASSERT_EQ(before + n * chunk, vram_used(fd));
	ASSERT_LT(total, vram_used(fd) + chunk);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, bo_close(fd, handles[i]));
	ASSERT_EQ(before, vram_used(fd));
}

/*
 * kmemleak finds nothing of the driver. Reports of others (boot-time false
 * positives) are shown but do not fail the test.
 */
TEST_F(stress, kmemleak)
{
	static char buf[1 << 16];
	unsigned int ours = 0;
	char *rec, *next;
	ssize_t len;
	int f;

	/* This client's objects go too */
	close(self->fd);
	self->fd = -1;
	f = open(KMEMLEAK, O_RDWR);
	if (f < 0)
		SKIP(return, "no " KMEMLEAK);
	/* kmemleak reports objects older than 5 s only */
	sleep(6);
	ASSERT_EQ(4, write(f, "scan", 4));
	lseek(f, 0, SEEK_SET);
	len = read(f, buf, sizeof(buf) - 1);
	close(f);
	ASSERT_LE(0, len);
	buf[len] = '\0';

	/* One record per "unreferenced object" */
	for (rec = strstr(buf, "unreferenced object"); rec; rec = next) {
		bool mine;
		char *line;

		next = strstr(rec + 1, "unreferenced object");
		if (next)
			next[-1] = '\0';
		mine = strstr(rec, "simgpu") || strstr(rec, "drm_");
		ours += mine;
		for (line = strtok(rec, "\n"); line; line = strtok(NULL, "\n"))
			printf("# %s%s\n", mine ? "" : "(not simgpu) ", line);
	}
	ASSERT_EQ(0, ours);
}

int main(int argc, char **argv)
{
	return simgpu_test_main(argc, argv);
}
