// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

/**
 * DOC: simgpu observation streams, driver side
 *
 * &DRM_IOCTL_SIMGPU_OBSERVATION_OPEN gives userspace the device's
 * observation unit (see "simgpu observation unit") as a stream fd: the
 * driver allocates the unit's buffer (physically contiguous pages whose
 * address the unit gets, as the context images), programs the unit, and
 * turns the unit's reports into the records of read().
 *
 * Forwarding never happens on the submission path: the unit writes its
 * reports by itself, an hrtimer of the stream (200 Hz, relative) and the
 * unit's threshold interrupt only look at HEAD and wake the readers, and
 * read() collects the reports and moves TAIL. The submission path takes no
 * lock of the stream; both reach the model, whose engine lock is held for a
 * bounded time (see SIMGPU_OBS_MAX_BURST).
 *
 * Lock order: &simgpu_observation.lock (a mutex: open, enable, disable,
 * read, status, release, unbind), then the model's locks through MMIO. The
 * timer and the interrupt handler take no lock of the driver. read() sleeps
 * only outside the lock, in wait_event_interruptible().
 *
 * The device's one unit belongs to the stream opened first, from its open
 * to its close, enabled or not; debugfs's ``simgpu_observation`` names the
 * process holding it, the stream's state, engine, queue and period.
 *
 * Unbind: simgpu_observation_unplug() stops the unit and the timer and
 * marks the stream gone before the DRM device is unplugged, so that the unit
 * no longer writes into the buffer; read() and the stream's ioctls then
 * return -ENODEV and poll() EPOLLERR | EPOLLHUP. The stream holds a
 * reference to the DRM device (and, through its fops, the module) until it
 * is closed, when the buffer is freed.
 *
 * Why a DRM stream and not a perf PMU (simgpu_pmu.c counts engine busyness
 * for perf): the unit's reports are device events with no CPU or task to
 * attribute them to; the unit writes bursts of reports that perf's
 * throttling of a sampling event would drop; the counters are configured
 * as a set that the unit captures at one instant, not as events
 * multiplexed one by one; and a report must be read from the buffer in
 * process context, which perf's atomic IPI-driven read cannot do. i915
 * tried a perf PMU for its OA unit in 2014 and moved to i915 perf for these
 * reasons; xe's observation streams followed.
 *
 * Which interface answers which question:
 *
 * - fdinfo (drm-engine-*, drm-cycles-*): how much engine time did each
 *   client use, for monitors such as gputop;
 * - the perf PMU: how busy is each engine, for perf stat and monitors;
 * - perfmons: what did my jobs count, exactly per job (or, device-wide,
 *   all jobs), for performance queries around known work;
 * - an observation stream: how do the counters move over time, inside
 *   long jobs and across context switches, of one's own queue or (with
 *   privilege) of a whole engine, for profilers' time series.
 */

#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_observation.h"
#include "simgpu_queue.h"

/* The stream's forwarding timer: 200 Hz */
#define SIMGPU_OBS_POLL_NS	(5 * NSEC_PER_MSEC)
#define SIMGPU_OBS_BUF_DEFAULT	SZ_64K
#define SIMGPU_OBS_BUF_LIMIT	SZ_1M
#define SIMGPU_OBS_PROP_LAST	DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS

/* dev.simgpu.observation_paranoid */
static int simgpu_observation_paranoid = 1;

/* Records of read(): a gap, a sample, and the most one report makes */
#define SIMGPU_OBS_GAP_SIZE	(sizeof(struct drm_simgpu_observation_record) + \
				 sizeof(struct drm_simgpu_observation_lost))
#define SIMGPU_OBS_SAMPLE_SIZE	(sizeof(struct drm_simgpu_observation_record) + \
				 sizeof(struct drm_simgpu_observation_sample))
#define SIMGPU_OBS_GROUP_SIZE	(2 * SIMGPU_OBS_GAP_SIZE + SIMGPU_OBS_SAMPLE_SIZE)
/* Records are put together here and copied to the reader a chunk at a time */
#define SIMGPU_OBS_BOUNCE_SIZE	SZ_4K

/* The gap records of the report at the stream's tail already read */
#define SIMGPU_OBS_SENT_OVERFLOW	BIT(0)
#define SIMGPU_OBS_SENT_LOST		BIT(1)

/**
 * struct simgpu_obs_pos - how far the reader got in an enable of a stream
 * @tail: offset in the buffer of the next report to read, what TAIL is set to
 * @seqno: the next sample's sequence number
 * @sent: SIMGPU_OBS_SENT_* of the report at @tail
 * @lost_seen: reports lost that gap records reported
 * @overflow_seen: reports dropped that gap records reported
 */
struct simgpu_obs_pos {
	u32 tail;
	u32 seqno;
	u32 sent;
	u64 lost_seen;
	u64 overflow_seen;
};

