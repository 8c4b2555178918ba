// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu performance counters through the uAPI: the counter query, exact
 * counts of jobs of known content, isolation between clients on one
 * engine, the order and sequence numbers of in-stream samples, what the
 * sequence number of PERFMON_GET_VALUES means with and without waiting,
 * the privilege and mutual exclusion of the device-wide perfmon, the
 * errors of bad input, and the lifetime of perfmons: destroyed with jobs
 * in flight, their file closed, a hang and engine reset in the middle.
 *
 * Busy ticks are exact: the model counts the reference clock ticks between
 * the tick counts of the virtual times at which a context became and
 * stopped being resident (floor(t * refclk_hz / 10^9)), so a resident time
 * of n ns counts n * refclk_hz / 10^9 ticks exactly when that is a whole
 * number, one tick more or less otherwise. The jobs here are made of whole
 * ticks (multiples of tick_unit ns) where an exact count is checked.
 *
 * Skipped as a whole (KSFT_SKIP) when there is no simgpu device or it has
 * no performance counters.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#include <pwd.h>
#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "simgpu_test.h"

#define PAGE		4096
#define USEC		1000ULL
#define MSEC		1000000ULL
#define SEC		1000000000ULL
#define RCS		DRM_SIMGPU_ENGINE_CLASS_RENDER
#define BCS		DRM_SIMGPU_ENGINE_CLASS_COPY
#define MAX_COUNTERS	32
#define REPORT		sizeof(struct drm_simgpu_sample_report)
#define NOBODY_UID	65534

/* The signals of the spec, by uAPI counter id */
enum {
	BUSY_TICKS, COMMANDS, BATCHES, BYTES_WRITTEN, BYTES_READ,
	CTX_SWITCHES, COPIES, SAMPLES, NUM_SIGNALS
};

static const struct {
	const char *name, *category, *unit;
} signals[NUM_SIGNALS] = {
	[BUSY_TICKS] = { "busy-ticks", "time", "ticks" },
	[COMMANDS] = { "commands", "frontend", "commands" },
	[BATCHES] = { "batches", "frontend", "batches" },
	[BYTES_WRITTEN] = { "bytes-written", "memory", "bytes" },
	[BYTES_READ] = { "bytes-read", "memory", "bytes" },
	[CTX_SWITCHES] = { "context-switches", "frontend", "switches" },
	[COPIES] = { "copies", "memory", "commands" },
	[SAMPLES] = { "samples", "frontend", "commands" },
};

#define NO_COUNTERS	"simgpu has no performance counters (DRM_SIMGPU_QUERY_COUNTERS fails)"

/* --- the uAPI ------------------------------------------------------------------ */

struct counters {
	struct drm_simgpu_query_counters q;
	struct drm_simgpu_counter_info info[MAX_COUNTERS];
};

static int query(int fd, uint32_t type, void *data, uint32_t *size)
{
	struct drm_simgpu_query q = {
		.type = type, .size = *size, .data = (uintptr_t)data,
	};
	int ret = sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q);

	*size = q.size;
	return ret;
}

static int perfmon_create_flags(int fd, const uint32_t *ids, uint32_t n,
				uint32_t flags, uint32_t *id)
{
	struct drm_simgpu_perfmon_create c = {
		.counters = (uintptr_t)ids, .num_counters = n, .flags = flags,
	};
	int ret = sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_CREATE, &c);

	*id = c.id;
	return ret;
}

static int perfmon_create(int fd, const uint32_t *ids, uint32_t n,
			  uint32_t *id)
{
	return perfmon_create_flags(fd, ids, n, 0, id);
}

static int perfmon_destroy(int fd, uint32_t id)
{
	struct drm_simgpu_perfmon_destroy d = { .id = id };

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_DESTROY, &d);
}

/* GET_VALUES; with @wait_ns, DRM_SIMGPU_PERFMON_WAIT until now + @wait_ns */
static int get_values(int fd, uint32_t id, uint64_t *values, uint32_t n,
		      int64_t wait_ns, uint64_t *seqno)
{
	struct drm_simgpu_perfmon_get_values g = {
		.id = id,
		.flags = wait_ns ? DRM_SIMGPU_PERFMON_WAIT : 0,
		.timeout_ns = wait_ns ? (int64_t)now_ns() + wait_ns : 0,
		.values = (uintptr_t)values,
		.num_values = n,
		.seqno = ~0ULL,
	};
	int ret = sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES, &g);

	if (seqno)
		*seqno = g.seqno;
	return ret;
}

static int set_global(int fd, uint32_t flags, uint32_t id)
{
	struct drm_simgpu_perfmon_set_global s = { .flags = flags, .id = id };

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL, &s);
}

static int submit_pm(int fd, uint32_t queue, const struct drm_simgpu_cmd *cmds,
		     uint32_t num_cmds, uint32_t perfmon, uint32_t out_sync)
{
	struct drm_simgpu_sync out = { .handle = out_sync };
	struct drm_simgpu_submit s = {
		.exec_queue_id = queue,
		.num_cmds = num_cmds,
		.cmds = (uintptr_t)cmds,
		.out_syncs = (uintptr_t)&out,
		.num_out_syncs = out_sync ? 1 : 0,
		.perfmon_id = perfmon,
	};

	return sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s);
}

static struct drm_simgpu_cmd busy(uint64_t ns)
{
	return (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_BUSY, .value = ns };
}

static struct drm_simgpu_cmd idle(uint64_t ns)
{
	return (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_IDLE, .value = ns };
}

static struct drm_simgpu_cmd write32(uint32_t bo, uint64_t offset,
				     uint32_t v)
{
	return (struct drm_simgpu_cmd){
		.op = DRM_SIMGPU_CMD_WRITE, .handle = bo, .offset = offset,
		.value = v,
	};
}

static struct drm_simgpu_cmd copy(uint32_t bo, uint64_t dst, uint64_t src,
				  uint64_t bytes)
{
	return (struct drm_simgpu_cmd){
		.op = DRM_SIMGPU_CMD_COPY, .handle = bo, .offset = dst,
		.src_offset = src, .value = bytes,
	};
}

static struct drm_simgpu_cmd sample(uint32_t bo, uint64_t offset,
				    uint64_t tag)
{
	return (struct drm_simgpu_cmd){
		.op = DRM_SIMGPU_CMD_SAMPLE, .handle = bo, .offset = offset,
		.value = tag,
	};
}

/* --- ticks ----------------------------------------------------------------- */

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Ticks in @ns at @refclk, rounded down */
static uint64_t ticks_lo(uint64_t refclk, uint64_t ns)
{
	return (__uint128_t)ns * refclk / SEC;
}

/* ... rounded up */
static uint64_t ticks_hi(uint64_t refclk, uint64_t ns)
{
	return ((__uint128_t)ns * refclk + SEC - 1) / SEC;
}

/* --- the fixture ----------------------------------------------------------- */

FIXTURE(perf) {
	int fd;
	uint64_t refclk;
	/* the shortest time that is a whole number of ticks */
	uint64_t tick_unit;
	struct counters c;
};

