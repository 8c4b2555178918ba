// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost of simgpu's fdinfo, as ratios measured in the same run:
 *
 * - reading a client's fdinfo with 1, 64, 1024 and 4096 idle exec queues,
 *   against reading the fdinfo of a pipe (target <= 3 at every size);
 * - job throughput with a reader at 1 kHz against none (target >= 0.98).
 *
 * Each figure is one line "bench: <name> ratio=<x> target=<op><y>".
 *
 * Copyright (c) 2026 The simgpu authors
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/simgpu_drm.h>

#define NSEC_PER_SEC	1000000000ULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
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

/* Median ns of one read of /proc/self/fdinfo/fd, over rounds of reads. */
static uint64_t read_cost(int fd)
{
	enum { ROUNDS = 15, READS = 200 };
	uint64_t t[ROUNDS], tmp;
	char path[64], buf[8192];
	int r, i, j;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	for (r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns();

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

static void queue_create(int fd)
{
	struct drm_simgpu_exec_queue_create c = {
		.engine_class = DRM_SIMGPU_ENGINE_CLASS_RENDER,
		.engine_instance = DRM_SIMGPU_ENGINE_INSTANCE_ANY,
	};

	if (ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c)) {
		perror("EXEC_QUEUE_CREATE");
		exit(1);
	}
}

struct reader {
	int fd;
	atomic_bool stop;
	unsigned long reads;
};

static void *reader_1khz(void *arg)
{
	struct reader *r = arg;
	char path[64], buf[8192];
	struct timespec next;

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

/* Jobs per second: submit short jobs, keeping a bounded number in flight. */
static double throughput(int fd, bool with_reader)
{
	struct drm_simgpu_exec_queue_create c = {
		.engine_class = DRM_SIMGPU_ENGINE_CLASS_COPY,
		.engine_instance = DRM_SIMGPU_ENGINE_INSTANCE_ANY,
	};
	struct drm_simgpu_gem_create g = { .size = 4096 };
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1000 };
	struct drm_simgpu_submit s = { .num_cmds = 1, .cmds = (uintptr_t)&cmd };
	struct drm_simgpu_wait_bo w = {};
	struct reader r = { .fd = fd };
	pthread_t th;
	uint64_t t0, n = 0;
	uint32_t bo;

	if (ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c) ||
	    ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &g)) {
		perror("setup");
		exit(1);
	}
	bo = g.handle;
	s.exec_queue_id = c.exec_queue_id;
	s.bo_handles = (uintptr_t)&bo;
	s.num_bo_handles = 1;
	w.handle = bo;

	if (with_reader)
		pthread_create(&th, NULL, reader_1khz, &r);
	t0 = now_ns();
	while (now_ns() - t0 < 2 * NSEC_PER_SEC) {
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
	if (with_reader) {
		r.stop = true;
		pthread_join(th, NULL);
	}
	return n * (double)NSEC_PER_SEC / t0;
}

int main(void)
{
	static const int sizes[] = { 1, 64, 1024, 4096 };
	int pipefd[2], fd, have = 0;
	double base, with, without;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}
	fd = open_simgpu();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t cost, pipe_cost;

		while (have < sizes[i]) {
			queue_create(fd);
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

	fd = open_simgpu();
	base = throughput(fd, false);
	close(fd);
	fd = open_simgpu();
	with = throughput(fd, true);
	close(fd);
	fd = open_simgpu();
	without = throughput(fd, false);
	close(fd);
	printf("bench: submit_with_1khz_fdinfo_reader ratio=%.3f target=>=0.98",
	       with / ((base + without) / 2));
	printf(" (%.0f vs %.0f jobs/s)\n", with, (base + without) / 2);
	return 0;
}
