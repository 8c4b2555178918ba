// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu selftests: submission, completion and ordering, hang recovery,
 * PRIME, fdinfo and the argument checks of every ioctl.
 *
 * Copyright (c) 2026 The simgpu authors
 */

#include <sys/wait.h>

#include "simgpu_test.h"

#define PAGE	4096

static int fd = -1;

static void open_device(void)
{
	fd = open_simgpu();
	CHECK_ERR(fd < 0 ? fd : 0, 0);
}

static void query(void)
{
	struct drm_simgpu_query_config config;
	struct {
		struct drm_simgpu_query_engines e;
		struct drm_simgpu_engine_info info[64];
	} engines;
	struct {
		struct drm_simgpu_query_regions r;
		struct drm_simgpu_region_info info[4];
	} regions;
	struct drm_simgpu_query q = { .type = DRM_SIMGPU_QUERY_CONFIG };

	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q), 0);
	CHECK(q.size == sizeof(config));
	q.data = (uintptr_t)&config;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q), 0);
	CHECK(config.refclk_hz > 0);
	CHECK(config.num_engines > 0 && config.max_cmds > 0);

	q = (struct drm_simgpu_query){
		.type = DRM_SIMGPU_QUERY_ENGINES,
		.size = sizeof(engines),
		.data = (uintptr_t)&engines,
	};
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q), 0);
	CHECK(engines.e.num_engines == config.num_engines);
	CHECK(q.size == sizeof(engines.e) +
			config.num_engines * sizeof(engines.info[0]));

	q = (struct drm_simgpu_query){
		.type = DRM_SIMGPU_QUERY_REGIONS,
		.size = sizeof(regions),
		.data = (uintptr_t)&regions,
	};
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q), 0);
	CHECK(regions.r.num_regions == DRM_SIMGPU_REGION_COUNT);
	CHECK(regions.info[DRM_SIMGPU_REGION_VRAM0].total_size > 0);
}

/* A job's WRITEs land in the buffer, seen through mmap */
static void submit_write_mmap(void)
{
	struct drm_simgpu_cmd cmds[3] = {
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = 0, .value = 0x11111111 },
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 1000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = PAGE + 8,
		  .value = 0x22222222 },
	};
	uint32_t queue, bo;
	uint32_t *map;

	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
			       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue), 0);
	CHECK_ERR(bo_create(fd, 2 * PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo), 0);
	map = bo_mmap(fd, bo, 2 * PAGE);
	CHECK(map);
	cmds[0].handle = bo;
	cmds[2].handle = bo;
	CHECK_ERR(submit(fd, queue, cmds, 3), 0);
	CHECK_ERR(wait_bo(fd, bo, now_ns() + 5000000000LL), 0);
	CHECK(map[0] == 0x11111111);
	CHECK(map[(PAGE + 8) / 4] == 0x22222222);
	CHECK(map[1] == 0);
	munmap(map, 2 * PAGE);
	CHECK_ERR(bo_close(fd, bo), 0);
	CHECK_ERR(queue_destroy(fd, queue), 0);
}

/* Jobs of one queue run in order; a syncobj orders jobs of two queues */
static void ordering(void)
{
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 200000 },
		{ .op = DRM_SIMGPU_CMD_WRITE },
	};
	uint32_t q1, q2, bo, sync;
	uint32_t *map;
	unsigned int i;

	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COMPUTE,
			       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &q1), 0);
	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY,
			       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &q2), 0);
	CHECK_ERR(bo_create(fd, PAGE, DRM_SIMGPU_REGION_VRAM0, &bo), 0);
	map = bo_mmap(fd, bo, PAGE);
	CHECK(map);

	/* Slot 0 is overwritten by each job, slot i + 1 written by job i */
	cmds[1].handle = bo;
	for (i = 0; i < 32; i++) {
		struct drm_simgpu_cmd c[3] = { cmds[0], cmds[1], cmds[1] };

		c[1].value = i;
		c[2].offset = 4 * (i + 1);
		c[2].value = i * 3 + 1;
		CHECK_ERR(submit(fd, q1, c, 3), 0);
	}
	CHECK_ERR(wait_bo(fd, bo, now_ns() + 5000000000LL), 0);
	CHECK(map[0] == 31);
	for (i = 0; i < 32; i++)
		CHECK(map[i + 1] == i * 3 + 1);

	/* q2 waits for a long job of q1 through a syncobj */
	CHECK_ERR(syncobj_create(fd, &sync), 0);
	cmds[0].value = 50000000;
	cmds[1].value = 1;
	CHECK_ERR(submit_sync(fd, q1, cmds, 2, 0, sync), 0);
	cmds[1].value = 2;
	CHECK_ERR(submit_sync(fd, q2, &cmds[1], 1, sync, 0), 0);
	CHECK_ERR(wait_bo(fd, bo, now_ns() + 5000000000LL), 0);
	CHECK_ERR(syncobj_wait(fd, sync, 0), 0);
	CHECK(map[0] == 2);

	munmap(map, PAGE);
	CHECK_ERR(bo_close(fd, bo), 0);
	CHECK_ERR(queue_destroy(fd, q1), 0);
	CHECK_ERR(queue_destroy(fd, q2), 0);
}

