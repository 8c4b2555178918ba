// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost and completeness of simgpu's observation streams, as ratios measured
 * in the same run:
 *
 * - observe_reports_delivered: the periodic reports a reader of a stream
 *   of its own exec queue gets, at the shortest period an unprivileged
 *   stream may have (DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS), over those the
 *   unit produced in the same time (the span of their timestamps over the
 *   period), while the queue runs jobs: target >= 0.999. The reader polls,
 *   as a profiler would;
 * - submit_with_observe_stream: jobs per second on a queue observed by
 *   such a stream with its reader, over the same with no stream, in
 *   alternating rounds, the median of the rounds' ratios: target >= 0.98.
 *
 * Each figure is one line "bench: <name> ratio=<x> target=<op><y>".
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL
#define ROUNDS		9

static uint64_t refclk;
static atomic_int stop;
static unsigned long delivered, first_ts, last_ts, gaps, lost, overflow;

static uint32_t min_exponent(void)
{
	uint32_t e = 0;

	while (e < 31 && (2ULL << e) * NSEC_PER_SEC <
	       (uint64_t)DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS * refclk)
		e++;
	return e;
}

static int open_stream(int fd, uint32_t queue)
{
	/* As a profiler would: a large buffer, woken for many reports */
	struct drm_simgpu_observation_set_property p[5] = {
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID,
		  .value = queue },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT,
		  .value = min_exponent() },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_COUNTER, .value = 0 },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE,
		  .value = 1 << 20 },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS,
		  .value = 1024 },
	};
	struct drm_simgpu_observation_open o = {
		.extensions = (uintptr_t)p,
		.flags = DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK,
	};
	int i;

	for (i = 0; i < 5; i++) {
		p[i].base.name = DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY;
		p[i].base.next_extension = i < 4 ? (uintptr_t)&p[i + 1] : 0;
	}
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN, &o)) {
		perror("DRM_IOCTL_SIMGPU_OBSERVATION_OPEN");
		exit(1);
	}
	return o.fd;
}

/*
 * Count the periodic samples of what read() returns now: one read(), or
 * (@all) until there is nothing more, which may never come while enabled
 */
static void drain(int sfd, bool all)
{
	static uint8_t buf[256 * 1024];
	struct drm_simgpu_observation_record h;
	struct drm_simgpu_observation_sample s;
	ssize_t len;
	size_t off;

	while ((len = read(sfd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < (size_t)len; off += h.size) {
			memcpy(&h, buf + off, sizeof(h));
			if (h.type != DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE) {
				struct drm_simgpu_observation_lost l;

				memcpy(&l, buf + off + sizeof(h), sizeof(l));
				if (h.type ==
				    DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST)
					lost += l.count;
				else
					overflow += l.count;
				gaps++;
				continue;
			}
			memcpy(&s, buf + off + sizeof(h), sizeof(s));
			if (s.reason != DRM_SIMGPU_OBSERVATION_REASON_PERIODIC)
				continue;
			if (!delivered++)
				first_ts = s.timestamp;
			last_ts = s.timestamp;
		}
		if (!all)
			break;
	}
}

static void *reader(void *arg)
{
	struct pollfd pfd = { .fd = *(int *)arg, .events = POLLIN };

	while (!atomic_load(&stop)) {
		/* Woken at the unit's threshold, or by its 200 Hz timer */
		poll(&pfd, 1, 100);
		drain(pfd.fd, false);
	}
	return NULL;
}

/* Jobs of 20 us of BUSY per second, one in flight at a time, for @ns */
static double throughput(int fd, uint32_t queue, uint64_t ns)
{
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 20000 };
	uint64_t t0 = now_ns(), t;
	unsigned long jobs = 0;
	uint32_t sync;

	if (syncobj_create(fd, &sync))
		exit(1);
	do {
		if (submit_sync(fd, queue, &cmd, 1, 0, sync) ||
		    syncobj_wait(fd, sync, INT64_MAX)) {
			perror("submit");
			exit(1);
		}
		jobs++;
		t = now_ns();
	} while (t - t0 < ns);
	return jobs * (double)NSEC_PER_SEC / (t - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	struct drm_simgpu_query_config config = {};
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(config),
		.data = (uintptr_t)&config,
	};
	double with[ROUNDS], without[ROUNDS], ratio[ROUNDS];
	unsigned long produced;
	pthread_t thr;
	uint32_t queue;
	int fd, sfd, i;

	fd = client_open();
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q) ||
	    queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0, &queue)) {
		perror("simgpu");
		return 1;
	}
	refclk = config.refclk_hz;

	for (i = 0; i < ROUNDS; i++) {
		without[i] = throughput(fd, queue, NSEC_PER_SEC);
		sfd = open_stream(fd, queue);
		atomic_store(&stop, 0);
		pthread_create(&thr, NULL, reader, &sfd);
		with[i] = throughput(fd, queue, NSEC_PER_SEC);
		atomic_store(&stop, 1);
		pthread_join(thr, NULL);
		ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE);
		drain(sfd, true);
		close(sfd);
		ratio[i] = with[i] / without[i];
	}
	qsort(ratio, ROUNDS, sizeof(ratio[0]), cmp_double);

	produced = 0;
	printf("# period 2^%u ticks at %llu Hz, %d rounds of 1 s\n",
	       min_exponent() + 1, (unsigned long long)refclk, ROUNDS);

	/* A last stream of 5 s for the delivery figure */
	delivered = 0;
	gaps = 0;
	lost = 0;
	overflow = 0;
	sfd = open_stream(fd, queue);
	atomic_store(&stop, 0);
	pthread_create(&thr, NULL, reader, &sfd);
	throughput(fd, queue, 5 * NSEC_PER_SEC);
	atomic_store(&stop, 1);
	pthread_join(thr, NULL);
	ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE);
	drain(sfd, true);
	close(sfd);
	if (delivered)
		produced = (last_ts - first_ts) / (2ULL << min_exponent()) + 1;

	printf("bench: observe_reports_delivered ratio=%.4f target=>=0.999",
	       produced ? (double)delivered / produced : 0);
	printf(" (%lu of %lu periodic reports; %lu gaps: %lu lost, %lu overflow)\n",
	       delivered, produced, gaps, lost, overflow);
	printf("bench: submit_with_observe_stream ratio=%.3f target=>=0.98",
	       ratio[ROUNDS / 2]);
	printf(" (median; last round %.0f vs %.0f jobs/s with no stream)\n",
	       with[ROUNDS - 1], without[ROUNDS - 1]);
	close(fd);
	return 0;
}
