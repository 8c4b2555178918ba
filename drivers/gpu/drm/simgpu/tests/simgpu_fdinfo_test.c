// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of simgpu's fdinfo usage statistics.
 *
 * The device runs on a fake clock that the tests move by hand, and work is
 * submitted straight to the hardware's submission port, so every count is
 * exact and known in advance.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <kunit/test.h>
#include <kunit/test-bug.h>

#include <linux/file.h>
#include <linux/seq_file.h>

#include <drm/drm_file.h>
#include <drm/drm_kunit_helpers.h>

#include "../simgpu_ctx.h"
#include "../simgpu_drv.h"
#include "../simgpu_engine.h"

/* kasprintf() whose result is freed when the test ends */
KUNIT_DEFINE_ACTION_WRAPPER(fdinfo_kfree, kfree, const void *);

static __printf(3, 4) char *fdinfo_kasprintf(struct kunit *test, gfp_t gfp,
					    const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = kvasprintf(gfp, fmt, ap);
	va_end(ap);
	if (p && kunit_add_action_or_reset(test, fdinfo_kfree, p))
		return NULL;
	return p;
}

#define FDINFO_BUF_SIZE	4096
#define RCS		DRM_SIMGPU_ENGINE_CLASS_RENDER
#define CCS		DRM_SIMGPU_ENGINE_CLASS_COMPUTE

struct fdinfo_test {
	struct simgpu_device *sdev;
	u64 now_ns;		/* the fake clock */
	u32 seqno;
	char *buf;
	/* The image whose switch count each clock read bumps, switches left */
	__le32 *switching;
	int switches;
};

static u64 fake_clock(void *data)
{
	struct fdinfo_test *ft = data;
	__le32 *img = READ_ONCE(ft->switching);

	/* Called by the model with its engine lock held: no other caller */
	if (img && ft->switches > 0) {
		ft->switches--;
		img[CTX_IMG_SWITCH_COUNT / 4] =
			cpu_to_le32(le32_to_cpu(img[CTX_IMG_SWITCH_COUNT / 4]) + 2);
	}
	return READ_ONCE(ft->now_ns);
}

static void clock_set(struct fdinfo_test *ft, u64 ns)
{
	WRITE_ONCE(ft->now_ns, ns);
}

static void fdinfo_test_setup(struct kunit *test, u32 refclk, u64 ts_offset)
{
	struct fdinfo_test *ft;
	struct device *dev;
	struct simgpu_hw_config cfg = {
		.refclk_hz = refclk,
		.instances = { 1, 1, 2, 1, 4 },
		.vram_size = SZ_16M,
		.now_ns = fake_clock,
		.ts_offset = ts_offset,
	};

	ft = kunit_kzalloc(test, sizeof(*ft), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ft);
	ft->buf = kunit_kzalloc(test, FDINFO_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ft->buf);
	cfg.clock_data = ft;

	dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);

	ft->sdev = simgpu_device_create(dev, &cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ft->sdev);

	test->priv = ft;
}

static int fdinfo_test_init(struct kunit *test)
{
	fdinfo_test_setup(test, 19200000, 0);
	return 0;
}

/*
 * Closing is deferred from a kthread: wait for it, so the file is gone
 * before the device and the fake clock it reads are.
 */
static void fdinfo_close(void *file)
{
	fput(file);
	flush_delayed_fput();
}

/* A client; closed when the test ends, even if it fails. */
static struct file *fdinfo_open(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file;

	file = mock_drm_getfile(ft->sdev->drm.primary, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fdinfo_close,
							file), 0);
	return file;
}

static struct simgpu_client_usage *file_usage(struct file *file)
{
	return to_simgpu_file(file->private_data)->usage;
}

/* Run the fdinfo callback as procfs does, into a seq_file over ft->buf. */
static const char *fdinfo_read(struct kunit *test, struct file *file)
{
	struct fdinfo_test *ft = test->priv;
	struct seq_file m = {
		.buf = ft->buf,
		.size = FDINFO_BUF_SIZE,
		.file = file,
	};

	drm_show_fdinfo(&m, file);
	KUNIT_ASSERT_FALSE_MSG(test, seq_has_overflowed(&m),
			       "fdinfo larger than %d bytes", FDINFO_BUF_SIZE);
	KUNIT_ASSERT_LT(test, m.count, FDINFO_BUF_SIZE);
	ft->buf[m.count] = '\0';
	return ft->buf;
}

