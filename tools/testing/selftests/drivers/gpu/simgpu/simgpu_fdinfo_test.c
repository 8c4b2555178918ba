// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu fdinfo usage statistics, end to end: real jobs through the uAPI,
 * counters read from /proc/self/fdinfo as tools read them.
 *
 * Usage: simgpu_fdinfo_test [TEST...]   (default: every test but "wrap",
 * which needs the 1 GHz reference clock: boot with simgpu.refclk_hz=1000000000)
 *
 * Copyright (c) 2026 The simgpu authors
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL
#define RCS		DRM_SIMGPU_ENGINE_CLASS_RENDER
#define CCS		DRM_SIMGPU_ENGINE_CLASS_COMPUTE

static __u64 refclk;

/* Print why, then fail the running test (which ends it, see tap_run()). */
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	tap_fail();
}

#define EXPECT(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static __u32 new_queue(int fd, int class)
{
	__u32 id;
	int ret = queue_create(fd, class, DRM_SIMGPU_ENGINE_INSTANCE_ANY, &id);

	if (ret)
		fail("EXEC_QUEUE_CREATE: %s", strerror(-ret));
	return id;
}

static __u32 new_bo(int fd, __u32 region, __u64 size)
{
	__u32 handle;
	int ret = bo_create(fd, size, region, &handle);

	if (ret)
		fail("GEM_CREATE: %s", strerror(-ret));
	return handle;
}