FIXTURE_SETUP(perf)
{
	struct drm_simgpu_query_config config = {};
	uint32_t size = sizeof(config);

	self->fd = open_simgpu();
	if (self->fd == -ENODEV)
		SKIP(return, SIMGPU_NO_DEVICE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, query(self->fd, DRM_SIMGPU_QUERY_CONFIG, &config, &size));
	self->refclk = config.refclk_hz;
	ASSERT_LT(0, self->refclk);
	self->tick_unit = SEC / gcd64(self->refclk, SEC);

	size = sizeof(self->c);
	if (query(self->fd, DRM_SIMGPU_QUERY_COUNTERS, &self->c, &size))
		SKIP(return, NO_COUNTERS);
}

FIXTURE_TEARDOWN(perf)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * @ns rounded up to whole ticks; as is when whole ticks are longer than a
 * millisecond (an odd refclk_hz), where counts are checked to a tick.
 */
static uint64_t whole(const FIXTURE_DATA(perf) * self, uint64_t ns)
{
	uint64_t u = self->tick_unit;

	if (u > MSEC)
		return ns;
	return (ns + u - 1) / u * u;
}

/* A buffer and its mapping */
struct buf {
	uint32_t handle;
	uint8_t *map;
	size_t size;
};

static int buf_new(int fd, size_t size, struct buf *b)
{
	int ret = bo_create(fd, size, DRM_SIMGPU_REGION_SYSTEM, &b->handle);

	if (ret)
		return ret;
	b->size = size;
	b->map = bo_mmap(fd, b->handle, size);
	if (!b->map)
		return -ENOMEM;
	/* Reports no SAMPLE wrote are all ones */
	memset(b->map, 0xff, size);
	return 0;
}

static const struct drm_simgpu_sample_report *report(const struct buf *b,
						     unsigned int i)
{
	return (const void *)(b->map + i * REPORT);
}

/* Ticks of the busy-ticks count @got for resident segments of @ns each */
#define ASSERT_TICKS(got, ns) do {					\
	uint64_t __got = (got), __ns = (ns);				\
									\
	ASSERT_LE(ticks_lo(self->refclk, __ns), __got);			\
	ASSERT_GE(ticks_hi(self->refclk, __ns), __got);			\
} while (0)

/* --- tests ----------------------------------------------------------------- */

/* The counters: the eight signals of the spec, four slots, 64-byte reports */
TEST_F(perf, query_counters)
{
	uint32_t size = 0, i, n;
	struct counters c;

	ASSERT_EQ(0, query(self->fd, DRM_SIMGPU_QUERY_COUNTERS, NULL, &size));
	n = self->c.q.num_counters;
	ASSERT_LE(NUM_SIGNALS, n);
	ASSERT_GE(MAX_COUNTERS, n);
	ASSERT_EQ(sizeof(c.q) + n * sizeof(c.info[0]), size);
	ASSERT_EQ(4, self->c.q.num_slots);
	ASSERT_EQ(64, self->c.q.report_size);
	ASSERT_EQ(REPORT, self->c.q.report_size);
	ASSERT_EQ(0, self->c.q.pad);

	for (i = 0; i < n; i++) {
		const struct drm_simgpu_counter_info *ci = &self->c.info[i];

		ASSERT_EQ(i, ci->id);
		ASSERT_EQ(0, ci->pad);
		ASSERT_NE(NULL, memchr(ci->name, 0, sizeof(ci->name)));
		ASSERT_NE(NULL, memchr(ci->category, 0, sizeof(ci->category)));
		ASSERT_NE(NULL, memchr(ci->unit, 0, sizeof(ci->unit)));
		ASSERT_NE(NULL, memchr(ci->description, 0,
				       sizeof(ci->description)));
		ASSERT_LT(10, strlen(ci->description));
		if (i >= NUM_SIGNALS)
			continue;
		ASSERT_STREQ(signals[i].name, ci->name);
		ASSERT_STREQ(signals[i].category, ci->category);
		ASSERT_STREQ(signals[i].unit, ci->unit);
	}

	/* One byte short: -EINVAL, nothing written */
	memset(&c, 0xcc, sizeof(c));
	size--;
	ASSERT_EQ(-EINVAL, query(self->fd, DRM_SIMGPU_QUERY_COUNTERS, &c,
				 &size));
	ASSERT_EQ(0xcccccccc, c.q.num_counters);
}

/*
 * Every counter of a job of known content, exactly, with two perfmons
 * that count all eight signals between them; then the reports of its
 * three SAMPLEs, a perfmon of two counters and a job without perfmon.
 *
 * The job, in a buffer of reports (page 0), a COPY source (1-2), a COPY
 * target (3-4) and WRITE targets (5):
 *   SAMPLE, BUSY 1 ms, COPY 4096 aligned (one model COPY), COPY 4096
 *   unaligned (split at the 4 KiB boundaries of source and target: three),
 *   5 x WRITE, SAMPLE, BUSY pad, IDLE 100 us, BUSY 200 us, SAMPLE
 * with the pad making the time before the IDLE whole ticks.
 */