/* The value of "key:\t<value>" in fdinfo output, as a number. */
static u64 fdinfo_value(struct kunit *test, const char *out, const char *key)
{
	char pattern[64];
	const char *line;
	u64 val = 0;
	char num[24];
	size_t len;

	snprintf(pattern, sizeof(pattern), "%s:\t", key);
	line = strstr(out, pattern);
	KUNIT_ASSERT_NOT_NULL_MSG(test, line, "no %s in:\n%s", key, out);
	if (line != out)
		KUNIT_ASSERT_EQ(test, line[-1], '\n');
	line += strlen(pattern);
	len = strcspn(line, "\n ");
	KUNIT_ASSERT_LT(test, len, sizeof(num));
	memcpy(num, line, len);
	num[len] = '\0';
	KUNIT_ASSERT_EQ(test, kstrtou64(num, 10, &val), 0);
	return val;
}

/*
 * Queue "busy for @ns" on an engine straight through the submission port.
 * The batch lives until the test ends, by when the hardware is done.
 */
static void submit_busy(struct kunit *test, struct simgpu_ctx *ctx,
			unsigned int class, unsigned int inst, u64 ns)
{
	struct fdinfo_test *ft = test->priv;
	u32 base = SIMGPU_ENGINE_BASE(SIMGPU_HW_ENGINE_ID(class, inst));
	u32 seqno = ++ft->seqno;
	u64 ctx_addr = simgpu_ctx_submit(ctx, seqno);
	__le32 *batch;
	u64 addr;

	batch = kunit_kzalloc(test, 4 * sizeof(*batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, batch);
	batch[0] = cpu_to_le32(SIMGPU_CMD_BUSY);
	batch[1] = cpu_to_le32(lower_32_bits(ns));
	batch[2] = cpu_to_le32(upper_32_bits(ns));
	batch[3] = cpu_to_le32(SIMGPU_CMD_END);
	addr = virt_to_phys(batch);

	KUNIT_ASSERT_GT(test, simgpu_read32(ft->sdev, base + RING_SUBMIT_FREE), 0);
	simgpu_write32(ft->sdev, base + RING_SUBMIT_CTX_LO, lower_32_bits(ctx_addr));
	simgpu_write32(ft->sdev, base + RING_SUBMIT_CTX_HI, upper_32_bits(ctx_addr));
	simgpu_write32(ft->sdev, base + RING_SUBMIT_BATCH_LO, lower_32_bits(addr));
	simgpu_write32(ft->sdev, base + RING_SUBMIT_BATCH_HI, upper_32_bits(addr));
	simgpu_write32(ft->sdev, base + RING_SUBMIT_SEQNO, seqno);
	simgpu_write32(ft->sdev, base + RING_SUBMIT, 1);
	simgpu_ctx_submitted(ft->sdev);
}

static void ctx_destroy(void *ctx)
{
	struct fdinfo_test *ft = kunit_get_current_test()->priv;

	simgpu_ctx_destroy(ft->sdev, ctx);
}

/* A context; destroyed when the test ends, before its file is closed. */
static struct simgpu_ctx *ctx_create(struct kunit *test, struct file *file,
				     unsigned int class)
{
	struct fdinfo_test *ft = test->priv;
	struct simgpu_ctx *ctx;

	ctx = simgpu_ctx_create(ft->sdev, file_usage(file), class);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ctx_destroy,
							ctx), 0);
	return ctx;
}

/*
 * Reference clock ticks in @ns, a multiple of 1 us here: whole
 * microseconds times the clock fit in 64 bits for every test's @ns.
 */
static u64 ticks(struct fdinfo_test *ft, u64 ns)
{
	return div_u64(div_u64(ns, NSEC_PER_USEC) * ft->sdev->refclk_hz,
		       USEC_PER_SEC);
}

/* Run the fold worker now, as its timer would, and wait for it. */
static void fold_worker_run(struct simgpu_ctx_mgr *mgr)
{
	mod_delayed_work(system_percpu_wq, &mgr->fold_work, 0);
	flush_delayed_work(&mgr->fold_work);
}

