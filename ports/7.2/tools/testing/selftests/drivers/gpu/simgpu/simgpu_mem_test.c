// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu selftests: the bounds on buffer memory. No buffer is larger than
 * its region's limit, the regions fill up with -ENOSPC, and a buffer as
 * large as allowed is populated one page at a time, by mmap faults and
 * job writes, in a process that a signal kills at any moment. Mapped
 * buffers are not purged, and a mapping outlives the driver's binding and
 * keeps the module loaded.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <setjmp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "simgpu_test.h"

#define PAGE	4096ULL

/* Pages of the largest buffer that the CPU touches */
#define TOUCHED	256

static uint64_t ram_bytes(void)
{
	struct sysinfo si;

	if (sysinfo(&si))
		return 0;
	return (uint64_t)si.totalram * si.mem_unit;
}

/* The fdinfo of the fixture's file */
static int read_fdinfo(int fd, char *buf, size_t size)
{
	char path[64];
	ssize_t len;
	int f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -errno;
	len = read(f, buf, size - 1);
	close(f);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return 0;
}

/* A field of /proc/self/status in bytes ("RssShmem:\t  12 kB"), or -1 */
static int64_t status_bytes(const char *key)
{
	char line[128];
	int64_t v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, strlen(key)) &&
		    line[strlen(key)] == ':') {
			v = strtoll(line + strlen(key) + 1, NULL, 10) << 10;
			break;
		}
	}
	fclose(f);
	return v;
}

FIXTURE(mem) {
	int fd;
	struct drm_simgpu_region_info region[DRM_SIMGPU_REGION_COUNT];
};

FIXTURE_SETUP(mem)
{
	self->fd = open_simgpu();
	if (self->fd == -ENODEV)
		SKIP(return, SIMGPU_NO_DEVICE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, query_regions(self->fd, self->region));
}

FIXTURE_TEARDOWN(mem)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Both regions are bounded, system memory by less than the machine has */
TEST_F(mem, limits_reported)
{
	struct drm_simgpu_region_info *sys =
		&self->region[DRM_SIMGPU_REGION_SYSTEM];
	unsigned int i;

	for (i = 0; i < DRM_SIMGPU_REGION_COUNT; i++) {
		ASSERT_EQ(i, self->region[i].region);
		ASSERT_LT(0, self->region[i].total_size);
		ASSERT_LT(0, self->region[i].max_bo_size);
		ASSERT_LE(self->region[i].max_bo_size,
			  self->region[i].total_size);
		ASSERT_EQ(0, self->region[i].max_bo_size % PAGE);
	}
	ASSERT_LT(sys->total_size, ram_bytes());
}

/* Larger than the limit, or than RAM, is -EINVAL before anything happens */
TEST_F(mem, too_big)
{
	uint64_t sizes[] = { ram_bytes() + ram_bytes() / 2, 1ULL << 62, ~0ULL };
	struct drm_simgpu_region_info before[DRM_SIMGPU_REGION_COUNT];
	struct drm_simgpu_region_info after[DRM_SIMGPU_REGION_COUNT];
	uint32_t handle;
	unsigned int i, r;

	ASSERT_EQ(0, query_regions(self->fd, before));
	for (r = 0; r < DRM_SIMGPU_REGION_COUNT; r++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			if (sizes[i] <= self->region[r].max_bo_size)
				continue;
			ASSERT_EQ(-EINVAL, bo_create(self->fd, sizes[i], r,
						     &handle))
				TH_LOG("region %u size %#llx", r,
				       (unsigned long long)sizes[i]);
		}
		ASSERT_EQ(-EINVAL, bo_create(self->fd,
					     self->region[r].max_bo_size + 1,
					     r, &handle));
	}
	ASSERT_EQ(0, query_regions(self->fd, after));
	for (r = 0; r < DRM_SIMGPU_REGION_COUNT; r++)
		ASSERT_EQ(before[r].used_size, after[r].used_size);
}

