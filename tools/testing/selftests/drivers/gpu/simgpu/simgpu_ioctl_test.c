// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu selftests: submission, completion and ordering, hang recovery,
 * PRIME, fdinfo, the argument checks of every ioctl, and job fences that
 * outlive their device and the module's load.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/sync_file.h>

#include "../../../kselftest_harness.h"
#include "simgpu_test.h"

#define PAGE	4096

/* Each test is a new client of simgpu */
FIXTURE(ioctl) {
	int fd;
};

FIXTURE_SETUP(ioctl)
{
	self->fd = open_simgpu();
	if (self->fd == -ENODEV)
		SKIP(return, SIMGPU_NO_DEVICE);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ioctl)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The fixture's file is a simgpu render node */
TEST_F(ioctl, open_device)
{
	struct drm_version v = {};
	char name[32] = "";

	v.name = name;
	v.name_len = sizeof(name) - 1;
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_VERSION, &v));
	ASSERT_STREQ("simgpu", name);
}

TEST_F(ioctl, query)
{
	int fd = self->fd;
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

	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	ASSERT_EQ(sizeof(config), q.size);
	q.data = (uintptr_t)&config;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	ASSERT_LT(0, config.refclk_hz);
	ASSERT_LT(0, config.num_engines);
	ASSERT_LT(0, config.max_cmds);

	q = (struct drm_simgpu_query){
		.type = DRM_SIMGPU_QUERY_ENGINES,
		.size = sizeof(engines),
		.data = (uintptr_t)&engines,
	};
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	ASSERT_EQ(config.num_engines, engines.e.num_engines);
	ASSERT_EQ(sizeof(engines.e) +
		  config.num_engines * sizeof(engines.info[0]), q.size);

	q = (struct drm_simgpu_query){
		.type = DRM_SIMGPU_QUERY_REGIONS,
		.size = sizeof(regions),
		.data = (uintptr_t)&regions,
	};
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	ASSERT_EQ(DRM_SIMGPU_REGION_COUNT, regions.r.num_regions);
	ASSERT_LT(0, regions.info[DRM_SIMGPU_REGION_VRAM0].total_size);
}

/* A job's WRITEs land in the buffer, seen through mmap */
TEST_F(ioctl, submit_write_mmap)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmds[3] = {
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = 0, .value = 0x11111111 },
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 1000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = PAGE + 8,
		  .value = 0x22222222 },
	};
	uint32_t queue, bo;
	uint32_t *map;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue));
	ASSERT_EQ(0, bo_create(fd, 2 * PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	map = bo_mmap(fd, bo, 2 * PAGE);
	ASSERT_NE(NULL, map);
	cmds[0].handle = bo;
	cmds[2].handle = bo;
	ASSERT_EQ(0, submit(fd, queue, cmds, 3));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(0x11111111, map[0]);
	ASSERT_EQ(0x22222222, map[(PAGE + 8) / 4]);
	ASSERT_EQ(0, map[1]);
	munmap(map, 2 * PAGE);
	ASSERT_EQ(0, bo_close(fd, bo));
	ASSERT_EQ(0, queue_destroy(fd, queue));
}

/* Jobs of one queue run in order; a syncobj orders jobs of two queues */
TEST_F(ioctl, ordering)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 200000 },
		{ .op = DRM_SIMGPU_CMD_WRITE },
	};
	uint32_t q1, q2, bo, sync;
	uint32_t *map;
	unsigned int i;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COMPUTE,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &q1));
	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &q2));
	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_VRAM0, &bo));
	map = bo_mmap(fd, bo, PAGE);
	ASSERT_NE(NULL, map);

	/* Slot 0 is overwritten by each job, slot i + 1 written by job i */
	cmds[1].handle = bo;
	for (i = 0; i < 32; i++) {
		struct drm_simgpu_cmd c[3] = { cmds[0], cmds[1], cmds[1] };

		c[1].value = i;
		c[2].offset = 4 * (i + 1);
		c[2].value = i * 3 + 1;
		ASSERT_EQ(0, submit(fd, q1, c, 3));
	}
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(31, map[0]);
	for (i = 0; i < 32; i++)
		ASSERT_EQ(i * 3 + 1, map[i + 1]);

	/* q2 waits for a long job of q1 through a syncobj */
	ASSERT_EQ(0, syncobj_create(fd, &sync));
	cmds[0].value = 50000000;
	cmds[1].value = 1;
	ASSERT_EQ(0, submit_sync(fd, q1, cmds, 2, 0, sync));
	cmds[1].value = 2;
	ASSERT_EQ(0, submit_sync(fd, q2, &cmds[1], 1, sync, 0));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(0, syncobj_wait(fd, sync, 0));
	ASSERT_EQ(2, map[0]);

	munmap(map, PAGE);
	ASSERT_EQ(0, bo_close(fd, bo));
	ASSERT_EQ(0, queue_destroy(fd, q1));
	ASSERT_EQ(0, queue_destroy(fd, q2));
}