TEST_F(perf, exact)
{
	int fd = self->fd;
	uint64_t seg1 = MSEC + 2 * PAGE, pad, seg2 = whole(self, 200 * USEC);
	const uint32_t ids[2][4] = {
		{ BUSY_TICKS, COMMANDS, BATCHES, BYTES_WRITTEN },
		{ BYTES_READ, CTX_SWITCHES, COPIES, SAMPLES },
	};
	const uint32_t two[2] = { SAMPLES, BATCHES };
	uint64_t expect[NUM_SIGNALS] = {
		[COMMANDS] = 16,	/* END excluded, the last SAMPLE counted */
		[BATCHES] = 1,
		[BYTES_WRITTEN] = 2 * PAGE + 5 * 4,
		[BYTES_READ] = 2 * PAGE,
		[CTX_SWITCHES] = 2,	/* in at the start, in after the IDLE */
		[COPIES] = 4,
		[SAMPLES] = 3,
	};
	struct drm_simgpu_cmd cmds[16];
	uint32_t pm[3], q, sync, i, k, n = 0;
	uint64_t values[4], seqno;
	struct buf b;

	pad = whole(self, seg1) - seg1;
	if (!pad)
		pad = whole(self, 1);
	seg1 += pad;
	expect[BUSY_TICKS] = ticks_lo(self->refclk, seg1 + seg2);
	if (self->tick_unit <= MSEC)
		ASSERT_EQ(ticks_hi(self->refclk, seg1 + seg2),
			  expect[BUSY_TICKS]);

	ASSERT_EQ(0, buf_new(fd, 6 * PAGE, &b));
	for (i = 0; i < 2 * PAGE; i++)
		b.map[PAGE + i] = i * 7 + 3;
	cmds[n++] = sample(b.handle, 0, 100);
	cmds[n++] = busy(MSEC);
	cmds[n++] = copy(b.handle, 3 * PAGE, PAGE, PAGE);
	cmds[n++] = copy(b.handle, 3 * PAGE + 3072, PAGE + 2048, PAGE);
	for (i = 0; i < 5; i++)
		cmds[n++] = write32(b.handle, 5 * PAGE + 4 * i, 0x1000 + i);
	cmds[n++] = sample(b.handle, REPORT, 101);
	cmds[n++] = busy(pad);
	cmds[n++] = idle(100 * USEC);
	cmds[n++] = busy(seg2);
	cmds[n++] = sample(b.handle, 2 * REPORT, 102);
	ASSERT_EQ(14, n);

	ASSERT_EQ(0, syncobj_create(fd, &sync));
	for (k = 0; k < 2; k++) {
		const struct drm_simgpu_sample_report *r = report(&b, 0);

		ASSERT_EQ(0, perfmon_create(fd, ids[k], 4, &pm[k]));
		ASSERT_NE(0, pm[k]);
		/* A new queue: its context is switched in for the job */
		ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));
		memset(b.map, 0xff, PAGE);
		ASSERT_EQ(0, submit_pm(fd, q, cmds, n, pm[k], sync));
		ASSERT_EQ(0, get_values(fd, pm[k], values, 4, 10 * SEC,
					&seqno));
		ASSERT_EQ(0, syncobj_wait(fd, sync, now_ns() + 10 * SEC));
		ASSERT_EQ(1, seqno);
		for (i = 0; i < 4; i++) {
			const char *name = signals[ids[k][i]].name;

			ASSERT_EQ(expect[ids[k][i]], values[i]) {
				TH_LOG("counter %s", name);
			}
		}

		/* The reports: seqnos 1 to 3 of the new queue, in order */
		for (i = 0; i < 3; i++) {
			ASSERT_EQ(i + 1, r[i].seqno);
			ASSERT_EQ(100 + i, r[i].tag);
			ASSERT_EQ(RCS << 16 | 0, r[i].engine);
			ASSERT_EQ(0, r[i].reserved);
		}
		for (i = 0; i < 4; i++) {
			uint32_t sig = ids[k][i];
			/* Counts at each SAMPLE, which does not count itself */
			uint64_t at[3][NUM_SIGNALS] = {
				{ [BATCHES] = 1, [CTX_SWITCHES] = 1 },
				{ [COMMANDS] = 11, [BATCHES] = 1,
				  [BYTES_WRITTEN] = expect[BYTES_WRITTEN],
				  [BYTES_READ] = expect[BYTES_READ],
				  [CTX_SWITCHES] = 1, [COPIES] = 4,
				  [SAMPLES] = 1 },
				{ [COMMANDS] = 15, [BATCHES] = 1,
				  [BYTES_WRITTEN] = expect[BYTES_WRITTEN],
				  [BYTES_READ] = expect[BYTES_READ],
				  [CTX_SWITCHES] = 2, [COPIES] = 4,
				  [SAMPLES] = 2,
				  [BUSY_TICKS] = expect[BUSY_TICKS] },
			};

			if (sig == BUSY_TICKS) {
				ASSERT_EQ(0, r[0].counters[i]);
				ASSERT_TICKS(r[1].counters[i], MSEC + 2 * PAGE);
				ASSERT_EQ(at[2][sig], r[2].counters[i]);
				/* They advance as the context timestamp */
				ASSERT_EQ((uint32_t)(r[2].counters[i] -
						     r[0].counters[i]),
					  r[2].ctx_timestamp -
					  r[0].ctx_timestamp);
				continue;
			}
			ASSERT_EQ(at[0][sig], r[0].counters[i]);
			ASSERT_EQ(at[1][sig], r[1].counters[i]);
			ASSERT_EQ(at[2][sig], r[2].counters[i]);
		}
		/* The GPU timestamp counts the IDLE too */
		ASSERT_TICKS(r[2].gpu_timestamp - r[1].gpu_timestamp,
			     pad + 100 * USEC + seg2);
		ASSERT_EQ(0, queue_destroy(fd, q));
	}

	/* The copies moved the bytes: aligned, then the unaligned on top */
	ASSERT_EQ(0, memcmp(b.map + 3 * PAGE, b.map + PAGE, 3072));
	ASSERT_EQ(0, memcmp(b.map + 3 * PAGE + 3072, b.map + PAGE + 2048,
			    PAGE));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0x1000 + i, ((uint32_t *)(b.map + 5 * PAGE))[i]);

	/* Two counters: the report's other two are 0 */
	ASSERT_EQ(0, perfmon_create(fd, two, 2, &pm[2]));
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));
	memset(b.map, 0xff, PAGE);
	ASSERT_EQ(0, submit_pm(fd, q, cmds, n, pm[2], sync));
	ASSERT_EQ(0, get_values(fd, pm[2], values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(0, syncobj_wait(fd, sync, now_ns() + 10 * SEC));
	ASSERT_EQ(1, seqno);
	ASSERT_EQ(3, values[0]);
	ASSERT_EQ(1, values[1]);
	ASSERT_EQ(2, report(&b, 2)->counters[0]);
	ASSERT_EQ(1, report(&b, 2)->counters[1]);
	ASSERT_EQ(0, report(&b, 2)->counters[2]);
	ASSERT_EQ(0, report(&b, 2)->counters[3]);

	/* No perfmon: reports of zeros, the queue's seqnos go on */
	memset(b.map, 0xff, PAGE);
	ASSERT_EQ(0, submit_pm(fd, q, cmds, n, 0, sync));
	ASSERT_EQ(0, syncobj_wait(fd, sync, now_ns() + 10 * SEC));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(4 + i, report(&b, i)->seqno);
		for (k = 0; k < 4; k++)
			ASSERT_EQ(0, report(&b, i)->counters[k]);
	}
	/* ... and the perfmon did not count that job */
	ASSERT_EQ(0, get_values(fd, pm[2], values, 2, 0, &seqno));
	ASSERT_EQ(1, seqno);
	ASSERT_EQ(3, values[0]);

	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, perfmon_destroy(fd, pm[k]));
	ASSERT_EQ(0, queue_destroy(fd, q));
	munmap(b.map, b.size);
	ASSERT_EQ(0, bo_close(fd, b.handle));
}

/*
 * Samples in stream order: sequence numbers increase by one per SAMPLE of
 * the queue, across its jobs (the driver's own end-of-job sample takes
 * none), each queue on its own; a SAMPLE between two BUSY commands counts
 * the first and not the second.
 */
