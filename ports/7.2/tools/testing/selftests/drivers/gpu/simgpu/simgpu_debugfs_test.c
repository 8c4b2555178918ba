// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu selftests of the debugfs files and the trace events: resets are
 * counted by cause, a halted engine is reset through its interrupt and not
 * at the job timeout, clients' cycles are shown, the shrinker counts the
 * purgeable pages, and a job's submit, run and complete events come in
 * that order.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "../../../kselftest_harness.h"
#include "simgpu_test.h"

/* The engine the tests use: the first render engine, always present */
#define ENGINE		"rcs0"
#define WAIT_NS		(60 * 1000000000LL)

struct resets {
	char state[16];
	unsigned long long timeout, error;
};

/* The line of @engine in simgpu_engines; false if there is none */
static bool read_resets(const char *dbg, const char *engine,
			struct resets *r)
{
	char path[PATH_MAX], line[256], name[16];
	unsigned long long ctx, jobs;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/simgpu_engines", dbg);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s %15s %llu %llu %llu %llu", name,
			   r->state, &ctx, &jobs, &r->timeout,
			   &r->error) == 6 && !strcmp(name, engine))
			found = true;
	}
	fclose(f);
	return found;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* drm-client-id of @fd, from fdinfo; 0 if not found */
static unsigned long long client_id(int fd)
{
	unsigned long long id = 0;
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "drm-client-id: %llu", &id) == 1)
			break;
	fclose(f);
	return id;
}

/* Submit @cmd on a new queue of ENGINE and wait for it */
static int run_one(int fd, const struct drm_simgpu_cmd *cmd)
{
	uint32_t queue, sync;
	int ret;

	ret = queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0, &queue);
	if (ret)
		return ret;
	ret = syncobj_create(fd, &sync);
	if (!ret)
		ret = submit_sync(fd, queue, cmd, 1, 0, sync);
	if (!ret)
		ret = syncobj_wait(fd, sync, now_ns() + WAIT_NS);
	queue_destroy(fd, queue);
	return ret;
}

FIXTURE(simgpu) {
	int fd;
	char dbg[64];
};

FIXTURE_SETUP(simgpu)
{
	struct resets r;
	struct stat st;

	self->fd = open_simgpu();
	if (self->fd < 0)
		SKIP(return, "no simgpu render node (simgpu not loaded?)");
	ASSERT_EQ(0, fstat(self->fd, &st));
	snprintf(self->dbg, sizeof(self->dbg), "/sys/kernel/debug/dri/%u",
		 minor(st.st_rdev));
	if (access(self->dbg, F_OK))
		SKIP(return, "no %s (debugfs not mounted, or not root)",
		     self->dbg);
	ASSERT_TRUE(read_resets(self->dbg, ENGINE, &r))
		TH_LOG("no %s line in %s/simgpu_engines", ENGINE, self->dbg);
}

FIXTURE_TEARDOWN(simgpu)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* A hung job is found at its timeout: the timeout count grows */
TEST_F_TIMEOUT(simgpu, hang_counts_timeout, 120)
{
	struct drm_simgpu_cmd hang = { .op = DRM_SIMGPU_CMD_HANG };
	struct resets before, after;

	ASSERT_TRUE(read_resets(self->dbg, ENGINE, &before));
	ASSERT_EQ(0, run_one(self->fd, &hang));
	ASSERT_TRUE(read_resets(self->dbg, ENGINE, &after));
	EXPECT_EQ(before.timeout + 1, after.timeout);
	EXPECT_EQ(before.error, after.error);
}

/*
 * An engine halted on an error is reset from its interrupt: the error
 * count grows and the timeout count does not. The job would be reset at
 * its timeout as well, counted as a timeout, had the interrupt not done it.
 */
TEST_F_TIMEOUT(simgpu, halt_counts_error, 120)
{
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = 1000000,
	};
	struct resets before, after;
	char path[PATH_MAX];

	ASSERT_TRUE(read_resets(self->dbg, ENGINE, &before));
	snprintf(path, sizeof(path), "%s/simgpu_halt_next", self->dbg);
	ASSERT_EQ(0, write_file(path, ENGINE "\n"));
	ASSERT_EQ(0, run_one(self->fd, &busy));
	ASSERT_TRUE(read_resets(self->dbg, ENGINE, &after));
	EXPECT_EQ(before.error + 1, after.error);
	EXPECT_EQ(before.timeout, after.timeout);
	EXPECT_STRNE("halted", after.state);
}

