// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu observation streams: the period exact in ticks, each periodic
 * report's busy-ticks equal to what a duty-cycle load was resident in its
 * period (to the tick, from the stream's own switch reports), the filter on
 * one's own exec queue (another client's work absent), a slow reader's
 * overflow records with exact counts, reports lost at a period too short
 * for the unit, privilege (nobody: own queue yes, device-wide and fast
 * -EACCES), one stream at a time, bad input, simgpu-perf record's time
 * series, and unbind and unload with a stream open.
 *
 * The checks are exact without depending on the host's speed: the model
 * writes each report at its tick, whenever the host runs it; only the
 * number of reports a test sees depends on time.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <poll.h>
#include <pwd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../../kselftest_harness.h"
#include "simgpu_test.h"

#define MSEC		1000000ULL
#define SEC		1000000000ULL
#define RCS		DRM_SIMGPU_ENGINE_CLASS_RENDER
#define BCS		DRM_SIMGPU_ENGINE_CLASS_COPY
#define NOBODY_UID	65534
#define MAX_RECORDS	20000
#define PARANOID	"/proc/sys/dev/simgpu/observation_paranoid"

enum { BUSY_TICKS, COMMANDS, BATCHES };

/* --- the uAPI ------------------------------------------------------------------ */

struct prop {
	uint32_t property;
	uint64_t value;
};

/* Open a stream with the properties @p[@n]: 0 and *@sfd, or -errno */
static int obs_open(int fd, const struct prop *p, unsigned int n,
		    uint32_t flags, int *sfd)
{
	struct drm_simgpu_observation_set_property ext[16] = {};
	struct drm_simgpu_observation_open o = { .flags = flags };
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ext[i].base.name = DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY;
		ext[i].base.next_extension =
			i + 1 < n ? (uintptr_t)&ext[i + 1] : 0;
		ext[i].property = p[i].property;
		ext[i].value = p[i].value;
	}
	o.extensions = n ? (uintptr_t)ext : 0;
	ret = sg_ioctl(fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN, &o);
	if (ret < 0)
		return ret;
	*sfd = ret;
	return 0;
}

static int obs_ioctl(int sfd, unsigned long req, void *arg)
{
	return ioctl(sfd, req, arg) ? -errno : 0;
}

/* A record as read() returns it */
struct rec {
	uint32_t type;
	struct drm_simgpu_observation_sample s;
	uint64_t count;
};

/*
 * Read what a non-blocking stream has now into @r, appending after @n
 * records, with one read() if @once: the new count, or -errno if the first
 * read() fails with another error than EAGAIN.
 */
static int obs_read_n(int sfd, struct rec *r, int n, int max, bool once)
{
	static uint8_t buf[256 * 1024];
	bool got = false;
	ssize_t len;
	size_t off;

	for (;;) {
		len = read(sfd, buf, sizeof(buf));
		if (len < 0)
			return errno == EAGAIN || got ? n : -errno;
		got = true;
		for (off = 0; off < (size_t)len && n < max; n++) {
			struct drm_simgpu_observation_record h;

			memcpy(&h, buf + off, sizeof(h));
			r[n].type = h.type;
			if (h.type == DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE)
				memcpy(&r[n].s, buf + off + sizeof(h),
				       sizeof(r[n].s));
			else
				memcpy(&r[n].count, buf + off + sizeof(h),
				       sizeof(r[n].count));
			off += h.size;
		}
		if (n >= max || once)
			return n;
	}
}

static int obs_read(int sfd, struct rec *r, int n, int max)
{
	return obs_read_n(sfd, r, n, max, false);
}

static struct drm_simgpu_cmd busy(uint64_t ns)
{
	return (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_BUSY, .value = ns };
}

static struct drm_simgpu_cmd idle(uint64_t ns)
{
	return (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_IDLE, .value = ns };
}

/* Submit a job and wait for it */
static int run_job(int fd, uint32_t queue, const struct drm_simgpu_cmd *cmds,
		   uint32_t n)
{
	uint32_t sync;
	int ret = syncobj_create(fd, &sync);

	if (!ret)
		ret = submit_sync(fd, queue, cmds, n, 0, sync);
	if (!ret)
		ret = syncobj_wait(fd, sync, INT64_MAX);
	return ret;
}

/* The smallest exponent whose period is at least @ns at @refclk */
static uint32_t exponent_for(uint64_t refclk, uint64_t ns)
{
	uint32_t e = 0;

	while (e < 31 && (2ULL << e) * SEC < ns * refclk)
		e++;
	return e;
}

/* --- the fixture ------------------------------------------------------------- */

FIXTURE(obs) {
	int fd;
	uint64_t refclk;
	struct rec *r;
};

