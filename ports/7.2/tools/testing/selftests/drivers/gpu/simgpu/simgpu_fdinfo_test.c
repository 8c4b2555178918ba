// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu fdinfo usage statistics, end to end: real jobs through the uAPI,
 * counters read from /proc/self/fdinfo as tools read them.
 *
 * The "wrap" test needs the 1 GHz reference clock: it is skipped unless
 * simgpu was loaded with simgpu.refclk_hz=1000000000. Run it alone with
 * "simgpu_fdinfo_test -t wrap".
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL
#define RCS		DRM_SIMGPU_ENGINE_CLASS_RENDER
#define CCS		DRM_SIMGPU_ENGINE_CLASS_COMPUTE

/*
 * Each test runs seconds of GPU work (wrap: 30 s), longer on a slow or busy
 * machine: more than the harness's default 30 s per test.
 */
#define TIMEOUT		300

/* Hz of simgpu's reference clock, set by the fixture for its test */
static __u64 refclk;

/* The tests open their own clients: the fixture only finds the device. */
FIXTURE(fdinfo) {
};

FIXTURE_SETUP(fdinfo)
{
	struct drm_simgpu_query_config cfg = {};
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(cfg),
		.data = (uintptr_t)&cfg,
	};
	int fd = open_simgpu();

	if (fd == -ENODEV)
		SKIP(return, SIMGPU_NO_DEVICE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	close(fd);
	refclk = cfg.refclk_hz;
}

/* Jobs a test leaves running (its file closed, an assertion failed) end */
FIXTURE_TEARDOWN(fdinfo)
{
	if (simgpu_wait_engines_idle(60 * NSEC_PER_SEC) == -ETIME)
		TH_LOG("the engines did not go idle in 60 s");
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The helpers taking _metadata end the running test when they fail, as
 * ASSERT_*() do.
 */
static __u32 new_queue(struct __test_metadata *_metadata, int fd, int class)
{
	__u32 id;

	ASSERT_EQ(0, queue_create(fd, class, DRM_SIMGPU_ENGINE_INSTANCE_ANY,
				  &id));
	return id;
}

static __u32 new_bo(struct __test_metadata *_metadata, int fd, __u32 region,
		    __u64 size)
{
	__u32 handle;

	ASSERT_EQ(0, bo_create(fd, size, region, &handle));
	return handle;
}

static void bo_wait(struct __test_metadata *_metadata, int fd, __u32 handle)
{
	ASSERT_EQ(0, wait_bo(fd, handle, now_ns() + 60 * NSEC_PER_SEC));
}

/*
 * Submit one job: "busy for ns" (as BUSY commands of at most a second each),
 * then "hang" if asked; the job marks bo busy if non-zero.
 */
static int submit_busy(int fd, __u32 queue, __u64 ns, bool hang, __u32 bo)
{
	struct drm_simgpu_cmd cmd[17] = {};
	struct drm_simgpu_submit s = {
		.exec_queue_id = queue,
		.cmds = (uintptr_t)cmd,
		.bo_handles = (uintptr_t)&bo,
		.num_bo_handles = bo ? 1 : 0,
	};
	unsigned int n = 0;

	do {
		__u64 chunk = ns < NSEC_PER_SEC ? ns : NSEC_PER_SEC;

		cmd[n].op = DRM_SIMGPU_CMD_BUSY;
		cmd[n++].value = chunk;
		ns -= chunk;
	} while (ns && n < 16);
	if (ns)
		return -E2BIG;
	if (hang)
		cmd[n++].op = DRM_SIMGPU_CMD_HANG;
	s.num_cmds = n;

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s);
}

/* Submit n jobs of ns each on a queue, then wait for them via a BO. */
static void run_jobs(struct __test_metadata *_metadata, int fd, __u32 queue,
		     unsigned int n, __u64 ns)
{
	__u32 bo = new_bo(_metadata, fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	unsigned int i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, submit_busy(fd, queue, ns, false, bo));
	bo_wait(_metadata, fd, bo);
}