/*
 * Buffers of the largest size fill system memory up to its limit, then
 * -ENOSPC; closing them gives it all back. Nothing touches their pages.
 */
TEST_F(mem, sys_fills_up)
{
	struct drm_simgpu_region_info *sys =
		&self->region[DRM_SIMGPU_REGION_SYSTEM];
	struct drm_simgpu_region_info now[DRM_SIMGPU_REGION_COUNT];
	uint64_t size = sys->max_bo_size, got = 0;
	uint32_t handles[64], handle;
	unsigned int n = 0, i;
	int ret = 0;

	while (n < ARRAY_SIZE(handles)) {
		ret = bo_create(self->fd, size, DRM_SIMGPU_REGION_SYSTEM,
				&handles[n]);
		if (ret == -ENOSPC && size > PAGE) {
			/* Another client may hold some: try what is left */
			ASSERT_EQ(0, query_regions(self->fd, now));
			size = (sys->total_size - now[0].used_size) & ~(PAGE - 1);
			if (!size)
				break;
			continue;
		}
		if (ret)
			break;
		got += size;
		n++;
	}
	ASSERT_EQ(-ENOSPC, ret);
	ASSERT_EQ(0, query_regions(self->fd, now));
	ASSERT_LE(got, now[DRM_SIMGPU_REGION_SYSTEM].used_size);
	ASSERT_EQ(sys->total_size, now[DRM_SIMGPU_REGION_SYSTEM].used_size);
	ASSERT_EQ(-ENOSPC, bo_create(self->fd, PAGE, DRM_SIMGPU_REGION_SYSTEM,
				     &handle));

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, bo_close(self->fd, handles[i]));
	ASSERT_EQ(0, query_regions(self->fd, now));
	ASSERT_EQ(sys->used_size, now[DRM_SIMGPU_REGION_SYSTEM].used_size);
}

/*
 * The largest system buffer, written by a job in its middle and last
 * pages and by the CPU in its first TOUCHED ones: only those pages become
 * resident, each write is where it was made, and the CPU's pages count in
 * the process's RSS, which the OOM killer goes by.
 */
TEST_F(mem, largest_bo_page_by_page)
{
	uint64_t size = self->region[DRM_SIMGPU_REGION_SYSTEM].max_bo_size;
	uint64_t mid = (size / 2) & ~(PAGE - 1);
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = mid + 4,
		  .value = 0xc0ffee },
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = size - 4,
		  .value = 0xfeed },
	};
	uint32_t queue, bo, sync;
	uint32_t *map;
	char buf[4096];
	int64_t shmem_rss;

	ASSERT_EQ(0, queue_create(self->fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0,
				  &queue));
	ASSERT_EQ(0, syncobj_create(self->fd, &sync));
	ASSERT_EQ(0, bo_create(self->fd, size, DRM_SIMGPU_REGION_SYSTEM, &bo));
	cmds[0].handle = bo;
	cmds[1].handle = bo;

	/* Mapping allocates nothing */
	map = bo_mmap(self->fd, bo, size);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, read_fdinfo(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, fdinfo_bytes(buf, "drm-resident-memory"))
		TH_LOG("%s", buf);

	/* Neither do a job's writes but the pages they write */
	ASSERT_EQ(0, submit_sync(self->fd, queue, cmds, 2, 0, sync));
	ASSERT_EQ(0, syncobj_wait(self->fd, sync, INT64_MAX));
	ASSERT_EQ(0xc0ffee, map[(mid + 4) / 4]);
	ASSERT_EQ(0xfeed, map[(size - 4) / 4]);
	/*
	 * Pages touched through the mapping are this process's memory. The
	 * RSS counters are per-CPU batched: half of them must show.
	 */
	shmem_rss = status_bytes("RssShmem");
	ASSERT_LE(0, shmem_rss);
	memset(map, 0x5a, TOUCHED * PAGE);
	ASSERT_LE(shmem_rss + TOUCHED / 2 * PAGE, status_bytes("RssShmem"));
	ASSERT_EQ(0, read_fdinfo(self->fd, buf, sizeof(buf)));
	ASSERT_EQ((TOUCHED + 2) * PAGE, fdinfo_bytes(buf, "drm-resident-memory"))
		TH_LOG("%s", buf);

	ASSERT_EQ(0, munmap(map, size));
	ASSERT_EQ(0, bo_close(self->fd, bo));
	ASSERT_EQ(0, queue_destroy(self->fd, queue));
}