/**
 * struct simgpu_obs_stream - an open observation stream
 * @sdev: the device, referenced (drm_dev_get()) until the stream is closed
 * @pid: the process that opened the stream, referenced, for debugfs
 * @queue: the exec queue observed, referenced; NULL for a device-wide stream
 * @queue_id: the id of @queue in its file, 0 if none
 * @ctx_id: CTX_IMG_ID of @queue's context, 0 if none
 * @engine: the engine observed
 * @timer: forwards the reports to the readers while enabled
 * @buf: the unit's buffer, @size bytes of contiguous pages
 * @bounce: SIMGPU_OBS_BOUNCE_SIZE bytes where read() builds the records
 * @size: bytes of @buf
 * @exponent: the period exponent
 * @threshold: unread bytes that wake the readers
 * @num_counters: the counters asked for
 * @counters: their ids, slot i counting counters[i]
 *
 * The fields below are protected by &simgpu_observation.lock:
 *
 * @enabled: the unit runs for the stream (READ_ONCE() in wait conditions)
 * @started: the stream was enabled once: HEAD and the buffer are its own
 * @gone: the device was unbound (READ_ONCE() in poll)
 * @pos: what the reader has read of this enable
 * @lost_base: reports lost in the stream's previous enables
 * @overflow_base: reports dropped in the stream's previous enables
 * @lost_end: LOST_COUNT at the disable, 0 while enabled
 * @overflow_end: OVERFLOW_COUNT at the disable, 0 while enabled
 *
 * Once disabled and read to HEAD, a stream reports what @lost_end and
 * @overflow_end count beyond the gap records read: the reports missing
 * after the last one written, which no report can tell.
 */
struct simgpu_obs_stream {
	struct simgpu_device *sdev;
	struct pid *pid;
	struct simgpu_queue *queue;
	u32 queue_id;
	u32 ctx_id;
	struct simgpu_engine *engine;
	struct hrtimer timer;
	void *buf;
	u8 *bounce;
	u32 size;
	u32 exponent;
	u32 threshold;
	u32 num_counters;
	u32 counters[SIMGPU_PERF_NUM_SLOTS];

	bool enabled;
	bool started;
	bool gone;
	struct simgpu_obs_pos pos;
	u64 lost_base;
	u64 overflow_base;
	u64 lost_end;
	u64 overflow_end;
};

/* What the properties of an open ask for */
struct simgpu_obs_args {
	u32 seen;
	u32 num_counters;
	u32 counters[SIMGPU_PERF_NUM_SLOTS];
	u64 exponent;
	u64 queue_id;
	u64 engine;
	u64 buffer_size;
	u64 disabled;
	u64 wait_reports;
};

/* Are there enough unread reports to wake the readers? Any context. */
static void simgpu_obs_check(struct simgpu_obs_stream *s)
{
	struct simgpu_device *sdev = s->sdev;
	u32 head = simgpu_read32(sdev, SIMGPU_REG_OBS_HEAD);
	u32 tail = simgpu_read32(sdev, SIMGPU_REG_OBS_TAIL);

	if (((head - tail) & (s->size - 1)) >= s->threshold) {
		WRITE_ONCE(sdev->obs.pollin, true);
		wake_up_all(&sdev->obs.poll_wq);
	}
}

static enum hrtimer_restart simgpu_obs_timer(struct hrtimer *timer)
{
	struct simgpu_obs_stream *s = container_of(timer, struct simgpu_obs_stream,
						   timer);

	simgpu_obs_check(s);
	hrtimer_forward_now(timer, ns_to_ktime(SIMGPU_OBS_POLL_NS));
	return HRTIMER_RESTART;
}

/**
 * simgpu_observation_irq - the observation unit's threshold interrupt
 * @sdev: the device
 *
 * Acknowledges the interrupt and wakes the stream's readers. Called from
 * the device's interrupt handler, hard interrupt context.
 */
void simgpu_observation_irq(struct simgpu_device *sdev)
{
	simgpu_write32(sdev, SIMGPU_REG_OBS_STATUS, SIMGPU_OBS_STATUS_THRESHOLD);
	WRITE_ONCE(sdev->obs.pollin, true);
	wake_up_all(&sdev->obs.poll_wq);
}