TEST_F(perf, ordering)
{
	int fd = self->fd;
	const uint32_t ids[4] = { BUSY_TICKS, COMMANDS, SAMPLES, BATCHES };
	uint64_t t1 = whole(self, MSEC), t2 = whole(self, 2 * MSEC);
	struct drm_simgpu_cmd cmds[2][5];
	uint32_t pm, q[2], sync[2], j, i, k;
	uint64_t values[4], seqno;
	struct buf b;

	ASSERT_EQ(0, buf_new(fd, 2 * PAGE, &b));
	ASSERT_EQ(0, perfmon_create(fd, ids, 4, &pm));
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q[0]));
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q[1]));
	ASSERT_EQ(0, syncobj_create(fd, &sync[0]));
	ASSERT_EQ(0, syncobj_create(fd, &sync[1]));

	/* Three jobs on each queue, interleaved; queue k's reports in page k */
	for (j = 0; j < 3; j++) {
		for (k = 0; k < 2; k++) {
			uint64_t base = k * PAGE + j * 3 * REPORT;

			cmds[k][0] = sample(b.handle, base, 10 * j);
			cmds[k][1] = busy(t1);
			cmds[k][2] = sample(b.handle, base + REPORT, 10 * j + 1);
			cmds[k][3] = busy(t2);
			cmds[k][4] = sample(b.handle, base + 2 * REPORT,
					    10 * j + 2);
			ASSERT_EQ(0, submit_pm(fd, q[k], cmds[k], 5, pm,
					       sync[k]));
		}
	}
	ASSERT_EQ(0, get_values(fd, pm, values, 4, 20 * SEC, &seqno));
	ASSERT_EQ(0, syncobj_wait(fd, sync[0], now_ns() + 10 * SEC));
	ASSERT_EQ(0, syncobj_wait(fd, sync[1], now_ns() + 10 * SEC));
	ASSERT_EQ(6, seqno);
	ASSERT_EQ(6, values[3]);
	ASSERT_EQ(6 * 3, values[2]);
	ASSERT_EQ(6 * 5, values[1]);
	ASSERT_TICKS(values[0], 6 * (t1 + t2));

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 9; i++) {
			const struct drm_simgpu_sample_report *r =
				(const void *)(b.map + k * PAGE + i * REPORT);

			ASSERT_EQ(i + 1, r->seqno);
			ASSERT_EQ(10 * (i / 3) + i % 3, r->tag);
			if (i)
				ASSERT_LE(r[-1].gpu_timestamp,
					  r->gpu_timestamp);
			switch (i % 3) {
			case 0:
				ASSERT_EQ(0, r->counters[0]);
				ASSERT_EQ(0, r->counters[1]);
				ASSERT_EQ(0, r->counters[2]);
				break;
			case 1:
				/* The first BUSY, not the second */
				ASSERT_TICKS(r->counters[0], t1);
				ASSERT_EQ(2, r->counters[1]);
				ASSERT_EQ(1, r->counters[2]);
				ASSERT_TICKS(r->gpu_timestamp -
					     r[-1].gpu_timestamp, t1);
				break;
			case 2:
				ASSERT_TICKS(r->counters[0] - r[-1].counters[0],
					     t2);
				ASSERT_EQ(4, r->counters[1]);
				ASSERT_EQ(2, r->counters[2]);
				ASSERT_TICKS(r->gpu_timestamp -
					     r[-1].gpu_timestamp, t2);
				break;
			}
			ASSERT_EQ(1, r->counters[3]);
		}
	}

	ASSERT_EQ(0, perfmon_destroy(fd, pm));
	munmap(b.map, b.size);
	ASSERT_EQ(0, bo_close(fd, b.handle));
}

/*
 * Two clients, one engine, jobs interleaved, each with its own perfmon:
 * each perfmon counts exactly its own client's jobs.
 */
TEST_F(perf, isolation)
{
	const uint32_t ids[4] = { BUSY_TICKS, COMMANDS, BYTES_WRITTEN,
				  BATCHES };
	const uint32_t writes[2] = { 2, 7 };
	uint64_t t[2] = { whole(self, MSEC), whole(self, 3 * MSEC) };
	struct drm_simgpu_cmd cmds[2][16];
	uint32_t pm[2], q[2], sync[2], n[2], i, j, k;
	uint64_t values[4], seqno;
	struct buf b[2];
	int fd[2];

	fd[0] = self->fd;
	fd[1] = client_open();
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, buf_new(fd[k], 2 * PAGE, &b[k]));
		ASSERT_EQ(0, perfmon_create(fd[k], ids, 4, &pm[k]));
		ASSERT_EQ(0, queue_create(fd[k], RCS, 0, &q[k]));
		ASSERT_EQ(0, syncobj_create(fd[k], &sync[k]));
	}
	for (j = 0; j < 4; j++) {
		for (k = 0; k < 2; k++) {
			n[k] = 0;
			cmds[k][n[k]++] = busy(t[k]);
			for (i = 0; i < writes[k]; i++)
				cmds[k][n[k]++] = write32(b[k].handle,
							  PAGE + 4 * i, j);
			cmds[k][n[k]++] = sample(b[k].handle, j * REPORT, j);
			ASSERT_EQ(0, submit_pm(fd[k], q[k], cmds[k], n[k],
					       pm[k], sync[k]));
		}
	}
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, get_values(fd[k], pm[k], values, 4, 20 * SEC,
					&seqno));
		ASSERT_EQ(0, syncobj_wait(fd[k], sync[k],
					  now_ns() + 10 * SEC));
		ASSERT_EQ(4, seqno);
		ASSERT_TICKS(values[0], 4 * t[k]);
		ASSERT_EQ(4 * (writes[k] + 2), values[1]);
		ASSERT_EQ(4 * 4 * writes[k], values[2]);
		ASSERT_EQ(4, values[3]);
		for (j = 0; j < 4; j++) {
			const struct drm_simgpu_sample_report *r =
				report(&b[k], j);

			ASSERT_EQ(j + 1, r->seqno);
			ASSERT_TICKS(r->counters[0], t[k]);
			ASSERT_EQ(writes[k] + 1, r->counters[1]);
			ASSERT_EQ(4 * writes[k], r->counters[2]);
			ASSERT_EQ(1, r->counters[3]);
		}
		ASSERT_EQ(0, perfmon_destroy(fd[k], pm[k]));
		munmap(b[k].map, b[k].size);
	}
	close(fd[1]);
}

/*
 * GET_VALUES: without WAIT the values count exactly the jobs 1 to the
 * returned seqno, even while a later job retired first; with WAIT every
 * job submitted before the call is in, or -ETIME and nothing written.
 */