/*
 * A mapping keeps its buffer, and the buffer's share of the limit, after
 * the handle is closed: else mapping and closing buffers would go past it.
 */
TEST_F(mem, mapping_holds_buffer)
{
	struct drm_simgpu_region_info now[DRM_SIMGPU_REGION_COUNT];
	uint64_t used = self->region[DRM_SIMGPU_REGION_SYSTEM].used_size;
	uint32_t bo;
	char *map;

	ASSERT_EQ(0, bo_create(self->fd, 16 * PAGE, DRM_SIMGPU_REGION_SYSTEM,
			       &bo));
	map = bo_mmap(self->fd, bo, 16 * PAGE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, bo_close(self->fd, bo));
	memset(map, 0x5a, 16 * PAGE);
	ASSERT_EQ(0, query_regions(self->fd, now));
	ASSERT_EQ(used + 16 * PAGE, now[DRM_SIMGPU_REGION_SYSTEM].used_size);

	ASSERT_EQ(0, munmap(map, 16 * PAGE));
	ASSERT_EQ(0, query_regions(self->fd, now));
	ASSERT_EQ(used, now[DRM_SIMGPU_REGION_SYSTEM].used_size);
}

#define CGROOT	"/sys/fs/cgroup"
#define CGTEST	CGROOT "/simgpu_mem_test"

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t len;

	if (fd < 0)
		return -errno;
	len = write(fd, text, strlen(text));
	close(fd);
	return len < 0 ? -errno : 0;
}

/* memory.current of the test's cgroup in bytes, or -1 */
static int64_t cg_current(void)
{
	char buf[32] = "";
	ssize_t len;
	int fd = open(CGTEST "/memory.current", O_RDONLY);

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return len > 0 ? strtoll(buf, NULL, 10) : -1;
}

/*
 * The pages of a client's buffers are charged to its memory cgroup, both
 * those it faults in through a mapping and those its jobs write: so a
 * cgroup's limit bounds them, and its OOM killer sees them.
 */