/* Program and enable the unit. Under the lock. */
static int simgpu_obs_start(struct simgpu_obs_stream *s)
{
	struct simgpu_device *sdev = s->sdev;
	u64 phys = virt_to_phys(s->buf);
	u32 perfcfg = 0, ctrl;
	unsigned int i;

	lockdep_assert_held(&sdev->obs.lock);

	if (s->enabled)
		return 0;

	for (i = 0; i < s->num_counters; i++)
		perfcfg |= SIMGPU_PERFCFG_SLOT(i, s->counters[i]);
	ctrl = SIMGPU_OBS_CTRL_ENABLE |
	       s->exponent << SIMGPU_OBS_CTRL_EXP_SHIFT |
	       (u32)s->engine->hw_id << SIMGPU_OBS_CTRL_ENGINE_SHIFT;
	if (s->queue)
		ctrl |= SIMGPU_OBS_CTRL_FILTER;

	simgpu_write32(sdev, SIMGPU_REG_OBS_BUF_LO, lower_32_bits(phys));
	simgpu_write32(sdev, SIMGPU_REG_OBS_BUF_HI, upper_32_bits(phys));
	simgpu_write32(sdev, SIMGPU_REG_OBS_BUF_SIZE, s->size);
	simgpu_write32(sdev, SIMGPU_REG_OBS_PERFCFG, perfcfg);
	simgpu_write32(sdev, SIMGPU_REG_OBS_CTX, s->ctx_id);
	simgpu_write32(sdev, SIMGPU_REG_OBS_THRESHOLD, s->threshold);
	simgpu_write32(sdev, SIMGPU_REG_OBS_CTRL, ctrl);
	if (!(simgpu_read32(sdev, SIMGPU_REG_OBS_CTRL) &
	      SIMGPU_OBS_CTRL_ENABLE)) {
		drm_dbg_driver(&sdev->drm, "observation unit refused the buffer\n");
		return -EIO;
	}

	memset(&s->pos, 0, sizeof(s->pos));
	WRITE_ONCE(sdev->obs.pollin, false);
	s->lost_end = 0;
	s->overflow_end = 0;
	s->started = true;
	WRITE_ONCE(s->enabled, true);
	hrtimer_start(&s->timer, ns_to_ktime(SIMGPU_OBS_POLL_NS),
		      HRTIMER_MODE_REL);
	return 0;
}

/* Disable the unit; what it wrote stays readable. Under the lock. */
static void simgpu_obs_stop(struct simgpu_obs_stream *s)
{
	struct simgpu_device *sdev = s->sdev;

	lockdep_assert_held(&sdev->obs.lock);

	if (!s->enabled)
		return;

	simgpu_write32(sdev, SIMGPU_REG_OBS_CTRL, 0);
	hrtimer_cancel(&s->timer);
	s->lost_end = simgpu_read64(sdev, SIMGPU_REG_OBS_LOST_COUNT_LO,
				    SIMGPU_REG_OBS_LOST_COUNT_HI);
	s->overflow_end = simgpu_read64(sdev, SIMGPU_REG_OBS_OVERFLOW_COUNT_LO,
					SIMGPU_REG_OBS_OVERFLOW_COUNT_HI);
	s->lost_base += s->lost_end;
	s->overflow_base += s->overflow_end;
	WRITE_ONCE(s->enabled, false);
	wake_up_all(&sdev->obs.poll_wq);
}

static u32 simgpu_obs_rd(const __le32 *rep, u32 offset)
{
	return le32_to_cpu(READ_ONCE(rep[offset / 4]));
}

static u64 simgpu_obs_rd64(const __le32 *rep, u32 offset)
{
	return simgpu_obs_rd(rep, offset) |
	       (u64)simgpu_obs_rd(rep, offset + 4) << 32;
}

/* The gap record of @type for @missed reports at @b; they count as @seen */
static size_t simgpu_obs_put_gap(u8 *b, u32 type, u64 missed, u64 *seen)
{
	struct drm_simgpu_observation_record hdr = {
		.type = type,
		.size = SIMGPU_OBS_GAP_SIZE,
	};
	struct drm_simgpu_observation_lost lost = { .count = missed };

	memcpy(b, &hdr, sizeof(hdr));
	memcpy(b + sizeof(hdr), &lost, sizeof(lost));
	*seen += missed;
	return SIMGPU_OBS_GAP_SIZE;
}

/* The SAMPLE record of report @rep at @b */
static size_t simgpu_obs_put_sample(struct simgpu_obs_stream *s, u8 *b,
				    const __le32 *rep, u32 seqno)
{
	struct drm_simgpu_observation_record hdr = {
		.type = DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE,
		.size = SIMGPU_OBS_SAMPLE_SIZE,
	};
	struct drm_simgpu_observation_sample smp = {};
	unsigned int i;
	u32 ctx;

	smp.seqno = seqno;
	smp.reason = simgpu_obs_rd(rep, SIMGPU_OBS_REPORT_REASON);
	smp.timestamp = simgpu_obs_rd64(rep, SIMGPU_OBS_REPORT_TIMESTAMP);
	ctx = simgpu_obs_rd(rep, SIMGPU_OBS_REPORT_CTX);
	if (s->queue)
		ctx = ctx && ctx == s->ctx_id ? s->queue_id : 0;
	smp.context = ctx;
	for (i = 0; i < s->num_counters; i++)
		smp.values[i] = simgpu_obs_rd64(rep, SIMGPU_OBS_REPORT_SLOT(i));

	memcpy(b, &hdr, sizeof(hdr));
	memcpy(b + sizeof(hdr), &smp, sizeof(smp));
	return SIMGPU_OBS_SAMPLE_SIZE;
}