TEST_F_TIMEOUT(perf, get_values, 60)
{
	int fd = self->fd;
	const uint32_t ids[2] = { BATCHES, BUSY_TICKS };
	uint64_t t = whole(self, 30 * MSEC), slow = whole(self, 300 * MSEC);
	struct drm_simgpu_cmd cmd = busy(t);
	uint32_t pm, q, q2, sync[3], j;
	uint64_t values[2], seqno, last = 0;
	bool early = false;

	ASSERT_EQ(0, perfmon_create(fd, ids, 2, &pm));
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));
	for (j = 0; j < 3; j++)
		ASSERT_EQ(0, syncobj_create(fd, &sync[j]));

	/* Nothing submitted: seqno 0, zeros, at once even when waiting */
	values[0] = ~0ULL;
	values[1] = ~0ULL;
	ASSERT_EQ(0, get_values(fd, pm, values, 2, 0, &seqno));
	ASSERT_EQ(0, seqno);
	ASSERT_EQ(0, values[0]);
	ASSERT_EQ(0, values[1]);
	ASSERT_EQ(0, get_values(fd, pm, values, 2, 1, &seqno));
	ASSERT_EQ(0, seqno);

	/* Three jobs: whatever the seqno says is what the values count */
	for (j = 0; j < 3; j++)
		ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, 0));
	do {
		ASSERT_EQ(0, get_values(fd, pm, values, 2, 0, &seqno));
		ASSERT_LE(last, seqno);
		ASSERT_GE(3, seqno);
		ASSERT_EQ(seqno, values[0]);
		ASSERT_TICKS(values[1], seqno * t);
		early |= seqno < 3;
		last = seqno;
		usleep(5000);
	} while (seqno < 3);
	TH_LOG("read before the last job was in: %s", early ? "yes" : "no");
	ASSERT_EQ(0, get_values(fd, pm, values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(3, seqno);

	/* WAIT includes the last job submitted */
	ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, 0));
	ASSERT_EQ(0, get_values(fd, pm, values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(4, seqno);
	ASSERT_EQ(4, values[0]);
	ASSERT_TICKS(values[1], 4 * t);

	/* A deadline that passes first: -ETIME, the values not written */
	cmd = busy(slow);
	ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, sync[0]));
	values[0] = 0xdead;
	values[1] = 0xdead;
	seqno = 0;
	ASSERT_EQ(-ETIME, get_values(fd, pm, values, 2, 1000, NULL));
	ASSERT_EQ(0xdead, values[0]);
	ASSERT_EQ(0xdead, values[1]);
	ASSERT_EQ(0, get_values(fd, pm, values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(5, seqno);
	ASSERT_TICKS(values[1], 4 * t + slow);

	/*
	 * Job 6 runs long on rcs, job 7 short on bcs: 7 completes first
	 * but is not in the values before 6 is.
	 */
	ASSERT_EQ(0, queue_create(fd, BCS, DRM_SIMGPU_ENGINE_INSTANCE_ANY,
				  &q2));
	ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, sync[1]));
	cmd = busy(t);
	ASSERT_EQ(0, submit_pm(fd, q2, &cmd, 1, pm, sync[2]));
	ASSERT_EQ(0, syncobj_wait(fd, sync[2], now_ns() + 10 * SEC));
	ASSERT_EQ(0, get_values(fd, pm, values, 2, 0, &seqno));
	if (syncobj_wait(fd, sync[1], 0) == -ETIME) {
		ASSERT_EQ(5, seqno);
		ASSERT_EQ(5, values[0]);
	} else {
		TH_LOG("job 6 was done before it could be checked");
	}
	ASSERT_EQ(0, get_values(fd, pm, values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(7, seqno);
	ASSERT_EQ(7, values[0]);
	ASSERT_TICKS(values[1], 5 * t + 2 * slow);

	ASSERT_EQ(0, perfmon_destroy(fd, pm));
	ASSERT_EQ(0, queue_destroy(fd, q));
	ASSERT_EQ(0, queue_destroy(fd, q2));
}

/* The uid and gid of nobody */
static void nobody(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam("nobody");

	*uid = pw ? pw->pw_uid : NOBODY_UID;
	*gid = pw ? pw->pw_gid : NOBODY_UID;
}

/*
 * In a child that dropped root for nobody, on the parent's file: a
 * per-job perfmon works, the device-wide mode is -EACCES. The exit status
 * says which step failed.
 */
static int unprivileged(int fd, uint32_t queue)
{
	const uint32_t ids[1] = { BATCHES };
	struct drm_simgpu_cmd cmd = busy(MSEC);
	uint64_t value, seqno;
	uint32_t pm;
	uid_t uid;
	gid_t gid;
	int ret;

	nobody(&uid, &gid);
	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return 10;
	if (geteuid() != uid || !geteuid())
		return 11;
	if (perfmon_create(fd, ids, 1, &pm))
		return 12;
	if (set_global(fd, 0, pm) != -EACCES)
		return 13;
	if (submit_pm(fd, queue, &cmd, 1, pm, 0))
		return 14;
	if (get_values(fd, pm, &value, 1, 10 * SEC, &seqno) ||
	    seqno != 1 || value != 1)
		return 15;
	/* Nor clearing, which is not its own to clear anyway */
	ret = set_global(fd, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0);
	if (ret != -EACCES && ret != -EBUSY)
		return 16;
	if (perfmon_destroy(fd, pm))
		return 17;
	return 0;
}

/*
 * The device-wide perfmon: -EACCES for nobody; as root it counts the jobs
 * of every file, and it and per-job perfmons exclude each other both ways
 * with -EBUSY.
 */
TEST_F_TIMEOUT(perf, global, 60)
{
	const uint32_t ids[2] = { BATCHES, SAMPLES };
	struct drm_simgpu_cmd cmds[2];
	uint32_t pm1, pm2, q1, q2, sync;
	uint64_t values[2], seqno;
	struct buf b;
	int fd1 = self->fd, fd2 = client_open(), status, ret, i;
	pid_t pid;

	ASSERT_EQ(0, queue_create(fd1, RCS, 0, &q1));
	ASSERT_EQ(0, queue_create(fd2, RCS, 0, &q2));
	ASSERT_EQ(0, buf_new(fd2, PAGE, &b));

	/* nobody */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(unprivileged(fd1, q1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* root: fd1's perfmon is the device-wide one */
	ASSERT_EQ(0, perfmon_create(fd1, ids, 2, &pm1));
	ASSERT_EQ(0, perfmon_create(fd2, ids, 2, &pm2));
	ASSERT_EQ(0, set_global(fd1, 0, pm1));
	ASSERT_EQ(-EBUSY, set_global(fd2, 0, pm2));
	ASSERT_EQ(-EBUSY, set_global(fd2, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0));
	ASSERT_EQ(-EINVAL, set_global(fd1, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL,
				      pm1));

	/* Naming a perfmon is -EBUSY; every job of every file counts */
	cmds[0] = busy(MSEC);
	cmds[1] = sample(b.handle, 0, 7);
	ASSERT_EQ(-EBUSY, submit_pm(fd1, q1, cmds, 1, pm1, 0));
	ASSERT_EQ(-EBUSY, submit_pm(fd2, q2, cmds, 1, pm2, 0));
	ASSERT_EQ(0, submit_pm(fd1, q1, cmds, 1, 0, 0));
	ASSERT_EQ(0, submit_pm(fd2, q2, cmds, 2, 0, 0));
	ASSERT_EQ(0, wait_bo(fd2, b.handle, now_ns() + 10 * SEC));
	ASSERT_EQ(0, get_values(fd1, pm1, values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(2, seqno);
	ASSERT_EQ(2, values[0]);
	ASSERT_EQ(1, values[1]);
	/* The other file's report counts with the device-wide perfmon */
	ASSERT_EQ(1, report(&b, 0)->counters[0]);
	ASSERT_EQ(0, report(&b, 0)->counters[1]);
	/* ... whose values only its own file reads */
	ASSERT_EQ(0, get_values(fd2, pm2, values, 2, 0, &seqno));
	ASSERT_EQ(0, seqno);
	ASSERT_EQ(0, values[0]);

	ASSERT_EQ(0, set_global(fd1, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0));
	ASSERT_EQ(-EBUSY, set_global(fd1, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0));

	/* A per-job perfmon in flight: -EBUSY, until its job is added */
	cmds[0] = busy(200 * MSEC);
	ASSERT_EQ(0, syncobj_create(fd2, &sync));
	ASSERT_EQ(0, submit_pm(fd2, q2, cmds, 1, pm2, sync));
	ASSERT_EQ(-EBUSY, set_global(fd1, 0, pm1));
	ASSERT_EQ(0, get_values(fd2, pm2, values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(1, seqno);
	for (i = 0; i < 100; i++) {
		ret = set_global(fd1, 0, pm1);
		if (ret != -EBUSY)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, ret);
	/* Destroying the device-wide perfmon turns the mode off */
	ASSERT_EQ(0, perfmon_destroy(fd1, pm1));
	ASSERT_EQ(-EBUSY, set_global(fd1, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0));
	ASSERT_EQ(0, set_global(fd2, 0, pm2));
	ASSERT_EQ(0, set_global(fd2, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0));

	ASSERT_EQ(0, perfmon_destroy(fd2, pm2));
	munmap(b.map, b.size);
	close(fd2);
}

/* Every new ioctl and command with bad arguments: the documented errno */
TEST_F(perf, bad_input)
{
	int fd = self->fd, fd2 = client_open();
	const uint32_t ok[4] = { BUSY_TICKS, COMMANDS, BATCHES, SAMPLES };
	uint32_t ids[5] = { 0, 1, 2, 3, 4 };
	uint32_t pms[DRM_SIMGPU_MAX_PERFMONS], pm, other, q, i, sz;
	struct drm_simgpu_perfmon_destroy d = {};
	struct drm_simgpu_perfmon_get_values g = {};
	struct drm_simgpu_submit s = {};
	struct drm_simgpu_cmd cmd;
	uint64_t values[5], seqno;
	struct buf b;
	static const struct {
		uint64_t dst, src, bytes;
	} bad_copies[] = {
		{ 2 * PAGE, 0, 0 },		/* empty */
		{ 2 * PAGE, 0, 6 },		/* length not a multiple of 4 */
		{ 2 * PAGE, 0, PAGE + 4 },	/* too long */
		{ 2 * PAGE, 2, 64 },		/* source not aligned */
		{ 2 * PAGE + 2, 0, 64 },	/* target not aligned */
		{ 2 * PAGE, 4 * PAGE - 60, 64 },/* source past the end */
		{ 2 * PAGE, 1ULL << 32, 64 },	/* source 4 GiB past it */
		{ 2 * PAGE, 0, (1ULL << 32) + 64 },/* length over 32 bits */
		{ 4 * PAGE - 60, 0, 64 },	/* target past the end */
		{ 4 * PAGE, 0, 64 },		/* target after the end */
		{ 64, 0, 128 },			/* overlap */
		{ 0, 64, 128 },			/* overlap */
		{ 0, 0, 64 },			/* the same range */
	};
	static const struct {
		uint64_t offset, tag;
	} bad_samples[] = {
		{ 32, 0 },			/* not report aligned */
		{ 4, 0 },
		{ 4 * PAGE, 0 },		/* after the end */
		{ 1ULL << 40, 0 },		/* far after the end */
		{ 0, 1ULL << 32 },		/* tag over 32 bits */
	};

	ASSERT_EQ(0, buf_new(fd, 4 * PAGE, &b));
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));

	/* QUERY_COUNTERS one byte short */
	sz = 0;
	ASSERT_EQ(0, query(fd, DRM_SIMGPU_QUERY_COUNTERS, NULL, &sz));
	sz--;
	ASSERT_EQ(-EINVAL, query(fd, DRM_SIMGPU_QUERY_COUNTERS, values, &sz));

	/* PERFMON_CREATE */
	ASSERT_EQ(-EINVAL, perfmon_create(fd, ids, 0, &pm));
	ASSERT_EQ(-EINVAL, perfmon_create(fd, ids, 5, &pm));
	ASSERT_EQ(-EINVAL, perfmon_create(fd, ids, ~0u, &pm));
	ids[0] = self->c.q.num_counters;
	ASSERT_EQ(-EINVAL, perfmon_create(fd, ids, 1, &pm));
	ids[0] = ~0u;
	ASSERT_EQ(-EINVAL, perfmon_create(fd, ids, 1, &pm));
	ids[0] = 3;
	ASSERT_EQ(-EINVAL, perfmon_create(fd, ids, 4, &pm));
	ASSERT_EQ(-EFAULT, perfmon_create(fd, NULL, 2, &pm));
	ASSERT_EQ(-EFAULT, perfmon_create(fd, (uint32_t *)8, 2, &pm));
	/* No flag is defined */
	ASSERT_EQ(-EINVAL, perfmon_create_flags(fd, ok, 1, 1, &pm));
	ASSERT_EQ(-EINVAL, perfmon_create_flags(fd, ok, 1, 1u << 31, &pm));

	/* DRM_SIMGPU_MAX_PERFMONS per file, then -ENOSPC */
	for (i = 0; i < DRM_SIMGPU_MAX_PERFMONS; i++) {
		ASSERT_EQ(0, perfmon_create(fd, ok, 1 + i % 4, &pms[i]));
		ASSERT_NE(0, pms[i]);
	}
	ASSERT_EQ(-ENOSPC, perfmon_create(fd, ok, 1, &pm));
	ASSERT_EQ(0, perfmon_destroy(fd, pms[7]));
	ASSERT_EQ(0, perfmon_create(fd, ok, 4, &pms[7]));
	ASSERT_EQ(-ENOSPC, perfmon_create(fd, ok, 1, &pm));
	for (i = 1; i < DRM_SIMGPU_MAX_PERFMONS; i++)
		ASSERT_EQ(0, perfmon_destroy(fd, pms[i]));
	pm = pms[0];	/* one counter */
	ASSERT_EQ(0, perfmon_create(fd2, ok, 4, &other));

	/* PERFMON_DESTROY */
	ASSERT_EQ(-ENOENT, perfmon_destroy(fd, 0));
	ASSERT_EQ(-ENOENT, perfmon_destroy(fd, pms[1]));
	ASSERT_EQ(-ENOENT, perfmon_destroy(fd, ~0u));
	d.id = pm;
	d.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_DESTROY, &d));

	/* PERFMON_GET_VALUES */
	ASSERT_EQ(-ENOENT, get_values(fd, 0, values, 1, 0, NULL));
	ASSERT_EQ(-ENOENT, get_values(fd, pms[1], values, 1, 0, NULL));
	ASSERT_EQ(-EINVAL, get_values(fd, pm, values, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, get_values(fd, pm, values, 2, 0, NULL));
	ASSERT_EQ(-EINVAL, get_values(fd, pm, values, ~0u, 0, NULL));
	ASSERT_EQ(-EFAULT, get_values(fd, pm, NULL, 1, 0, NULL));
	ASSERT_EQ(-EFAULT, get_values(fd, pm, (uint64_t *)8, 1, SEC, NULL));
	g.id = pm;
	g.values = (uintptr_t)values;
	g.num_values = 1;
	g.flags = 2;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES,
				    &g));
	g.flags = 0;
	g.timeout_ns = now_ns() + SEC;	/* without WAIT: MBZ */
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES,
				    &g));
	g.timeout_ns = 0;
	g.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES,
				    &g));
	g.pad = 0;
	ASSERT_EQ(0, sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES, &g));

	/* PERFMON_SET_GLOBAL */
	ASSERT_EQ(-EINVAL, set_global(fd, 2, pm));
	ASSERT_EQ(-EINVAL, set_global(fd, ~0u, pm));
	ASSERT_EQ(-EINVAL, set_global(fd, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, pm));
	ASSERT_EQ(-ENOENT, set_global(fd, 0, 0));
	ASSERT_EQ(-ENOENT, set_global(fd, 0, pms[1]));
	ASSERT_EQ(-EBUSY, set_global(fd, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0));

	/* SUBMIT: perfmon_id and pad */
	cmd = busy(USEC);
	ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, pms[1], 0));
	ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, ~0u, 0));
	if (other != pm)
		ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, other, 0));
	s.exec_queue_id = q;
	s.num_cmds = 1;
	s.cmds = (uintptr_t)&cmd;
	s.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s));

	/* COPY */
	for (i = 0; i < ARRAY_SIZE(bad_copies); i++) {
		cmd = copy(b.handle, bad_copies[i].dst, bad_copies[i].src,
			   bad_copies[i].bytes);
		ASSERT_EQ(-EINVAL, submit_pm(fd, q, &cmd, 1, pm, 0)) {
			TH_LOG("COPY %llu bytes from %llu to %llu",
			       (unsigned long long)bad_copies[i].bytes,
			       (unsigned long long)bad_copies[i].src,
			       (unsigned long long)bad_copies[i].dst);
		}
	}
	cmd = copy(0, 2 * PAGE, 0, 64);
	ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, 0, 0));
	cmd = copy(b.handle + 100, 2 * PAGE, 0, 64);
	ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, 0, 0));

	/* SAMPLE */
	for (i = 0; i < ARRAY_SIZE(bad_samples); i++) {
		cmd = sample(b.handle, bad_samples[i].offset,
			     bad_samples[i].tag);
		ASSERT_EQ(-EINVAL, submit_pm(fd, q, &cmd, 1, pm, 0)) {
			TH_LOG("SAMPLE at %llu tag %#llx",
			       (unsigned long long)bad_samples[i].offset,
			       (unsigned long long)bad_samples[i].tag);
		}
	}
	cmd = sample(0, 0, 0);
	ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, 0, 0));
	cmd = sample(b.handle + 100, 0, 0);
	ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, 0, 0));

	/* Nothing above was counted; the largest good ones run */
	cmd = copy(b.handle, 3 * PAGE, 0, PAGE);
	ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, 0));
	cmd = sample(b.handle, 4 * PAGE - REPORT, 0xffffffff);
	ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, 0));
	ASSERT_EQ(0, get_values(fd, pm, values, 1, 10 * SEC, &seqno));
	ASSERT_EQ(2, seqno);
	ASSERT_TICKS(values[0], PAGE);	/* pms[0] counts busy-ticks */
	ASSERT_EQ(0xffffffff,
		  ((struct drm_simgpu_sample_report *)
		   (b.map + 4 * PAGE - REPORT))->tag);

	ASSERT_EQ(0, perfmon_destroy(fd, pm));
	ASSERT_EQ(-ENOENT, perfmon_destroy(fd, pm));
	ASSERT_EQ(0, perfmon_destroy(fd2, other));
	ASSERT_EQ(0, queue_destroy(fd, q));
	munmap(b.map, b.size);
	close(fd2);
}