TEST_F(mem, charged_to_memcg)
{
	struct drm_simgpu_cmd cmds[128];
	char controllers[256] = "", pid[16];
	int64_t before, mapped, written, stock;
	uint32_t queue, bo, sync;
	unsigned int i, j;
	ssize_t len;
	char *map;
	int fd;

	/* The guest's init mounts no cgroup2: do it, or find it there */
	mkdir(CGROOT, 0755);
	if (mount("none", CGROOT, "cgroup2", 0, NULL) && errno != EBUSY &&
	    access(CGROOT "/cgroup.controllers", F_OK))
		SKIP(return, "no cgroup2 (CONFIG_MEMCG not set)");
	fd = open(CGROOT "/cgroup.controllers", O_RDONLY);
	ASSERT_LE(0, fd);
	len = read(fd, controllers, sizeof(controllers) - 1);
	close(fd);
	ASSERT_LE(0, len);
	if (!strstr(controllers, "memory"))
		SKIP(return, "no memory cgroup controller (CONFIG_MEMCG not set)");
	ASSERT_EQ(0, write_file(CGROOT "/cgroup.subtree_control", "+memory"));
	ASSERT_TRUE(!mkdir(CGTEST, 0755) || errno == EEXIST);
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, write_file(CGTEST "/cgroup.procs", pid));

	ASSERT_EQ(0, queue_create(self->fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0,
				  &queue));
	ASSERT_EQ(0, syncobj_create(self->fd, &sync));
	ASSERT_EQ(0, bo_create(self->fd, 2 * TOUCHED * PAGE,
			       DRM_SIMGPU_REGION_SYSTEM, &bo));
	map = bo_mmap(self->fd, bo, 2 * TOUCHED * PAGE);
	ASSERT_NE(NULL, map);

	/*
	 * memory.current counts charges, which each CPU takes from the page
	 * counter in batches of up to 64 pages (MEMCG_CHARGE_BATCH) and hands
	 * out from a per-CPU stock: a figure may run ahead of the pages by
	 * that much on every CPU the test ran on.
	 */
	stock = 64 * PAGE * sysconf(_SC_NPROCESSORS_ONLN);
	before = cg_current();
	ASSERT_LE(0, before);
	memset(map, 0x5a, TOUCHED * PAGE);
	mapped = cg_current();
	ASSERT_LE(before + TOUCHED * PAGE - stock, mapped);

	/* A job per 128 pages of the second half, each page written once */
	for (i = 0; i < TOUCHED; i += ARRAY_SIZE(cmds)) {
		for (j = 0; j < ARRAY_SIZE(cmds); j++)
			cmds[j] = (struct drm_simgpu_cmd){
				.op = DRM_SIMGPU_CMD_WRITE,
				.handle = bo,
				.offset = (TOUCHED + i + j) * PAGE,
				.value = i + j,
			};
		ASSERT_EQ(0, submit_sync(self->fd, queue, cmds,
					 ARRAY_SIZE(cmds), 0, sync));
	}
	ASSERT_EQ(0, syncobj_wait(self->fd, sync, INT64_MAX));
	written = cg_current();
	ASSERT_LE(mapped + TOUCHED * PAGE - stock, written);
	ASSERT_EQ(TOUCHED - 1, ((uint32_t *)map)[(2 * TOUCHED - 1) * PAGE / 4]);

	ASSERT_EQ(0, munmap(map, 2 * TOUCHED * PAGE));
	ASSERT_EQ(0, bo_close(self->fd, bo));
	ASSERT_EQ(0, queue_destroy(self->fd, queue));
	/* Back to the root cgroup, and the test's cgroup goes */
	ASSERT_EQ(0, write_file(CGROOT "/cgroup.procs", pid));
	ASSERT_EQ(0, rmdir(CGTEST));
}

/*
 * A process filling the largest buffer through a mapping, or with jobs
 * that write every page, dies at once of SIGKILL and leaves nothing
 * allocated behind. The OOM killer would be the one to send it.
 */
static void fill(int fd, uint64_t size, bool by_jobs)
{
	struct drm_simgpu_cmd cmds[128];
	uint32_t queue, bo;
	uint64_t off;
	char *map;
	unsigned int i;

	if (bo_create(fd, size, DRM_SIMGPU_REGION_SYSTEM, &bo) ||
	    queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0, &queue))
		_exit(1);
	map = bo_mmap(fd, bo, size);
	if (!map)
		_exit(2);
	/* Tell the parent it is about to start */
	if (write(1, "", 1) != 1)
		_exit(3);
	for (;;) {
		for (off = 0; off < size; off += PAGE * ARRAY_SIZE(cmds)) {
			if (!by_jobs) {
				memset(map + off, 0x5a,
				       PAGE * ARRAY_SIZE(cmds) <= size - off ?
				       PAGE * ARRAY_SIZE(cmds) : size - off);
				continue;
			}
			for (i = 0; i < ARRAY_SIZE(cmds); i++) {
				uint64_t o = off + i * PAGE;

				cmds[i] = (struct drm_simgpu_cmd){
					.op = DRM_SIMGPU_CMD_WRITE,
					.handle = bo,
					.offset = o < size ? o : 0,
					.value = 0x5a5a5a5a,
				};
			}
			if (submit(fd, queue, cmds, ARRAY_SIZE(cmds)))
				_exit(4);
		}
	}
}