static void fdinfo_test_idle_output(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file = fdinfo_open(test);
	struct drm_file *dfile = file->private_data;
	const char *out;
	char *expect;
	u64 t;

	clock_set(ft, 2ULL * NSEC_PER_SEC);
	t = ticks(ft, 2ULL * NSEC_PER_SEC);
	expect = fdinfo_kasprintf(test, GFP_KERNEL,
				  "drm-driver:\tsimgpu\n"
				  "drm-client-id:\t%llu\n"
				  "drm-engine-rcs:\t0 ns\n"
				  "drm-cycles-rcs:\t0\n"
				  "drm-total-cycles-rcs:\t%llu\n"
				  "drm-engine-bcs:\t0 ns\n"
				  "drm-cycles-bcs:\t0\n"
				  "drm-total-cycles-bcs:\t%llu\n"
				  "drm-engine-vcs:\t0 ns\n"
				  "drm-cycles-vcs:\t0\n"
				  "drm-total-cycles-vcs:\t%llu\n"
				  "drm-engine-capacity-vcs:\t2\n"
				  "drm-engine-vecs:\t0 ns\n"
				  "drm-cycles-vecs:\t0\n"
				  "drm-total-cycles-vecs:\t%llu\n"
				  "drm-engine-ccs:\t0 ns\n"
				  "drm-cycles-ccs:\t0\n"
				  "drm-total-cycles-ccs:\t%llu\n"
				  "drm-engine-capacity-ccs:\t4\n"
				  "drm-total-memory:\t0\n"
				  "drm-shared-memory:\t0\n"
				  "drm-active-memory:\t0\n"
				  "drm-resident-memory:\t0\n"
				  "drm-purgeable-memory:\t0\n"
				  "drm-total-vram0:\t0\n"
				  "drm-shared-vram0:\t0\n"
				  "drm-active-vram0:\t0\n"
				  "drm-resident-vram0:\t0\n",
				  dfile->client_id, t, t, t, t, t);
	KUNIT_ASSERT_NOT_NULL(test, expect);

	out = fdinfo_read(test, file);
	KUNIT_EXPECT_STREQ(test, out, expect);

	/* Reading again (seq_file retries on overflow) changes nothing. */
	out = fdinfo_read(test, file);
	KUNIT_EXPECT_STREQ(test, out, expect);
}

/* A running job's time shows while it runs, at 100 % in every window. */
static void fdinfo_test_running_context(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *ctx = ctx_create(test, file, RCS);
	u64 cycles, total, prev_cycles, prev_total;
	unsigned int i;

	clock_set(ft, NSEC_PER_SEC);
	submit_busy(test, ctx, RCS, 0, 3ULL * NSEC_PER_SEC);
	prev_cycles = fdinfo_value(test, fdinfo_read(test, file), "drm-cycles-rcs");
	prev_total = fdinfo_value(test, ft->buf, "drm-total-cycles-rcs");
	KUNIT_EXPECT_EQ(test, prev_cycles, 0);

	/*
	 * Windows of 0.5 s while the job runs, from 1 s to 3.5 s; in the odd
	 * ones the first sample is taken as by a sampler that lost to others
	 */
	for (i = 1; i <= 5; i++) {
		clock_set(ft, NSEC_PER_SEC + (u64)i * NSEC_PER_SEC / 2);
		WRITE_ONCE(ft->sdev->engines[0]->sample_serial, i % 2);
		cycles = fdinfo_value(test, fdinfo_read(test, file),
				      "drm-cycles-rcs");
		total = fdinfo_value(test, ft->buf, "drm-total-cycles-rcs");
		KUNIT_EXPECT_EQ_MSG(test, cycles - prev_cycles,
				    total - prev_total, "window %u", i);
		KUNIT_EXPECT_EQ_MSG(test, cycles, ticks(ft, (u64)i * NSEC_PER_SEC / 2),
				    "window %u", i);
		prev_cycles = cycles;
		prev_total = total;
	}

	/* Done at exactly 4 s: all of it shows, no completion needed. */
	clock_set(ft, 4ULL * NSEC_PER_SEC);
	cycles = fdinfo_value(test, fdinfo_read(test, file), "drm-cycles-rcs");
	KUNIT_EXPECT_EQ(test, cycles, ticks(ft, 3ULL * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, ft->buf, "drm-engine-rcs"),
			3ULL * NSEC_PER_SEC);

	/* Idle: the counter stays put. */
	clock_set(ft, 10ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"), cycles);
}

/*
 * At 1 GHz the 32-bit CTX_TIMESTAMP wraps every 4.3 s. Thirty seconds of
 * back-to-back work of one context, never read in between, must be counted
 * exactly: the fold worker alone has to catch every wrap. The fake clock
 * moves one fold period per run of the worker.
 */
static void fdinfo_test_wrap(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct simgpu_ctx_mgr *mgr = &ft->sdev->ctxs;
	u64 step = jiffies_to_nsecs(mgr->fold_period);
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *ctx = ctx_create(test, file, RCS);
	unsigned int i;
	u64 now;

	KUNIT_ASSERT_LT(test, ticks(ft, step), 1ULL << 32);
	for (i = 0; i < 30; i++)
		submit_busy(test, ctx, RCS, 0, NSEC_PER_SEC);

	for (now = step; now < 31ULL * NSEC_PER_SEC; now += step) {
		clock_set(ft, now);
		fold_worker_run(mgr);
	}
	clock_set(ft, 31ULL * NSEC_PER_SEC);

	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			30ULL * NSEC_PER_SEC);
}