TEST_F(ioctl, wait_bo_timeout)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 200000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .value = 1 },
	};
	uint32_t queue, bo;
	uint64_t t;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue));
	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	ASSERT_EQ(0, wait_bo(fd, bo, 0));
	cmds[1].handle = bo;
	ASSERT_EQ(0, submit(fd, queue, cmds, 2));
	ASSERT_EQ(-ETIME, wait_bo(fd, bo, 0));
	t = now_ns();
	ASSERT_EQ(-ETIME, wait_bo(fd, bo, t + 20000000));
	ASSERT_LE(15000000, now_ns() - t);
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(0, bo_close(fd, bo));
	ASSERT_EQ(0, queue_destroy(fd, queue));
}

/*
 * A hang is reset: only the guilty queue is banned, an innocent queue on
 * the same engine, queued behind the hang, completes.
 */
TEST_F(ioctl, hang_reset)
{
	int fd = self->fd;
	struct drm_simgpu_cmd hang = { .op = DRM_SIMGPU_CMD_HANG };
	struct drm_simgpu_cmd write[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 1000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .value = 42 },
	};
	uint32_t guilty, innocent, bo, gsync;
	uint32_t *map;
	int ret = 0, i;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0,
				  &guilty));
	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0,
				  &innocent));
	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	map = bo_mmap(fd, bo, PAGE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, syncobj_create(fd, &gsync));
	write[1].handle = bo;

	ASSERT_EQ(0, submit_sync(fd, guilty, &hang, 1, 0, gsync));
	ASSERT_EQ(0, submit(fd, innocent, write, 2));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 10000000000LL));
	ASSERT_EQ(42, map[0]);
	ASSERT_EQ(0, syncobj_wait(fd, gsync, now_ns() + 5000000000LL));

	/* The guilty queue is banned, the innocent one goes on */
	for (i = 0; i < 100; i++) {
		ret = submit(fd, guilty, write, 2);
		if (ret)
			break;
		usleep(10000);
	}
	ASSERT_EQ(-ECANCELED, ret);
	write[1].value = 43;
	ASSERT_EQ(0, submit(fd, innocent, write, 2));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(43, map[0]);

	munmap(map, PAGE);
	ASSERT_EQ(0, bo_close(fd, bo));
	ASSERT_EQ(0, queue_destroy(fd, guilty));
	ASSERT_EQ(0, queue_destroy(fd, innocent));
}

/* Export syncobj @handle's fence as a sync_file, wait for it, read it */
static int sync_file_fence(int fd, uint32_t handle,
			   struct sync_fence_info *fence)
{
	struct drm_syncobj_handle h = {
		.handle = handle,
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	struct sync_file_info info = {
		.num_fences = 1,
		.sync_fence_info = (uintptr_t)fence,
	};
	struct pollfd pfd = { .events = POLLIN };
	int ret;

	ret = sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);
	if (ret)
		return ret;
	pfd.fd = h.fd;
	ret = poll(&pfd, 1, 30000);
	if (ret == 1)
		ret = ioctl(h.fd, SYNC_IOC_FILE_INFO, &info) ? -errno : 0;
	else
		ret = ret ? -errno : -ETIME;
	if (!ret && info.num_fences != 1)
		ret = -EINVAL;
	close(h.fd);
	return ret;
}

/*
 * The fences of an exec queue signal in submission order, also across a
 * reset: a hang, then a short job on the same queue. The reset lets the
 * hardware complete the second one (cancelled) at once, so its interrupt
 * races with the signalling of the guilty one. Several rounds on every
 * engine at once.
 */
TEST_F(ioctl, reset_fence_order)
{
	enum { ROUNDS = 4, MAX_ENGINES = 64 };
	int fd = self->fd;
	struct drm_simgpu_cmd hang = { .op = DRM_SIMGPU_CMD_HANG };
	struct drm_simgpu_cmd busy = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1000 };
	struct {
		struct drm_simgpu_query_engines e;
		struct drm_simgpu_engine_info info[MAX_ENGINES];
	} engines;
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_ENGINES,
		.size = sizeof(engines),
		.data = (uintptr_t)&engines,
	};
	uint32_t queue[MAX_ENGINES], sync[MAX_ENGINES][2];
	unsigned int n, i, r, bad = 0;

	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	n = engines.e.num_engines;

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < n; i++) {
			ASSERT_EQ(0, queue_create(fd,
						  engines.info[i].engine_class,
						  engines.info[i].engine_instance,
						  &queue[i]));
			ASSERT_EQ(0, syncobj_create(fd, &sync[i][0]));
			ASSERT_EQ(0, syncobj_create(fd, &sync[i][1]));
			ASSERT_EQ(0, submit_sync(fd, queue[i], &hang, 1, 0,
						 sync[i][0]));
			ASSERT_EQ(0, submit_sync(fd, queue[i], &busy, 1, 0,
						 sync[i][1]));
		}
		for (i = 0; i < n; i++) {
			struct sync_fence_info f[2] = {};

			ASSERT_EQ(0, sync_file_fence(fd, sync[i][0], &f[0]));
			ASSERT_EQ(0, sync_file_fence(fd, sync[i][1], &f[1]));
			EXPECT_EQ(-ETIMEDOUT, f[0].status);
			EXPECT_EQ(-ECANCELED, f[1].status);
			if (f[1].timestamp_ns < f[0].timestamp_ns) {
				TH_LOG("round %u, %u:%u: the cancelled job signalled %llu ns first",
				       r, engines.info[i].engine_class,
				       engines.info[i].engine_instance,
				       (unsigned long long)(f[0].timestamp_ns -
							    f[1].timestamp_ns));
				bad++;
			}
			ASSERT_EQ(0, queue_destroy(fd, queue[i]));
		}
	}
	ASSERT_EQ(0, bad) {
		TH_LOG("%u of %u pairs signalled out of order", bad,
		       ROUNDS * n);
	}
}