static void killed_while_filling(struct __test_metadata *_metadata,
				 int fd, uint64_t size, bool by_jobs)
{
	struct drm_simgpu_region_info before[DRM_SIMGPU_REGION_COUNT];
	struct drm_simgpu_region_info after[DRM_SIMGPU_REGION_COUNT];
	uint64_t deadline;
	int pipefd[2], status;
	pid_t pid, got;
	char c;

	ASSERT_EQ(0, query_regions(fd, before));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[0]);
		dup2(pipefd[1], 1);
		/* A client of its own, as a real process would be */
		fill(client_open(), size, by_jobs);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	usleep(200 * 1000);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	/* Generous: a process in a page loop dies within milliseconds */
	deadline = now_ns() + 10ULL * 1000000000;
	do {
		got = waitpid(pid, &status, WNOHANG);
		if (!got)
			usleep(10 * 1000);
	} while (!got && now_ns() < deadline);
	ASSERT_EQ(pid, got) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));

	/* Its buffer went with its file, once its jobs retired */
	deadline = now_ns() + 10ULL * 1000000000;
	do {
		ASSERT_EQ(0, query_regions(fd, after));
		if (after[0].used_size == before[0].used_size)
			break;
		usleep(10 * 1000);
	} while (now_ns() < deadline);
	ASSERT_EQ(before[0].used_size, after[0].used_size);
}

TEST_F(mem, killed_while_faulting)
{
	killed_while_filling(_metadata, self->fd,
			     self->region[DRM_SIMGPU_REGION_SYSTEM].max_bo_size,
			     false);
}

TEST_F(mem, killed_while_submitting)
{
	killed_while_filling(_metadata, self->fd,
			     self->region[DRM_SIMGPU_REGION_SYSTEM].max_bo_size,
			     true);
}

/*
 * The shrinker purges an idle DONTNEED buffer only while nothing maps it
 * (drop_caches runs the shrinkers): a mapped one keeps its contents, the
 * same buffer once unmapped is purged, and a purged one cannot be mapped
 * again.
 */
TEST_F(mem, purge_waits_for_unmap)
{
	struct drm_simgpu_gem_madvise m = { .madv = DRM_SIMGPU_MADV_DONTNEED };
	struct drm_simgpu_gem_mmap_offset o = {};
	uint32_t *map;
	uint32_t bo;

	if (access("/proc/sys/vm/drop_caches", W_OK))
		SKIP(return, "drop_caches needs root");
	ASSERT_EQ(0, bo_create(self->fd, 16 * PAGE, DRM_SIMGPU_REGION_SYSTEM,
			       &bo));
	map = bo_mmap(self->fd, bo, 16 * PAGE);
	ASSERT_NE(NULL, map);
	memset(map, 0x5a, 16 * PAGE);
	m.handle = bo;
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m));
	ASSERT_EQ(1, m.retained);
	ASSERT_EQ(0, file_write("/proc/sys/vm/drop_caches", "2"));
	ASSERT_EQ(0x5a5a5a5a, map[15 * PAGE / 4]);
	m.madv = DRM_SIMGPU_MADV_WILLNEED;
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m));
	ASSERT_EQ(1, m.retained);

	ASSERT_EQ(0, munmap(map, 16 * PAGE));
	m.madv = DRM_SIMGPU_MADV_DONTNEED;
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m));
	ASSERT_EQ(0, file_write("/proc/sys/vm/drop_caches", "2"));
	m.madv = DRM_SIMGPU_MADV_WILLNEED;
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m));
	ASSERT_EQ(0, m.retained);

	/* The purge freed the offset; a new one maps nothing */
	o.handle = bo;
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &o));
	ASSERT_EQ(MAP_FAILED, mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, o.offset));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, bo_close(self->fd, bo));
}