static void bo_wait(int fd, __u32 handle)
{
	EXPECT(!wait_bo(fd, handle, now_ns() + 60 * NSEC_PER_SEC),
	       "WAIT_BO failed");
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
static void run_jobs(int fd, __u32 queue, unsigned int n, __u64 ns)
{
	__u32 bo = new_bo(fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	unsigned int i;

	for (i = 0; i < n; i++)
		EXPECT(!submit_busy(fd, queue, ns, false, bo), "submit failed");
	bo_wait(fd, bo);
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
static void spec_check(int fd)
{
	char cmd[160];
	int ret;

	if (system("command -v drm-fdinfo-check >/dev/null 2>&1"))
		return;
	/* Quiet when clean; its findings, as TAP comments, when not. */
	snprintf(cmd, sizeof(cmd),
		 "out=$(drm-fdinfo-check %d:%d 2>&1) || { echo \"$out\" | sed 's/^/# /'; exit 1; }",
		 getpid(), fd);
	ret = system(cmd);
	EXPECT(ret == 0, "drm-fdinfo-check %d:%d failed", getpid(), fd);
}

static double util(const struct sample *a, const struct sample *b, int c)
{
	__u64 dt = b->total - a->total;
	__u64 cap = b->capacity[c] ? b->capacity[c] : 1;

	return dt ? 100.0 * (b->cycles[c] - a->cycles[c]) / dt / cap : -1;
}

/* --- The tests ------------------------------------------------------------ */

/* Duty cycle D on rcs reads D +- 1 pp in each 1-s window; idle stays 0. */
static void test_accuracy(void)
{
	static const int duties[] = { 25, 70 };
	unsigned int i, w;

	for (i = 0; i < 2; i++) {
		int fd = client_open(), idle = client_open();
		__u32 q = new_queue(fd, RCS);
		__u64 period = 10000000, busy = period * duties[i] / 100;
		__u64 t0 = now_ns(), next = t0;
		struct sample s[4], idle0, idle1;
		unsigned int k = 0;

		read_fdinfo(idle, &idle0);
		/* Pace one job per period by absolute deadline, 4 s. */
		for (w = 0; w < 400; w++) {
			struct timespec ts;

			EXPECT(!submit_busy(fd, q, busy, false, 0), "submit failed");
			if (w == 50 || w == 150 || w == 250 || w == 350)
				read_fdinfo(fd, &s[k++]);
			next += period;
			ts.tv_sec = next / NSEC_PER_SEC;
			ts.tv_nsec = next % NSEC_PER_SEC;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		for (w = 1; w < 4; w++) {
			double u = util(&s[w - 1], &s[w], RCS);

			printf("# duty %d%%: window %u: %.2f%%\n", duties[i], w, u);
			EXPECT(u >= duties[i] - 1 && u <= duties[i] + 1,
			       "duty %d%%: window %u reads %.2f%%", duties[i], w, u);
		}
		read_fdinfo(idle, &idle1);
		EXPECT(idle1.cycles[RCS] == 0 && idle0.cycles[RCS] == 0,
		       "idle client's drm-cycles-rcs moved");
		spec_check(fd);
		spec_check(idle);
		close(idle);
		close(fd);
	}
}

/* One job busy for 3 s: ~100 % in every 0.5-s window while it runs. */
static void test_running(void)
{
	int fd = client_open();
	__u32 q = new_queue(fd, RCS);
	struct sample a, b;
	unsigned int w;

	EXPECT(!submit_busy(fd, q, 3 * NSEC_PER_SEC, false, 0), "submit failed");
	sleep_ns(NSEC_PER_SEC / 10);
	read_fdinfo(fd, &a);
	for (w = 0; w < 5; w++) {
		double u;

		sleep_ns(NSEC_PER_SEC / 2);
		read_fdinfo(fd, &b);
		u = util(&a, &b, RCS);
		EXPECT(u >= 99.0 && u <= 100.0, "window %u reads %.2f%%", w, u);
		a = b;
	}
	close(fd);
}

/*
 * With a 1 GHz refclk the 32-bit CTX_TIMESTAMP wraps every 4.3 s: 30 s of
 * work on one queue, no reads in between, must end exactly at 30e9 ticks.
 */
static void test_wrap(void)
{
	int fd = client_open();
	__u32 q = new_queue(fd, RCS);
	struct sample s;

	if (refclk != NSEC_PER_SEC) {
		fail("needs simgpu.refclk_hz=1000000000, have %llu",
		     (unsigned long long)refclk);
		return;
	}
	run_jobs(fd, q, 30, NSEC_PER_SEC);
	read_fdinfo(fd, &s);
	EXPECT(s.cycles[RCS] == 30 * NSEC_PER_SEC,
	       "drm-cycles-rcs %llu, want %llu", s.cycles[RCS],
	       30 * NSEC_PER_SEC);
	close(fd);
}

/* Destroy and close: a destroyed queue counts at once; dup shares a client. */
static void test_destroy(void)
{
	int fd = client_open(), fd2 = client_open(), dupfd = dup(fd);
	__u32 q = new_queue(fd, RCS);
	struct sample a, b, c;

	run_jobs(fd, q, 1, NSEC_PER_SEC / 5);
	EXPECT(!submit_busy(fd, q, NSEC_PER_SEC / 2, false, 0), "submit failed");
	sleep_ns(NSEC_PER_SEC / 4);
	EXPECT(!queue_destroy(fd, q), "EXEC_QUEUE_DESTROY failed");
	read_fdinfo(fd, &a);
	EXPECT(a.cycles[RCS] >= ticks(NSEC_PER_SEC / 5 + NSEC_PER_SEC / 4),
	       "after destroy: %llu cycles, want >= %llu",
	       a.cycles[RCS], ticks(NSEC_PER_SEC / 5 + NSEC_PER_SEC / 4));
	sleep_ns(NSEC_PER_SEC / 2);
	read_fdinfo(fd, &b);
	EXPECT(b.cycles[RCS] == ticks(NSEC_PER_SEC / 5) + ticks(NSEC_PER_SEC / 2),
	       "destroyed queue's jobs: %llu cycles, want %llu",
	       b.cycles[RCS], ticks(NSEC_PER_SEC / 5) + ticks(NSEC_PER_SEC / 2));
	read_fdinfo(dupfd, &c);
	EXPECT(c.client_id == b.client_id && c.cycles[RCS] == b.cycles[RCS],
	       "dup()ed fd is not the same client");
	read_fdinfo(fd2, &c);
	EXPECT(c.client_id != b.client_id, "second open() shares a client id");
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
static void test_concurrency(void)
{
	int fd = client_open();
	__u32 bo = new_bo(fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	unsigned int i, errors = 0;
	atomic_bool stop = false;
	struct reader r[8];
	pthread_t th[8];
	struct sample s;
	__u32 q[4];

	for (i = 0; i < 4; i++)
		q[i] = new_queue(fd, i < 2 ? RCS : CCS);
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
	EXPECT(!errors, "%u submits or waits failed", errors);
	for (i = 0; i < 8; i++) {
		EXPECT(!r[i].decreased, "reader %u saw a counter decrease", i);
		EXPECT(r[i].reads > 0, "reader %u never read", i);
	}
	read_fdinfo(fd, &s);
	/* rcs: two queues share one engine: one tick of rounding per switch */
	EXPECT(s.cycles[RCS] <= 100 * ticks(2000000) + 100 &&
	       s.cycles[RCS] + 100 >= 100 * ticks(2000000),
	       "rcs %llu, want %llu", s.cycles[RCS], 100 * ticks(2000000));
	EXPECT(s.cycles[CCS] == 100 * ticks(2000000),
	       "ccs %llu, want %llu", s.cycles[CCS], 100 * ticks(2000000));
	spec_check(fd);
	close(fd);
}

/* A hung job's time until reset counts; the queue is banned after. */
static void test_hang(void)
{
	int fd = client_open();
	__u32 q = new_queue(fd, RCS);
	__u32 bo = new_bo(fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	struct sample a, b;
	__u64 t0 = now_ns();

	read_fdinfo(fd, &a);
	EXPECT(!submit_busy(fd, q, 0, true, bo), "submit failed");
	sleep_ns(NSEC_PER_SEC / 5);
	read_fdinfo(fd, &b);
	EXPECT(b.cycles[RCS] >= a.cycles[RCS] + ticks(NSEC_PER_SEC / 10),
	       "hung job's time not counted while hung");
	bo_wait(fd, bo);
	a = b;
	read_fdinfo(fd, &b);
	EXPECT(b.cycles[RCS] >= a.cycles[RCS], "counter went backwards on reset");
	EXPECT(b.cycles[RCS] <= ticks(now_ns() - t0), "more time than elapsed");
	EXPECT(submit_busy(fd, q, 1000, false, 0) == -ECANCELED,
	       "banned queue accepted a job");
	close(fd);
}

/* Four ccs engines busy: capacity 4, cycles 4x, utilisation <= 100 %. */
static void test_capacity(void)
{
	int fd = client_open();
	struct sample a, b;
	__u32 q[4];
	unsigned int i;
	double u;

	for (i = 0; i < 4; i++)
		q[i] = new_queue(fd, CCS);
	for (i = 0; i < 4; i++)
		EXPECT(!submit_busy(fd, q[i], 2 * NSEC_PER_SEC, false, 0), "submit");
	sleep_ns(NSEC_PER_SEC / 5);
	read_fdinfo(fd, &a);
	sleep_ns(NSEC_PER_SEC);
	read_fdinfo(fd, &b);
	EXPECT(b.capacity[CCS] == 4, "capacity %llu", b.capacity[CCS]);
	u = util(&a, &b, CCS);
	EXPECT(u >= 99.0 && u <= 100.0, "4 busy ccs engines read %.2f%%", u);
	close(fd);
}

static __u64 mem(const char *text, const char *key)
{
	bool found;
	char full[64];
	const char *p;
	__u64 v;

	snprintf(full, sizeof(full), "\n%s:\t", key);
	p = strstr(text, full);
	if (!p) {
		fail("no %s", key);
		return 0;
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
static void test_memory(void)
{
	int fd = client_open(), other = client_open();
	struct drm_simgpu_gem_mmap_offset mo = {};
	struct drm_simgpu_gem_madvise madv = {};
	struct drm_prime_handle prime = {};
	__u32 sys, vram, q;
	struct sample s;
	char *map;

	sys = new_bo(fd, DRM_SIMGPU_REGION_SYSTEM, 1 << 20);
	vram = new_bo(fd, DRM_SIMGPU_REGION_VRAM0, 2 << 20);
	read_fdinfo(fd, &s);
	EXPECT(mem(s.text, "drm-total-memory") == 1 << 20, "total-memory");
	EXPECT(mem(s.text, "drm-total-vram0") == 2 << 20, "total-vram0");
	EXPECT(mem(s.text, "drm-shared-memory") == 0, "shared-memory");

	/* Touch the pages: resident. */
	mo.handle = sys;
	EXPECT(!sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo), "mmap offset");
	map = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
	EXPECT(map != MAP_FAILED, "mmap");
	if (map != MAP_FAILED) {
		memset(map, 1, 1 << 20);
		munmap(map, 1 << 20);
	}
	read_fdinfo(fd, &s);
	EXPECT(mem(s.text, "drm-resident-memory") == 1 << 20, "resident-memory %llu",
	       mem(s.text, "drm-resident-memory"));

	/* Busy with a job: active. */
	q = new_queue(fd, RCS);
	EXPECT(!submit_busy(fd, q, NSEC_PER_SEC / 2, false, vram), "submit");
	read_fdinfo(fd, &s);
	EXPECT(mem(s.text, "drm-active-vram0") == 2 << 20, "active-vram0 %llu",
	       mem(s.text, "drm-active-vram0"));
	bo_wait(fd, vram);
	read_fdinfo(fd, &s);
	EXPECT(mem(s.text, "drm-active-vram0") == 0, "active-vram0 after wait");

	/* Purgeable. */
	madv.handle = sys;
	madv.madv = DRM_SIMGPU_MADV_DONTNEED;
	EXPECT(!sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &madv), "madvise");
	read_fdinfo(fd, &s);
	EXPECT(mem(s.text, "drm-purgeable-memory") == 1 << 20, "purgeable-memory %llu",
	       mem(s.text, "drm-purgeable-memory"));
	madv.madv = DRM_SIMGPU_MADV_WILLNEED;
	EXPECT(!sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &madv), "madvise");

	/* Shared through PRIME with another client: shared in both. */
	prime.handle = vram;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	EXPECT(!sg_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime), "export");
	EXPECT(!sg_ioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime), "import");
	read_fdinfo(fd, &s);
	EXPECT(mem(s.text, "drm-shared-vram0") == 2 << 20, "shared-vram0 (exporter)");
	read_fdinfo(other, &s);
	EXPECT(mem(s.text, "drm-shared-vram0") == 2 << 20, "shared-vram0 (importer)");
	EXPECT(mem(s.text, "drm-total-vram0") == 2 << 20, "total-vram0 (importer)");
	close(prime.fd);

	/* Freed: gone. */
	{
		struct drm_gem_close gc = { .handle = sys };

		EXPECT(!sg_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc), "gem close");
	}
	read_fdinfo(fd, &s);
	EXPECT(mem(s.text, "drm-total-memory") == 0, "total-memory after free");
	EXPECT(s.len < 4096, "fdinfo is %zu bytes", s.len);
	spec_check(fd);
	spec_check(other);
	close(other);
	close(fd);
}

/* "wrap" needs the 1 GHz clock, so it only runs when asked for. */
static const struct {
	struct tap_test test;
	bool by_default;
} tests[] = {
	{ { "fdinfo accuracy", test_accuracy }, true },
	{ { "fdinfo running", test_running }, true },
	{ { "fdinfo destroy", test_destroy }, true },
	{ { "fdinfo concurrency", test_concurrency }, true },
	{ { "fdinfo hang", test_hang }, true },
	{ { "fdinfo capacity", test_capacity }, true },
	{ { "fdinfo memory", test_memory }, true },
	{ { "fdinfo wrap", test_wrap }, false },
};

int main(int argc, char **argv)
{
	struct drm_simgpu_query_config cfg = {};
	struct drm_simgpu_query qy = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(cfg),
		.data = (uintptr_t)&cfg,
	};
	int fd = client_open();
	unsigned int i;

	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &qy)) {
		fprintf(stderr, "QUERY_CONFIG failed\n");
		return 1;
	}
	refclk = cfg.refclk_hz;
	close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		const char *name = tests[i].test.name + strlen("fdinfo ");
		bool run = argc == 1 && tests[i].by_default;

		for (int a = 1; a < argc; a++)
			run |= !strcmp(argv[a], name);
		if (run)
			tap_run(tests[i].test.name, tests[i].test.fn);
	}
	return tap_failed ? 1 : 0;
}