/*
 * Whether the stream, disabled, still owes the reader at @pos the gap
 * records of reports missing after the last one written.
 */
static bool simgpu_obs_end_pending(const struct simgpu_obs_stream *s,
				   const struct simgpu_obs_pos *pos)
{
	return !s->enabled && (pos->overflow_seen != s->overflow_end ||
			       pos->lost_seen != s->lost_end);
}

/*
 * The stream is disabled and read to HEAD: put at @b the gap records of the
 * reports missing after the last one written, as many as fit in @room.
 * Returns the bytes put.
 */
static size_t simgpu_obs_put_end(const struct simgpu_obs_stream *s,
				 struct simgpu_obs_pos *pos, u8 *b, size_t room)
{
	u64 overflow = s->overflow_end - pos->overflow_seen;
	u64 lost = s->lost_end - pos->lost_seen;
	size_t put = 0;

	if (overflow) {
		if (room < SIMGPU_OBS_GAP_SIZE)
			return 0;
		put += simgpu_obs_put_gap(b, DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW,
					  overflow, &pos->overflow_seen);
	}
	if (lost && room - put >= SIMGPU_OBS_GAP_SIZE)
		put += simgpu_obs_put_gap(b + put, DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST,
					  lost, &pos->lost_seen);
	return put;
}

/*
 * Collect what the unit wrote and copy it to the reader as records, in
 * chunks of the bounce buffer. Under the lock, inside drm_dev_enter().
 * The stream's position moves only with what reached the reader. Once the
 * stream is disabled and read to HEAD, the reports missing after the last
 * one written get their gap records: the records' counts then add up to
 * the unit's. Returns the bytes copied, or -ENOSPC when the next record
 * does not fit, -EFAULT, -EAGAIN for nothing to read while enabled, -EIO
 * while disabled.
 */
static ssize_t simgpu_obs_flush(struct simgpu_obs_stream *s,
				char __user *ubuf, size_t count)
{
	struct simgpu_device *sdev = s->sdev;
	struct simgpu_obs_pos pos = s->pos;
	u32 head, tail0 = s->pos.tail, n;
	size_t done = 0, fill = 0;
	const __le32 *rep;
	u8 *b = s->bounce;
	int ret = 0;

	lockdep_assert_held(&sdev->obs.lock);

	/* Opened disabled: HEAD is still another stream's */
	if (!s->started)
		return -EIO;

	/* Brings the unit up to date: the reports due until now */
	head = simgpu_read32(sdev, SIMGPU_REG_OBS_HEAD) & (s->size - 1);

	while (pos.tail != head) {
		rep = s->buf + pos.tail;

		n = simgpu_obs_rd(rep, SIMGPU_OBS_REPORT_OVERFLOWED);
		if (n && !(pos.sent & SIMGPU_OBS_SENT_OVERFLOW)) {
			if (done + fill + SIMGPU_OBS_GAP_SIZE > count)
				break;
			fill += simgpu_obs_put_gap(b + fill,
						   DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW,
						   n, &pos.overflow_seen);
			pos.seqno = 0;
			pos.sent |= SIMGPU_OBS_SENT_OVERFLOW;
		}
		n = simgpu_obs_rd(rep, SIMGPU_OBS_REPORT_LOST);
		if (n && !(pos.sent & SIMGPU_OBS_SENT_LOST)) {
			if (done + fill + SIMGPU_OBS_GAP_SIZE > count)
				break;
			fill += simgpu_obs_put_gap(b + fill,
						   DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST,
						   n, &pos.lost_seen);
			pos.seqno = 0;
			pos.sent |= SIMGPU_OBS_SENT_LOST;
		}
		if (done + fill + SIMGPU_OBS_SAMPLE_SIZE > count)
			break;
		fill += simgpu_obs_put_sample(s, b + fill, rep, pos.seqno++);
		pos.sent = 0;
		pos.tail = (pos.tail + SIMGPU_OBS_REPORT_SIZE) & (s->size - 1);

		if (fill + SIMGPU_OBS_GROUP_SIZE > SIMGPU_OBS_BOUNCE_SIZE) {
			if (copy_to_user(ubuf + done, b, fill)) {
				ret = -EFAULT;
				fill = 0;
				break;
			}
			done += fill;
			fill = 0;
			s->pos = pos;
		}
	}

	/* The bounce buffer has room for two gap records after the loop */
	if (!ret && pos.tail == head && simgpu_obs_end_pending(s, &pos))
		fill += simgpu_obs_put_end(s, &pos, b + fill, count - done - fill);

	if (fill) {
		if (copy_to_user(ubuf + done, b, fill)) {
			ret = -EFAULT;
		} else {
			done += fill;
			s->pos = pos;
		}
	}

	if (s->pos.tail != tail0)
		simgpu_write32(sdev, SIMGPU_REG_OBS_TAIL, s->pos.tail);

	if (done)
		return done;
	if (ret)
		return ret;
	if (pos.tail != head || simgpu_obs_end_pending(s, &pos))
		return -ENOSPC;
	return s->enabled ? -EAGAIN : -EIO;
}