FIXTURE_SETUP(obs)
{
	struct drm_simgpu_query_config config = {};
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(config),
		.data = (uintptr_t)&config,
	};

	self->r = calloc(MAX_RECORDS, sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
	self->fd = open_simgpu();
	if (self->fd == -ENODEV)
		SKIP(return, SIMGPU_NO_DEVICE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_QUERY, &q));
	self->refclk = config.refclk_hz;
}

FIXTURE_TEARDOWN(obs)
{
	if (self->fd >= 0)
		close(self->fd);
	free(self->r);
}

/*
 * Periodic reports are 2^(e+1) ticks apart, at multiples of the period,
 * with sequence numbers +1 each, as INFO says. The buffer holds 1.6 s of
 * them: a reader woken late on a loaded host still finds no gap.
 */
TEST_F(obs, period_exact)
{
	uint32_t q, e = exponent_for(self->refclk, 100000);
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, e },
		{ DRM_SIMGPU_OBSERVATION_PROP_COUNTER, BUSY_TICKS },
		{ DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 1 << 20 },
	};
	struct drm_simgpu_observation_info info;
	struct drm_simgpu_observation_status st;
	uint64_t P;
	int sfd, n, i;

	ASSERT_EQ(0, queue_create(self->fd, RCS, 0, &q));
	p[0].value = e;
	ASSERT_EQ(0, obs_open(self->fd, p, ARRAY_SIZE(p),
			      DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK, &sfd));
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_INFO, &info));
	P = 2ULL << e;
	ASSERT_EQ(P, info.period_ticks);
	ASSERT_EQ(self->refclk, info.refclk_hz);
	ASSERT_EQ(64, info.record_size);
	ASSERT_EQ(0, info.exec_queue_id);
	ASSERT_EQ(1, info.num_counters);

	usleep(50000);
	n = obs_read(sfd, self->r, 0, MAX_RECORDS);
	ASSERT_LT(10, n);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE, self->r[i].type);
		ASSERT_EQ(DRM_SIMGPU_OBSERVATION_REASON_PERIODIC,
			  self->r[i].s.reason);
		ASSERT_EQ(0, self->r[i].s.timestamp % P);
		ASSERT_EQ(i, self->r[i].s.seqno);
		ASSERT_EQ(0, self->r[i].s.context);
		if (i)
			ASSERT_EQ(P, self->r[i].s.timestamp -
				  self->r[i - 1].s.timestamp);
	}
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_STATUS, &st));
	ASSERT_EQ(0, st.lost);
	ASSERT_EQ(0, st.overflow);
	ASSERT_EQ(DRM_SIMGPU_OBSERVATION_STATUS_ENABLED, st.flags);

	/* Disabled: what was due stays readable, then -EIO */
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE, NULL));
	n = obs_read(sfd, self->r, 0, MAX_RECORDS);
	if (n < 0) {
		/* Nothing came since the last read */
		ASSERT_EQ(-EIO, n);
	} else {
		ASSERT_EQ(-EIO, obs_read(sfd, self->r, 0, MAX_RECORDS));
	}
	ASSERT_EQ(0, close(sfd));
	ASSERT_EQ(0, queue_destroy(self->fd, q));
}

/*
 * Reconstruct the resident intervals of the context from the switch
 * reports, and check that each periodic report's busy-ticks grew by
 * exactly the overlap of its period with them. Returns the busy ticks.
 */
static uint64_t check_busy(struct __test_metadata *_metadata,
			   const struct rec *r, int n, uint64_t P,
			   uint32_t context, uint64_t *periods)
{
	uint64_t in_ts = 0, prev_ts = 0, prev_busy = 0, busy = 0, ts;
	bool resident = false, started = false;
	int i;

	*periods = 0;
	for (i = 0; i < n; i++) {
		const struct drm_simgpu_observation_sample *s = &r[i].s;

		ASSERT_EQ(DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE, r[i].type);
		ts = s->timestamp;
		if (s->reason == DRM_SIMGPU_OBSERVATION_REASON_CTX_IN) {
			ASSERT_FALSE(resident);
			ASSERT_EQ(context, s->context);
			resident = true;
			in_ts = ts;
			/* What the periodic report before it counted */
			ASSERT_EQ(busy, s->values[0]);
			continue;
		}
		if (s->reason == DRM_SIMGPU_OBSERVATION_REASON_CTX_OUT) {
			ASSERT_TRUE(resident);
			ASSERT_EQ(context, s->context);
			resident = false;
			busy += ts - in_ts;
			ASSERT_EQ(busy, s->values[0]);
			continue;
		}
		ASSERT_EQ(DRM_SIMGPU_OBSERVATION_REASON_PERIODIC, s->reason);
		ASSERT_EQ(0, ts % P);
		ASSERT_EQ(resident ? context : 0, s->context);
		/* Busy until now: the closed intervals and the open one */
		ASSERT_EQ(busy + (resident ? ts - in_ts : 0), s->values[0]);
		if (started) {
			ASSERT_EQ(P, ts - prev_ts);
			ASSERT_GE(P, s->values[0] - prev_busy);
			(*periods)++;
		}
		started = true;
		prev_ts = ts;
		prev_busy = s->values[0];
	}
	return busy;
}