/*
 * A perfmon destroyed while its jobs run: the id is gone at once, the jobs
 * complete, and a new perfmon (which may get the same id) counts none of
 * them.
 */
TEST_F(perf, destroy_in_flight)
{
	int fd = self->fd;
	const uint32_t ids[2] = { BATCHES, COMMANDS };
	struct drm_simgpu_cmd cmd = busy(50 * MSEC);
	uint32_t pm, pm2, q, sync[3], i;
	uint64_t values[2], seqno;

	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));
	ASSERT_EQ(0, perfmon_create(fd, ids, 2, &pm));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, syncobj_create(fd, &sync[i]));
		ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, sync[i]));
	}
	ASSERT_EQ(0, perfmon_destroy(fd, pm));
	ASSERT_EQ(-ENOENT, get_values(fd, pm, values, 2, 0, NULL));
	ASSERT_EQ(-ENOENT, submit_pm(fd, q, &cmd, 1, pm, 0));
	ASSERT_EQ(-ENOENT, perfmon_destroy(fd, pm));

	ASSERT_EQ(0, perfmon_create(fd, ids, 2, &pm2));
	TH_LOG("old id %u, new id %u", pm, pm2);
	cmd = busy(MSEC);
	ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm2, 0));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, syncobj_wait(fd, sync[i], now_ns() + 10 * SEC));
	ASSERT_EQ(0, get_values(fd, pm2, values, 2, 10 * SEC, &seqno));
	ASSERT_EQ(1, seqno);
	ASSERT_EQ(1, values[0]);
	ASSERT_EQ(1, values[1]);
	ASSERT_EQ(0, perfmon_destroy(fd, pm2));
	ASSERT_EQ(0, queue_destroy(fd, q));
}