/*
 * What poll() reports for the stream, and when a blocking read() returns
 * at once: under the lock, inside drm_dev_enter(). Computed from HEAD and
 * the stream's own position, so that it holds for this stream only and
 * after any read, short ones included. Enabled: EPOLLIN once
 * &simgpu_obs_stream.threshold bytes of reports are unread. Disabled:
 * EPOLLIN while reports or the end's gap records are left, then EPOLLHUP
 * (read() fails with -EIO until the stream is enabled again); so is a
 * stream opened disabled and never enabled.
 */
static __poll_t simgpu_obs_events(struct simgpu_obs_stream *s)
{
	u32 head, unread;

	lockdep_assert_held(&s->sdev->obs.lock);

	if (!s->started)
		return EPOLLHUP;
	head = simgpu_read32(s->sdev, SIMGPU_REG_OBS_HEAD) & (s->size - 1);
	unread = (head - s->pos.tail) & (s->size - 1);
	if (s->enabled)
		return unread >= s->threshold ? EPOLLIN | EPOLLRDNORM : 0;
	if (unread || simgpu_obs_end_pending(s, &s->pos))
		return EPOLLIN | EPOLLRDNORM;
	return EPOLLHUP;
}

/*
 * A blocking read() waits until poll() would report an event (the
 * threshold reached, the stream disabled, the device gone), then returns
 * what there is. With O_NONBLOCK it returns what there is at once, or
 * -EAGAIN for nothing.
 */
static ssize_t simgpu_obs_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct simgpu_obs_stream *s = file->private_data;
	struct simgpu_device *sdev = s->sdev;
	struct simgpu_observation *obs = &sdev->obs;
	bool block = !(file->f_flags & O_NONBLOCK);
	ssize_t ret;
	int idx;

	for (;;) {
		if (!drm_dev_enter(&sdev->drm, &idx))
			return -ENODEV;
		mutex_lock(&obs->lock);
		/* Cleared before the check: a wakeup after it is not lost */
		WRITE_ONCE(obs->pollin, false);
		if (s->gone)
			ret = -ENODEV;
		else if (block && !simgpu_obs_events(s))
			ret = -EAGAIN;
		else
			ret = simgpu_obs_flush(s, ubuf, count);
		mutex_unlock(&obs->lock);
		drm_dev_exit(idx);

		if (ret != -EAGAIN || !block)
			return ret;

		if (wait_event_interruptible(obs->poll_wq,
					     READ_ONCE(obs->pollin) ||
					     READ_ONCE(s->gone) ||
					     !READ_ONCE(s->enabled)))
			return -ERESTARTSYS;
	}
}

static __poll_t simgpu_obs_poll(struct file *file, poll_table *wait)
{
	struct simgpu_obs_stream *s = file->private_data;
	struct simgpu_observation *obs = &s->sdev->obs;
	__poll_t events;
	int idx;

	poll_wait(file, &obs->poll_wq, wait);

	if (!drm_dev_enter(&s->sdev->drm, &idx))
		return EPOLLERR | EPOLLHUP;
	mutex_lock(&obs->lock);
	events = s->gone ? EPOLLERR | EPOLLHUP : simgpu_obs_events(s);
	mutex_unlock(&obs->lock);
	drm_dev_exit(idx);

	return events;
}

static void simgpu_obs_status(struct simgpu_obs_stream *s,
			      struct drm_simgpu_observation_status *st)
{
	struct simgpu_device *sdev = s->sdev;

	memset(st, 0, sizeof(*st));
	st->lost = s->lost_base;
	st->overflow = s->overflow_base;
	if (s->enabled) {
		st->lost += simgpu_read64(sdev, SIMGPU_REG_OBS_LOST_COUNT_LO,
					  SIMGPU_REG_OBS_LOST_COUNT_HI);
		st->overflow += simgpu_read64(sdev,
					      SIMGPU_REG_OBS_OVERFLOW_COUNT_LO,
					      SIMGPU_REG_OBS_OVERFLOW_COUNT_HI);
		st->flags |= DRM_SIMGPU_OBSERVATION_STATUS_ENABLED;
	}
}

static void simgpu_obs_info(struct simgpu_obs_stream *s,
			    struct drm_simgpu_observation_info *info)
{
	unsigned int i;

	memset(info, 0, sizeof(*info));
	info->record_size = sizeof(struct drm_simgpu_observation_record) +
			    sizeof(struct drm_simgpu_observation_sample);
	info->buffer_size = s->size;
	info->period_ticks = 2ull << s->exponent;
	info->refclk_hz = s->sdev->refclk_hz;
	info->engine = s->engine->class | (u32)s->engine->instance << 16;
	info->exec_queue_id = s->queue_id;
	info->num_counters = s->num_counters;
	for (i = 0; i < s->num_counters; i++)
		info->counters[i] = s->counters[i];
}

