// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost of simgpu's fdinfo, as ratios measured in the same run:
 *
 * - reading a client's fdinfo with 1, 64, 1024 and 4096 idle exec queues,
 *   against reading the fdinfo of a pipe (target <= 3 at every size);
 * - job throughput with a reader at 1 kHz against none (target >= 0.98).
 *   With two CPUs or more the submitter runs on the first and the reader on
 *   the second, as a monitor runs beside a GPU client on a multi-core
 *   machine; the three cases (no reader, a reader of simgpu's fdinfo, a
 *   reader of a pipe's) take turns in rounds, in an order that rotates, and
 *   each ratio is the median of the ratios of its rounds, so that a drift
 *   of the machine's speed cancels out.
 *
 * Each figure is one line "bench: <name> ratio=<x> target=<op><y>".
 *
 * Copyright (c) 2026 The simgpu authors
 */
#define _GNU_SOURCE		/* sched_setaffinity() */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL

/* Median ns of one read of /proc/self/fdinfo/fd, over rounds of reads. */
static __u64 read_cost(int fd)
{
	enum { ROUNDS = 15, READS = 200 };
	__u64 t[ROUNDS], tmp;
	char path[64], buf[8192];
	int r, i, j;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	for (r = 0; r < ROUNDS; r++) {
		__u64 t0 = now_ns();

		for (i = 0; i < READS; i++) {
			int f = open(path, O_RDONLY);

			if (f < 0 || read(f, buf, sizeof(buf)) <= 0) {
				perror(path);
				exit(1);
			}
			close(f);
		}
		t[r] = (now_ns() - t0) / READS;
	}
	for (i = 0; i < ROUNDS; i++)
		for (j = i + 1; j < ROUNDS; j++)
			if (t[j] < t[i]) {
				tmp = t[i];
				t[i] = t[j];
				t[j] = tmp;
			}
	return t[ROUNDS / 2];
}

static void add_idle_queue(int fd)
{
	__u32 id;

	if (queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
			 DRM_SIMGPU_ENGINE_INSTANCE_ANY, &id)) {
		perror("EXEC_QUEUE_CREATE");
		exit(1);
	}
}

struct reader {
	int fd;
	atomic_bool stop;
	unsigned long reads;
};

/* The first two CPUs we may run on, or -1 */
static int cpus[2] = { -1, -1 };

static void find_cpus(void)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	if (n < 2) {
		cpus[0] = -1;
		cpus[1] = -1;
	}
}

static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *reader_1khz(void *arg)
{
	struct reader *r = arg;
	char path[64], buf[8192];
	struct timespec next;

	pin_to_cpu(cpus[1]);

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", r->fd);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!r->stop) {
		int f = open(path, O_RDONLY);

		if (f >= 0) {
			if (read(f, buf, sizeof(buf)) > 0)
				r->reads++;
			close(f);
		}
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

/*
 * Jobs per second: submit short jobs, keeping a bounded number in flight,
 * while a thread reads the fdinfo of @read_fd at 1 kHz (none if < 0).
 */
static double throughput(int fd, int read_fd)
{
	struct drm_simgpu_exec_queue_create c = {
		.engine_class = DRM_SIMGPU_ENGINE_CLASS_COPY,
		.engine_instance = DRM_SIMGPU_ENGINE_INSTANCE_ANY,
	};
	struct drm_simgpu_gem_create g = { .size = 4096 };
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1000 };
	struct drm_simgpu_submit s = { .num_cmds = 1, .cmds = (uintptr_t)&cmd };
	struct drm_simgpu_exec_queue_destroy d = {};
	struct drm_simgpu_wait_bo w = {};
	struct drm_gem_close gc = {};
	struct reader r = { .fd = read_fd };
	pthread_t th;
	__u64 t0, n = 0;
	__u32 bo;

	if (ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c) ||
	    ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &g)) {
		perror("setup");
		exit(1);
	}
	pin_to_cpu(cpus[0]);
	bo = g.handle;
	gc.handle = g.handle;
	s.exec_queue_id = c.exec_queue_id;
	s.bo_handles = (uintptr_t)&bo;
	s.num_bo_handles = 1;
	w.handle = bo;

	if (read_fd >= 0)
		pthread_create(&th, NULL, reader_1khz, &r);
	t0 = now_ns();
	while (now_ns() - t0 < NSEC_PER_SEC) {
		int i;

		for (i = 0; i < 16; i++) {
			while (ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s))
				if (errno != EINTR && errno != EAGAIN) {
					perror("SUBMIT");
					exit(1);
				}
			n++;
		}
		w.timeout_ns = now_ns() + 10 * NSEC_PER_SEC;
		if (ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w)) {
			perror("WAIT_BO");
			exit(1);
		}
	}
	t0 = now_ns() - t0;
	if (read_fd >= 0) {
		r.stop = true;
		pthread_join(th, NULL);
	}
	d.exec_queue_id = c.exec_queue_id;
	if (ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &d) ||
	    ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc)) {
		perror("teardown");
		exit(1);
	}
	return n * (double)NSEC_PER_SEC / t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