/*
 * Files closed with perfmons alive, jobs in flight that use them, and one
 * of them the device-wide perfmon: all freed (kmemleak says so at the end
 * of the run), and the device-wide mode is off again.
 */
TEST_F(perf, close_with_perfmons)
{
	const uint32_t ids[3] = { BATCHES, BUSY_TICKS, SAMPLES };
	struct drm_simgpu_cmd cmd = busy(20 * MSEC);
	uint32_t pm, q, i, j;
	uint64_t values[3], seqno;
	int fd, ret = 0;

	fd = client_open();
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, perfmon_create(fd, ids, 1 + i, &pm));
		for (j = 0; j < 2; j++)
			ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, pm, 0));
	}
	close(fd);

	/* A device-wide perfmon, its file closed while a job runs */
	fd = client_open();
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));
	ASSERT_EQ(0, perfmon_create(fd, ids, 3, &pm));
	/* The per-job perfmons of the closed file may still be in flight */
	for (i = 0; i < 500; i++) {
		ret = set_global(fd, 0, pm);
		if (ret != -EBUSY)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, submit_pm(fd, q, &cmd, 1, 0, 0));
	close(fd);

	/* The mode went with the file */
	ASSERT_EQ(0, perfmon_create(self->fd, ids, 3, &pm));
	ASSERT_EQ(0, set_global(self->fd, 0, pm));
	ASSERT_EQ(0, get_values(self->fd, pm, values, 3, 10 * SEC, &seqno));
	ASSERT_EQ(0, seqno);
	ASSERT_EQ(0, set_global(self->fd, DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0));
	ASSERT_EQ(0, perfmon_destroy(self->fd, pm));
}

/*
 * A hang and engine reset in the middle of a perfmon's jobs: the job that
 * hung and the job its banned queue had queued count 0 but take their
 * place in the sequence, the others count exactly, and the values never
 * go back.
 */