/*
 * A duty-cycle load of 30 % in every 1 ms (BUSY 300 us, IDLE 700 us, which
 * switches the context out) on one's own queue: each periodic report's
 * busy-ticks grew by what the context was resident in its period, to the
 * tick, the switch reports bracket the BUSYs, and the whole adds up to the
 * BUSYs' ticks (within a tick per BUSY).
 */
TEST_F(obs, duty_cycle)
{
	uint32_t q, e = exponent_for(self->refclk, 100000);
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_COUNTER, BUSY_TICKS },
		{ DRM_SIMGPU_OBSERVATION_PROP_COUNTER, COMMANDS },
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 1 << 20 },
	};
	struct drm_simgpu_cmd cmds[200];
	uint64_t total, expect, periods;
	int sfd, n, i, ins = 0, fd2 = client_open();
	uint32_t q2;

	/* Another client's queue first: the ids of mine and its context differ */
	ASSERT_EQ(0, queue_create(fd2, BCS, 0, &q2));
	ASSERT_EQ(0, queue_create(self->fd, RCS, 0, &q));
	p[0].value = e;
	p[3].value = q;
	ASSERT_EQ(0, obs_open(self->fd, p, ARRAY_SIZE(p),
			      DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK, &sfd));
	for (i = 0; i < 100; i++) {
		cmds[2 * i] = busy(300000);
		cmds[2 * i + 1] = idle(700000);
	}
	ASSERT_EQ(0, run_job(self->fd, q, cmds, ARRAY_SIZE(cmds)));
	usleep(10000);
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE, NULL));
	n = obs_read(sfd, self->r, 0, MAX_RECORDS);
	ASSERT_LT(0, n);
	ASSERT_GT(MAX_RECORDS, n);

	total = check_busy(_metadata, self->r, n, 2ULL << e, q, &periods);
	for (i = 0; i < n; i++)
		ins += self->r[i].s.reason == DRM_SIMGPU_OBSERVATION_REASON_CTX_IN;
	/* The first switch-in and one after each IDLE */
	ASSERT_EQ(101, ins);
	/* 100 BUSYs of 300 us, to within a tick each */
	expect = 100 * 300000 * self->refclk / SEC;
	ASSERT_GE(total, expect - 100);
	ASSERT_LE(total, expect + 100);
	/* 100 ms of load seen in periods of about 0.1 ms */
	ASSERT_LE(900, periods);
	ASSERT_EQ(0, close(sfd));
	ASSERT_EQ(0, queue_destroy(self->fd, q));
	ASSERT_EQ(0, queue_destroy(fd2, q2));
	close(fd2);
}

/*
 * A stream of one's own queue: another client's work on the same engine
 * is not counted, its switches are not reported, and its context shows as
 * 0.
 */
TEST_F(obs, context_filter)
{
	uint32_t q, q2, e = exponent_for(self->refclk, 100000);
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_COUNTER, BUSY_TICKS },
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 1 << 20 },
	};
	struct drm_simgpu_cmd mine[2] = { busy(5 * MSEC), idle(2 * MSEC) };
	struct drm_simgpu_cmd theirs[1] = { busy(20 * MSEC) };
	uint64_t total, expect, periods;
	int sfd, fd2, n, i, ins = 0, outs = 0;

	/* Theirs first: my queue's id (1) is not its context's id */
	fd2 = client_open();
	ASSERT_EQ(0, queue_create(fd2, RCS, 0, &q2));
	ASSERT_EQ(0, queue_create(self->fd, RCS, 0, &q));
	p[0].value = e;
	p[2].value = q;
	ASSERT_EQ(0, obs_open(self->fd, p, ARRAY_SIZE(p),
			      DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK, &sfd));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, submit(fd2, q2, theirs, 1));
		ASSERT_EQ(0, run_job(self->fd, q, mine, 2));
	}
	ASSERT_EQ(0, run_job(fd2, q2, theirs, 1));
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE, NULL));
	n = obs_read(sfd, self->r, 0, MAX_RECORDS);
	ASSERT_LT(0, n);

	total = check_busy(_metadata, self->r, n, 2ULL << e, q, &periods);
	for (i = 0; i < n; i++) {
		ins += self->r[i].s.reason == DRM_SIMGPU_OBSERVATION_REASON_CTX_IN;
		outs += self->r[i].s.reason == DRM_SIMGPU_OBSERVATION_REASON_CTX_OUT;
		ASSERT_TRUE(self->r[i].s.context == q ||
			    self->r[i].s.context == 0);
	}
	/* Each job: in, out at the IDLE, in, out at the end */
	ASSERT_EQ(6, ins);
	ASSERT_EQ(6, outs);
	/* Only my 15 ms, not their 80 */
	expect = 15 * MSEC * self->refclk / SEC;
	ASSERT_GE(total, expect - 6);
	ASSERT_LE(total, expect + 6);
	ASSERT_EQ(0, close(sfd));
	ASSERT_EQ(0, queue_destroy(self->fd, q));
	ASSERT_EQ(0, queue_destroy(fd2, q2));
	close(fd2);
}