/* An engine name that does not exist is refused */
TEST_F(simgpu, halt_unknown_engine)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/simgpu_halt_next", self->dbg);
	EXPECT_EQ(-ENODEV, write_file(path, "xcs9"));
	EXPECT_EQ(-EINVAL, write_file(path, ""));
}

/* A new client's render time shows in simgpu_clients, and only there */
TEST_F(simgpu, client_cycles)
{
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = 20000000,
	};
	unsigned long long id, cid, c[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	char path[PATH_MAX], line[512];
	bool found = false;
	int fd, pid;
	FILE *f;

	fd = open_simgpu();
	ASSERT_LE(0, fd);
	id = client_id(fd);
	ASSERT_NE(0ULL, id);
	ASSERT_EQ(0, run_one(fd, &busy));

	snprintf(path, sizeof(path), "%s/simgpu_clients", self->dbg);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (!found && fgets(line, sizeof(line), f)) {
		char comm[32];

		if (sscanf(line, "%llu %d %31s %llu %llu %llu %llu %llu", &cid,
			   &pid, comm, &c[0], &c[1], &c[2], &c[3], &c[4]) == 8 &&
		    cid == id)
			found = true;
	}
	fclose(f);
	close(fd);

	ASSERT_TRUE(found) TH_LOG("client %llu not in %s", id, path);
	EXPECT_EQ(getpid(), pid);
	EXPECT_LT(0ULL, c[DRM_SIMGPU_ENGINE_CLASS_RENDER]);
	EXPECT_EQ(0ULL, c[DRM_SIMGPU_ENGINE_CLASS_COPY]);
	EXPECT_EQ(0ULL, c[DRM_SIMGPU_ENGINE_CLASS_COMPUTE]);
}

/* simgpu_purge: the shrinker's count and the pages on the purge list */
static void read_purge(struct __test_metadata *_metadata, const char *dbg,
		       unsigned long *count, unsigned long *listed)
{
	char path[PATH_MAX], buf[128];
	int n;

	snprintf(path, sizeof(path), "%s/simgpu_purge", dbg);
	ASSERT_EQ(0, file_read(path, buf, sizeof(buf)));
	n = sscanf(buf, "count %lu listed %lu", count, listed);
	ASSERT_EQ(2, n) TH_LOG("%s: %s", path, buf);
	ASSERT_EQ(*listed, *count) TH_LOG("%s: %s", path, buf);
}

static int madvise_bo(int fd, uint32_t handle, uint32_t madv)
{
	struct drm_simgpu_gem_madvise m = { .handle = handle, .madv = madv };

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &m) ?: !m.retained;
}

/*
 * The shrinker's count follows the purge list: a buffer counts once
 * however often it is marked DONTNEED, and no more once marked WILLNEED
 * or freed.
 */
TEST_F(simgpu, purge_count)
{
	unsigned long page = sysconf(_SC_PAGESIZE), c0, c, l;
	uint32_t a, b;

	read_purge(_metadata, self->dbg, &c0, &l);
	ASSERT_EQ(0, bo_create(self->fd, 16 * page, DRM_SIMGPU_REGION_SYSTEM,
			       &a));
	ASSERT_EQ(0, bo_create(self->fd, 32 * page, DRM_SIMGPU_REGION_SYSTEM,
			       &b));
	ASSERT_EQ(0, madvise_bo(self->fd, a, DRM_SIMGPU_MADV_DONTNEED));
	ASSERT_EQ(0, madvise_bo(self->fd, a, DRM_SIMGPU_MADV_DONTNEED));
	ASSERT_EQ(0, madvise_bo(self->fd, b, DRM_SIMGPU_MADV_DONTNEED));
	read_purge(_metadata, self->dbg, &c, &l);
	EXPECT_EQ(c0 + 48, c);

	ASSERT_EQ(0, madvise_bo(self->fd, a, DRM_SIMGPU_MADV_WILLNEED));
	read_purge(_metadata, self->dbg, &c, &l);
	EXPECT_EQ(c0 + 32, c);

	ASSERT_EQ(0, bo_close(self->fd, b));
	read_purge(_metadata, self->dbg, &c, &l);
	EXPECT_EQ(c0, c);
	ASSERT_EQ(0, bo_close(self->fd, a));
}