/*
 * The fold worker late past a wrap of CTX_TIMESTAMP (4.3 s at 1 GHz): the
 * fold sees it and counts it. A context resident all along is folded
 * exactly, from the reference clock; one that switched in between cannot
 * be, and the fold counts it as lost. A context idle for longer than a
 * wrap, off its client's active list, is not late.
 */
static void fdinfo_test_late_fold(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct simgpu_ctx_mgr *mgr = &ft->sdev->ctxs;
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *a = ctx_create(test, file, RCS);
	struct simgpu_ctx *b = ctx_create(test, file, CCS);
	struct simgpu_ctx *c = ctx_create(test, file, CCS);
	u64 one = ticks(ft, NSEC_PER_SEC);
	unsigned int i;

	/*
	 * a: resident from 0 to 10 s on rcs0. b: on ccs0 from 0 to 5 s and
	 * from 5.5 to 6.5 s, c in between.
	 */
	for (i = 0; i < 10; i++)
		submit_busy(test, a, RCS, 0, NSEC_PER_SEC);
	submit_busy(test, b, CCS, 0, 5ULL * NSEC_PER_SEC);

	clock_set(ft, NSEC_PER_SEC / 2);
	fold_worker_run(mgr);
	KUNIT_EXPECT_EQ(test, atomic_read(&mgr->late_folds), 0);

	clock_set(ft, 4ULL * NSEC_PER_SEC + NSEC_PER_SEC / 2);
	submit_busy(test, c, CCS, 0, NSEC_PER_SEC / 2);
	submit_busy(test, b, CCS, 0, NSEC_PER_SEC);

	/* The worker 5.25 s late, past a wrap: a and b are late */
	clock_set(ft, 5ULL * NSEC_PER_SEC + NSEC_PER_SEC / 2 + NSEC_PER_SEC / 4);
	fold_worker_run(mgr);
	KUNIT_EXPECT_EQ(test, atomic_read(&mgr->late_folds), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&mgr->lost_folds), 1);
	/* c, folded by the read, is not */
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			one * 5 + one * 3 / 4);
	/* b's 5.25 s less the 2^32 ticks lost, and c's 0.5 s */
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, ft->buf, "drm-cycles-ccs"),
			one * 5 + one / 4 - (1ULL << 32) + one / 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&mgr->late_folds), 2);

	/* On time from there, read every second: a ends exact */
	for (i = 0; i < 5; i++) {
		clock_set(ft, 6ULL * NSEC_PER_SEC + i * NSEC_PER_SEC);
		fold_worker_run(mgr);
		fdinfo_read(test, file);
	}
	clock_set(ft, 11ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"), one * 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&mgr->late_folds), 2);

	/* Idle for 20 s, then 1 s of work: on time, not late */
	clock_set(ft, 31ULL * NSEC_PER_SEC);
	submit_busy(test, a, RCS, 0, NSEC_PER_SEC);
	clock_set(ft, 31ULL * NSEC_PER_SEC + NSEC_PER_SEC / 2);
	fold_worker_run(mgr);
	clock_set(ft, 33ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"), one * 11);
	KUNIT_EXPECT_EQ(test, atomic_read(&mgr->late_folds), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&mgr->lost_folds), 1);
}

