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
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include <drm/drm.h>
#include <drm/simgpu_drm.h>

#define NSEC_PER_SEC	1000000000ULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RCS		DRM_SIMGPU_ENGINE_CLASS_RENDER
#define CCS		DRM_SIMGPU_ENGINE_CLASS_COMPUTE

static int test_failed;
static __u64 refclk;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	test_failed = 1;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int open_simgpu(void)
{
	char path[64];
	int i;

	for (i = 128; i < 192; i++) {
		char name[32] = "";
		struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ioctl(fd, DRM_IOCTL_VERSION, &v) && !strcmp(name, "simgpu"))
			return fd;
		close(fd);
	}
	fprintf(stderr, "no simgpu render node\n");
	exit(1);
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : 0;
}

static __u32 queue_create(int fd, int class)
{
	struct drm_simgpu_exec_queue_create c = {
		.engine_class = class,
		.engine_instance = DRM_SIMGPU_ENGINE_INSTANCE_ANY,
	};
	int ret = xioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c);

	if (ret) {
		fprintf(stderr, "EXEC_QUEUE_CREATE: %s\n", strerror(-ret));
		exit(1);
	}
	return c.exec_queue_id;
}

static void queue_destroy(int fd, __u32 id)
{
	struct drm_simgpu_exec_queue_destroy d = { .exec_queue_id = id };

	CHECK(!xioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &d),
	      "EXEC_QUEUE_DESTROY failed");
}

static __u32 bo_create(int fd, __u32 region, __u64 size)
{
	struct drm_simgpu_gem_create c = { .size = size, .region = region };
	int ret = xioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &c);

	if (ret) {
		fprintf(stderr, "GEM_CREATE: %s\n", strerror(-ret));
		exit(1);
	}
	return c.handle;
}

static void bo_wait(int fd, __u32 handle)
{
	struct drm_simgpu_wait_bo w = {
		.handle = handle,
		.timeout_ns = now_ns() + 60 * NSEC_PER_SEC,
	};

	CHECK(!xioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w), "WAIT_BO failed");
}

/*
 * Submit one job: "busy for ns" (as BUSY commands of at most a second each),
 * then "hang" if asked; the job marks bo busy if non-zero.
 */
static int submit(int fd, __u32 queue, __u64 ns, bool hang, __u32 bo)
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

	return xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s);
}

