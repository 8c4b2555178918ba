// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost and completeness of simgpu's observation streams, as ratios measured
 * in the same run:
 *
 * - submit_with_observe_stream: jobs per second on an exec queue observed
 *   by a stream of its own at the default period (the shortest of at
 *   least a millisecond), over the same with the stream disabled: target
 *   >= 0.98. A reader beside the submitter wakes at 200 Hz either way (the
 *   stream driver's own forwarding rate): while the stream is enabled it
 *   reads the stream, while it is not it reads a pipe's fdinfo for as long
 *   as reading the stream took. The two kinds of slot differ by what the
 *   stream costs the submitter, the unit's reports and the stream's
 *   timers, not by how busy the reader's CPU is, which in an emulator
 *   slows the other CPU too;
 * - the same at the shortest period an unprivileged stream may have
 *   (DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS) is printed without a target:
 *   the device model writes every report on a CPU, 75,000 a second at
 *   19.2 MHz, a cost hardware does not have;
 * - observe_reports_delivered: of the periodic reports that shortest
 *   period produced while enabled (the span of their timestamps over the
 *   period, each time it was enabled), those the reader got: target
 *   >= 0.999.
 *
 * With two CPUs the submitter (and the unbound workqueues' work) runs on
 * the first and the reader on the second, as a profiler beside its
 * application. The run is made of slots of 100 ms, in cycles of one slot
 * of each kind in an order shuffled each cycle: 120 s at the default
 * period, 30 s at the shortest one. A figure is the ratio of the jobs of
 * all the slots of one kind to those of the other, the first cycle left
 * out; the quartiles of the cycles' ratios are printed beside it.
 *
 * Each figure is one line "bench: <name> ratio=<x> target=<op><y>".
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "simgpu_bench.h"
#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL
/* The reader's tick, and how many of them a slot lasts */
#define TICK_NS		5000000
#define SLOT_TICKS	20
#define SLOT_NS		(SLOT_TICKS * (uint64_t)TICK_NS)
/* 120 s of slots at the default period, 30 s at the shortest one */
#define SLOTS		1200
#define FAST_SLOTS	300
/* Jobs the submitter submits before it waits for them */
#define BATCH		16

enum kind { DISABLED, ENABLED, KINDS };

static uint64_t refclk;

/*
 * One stream of submissions and one reader beside it, which in slot s
 * reads the stream (enabled for the slot) or a pipe, as kind[s] says: the
 * reader publishes the slot it is in, and the submitter counts each batch
 * of jobs in the slot current when the batch completes.
 */
struct slot_run {
	int fd;			/* the submitting client */
	uint32_t queue, sync;
	int stream;		/* its stream, opened disabled */
	char pipe_fdinfo[64];	/* the fdinfo of an empty pipe */
	uint64_t period;	/* the stream's, in ticks */
	unsigned int slots;
	unsigned char kind[SLOTS];
	atomic_int slot;	/* -1 before the first, slots after the last */
	unsigned int jobs[SLOTS];	/* written by the submitter */
	/* Written by the reader: the periodic samples of each enabled span */
	unsigned long delivered, produced, gaps, lost, overflow;
	bool span;
	uint64_t first_ts, last_ts;
};

static uint32_t min_exponent(void)
{
	uint32_t e = 0;

	while (e < 31 && (2ULL << e) * NSEC_PER_SEC <
	       (uint64_t)DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS * refclk)
		e++;
	return e;
}

/* The driver's default: the shortest period of at least a millisecond */
static uint32_t default_exponent(void)
{
	uint32_t e = 0;

	while (e < DRM_SIMGPU_OBSERVATION_MAX_EXPONENT &&
	       (2ULL << e) * 1000 < refclk)
		e++;
	return e;
}

/*
 * A disabled, non-blocking stream of @queue, at the shortest unprivileged
 * period if @fast, at the default one otherwise; as a profiler would open
 * it: a large buffer, woken for many reports
 */
static int open_stream(int fd, uint32_t queue, bool fast)
{
	struct drm_simgpu_observation_set_property p[6] = {
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID,
		  .value = queue },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT,
		  .value = min_exponent() },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_COUNTER, .value = 0 },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE,
		  .value = 1 << 20 },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS,
		  .value = 1024 },
		{ .property = DRM_SIMGPU_OBSERVATION_PROP_DISABLED, .value = 1 },
	};
	struct drm_simgpu_observation_open o = {
		.extensions = (uintptr_t)p,
		.flags = DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK,
	};
	int i;

	for (i = 0; i < 6; i++) {
		p[i].base.name = DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY;
		p[i].base.next_extension = i < 5 ? (uintptr_t)&p[i + 1] : 0;
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
 * Read the stream once, as a profiler does at each wakeup, or (@end,
 * after a DISABLE) until it ends with -EIO, and count its periodic samples
 * into the current span
 */
static void drain(struct slot_run *run, bool end)
{
	static uint8_t buf[256 * 1024];
	struct drm_simgpu_observation_record h;
	struct drm_simgpu_observation_sample s;
	ssize_t len;
	size_t off;

	for (;;) {
		len = read(run->stream, buf, sizeof(buf));
		if (len < 0 && errno == EAGAIN && !end)
			return;
		if (len < 0 && errno == EIO && end)
			break;
		if (len <= 0) {
			perror("read");
			exit(1);
		}
		for (off = 0; off < (size_t)len; off += h.size) {
			memcpy(&h, buf + off, sizeof(h));
			if (h.type != DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE) {
				struct drm_simgpu_observation_lost l;

				memcpy(&l, buf + off + sizeof(h), sizeof(l));
				if (h.type ==
				    DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST)
					run->lost += l.count;
				else
					run->overflow += l.count;
				run->gaps++;
				continue;
			}
			memcpy(&s, buf + off + sizeof(h), sizeof(s));
			if (s.reason != DRM_SIMGPU_OBSERVATION_REASON_PERIODIC)
				continue;
			if (!run->span) {
				run->span = true;
				run->first_ts = s.timestamp;
			}
			run->last_ts = s.timestamp;
			run->delivered++;
		}
		if (!end)
			return;
	}
	/* The span's end: the reports it produced */
	if (run->span)
		run->produced += (run->last_ts - run->first_ts) /
				 run->period + 1;
	run->span = false;
}

static void stream_ioctl(struct slot_run *run, unsigned long cmd)
{
	if (ioctl(run->stream, cmd)) {
		perror("stream ioctl");
		exit(1);
	}
}

static void read_pipe_fdinfo(struct slot_run *run)
{
	char buf[4096];
	int f = open(run->pipe_fdinfo, O_RDONLY);

	if (f < 0 || read(f, buf, sizeof(buf)) <= 0) {
		perror(run->pipe_fdinfo);
		exit(1);
	}
	close(f);
}

/*
 * Tick at 200 Hz on the second CPU through the slots of @arg, a struct
 * slot_run: at the start of a slot, disable the stream if it was enabled
 * (reading it to its end) and enable it for an ENABLED slot; at each
 * tick, read the stream while it is enabled, a pipe's fdinfo otherwise.
 *
 * The pipe reader reads each tick for as long as a tick of the stream's
 * reader takes, on average over its last 64 ticks or so (the guest's
 * speed drifts). What one tick reads past that, or short of it, the next
 * one reads less or more: over the run the two spend the same time.
 */
static void *slot_reader(void *arg)
{
	struct slot_run *run = arg;
	double avg_ns = 0, owed = 0;
	struct timespec next;
	unsigned int tick;

	pin_to_cpu(cpus[1]);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (tick = 0; tick < run->slots * SLOT_TICKS; tick++) {
		unsigned int s = tick / SLOT_TICKS, k = run->kind[s];
		uint64_t t0 = now_ns(), t;

		if (tick % SLOT_TICKS == 0) {
			if (s && run->kind[s - 1] == ENABLED) {
				stream_ioctl(run,
					     DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE);
				drain(run, true);
			}
			if (k == ENABLED)
				stream_ioctl(run,
					     DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE);
			atomic_store(&run->slot, s);
		}
		t = t0;
		if (k == ENABLED) {
			drain(run, false);
			t = now_ns();
			avg_ns += avg_ns ? (t - t0 - avg_ns) / 64 : t - t0;
		} else {
			owed += avg_ns;
			while (t - t0 < owed) {
				read_pipe_fdinfo(run);
				t = now_ns();
			}
			owed -= t - t0;
		}
		/* Absolute: a late tick does not shift the slots after it */
		next.tv_nsec += TICK_NS;
		if (next.tv_nsec >= (long)NSEC_PER_SEC) {
			next.tv_nsec -= NSEC_PER_SEC;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	if (run->kind[run->slots - 1] == ENABLED) {
		stream_ioctl(run, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE);
		drain(run, true);
	}
	atomic_store(&run->slot, run->slots);
	return NULL;
}

/*
 * Jobs of 20 us of BUSY on the queue of @run, BATCH at a time, the
 * out-sync on the last of them waited for, while slot_reader() runs
 * through the slots: count the jobs of each slot.
 */
static void submit_slots(struct slot_run *run)
{
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 20000 };
	unsigned int seed = 1, order[KINDS], c, k;
	int pipe_fds[2], slot, i;
	pthread_t th;

	for (c = 0; c < run->slots / KINDS; c++) {
		shuffle(order, KINDS, &seed);
		for (k = 0; k < KINDS; k++)
			run->kind[c * KINDS + k] = order[k];
	}
	if (pipe(pipe_fds)) {
		perror("pipe");
		exit(1);
	}
	snprintf(run->pipe_fdinfo, sizeof(run->pipe_fdinfo),
		 "/proc/self/fdinfo/%d", pipe_fds[0]);
	pin_to_cpu(cpus[0]);
	atomic_init(&run->slot, -1);
	errno = pthread_create(&th, NULL, slot_reader, run);
	if (errno) {
		perror("pthread_create");
		exit(1);
	}
	/* Jobs done before the first slot or after the last count nowhere */
	while (atomic_load(&run->slot) < (int)run->slots) {
		for (i = 0; i < BATCH; i++)
			if (submit_sync(run->fd, run->queue, &cmd, 1, 0,
					i == BATCH - 1 ? run->sync : 0)) {
				perror("submit");
				exit(1);
			}
		if (syncobj_wait(run->fd, run->sync, INT64_MAX)) {
			perror("wait");
			exit(1);
		}
		slot = atomic_load(&run->slot);
		if (slot >= 0 && slot < (int)run->slots)
			run->jobs[slot] += BATCH;
	}
	pthread_join(th, NULL);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
}

/*
 * Jobs per second of the slots of each kind but those of the first cycle,
 * their ratio, and the quartiles of the cycles' ratios
 */
static double slot_ratio(const struct slot_run *run, double *enabled,
			 double *disabled, double *q1, double *q3)
{
	double sum[KINDS] = {}, ratio[SLOTS / KINDS];
	unsigned int c, s, n = 0;

	for (c = 1; c < run->slots / KINDS; c++) {
		unsigned int j[KINDS];

		for (s = c * KINDS; s < (c + 1) * KINDS; s++) {
			j[run->kind[s]] = run->jobs[s];
			sum[run->kind[s]] += run->jobs[s];
		}
		/* A slot no batch completed in (a stalled guest) has no ratio */
		if (j[DISABLED])
			ratio[n++] = (double)j[ENABLED] / j[DISABLED];
	}
	qsort(ratio, n, sizeof(*ratio), cmp_double);
	*q1 = n ? ratio[n / 4] : 0;
	*q3 = n ? ratio[n - 1 - n / 4] : 0;
	n = run->slots / KINDS - 1;
	*enabled = sum[ENABLED] * NSEC_PER_SEC / (n * (double)SLOT_NS);
	*disabled = sum[DISABLED] * NSEC_PER_SEC / (n * (double)SLOT_NS);
	return sum[DISABLED] ? sum[ENABLED] / sum[DISABLED] : 0;
}

int main(void)
{
	struct drm_simgpu_query_config config = {};
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(config),
		.data = (uintptr_t)&config,
	};
	static struct slot_run run, fast;
	double on, off, q1, q3, ratio;
	bool wq;
	int fd;

	fd = client_open();
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q) ||
	    queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_COPY, 0, &run.queue) ||
	    syncobj_create(fd, &run.sync)) {
		perror("simgpu");
		return 1;
	}
	refclk = config.refclk_hz;
	find_cpus();
	wq = wq_to_cpu(cpus[0]);

	run.fd = fd;
	run.slots = SLOTS;
	run.period = 2ULL << default_exponent();
	run.stream = open_stream(fd, run.queue, false);
	submit_slots(&run);
	close(run.stream);

	fast.fd = fd;
	fast.queue = run.queue;
	fast.sync = run.sync;
	fast.slots = FAST_SLOTS;
	fast.period = 2ULL << min_exponent();
	fast.stream = open_stream(fd, fast.queue, true);
	submit_slots(&fast);
	close(fast.stream);

	if (cpus[0] >= 0)
		printf("# submitter%s on CPU %d, reader on CPU %d",
		       wq ? " and unbound work" : "", cpus[0], cpus[1]);
	else
		printf("# submitter and reader on one CPU");
	printf("; shortest period 2^%u ticks at %llu Hz; slots of %llu ms\n",
	       min_exponent() + 1, (unsigned long long)refclk,
	       (unsigned long long)SLOT_NS / 1000000);

	ratio = slot_ratio(&run, &on, &off, &q1, &q3);
	printf("bench: submit_with_observe_stream ratio=%.3f target=>=0.98",
	       ratio);
	printf(" (%.0f vs %.0f jobs/s with the stream disabled; cycles' quartiles %.3f..%.3f)\n",
	       on, off, q1, q3);
	/* The device model's cost at 75,000 reports a second: no target */
	ratio = slot_ratio(&fast, &on, &off, &q1, &q3);
	printf("# submit_with_fast_observe_stream ratio=%.3f", ratio);
	printf(" (%.0f vs %.0f jobs/s; cycles' quartiles %.3f..%.3f)\n",
	       on, off, q1, q3);
	printf("bench: observe_reports_delivered ratio=%.4f target=>=0.999",
	       fast.produced ? (double)fast.delivered / fast.produced : 0);
	printf(" (%lu of %lu periodic reports; %lu gaps: %lu lost, %lu overflow)\n",
	       fast.delivered, fast.produced, fast.gaps, fast.lost,
	       fast.overflow);
	close(fd);
	return 0;
}