static void wait_bo_timeout(void)
{
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 200000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .value = 1 },
	};
	uint32_t queue, bo;
	uint64_t t;

	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE,
			       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue), 0);
	CHECK_ERR(bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo), 0);
	CHECK_ERR(wait_bo(fd, bo, 0), 0);
	cmds[1].handle = bo;
	CHECK_ERR(submit(fd, queue, cmds, 2), 0);
	CHECK_ERR(wait_bo(fd, bo, 0), -ETIME);
	t = now_ns();
	CHECK_ERR(wait_bo(fd, bo, t + 20000000), -ETIME);
	CHECK(now_ns() - t >= 15000000);
	CHECK_ERR(wait_bo(fd, bo, now_ns() + 5000000000LL), 0);
	CHECK_ERR(bo_close(fd, bo), 0);
	CHECK_ERR(queue_destroy(fd, queue), 0);
}

/*
 * A hang is reset: only the guilty queue is banned, an innocent queue on
 * the same engine, queued behind the hang, completes.
 */
static void hang_reset(void)
{
	struct drm_simgpu_cmd hang = { .op = DRM_SIMGPU_CMD_HANG };
	struct drm_simgpu_cmd write[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 1000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .value = 42 },
	};
	uint32_t guilty, innocent, bo, gsync;
	uint32_t *map;
	int ret = 0, i;

	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0, &guilty),
		  0);
	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0,
			       &innocent), 0);
	CHECK_ERR(bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo), 0);
	map = bo_mmap(fd, bo, PAGE);
	CHECK(map);
	CHECK_ERR(syncobj_create(fd, &gsync), 0);
	write[1].handle = bo;

	CHECK_ERR(submit_sync(fd, guilty, &hang, 1, 0, gsync), 0);
	CHECK_ERR(submit(fd, innocent, write, 2), 0);
	CHECK_ERR(wait_bo(fd, bo, now_ns() + 10000000000LL), 0);
	CHECK(map[0] == 42);
	CHECK_ERR(syncobj_wait(fd, gsync, now_ns() + 5000000000LL), 0);

	/* The guilty queue is banned, the innocent one goes on */
	for (i = 0; i < 100; i++) {
		ret = submit(fd, guilty, write, 2);
		if (ret)
			break;
		usleep(10000);
	}
	CHECK_ERR(ret, -ECANCELED);
	write[1].value = 43;
	CHECK_ERR(submit(fd, innocent, write, 2), 0);
	CHECK_ERR(wait_bo(fd, bo, now_ns() + 5000000000LL), 0);
	CHECK(map[0] == 43);

	munmap(map, PAGE);
	CHECK_ERR(bo_close(fd, bo), 0);
	CHECK_ERR(queue_destroy(fd, guilty), 0);
	CHECK_ERR(queue_destroy(fd, innocent), 0);
}

static void prime(void)
{
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_WRITE, .value = 7 };
	struct drm_prime_handle exp = { .flags = DRM_CLOEXEC | DRM_RDWR };
	struct drm_prime_handle imp = {};
	uint32_t queue, bo;
	uint32_t *map;
	int fd2;

	fd2 = open_simgpu();
	CHECK_ERR(fd2 < 0 ? fd2 : 0, 0);
	CHECK_ERR(bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo), 0);
	exp.handle = bo;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp), 0);
	imp.fd = exp.fd;
	CHECK_ERR(sg_ioctl(fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), 0);
	close(exp.fd);

	/* The second client writes the shared buffer */
	CHECK_ERR(queue_create(fd2, DRM_SIMGPU_ENGINE_CLASS_COPY,
			       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue), 0);
	cmd.handle = imp.handle;
	CHECK_ERR(submit(fd2, queue, &cmd, 1), 0);
	CHECK_ERR(wait_bo(fd, bo, now_ns() + 5000000000LL), 0);
	map = bo_mmap(fd, bo, PAGE);
	CHECK(map);
	CHECK(map[0] == 7);
	munmap(map, PAGE);
	close(fd2);
	CHECK_ERR(bo_close(fd, bo), 0);
}

static void madvise_purgeable(void)
{
	struct drm_simgpu_gem_madvise m = { .madv = DRM_SIMGPU_MADV_DONTNEED };
	uint32_t bo;

	CHECK_ERR(bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo), 0);
	m.handle = bo;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m), 0);
	CHECK(m.retained == 1);
	m.madv = DRM_SIMGPU_MADV_WILLNEED;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m), 0);
	CHECK(m.retained == 1);
	CHECK_ERR(bo_close(fd, bo), 0);
}