/*
 * A reader too slow for a 4 KiB buffer: 63 reports fit, those that came
 * while it was full are one BUFFER_OVERFLOW record with their count at the
 * gap, the timestamps around it are (count + 1) periods apart, the
 * sequence numbers restart at 0. The buffer is full again at the disable:
 * the reports dropped after the last one are a BUFFER_OVERFLOW record at
 * the end, and the records' counts add up to STATUS's.
 */
TEST_F(obs, slow_reader_overflow)
{
	uint32_t q, e = exponent_for(self->refclk, 400000);
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 4096 },
	};
	struct drm_simgpu_observation_status st;
	uint64_t P = 2ULL << e, dropped = 0, last_ts = 0;
	int sfd, n, m, i, gaps = 0;

	ASSERT_EQ(0, queue_create(self->fd, RCS, 0, &q));
	p[0].value = e;
	p[1].value = q;
	ASSERT_EQ(0, obs_open(self->fd, p, ARRAY_SIZE(p),
			      DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK, &sfd));
	/* 63 reports take under 30 ms; let 150 ms pass */
	usleep(150000);
	n = obs_read_n(sfd, self->r, 0, MAX_RECORDS, true);
	ASSERT_EQ(63, n);
	for (i = 0; i < n; i++)
		ASSERT_EQ(i, self->r[i].s.seqno);
	/* The next report tells the gap; read soon enough for no other */
	usleep(5000);
	m = obs_read(sfd, self->r, n, MAX_RECORDS);
	ASSERT_LT(n + 1, m);
	ASSERT_EQ(DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW,
		  self->r[n].type);
	/* Full again, and reports dropped, whatever the host's delays */
	usleep(60000);
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE, NULL));
	n = obs_read(sfd, self->r, m, MAX_RECORDS);
	ASSERT_LT(m + 1, n);
	m = n;
	ASSERT_EQ(DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW,
		  self->r[m - 1].type);
	ASSERT_EQ(-EIO, obs_read(sfd, self->r, m, MAX_RECORDS));

	for (i = 0; i < m; i++) {
		if (self->r[i].type ==
		    DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW) {
			ASSERT_LT(0, self->r[i].count);
			dropped = self->r[i].count;
			gaps++;
			continue;
		}
		ASSERT_EQ(DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE, self->r[i].type);
		if (last_ts)
			ASSERT_EQ((dropped + 1) * P,
				  self->r[i].s.timestamp - last_ts);
		if (dropped)
			ASSERT_EQ(0, self->r[i].s.seqno);
		dropped = 0;
		last_ts = self->r[i].s.timestamp;
	}
	ASSERT_LE(2, gaps);
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_STATUS, &st));
	ASSERT_EQ(0, st.lost);
	ASSERT_EQ(0, st.flags);
	dropped = 0;
	for (i = 0; i < m; i++)
		if (self->r[i].type ==
		    DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW)
			dropped += self->r[i].count;
	ASSERT_EQ(dropped, st.overflow);
	ASSERT_EQ(0, close(sfd));
	ASSERT_EQ(0, queue_destroy(self->fd, q));
}

/*
 * As root, a device-wide stream at the shortest period, two ticks: the
 * unit cannot write that many reports, the REPORT_LOST records say how
 * many went at each gap, exactly, and add up to STATUS's count once the
 * stream is disabled and read to the end.
 */