/*
 * A job may hold its engine for max_job_ns at most, progress or not:
 * another client's short job on the same engine, behind a job of ten
 * 1-second BUSY commands, completes within that bound (plus a generous
 * slack for a loaded host), and the long job fails with -ETIMEDOUT.
 */
TEST_F(ioctl, run_time_limit)
{
	const int64_t slack = 3000000000LL;
	struct drm_simgpu_cmd busy[10];
	struct drm_simgpu_cmd quick = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = 1000000,
	};
	struct drm_simgpu_query_config config = {};
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(config),
		.data = (uintptr_t)&config,
	};
	struct sync_fence_info f_hog = {}, f_quick = {};
	uint32_t hog, other, s_hog, s_quick;
	int64_t bound, t0, waited;
	int fd = self->fd, fd2;
	unsigned int i;

	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	EXPECT_EQ(sizeof(config), q.size);
	EXPECT_LT(0, config.max_job_ns);
	EXPECT_GE(5000000000ULL, config.max_job_ns);
	bound = config.max_job_ns;

	for (i = 0; i < ARRAY_SIZE(busy); i++)
		busy[i] = (struct drm_simgpu_cmd){
			.op = DRM_SIMGPU_CMD_BUSY, .value = 1000000000,
		};
	fd2 = client_open();
	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0, &hog));
	ASSERT_EQ(0, queue_create(fd2, DRM_SIMGPU_ENGINE_CLASS_COPY, 0,
				  &other));
	ASSERT_EQ(0, syncobj_create(fd, &s_hog));
	ASSERT_EQ(0, syncobj_create(fd2, &s_quick));

	ASSERT_EQ(0, submit_sync(fd, hog, busy, ARRAY_SIZE(busy), 0, s_hog));
	t0 = now_ns();
	ASSERT_EQ(0, submit_sync(fd2, other, &quick, 1, 0, s_quick));
	ASSERT_EQ(0, syncobj_wait(fd2, s_quick, t0 + 60000000000LL));
	waited = now_ns() - t0;
	TH_LOG("the 1 ms job waited %.3f s behind the 10 s one, bound %.3f s",
	       waited / 1e9, bound / 1e9);
	EXPECT_GE(bound + slack, waited);

	ASSERT_EQ(0, sync_file_fence(fd2, s_quick, &f_quick));
	EXPECT_EQ(1, f_quick.status);
	ASSERT_EQ(0, sync_file_fence(fd, s_hog, &f_hog));
	EXPECT_EQ(-ETIMEDOUT, f_hog.status);
	/* Stopped like a hang: its queue is banned */
	EXPECT_EQ(-ECANCELED, submit(fd, hog, &quick, 1));

	close(fd2);
}

TEST_F(ioctl, prime)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_WRITE, .value = 7 };
	struct drm_prime_handle exp = { .flags = DRM_CLOEXEC | DRM_RDWR };
	struct drm_prime_handle imp = {};
	uint32_t queue, bo;
	uint32_t *map;
	int fd2;

	fd2 = open_simgpu();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	exp.handle = bo;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp));
	imp.fd = exp.fd;
	ASSERT_EQ(0, sg_ioctl(fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp));
	close(exp.fd);

	/* The second client writes the shared buffer */
	ASSERT_EQ(0, queue_create(fd2, DRM_SIMGPU_ENGINE_CLASS_COPY,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue));
	cmd.handle = imp.handle;
	ASSERT_EQ(0, submit(fd2, queue, &cmd, 1));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	map = bo_mmap(fd, bo, PAGE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(7, map[0]);
	munmap(map, PAGE);
	close(fd2);
	ASSERT_EQ(0, bo_close(fd, bo));
}

TEST_F(ioctl, madvise_purgeable)
{
	int fd = self->fd;
	struct drm_simgpu_gem_madvise m = { .madv = DRM_SIMGPU_MADV_DONTNEED };
	uint32_t bo;

	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	m.handle = bo;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m));
	ASSERT_EQ(1, m.retained);
	m.madv = DRM_SIMGPU_MADV_WILLNEED;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m));
	ASSERT_EQ(1, m.retained);
	ASSERT_EQ(0, bo_close(fd, bo));
}