/* Submit n jobs of ns each on a queue, then wait for them via a BO. */
static void run_jobs(int fd, __u32 queue, unsigned int n, __u64 ns)
{
	__u32 bo = bo_create(fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	unsigned int i;

	for (i = 0; i < n; i++)
		CHECK(!submit(fd, queue, ns, false, bo), "submit failed");
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
	char cmd[128];
	int ret;

	if (system("command -v drm-fdinfo-check >/dev/null 2>&1"))
		return;
	snprintf(cmd, sizeof(cmd), "drm-fdinfo-check %d:%d >/dev/null", getpid(), fd);
	ret = system(cmd);
	CHECK(ret == 0, "drm-fdinfo-check %d:%d failed", getpid(), fd);
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
		int fd = open_simgpu(), idle = open_simgpu();
		__u32 q = queue_create(fd, RCS);
		__u64 period = 10000000, busy = period * duties[i] / 100;
		__u64 t0 = now_ns(), next = t0;
		struct sample s[4], idle0, idle1;
		unsigned int k = 0;

		read_fdinfo(idle, &idle0);
		/* Pace one job per period by absolute deadline, 4 s. */
		for (w = 0; w < 400; w++) {
			struct timespec ts;

			CHECK(!submit(fd, q, busy, false, 0), "submit failed");
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
			CHECK(u >= duties[i] - 1 && u <= duties[i] + 1,
			      "duty %d%%: window %u reads %.2f%%", duties[i], w, u);
		}
		read_fdinfo(idle, &idle1);
		CHECK(idle1.cycles[RCS] == 0 && idle0.cycles[RCS] == 0,
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
	int fd = open_simgpu();
	__u32 q = queue_create(fd, RCS);
	struct sample a, b;
	unsigned int w;

	CHECK(!submit(fd, q, 3 * NSEC_PER_SEC, false, 0), "submit failed");
	sleep_ns(NSEC_PER_SEC / 10);
	read_fdinfo(fd, &a);
	for (w = 0; w < 5; w++) {
		double u;

		sleep_ns(NSEC_PER_SEC / 2);
		read_fdinfo(fd, &b);
		u = util(&a, &b, RCS);
		CHECK(u >= 99.0 && u <= 100.0, "window %u reads %.2f%%", w, u);
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
	int fd = open_simgpu();
	__u32 q = queue_create(fd, RCS);
	struct sample s;

	if (refclk != NSEC_PER_SEC) {
		fail("needs simgpu.refclk_hz=1000000000, have %llu",
		     (unsigned long long)refclk);
		return;
	}
	run_jobs(fd, q, 30, NSEC_PER_SEC);
	read_fdinfo(fd, &s);
	CHECK(s.cycles[RCS] == 30 * NSEC_PER_SEC,
	      "drm-cycles-rcs %llu, want %llu", s.cycles[RCS],
	      30 * NSEC_PER_SEC);
	close(fd);
}

/* Destroy and close: a destroyed queue counts at once; dup shares a client. */
static void test_destroy(void)
{
	int fd = open_simgpu(), fd2 = open_simgpu(), dupfd = dup(fd);
	__u32 q = queue_create(fd, RCS);
	struct sample a, b, c;

	run_jobs(fd, q, 1, NSEC_PER_SEC / 5);
	CHECK(!submit(fd, q, NSEC_PER_SEC / 2, false, 0), "submit failed");
	sleep_ns(NSEC_PER_SEC / 4);
	queue_destroy(fd, q);
	read_fdinfo(fd, &a);
	CHECK(a.cycles[RCS] >= ticks(NSEC_PER_SEC / 5 + NSEC_PER_SEC / 4),
	      "after destroy: %llu cycles, want >= %llu",
	      a.cycles[RCS], ticks(NSEC_PER_SEC / 5 + NSEC_PER_SEC / 4));
	sleep_ns(NSEC_PER_SEC / 2);
	read_fdinfo(fd, &b);
	CHECK(b.cycles[RCS] == ticks(NSEC_PER_SEC / 5) + ticks(NSEC_PER_SEC / 2),
	      "destroyed queue's jobs: %llu cycles, want %llu",
	      b.cycles[RCS], ticks(NSEC_PER_SEC / 5) + ticks(NSEC_PER_SEC / 2));
	read_fdinfo(dupfd, &c);
	CHECK(c.client_id == b.client_id && c.cycles[RCS] == b.cycles[RCS],
	      "dup()ed fd is not the same client");
	read_fdinfo(fd2, &c);
	CHECK(c.client_id != b.client_id, "second open() shares a client id");
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
	int fd = open_simgpu();
	atomic_bool stop = false;
	struct reader r[8];
	pthread_t th[8];
	__u32 q[4];
	struct sample s;
	unsigned int i;
	__u32 bo = bo_create(fd, DRM_SIMGPU_REGION_SYSTEM, 4096);

	for (i = 0; i < 8; i++) {
		r[i] = (struct reader){ .fd = fd, .stop = &stop };
		pthread_create(&th[i], NULL, reader_thread, &r[i]);
	}
	for (i = 0; i < 4; i++)
		q[i] = queue_create(fd, i < 2 ? RCS : CCS);
	for (unsigned int j = 0; j < 50; j++)
		for (i = 0; i < 4; i++)
			CHECK(!submit(fd, q[i], 2000000, false, bo), "submit failed");
	bo_wait(fd, bo);
	sleep_ns(NSEC_PER_SEC / 10);
	stop = true;
	for (i = 0; i < 8; i++) {
		pthread_join(th[i], NULL);
		CHECK(!r[i].decreased, "reader %u saw a counter decrease", i);
		CHECK(r[i].reads > 0, "reader %u never read", i);
	}
	read_fdinfo(fd, &s);
	/* rcs: two queues share one engine: one tick of rounding per switch */
	CHECK(s.cycles[RCS] <= 100 * ticks(2000000) + 100 &&
	      s.cycles[RCS] + 100 >= 100 * ticks(2000000),
	      "rcs %llu, want %llu", s.cycles[RCS], 100 * ticks(2000000));
	CHECK(s.cycles[CCS] == 100 * ticks(2000000),
	      "ccs %llu, want %llu", s.cycles[CCS], 100 * ticks(2000000));
	spec_check(fd);
	close(fd);
}

/* A hung job's time until reset counts; the queue is banned after. */
static void test_hang(void)
{
	int fd = open_simgpu();
	__u32 q = queue_create(fd, RCS);
	__u32 bo = bo_create(fd, DRM_SIMGPU_REGION_SYSTEM, 4096);
	struct sample a, b;
	__u64 t0 = now_ns();

	read_fdinfo(fd, &a);
	CHECK(!submit(fd, q, 0, true, bo), "submit failed");
	sleep_ns(NSEC_PER_SEC / 5);
	read_fdinfo(fd, &b);
	CHECK(b.cycles[RCS] >= a.cycles[RCS] + ticks(NSEC_PER_SEC / 10),
	      "hung job's time not counted while hung");
	bo_wait(fd, bo);
	a = b;
	read_fdinfo(fd, &b);
	CHECK(b.cycles[RCS] >= a.cycles[RCS], "counter went backwards on reset");
	CHECK(b.cycles[RCS] <= ticks(now_ns() - t0), "more time than elapsed");
	CHECK(submit(fd, q, 1000, false, 0) == -ECANCELED,
	      "banned queue accepted a job");
	close(fd);
}

/* Four ccs engines busy: capacity 4, cycles 4x, utilisation <= 100 %. */
static void test_capacity(void)
{
	int fd = open_simgpu();
	struct sample a, b;
	__u32 q[4];
	unsigned int i;
	double u;

	for (i = 0; i < 4; i++)
		q[i] = queue_create(fd, CCS);
	for (i = 0; i < 4; i++)
		CHECK(!submit(fd, q[i], 2 * NSEC_PER_SEC, false, 0), "submit");
	sleep_ns(NSEC_PER_SEC / 5);
	read_fdinfo(fd, &a);
	sleep_ns(NSEC_PER_SEC);
	read_fdinfo(fd, &b);
	CHECK(b.capacity[CCS] == 4, "capacity %llu", b.capacity[CCS]);
	u = util(&a, &b, CCS);
	CHECK(u >= 99.0 && u <= 100.0, "4 busy ccs engines read %.2f%%", u);
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
	int fd = open_simgpu(), other = open_simgpu();
	struct drm_simgpu_gem_mmap_offset mo = {};
	struct drm_simgpu_gem_madvise madv = {};
	struct drm_prime_handle prime = {};
	__u32 sys, vram, q;
	struct sample s;
	char *map;

	sys = bo_create(fd, DRM_SIMGPU_REGION_SYSTEM, 1 << 20);
	vram = bo_create(fd, DRM_SIMGPU_REGION_VRAM0, 2 << 20);
	read_fdinfo(fd, &s);
	CHECK(mem(s.text, "drm-total-memory") == 1 << 20, "total-memory");
	CHECK(mem(s.text, "drm-total-vram0") == 2 << 20, "total-vram0");
	CHECK(mem(s.text, "drm-shared-memory") == 0, "shared-memory");

	/* Touch the pages: resident. */
	mo.handle = sys;
	CHECK(!xioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo), "mmap offset");
	map = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
	CHECK(map != MAP_FAILED, "mmap");
	if (map != MAP_FAILED) {
		memset(map, 1, 1 << 20);
		munmap(map, 1 << 20);
	}
	read_fdinfo(fd, &s);
	CHECK(mem(s.text, "drm-resident-memory") == 1 << 20, "resident-memory %llu",
	      mem(s.text, "drm-resident-memory"));

	/* Busy with a job: active. */
	q = queue_create(fd, RCS);
	CHECK(!submit(fd, q, NSEC_PER_SEC / 2, false, vram), "submit");
	read_fdinfo(fd, &s);
	CHECK(mem(s.text, "drm-active-vram0") == 2 << 20, "active-vram0 %llu",
	      mem(s.text, "drm-active-vram0"));
	bo_wait(fd, vram);
	read_fdinfo(fd, &s);
	CHECK(mem(s.text, "drm-active-vram0") == 0, "active-vram0 after wait");

	/* Purgeable. */
	madv.handle = sys;
	madv.madv = DRM_SIMGPU_MADV_DONTNEED;
	CHECK(!xioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &madv), "madvise");
	read_fdinfo(fd, &s);
	CHECK(mem(s.text, "drm-purgeable-memory") == 1 << 20, "purgeable-memory %llu",
	      mem(s.text, "drm-purgeable-memory"));
	madv.madv = DRM_SIMGPU_MADV_WILLNEED;
	CHECK(!xioctl(fd, DRM_IOCTL_SIMGPU_GEM_MADVISE, &madv), "madvise");

	/* Shared through PRIME with another client: shared in both. */
	prime.handle = vram;
	prime.flags = DRM_CLOEXEC | DRM_RDWR;
	CHECK(!xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime), "export");
	CHECK(!xioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime), "import");
	read_fdinfo(fd, &s);
	CHECK(mem(s.text, "drm-shared-vram0") == 2 << 20, "shared-vram0 (exporter)");
	read_fdinfo(other, &s);
	CHECK(mem(s.text, "drm-shared-vram0") == 2 << 20, "shared-vram0 (importer)");
	CHECK(mem(s.text, "drm-total-vram0") == 2 << 20, "total-vram0 (importer)");
	close(prime.fd);

	/* Freed: gone. */
	{
		struct drm_gem_close gc = { .handle = sys };

		CHECK(!xioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc), "gem close");
	}
	read_fdinfo(fd, &s);
	CHECK(mem(s.text, "drm-total-memory") == 0, "total-memory after free");
	CHECK(s.len < 4096, "fdinfo is %zu bytes", s.len);
	spec_check(fd);
	spec_check(other);
	close(other);
	close(fd);
}