/* At any refclk a fold period is at most an eighth of a wrap. */
static void fdinfo_test_fold_period(struct kunit *test)
{
	static const u32 clocks[] = { 19200000, 1000000000, U32_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		unsigned long period = simgpu_ctx_fold_period(clocks[i]);
		u64 ns = jiffies_to_nsecs(period);

		KUNIT_EXPECT_GE(test, period, 1);
		KUNIT_EXPECT_LE(test, ns, NSEC_PER_SEC);
		KUNIT_EXPECT_LE_MSG(test,
				    mul_u64_u32_div(ns, clocks[i], NSEC_PER_SEC),
				    1ULL << 29, "refclk %u", clocks[i]);
	}
}

/*
 * The fold worker runs while work may be on the hardware and stops once it
 * finds none for a whole period; a submission starts it again.
 */
static void fdinfo_test_fold_worker_idles(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct simgpu_ctx_mgr *mgr = &ft->sdev->ctxs;
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *ctx = ctx_create(test, file, RCS);

	KUNIT_EXPECT_FALSE_MSG(test, delayed_work_pending(&mgr->fold_work),
			       "fold worker runs before any submission");
	submit_busy(test, ctx, RCS, 0, NSEC_PER_SEC);
	KUNIT_EXPECT_TRUE_MSG(test, delayed_work_pending(&mgr->fold_work),
			      "a submission does not start the fold worker");

	clock_set(ft, NSEC_PER_SEC / 2);
	fold_worker_run(mgr);
	KUNIT_EXPECT_TRUE_MSG(test, delayed_work_pending(&mgr->fold_work),
			      "fold worker stops while a context is resident");

	clock_set(ft, 2ULL * NSEC_PER_SEC);
	fold_worker_run(mgr);
	KUNIT_EXPECT_FALSE_MSG(test, delayed_work_pending(&mgr->fold_work),
			       "fold worker keeps running on an idle GPU");
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			ticks(ft, NSEC_PER_SEC));

	submit_busy(test, ctx, RCS, 0, NSEC_PER_SEC);
	KUNIT_EXPECT_TRUE_MSG(test, delayed_work_pending(&mgr->fold_work),
			      "a submission does not restart the fold worker");
	clock_set(ft, 4ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			ticks(ft, 2ULL * NSEC_PER_SEC));
}

/* A destroyed context's time is in the totals when destroy returns. */
static void fdinfo_test_destroyed(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *ctx = ctx_create(test, file, RCS);

	submit_busy(test, ctx, RCS, 0, NSEC_PER_SEC / 4);
	clock_set(ft, NSEC_PER_SEC);
	kunit_release_action(test, ctx_destroy, ctx);

	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			ticks(ft, NSEC_PER_SEC / 4));
}

/* Two clients: only the busy one's counters move. */
static void fdinfo_test_isolation(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *busy = fdinfo_open(test);
	struct file *idle = fdinfo_open(test);
	struct simgpu_ctx *ctx = ctx_create(test, busy, RCS);

	submit_busy(test, ctx, RCS, 0, NSEC_PER_SEC / 2);
	clock_set(ft, NSEC_PER_SEC / 4);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, busy),
					   "drm-cycles-rcs"),
			ticks(ft, NSEC_PER_SEC / 4));
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, idle),
					   "drm-cycles-rcs"), 0);
	clock_set(ft, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, idle),
					   "drm-cycles-rcs"), 0);
}

/*
 * Seqnos wrap: a context whose last batch has seqno 0 and waits behind
 * another context's stays accounted once it runs.
 */