/*
 * Timeline syncobjs: a job signals a point, a job of another engine waits
 * for it and signals a later point; the DRM timeline ioctls see both.
 */
TEST_F(ioctl, timeline_syncs)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 50000000 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .value = 1 },
	};
	struct drm_simgpu_sync point = {
		.flags = DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ,
	};
	struct drm_simgpu_sync out[2];
	uint32_t q1, q2, bo, timeline, binary;
	uint64_t value = 1;
	uint32_t *map;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COMPUTE,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &q1));
	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &q2));
	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	map = bo_mmap(fd, bo, PAGE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, syncobj_create(fd, &timeline));
	ASSERT_EQ(0, syncobj_create(fd, &binary));

	/* The driver has timeline syncobjs: nothing signalled yet */
	ASSERT_EQ(0, syncobj_query(fd, timeline, &value));
	ASSERT_EQ(0, value);

	/* q1: a long job signals point 3 and the binary syncobj */
	cmds[1].handle = bo;
	point.handle = timeline;
	point.timeline_value = 3;
	out[0] = point;
	out[1] = (struct drm_simgpu_sync){ .handle = binary };
	ASSERT_EQ(0, submit_syncs(fd, q1, cmds, 2, NULL, 0, out, 2));

	/* q2 waits for point 3, writes after it and signals point 5 */
	cmds[1].value = 2;
	out[0].timeline_value = 5;
	ASSERT_EQ(0, submit_syncs(fd, q2, &cmds[1], 1, &point, 1, out, 1));
	/* Point 8 was never submitted: a job cannot wait for it */
	point.timeline_value = 8;
	ASSERT_EQ(-EINVAL, submit_syncs(fd, q2, &cmds[1], 1, &point, 1,
					NULL, 0));

	ASSERT_EQ(0, syncobj_timeline_wait(fd, timeline, 5,
					   now_ns() + 5000000000LL, 0));
	ASSERT_EQ(0, syncobj_query(fd, timeline, &value));
	ASSERT_EQ(5, value);
	ASSERT_EQ(0, syncobj_timeline_wait(fd, timeline, 3, 0, 0));
	ASSERT_EQ(0, syncobj_wait(fd, binary, 0));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(2, map[0]);
	/* Point 8 is not there: waiting for its submission times out */
	ASSERT_EQ(-ETIME,
		  syncobj_timeline_wait(fd, timeline, 8, 0,
					DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT));

	/* A point the CPU signalled is one too */
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
			      &(struct drm_syncobj_timeline_array){
				      .handles = (uintptr_t)&timeline,
				      .points = (uintptr_t)&(uint64_t){ 8 },
				      .count_handles = 1,
			      }));
	cmds[1].value = 3;
	ASSERT_EQ(0, submit_syncs(fd, q2, &cmds[1], 1, &point, 1, NULL, 0));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(3, map[0]);

	munmap(map, PAGE);
	ASSERT_EQ(0, bo_close(fd, bo));
	ASSERT_EQ(0, queue_destroy(fd, q1));
	ASSERT_EQ(0, queue_destroy(fd, q2));
}

/* No extension is defined: any chain is refused, a looping one too */
TEST_F(ioctl, extensions)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1 };
	struct drm_simgpu_user_extension ext[2] = {};
	struct drm_simgpu_exec_queue_create qc = {
		.extensions = (uintptr_t)ext,
	};
	struct drm_simgpu_submit s = {
		.extensions = (uintptr_t)ext,
		.num_cmds = 1,
		.cmds = (uintptr_t)&cmd,
	};
	unsigned int i;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY,
				  &s.exec_queue_id));
	ext[0].next_extension = (uintptr_t)&ext[1];
	ext[1].next_extension = (uintptr_t)&ext[0];
	for (i = 0; i < 4; i++) {
		ext[0].name = i == 1 ? 0x7fffffff : 0;
		ext[0].pad = i == 2;
		if (i == 3)
			ext[0].next_extension = 0;
		ASSERT_EQ(-EINVAL,
			  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE,
				   &qc));
		ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	}
	qc.extensions = 8;
	s.extensions = 8;
	ASSERT_EQ(-EFAULT,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));
	ASSERT_EQ(-EFAULT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	/* Without, both work */
	qc.extensions = 0;
	s.extensions = 0;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
}

/*
 * A COPY's source offset is 64 bits: in a buffer past 4 GiB if system
 * memory allows one, else only the check against the buffer's size.
 */