TEST_F(obs, lost_reports)
{
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 1 << 20 },
	};
	struct drm_simgpu_observation_status st;
	uint64_t missed = 0, last_ts = 0, lost = 0, ovf = 0;
	int sfd, n, i, gaps = 0;

	if (geteuid())
		SKIP(return, "a device-wide stream needs root");
	ASSERT_EQ(0, obs_open(self->fd, p, ARRAY_SIZE(p),
			      DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK, &sfd));
	usleep(20000);
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE, NULL));
	n = obs_read(sfd, self->r, 0, MAX_RECORDS);
	ASSERT_LT(0, n);
	ASSERT_GT(MAX_RECORDS, n);
	for (i = 0; i < n; i++) {
		if (self->r[i].type != DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE) {
			if (self->r[i].type ==
			    DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST)
				lost += self->r[i].count;
			else
				ovf += self->r[i].count;
			missed += self->r[i].count;
			gaps++;
			continue;
		}
		if (self->r[i].s.reason != DRM_SIMGPU_OBSERVATION_REASON_PERIODIC)
			continue;
		if (last_ts)
			ASSERT_EQ((missed + 1) * 2,
				  self->r[i].s.timestamp - last_ts);
		missed = 0;
		last_ts = self->r[i].s.timestamp;
	}
	ASSERT_LE(1, gaps);
	ASSERT_LT(0, lost);
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_STATUS, &st));
	ASSERT_EQ(lost, st.lost);
	ASSERT_EQ(ovf, st.overflow);
	ASSERT_EQ(0, close(sfd));
}

/* poll() of @sfd for POLLIN with @ms: its revents, or -errno */
static int poll_in(int sfd, int ms)
{
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };
	int ret = poll(&pfd, 1, ms);

	return ret < 0 ? -errno : ret ? pfd.revents : 0;
}

/* One read() of at most @len bytes: the bytes, or -errno */
static ssize_t read_once(int sfd, size_t len)
{
	static uint8_t buf[1 << 20];
	ssize_t n = read(sfd, buf, len < sizeof(buf) ? len : sizeof(buf));

	return n < 0 ? -errno : n;
}

/*
 * poll() says exactly when a blocking read() returns at once, and read()
 * blocks exactly when poll() says nothing: after a DISABLE with reports
 * unread (POLLIN, the reports, then POLLHUP and -EIO); for a stream opened
 * disabled (POLLHUP, -EIO at once); for a new stream after one closed with
 * reports unread (nothing to poll, nothing to read); after a short read
 * that left the threshold's worth unread (still POLLIN).
 */
TEST_F(obs, poll_agrees_with_read)
{
	const int sample = sizeof(struct drm_simgpu_observation_record) +
			   sizeof(struct drm_simgpu_observation_sample);
	uint32_t q, e = exponent_for(self->refclk, 1000000);
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS, 4 },
		{ DRM_SIMGPU_OBSERVATION_PROP_DISABLED, 1 },
	};
	uint64_t t0;
	ssize_t n;
	int sfd;

	ASSERT_EQ(0, queue_create(self->fd, RCS, 0, &q));
	p[0].value = q;
	p[1].value = e;

	/* Opened disabled: nothing will come; read() fails at once */
	ASSERT_EQ(0, obs_open(self->fd, p, 4, 0, &sfd));
	t0 = now_ns();
	ASSERT_EQ(POLLHUP, poll_in(sfd, 1000));
	ASSERT_GT(500 * MSEC, now_ns() - t0);
	ASSERT_EQ(-EIO, read_once(sfd, 4096));

	/* Enabled: the threshold (4 reports of 1 ms) in the first 100 ms */
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE, NULL));
	ASSERT_EQ(POLLIN, poll_in(sfd, 1000));
	/* Long enough for twice as many: one short read leaves POLLIN */
	usleep(20000);
	ASSERT_EQ(sample, read_once(sfd, sample));
	ASSERT_EQ(POLLIN, poll_in(sfd, 0));
	/* Disabled with reports unread: POLLIN, the rest, POLLHUP, -EIO */
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE, NULL));
	ASSERT_EQ(POLLIN, poll_in(sfd, 1000));
	n = read_once(sfd, 1 << 20);
	ASSERT_LE(3 * sample, n);
	ASSERT_EQ(POLLHUP, poll_in(sfd, 1000));
	ASSERT_EQ(-EIO, read_once(sfd, 4096));

	/* Enabled again and closed with reports unread */
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE, NULL));
	ASSERT_EQ(POLLIN, poll_in(sfd, 1000));
	ASSERT_EQ(0, close(sfd));

	/* A new stream, a period of seconds: nothing to poll nor to read */
	p[1].value = exponent_for(self->refclk, 4 * SEC);
	ASSERT_EQ(0, obs_open(self->fd, p, 3,
			      DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK, &sfd));
	ASSERT_EQ(0, poll_in(sfd, 0));
	ASSERT_EQ(-EAGAIN, read_once(sfd, 4096));
	ASSERT_EQ(0, poll_in(sfd, 50));
	ASSERT_EQ(0, close(sfd));
	ASSERT_EQ(0, queue_destroy(self->fd, q));
}

