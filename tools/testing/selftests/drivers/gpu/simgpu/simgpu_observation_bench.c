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
 * - submit_with_observe_stream: jobs per second on a queue observed by a
 *   stream of the default period (the shortest of at least a millisecond)
 *   with its reader, over the same with no stream: target >= 0.98. The
 *   same at the shortest unprivileged period is printed without a target:
 *   the device model writes every report on a CPU, 75,000 a second at
 *   19.2 MHz, a cost hardware does not have. With two CPUs the submitter
 *   (and the unbound workqueues' work) runs on the first and the reader on
 *   the second, as a profiler beside its application; the three cases
 *   take turns in rounds, in an order shuffled each round, and each figure
 *   is the mean of the middle half of its rounds' ratios, the quartiles
 *   printed beside it.
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

#include "simgpu_bench.h"
#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL
#define ROUNDS		41
#define ROUND_NS	(NSEC_PER_SEC / 2)

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

/* A stream of @queue, at the shortest unprivileged period if @fast */
static int open_stream(int fd, uint32_t queue, bool fast)
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
	if (!fast)	/* skip the period: the default one */
		p[0].base.next_extension = (uintptr_t)&p[2];
	i = sg_ioctl(fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN, &o);
	if (i < 0) {
		perror("DRM_IOCTL_SIMGPU_OBSERVATION_OPEN");
		exit(1);
	}
	return i;
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

	pin_to_cpu(cpus[1]);
	while (!atomic_load(&stop)) {
		/* Woken at the unit's threshold, or by its 200 Hz timer */
		poll(&pfd, 1, 100);
		drain(pfd.fd, false);
	}
	return NULL;
}

/*
 * Jobs of 20 us of BUSY per second on @queue for @ns: 16 at a time, the
 * out-sync @sync on the last of them waited for
 */
static double throughput(int fd, uint32_t queue, uint32_t sync, uint64_t ns)
{
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 20000 };
	uint64_t t0 = now_ns(), t;
	unsigned long jobs = 0;
	int i;

	pin_to_cpu(cpus[0]);
	do {
		for (i = 0; i < 16; i++)
			if (submit_sync(fd, queue, &cmd, 1, 0,
					i == 15 ? sync : 0)) {
				perror("submit");
				exit(1);
			}
		if (syncobj_wait(fd, sync, INT64_MAX)) {
			perror("wait");
			exit(1);
		}
		jobs += 16;
		t = now_ns();
	} while (t - t0 < ns);
	return jobs * (double)NSEC_PER_SEC / (t - t0);
}

enum { NONE, SLOW, FAST, CASES };

/* Jobs per second with a stream of @queue (SLOW, FAST) and its reader */
static double round_case(int fd, uint32_t queue, uint32_t sync, int stream)
{
	pthread_t thr;
	double jobs;
	int sfd;

	if (!stream)
		return throughput(fd, queue, sync, ROUND_NS);
	sfd = open_stream(fd, queue, stream == FAST);
	atomic_store(&stop, 0);
	pthread_create(&thr, NULL, reader, &sfd);
	jobs = throughput(fd, queue, sync, ROUND_NS);
	atomic_store(&stop, 1);
	pthread_join(thr, NULL);
	ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE);
	drain(sfd, true);
	close(sfd);
	return jobs;
}

int main(void)
{
	struct drm_simgpu_query_config config = {};
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(config),
		.data = (uintptr_t)&config,
	};
	double jobs[CASES][ROUNDS], ratio[ROUNDS], fast[ROUNDS];
	unsigned int order[CASES], seed = 1, k;
	unsigned long produced = 0;
	uint32_t queue, sync;
	pthread_t thr;
	int fd, sfd, i;
	bool wq;

	fd = client_open();
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q) ||
	    queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0, &queue) ||
	    syncobj_create(fd, &sync)) {
		perror("simgpu");
		return 1;
	}
	refclk = config.refclk_hz;
	find_cpus();
	wq = wq_to_cpu(cpus[0]);

	for (i = 0; i < ROUNDS; i++) {
		shuffle(order, CASES, &seed);
		for (k = 0; k < CASES; k++)
			jobs[order[k]][i] = round_case(fd, queue, sync,
						       order[k]);
		ratio[i] = jobs[SLOW][i] / jobs[NONE][i];
		fast[i] = jobs[FAST][i] / jobs[NONE][i];
	}

	if (cpus[0] >= 0)
		printf("# submitter%s on CPU %d, reader on CPU %d",
		       wq ? " and unbound work" : "", cpus[0], cpus[1]);
	else
		printf("# submitter and reader on one CPU");
	printf("; shortest period 2^%u ticks at %llu Hz, %d rounds of %llu ms a case\n",
	       min_exponent() + 1, (unsigned long long)refclk, ROUNDS,
	       ROUND_NS / 1000000);

	/* A last stream of 5 s for the delivery figure */
	delivered = 0;
	gaps = 0;
	lost = 0;
	overflow = 0;
	sfd = open_stream(fd, queue, true);
	atomic_store(&stop, 0);
	pthread_create(&thr, NULL, reader, &sfd);
	throughput(fd, queue, sync, 5 * NSEC_PER_SEC);
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
	       mid_mean(ratio, ROUNDS));
	printf(" (%.0f vs %.0f jobs/s with no stream; rounds' quartiles %.3f..%.3f)\n",
	       median(jobs[SLOW], ROUNDS), median(jobs[NONE], ROUNDS),
	       ratio[ROUNDS / 4], ratio[ROUNDS - 1 - ROUNDS / 4]);
	/* The device model's cost at 75,000 reports a second: no target */
	printf("# submit_with_fast_observe_stream ratio=%.3f (%.0f jobs/s)\n",
	       mid_mean(fast, ROUNDS), median(jobs[FAST], ROUNDS));
	close(fd);
	return 0;
}