TEST_F_TIMEOUT(perf, hang_reset, 60)
{
	int fd = self->fd;
	const uint32_t ids[4] = { BATCHES, COMMANDS, BYTES_WRITTEN,
				  BUSY_TICKS };
	uint64_t t1 = whole(self, MSEC), t2 = whole(self, 2 * MSEC);
	uint64_t values[4], last[4] = {}, seqno, last_seqno = 0;
	struct drm_simgpu_cmd good[2], hang[3], late, innocent[2];
	uint32_t pm, guilty, inno, sync[2], i;
	uint64_t deadline;
	struct buf b;

	ASSERT_EQ(0, buf_new(fd, PAGE, &b));
	ASSERT_EQ(0, perfmon_create(fd, ids, 4, &pm));
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &guilty));
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &inno));
	ASSERT_EQ(0, syncobj_create(fd, &sync[0]));
	ASSERT_EQ(0, syncobj_create(fd, &sync[1]));

	good[0] = busy(t1);
	good[1] = write32(b.handle, PAGE - 4, 1);
	hang[0] = sample(b.handle, 0, 1);
	hang[1] = busy(t1);
	hang[2] = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_HANG };
	late = busy(t1);
	innocent[0] = busy(t2);
	innocent[1] = write32(b.handle, PAGE - 8, 2);

	ASSERT_EQ(0, submit_pm(fd, guilty, good, 2, pm, 0));	/* job 1 */
	ASSERT_EQ(0, submit_pm(fd, guilty, hang, 3, pm, sync[0])); /* 2 */
	ASSERT_EQ(0, submit_pm(fd, guilty, &late, 1, pm, 0));	/* 3 */
	ASSERT_EQ(0, submit_pm(fd, inno, innocent, 2, pm, sync[1])); /* 4 */

	/* Monotonic while the hang is detected and the engine reset */
	deadline = now_ns() + 20 * SEC;
	do {
		ASSERT_EQ(0, get_values(fd, pm, values, 4, 0, &seqno));
		ASSERT_LE(last_seqno, seqno);
		for (i = 0; i < 4; i++)
			ASSERT_LE(last[i], values[i]);
		last_seqno = seqno;
		memcpy(last, values, sizeof(last));
		usleep(20000);
	} while (seqno < 4 && now_ns() < deadline);
	ASSERT_EQ(0, get_values(fd, pm, values, 4, 10 * SEC, &seqno));
	ASSERT_EQ(4, seqno);
	/* Jobs 1 and 4 */
	ASSERT_EQ(2, values[0]);
	ASSERT_EQ(4, values[1]);
	ASSERT_EQ(8, values[2]);
	ASSERT_TICKS(values[3], t1 + t2);

	/* The hung job's fence has its error; its SAMPLE ran */
	ASSERT_EQ(0, syncobj_wait(fd, sync[0], now_ns() + 10 * SEC));
	ASSERT_EQ(0, syncobj_wait(fd, sync[1], now_ns() + 10 * SEC));
	ASSERT_EQ(1, report(&b, 0)->seqno);
	ASSERT_EQ(1, report(&b, 0)->counters[0]);
	ASSERT_EQ(2, ((uint32_t *)b.map)[PAGE / 4 - 2]);

	/* The perfmon still counts on the innocent queue */
	ASSERT_EQ(0, submit_pm(fd, inno, innocent, 2, pm, 0));
	ASSERT_EQ(0, get_values(fd, pm, values, 4, 10 * SEC, &seqno));
	ASSERT_EQ(5, seqno);
	ASSERT_EQ(3, values[0]);

	ASSERT_EQ(0, perfmon_destroy(fd, pm));
	munmap(b.map, b.size);
	ASSERT_EQ(0, bo_close(fd, b.handle));
}

/* The number after "key": in @json, or -1 */
static long long json_num(const char *json, const char *key)
{
	char pattern[64];
	const char *p;

	snprintf(pattern, sizeof(pattern), "\"%s\": ", key);
	p = strstr(json, pattern);
	return p ? strtoll(p + strlen(pattern), NULL, 10) : -1;
}

/* The exit status of @cmd, or -1 */
static int run_status(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/*
 * simgpu-perf, the uAPI's userspace: its totals and per-job counts of a
 * known workload, and status 2 for bad usage.
 */
TEST_F(perf, simgpu_perf_tool)
{
	static const char *const bad[] = {
		"simgpu-perf",
		"simgpu-perf frob",
		"simgpu-perf stat",
		"simgpu-perf stat --class xyz -- busy=1ms",
		"simgpu-perf stat --jobs 0 -- busy=1ms",
		"simgpu-perf stat -- busy=1parsec",
		"simgpu-perf stat -- copy=6",
		"simgpu-perf stat -- spin=1",
		"simgpu-perf stat -e nonsense -- busy=1ms",
		"simgpu-perf stat -e 0,1,2,3,4 -- busy=1ms",
		"simgpu-perf stat -e 1,1 -- busy=1ms",
		"simgpu-perf stat -- write=1000",
		"simgpu-perf list --frob",
	};
	static const char *const stat_args[] = {
		"simgpu-perf stat --json --jobs 3",
		"-e commands,bytes-written,copies,samples",
		"-- busy=1ms,copy=4K write=4",
	};
	static const char *const list_grep =
		"'^  3  bytes-written  *memory  *bytes '";
	char out[16384] = "", cmd[256];
	const char *job;
	size_t len = 0, n;
	unsigned int i;
	FILE *f;

	if (!on_path("simgpu-perf"))
		SKIP(return, "simgpu-perf not on PATH");

	/* 3 jobs, each BUSY, COPY 4096, 4 x WRITE between two SAMPLEs */
	snprintf(cmd, sizeof(cmd), "%s %s %s", stat_args[0], stat_args[1],
		 stat_args[2]);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while ((n = fread(out + len, 1, sizeof(out) - 1 - len, f)) > 0)
		len += n;
	ASSERT_EQ(0, pclose(f));
	out[len] = '\0';
	job = strstr(out, "\"job\": 3");
	ASSERT_NE(NULL, job) TH_LOG("%s", out);
	/* The last job: seqnos 5 and 6, the workload and the first SAMPLE */
	ASSERT_EQ(5, json_num(job, "seqno"));
	ASSERT_EQ(1 + 1 + 4 + 1, json_num(job, "commands"));
	ASSERT_EQ(PAGE + 16, json_num(job, "bytes-written"));
	ASSERT_EQ(1, json_num(job, "copies"));
	ASSERT_EQ(1, json_num(job, "samples"));
	/* The totals: three jobs, both SAMPLEs each */
	job = strstr(out, "\"total\"");
	ASSERT_NE(NULL, job);
	ASSERT_EQ(3, json_num(job, "seqno"));
	ASSERT_EQ(3 * 8, json_num(job, "commands"));
	ASSERT_EQ(3 * (PAGE + 16), json_num(job, "bytes-written"));
	ASSERT_EQ(3, json_num(job, "copies"));
	ASSERT_EQ(3 * 2, json_num(job, "samples"));

	snprintf(cmd, sizeof(cmd), "simgpu-perf list | grep -q %s", list_grep);
	ASSERT_EQ(0, run_status(cmd));
	ASSERT_EQ(0, run_status("simgpu-perf --help | grep -q 'write=N'"));
	ASSERT_EQ(0, run_status("simgpu-perf stat --global -- busy=1us > /dev/null"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(cmd, sizeof(cmd), "%s > /dev/null 2>&1", bad[i]);
		ASSERT_EQ(2, run_status(cmd)) TH_LOG("%s", bad[i]);
	}
}

int main(int argc, char **argv)
{
	struct counters c;
	uint32_t size = sizeof(c);
	int fd = open_simgpu();

	if (fd < 0) {
		ksft_print_header();
		ksft_exit_skip(SIMGPU_NO_DEVICE "\n");
	}
	if (query(fd, DRM_SIMGPU_QUERY_COUNTERS, &c, &size)) {
		ksft_print_header();
		ksft_exit_skip(NO_COUNTERS ": %s\n", strerror(errno));
	}
	close(fd);
	return test_harness_run(argc, argv);
}