static const struct {
	const char *name;
	void (*fn)(void);
	bool by_default;
} tests[] = {
	{ "accuracy", test_accuracy, true },
	{ "running", test_running, true },
	{ "destroy", test_destroy, true },
	{ "concurrency", test_concurrency, true },
	{ "hang", test_hang, true },
	{ "capacity", test_capacity, true },
	{ "memory", test_memory, true },
	{ "wrap", test_wrap, false },
};

int main(int argc, char **argv)
{
	struct drm_simgpu_query_config cfg = {};
	struct drm_simgpu_query qy = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(cfg),
		.data = (uintptr_t)&cfg,
	};
	unsigned int i, n = 0, failed = 0;
	int fd = open_simgpu();

	if (xioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &qy)) {
		fprintf(stderr, "QUERY_CONFIG failed\n");
		return 1;
	}
	refclk = cfg.refclk_hz;
	close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		bool run = argc == 1 && tests[i].by_default;

		for (int a = 1; a < argc; a++)
			run |= !strcmp(argv[a], tests[i].name);
		if (!run)
			continue;
		test_failed = 0;
		tests[i].fn();
		printf("%sok %u - fdinfo %s\n", test_failed ? "not " : "", ++n,
		       tests[i].name);
		failed += test_failed;
	}
	return failed ? 1 : 0;
}