/* Every ioctl rejects bad arguments with the documented errno */
static void bad_args(void)
{
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1 };
	struct drm_simgpu_query q = {};
	struct drm_simgpu_exec_queue_create qc = {};
	struct drm_simgpu_exec_queue_destroy qd = {};
	struct drm_simgpu_gem_create gc = {};
	struct drm_simgpu_gem_mmap_offset mo = {};
	struct drm_simgpu_gem_madvise ma = {};
	struct drm_simgpu_submit s = {};
	struct drm_simgpu_wait_bo w = {};
	uint32_t queue, bo, vram, missing = 0x7fffffff;

	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
			       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue), 0);
	CHECK_ERR(bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo), 0);
	CHECK_ERR(bo_create(fd, PAGE, DRM_SIMGPU_REGION_VRAM0, &vram), 0);

	/* QUERY */
	q.type = 99;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q), -EINVAL);
	q.type = DRM_SIMGPU_QUERY_CONFIG;
	q.size = 4;
	q.data = (uintptr_t)&cmd;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q), -EINVAL);
	q.size = sizeof(struct drm_simgpu_query_config);
	q.data = 8;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q), -EFAULT);

	/* EXEC_QUEUE_CREATE */
	qc.flags = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc),
		  -EINVAL);
	qc.flags = 0;
	qc.pad = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc),
		  -EINVAL);
	qc.pad = 0;
	qc.engine_class = DRM_SIMGPU_ENGINE_CLASS_COUNT;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc),
		  -EINVAL);
	qc.engine_class = DRM_SIMGPU_ENGINE_CLASS_RENDER;
	qc.engine_instance = 8;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc),
		  -EINVAL);

	/* EXEC_QUEUE_DESTROY */
	qd.exec_queue_id = missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &qd),
		  -ENOENT);
	qd.exec_queue_id = queue;
	qd.pad = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &qd),
		  -EINVAL);

	/* GEM_CREATE */
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc), -EINVAL);
	gc.size = PAGE;
	gc.region = DRM_SIMGPU_REGION_COUNT;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc), -EINVAL);
	gc.region = DRM_SIMGPU_REGION_SYSTEM;
	gc.flags = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc), -EINVAL);
	gc.flags = 0;
	gc.pad = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc), -EINVAL);
	gc.pad = 0;
	gc.region = DRM_SIMGPU_REGION_VRAM0;
	gc.size = 1ULL << 50;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc), -ENOSPC);

	/* GEM_MMAP_OFFSET */
	mo.handle = missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo), -ENOENT);
	mo.handle = bo;
	mo.flags = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo), -EINVAL);

	/* GEM_MADVISE */
	ma.handle = missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma), -ENOENT);
	ma.handle = bo;
	ma.madv = 2;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma), -EINVAL);
	ma.madv = 0;
	ma.pad = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma), -EINVAL);
	ma.pad = 0;
	ma.handle = vram;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma), -EINVAL);

	/* SUBMIT */
	s.exec_queue_id = queue;
	s.num_cmds = 1;
	s.cmds = (uintptr_t)&cmd;
	s.flags = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);
	s.flags = 0;
	s.num_cmds = 0;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);
	s.num_cmds = 100000;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);
	s.num_cmds = 1;
	s.exec_queue_id = missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -ENOENT);
	s.exec_queue_id = queue;
	s.cmds = 8;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EFAULT);
	s.cmds = (uintptr_t)&cmd;
	s.num_in_syncs = 1;
	s.in_syncs = (uintptr_t)&missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -ENOENT);
	s.num_in_syncs = 0;
	s.num_bo_handles = 1;
	s.bo_handles = (uintptr_t)&missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -ENOENT);
	s.bo_handles = 8;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EFAULT);
	s.num_bo_handles = 0;
	s.out_sync = missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -ENOENT);
	s.out_sync = 0;
	cmd = (struct drm_simgpu_cmd){ .op = 77 };
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_BUSY,
				       .value = 1000000001 };
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_HANG, .handle = bo };
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_WRITE,
				       .handle = missing };
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -ENOENT);
	cmd.handle = bo;
	cmd.offset = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);
	cmd.offset = PAGE;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s), -EINVAL);

	/* WAIT_BO */
	w.handle = missing;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w), -ENOENT);
	w.handle = bo;
	w.pad = 1;
	CHECK_ERR(sg_ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w), -EINVAL);

	CHECK_ERR(bo_close(fd, bo), 0);
	CHECK_ERR(bo_close(fd, vram), 0);
	CHECK_ERR(queue_destroy(fd, queue), 0);
}

