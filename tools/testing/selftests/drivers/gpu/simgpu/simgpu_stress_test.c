// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu selftests: create/destroy cycles, teardown with jobs in flight,
 * VRAM accounting, and a kmemleak scan of it all.
 *
 * Copyright (c) 2026 The simgpu authors
 */

#include <sys/wait.h>

#include "simgpu_test.h"

#define PAGE		4096
#define CYCLES		10000
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

static int fd = -1;

static void open_device(void)
{
	fd = open_simgpu();
	CHECK_ERR(fd < 0 ? fd : 0, 0);
}

static void queue_cycles(void)
{
	unsigned int i;
	uint32_t id;

	for (i = 0; i < CYCLES; i++) {
		CHECK_ERR(queue_create(fd, i % DRM_SIMGPU_ENGINE_CLASS_COUNT,
				       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &id), 0);
		CHECK_ERR(queue_destroy(fd, id), 0);
	}
}

static void bo_cycles(void)
{
	unsigned int i;
	uint32_t bo;

	for (i = 0; i < CYCLES; i++) {
		size_t size = PAGE * (1 + i % 16);

		CHECK_ERR(bo_create(fd, size, i % DRM_SIMGPU_REGION_COUNT,
				    &bo), 0);
		if (i % 100 == 0) {
			uint32_t *map = bo_mmap(fd, bo, size);

			CHECK(map);
			map[size / 4 - 1] = i;
			munmap(map, size);
		}
		CHECK_ERR(bo_close(fd, bo), 0);
	}
}

static uint64_t vram_used(void);

/* Queues with jobs in flight and queued are torn down at close */
static void close_with_jobs(void)
{
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 1000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .value = 1 },
	};
	uint64_t before = vram_used();
	unsigned int round, i;
	int status;

	for (round = 0; round < 20; round++) {
		pid_t pid = fork();

		CHECK(pid >= 0);
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
		CHECK(waitpid(pid, &status, 0) == pid);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}

	/* The buffers go once the last jobs of the closed files are done */
	for (i = 0; i < 500 && vram_used() != before; i++)
		usleep(10000);
	CHECK(vram_used() == before);
}

static uint64_t vram_used(void)
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

static uint64_t vram_total(void)
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
static void vram_accounting(void)
{
	uint64_t before = vram_used(), total = vram_total(), chunk;
	uint32_t handles[64];
	unsigned int n = 0, i;
	int ret;

	CHECK(total > 0 && before <= total);
	chunk = total / 16;
	if (chunk < PAGE)
		chunk = PAGE;
	chunk &= ~(uint64_t)(PAGE - 1);
	for (;;) {
		CHECK(n < 64);
		ret = bo_create(fd, chunk, DRM_SIMGPU_REGION_VRAM0, &handles[n]);
		if (ret)
			break;
		n++;
	}
	CHECK_ERR(ret, -ENOSPC);
	CHECK(vram_used() == before + n * chunk);
	CHECK(vram_used() + chunk > total);
	for (i = 0; i < n; i++)
		CHECK_ERR(bo_close(fd, handles[i]), 0);
	CHECK(vram_used() == before);
}

/*
 * kmemleak finds nothing of the driver. Reports of others (boot-time false
 * positives) are shown but do not fail the test.
 */
static void kmemleak(void)
{
	static char buf[1 << 16];
	unsigned int ours = 0;
	char *rec, *next;
	ssize_t len;
	int f;

	close(fd);
	fd = -1;
	f = open(KMEMLEAK, O_RDWR);
	if (f < 0) {
		tap_skip("no " KMEMLEAK);
		return;
	}
	/* kmemleak reports objects older than 5 s only */
	sleep(6);
	CHECK(write(f, "scan", 4) == 4);
	lseek(f, 0, SEEK_SET);
	len = read(f, buf, sizeof(buf) - 1);
	close(f);
	CHECK(len >= 0);
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
	CHECK(ours == 0);
}

int main(void)
{
	static const struct tap_test tests[] = {
		TEST(open_device),
		TEST(queue_cycles),
		TEST(bo_cycles),
		TEST(close_with_jobs),
		TEST(vram_accounting),
		TEST(kmemleak),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return tap_main(tests, ARRAY_SIZE(tests));
}