#define INSTANCE	"simgpu_debugfs_test"

/* The tracefs mount point, mounting it if needed; NULL if there is none */
static const char *tracefs(void)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/instances", dirs[i]);
		if (!access(path, F_OK))
			return dirs[i];
	}
	if (!mount("nodev", dirs[0], "tracefs", 0, NULL))
		return dirs[0];
	return NULL;
}

struct event {
	char name[32];
	unsigned long long client;
	unsigned int ctx, seqno;
	int error;
};

/* Parse a simgpu_job_* line of the trace file; false for other lines */
static bool parse_event(const char *line, struct event *e)
{
	const char *p = strstr(line, " simgpu_job_");
	const char *args;

	if (!p)
		return false;
	memset(e, 0, sizeof(*e));
	if (sscanf(p, " %31[a-z_]:", e->name) != 1)
		return false;
	args = strstr(p, "ctx=");
	if (!args || sscanf(args, "ctx=%u seqno=%u", &e->ctx, &e->seqno) != 2)
		return false;
	p = strstr(line, "client=");
	if (p)
		sscanf(p, "client=%llu", &e->client);
	p = strstr(line, "error=");
	if (p)
		sscanf(p, "error=%d", &e->error);
	return true;
}

/* A job's submit, run and complete events, in that order, for one job */
TEST_F(simgpu, trace_job_events)
{
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = 1000000,
	};
	char inst[PATH_MAX], path[PATH_MAX + 64], line[512];
	int submit = -1, run = -1, complete = -1, n = 0, ret;
	unsigned int ctx = 0, seqno = 0;
	const char *tfs = tracefs();
	unsigned long long id = 0;
	struct event e;
	FILE *f;

	if (!tfs)
		SKIP(return, "no tracefs (kernel without CONFIG_TRACING?)");
	snprintf(path, sizeof(path), "%s/events/simgpu", tfs);
	ASSERT_EQ(0, access(path, F_OK))
		TH_LOG("tracefs has no simgpu events at %s", path);

	snprintf(inst, sizeof(inst), "%s/instances/" INSTANCE, tfs);
	rmdir(inst);
	ASSERT_EQ(0, mkdir(inst, 0755));
	/* Events of several CPUs in the order they happened */
	snprintf(path, sizeof(path), "%s/trace_clock", inst);
	write_file(path, "global");
	snprintf(path, sizeof(path), "%s/events/simgpu/enable", inst);
	ret = write_file(path, "1");
	if (!ret) {
		id = client_id(self->fd);
		ret = run_one(self->fd, &busy);
		write_file(path, "0");
	}

	snprintf(path, sizeof(path), "%s/trace", inst);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!parse_event(line, &e))
			continue;
		n++;
		if (submit < 0 && !strcmp(e.name, "simgpu_job_submit") &&
		    e.client == id) {
			submit = n;
			ctx = e.ctx;
			seqno = e.seqno;
		} else if (submit < 0 || e.ctx != ctx || e.seqno != seqno) {
			continue;
		} else if (!strcmp(e.name, "simgpu_job_run") && run < 0) {
			run = n;
		} else if (!strcmp(e.name, "simgpu_job_complete") &&
			   complete < 0) {
			complete = n;
			EXPECT_EQ(0, e.error);
		}
	}
	if (f)
		fclose(f);
	rmdir(inst);

	ASSERT_EQ(0, ret);
	ASSERT_LT(0, submit) TH_LOG("no simgpu_job_submit of client %llu", id);
	EXPECT_LT(submit, run) TH_LOG("no simgpu_job_run after the submit");
	EXPECT_LT(run, complete)
		TH_LOG("no simgpu_job_complete after the run");
}

TEST_HARNESS_MAIN