/* Our fdinfo, and the fdinfo checker when it is installed */
static void own_fdinfo(void)
{
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY,
				      .value = 20000000 };
	char path[64], buf[4096], cmdline[128];
	uint32_t queue, bo;
	ssize_t len;
	int f, ret;

	CHECK_ERR(queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
			       DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue), 0);
	CHECK_ERR(bo_create(fd, 1 << 20, DRM_SIMGPU_REGION_VRAM0, &bo), 0);
	CHECK_ERR(submit(fd, queue, &cmd, 1), 0);

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	CHECK(f >= 0);
	len = read(f, buf, sizeof(buf) - 1);
	close(f);
	CHECK(len > 0);
	buf[len] = '\0';
	CHECK(strstr(buf, "drm-driver:\tsimgpu\n"));

	if (system("command -v drm-fdinfo-check > /dev/null 2>&1")) {
		tap_skip("drm-fdinfo-check not on PATH");
	} else {
		snprintf(cmdline, sizeof(cmdline), "drm-fdinfo-check %d:%d",
			 getpid(), fd);
		ret = system(cmdline);
		CHECK(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);
	}
	CHECK_ERR(bo_close(fd, bo), 0);
	CHECK_ERR(queue_destroy(fd, queue), 0);
}

/* "key:\t<n>[ KiB| MiB]" of an fdinfo text in bytes, or -1 */
static int64_t fdinfo_bytes(const char *text, const char *key)
{
	char pattern[64];
	const char *p;
	char *end;
	int64_t v;

	snprintf(pattern, sizeof(pattern), "\n%s:\t", key);
	p = strstr(text, pattern);
	if (!p)
		return -1;
	v = strtoll(p + strlen(pattern), &end, 10);
	if (!strncmp(end, " KiB", 4))
		v <<= 10;
	else if (!strncmp(end, " MiB", 4))
		v <<= 20;
	return v;
}

/* The load generator: its clients have a simgpu fdinfo and pass the checker */
static void load_generator(void)
{
	static const char * const load_args[] = {
		"simgpu-load --class ccs --duty 50 --seconds 1",
		"--queues 2 --clients 3",
		"--alloc memory:1M --alloc vram0:2M",
	};
	char load_cmd[128];
	char line[128], cmd[128];
	bool checker;
	unsigned int n = 0;
	FILE *f;
	int ret;

	if (system("command -v simgpu-load > /dev/null 2>&1")) {
		tap_skip("simgpu-load not on PATH");
		return;
	}
	checker = !system("command -v drm-fdinfo-check > /dev/null 2>&1");

	snprintf(load_cmd, sizeof(load_cmd), "%s %s %s", load_args[0],
		 load_args[1], load_args[2]);
	f = popen(load_cmd, "r");
	CHECK(f);
	while (fgets(line, sizeof(line), f)) {
		char path[64], buf[4096];
		int pid, cfd, pf;
		ssize_t len;

		CHECK(sscanf(line, "client %d %d", &pid, &cfd) == 2);
		n++;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, cfd);
		pf = open(path, O_RDONLY);
		CHECK(pf >= 0);
		len = read(pf, buf, sizeof(buf) - 1);
		close(pf);
		CHECK(len > 0);
		buf[len] = '\0';
		CHECK(strstr(buf, "drm-driver:\tsimgpu\n"));
		CHECK(strstr(buf, "drm-engine-ccs:"));
		CHECK(fdinfo_bytes(buf, "drm-resident-memory") >= 1 << 20);
		CHECK(fdinfo_bytes(buf, "drm-resident-vram0") == 2 << 20);
		if (checker) {
			snprintf(cmd, sizeof(cmd), "drm-fdinfo-check %d:%d",
				 pid, cfd);
			ret = system(cmd);
			CHECK(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);
		}
	}
	ret = pclose(f);
	CHECK(n == 3);
	CHECK(WIFEXITED(ret) && WEXITSTATUS(ret) == 0);

	/* Bad options exit with status 2 */
	ret = system("simgpu-load --class xyz > /dev/null 2>&1");
	CHECK(WIFEXITED(ret) && WEXITSTATUS(ret) == 2);
	ret = system("simgpu-load --alloc vram0:1Q > /dev/null 2>&1");
	CHECK(WIFEXITED(ret) && WEXITSTATUS(ret) == 2);
	if (!checker)
		tap_skip("drm-fdinfo-check not on PATH");
}

int main(void)
{
	static const struct tap_test tests[] = {
		TEST(open_device),
		TEST(query),
		TEST(submit_write_mmap),
		TEST(ordering),
		TEST(wait_bo_timeout),
		TEST(hang_reset),
		TEST(prime),
		TEST(madvise_purgeable),
		TEST(bad_args),
		TEST(own_fdinfo),
		TEST(load_generator),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return tap_main(tests, ARRAY_SIZE(tests));
}