TEST_F(ioctl, copy_high_source)
{
	int fd = self->fd;
	struct drm_simgpu_region_info info[DRM_SIMGPU_REGION_COUNT];
	const uint64_t high = (1ULL << 32) + PAGE;
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = high, .value = 0xbeef },
		{ .op = DRM_SIMGPU_CMD_COPY, .offset = 0, .src_offset = high,
		  .value = 4 },
	};
	uint32_t queue, bo;
	uint32_t *map;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue));
	ASSERT_EQ(0, query_regions(fd, info));
	ASSERT_EQ(DRM_SIMGPU_REGION_SYSTEM, info[0].region);

	/* Past the end of a small buffer; the low 32 bits would be inside */
	ASSERT_EQ(0, bo_create(fd, 2 * PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	cmds[1].handle = bo;
	cmds[1].offset = PAGE;
	cmds[1].src_offset = 1ULL << 32;
	ASSERT_EQ(-EINVAL, submit(fd, queue, &cmds[1], 1));
	cmds[1].src_offset = 64;
	ASSERT_EQ(0, submit(fd, queue, &cmds[1], 1));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	ASSERT_EQ(0, bo_close(fd, bo));
	cmds[1].offset = 0;
	cmds[1].src_offset = high;

	if (info[0].max_bo_size < high + PAGE ||
	    info[0].total_size - info[0].used_size < high + PAGE) {
		ksft_print_msg("no system buffer above 4 GiB fits (largest %llu bytes)%s\n",
			       (unsigned long long)info[0].max_bo_size,
			       ": offset check only");
		return;
	}
	ASSERT_EQ(0, bo_create(fd, high + PAGE, DRM_SIMGPU_REGION_SYSTEM,
			       &bo));
	cmds[0].handle = bo;
	cmds[1].handle = bo;
	ASSERT_EQ(0, submit(fd, queue, cmds, 2));
	ASSERT_EQ(0, wait_bo(fd, bo, now_ns() + 5000000000LL));
	map = bo_mmap(fd, bo, PAGE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0xbeef, map[0]);
	munmap(map, PAGE);
	ASSERT_EQ(0, bo_close(fd, bo));
}

/* Every ioctl rejects bad arguments with the documented errno */
TEST_F(ioctl, bad_args)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1 };
	struct drm_simgpu_query q = {};
	struct drm_simgpu_exec_queue_create qc = {};
	struct drm_simgpu_exec_queue_destroy qd = {};
	struct drm_simgpu_gem_create gc = {};
	struct drm_simgpu_gem_mmap_offset mo = {};
	struct drm_simgpu_gem_madvise ma = {};
	struct drm_simgpu_submit s = {};
	struct drm_simgpu_wait_bo w = {};
	struct drm_simgpu_user_extension ext = {};
	struct drm_simgpu_sync sync = {};
	uint32_t queue, bo, vram, missing = 0x7fffffff, empty;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue));
	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	ASSERT_EQ(0, bo_create(fd, PAGE, DRM_SIMGPU_REGION_VRAM0, &vram));

	/* QUERY */
	q.type = 99;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	q.type = DRM_SIMGPU_QUERY_CONFIG;
	q.size = 4;
	q.data = (uintptr_t)&cmd;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	q.size = sizeof(struct drm_simgpu_query_config);
	q.data = 8;
	ASSERT_EQ(-EFAULT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));

	/* EXEC_QUEUE_CREATE */
	qc.flags = 1;
	ASSERT_EQ(-EINVAL,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));
	qc.flags = 0;
	qc.pad = 1;
	ASSERT_EQ(-EINVAL,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));
	qc.pad = 0;
	qc.extensions = (uintptr_t)&ext;
	ASSERT_EQ(-EINVAL,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));
	qc.extensions = 8;
	ASSERT_EQ(-EFAULT,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));
	qc.extensions = 0;
	qc.engine_class = DRM_SIMGPU_ENGINE_CLASS_COUNT;
	ASSERT_EQ(-EINVAL,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));
	qc.engine_class = DRM_SIMGPU_ENGINE_CLASS_RENDER;
	qc.engine_instance = 8;
	ASSERT_EQ(-EINVAL,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc));

	/* EXEC_QUEUE_DESTROY */
	qd.exec_queue_id = missing;
	ASSERT_EQ(-ENOENT,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &qd));
	qd.exec_queue_id = queue;
	qd.pad = 1;
	ASSERT_EQ(-EINVAL,
		  sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &qd));

	/* GEM_CREATE */
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc));
	gc.size = PAGE;
	gc.region = DRM_SIMGPU_REGION_COUNT;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc));
	gc.region = DRM_SIMGPU_REGION_SYSTEM;
	gc.flags = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc));
	gc.flags = 0;
	gc.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc));
	gc.pad = 0;
	gc.region = DRM_SIMGPU_REGION_VRAM0;
	gc.size = 1ULL << 50;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc));

	/* GEM_MMAP_OFFSET */
	mo.handle = missing;
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo));
	mo.handle = bo;
	mo.flags = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo));

	/* GEM_MADVISE */
	ma.handle = missing;
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma));
	ma.handle = bo;
	ma.madv = 2;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma));
	ma.madv = 0;
	ma.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma));
	ma.pad = 0;
	ma.handle = vram;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma));

	/* SUBMIT */
	s.exec_queue_id = queue;
	s.num_cmds = 1;
	s.cmds = (uintptr_t)&cmd;
	s.flags = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.flags = 0;
	s.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.pad = 0;
	s.extensions = (uintptr_t)&ext;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.extensions = 8;
	ASSERT_EQ(-EFAULT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.extensions = 0;
	s.num_cmds = 0;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.num_cmds = 100000;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.num_cmds = 1;
	s.exec_queue_id = missing;
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.exec_queue_id = queue;
	s.cmds = 8;
	ASSERT_EQ(-EFAULT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.cmds = (uintptr_t)&cmd;
	s.num_in_syncs = DRM_SIMGPU_MAX_IN_SYNCS + 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.num_in_syncs = 0;
	s.num_out_syncs = DRM_SIMGPU_MAX_OUT_SYNCS + 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.num_out_syncs = 0;
	sync.handle = missing;
	s.num_in_syncs = 1;
	s.in_syncs = (uintptr_t)&sync;
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.in_syncs = 8;
	ASSERT_EQ(-EFAULT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.in_syncs = (uintptr_t)&sync;
	/* A syncobj without a fence, a point not submitted */
	ASSERT_EQ(0, syncobj_create(fd, &empty));
	sync.handle = empty;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	sync.flags = DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ;
	sync.timeline_value = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	/* Types and points: binary with a point, timeline without, unknown */
	s.num_in_syncs = 0;
	s.out_syncs = (uintptr_t)&sync;
	s.num_out_syncs = 1;
	sync.timeline_value = 0;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	sync.flags = DRM_SIMGPU_SYNC_TYPE_SYNCOBJ;
	sync.timeline_value = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	sync.flags = 2;
	sync.timeline_value = 0;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	sync.flags = 0;
	sync.handle = missing;
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.out_syncs = 8;
	ASSERT_EQ(-EFAULT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.num_out_syncs = 0;
	s.num_bo_handles = 1;
	s.bo_handles = (uintptr_t)&missing;
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.bo_handles = 8;
	ASSERT_EQ(-EFAULT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	s.num_bo_handles = 0;
	cmd = (struct drm_simgpu_cmd){ .op = 77 };
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_BUSY,
				       .value = 1000000001 };
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_HANG, .handle = bo };
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_WRITE,
				       .handle = missing };
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd.handle = bo;
	cmd.offset = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd.offset = PAGE;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd.offset = 0;
	cmd.src_offset = 8;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	/* A COPY's 64-bit source offset is checked against the buffer */
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_COPY, .handle = bo,
				       .src_offset = 1ULL << 32, .value = 8 };
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd.src_offset = (1ULL << 32) + 64;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));
	cmd.value = (1ULL << 32) + 8;
	cmd.src_offset = 64;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));

	/* WAIT_BO */
	w.handle = missing;
	ASSERT_EQ(-ENOENT, sg_ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w));
	w.handle = bo;
	w.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w));

	ASSERT_EQ(0, bo_close(fd, bo));
	ASSERT_EQ(0, bo_close(fd, vram));
	ASSERT_EQ(0, queue_destroy(fd, queue));
}