static void fdinfo_test_seqno_wrap(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *other = fdinfo_open(test);
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *a = ctx_create(test, other, RCS);
	struct simgpu_ctx *b = ctx_create(test, file, RCS);

	ft->seqno = U32_MAX - 1;
	submit_busy(test, b, RCS, 0, NSEC_PER_SEC / 4);	/* seqno U32_MAX */
	clock_set(ft, NSEC_PER_SEC / 2);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			ticks(ft, NSEC_PER_SEC / 4));

	ft->seqno = 100;
	submit_busy(test, a, RCS, 0, NSEC_PER_SEC);	/* to 1.5 s */
	ft->seqno = U32_MAX;
	submit_busy(test, b, RCS, 0, NSEC_PER_SEC);	/* seqno 0 */

	/* Queued, not resident: the read must not take it for done */
	clock_set(ft, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			ticks(ft, NSEC_PER_SEC / 4));
	/* b resident since 1.5 s, as any register read at 2 s finds */
	clock_set(ft, 2ULL * NSEC_PER_SEC);
	simgpu_read32(ft->sdev, SIMGPU_ENGINE_BASE(SIMGPU_HW_ENGINE_ID(RCS, 0)) +
		      RING_TIMESTAMP_LO);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			ticks(ft, 3ULL * NSEC_PER_SEC / 4));
}

/* Four compute engines busy: four times the cycles, capacity 4. */
static void fdinfo_test_capacity(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *ctx[4];
	u64 cycles, total, total0;
	unsigned int i;

	clock_set(ft, NSEC_PER_SEC);
	total0 = fdinfo_value(test, fdinfo_read(test, file),
			      "drm-total-cycles-ccs");
	for (i = 0; i < 4; i++) {
		ctx[i] = ctx_create(test, file, CCS);
		submit_busy(test, ctx[i], CCS, i, NSEC_PER_SEC);
	}
	clock_set(ft, 3ULL * NSEC_PER_SEC);

	cycles = fdinfo_value(test, fdinfo_read(test, file), "drm-cycles-ccs");
	total = fdinfo_value(test, ft->buf, "drm-total-cycles-ccs");
	KUNIT_EXPECT_EQ(test, cycles, 4 * ticks(ft, NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, ft->buf,
					   "drm-engine-capacity-ccs"), 4);
	/* 4 s of work over 2 s on 4 engines: 50 % */
	KUNIT_EXPECT_EQ(test, cycles * 100 / ((total - total0) * 4), 50);
}

/*
 * A context that switches all the time as its readers see it: each read of
 * the clock by the model changes its switch count, as if it had switched
 * out and back in. A read of fdinfo, which folds with interrupts off, gives
 * up after a few tries instead of spinning until the switching stops, and
 * shows what it could; the next read shows all of it.
 */
static void fdinfo_test_switching_context(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *ctx = ctx_create(test, file, RCS);
	const int switches = 1000;
	u64 cycles;
	int tries;

	submit_busy(test, ctx, RCS, 0, NSEC_PER_SEC);
	clock_set(ft, NSEC_PER_SEC / 2);
	ft->switches = switches;
	WRITE_ONCE(ft->switching, ctx->image);
	cycles = fdinfo_value(test, fdinfo_read(test, file), "drm-cycles-rcs");
	WRITE_ONCE(ft->switching, NULL);
	tries = switches - ft->switches;
	KUNIT_EXPECT_LT_MSG(test, tries, 64, "a read looked %d times", tries);
	KUNIT_EXPECT_LE(test, cycles, ticks(ft, NSEC_PER_SEC / 2));
	KUNIT_EXPECT_GE(test, atomic_read(&ft->sdev->ctxs.fold_retries), 1);

	clock_set(ft, 2ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-rcs"),
			ticks(ft, NSEC_PER_SEC));
}

/*
 * A CTX_TIMESTAMP that went back, as a sample pairing a later instant with
 * a context's earlier state once made it look: the previous fold took a
 * value 1000 ticks ahead of the hardware's. The wrapped difference, close
 * to 2^32 ticks, is not added to the client; the fold is counted, and the
 * next ones count from the hardware's value again.
 */