/* --- a mapping that outlives its device ----------------------------------- */

#define GONE_SIZE	(1024 * 1024)

static sigjmp_buf gone_jmp;

static void gone_sigbus(int sig)
{
	siglongjmp(gone_jmp, 1);
}

/*
 * Write @val to the word at @p and read it back: 1 if it reads back, 0 if
 * either access raised SIGBUS, -1 if it reads back something else.
 */
static int gone_touch(uint32_t *p, uint32_t val)
{
	struct sigaction sa = { .sa_handler = gone_sigbus }, old;
	int ret = 0;	/* not written between sigsetjmp() and a SIGBUS */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(gone_jmp, 1)) {
		__atomic_store_n(p, val, __ATOMIC_RELAXED);
		ret = __atomic_load_n(p, __ATOMIC_RELAXED) == val ? 1 : -1;
	}
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

FIXTURE(mapping_gone) {
	char dev[256];
	bool unloaded;
};

/* What happens to the device while its buffer is still mapped */
FIXTURE_VARIANT(mapping_gone) {
	bool unload;
};

/* The driver is unbound from the device (sysfs unbind) */
FIXTURE_VARIANT_ADD(mapping_gone, unbind) {
	.unload = false,
};

/* Unloading the module is attempted (delete_module(), as rmmod does) */
FIXTURE_VARIANT_ADD(mapping_gone, unload) {
	.unload = true,
};

FIXTURE_SETUP(mapping_gone)
{
	const char *why = simgpu_gone_setup(self->dev, sizeof(self->dev),
					    variant->unload);

	if (why)
		SKIP(return, "%s", why);
}

/* In the parent: whatever became of the test, simgpu is back */
FIXTURE_TEARDOWN_PARENT(mapping_gone)
{
	if (self->dev[0]) {
		simgpu_reload();
		simgpu_rebind(self->dev);
	}
}

/*
 * A mapping of a buffer whose file was closed keeps what it uses: after
 * the driver was unbound, or while the module is asked to unload, a page
 * touched before reads back, one never touched either works or raises
 * SIGBUS, and the unmap frees the buffer; the module cannot go while the
 * mapping exists (or, if it could, nothing of it is left to use). No
 * kernel report on the way.
 */
TEST_F(mapping_gone, touch_and_unmap)
{
	long taint0 = kernel_taint(), taint1;
	uint32_t *map;
	uint32_t bo;
	int fd, ret;

	ASSERT_LE(0, taint0);
	fd = client_open();
	ASSERT_EQ(0, bo_create(fd, GONE_SIZE, DRM_SIMGPU_REGION_SYSTEM, &bo));
	map = bo_mmap(fd, bo, GONE_SIZE);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(1, gone_touch(&map[0], 0x5a5a5a5a));
	ASSERT_EQ(0, close(fd));

	if (variant->unload) {
		ret = syscall(__NR_delete_module, "simgpu", O_NONBLOCK);
		/*
		 * The mapping holds the module: delete_module() fails with
		 * EWOULDBLOCK (rmmod tells "in use" from refcnt first).
		 */
		if (ret) {
			ASSERT_TRUE(errno == EWOULDBLOCK || errno == EBUSY)
				TH_LOG("delete_module: %s", strerror(errno));
		}
		self->unloaded = !ret;
	} else {
		ASSERT_EQ(0, file_write(SIMGPU_DRV_DIR "/unbind", self->dev));
	}

	/* A page touched before has its contents, unless it is gone */
	ret = gone_touch(&map[0], 0x5a5a5a5a);
	ASSERT_LE(0, ret);
	/* A page never touched, further in */
	ret = gone_touch(&map[(GONE_SIZE / 2 + PAGE) / 4], 0xc0ffee);
	ASSERT_LE(0, ret);
	ASSERT_EQ(0, munmap(map, GONE_SIZE));

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
