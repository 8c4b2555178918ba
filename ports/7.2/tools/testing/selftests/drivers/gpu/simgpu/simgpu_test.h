/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers of the simgpu selftests and benchmark: ioctl wrappers returning
 * 0 or -errno, over sg_ioctl() and open_simgpu() of simgpu_tool.h, which
 * the tools in tools/gpu/ use too. The tests themselves use
 * kselftest_harness.h.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_TEST_H_
#define _SIMGPU_TEST_H_

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <drm/simgpu_drm.h>

#include "simgpu_tool.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof(*(a)))
#endif

/* --- fdinfo ---------------------------------------------------------------- */

/* "key:\t<n>[ KiB| MiB]" of an fdinfo text in bytes, or -1 */
static inline int64_t fdinfo_bytes(const char *text, const char *key)
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

/* --- sysfs and procfs files ------------------------------------------------- */

/* The text of a file, '\0'-terminated, in buf: 0 or -errno */
static inline int file_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len))) {
		if (n < 0) {
			err = -errno;
			break;
		}
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return err;
}

/* Write a string to a file in one write(): 0 or -errno */
static inline int file_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The number a file starts with (base 0): 0 or -errno */
static inline int file_long(const char *path, long *v)
{
	char buf[64];
	int ret = file_read(path, buf, sizeof(buf));

	if (!ret)
		*v = strtol(buf, NULL, 0);
	return ret;
}

/* --- the driver's binding and its module ------------------------------------ */

#define SIMGPU_DRV_DIR	"/sys/bus/platform/drivers/simgpu"

/* Taint flags a kernel report sets: bad page or KASAN (B), oops (D), WARN (W) */
#define SIMGPU_TAINT_REPORTS	((1L << 5) | (1L << 7) | (1L << 9))

/* The kernel's taint flags, or -1 */
static inline long kernel_taint(void)
{
	long v;

	return file_long("/proc/sys/kernel/tainted", &v) ? -1 : v;
}

/* simgpu's module reference count, or -1 when simgpu is built in */
static inline long simgpu_module_refs(void)
{
	long v;

	if (access("/sys/module/simgpu/initstate", F_OK) ||
	    file_long("/sys/module/simgpu/refcnt", &v))
		return -1;
	return v;
}

/* The platform device simgpu is bound to ("simgpu.0") in @dev: 0 or -ENODEV */
static inline int simgpu_bound_dev(char *dev, size_t size)
{
	DIR *d = opendir(SIMGPU_DRV_DIR);
	struct dirent *e;
	int ret = -ENODEV;

	while (d && (e = readdir(d))) {
		if (!strncmp(e->d_name, "simgpu.", 7)) {
			snprintf(dev, size, "%s", e->d_name);
			ret = 0;
			break;
		}
	}
	if (d)
		closedir(d);
	return ret;
}

/* Wait up to 5 s (probing may be asynchronous) for a simgpu render node */
static inline int simgpu_wait_node(void)
{
	uint64_t deadline = now_ns() + 5000000000ULL;
	int fd;

	while ((fd = open_simgpu()) < 0 && now_ns() < deadline)
		usleep(50000);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/*
 * Bind simgpu to the platform device @dev again after a test unbound it,
 * and wait for its render node: 0 or -errno.
 */
static inline int simgpu_rebind(const char *dev)
{
	char path[512];
	int ret;

	snprintf(path, sizeof(path), SIMGPU_DRV_DIR "/%s", dev);
	if (access(path, F_OK)) {
		ret = file_write(SIMGPU_DRV_DIR "/bind", dev);
		if (ret)
			return ret;
	}
	return simgpu_wait_node();
}

/*
 * Load simgpu again after a test unloaded it (modprobe, as vm-run does),
 * and wait for its render node: 0 or -errno.
 */
static inline int simgpu_reload(void)
{
	if (access("/sys/module/simgpu", F_OK) && system("modprobe simgpu"))
		return -ENOENT;
	return simgpu_wait_node();
}

/*
 * For a test that unbinds simgpu (@unload false) or asks the module to
 * unload: finds the bound device into @dev. Returns NULL, or why the test
 * cannot run, to skip it with.
 */
static inline const char *simgpu_gone_setup(char *dev, size_t size,
					    bool unload)
{
	if (geteuid())
		return "unbinding or unloading simgpu needs root";
	if (simgpu_bound_dev(dev, size))
		return "simgpu is bound to no platform device";
	if (unload && simgpu_module_refs() < 0)
		return "simgpu is not a module";
	if (!unload && access(SIMGPU_DRV_DIR "/unbind", W_OK))
		return "no " SIMGPU_DRV_DIR "/unbind";
	return NULL;
}

/*
 * After such a test: loads simgpu again if it went (@unloaded), binds it
 * again if it was unbound (@unload false). 0 or -errno.
 */
static inline int simgpu_gone_restore(const char *dev, bool unload,
				      bool unloaded)
{
	if (unloaded)
		return simgpu_reload();
	if (!unload)
		return simgpu_rebind(dev);
	return 0;
}

/* --- device ---------------------------------------------------------------- */

/*
 * A new client of simgpu; a program cannot go on without one. A test calls
 * it once its fixture found the device: failing then is a test failure.
 */
static inline int client_open(void)
{
	int fd = open_simgpu();

	if (fd < 0) {
		fprintf(stderr, "no simgpu render node: %s\n", strerror(-fd));
		exit(1);
	}
	return fd;
}

/* Why a test is skipped when open_simgpu() finds no device */
#define SIMGPU_NO_DEVICE "no simgpu render node (simgpu not loaded, or not root)"

/*
 * Wait until no engine of the device has a job on it, as debugfs's
 * simgpu_engines shows ("jobs" 0 on every line, twice 20 ms apart), for at
 * most @timeout_ns: the end of a test that may leave work running (a job
 * outliving the file that submitted it, or a failed assertion), so that
 * the next test starts on idle engines whatever their order. Returns 0,
 * -ETIME, or -ENOENT without debugfs (not mounted, not root).
 */
static inline int simgpu_wait_engines_idle(int64_t timeout_ns)
{
	int64_t deadline = now_ns() + timeout_ns;
	char path[64], line[256], name[16], state[16];
	unsigned long ctx;
	int fd = open_simgpu(), idle = 0, jobs, busy;
	struct stat st;
	FILE *f;

	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st)) {
		close(fd);
		return -ENOENT;
	}
	close(fd);
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/simgpu_engines",
		 minor(st.st_rdev));
	while (idle < 2) {
		f = fopen(path, "r");
		if (!f)
			return -ENOENT;
		busy = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%15s %15s %lu %d", name, state, &ctx,
				   &jobs) == 4 && jobs)
				busy++;
		fclose(f);
		idle = busy ? 0 : idle + 1;
		if (busy && now_ns() > deadline)
			return -ETIME;
		usleep(20000);
	}
	return 0;
}

