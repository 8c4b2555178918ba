/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the simgpu selftests: a tiny TAP harness and ioctl wrappers.
 *
 * Copyright (c) 2026 The simgpu authors
 */
#ifndef _SIMGPU_TEST_H_
#define _SIMGPU_TEST_H_

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm/simgpu_drm.h>

/* --- TAP ----------------------------------------------------------------- */

static unsigned int tap_num, tap_failed;
static bool tap_cur_failed;
/* Where a failed check leaves the running test, see tap_run() */
static jmp_buf tap_fail_jmp;

/*
 * Failed checks end the running test: they return to tap_run() with
 * longjmp(), so they must only be used in the thread and process that
 * run the test, not in a forked child or another thread.
 */
static inline void tap_fail(void)
{
	tap_cur_failed = true;
	longjmp(tap_fail_jmp, 1);
}

static inline void tap_check(bool ok, const char *func, int line,
			     const char *cond)
{
	if (ok)
		return;
	printf("# %s:%d: check failed: %s\n", func, line, cond);
	tap_fail();
}

static inline void tap_check_err(int r, int err, const char *func, int line,
				 const char *expr)
{
	if (r == err)
		return;
	printf("# %s:%d: %s = %d (%s), expected %d (%s)\n", func, line, expr,
	       r, strerror(-r), err, strerror(-err));
	tap_fail();
}

#define CHECK(cond) tap_check(!!(cond), __func__, __LINE__, #cond)

/* An ioctl wrapper returning 0 or -errno must return @err */
#define CHECK_ERR(expr, err) \
	tap_check_err((expr), (err), __func__, __LINE__, #expr)

static const char *tap_skip_reason;

static inline void tap_skip(const char *reason)
{
	tap_skip_reason = reason;
}

static inline void tap_run(const char *name, void (*fn)(void))
{
	tap_cur_failed = false;
	tap_skip_reason = NULL;
	fflush(stdout);
	if (!setjmp(tap_fail_jmp))
		fn();
	tap_num++;
	if (tap_cur_failed) {
		tap_failed++;
		printf("not ok %u - %s\n", tap_num, name);
	} else if (tap_skip_reason) {
		printf("ok %u - %s # SKIP %s\n", tap_num, name,
		       tap_skip_reason);
	} else {
		printf("ok %u - %s\n", tap_num, name);
	}
	fflush(stdout);
}

#define TEST(fn) { #fn, fn }

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof(*(a)))
#endif

struct tap_test {
	const char *name;
	void (*fn)(void);
};

static inline int tap_main(const struct tap_test *tests, unsigned int n)
{
	unsigned int i;

	printf("TAP version 13\n1..%u\n", n);
	for (i = 0; i < n; i++)
		tap_run(tests[i].name, tests[i].fn);
	printf("# %u passed, %u failed\n", n - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

/* --- device ---------------------------------------------------------------- */

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline int sg_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));

	return ret ? -errno : 0;
}

/* The first render node whose driver is simgpu, or -errno */
static inline int open_simgpu(void)
{
	char path[64], name[32];
	int minor, fd;

	for (minor = 128; minor < 192; minor++) {
		struct drm_version v = {
			.name = name,
			.name_len = sizeof(name) - 1,
		};

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (!sg_ioctl(fd, DRM_IOCTL_VERSION, &v) &&
		    !strcmp(name, "simgpu"))
			return fd;
		close(fd);
	}

	return -ENODEV;
}

/* A new client of simgpu; a test program cannot go on without one. */
static inline int client_open(void)
{
	int fd = open_simgpu();

	if (fd < 0) {
		fprintf(stderr, "no simgpu render node: %s\n", strerror(-fd));
		exit(1);
	}
	return fd;
}

static inline int queue_create(int fd, uint16_t class, uint16_t instance,
			       uint32_t *id)
{
	struct drm_simgpu_exec_queue_create c = {
		.engine_class = class,
		.engine_instance = instance,
	};
	int ret = sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c);

	*id = c.exec_queue_id;
	return ret;
}

static inline int queue_destroy(int fd, uint32_t id)
{
	struct drm_simgpu_exec_queue_destroy d = { .exec_queue_id = id };

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &d);
}

static inline int bo_create(int fd, uint64_t size, uint32_t region,
			    uint32_t *handle)
{
	struct drm_simgpu_gem_create c = { .size = size, .region = region };
	int ret = sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &c);

	*handle = c.handle;
	return ret;
}

static inline int bo_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return sg_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static inline void *bo_mmap(int fd, uint32_t handle, size_t size)
{
	struct drm_simgpu_gem_mmap_offset m = { .handle = handle };
	void *p;

	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &m))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	return p == MAP_FAILED ? NULL : p;
}

static inline int submit_sync(int fd, uint32_t queue,
			      const struct drm_simgpu_cmd *cmds,
			      uint32_t num_cmds, uint32_t in_sync,
			      uint32_t out_sync)
{
	struct drm_simgpu_submit s = {
		.exec_queue_id = queue,
		.num_cmds = num_cmds,
		.cmds = (uintptr_t)cmds,
		.in_syncs = (uintptr_t)&in_sync,
		.num_in_syncs = in_sync ? 1 : 0,
		.out_sync = out_sync,
	};

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s);
}

static inline int submit(int fd, uint32_t queue,
			 const struct drm_simgpu_cmd *cmds, uint32_t num_cmds)
{
	return submit_sync(fd, queue, cmds, num_cmds, 0, 0);
}

static inline int wait_bo(int fd, uint32_t handle, int64_t timeout_ns)
{
	struct drm_simgpu_wait_bo w = {
		.handle = handle,
		.timeout_ns = timeout_ns,
	};

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w);
}

static inline int syncobj_create(int fd, uint32_t *handle)
{
	struct drm_syncobj_create c = {};
	int ret = sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c);

	*handle = c.handle;
	return ret;
}

static inline int syncobj_wait(int fd, uint32_t handle, int64_t timeout_ns)
{
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)&handle,
		.count_handles = 1,
		.timeout_nsec = timeout_ns,
	};

	return sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

#endif /* _SIMGPU_TEST_H_ */