/* Our fdinfo, and the fdinfo checker when it is installed */
TEST_F(ioctl, own_fdinfo)
{
	int fd = self->fd;
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY,
				      .value = 20000000 };
	char path[64], buf[4096], cmdline[128];
	uint32_t queue, bo;
	ssize_t len;
	bool checker;
	int f, ret;

	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
				  DRM_SIMGPU_ENGINE_INSTANCE_ANY, &queue));
	ASSERT_EQ(0, bo_create(fd, 1 << 20, DRM_SIMGPU_REGION_VRAM0, &bo));
	ASSERT_EQ(0, submit(fd, queue, &cmd, 1));

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	ASSERT_LE(0, f);
	len = read(f, buf, sizeof(buf) - 1);
	close(f);
	ASSERT_LT(0, len);
	buf[len] = '\0';
	ASSERT_NE(NULL, strstr(buf, "drm-driver:\tsimgpu\n"));

	checker = on_path("drm-fdinfo-check");
	if (checker) {
		snprintf(cmdline, sizeof(cmdline), "drm-fdinfo-check %d:%d",
			 getpid(), fd);
		ret = system(cmdline);
		ASSERT_EQ(0, ret);
	}
	ASSERT_EQ(0, bo_close(fd, bo));
	ASSERT_EQ(0, queue_destroy(fd, queue));
	if (!checker)
		SKIP(return, "drm-fdinfo-check not on PATH");
}

/* One client of the load generator: its fdinfo is simgpu's, and clean */
static bool check_load_client(int pid, int cfd, bool checker)
{
	char path[64], buf[4096], cmd[128];
	ssize_t len;
	int pf;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, cfd);
	pf = open(path, O_RDONLY);
	if (pf < 0) {
		ksft_print_msg("%s: %s\n", path, strerror(errno));
		return false;
	}
	len = read(pf, buf, sizeof(buf) - 1);
	close(pf);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	if (!strstr(buf, "drm-driver:\tsimgpu\n") ||
	    !strstr(buf, "drm-engine-ccs:") ||
	    fdinfo_bytes(buf, "drm-resident-memory") < 1 << 20 ||
	    fdinfo_bytes(buf, "drm-resident-vram0") != 2 << 20) {
		ksft_print_msg("%s:\n%s", path, buf);
		return false;
	}
	if (!checker)
		return true;
	snprintf(cmd, sizeof(cmd), "drm-fdinfo-check %d:%d", pid, cfd);
	return system(cmd) == 0;
}