/* The uid and gid of nobody */
static void nobody(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam("nobody");

	*uid = pw ? pw->pw_uid : NOBODY_UID;
	*gid = pw ? pw->pw_gid : NOBODY_UID;
}

/*
 * In a child as nobody: its own queue works; device-wide streams and the
 * device-wide perfmon -EACCES while paranoid; faster than the rate limit
 * -EACCES whatever the sysctl
 */
static int unprivileged(int fd, uint32_t queue, uint32_t e, bool paranoid)
{
	struct drm_simgpu_perfmon_set_global g = {};
	struct drm_simgpu_perfmon_create pc = {};
	uint32_t counter = 0;
	struct prop own[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, queue },
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, e },
	};
	struct prop fast[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, queue },
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 0 },
	};
	int sfd, want = paranoid ? -EACCES : 0;
	uid_t uid;
	gid_t gid;

	nobody(&uid, &gid);
	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return 10;
	if (geteuid() != uid || !geteuid())
		return 11;
	if (obs_open(fd, own, 2, 0, &sfd))
		return 12;
	close(sfd);
	if (obs_open(fd, NULL, 0, 0, &sfd) != want)
		return 13;
	if (!want)
		close(sfd);
	if (obs_open(fd, fast, 2, 0, &sfd) != -EACCES)
		return 14;
	pc.counters = (uintptr_t)&counter;
	pc.num_counters = 1;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_CREATE, &pc))
		return 15;
	g.id = pc.id;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL, &g) != want)
		return 16;
	g.flags = DRM_SIMGPU_PERFMON_CLEAR_GLOBAL;
	g.id = 0;
	if (!want && sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL, &g))
		return 17;
	return 0;
}

static int as_nobody(int fd, uint32_t queue, uint32_t e, bool paranoid)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(unprivileged(fd, queue, e, paranoid));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Privilege: nobody may observe its own queue at the maximum rate; the
 * device (a stream, the device-wide perfmon) only while
 * dev.simgpu.observation_paranoid is 0; faster, never.
 */
TEST_F(obs, privilege)
{
	uint32_t q, e = exponent_for(self->refclk,
				     DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS);
	char old[16] = "1";

	if (geteuid())
		SKIP(return, "dropping to nobody needs root");
	ASSERT_EQ(0, queue_create(self->fd, BCS, 0, &q));
	ASSERT_EQ(0, as_nobody(self->fd, q, e, true));
	if (!file_read(PARANOID, old, sizeof(old))) {
		ASSERT_EQ(0, file_write(PARANOID, "0"));
		ASSERT_EQ(0, as_nobody(self->fd, q, e, false));
		ASSERT_EQ(0, file_write(PARANOID, "1"));
	} else {
		TH_LOG("no " PARANOID);
	}
	ASSERT_EQ(0, queue_destroy(self->fd, q));
}

/* debugfs's simgpu_observation of the device, "" if it cannot be read */
static void obs_debugfs(int fd, char *buf, size_t size)
{
	char path[64];
	struct stat st;

	buf[0] = '\0';
	if (fstat(fd, &st))
		return;
	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/dri/%u/simgpu_observation",
		 minor(st.st_rdev));
	if (file_read(path, buf, size))
		buf[0] = '\0';
}

/*
 * One stream at a time, whoever opens it, enabled or not; free again once
 * closed. debugfs names the holder meanwhile.
 */
TEST_F(obs, busy)
{
	char dbg[512], want[64];
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_DISABLED, 1 },
	};
	int sfd, sfd2, fd2 = client_open();
	uint32_t q;

	ASSERT_EQ(0, queue_create(self->fd, RCS, 0, &q));
	p[0].value = q;
	ASSERT_EQ(0, obs_open(self->fd, p, 2, 0, &sfd));
	ASSERT_EQ(-EBUSY, obs_open(self->fd, p, 2, 0, &sfd2));
	ASSERT_EQ(-ENOENT, obs_open(fd2, p, 1, 0, &sfd2));
	obs_debugfs(self->fd, dbg, sizeof(dbg));
	if (dbg[0]) {
		snprintf(want, sizeof(want), "holder: %d ", getpid());
		ASSERT_EQ(0, strncmp(dbg, want, strlen(want)))
			TH_LOG("simgpu_observation: %s", dbg);
		ASSERT_NE(NULL, strstr(dbg, "state: never enabled\n"));
		snprintf(want, sizeof(want), "exec queue: %u\n", q);
		ASSERT_NE(NULL, strstr(dbg, want));
	} else {
		TH_LOG("no debugfs: the holder is not checked");
	}
	/* Disabled from the start: nothing to read */
	ASSERT_EQ(-EIO, obs_read(sfd, self->r, 0, 1));
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE, NULL));
	ASSERT_EQ(0, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE, NULL));
	ASSERT_EQ(-ENOTTY, obs_ioctl(sfd, _IO(DRM_SIMGPU_OBSERVATION_IOCTL_BASE, 0x7f), NULL));
	ASSERT_EQ(0, close(sfd));
	ASSERT_EQ(0, obs_open(self->fd, p, 2, 0, &sfd));
	ASSERT_EQ(0, close(sfd));
	obs_debugfs(self->fd, dbg, sizeof(dbg));
	if (dbg[0])
		ASSERT_STREQ("holder: none\n", dbg);
	ASSERT_EQ(0, queue_destroy(self->fd, q));
	close(fd2);
}