static void fdinfo_test_ctx_ts_back(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file = fdinfo_open(test);
	struct simgpu_client_usage *usage = file_usage(file);
	struct simgpu_ctx *ctx = ctx_create(test, file, RCS);
	const u64 step = 10 * NSEC_PER_USEC;
	u64 cycles, total;

	submit_busy(test, ctx, RCS, 0, 3ULL * NSEC_PER_SEC);
	clock_set(ft, NSEC_PER_SEC);
	fdinfo_read(test, file);
	spin_lock_irq(&usage->lock);
	KUNIT_EXPECT_EQ(test, usage->cycles[RCS], ticks(ft, NSEC_PER_SEC));
	ctx->last_ts += 1000;
	spin_unlock_irq(&usage->lock);

	clock_set(ft, NSEC_PER_SEC + step);
	fdinfo_read(test, file);
	KUNIT_EXPECT_EQ(test, atomic_read(&ft->sdev->ctxs.back_folds), 1);
	spin_lock_irq(&usage->lock);
	KUNIT_EXPECT_EQ(test, usage->cycles[RCS], ticks(ft, NSEC_PER_SEC));
	spin_unlock_irq(&usage->lock);

	clock_set(ft, 2ULL * NSEC_PER_SEC);
	cycles = fdinfo_value(test, fdinfo_read(test, file), "drm-cycles-rcs");
	total = fdinfo_value(test, ft->buf, "drm-total-cycles-rcs");
	KUNIT_EXPECT_EQ(test, cycles,
			ticks(ft, 2ULL * NSEC_PER_SEC) - ticks(ft, step));
	KUNIT_EXPECT_LE(test, cycles, total);
	KUNIT_EXPECT_EQ(test, atomic_read(&ft->sdev->ctxs.back_folds), 1);
}

static struct kunit_case fdinfo_test_cases[] = {
	KUNIT_CASE(fdinfo_test_idle_output),
	KUNIT_CASE(fdinfo_test_running_context),
	KUNIT_CASE(fdinfo_test_fold_period),
	KUNIT_CASE(fdinfo_test_fold_worker_idles),
	KUNIT_CASE(fdinfo_test_destroyed),
	KUNIT_CASE(fdinfo_test_isolation),
	KUNIT_CASE(fdinfo_test_capacity),
	KUNIT_CASE(fdinfo_test_seqno_wrap),
	KUNIT_CASE(fdinfo_test_switching_context),
	KUNIT_CASE(fdinfo_test_ctx_ts_back),
	{}
};

static struct kunit_suite fdinfo_test_suite = {
	.name = "simgpu_fdinfo",
	.init = fdinfo_test_init,
	.test_cases = fdinfo_test_cases,
};

static int fdinfo_test_init_1ghz(struct kunit *test)
{
	fdinfo_test_setup(test, 1000000000, 0);
	return 0;
}

/*
 * RING_TIMESTAMP starts at 2^62 - 2 s: on the first read, 2 s into the
 * device's life, four engines' worth of the total is 2^64, a multiple of
 * 2^64. The first sample still shows all the cycles.
 */
#define FDINFO_TS_OFFSET	((1ULL << 62) - 2 * 19200000)

static void fdinfo_test_first_sample(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file = fdinfo_open(test);
	struct simgpu_ctx *ctx = ctx_create(test, file, CCS);

	submit_busy(test, ctx, CCS, 0, NSEC_PER_SEC);
	clock_set(ft, 2ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, fdinfo_read(test, file),
					   "drm-cycles-ccs"),
			ticks(ft, NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, fdinfo_value(test, ft->buf,
					   "drm-total-cycles-ccs"), 1ULL << 62);
}

static int fdinfo_test_init_offset(struct kunit *test)
{
	fdinfo_test_setup(test, 19200000, FDINFO_TS_OFFSET);
	return 0;
}

static struct kunit_case fdinfo_offset_test_cases[] = {
	KUNIT_CASE(fdinfo_test_first_sample),
	{}
};

static struct kunit_suite fdinfo_offset_test_suite = {
	.name = "simgpu_fdinfo_offset",
	.init = fdinfo_test_init_offset,
	.test_cases = fdinfo_offset_test_cases,
};

static struct kunit_case fdinfo_1ghz_test_cases[] = {
	KUNIT_CASE(fdinfo_test_wrap),
	KUNIT_CASE(fdinfo_test_late_fold),
	{}
};

static struct kunit_suite fdinfo_1ghz_test_suite = {
	.name = "simgpu_fdinfo_1ghz",
	.init = fdinfo_test_init_1ghz,
	.test_cases = fdinfo_1ghz_test_cases,
};

kunit_test_suites(&fdinfo_test_suite, &fdinfo_offset_test_suite,
		  &fdinfo_1ghz_test_suite);