/* The parent of process @pid, or 0 */
static pid_t parent_of(pid_t pid)
{
	char path[64], line[256];
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid:\t%d", &ppid) == 1)
			break;
	fclose(f);
	return ppid > 1 ? ppid : 0;
}

/*
 * The load generator: its clients have a simgpu fdinfo and pass the checker.
 * The load runs until the test stops it, once all three are checked, with
 * SIGTERM: after which it exits with status 0.
 */
TEST_F_TIMEOUT(ioctl, load_generator, 300)
{
	static const char * const load_args[] = {
		"simgpu-load --class ccs --duty 50 --seconds 600",
		"--queues 2 --clients 3",
		"--alloc memory:1M --alloc vram0:2M",
	};
	char load_cmd[128];
	int pids[3], cfd, pid, ret;
	unsigned int n = 0, i, good = 0;
	char line[128];
	bool checker;
	FILE *f;

	if (!on_path("simgpu-load"))
		SKIP(return, "simgpu-load not on PATH");
	checker = on_path("drm-fdinfo-check");

	snprintf(load_cmd, sizeof(load_cmd), "%s %s %s", load_args[0],
		 load_args[1], load_args[2]);
	f = popen(load_cmd, "r");
	ASSERT_NE(NULL, f);
	while (n < ARRAY_SIZE(pids) && fgets(line, sizeof(line), f) &&
	       sscanf(line, "client %d %d", &pid, &cfd) == 2) {
		pids[n++] = pid;
		good += check_load_client(pid, cfd, checker);
	}
	/* The load's parent passes SIGTERM on to the clients it has */
	if (n && parent_of(pids[0]))
		kill(parent_of(pids[0]), SIGTERM);
	for (i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	ret = pclose(f);
	ASSERT_EQ(3, n);
	ASSERT_EQ(3, good);
	ASSERT_EQ(0, ret);

	/* Bad options exit with status 2 */
	ret = system("simgpu-load --class xyz > /dev/null 2>&1");
	ASSERT_TRUE(WIFEXITED(ret));
	ASSERT_EQ(2, WEXITSTATUS(ret));
	ret = system("simgpu-load --alloc vram0:1Q > /dev/null 2>&1");
	ASSERT_TRUE(WIFEXITED(ret));
	ASSERT_EQ(2, WEXITSTATUS(ret));
	if (!checker)
		SKIP(return, "drm-fdinfo-check not on PATH");
}

/* --- job fences that outlive their device ---------------------------------- */

FIXTURE(fence_gone) {
	char dev[256];
	bool unloaded;
};

FIXTURE_VARIANT(fence_gone) {
	/* Unloading the module is attempted, else the driver is unbound */
	bool unload;
	/* The job still runs when its client closes the device */
	bool running;
};

FIXTURE_VARIANT_ADD(fence_gone, unload_signalled) {
	.unload = true,
};

FIXTURE_VARIANT_ADD(fence_gone, unload_running) {
	.unload = true,
	.running = true,
};

FIXTURE_VARIANT_ADD(fence_gone, unbind_signalled) {
	.unload = false,
};

FIXTURE_VARIANT_ADD(fence_gone, unbind_running) {
	.unload = false,
	.running = true,
};

FIXTURE_SETUP(fence_gone)
{
	const char *why = simgpu_gone_setup(self->dev, sizeof(self->dev),
					    variant->unload);

	if (why)
		SKIP(return, "%s", why);
}

/* In the parent: whatever became of the test, simgpu is back */
FIXTURE_TEARDOWN_PARENT(fence_gone)
{
	if (self->dev[0]) {
		simgpu_reload();
		simgpu_rebind(self->dev);
	}
}

/*
 * The module's reference count once it is @refs, or after 2 s: the exec
 * queues of a closed file hold the module until their jobs are done, and
 * a worker frees them.
 */
static long module_refs_back_to(long refs)
{
	uint64_t deadline = now_ns() + 2000000000ULL;

	while (simgpu_module_refs() != refs && now_ns() < deadline)
		usleep(10000);
	return simgpu_module_refs();
}

/* SYNC_IOC_FILE_INFO of a sync_file of one fence: 0 or -errno */
static int sync_file_info(int fd, struct sync_file_info *info,
			  struct sync_fence_info *fence)
{
	memset(info, 0, sizeof(*info));
	memset(fence, 0, sizeof(*fence));
	info->num_fences = 1;
	info->sync_fence_info = (uintptr_t)fence;
	return sg_ioctl(fd, SYNC_IOC_FILE_INFO, info);
}

/*
 * A job's fence, exported from its out syncobj as a sync_file, outlives
 * its client's file and then the driver's binding or the module: its info
 * and its release must not reach anything of the device or the module
 * that is gone. The fence holds neither: the driver unbinds with the job
 * still running, and the module unloads once the job is done (its exec
 * queue holds the module until then), with the sync_file still open.
 *
 * A kernel whose dma_fence still calls a signalled fence's ops (a stock
 * 6.12, which runs simgpu out of tree) cannot let the module go before
 * its fences: there each fence holds the module until it is released.
 * SIMGPU_FENCES_HOLD_MODULE in the environment says so, and the test
 * checks that instead: the module stays while the sync_file is open, its
 * fence still tells its status, and it unloads once the sync_file is
 * closed.
 */
TEST_F(fence_gone, sync_file_info_and_release)
{
	bool held = getenv("SIMGPU_FENCES_HOLD_MODULE");
	struct drm_simgpu_cmd cmd = {
		.op = DRM_SIMGPU_CMD_BUSY,
		.value = variant->running ? 300000000 : 1000000,
	};
	struct drm_syncobj_handle h = {
		.flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	long taint0 = kernel_taint(), taint1, refs0 = simgpu_module_refs();
	struct pollfd pfd = { .events = POLLIN };
	struct sync_fence_info fence;
	struct sync_file_info info;
	uint32_t queue, sync;
	int fd, ret;

	ASSERT_LE(0, taint0);
	fd = client_open();
	ASSERT_EQ(0, queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0, &queue));
	ASSERT_EQ(0, syncobj_create(fd, &sync));
	ASSERT_EQ(0, submit_sync(fd, queue, &cmd, 1, 0, sync));
	if (!variant->running)
		ASSERT_EQ(0, syncobj_wait(fd, sync, INT64_MAX));
	h.handle = sync;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h));
	ASSERT_LE(0, h.fd);
	ASSERT_EQ(0, close(fd));

	if (variant->unload) {
		if (variant->running) {
			/*
			 * The running job's queue holds the module:
			 * delete_module() fails with EWOULDBLOCK (rmmod tells
			 * "in use" from refcnt first) until the job is done.
			 */
			ret = syscall(__NR_delete_module, "simgpu", O_NONBLOCK);
			ASSERT_EQ(-1, ret);
			ASSERT_TRUE(errno == EWOULDBLOCK || errno == EBUSY)
				TH_LOG("delete_module: %s", strerror(errno));
			pfd.fd = h.fd;
			ASSERT_EQ(1, poll(&pfd, 1, 10000));
		}
		if (held) {
			/* The fence, and nothing else, holds the module */
			ASSERT_EQ(refs0 + 1, module_refs_back_to(refs0 + 1));
			ret = syscall(__NR_delete_module, "simgpu", O_NONBLOCK);
			ASSERT_EQ(-1, ret);
			ASSERT_TRUE(errno == EWOULDBLOCK || errno == EBUSY)
				TH_LOG("delete_module: %s", strerror(errno));
			ASSERT_EQ(0, sync_file_info(h.fd, &info, &fence));
			ASSERT_EQ(1, info.status);
			ASSERT_EQ(1, fence.status);
			ASSERT_EQ(0, close(h.fd));
			h.fd = -1;
		}
		/* The fence holds no reference to the module */
		ASSERT_EQ(refs0, module_refs_back_to(refs0));
		ret = syscall(__NR_delete_module, "simgpu", O_NONBLOCK);
		ASSERT_EQ(0, ret)
			TH_LOG("delete_module: %s", strerror(errno));
		self->unloaded = true;
	} else {
		ASSERT_EQ(0, file_write(SIMGPU_DRV_DIR "/unbind", self->dev));
	}

	if (h.fd < 0)
		goto restore;
	ASSERT_EQ(0, sync_file_info(h.fd, &info, &fence));
	ASSERT_EQ(1, info.num_fences);
	ASSERT_NE(0, fence.driver_name[0]);
	ASSERT_NE(0, fence.obj_name[0]);
	/* The job completes, whatever became of its device */
	pfd.fd = h.fd;
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	ASSERT_EQ(0, sync_file_info(h.fd, &info, &fence));
	ASSERT_EQ(1, info.status);
	ASSERT_EQ(1, fence.status);
	ASSERT_EQ(0, close(h.fd));
	if (!self->unloaded)
		ASSERT_EQ(refs0, module_refs_back_to(refs0));

restore:
	taint1 = kernel_taint();
	ASSERT_EQ(0, (taint1 & ~taint0) & SIMGPU_TAINT_REPORTS)
		TH_LOG("tainted %#lx after %#lx", taint1, taint0);

	/* The device back for the tests to come */
	ASSERT_EQ(0, simgpu_gone_restore(self->dev, variant->unload,
					 self->unloaded));
}

int main(int argc, char **argv)
{
	return simgpu_test_main(argc, argv);
}