/* Bad properties, each with its documented errno */
TEST_F(obs, bad_input)
{
	struct drm_simgpu_observation_set_property ext = {
		.base.name = DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY,
		.property = DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE,
		.value = 4096,
	};
	struct drm_simgpu_observation_open o = {};
	struct {
		struct prop p[5];
		unsigned int n;
		int err;
	} bad[] = {
		{ { { 0, 0 } }, 1, -EINVAL },
		{ { { 99, 0 } }, 1, -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 8 } }, 1, -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 1 },
		    { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 1 } }, 2, -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 0 },
		    { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 1 },
		    { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 2 },
		    { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 3 },
		    { DRM_SIMGPU_OBSERVATION_PROP_COUNTER, 4 } }, 5, -E2BIG },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 32 } }, 1,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 10 },
		    { DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 10 } }, 2,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 6000 } }, 1,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 2048 } }, 1,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE, 2 << 20 } }, 1,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS, 0 } }, 1,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS, 513 } }, 1,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, 12345 } }, 1,
		  -ENOENT },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_ENGINE, 5 } }, 1, -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_ENGINE, 0xffff0000 } }, 1,
		  -EINVAL },
		{ { { DRM_SIMGPU_OBSERVATION_PROP_ENGINE, 1ULL << 40 } }, 1,
		  -EINVAL },
	};
	unsigned int i;
	int sfd;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(bad[i].err, obs_open(self->fd, bad[i].p, bad[i].n, 0,
					       &sfd))
			TH_LOG("case %u", i);

	o.flags = 2;
	ASSERT_EQ(-EINVAL, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN,
				    &o));
	o.flags = 0;
	o.pad = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN,
				    &o));
	o.pad = 0;
	ext.pad = 1;
	o.extensions = (uintptr_t)&ext;
	ASSERT_EQ(-EINVAL, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN,
				    &o));
	ext.pad = 0;
	ext.base.name = 1;
	ASSERT_EQ(-EINVAL, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN,
				    &o));
	ext.base.name = 0;
	o.extensions = 8;
	ASSERT_EQ(-EFAULT, sg_ioctl(self->fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN,
				    &o));
}

/*
 * simgpu-perf record, the userspace of the streams: its CSV time series of
 * a duty-cycle workload has periodic samples at multiples of the period,
 * busy-ticks deltas of at most a period, and the switches of its queue.
 */