#ifdef __KSELFTEST_HARNESS_H
/*
 * main() of a test program: it is skipped as a whole (KSFT_SKIP), with the
 * reason, when there is no simgpu device; else the harness runs its tests.
 */
static inline int simgpu_test_main(int argc, char **argv)
{
	int fd = open_simgpu();

	if (fd < 0) {
		ksft_print_header();
		ksft_exit_skip(SIMGPU_NO_DEVICE "\n");
	}
	close(fd);
	return test_harness_run(argc, argv);
}
#endif

/* Whether a program is on PATH: the tests run tools/gpu's from there. */
static inline bool on_path(const char *prog)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v '%s' > /dev/null 2>&1", prog);
	return system(cmd) == 0;
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

/* The device's regions, DRM_SIMGPU_REGION_COUNT of them, into @info */
static inline int query_regions(int fd, struct drm_simgpu_region_info *info)
{
	struct {
		struct drm_simgpu_query_regions r;
		struct drm_simgpu_region_info info[DRM_SIMGPU_REGION_COUNT];
	} regions = {};
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_REGIONS,
		.size = sizeof(regions),
		.data = (uintptr_t)&regions,
	};
	int ret = sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q);

	memcpy(info, regions.info, sizeof(regions.info));
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

/*
 * Submit @cmds waiting for the @num_in syncs @in and signalling the
 * @num_out syncs @out (struct drm_simgpu_sync, binary or timeline).
 */
static inline int submit_syncs(int fd, uint32_t queue,
			       const struct drm_simgpu_cmd *cmds,
			       uint32_t num_cmds,
			       const struct drm_simgpu_sync *in,
			       uint32_t num_in,
			       const struct drm_simgpu_sync *out,
			       uint32_t num_out)
{
	struct drm_simgpu_submit s = {
		.exec_queue_id = queue,
		.num_cmds = num_cmds,
		.cmds = (uintptr_t)cmds,
		.in_syncs = (uintptr_t)in,
		.num_in_syncs = num_in,
		.out_syncs = (uintptr_t)out,
		.num_out_syncs = num_out,
	};

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s);
}

/* Submit @cmds waiting for binary syncobj @in_sync, signalling @out_sync */
static inline int submit_sync(int fd, uint32_t queue,
			      const struct drm_simgpu_cmd *cmds,
			      uint32_t num_cmds, uint32_t in_sync,
			      uint32_t out_sync)
{
	struct drm_simgpu_sync in = { .handle = in_sync };
	struct drm_simgpu_sync out = { .handle = out_sync };

	return submit_syncs(fd, queue, cmds, num_cmds, &in, in_sync ? 1 : 0,
			    &out, out_sync ? 1 : 0);
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

/* Wait for point @point of timeline syncobj @handle: 0 or -errno */
static inline int syncobj_timeline_wait(int fd, uint32_t handle,
					uint64_t point, int64_t timeout_ns,
					uint32_t flags)
{
	struct drm_syncobj_timeline_wait w = {
		.handles = (uintptr_t)&handle,
		.points = (uintptr_t)&point,
		.count_handles = 1,
		.timeout_nsec = timeout_ns,
		.flags = flags,
	};

	return sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
}

/* The last signalled point of timeline syncobj @handle: 0 or -errno */
static inline int syncobj_query(int fd, uint32_t handle, uint64_t *point)
{
	struct drm_syncobj_timeline_array q = {
		.handles = (uintptr_t)&handle,
		.points = (uintptr_t)point,
		.count_handles = 1,
	};

	return sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_QUERY, &q);
}

#endif /* _SIMGPU_TEST_H_ */