static long simgpu_obs_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct simgpu_obs_stream *s = file->private_data;
	struct simgpu_device *sdev = s->sdev;
	struct drm_simgpu_observation_status st;
	struct drm_simgpu_observation_info info;
	void __user *uarg = (void __user *)arg;
	long ret = 0;
	int idx;

	if (!drm_dev_enter(&sdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&sdev->obs.lock);

	if (s->gone) {
		ret = -ENODEV;
		goto out;
	}

	switch (cmd) {
	case DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE:
		ret = simgpu_obs_start(s);
		break;
	case DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE:
		simgpu_obs_stop(s);
		break;
	case DRM_SIMGPU_OBSERVATION_IOCTL_STATUS:
		simgpu_obs_status(s, &st);
		if (copy_to_user(uarg, &st, sizeof(st)))
			ret = -EFAULT;
		break;
	case DRM_SIMGPU_OBSERVATION_IOCTL_INFO:
		simgpu_obs_info(s, &info);
		if (copy_to_user(uarg, &info, sizeof(info)))
			ret = -EFAULT;
		break;
	default:
		ret = -ENOTTY;
		break;
	}

out:
	mutex_unlock(&sdev->obs.lock);
	drm_dev_exit(idx);
	return ret;
}

static void simgpu_obs_free(struct simgpu_obs_stream *s)
{
	if (s->buf)
		free_pages_exact(s->buf, s->size);
	kfree(s->bounce);
	if (s->queue)
		simgpu_queue_put(s->queue);
	put_pid(s->pid);
	drm_dev_put(&s->sdev->drm);
	kfree(s);
}

static int simgpu_obs_release(struct inode *inode, struct file *file)
{
	struct simgpu_obs_stream *s = file->private_data;
	struct simgpu_observation *obs = &s->sdev->obs;

	mutex_lock(&obs->lock);
	/* After an unbind, simgpu_observation_unplug() stopped the unit */
	if (!s->gone)
		simgpu_obs_stop(s);
	obs->stream = NULL;
	mutex_unlock(&obs->lock);

	simgpu_obs_free(s);
	return 0;
}