TEST_F(obs, simgpu_perf_record)
{
	char line[256], reason[16];
	unsigned long long ts, delta;
	unsigned int seqno, context;
	int periodic = 0, ins = 0, outs = 0, got, ret;
	FILE *f;

	if (!on_path("simgpu-perf"))
		SKIP(return, "simgpu-perf not on PATH");
	f = popen("simgpu-perf record --csv -e busy-ticks -E 12 --seconds 1 -- busy=2ms,idle=2ms",
		  "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	ASSERT_STREQ("record,seqno,timestamp,reason,context,busy-ticks\n", line);
	while (fgets(line, sizeof(line), f)) {
		delta = 0;
		got = sscanf(line, "sample,%u,%llu,%15[^,],%u,%llu", &seqno,
			     &ts, reason, &context, &delta);
		ASSERT_LE(4, got)
			TH_LOG("%s", line);
		if (!strcmp(reason, "periodic")) {
			ASSERT_EQ(0, ts % 8192);
			ASSERT_GE(8192, delta);
			periodic++;
		} else {
			ASSERT_EQ(1, context);
			ins += !strcmp(reason, "ctx-in");
			outs += !strcmp(reason, "ctx-out");
		}
	}
	ret = pclose(f);
	ASSERT_TRUE(WIFEXITED(ret));
	ASSERT_EQ(0, WEXITSTATUS(ret));
	/* 1 s of 8192-tick periods, whatever the reference clock */
	ASSERT_LE(self->refclk / 8192 / 2, periodic);
	ASSERT_LE(10, ins);
	ASSERT_LE(ins - 1, outs);
}

/* --- a stream that outlives its device ---------------------------------------- */

FIXTURE(obs_gone) {
	char dev[256];
};

FIXTURE_VARIANT(obs_gone) {
	bool unload;
};

FIXTURE_VARIANT_ADD(obs_gone, unload) {
	.unload = true,
};

FIXTURE_VARIANT_ADD(obs_gone, unbind) {
	.unload = false,
};

FIXTURE_SETUP(obs_gone)
{
	const char *why = simgpu_gone_setup(self->dev, sizeof(self->dev),
					    variant->unload);

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN_PARENT(obs_gone)
{
	if (self->dev[0]) {
		simgpu_reload();
		simgpu_rebind(self->dev);
	}
}

/*
 * An open stream across an unbind, or an attempt to unload the module
 * first: the module stays while the stream is open; after the unbind, read
 * and the ioctls fail with ENODEV and poll says EPOLLERR | EPOLLHUP;
 * closing it drops the module's reference, so that it can be unloaded;
 * no kernel report. Where the driver has no sysfs unbind (out of tree on
 * a 6.12 kernel), the unload variant closes the stream instead, and the
 * module unloads.
 */
TEST_F(obs_gone, stream_open)
{
	long taint0 = kernel_taint(), taint1, refs0 = simgpu_module_refs();
	struct prop p[] = {
		{ DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID, 0 },
		{ DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT, 10 },
	};
	struct pollfd pfd = { .events = POLLIN };
	struct drm_simgpu_observation_status st;
	struct rec r[4];
	uint64_t deadline;
	uint32_t q;
	int fd, sfd, ret;

	ASSERT_LE(0, taint0);
	fd = client_open();
	ASSERT_EQ(0, queue_create(fd, RCS, 0, &q));
	p[0].value = q;
	ASSERT_EQ(0, obs_open(fd, p, 2, DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK,
			      &sfd));
	ASSERT_EQ(0, close(fd));

	if (variant->unload) {
		ret = syscall(__NR_delete_module, "simgpu", O_NONBLOCK);
		/* The stream holds the module */
		ASSERT_NE(0, ret);
		ASSERT_TRUE(errno == EWOULDBLOCK || errno == EBUSY)
			TH_LOG("delete_module: %s", strerror(errno));
		/* It works on; then unbind under it */
		usleep(20000);
		ASSERT_LT(0, obs_read(sfd, r, 0, 4));
		if (access(SIMGPU_DRV_DIR "/unbind", W_OK)) {
			ASSERT_EQ(0, close(sfd));
			goto closed;
		}
	}
	ASSERT_EQ(0, file_write(SIMGPU_DRV_DIR "/unbind", self->dev));

	ASSERT_EQ(-ENODEV, obs_read(sfd, r, 0, 1));
	ASSERT_EQ(-ENODEV, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_STATUS,
				     &st));
	ASSERT_EQ(-ENODEV, obs_ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE,
				     NULL));
	pfd.fd = sfd;
	ASSERT_EQ(1, poll(&pfd, 1, 1000));
	ASSERT_EQ(POLLERR | POLLHUP, pfd.revents & (POLLERR | POLLHUP));
	usleep(20000);
	ASSERT_EQ(0, close(sfd));

closed:
	/* The module's references are back to what they were */
	deadline = now_ns() + 2000000000ULL;
	while (refs0 >= 0 && simgpu_module_refs() != refs0 &&
	       now_ns() < deadline)
		usleep(10000);
	ASSERT_EQ(refs0, simgpu_module_refs());

	taint1 = kernel_taint();
	ASSERT_EQ(0, (taint1 & ~taint0) & SIMGPU_TAINT_REPORTS)
		TH_LOG("tainted %#lx after %#lx", taint1, taint0);
	if (variant->unload && access(SIMGPU_DRV_DIR "/unbind", W_OK)) {
		ret = syscall(__NR_delete_module, "simgpu", O_NONBLOCK);
		ASSERT_EQ(0, ret)
			TH_LOG("delete_module: %s", strerror(errno));
		ASSERT_EQ(0, simgpu_reload());
		return;
	}
	/*
	 * Bound again for the tests to come; the module can go now (the VM
	 * runner unloads it at the end and fails if it cannot)
	 */
	ASSERT_EQ(0, simgpu_rebind(self->dev));
}

int main(int argc, char **argv)
{
	return simgpu_test_main(argc, argv);
}