int main(void)
{
	enum { ROUNDS = 5 };
	static const int sizes[] = { 1, 64, 1024, 4096 };
	double none_r[ROUNDS], simgpu_r[ROUNDS], piped_r[ROUNDS];
	double vs_none[ROUNDS], vs_pipe[ROUNDS];
	int pipefd[2], fd, have = 0;
	double none, simgpu, piped;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}
	fd = client_open();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		__u64 cost, pipe_cost;

		while (have < sizes[i]) {
			add_idle_queue(fd);
			have++;
		}
		pipe_cost = read_cost(pipefd[0]);
		cost = read_cost(fd);
		printf("bench: fdinfo_read_%d_queues ratio=%.2f target=<=3",
		       sizes[i], (double)cost / pipe_cost);
		printf(" (%llu ns vs pipe %llu ns)\n",
		       (unsigned long long)cost, (unsigned long long)pipe_cost);
	}
	close(fd);

	/*
	 * On one CPU (UML) a 1 kHz reader of any proc file takes CPU time from
	 * the submitter. So besides the ratio to no reader, show the one to a
	 * reader of a pipe's fdinfo, which costs about the same but never
	 * enters the driver: what is left is the driver's own interference.
	 */
	find_cpus();
	fd = client_open();
	for (i = 0; i < ROUNDS; i++) {
		int readers[3] = { -1, fd, pipefd[0] };
		double jobs[3];
		unsigned int k;

		for (k = 0; k < 3; k++) {
			unsigned int c = (i + k) % 3;

			jobs[c] = throughput(fd, readers[c]);
		}
		none_r[i] = jobs[0];
		simgpu_r[i] = jobs[1];
		piped_r[i] = jobs[2];
		vs_none[i] = jobs[1] / jobs[0];
		vs_pipe[i] = jobs[1] / jobs[2];
	}
	close(fd);
	none = median(none_r, ROUNDS);
	simgpu = median(simgpu_r, ROUNDS);
	piped = median(piped_r, ROUNDS);
	if (cpus[0] >= 0)
		printf("# submitter on CPU %d, reader on CPU %d", cpus[0], cpus[1]);
	else
		printf("# submitter and reader on one CPU");
	printf(", %d rounds of 1 s, ratios: medians of the rounds' ratios\n",
	       ROUNDS);
	printf("bench: submit_with_1khz_fdinfo_reader ratio=%.3f target=>=0.98",
	       median(vs_none, ROUNDS));
	printf(" (%.0f vs %.0f jobs/s with no reader)\n", simgpu, none);
	printf("bench: submit_with_1khz_fdinfo_reader_vs_pipe_reader ratio=%.3f target=>=0.98",
	       median(vs_pipe, ROUNDS));
	printf(" (%.0f vs %.0f jobs/s with a pipe's fdinfo reader)\n", simgpu,
	       piped);
	return 0;
}