static const struct file_operations simgpu_obs_fops = {
	.owner = THIS_MODULE,
	.release = simgpu_obs_release,
	.poll = simgpu_obs_poll,
	.read = simgpu_obs_read,
	.unlocked_ioctl = simgpu_obs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static int simgpu_obs_set_property(u64 extension, void *data)
{
	struct simgpu_obs_args *a = data;
	struct drm_simgpu_observation_set_property p;
	unsigned int i;

	if (copy_from_user(&p, u64_to_user_ptr(extension), sizeof(p)))
		return -EFAULT;
	if (p.pad || !p.property || p.property > SIMGPU_OBS_PROP_LAST)
		return -EINVAL;

	if (p.property == DRM_SIMGPU_OBSERVATION_PROP_COUNTER) {
		if (p.value >= SIMGPU_PERF_NUM_SIGNALS)
			return -EINVAL;
		for (i = 0; i < a->num_counters; i++)
			if (a->counters[i] == p.value)
				return -EINVAL;
		if (a->num_counters == SIMGPU_PERF_NUM_SLOTS)
			return -E2BIG;
		a->counters[a->num_counters++] = p.value;
		return 0;
	}

	if (a->seen & BIT(p.property))
		return -EINVAL;
	a->seen |= BIT(p.property);

	switch (p.property) {
	case DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT:
		a->exponent = p.value;
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID:
		a->queue_id = p.value;
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_ENGINE:
		a->engine = p.value;
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE:
		a->buffer_size = p.value;
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_DISABLED:
		a->disabled = p.value;
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS:
		a->wait_reports = p.value;
		break;
	}
	return 0;
}

static const simgpu_user_extension_fn simgpu_obs_extensions[] = {
	[DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY] = simgpu_obs_set_property,
};

#define SEEN(prop)	(a.seen & BIT(DRM_SIMGPU_OBSERVATION_PROP_##prop))

/* Check the properties, find the queue and engine; fill @s */
static int simgpu_obs_setup(struct simgpu_obs_stream *s,
			    struct simgpu_file *sfile,
			    const struct simgpu_obs_args *args)
{
	struct simgpu_device *sdev = s->sdev;
	struct simgpu_obs_args a = *args;
	u64 period_ns;

	if (!SEEN(BUFFER_SIZE))
		a.buffer_size = SIMGPU_OBS_BUF_DEFAULT;
	if (a.buffer_size < SIMGPU_OBS_BUF_MIN ||
	    a.buffer_size > SIMGPU_OBS_BUF_LIMIT ||
	    !is_power_of_2(a.buffer_size))
		return -EINVAL;
	s->size = a.buffer_size;

	if (!SEEN(WAIT_NUM_REPORTS))
		a.wait_reports = 1;
	if (!a.wait_reports ||
	    a.wait_reports > s->size / SIMGPU_OBS_REPORT_SIZE / 2)
		return -EINVAL;
	s->threshold = a.wait_reports * SIMGPU_OBS_REPORT_SIZE;

	if (!SEEN(PERIOD_EXPONENT)) {
		/* The shortest period of at least a millisecond */
		for (a.exponent = 0;
		     a.exponent < DRM_SIMGPU_OBSERVATION_MAX_EXPONENT &&
		     (2ull << a.exponent) * MSEC_PER_SEC < sdev->refclk_hz;
		     a.exponent++)
			;
	}
	if (a.exponent > DRM_SIMGPU_OBSERVATION_MAX_EXPONENT)
		return -EINVAL;
	s->exponent = a.exponent;

	if (SEEN(EXEC_QUEUE_ID)) {
		if (a.queue_id > U32_MAX)
			return -ENOENT;
		s->queue = simgpu_queue_lookup(sfile, a.queue_id);
		if (!s->queue)
			return -ENOENT;
		s->queue_id = a.queue_id;
		s->ctx_id = s->queue->ctx->id;
		s->engine = s->queue->engine;
	}

	if (SEEN(ENGINE)) {
		struct simgpu_engine *eng = NULL;
		u32 class = a.engine & 0xffff, instance = a.engine >> 16;

		if (a.engine <= U32_MAX &&
		    class < DRM_SIMGPU_ENGINE_CLASS_COUNT &&
		    instance < SIMGPU_MAX_INSTANCES)
			eng = simgpu_engine_get(sdev, class, instance);
		if (!eng || (s->engine && eng != s->engine))
			return -EINVAL;
		s->engine = eng;
	}
	if (!s->engine)
		s->engine = sdev->engines[0];

	memcpy(s->counters, a.counters, sizeof(s->counters));
	s->num_counters = a.num_counters;

	/*
	 * The rate limit holds whatever the sysctl says, as i915 keeps
	 * oa_max_sample_rate apart from perf_stream_paranoid
	 */
	period_ns = div_u64((2ull << s->exponent) * NSEC_PER_SEC,
			    sdev->refclk_hz);
	if (period_ns < DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS &&
	    !perfmon_capable()) {
		drm_dbg_driver(&sdev->drm,
			       "a period under %u ns needs CAP_PERFMON\n",
			       DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS);
		return -EACCES;
	}
	if (!s->queue && !simgpu_observation_device_wide_allowed()) {
		drm_dbg_driver(&sdev->drm,
			       "device-wide observation needs CAP_PERFMON\n");
		return -EACCES;
	}

	return 0;
}

#undef SEEN

/**
 * simgpu_observation_device_wide_allowed - may the caller observe all work
 *
 * The one privilege rule of the driver for observing other clients' work
 * (a device-wide observation stream, a device-wide perfmon), as
 * perf_event_paranoid is for perf: perfmon_capable(), or the sysctl
 * dev.simgpu.observation_paranoid at 0. A period shorter than
 * %DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS needs perfmon_capable() whatever
 * the sysctl.
 *
 * Returns: true if the current task may.
 */
bool simgpu_observation_device_wide_allowed(void)
{
	return !READ_ONCE(simgpu_observation_paranoid) || perfmon_capable();
}

/**
 * simgpu_ioctl_observation_open - &DRM_IOCTL_SIMGPU_OBSERVATION_OPEN
 * @drm: the device
 * @data: a &struct drm_simgpu_observation_open
 * @file: the caller's file
 *
 * Returns: the stream's fd, or one of the errors documented at &struct
 * drm_simgpu_observation_open. The fd is installed last, and nothing is
 * copied back to userspace after it (the ioctl is write-only): a stream
 * is never left in the caller's file table when the ioctl fails.
 */
int simgpu_ioctl_observation_open(struct drm_device *drm, void *data,
				  struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(drm);
	struct simgpu_observation *obs = &sdev->obs;
	struct drm_simgpu_observation_open *args = data;
	struct simgpu_obs_args a = {};
	struct simgpu_obs_stream *s;
	int ret, fd;

	if (args->flags & ~DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK || args->pad)
		return -EINVAL;

	ret = simgpu_user_extensions(args->extensions, simgpu_obs_extensions,
				     ARRAY_SIZE(simgpu_obs_extensions), &a);
	if (ret)
		return ret;

	s = kzalloc_obj(*s);
	if (!s)
		return -ENOMEM;
	drm_dev_get(drm);
	s->sdev = sdev;
	s->pid = get_task_pid(current, PIDTYPE_TGID);
	hrtimer_setup(&s->timer, simgpu_obs_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);

	ret = simgpu_obs_setup(s, to_simgpu_file(file), &a);
	if (ret)
		goto err_free;

	/* Charged to the opener's memory cgroup, as its buffers are */
	s->buf = alloc_pages_exact(s->size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				   __GFP_NOWARN);
	s->bounce = kmalloc(SIMGPU_OBS_BOUNCE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!s->buf || !s->bounce) {
		ret = -ENOMEM;
		goto err_free;
	}

	mutex_lock(&obs->lock);
	if (obs->gone) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (obs->stream) {
		ret = -EBUSY;
		goto err_unlock;
	}
	if (!a.disabled) {
		ret = simgpu_obs_start(s);
		if (ret)
			goto err_unlock;
	}
	fd = anon_inode_getfd("[simgpu_observation]", &simgpu_obs_fops, s,
			      O_RDONLY | O_CLOEXEC |
			      (args->flags & DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK ?
			       O_NONBLOCK : 0));
	if (fd < 0) {
		ret = fd;
		simgpu_obs_stop(s);
		goto err_unlock;
	}
	obs->stream = s;
	mutex_unlock(&obs->lock);

	return fd;

err_unlock:
	mutex_unlock(&obs->lock);
err_free:
	simgpu_obs_free(s);
	return ret;
}

/**
 * simgpu_observation_unplug - stop the stream at unbind
 * @sdev: the device, before drm_dev_unplug()
 *
 * Stops the unit and the stream's timer, so that nothing writes into the
 * stream's buffer anymore; the stream fails its calls from now on and is
 * freed when closed. No stream can be opened afterwards.
 */
void simgpu_observation_unplug(struct simgpu_device *sdev)
{
	struct simgpu_observation *obs = &sdev->obs;

	mutex_lock(&obs->lock);
	obs->gone = true;
	if (obs->stream) {
		simgpu_obs_stop(obs->stream);
		WRITE_ONCE(obs->stream->gone, true);
	}
	mutex_unlock(&obs->lock);
	wake_up_all(&obs->poll_wq);
}

/*
 * debugfs simgpu_observation: who holds the device's one unit. A stream
 * holds it from its open to its close, enabled or not, so that an open
 * by another process, privileged or not, gets -EBUSY meanwhile: this
 * file tells an administrator whose stream it is.
 */
static int simgpu_obs_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct simgpu_observation *obs = &to_simgpu_device(entry->dev)->obs;
	struct simgpu_obs_stream *s;
	struct task_struct *task;

	mutex_lock(&obs->lock);
	s = obs->stream;
	if (!s) {
		seq_puts(m, "holder: none\n");
		goto out;
	}
	rcu_read_lock();
	task = pid_task(s->pid, PIDTYPE_TGID);
	seq_printf(m, "holder: %d %s\n", pid_vnr(s->pid),
		   task ? task->comm : "<gone>");
	rcu_read_unlock();
	seq_printf(m, "state: %s\n", s->enabled ? "enabled" :
		   s->started ? "disabled" : "never enabled");
	seq_printf(m, "engine: %s\n", s->engine->name);
	if (s->queue)
		seq_printf(m, "exec queue: %u\n", s->queue_id);
	else
		seq_puts(m, "exec queue: none (device-wide)\n");
	seq_printf(m, "period: %llu ticks\n", 2ull << s->exponent);
out:
	mutex_unlock(&obs->lock);
	return 0;
}