struct sample {
	__u64 cycles[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	__u64 total;
	__u64 capacity[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	__u64 client_id;
	char text[8192];
	size_t len;
};

static const char *const class_names[] = { "rcs", "bcs", "vcs", "vecs", "ccs" };

static __u64 key_value(const char *text, const char *key, bool *found)
{
	char pattern[96];
	const char *p;

	snprintf(pattern, sizeof(pattern), "\n%s:\t", key);
	p = strstr(text, pattern);
	if (found)
		*found = p;
	return p ? strtoull(p + strlen(pattern), NULL, 10) : 0;
}

static void read_fdinfo(int fd, struct sample *s)
{
	char path[64];
	int f, c;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (f < 0) {
		perror(path);
		exit(1);
	}
	s->len = 1;
	s->text[0] = '\n';
	while ((n = read(f, s->text + s->len, sizeof(s->text) - 1 - s->len)) > 0)
		s->len += n;
	s->text[s->len] = '\0';
	close(f);

	for (c = 0; c < DRM_SIMGPU_ENGINE_CLASS_COUNT; c++) {
		char key[64];

		snprintf(key, sizeof(key), "drm-cycles-%s", class_names[c]);
		s->cycles[c] = key_value(s->text, key, NULL);
		snprintf(key, sizeof(key), "drm-engine-capacity-%s", class_names[c]);
		s->capacity[c] = key_value(s->text, key, NULL);
	}
	s->total = key_value(s->text, "drm-total-cycles-rcs", NULL);
	s->client_id = key_value(s->text, "drm-client-id", NULL);
}

static __u64 ticks(__u64 ns)
{
	/* ns is a whole number of microseconds in every test */
	return ns / 1000 * refclk / 1000000;
}

/* Run drm-fdinfo-check on one of our fds, if the tool is on PATH. */
static void spec_check(struct __test_metadata *_metadata, int fd)
{
	char cmd[160];
	int ret;

	if (!on_path("drm-fdinfo-check")) {
		TH_LOG("drm-fdinfo-check not on PATH: not run");
		return;
	}
	/* Quiet when clean; its findings, as TAP comments, when not. */
	snprintf(cmd, sizeof(cmd),
		 "out=$(drm-fdinfo-check %d:%d 2>&1) || { echo \"$out\" | sed 's/^/# /'; exit 1; }",
		 getpid(), fd);
	ret = system(cmd);
	ASSERT_EQ(0, ret) {
		TH_LOG("drm-fdinfo-check %d:%d failed", getpid(), fd);
	}
}

static double util(const struct sample *a, const struct sample *b, int c)
{
	__u64 dt = b->total - a->total;
	__u64 cap = b->capacity[c] ? b->capacity[c] : 1;

	return dt ? 100.0 * (b->cycles[c] - a->cycles[c]) / dt / cap : -1;
}

/* --- The tests ------------------------------------------------------------ */

/*
 * Submit @secs seconds of duty cycle @duty % on @queue, paced on the GPU's
 * own clock: each job is 50 ms of 10-ms periods, BUSY for the duty and
 * IDLE (context switched out, no engine time) for the rest. All of it is
 * queued at once, so however late this process runs, the GPU does exactly
 * that duty cycle until the work runs out.
 */
static int submit_duty(int fd, __u32 queue, unsigned int duty,
		       unsigned int secs, __u32 done)
{
	const __u64 period = 10000000, busy = period * duty / 100;
	struct drm_simgpu_cmd cmds[10] = {};
	unsigned int i, j;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cmds); i += 2) {
		cmds[i].op = DRM_SIMGPU_CMD_BUSY;
		cmds[i].value = busy;
		cmds[i + 1].op = DRM_SIMGPU_CMD_IDLE;
		cmds[i + 1].value = period - busy;
	}
	for (j = 0; j < secs * 20; j++) {
		ret = submit_sync(fd, queue, cmds, ARRAY_SIZE(cmds), 0,
				  j == secs * 20 - 1 ? done : 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* Duty cycle D on rcs reads D +- 1 pp in each 1-s window; idle stays 0. */
TEST_F_TIMEOUT(fdinfo, accuracy, TIMEOUT)
{
	static const int duties[] = { 25, 70 };
	unsigned int i, w;

	for (i = 0; i < 2; i++) {
		int fd = client_open(), idle = client_open();
		__u32 q = new_queue(_metadata, fd, RCS);
		struct sample s[4], idle0, idle1;
		__u32 done;
		__u64 t0;

		ASSERT_EQ(0, syncobj_create(fd, &done));
		read_fdinfo(idle, &idle0);
		/*
		 * 5 s of work, read at 0.5, 1.5, 2.5 and 3.5 s: a reader late
		 * by up to a second still reads three whole windows of it.
		 */
		ASSERT_EQ(0, submit_duty(fd, q, duties[i], 5, done));
		t0 = now_ns();
		for (w = 0; w < 4; w++) {
			__u64 next = t0 + NSEC_PER_SEC / 2 + w * NSEC_PER_SEC;
			struct timespec ts = {
				.tv_sec = next / NSEC_PER_SEC,
				.tv_nsec = next % NSEC_PER_SEC,
			};

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
			read_fdinfo(fd, &s[w]);
		}
		for (w = 1; w < 4; w++) {
			double u = util(&s[w - 1], &s[w], RCS);

			printf("# duty %d%%: window %u: %.2f%%\n", duties[i], w, u);
			ASSERT_TRUE(u >= duties[i] - 1 && u <= duties[i] + 1) {
				TH_LOG("duty %d%%: window %u reads %.2f%%",
				       duties[i], w, u);
			}
		}
		read_fdinfo(idle, &idle1);
		/* The idle client's drm-cycles-rcs do not move */
		ASSERT_EQ(0, idle0.cycles[RCS]);
		ASSERT_EQ(0, idle1.cycles[RCS]);
		spec_check(_metadata, fd);
		spec_check(_metadata, idle);
		close(idle);
		/* The next duty cycle runs on the same engine */
		ASSERT_EQ(0, syncobj_wait(fd, done, now_ns() + 5 * NSEC_PER_SEC));
		close(fd);
	}
}

/*
 * Reads @fd's fdinfo into @s until its rcs cycles pass @cycles: a job
 * submitted runs once the scheduler has handed it to the engine, which a
 * busy host delays by any amount.
 */
static void wait_running(struct __test_metadata *_metadata, int fd,
			 __u64 cycles, struct sample *s)
{
	__u64 end = now_ns() + 30 * NSEC_PER_SEC;

	for (;;) {
		read_fdinfo(fd, s);
		if (s->cycles[RCS] > cycles)
			return;
		ASSERT_GT(end, now_ns()) {
			TH_LOG("the job did not start within 30 s");
		}
		sleep_ns(NSEC_PER_SEC / 1000);
	}
}

/* One job busy for 3 s: ~100 % in every 0.5-s window while it runs. */
TEST_F_TIMEOUT(fdinfo, running, TIMEOUT)
{
	int fd = client_open();
	__u32 q = new_queue(_metadata, fd, RCS);
	struct sample a, b;
	unsigned int w;

	ASSERT_EQ(0, submit_busy(fd, q, 3 * NSEC_PER_SEC, false, 0));
	wait_running(_metadata, fd, 0, &a);
	for (w = 0; w < 5; w++) {
		double u;

		sleep_ns(NSEC_PER_SEC / 2);
		read_fdinfo(fd, &b);
		u = util(&a, &b, RCS);
		ASSERT_TRUE(u >= 99.0 && u <= 100.0) {
			TH_LOG("window %u reads %.2f%%", w, u);
		}
		a = b;
	}
	close(fd);
}

/*
 * Destroy and close: a destroyed queue's running job goes on counting until
 * it ends, and nothing of it is lost; dup shares a client.
 */
TEST_F_TIMEOUT(fdinfo, destroy, TIMEOUT)
{
	int fd = client_open(), fd2 = client_open(), dupfd = dup(fd);
	__u32 q = new_queue(_metadata, fd, RCS);
	__u32 bo = new_bo(_metadata, fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	struct sample a, b, c;

	run_jobs(_metadata, fd, q, 1, NSEC_PER_SEC / 5);
	ASSERT_EQ(0, submit_busy(fd, q, NSEC_PER_SEC / 2, false, bo));
	wait_running(_metadata, fd, ticks(NSEC_PER_SEC / 5), &a);
	ASSERT_EQ(0, queue_destroy(fd, q));
	read_fdinfo(fd, &b);
	ASSERT_LE(a.cycles[RCS], b.cycles[RCS]) {
		TH_LOG("cycles right after the destroy");
	}
	bo_wait(_metadata, fd, bo);
	read_fdinfo(fd, &b);
	ASSERT_EQ(ticks(NSEC_PER_SEC / 5) + ticks(NSEC_PER_SEC / 2),
		  b.cycles[RCS]) {
		TH_LOG("cycles of the destroyed queue's jobs");
	}
	/* A dup()ed fd is the same client, a second open() another one */
	read_fdinfo(dupfd, &c);
	ASSERT_EQ(b.client_id, c.client_id);
	ASSERT_EQ(b.cycles[RCS], c.cycles[RCS]);
	read_fdinfo(fd2, &c);
	ASSERT_NE(b.client_id, c.client_id);
	close(dupfd);
	close(fd2);
	close(fd);
}

struct reader {
	int fd;
	atomic_bool *stop;
	bool decreased;
	unsigned long reads;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	struct sample prev = {}, s;
	int c;

	while (!*r->stop) {
		read_fdinfo(r->fd, &s);
		for (c = 0; c < DRM_SIMGPU_ENGINE_CLASS_COUNT; c++)
			if (s.cycles[c] < prev.cycles[c])
				r->decreased = true;
		if (s.total < prev.total)
			r->decreased = true;
		prev = s;
		r->reads++;
	}
	return NULL;
}

/* 8 readers of one fd while 4 queues submit: exact total, never backwards. */
TEST_F_TIMEOUT(fdinfo, concurrency, TIMEOUT)
{
	int fd = client_open();
	__u32 bo = new_bo(_metadata, fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	unsigned int i, errors = 0;
	atomic_bool stop = false;
	struct reader r[8];
	pthread_t th[8];
	struct sample s;
	__u32 q[4];

	for (i = 0; i < 4; i++)
		q[i] = new_queue(_metadata, fd, i < 2 ? RCS : CCS);
	/* No failing check while the readers run: it would leave them. */
	for (i = 0; i < 8; i++) {
		r[i] = (struct reader){ .fd = fd, .stop = &stop };
		pthread_create(&th[i], NULL, reader_thread, &r[i]);
	}
	for (unsigned int j = 0; j < 50; j++)
		for (i = 0; i < 4; i++)
			errors += !!submit_busy(fd, q[i], 2000000, false, bo);
	errors += !!wait_bo(fd, bo, now_ns() + 60 * NSEC_PER_SEC);
	sleep_ns(NSEC_PER_SEC / 10);
	stop = true;
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	/* Submits or waits that failed */
	ASSERT_EQ(0, errors);
	for (i = 0; i < 8; i++) {
		ASSERT_FALSE(r[i].decreased) {
			TH_LOG("reader %u saw a counter decrease", i);
		}
		ASSERT_LT(0, r[i].reads) {
			TH_LOG("reader %u never read", i);
		}
	}
	read_fdinfo(fd, &s);
	/* rcs: two queues share one engine: one tick of rounding per switch */
	ASSERT_GE(100 * ticks(2000000) + 100, s.cycles[RCS]);
	ASSERT_LE(100 * ticks(2000000), s.cycles[RCS] + 100);
	ASSERT_EQ(100 * ticks(2000000), s.cycles[CCS]);
	spec_check(_metadata, fd);
	close(fd);
}

/* A hung job's time until reset counts; the queue is banned after. */
TEST_F_TIMEOUT(fdinfo, hang, TIMEOUT)
{
	int fd = client_open();
	__u32 q = new_queue(_metadata, fd, RCS);
	__u32 bo = new_bo(_metadata, fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	struct sample a, b;
	__u64 t0 = now_ns();

	read_fdinfo(fd, &a);
	ASSERT_EQ(0, submit_busy(fd, q, 0, true, bo));
	sleep_ns(NSEC_PER_SEC / 5);
	read_fdinfo(fd, &b);
	ASSERT_LE(a.cycles[RCS] + ticks(NSEC_PER_SEC / 10), b.cycles[RCS]) {
		TH_LOG("hung job's time not counted while hung");
	}
	bo_wait(_metadata, fd, bo);
	a = b;
	read_fdinfo(fd, &b);
	ASSERT_LE(a.cycles[RCS], b.cycles[RCS]) {
		TH_LOG("counter went backwards on reset");
	}
	ASSERT_GE(ticks(now_ns() - t0), b.cycles[RCS]) {
		TH_LOG("more time than elapsed");
	}
	/* The queue is banned */
	ASSERT_EQ(-ECANCELED, submit_busy(fd, q, 1000, false, 0));
	close(fd);
}

/* Four ccs engines busy: capacity 4, cycles 4x, utilisation <= 100 %. */
TEST_F_TIMEOUT(fdinfo, capacity, TIMEOUT)
{
	int fd = client_open();
	struct sample a, b;
	__u32 q[4];
	unsigned int i;
	double u;

	for (i = 0; i < 4; i++)
		q[i] = new_queue(_metadata, fd, CCS);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, submit_busy(fd, q[i], 2 * NSEC_PER_SEC, false, 0));
	sleep_ns(NSEC_PER_SEC / 5);
	read_fdinfo(fd, &a);
	sleep_ns(NSEC_PER_SEC);
	read_fdinfo(fd, &b);
	ASSERT_EQ(4, b.capacity[CCS]);
	u = util(&a, &b, CCS);
	ASSERT_TRUE(u >= 99.0 && u <= 100.0) {
		TH_LOG("4 busy ccs engines read %.2f%%", u);
	}
	close(fd);
}

static __u64 mem(struct __test_metadata *_metadata, const char *text,
		 const char *key)
{
	bool found;
	char full[64];
	const char *p;
	__u64 v;

	snprintf(full, sizeof(full), "\n%s:\t", key);
	p = strstr(text, full);
	ASSERT_NE(NULL, p) {
		TH_LOG("no %s", key);
	}
	v = key_value(text, key, &found);
	p += strlen(full);
	while (*p >= '0' && *p <= '9')
		p++;
	if (!strncmp(p, " KiB", 4))
		v <<= 10;
	else if (!strncmp(p, " MiB", 4))
		v <<= 20;
	return v;
}

/* Memory keys move exactly as the spec says. */
TEST_F_TIMEOUT(fdinfo, memory, TIMEOUT)
{
	int fd = client_open(), other = client_open();
	struct drm_simgpu_gem_mmap_offset mo = {};
	struct drm_simgpu_gem_madvise madv = {};
	struct drm_prime_handle prime = {};
	struct drm_gem_close gc = {};
	__u32 sys, vram, q;
	struct sample s;
	char *map;

	sys = new_bo(_metadata, fd, DRM_SIMGPU_REGION_SYSTEM, 1 << 20);
	vram = new_bo(_metadata, fd, DRM_SIMGPU_REGION_VRAM0, 2 << 20);
	read_fdinfo(fd, &s);
	ASSERT_EQ(1 << 20, mem(_metadata, s.text, "drm-total-memory"));
	ASSERT_EQ(2 << 20, mem(_metadata, s.text, "drm-total-vram0"));
	ASSERT_EQ(0, mem(_metadata, s.text, "drm-shared-memory"));

	/* Touch the pages: resident. */
	mo.handle = sys;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo));
	map = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   mo.offset);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 1, 1 << 20);
	munmap(map, 1 << 20);
	read_fdinfo(fd, &s);
	ASSERT_EQ(1 << 20, mem(_metadata, s.text, "drm-resident-memory"));

	/* Busy with a job: active. */
	q = new_queue(_metadata, fd, RCS);
	ASSERT_EQ(0, submit_busy(fd, q, NSEC_PER_SEC / 2, false, vram));
	read_fdinfo(fd, &s);
	ASSERT_EQ(2 << 20, mem(_metadata, s.text, "drm-active-vram0"));
	bo_wait(_metadata, fd, vram);
	read_fdinfo(fd, &s);
	ASSERT_EQ(0, mem(_metadata, s.text, "drm-active-vram0"));

	/* Purgeable. */
	madv.handle = sys;
	madv.madv = DRM_SIMGPU_MADV_DONTNEED;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &madv));
	read_fdinfo(fd, &s);
	ASSERT_EQ(1 << 20, mem(_metadata, s.text, "drm-purgeable-memory"));
	madv.madv = DRM_SIMGPU_MADV_WILLNEED;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &madv));

	/* Shared through PRIME with another client: shared in both. */
	prime.handle = vram;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime));
	ASSERT_EQ(0, sg_ioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime));
	read_fdinfo(fd, &s);
	ASSERT_EQ(2 << 20, mem(_metadata, s.text, "drm-shared-vram0")) {
		TH_LOG("exporter");
	}
	read_fdinfo(other, &s);
	ASSERT_EQ(2 << 20, mem(_metadata, s.text, "drm-shared-vram0")) {
		TH_LOG("importer");
	}
	ASSERT_EQ(2 << 20, mem(_metadata, s.text, "drm-total-vram0")) {
		TH_LOG("importer");
	}
	close(prime.fd);

	/* Freed: gone. */
	gc.handle = sys;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc));
	read_fdinfo(fd, &s);
	ASSERT_EQ(0, mem(_metadata, s.text, "drm-total-memory"));
	ASSERT_GT(4096, s.len) {
		TH_LOG("fdinfo is %zu bytes", s.len);
	}
	spec_check(_metadata, fd);
	spec_check(_metadata, other);
	close(other);
	close(fd);
}

/*
 * With a 1 GHz refclk the 32-bit CTX_TIMESTAMP wraps every 4.3 s: 30 s of
 * work on one queue, no reads in between, must end exactly at 30e9 ticks.
 */
TEST_F_TIMEOUT(fdinfo, wrap, TIMEOUT)
{
	struct sample s;
	__u32 q;
	int fd;

	if (refclk != NSEC_PER_SEC)
		SKIP(return, "needs simgpu.refclk_hz=1000000000, have %llu",
		     (unsigned long long)refclk);
	fd = client_open();
	q = new_queue(_metadata, fd, RCS);
	run_jobs(_metadata, fd, q, 30, NSEC_PER_SEC);
	read_fdinfo(fd, &s);
	ASSERT_EQ(30 * NSEC_PER_SEC, s.cycles[RCS]);
	close(fd);
}

int main(int argc, char **argv)
{
	return simgpu_test_main(argc, argv);
}