/**
 * simgpu_observation_init - set up the device's observation state
 * @sdev: the device, before its interrupt is enabled
 *
 * Returns: 0 or -ENOMEM.
 */
int simgpu_observation_init(struct simgpu_device *sdev)
{
	init_waitqueue_head(&sdev->obs.poll_wq);
	drm_debugfs_add_file(&sdev->drm, "simgpu_observation", simgpu_obs_show,
			     NULL);
	return drmm_mutex_init(&sdev->drm, &sdev->obs.lock);
}

static const struct ctl_table simgpu_obs_sysctl[] = {
	{
		.procname = "observation_paranoid",
		.data = &simgpu_observation_paranoid,
		.maxlen = sizeof(simgpu_observation_paranoid),
		.mode = 0644,
		.proc_handler = proc_dointvec_minmax,
		.extra1 = SYSCTL_ZERO,
		.extra2 = SYSCTL_ONE,
	},
};

static struct ctl_table_header *simgpu_obs_sysctl_header;

/**
 * simgpu_observation_module_init - register dev.simgpu.observation_paranoid
 *
 * Returns: 0 or -ENOMEM.
 */
int simgpu_observation_module_init(void)
{
	if (!IS_ENABLED(CONFIG_SYSCTL))
		return 0;
	simgpu_obs_sysctl_header = register_sysctl("dev/simgpu",
						   simgpu_obs_sysctl);
	return simgpu_obs_sysctl_header ? 0 : -ENOMEM;
}

/**
 * simgpu_observation_module_exit - unregister the sysctl
 */
void simgpu_observation_module_exit(void)
{
	unregister_sysctl_table(simgpu_obs_sysctl_header);
}
