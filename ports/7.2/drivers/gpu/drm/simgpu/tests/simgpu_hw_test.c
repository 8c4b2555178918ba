// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the simgpu device model
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <kunit/test.h>

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "../simgpu_hw.h"

#define TEST_ARENA_SIZE		SZ_64K
/* Value of the fake clock when the device is created */
#define TEST_CLOCK_BASE		(5ULL * NSEC_PER_SEC)
#define TEST_1GHZ		1000000000
#define TEST_19_2MHZ		19200000

#define RCS0	SIMGPU_HW_ENGINE_ID(0, 0)
#define BCS0	SIMGPU_HW_ENGINE_ID(1, 0)
#define VCS1	SIMGPU_HW_ENGINE_ID(2, 1)
#define CCS3	SIMGPU_HW_ENGINE_ID(4, 3)

struct simgpu_hw_test {
	struct kunit *test;
	struct simgpu_hw *hw;

	/* Fake clock, ns */
	u64 clock;
	/*
	 * Held clock: the real clock less @held_for, standing at @held_at
	 * while held (0: running). Read by the device's timers meanwhile.
	 */
	atomic64_t held_at;
	atomic64_t held_for;

	/* Memory the device works on: context images, batches */
	u8 *arena;
	size_t arena_used;

	/* Interrupt handler state, written by the handler */
	struct completion irq_done;
	atomic_t irq_calls;
	/* The handler acknowledges from its irq_ack_from-th call on */
	int irq_ack_from;
	u64 irq_status_seen;
	u32 irq_reasons[SIMGPU_MAX_ENGINES];
};

static u64 test_clock(void *data)
{
	struct simgpu_hw_test *t = data;

	return READ_ONCE(t->clock);
}

static u64 test_held_clock(void *data)
{
	struct simgpu_hw_test *t = data;
	u64 held = atomic64_read(&t->held_at);

	smp_rmb(); /* @held_at before @held_for, pairs with clock_release() */
	return held ?: ktime_get_raw_ns() - atomic64_read(&t->held_for);
}

/*
 * Stop the held clock: whatever the test submits until clock_release()
 * reaches the device at one instant, however long the host takes.
 */
static void clock_hold(struct simgpu_hw_test *t)
{
	atomic64_set(&t->held_at,
		     ktime_get_raw_ns() - atomic64_read(&t->held_for));
}

/* Let the held clock run again from where it stood */
static void clock_release(struct simgpu_hw_test *t)
{
	atomic64_set(&t->held_for,
		     ktime_get_raw_ns() - atomic64_read(&t->held_at));
	smp_wmb(); /* @held_for before @held_at, pairs with test_held_clock() */
	atomic64_set(&t->held_at, 0);
}

/* Set the fake clock to @ns of virtual time */
static void clock_set(struct simgpu_hw_test *t, u64 ns)
{
	WRITE_ONCE(t->clock, TEST_CLOCK_BASE + ns);
}

static u32 eng_rd(struct simgpu_hw *hw, u32 id, u32 reg)
{
	return simgpu_hw_read32(hw, SIMGPU_ENGINE_BASE(id) + reg);
}

static void eng_wr(struct simgpu_hw *hw, u32 id, u32 reg, u32 val)
{
	simgpu_hw_write32(hw, SIMGPU_ENGINE_BASE(id) + reg, val);
}

static u64 irq_status(struct simgpu_hw *hw)
{
	return simgpu_hw_read32(hw, SIMGPU_REG_IRQ_STATUS) |
	       (u64)simgpu_hw_read32(hw, SIMGPU_REG_IRQ_STATUS_HI) << 32;
}

/* A driver-like interrupt handler */
static void test_irq(void *data)
{
	struct simgpu_hw_test *t = data;
	int calls = atomic_inc_return(&t->irq_calls);
	u64 status = irq_status(t->hw);
	unsigned int e;
	u32 reason;

	WRITE_ONCE(t->irq_status_seen, t->irq_status_seen | status);
	if (calls < t->irq_ack_from)
		return;

	for (e = 0; e < SIMGPU_MAX_ENGINES; e++) {
		if (!(status & BIT_ULL(e)))
			continue;
		reason = eng_rd(t->hw, e, RING_IRQ_REASON);
		WRITE_ONCE(t->irq_reasons[e], t->irq_reasons[e] | reason);
		eng_wr(t->hw, e, RING_IRQ_REASON, reason);
	}
	complete(&t->irq_done);
}

static void test_destroy(struct simgpu_hw_test *t)
{
	simgpu_hw_destroy(t->hw);
	t->hw = NULL;
}

/* Create the device, the driver's default engines, on clock @now_ns */
static struct simgpu_hw *test_create_clock(struct simgpu_hw_test *t,
					   u32 refclk, u64 ts_offset,
					   u64 (*now_ns)(void *data))
{
	struct simgpu_hw_config cfg = {
		.refclk_hz = refclk,
		.instances = { 1, 1, 2, 1, 4 },
		.vram_size = SZ_4G + SZ_256M,
		.ts_offset = ts_offset,
		.now_ns = now_ns,
		.clock_data = t,
	};

	test_destroy(t);
	clock_set(t, 0);
	t->hw = simgpu_hw_create(&cfg, test_irq, t);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(t->test, t->hw);

	return t->hw;
}

/* The same on the fake clock at 0, or on the real one */
static struct simgpu_hw *test_create(struct simgpu_hw_test *t, u32 refclk,
				     u64 ts_offset, bool fake_clock)
{
	return test_create_clock(t, refclk, ts_offset,
				 fake_clock ? test_clock : NULL);
}

static void *test_alloc(struct simgpu_hw_test *t, size_t size)
{
	void *p;

	t->arena_used = ALIGN(t->arena_used, CTX_IMG_SIZE);
	KUNIT_ASSERT_LE(t->test, t->arena_used + size, TEST_ARENA_SIZE);
	p = t->arena + t->arena_used;
	t->arena_used += size;

	return p;
}

/* The next word of the arena, for building a batch */
static __le32 *test_next_word(struct simgpu_hw_test *t)
{
	KUNIT_ASSERT_LE(t->test, t->arena_used + sizeof(u32), TEST_ARENA_SIZE);
	return (__le32 *)(t->arena + t->arena_used);
}

static __le32 *test_ctx(struct simgpu_hw_test *t, u32 id, u32 timestamp)
{
	__le32 *img = test_alloc(t, CTX_IMG_SIZE);

	img[CTX_IMG_ID / 4] = cpu_to_le32(id);
	img[CTX_IMG_TIMESTAMP / 4] = cpu_to_le32(timestamp);

	return img;
}

/* Batches are built in the arena: batch_begin(), emit*(), ... */
static __le32 *batch_begin(struct simgpu_hw_test *t)
{
	return test_alloc(t, 0);
}

static void emit(struct simgpu_hw_test *t, u32 word)
{
	*test_next_word(t) = cpu_to_le32(word);
	t->arena_used += sizeof(u32);
}

static void emit_busy(struct simgpu_hw_test *t, u64 ns)
{
	emit(t, SIMGPU_CMD_BUSY);
	emit(t, lower_32_bits(ns));
	emit(t, upper_32_bits(ns));
}

static void emit_write32(struct simgpu_hw_test *t, u64 addr, u32 val)
{
	emit(t, SIMGPU_CMD_WRITE32);
	emit(t, lower_32_bits(addr));
	emit(t, upper_32_bits(addr));
	emit(t, val);
}

/* BUSY @ns, END */
static __le32 *busy_batch(struct simgpu_hw_test *t, u64 ns)
{
	__le32 *batch = batch_begin(t);

	emit_busy(t, ns);
	emit(t, SIMGPU_CMD_END);

	return batch;
}

static u32 img_rd(__le32 *img, u32 offset)
{
	return le32_to_cpu(READ_ONCE(img[offset / 4]));
}

static void submit_addr(struct simgpu_hw *hw, u32 id, u64 ctx, u64 batch,
			u32 seqno)
{
	eng_wr(hw, id, RING_SUBMIT_CTX_LO, lower_32_bits(ctx));
	eng_wr(hw, id, RING_SUBMIT_CTX_HI, upper_32_bits(ctx));
	eng_wr(hw, id, RING_SUBMIT_BATCH_LO, lower_32_bits(batch));
	eng_wr(hw, id, RING_SUBMIT_BATCH_HI, upper_32_bits(batch));
	eng_wr(hw, id, RING_SUBMIT_SEQNO, seqno);
	eng_wr(hw, id, RING_SUBMIT, 1);
}

static void submit(struct simgpu_hw *hw, u32 id, __le32 *ctx, __le32 *batch,
		   u32 seqno)
{
	submit_addr(hw, id, virt_to_phys(ctx), virt_to_phys(batch), seqno);
}

static u32 status_resident(u32 id)
{
	return CTX_IMG_STATUS_RESIDENT | id << CTX_IMG_STATUS_ENGINE_SHIFT;
}

/* Run time of a context, sampled as the driver's fdinfo code does */
static u32 ctx_time(struct simgpu_hw *hw, __le32 *img)
{
	u32 count, status, ts;

	do {
		count = img_rd(img, CTX_IMG_SWITCH_COUNT);
		smp_rmb(); /* pairs with the smp_wmb()s of switch-out */
		status = img_rd(img, CTX_IMG_STATUS);
		smp_rmb(); /* STATUS before TIMESTAMP */
		if (status & CTX_IMG_STATUS_RESIDENT)
			ts = eng_rd(hw, (status & CTX_IMG_STATUS_ENGINE_MASK) >>
				    CTX_IMG_STATUS_ENGINE_SHIFT,
				    RING_CTX_TIMESTAMP);
		else
			ts = img_rd(img, CTX_IMG_TIMESTAMP);
		smp_rmb(); /* the value before the second SWITCH_COUNT */
	} while (img_rd(img, CTX_IMG_SWITCH_COUNT) != count);

	return ts;
}

static void simgpu_hw_test_registers(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	struct simgpu_hw_config bad = { .refclk_hz = 0 };
	struct simgpu_hw *hw;

	KUNIT_EXPECT_EQ(test, PTR_ERR(simgpu_hw_create(&bad, NULL, NULL)),
			-EINVAL);
	bad.refclk_hz = TEST_19_2MHZ;
	bad.instances[4] = SIMGPU_MAX_INSTANCES + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(simgpu_hw_create(&bad, NULL, NULL)),
			-EINVAL);

	hw = test_create(t, TEST_19_2MHZ, 0, true);

	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ID),
			SIMGPU_ID_MAGIC);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_REFCLK_HZ),
			TEST_19_2MHZ);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ENGINE_FUSE(0)),
			0x1);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ENGINE_FUSE(1)),
			0x1);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ENGINE_FUSE(2)),
			0x3);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ENGINE_FUSE(3)),
			0x1);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ENGINE_FUSE(4)),
			0xf);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_VRAM_SIZE_LO),
			SZ_256M);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_VRAM_SIZE_HI),
			1);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_IRQ_ENABLE), 0);
	simgpu_hw_write32(hw, SIMGPU_REG_IRQ_ENABLE, 1);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_IRQ_ENABLE), 1);
	KUNIT_EXPECT_EQ(test, irq_status(hw), 0);

	/* Present and absent engines, unknown and unaligned offsets */
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SUBMIT_FREE),
			RING_SUBMIT_FIFO_DEPTH);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, SIMGPU_HW_ENGINE_ID(0, 1),
				     RING_SUBMIT_FREE), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, SIMGPU_HW_ENGINE_ID(4, 4),
				     RING_SUBMIT_FREE), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_CURRENT_CTX), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, 0xfc), 0);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, 0x0008), 0);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ID + 1), 0);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_MMIO_SIZE), 0);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, U32_MAX & ~3), 0);
	simgpu_hw_write32(hw, SIMGPU_REG_ID, 0);
	simgpu_hw_write32(hw, SIMGPU_MMIO_SIZE, 1);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_ID),
			SIMGPU_ID_MAGIC);

	/* The submission port reads back */
	eng_wr(hw, VCS1, RING_SUBMIT_CTX_HI, 0x12);
	eng_wr(hw, VCS1, RING_SUBMIT_CTX_LO, 0x3456);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_SUBMIT_CTX_LO), 0x3456);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_SUBMIT_CTX_HI), 0x12);
}

/* RING_TIMESTAMP read with the HI, LO, HI protocol */
static u64 read_timestamp(struct simgpu_hw_test *t, u32 id, u64 race_to)
{
	int tries = 0, expected_tries = race_to ? 1 : 0;
	u32 hi, lo, hi2;

	hi = eng_rd(t->hw, id, RING_TIMESTAMP_HI);
	for (;;) {
		/* Emulate time passing between the reads, once */
		if (race_to) {
			clock_set(t, race_to);
			race_to = 0;
		}
		lo = eng_rd(t->hw, id, RING_TIMESTAMP_LO);
		hi2 = eng_rd(t->hw, id, RING_TIMESTAMP_HI);
		if (hi2 == hi || ++tries > 3)
			break;
		hi = hi2;
	}
	KUNIT_EXPECT_EQ(t->test, tries, expected_tries);

	return (u64)hi2 << 32 | lo;
}

static void simgpu_hw_test_timestamp_carry(struct kunit *test)
{
	const u64 offset = BIT_ULL(32) - 100;
	struct simgpu_hw_test *t = test->priv;
	struct simgpu_hw *hw;
	u32 lo, hi;
	u64 naive;

	/* Naive LO then HI, the carry happens between the two reads */
	hw = test_create(t, TEST_1GHZ, offset, true);
	lo = eng_rd(hw, VCS1, RING_TIMESTAMP_LO);
	clock_set(t, 200);
	hi = eng_rd(hw, VCS1, RING_TIMESTAMP_HI);
	naive = (u64)hi << 32 | lo;
	KUNIT_EXPECT_EQ(test, lo, lower_32_bits(offset));
	KUNIT_EXPECT_EQ(test, hi, 1);
	/* Neither the time of the first nor that of the second read */
	KUNIT_EXPECT_NE(test, naive, offset);
	KUNIT_EXPECT_NE(test, naive, offset + 200);
	KUNIT_EXPECT_GT(test, naive - (offset + 200), (u64)U32_MAX / 2);

	/* HI, LO, HI with the same interleaving retries and gets it right */
	hw = test_create(t, TEST_1GHZ, offset, true);
	KUNIT_EXPECT_EQ(test, read_timestamp(t, VCS1, 200), offset + 200);
	KUNIT_EXPECT_EQ(test, read_timestamp(t, RCS0, 0), offset + 200);

	/* All engines share the reference clock */
	clock_set(t, 1234);
	KUNIT_EXPECT_EQ(test, read_timestamp(t, CCS3, 0), offset + 1234);
	KUNIT_EXPECT_EQ(test, read_timestamp(t, BCS0, 0), offset + 1234);
}

static void simgpu_hw_test_timestamp_days(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	const u64 days = 40 * 24 * 3600ull;

	test_create(t, TEST_19_2MHZ, 1000, true);
	clock_set(t, days * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, read_timestamp(t, RCS0, 0),
			1000 + days * TEST_19_2MHZ);
	clock_set(t, days * NSEC_PER_SEC + 52);	/* 0.998 ticks */
	KUNIT_EXPECT_EQ(test, read_timestamp(t, RCS0, 0),
			1000 + days * TEST_19_2MHZ);
	clock_set(t, days * NSEC_PER_SEC + 53);
	KUNIT_EXPECT_EQ(test, read_timestamp(t, RCS0, 0),
			1000 + days * TEST_19_2MHZ + 1);
}

static void simgpu_hw_test_ctx_timestamp_wrap(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *ctx = test_ctx(t, 7, 0xffffff00);
	__le32 *batch = busy_batch(t, 1000);
	struct simgpu_hw *hw = test_create(t, TEST_1GHZ, 0, true);

	clock_set(t, 100);
	submit(hw, VCS1, ctx, batch, 42);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 7);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_STATUS), RING_STATUS_BUSY);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_STATUS),
			status_resident(VCS1));
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SWITCH_COUNT), 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CTX_TIMESTAMP),
			0xffffff00);

	/* Counting and wrapping in the register */
	clock_set(t, 100 + 255);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CTX_TIMESTAMP),
			0xffffffff);
	clock_set(t, 100 + 500);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CTX_TIMESTAMP), 0xf4);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx), 0xf4);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SEQNO), 0);

	/* Saved wrapped on switch-out, stops counting */
	clock_set(t, 100 + 5000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 0);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_TIMESTAMP), 0x2e8);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SEQNO), 42);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx), 0x2e8);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CTX_TIMESTAMP), 0x2e8);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_IRQ_REASON),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);

	/* Loaded again on the next switch-in */
	submit(hw, VCS1, ctx, batch, 43);
	clock_set(t, 100 + 5000 + 10);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx), 0x2e8 + 10);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SWITCH_COUNT), 3);
	clock_set(t, 100 + 5000 + 5000);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx), 0x2e8 + 1000);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SEQNO), 43);
}

/* 30 back-to-back 1 s batches at 1 GHz, evaluated late in one step */
static void simgpu_hw_test_exact_accounting(struct kunit *test)
{
	const u64 total = 30ULL * NSEC_PER_SEC;
	struct simgpu_hw_test *t = test->priv;
	__le32 *ctx = test_ctx(t, 3, 0);
	__le32 *batch = busy_batch(t, NSEC_PER_SEC);
	struct simgpu_hw *hw = test_create(t, TEST_1GHZ, 0, true);
	u32 i;

	clock_set(t, 1000);
	for (i = 1; i <= 30; i++)
		submit(hw, RCS0, ctx, batch, i);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_SUBMIT_FREE),
			RING_SUBMIT_FIFO_DEPTH - 29);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_CURRENT_CTX), 3);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_STATUS),
			status_resident(RCS0));

	/* Midway: 15 done, the 16th running, no switches in between */
	clock_set(t, 1000 + 15ULL * NSEC_PER_SEC + NSEC_PER_SEC / 2);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx),
			lower_32_bits(15ULL * NSEC_PER_SEC + NSEC_PER_SEC / 2));
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SEQNO), 15);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SWITCH_COUNT), 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_SUBMIT_FREE),
			RING_SUBMIT_FIFO_DEPTH - 14);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_IRQ_REASON),
			RING_IRQ_COMPLETE);

	/* A very late look: the end is still exact */
	clock_set(t, 1000ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_TIMESTAMP),
			lower_32_bits(total));
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx), lower_32_bits(total));
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SEQNO), 30);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_STATUS), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_CURRENT_CTX), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_SUBMIT_FREE),
			RING_SUBMIT_FIFO_DEPTH);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_IRQ_REASON),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
}

/* No rounding per command at a reference clock that is not 1 GHz */
static void simgpu_hw_test_exact_accounting_19_2mhz(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *ctx = test_ctx(t, 1, 0), *ctx2 = test_ctx(t, 2, 0);
	__le32 *batch = test_alloc(t, (300 * 3 + 1) * sizeof(u32));
	__le32 *sec = busy_batch(t, NSEC_PER_SEC);
	struct simgpu_hw *hw = test_create(t, TEST_19_2MHZ, 0, true);
	int i;

	/* 300 BUSY 100 ns (1.92 ticks each) */
	for (i = 0; i < 300; i++) {
		batch[3 * i] = cpu_to_le32(SIMGPU_CMD_BUSY);
		batch[3 * i + 1] = cpu_to_le32(100);
		batch[3 * i + 2] = 0;
	}
	batch[900] = cpu_to_le32(SIMGPU_CMD_END);

	clock_set(t, 333);
	submit(hw, BCS0, ctx, batch, 1);
	clock_set(t, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx), 300 * 192 / 100);
	KUNIT_EXPECT_EQ(test, img_rd(ctx, CTX_IMG_SEQNO), 1);

	for (i = 0; i < 30; i++)
		submit(hw, BCS0, ctx2, sec, i);
	clock_set(t, 100ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, ctx2), 30 * TEST_19_2MHZ);
}

static void simgpu_hw_test_two_contexts(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *b1000 = busy_batch(t, 1000);
	__le32 *b2000 = busy_batch(t, 2000);
	__le32 *b3000 = batch_begin(t);
	struct simgpu_hw *hw;

	emit_busy(t, 1000);
	emit_busy(t, 2000);
	emit(t, SIMGPU_CMD_END);
	hw = test_create(t, TEST_1GHZ, 0, true);

	/* A: 0-1000, B: 1000-3000, A: 3000-6000 */
	submit(hw, VCS1, a, b1000, 1);
	submit(hw, VCS1, b, b2000, 2);
	submit(hw, VCS1, a, b3000, 3);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_IRQ_REASON), 0);

	clock_set(t, 1500);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 2);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_IRQ_REASON),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
	eng_wr(hw, VCS1, RING_IRQ_REASON,
	       RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_IRQ_REASON), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP), 1000);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_STATUS), status_resident(VCS1));
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SWITCH_COUNT), 1);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CTX_TIMESTAMP), 500);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 1000);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, b), 500);

	clock_set(t, 4000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_IRQ_REASON),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_TIMESTAMP), 2000);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 2);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 3);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 2000);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, b), 2000);

	clock_set(t, 100000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP), 4000);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 4);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 3);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a) + ctx_time(hw, b), 6000);
}

/*
 * IDLE switches its context out for its duration: the context gains no
 * time, the engine reports RING_STATUS_IDLE_WAIT, and a descriptor queued
 * behind waits for the batch to end.
 */
static void simgpu_hw_test_idle(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *paced = batch_begin(t);
	__le32 *b1000;
	struct simgpu_hw *hw;

	/* A: busy 0-1000, idle 1000-3000, busy 3000-4000 */
	emit_busy(t, 1000);
	emit(t, SIMGPU_CMD_IDLE);
	emit(t, 2000);
	emit(t, 0);
	emit_busy(t, 1000);
	emit(t, SIMGPU_CMD_END);
	b1000 = busy_batch(t, 1000);
	hw = test_create(t, TEST_1GHZ, 0, true);

	submit(hw, VCS1, a, paced, 1);
	submit(hw, VCS1, b, b1000, 2);

	clock_set(t, 2000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_STATUS),
			RING_STATUS_IDLE_WAIT);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_IRQ_REASON),
			RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 1000);
	/* B waits behind A's batch */
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SWITCH_COUNT), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_SUBMIT_FREE),
			RING_SUBMIT_FIFO_DEPTH - 1);

	clock_set(t, 3500);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_STATUS), RING_STATUS_BUSY);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 1);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 3);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 1500);

	clock_set(t, 100000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 2);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 2000);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, b), 1000);
	/* B ran right after A's batch ended, at 4000 */
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SWITCH_COUNT), 2);
}

/* RING_BUSY_TICKS read with the HI, LO, HI protocol, no carry race */
static u64 read_busy_ticks(struct simgpu_hw *hw, u32 id)
{
	u32 hi, lo;

	do {
		hi = eng_rd(hw, id, RING_BUSY_TICKS_HI);
		lo = eng_rd(hw, id, RING_BUSY_TICKS_LO);
	} while (eng_rd(hw, id, RING_BUSY_TICKS_HI) != hi);

	return (u64)hi << 32 | lo;
}

/*
 * RING_BUSY_TICKS: the engine's sum of its contexts' CTX_TIMESTAMP
 * advances, exactly, across switches, an IDLE (context out), a halt and
 * reset, and past 2^32 ticks; other engines stay at 0. RING_SAMPLE latches
 * it and RING_TIMESTAMP of the current instant.
 */
static void simgpu_hw_test_busy_ticks(struct kunit *test)
{
	const u64 long_ns = 5ULL * NSEC_PER_SEC;
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0x0fffff00);
	__le32 *paced = batch_begin(t);
	__le32 *b1000, *hang, *blong;
	struct simgpu_hw *hw;
	u64 end;

	/* A: busy 1000, idle 2000, busy 1000 */
	emit_busy(t, 1000);
	emit(t, SIMGPU_CMD_IDLE);
	emit(t, 2000);
	emit(t, 0);
	emit_busy(t, 1000);
	emit(t, SIMGPU_CMD_END);
	b1000 = busy_batch(t, 1000);
	hang = batch_begin(t);
	emit(t, SIMGPU_CMD_HANG);
	blong = busy_batch(t, long_ns);
	hw = test_create(t, TEST_1GHZ, 0, true);

	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 0);

	/* A 0-1000, out 1000-3000, A 3000-4000, B 4000-5000 */
	submit(hw, CCS3, a, paced, 1);
	submit(hw, CCS3, b, b1000, 2);
	clock_set(t, 2000);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 1000);
	clock_set(t, 4500);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 2500);
	clock_set(t, 10000);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 3000);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3),
			ctx_time(hw, a) + ctx_time(hw, b) - 0x0fffff00);

	/* A halted context is resident: it counts until the reset */
	submit(hw, CCS3, a, hang, 3);
	clock_set(t, 12000);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 5000);
	eng_wr(hw, CCS3, RING_RESET, 1);
	clock_set(t, 20000);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 5000);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 4000);

	/* Past 2^32 ticks: the halves carry */
	submit(hw, CCS3, b, blong, 4);
	clock_set(t, 20000 + long_ns / 2);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 5000 + long_ns / 2);
	clock_set(t, 20000 + 2 * long_ns);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 5000 + long_ns);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_BUSY_TICKS_HI), 1);

	/* A sample latches both counters of one instant, until the next */
	submit(hw, CCS3, a, blong, 5);
	clock_set(t, 20000 + 2 * long_ns + 3000);
	eng_wr(hw, CCS3, RING_SAMPLE, 1);
	clock_set(t, 20000 + 2 * long_ns + 9000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_TS_LO),
			lower_32_bits(20000 + 2 * long_ns + 3000));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_TS_HI),
			upper_32_bits(20000 + 2 * long_ns + 3000));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_BUSY_LO),
			lower_32_bits(5000 + long_ns + 3000));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_BUSY_HI),
			upper_32_bits(5000 + long_ns + 3000));
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 5000 + long_ns + 9000);

	/*
	 * A sample is of the current instant: with the end of the job
	 * overdue, the job ends first, at its time
	 */
	end = 20000 + 3 * long_ns;
	clock_set(t, end + 7000);
	KUNIT_EXPECT_NE(test, img_rd(a, CTX_IMG_SEQNO), 5);
	eng_wr(hw, CCS3, RING_SAMPLE, 1);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 5);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_TS_LO),
			lower_32_bits(end + 7000));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_TS_HI),
			upper_32_bits(end + 7000));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_BUSY_LO),
			lower_32_bits(5000 + 2 * long_ns));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_BUSY_HI),
			upper_32_bits(5000 + 2 * long_ns));
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, CCS3), 5000 + 2 * long_ns);

	/* Unused and absent engines */
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, SIMGPU_HW_ENGINE_ID(4, 0)), 0);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, RCS0), 0);
	KUNIT_EXPECT_EQ(test, read_busy_ticks(hw, SIMGPU_HW_ENGINE_ID(0, 1)),
			0);
}

/* RING_SAMPLE of engine @id now: its latched TS, BUSY and CTX_TS */
static void sample(struct simgpu_hw *hw, u32 id, u64 *ts, u64 *busy,
		   u32 *ctx_ts)
{
	eng_wr(hw, id, RING_SAMPLE, 1);
	*ts = eng_rd(hw, id, RING_SAMPLE_TS_LO) |
	      (u64)eng_rd(hw, id, RING_SAMPLE_TS_HI) << 32;
	*busy = eng_rd(hw, id, RING_SAMPLE_BUSY_LO) |
		(u64)eng_rd(hw, id, RING_SAMPLE_BUSY_HI) << 32;
	*ctx_ts = eng_rd(hw, id, RING_SAMPLE_CTX_TS);
}

/*
 * A sample and a state change from two CPUs: the writer reads the clock
 * first, the sampler reads it later but is done before the writer changes
 * the state. The fake clock reads earlier for the writer than for the
 * sample before it to stand for that order. The change takes effect no
 * earlier than the sample's instant, so that a reset after a sample never
 * stamps the switch-out before it (RING_SAMPLE_BUSY would go back, and the
 * saved CTX_TIMESTAMP be below the sampled one) and a submission after a
 * sample never counts busy ticks before it (busy above total).
 */
static void simgpu_hw_test_sample_order(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0);
	__le32 *b = busy_batch(t, 10000000);
	__le32 *c = busy_batch(t, 10000000);
	u64 ts, busy, ts1, busy1;
	u32 ctx_ts, ctx_ts1;
	struct simgpu_hw *hw;

	hw = test_create(t, TEST_1GHZ, 0, true);
	submit(hw, CCS3, a, b, 1);

	/* Sampled at 1000 as resident; the reset's writer read 900 */
	clock_set(t, 1000);
	sample(hw, CCS3, &ts, &busy, &ctx_ts);
	KUNIT_EXPECT_EQ(test, busy, 1000);
	KUNIT_EXPECT_EQ(test, ctx_ts, 1000);
	clock_set(t, 900);
	eng_wr(hw, CCS3, RING_RESET, 1);
	clock_set(t, 2000);
	sample(hw, CCS3, &ts1, &busy1, &ctx_ts1);
	KUNIT_EXPECT_GE(test, busy1, busy);
	KUNIT_EXPECT_LE(test, busy1 - busy, ts1 - ts);
	KUNIT_EXPECT_EQ(test, busy1, 1000);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), ctx_ts);

	/* Sampled idle at 3000; the submission's writer read 2500 */
	clock_set(t, 3000);
	sample(hw, CCS3, &ts, &busy, &ctx_ts);
	clock_set(t, 2500);
	submit(hw, CCS3, a, c, 2);
	clock_set(t, 4000);
	sample(hw, CCS3, &ts1, &busy1, &ctx_ts1);
	KUNIT_EXPECT_LE(test, busy1 - busy, ts1 - ts);
	KUNIT_EXPECT_EQ(test, busy1, 2000);
	KUNIT_EXPECT_EQ(test, ctx_ts1, 2000);
}

static void simgpu_hw_test_write32(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	u32 *dst = kunit_kzalloc(test, 4 * sizeof(u32), GFP_KERNEL);
	__le32 *a, *b, *good, *bad, *unaligned, *null, *endless;
	struct simgpu_hw *hw;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, dst);
	a = test_ctx(t, 1, 0);
	b = test_ctx(t, 2, 0);
	good = batch_begin(t);
	emit_write32(t, virt_to_phys(&dst[1]), 0xdeadbeef);
	emit(t, SIMGPU_CMD_END);
	bad = batch_begin(t);
	emit(t, 0x77);
	emit_write32(t, virt_to_phys(&dst[2]), 0x12345678);
	emit(t, SIMGPU_CMD_END);
	unaligned = batch_begin(t);
	emit_write32(t, virt_to_phys(&dst[2]) + 1, 1);
	emit(t, SIMGPU_CMD_END);
	null = batch_begin(t);
	emit_write32(t, 0, 1);
	emit(t, SIMGPU_CMD_END);
	/* BUSY 0 up to the limit, then END just past it */
	endless = test_alloc(t, (SIMGPU_BATCH_MAX_WORDS + 4) * sizeof(u32));
	for (i = 0; i < SIMGPU_BATCH_MAX_WORDS; i++)
		endless[i] = cpu_to_le32(i % 3 ? 0 : SIMGPU_CMD_BUSY);
	hw = test_create(t, TEST_1GHZ, 0, true);

	submit(hw, RCS0, a, good, 7);
	KUNIT_EXPECT_EQ(test, dst[1], 0xdeadbeef);
	KUNIT_EXPECT_EQ(test, dst[0], 0);
	KUNIT_EXPECT_EQ(test, dst[2], 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 7);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS), 0);
	eng_wr(hw, RCS0, RING_IRQ_REASON, ~0);

	/* Unknown opcode: halts, nothing written, seqno not written */
	clock_set(t, 100);
	submit(hw, RCS0, b, bad, 8);
	clock_set(t, 1000);
	KUNIT_EXPECT_EQ(test, dst[2], 0);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS),
			RING_STATUS_BUSY | RING_STATUS_ERROR);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_IRQ_REASON),
			RING_IRQ_ERROR);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, b), 900);

	/* Work queued behind it waits for the reset */
	submit(hw, RCS0, a, unaligned, 9);
	submit(hw, RCS0, a, null, 10);
	submit_addr(hw, RCS0, virt_to_phys(a), 0, 11);
	submit(hw, RCS0, a, endless, 12);
	submit(hw, RCS0, a, good, 13);
	for (i = 9; i <= 13; i++) {
		eng_wr(hw, RCS0, RING_IRQ_REASON, ~0);
		eng_wr(hw, RCS0, RING_RESET, 1);
		KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_IRQ_REASON),
				RING_IRQ_RESET_DONE | RING_IRQ_CTX_SWITCH |
				(i < 13 ? RING_IRQ_ERROR : RING_IRQ_COMPLETE));
		KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS),
				i < 13 ? RING_STATUS_BUSY | RING_STATUS_ERROR :
				0);
	}
	KUNIT_EXPECT_EQ(test, dst[2], 0);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 13);

	/* Bad context image address: dropped at submission */
	eng_wr(hw, RCS0, RING_IRQ_REASON, ~0);
	submit_addr(hw, RCS0, 0, virt_to_phys(good), 14);
	submit_addr(hw, RCS0, virt_to_phys(a) + 2, virt_to_phys(good), 15);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_IRQ_REASON),
			RING_IRQ_ERROR);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_SUBMIT_FREE),
			RING_SUBMIT_FIFO_DEPTH);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 13);
}

static void simgpu_hw_test_hang_reset(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *busy = busy_batch(t, 1000);
	__le32 *sec = busy_batch(t, NSEC_PER_SEC);
	__le32 *hang = batch_begin(t);
	struct simgpu_hw *hw;

	emit_busy(t, 10);
	emit(t, SIMGPU_CMD_HANG);
	emit(t, SIMGPU_CMD_END);
	hw = test_create(t, TEST_1GHZ, 0, true);

	clock_set(t, 100);
	submit(hw, CCS3, a, hang, 1);
	submit(hw, CCS3, b, busy, 2);
	clock_set(t, 5100);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_STATUS),
			RING_STATUS_BUSY | RING_STATUS_HUNG);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_CURRENT_CTX), 1);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 5000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_IRQ_REASON), 0);

	eng_wr(hw, CCS3, RING_RESET, 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_IRQ_REASON),
			RING_IRQ_RESET_DONE | RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP), 5000);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 0);
	/* The next context runs from the reset on */
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_STATUS), RING_STATUS_BUSY);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_CURRENT_CTX), 2);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_STATUS), status_resident(CCS3));

	clock_set(t, 7000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_TIMESTAMP), 1000);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 2);
	/* The aborted batch does not come back */
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 0);

	/* Reset of a busy batch; the same context queued behind it */
	submit(hw, CCS3, a, sec, 3);
	submit(hw, CCS3, a, busy, 4);
	clock_set(t, 7300);
	eng_wr(hw, CCS3, RING_RESET, 1);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP), 5300);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 5);
	clock_set(t, 9000);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 6300);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 4);

	/* Reset of an idle engine */
	eng_wr(hw, CCS3, RING_IRQ_REASON, ~0);
	eng_wr(hw, CCS3, RING_RESET, 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_IRQ_REASON),
			RING_IRQ_RESET_DONE);

	/* Destroying the device with a hung engine */
	submit(hw, CCS3, a, hang, 5);
	clock_set(t, 10000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_STATUS),
			RING_STATUS_BUSY | RING_STATUS_HUNG);
}

static void simgpu_hw_test_fifo(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0);
	__le32 *busy = busy_batch(t, 1000);
	struct simgpu_hw *hw = test_create(t, TEST_1GHZ, 0, true);
	u32 i;

	/* The first one starts at once, 64 wait, the last one is dropped */
	for (i = 1; i <= RING_SUBMIT_FIFO_DEPTH + 2; i++)
		submit(hw, BCS0, a, busy, i);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, BCS0, RING_SUBMIT_FREE), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, BCS0, RING_IRQ_REASON),
			RING_IRQ_ERROR);
	clock_set(t, 1500);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, BCS0, RING_SUBMIT_FREE), 1);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);

	/* Memory is updated when an MMIO access evaluates the engine */
	clock_set(t, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, BCS0, RING_SUBMIT_FREE),
			RING_SUBMIT_FIFO_DEPTH);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO),
			RING_SUBMIT_FIFO_DEPTH + 1);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a),
			(RING_SUBMIT_FIFO_DEPTH + 1) * 1000);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 2);
}

/*
 * Set the fake clock to @ns and let every engine run up to it: memory the
 * device writes is only updated when an MMIO access evaluates the engine.
 */
static void run_to(struct simgpu_hw_test *t, u64 ns)
{
	clock_set(t, ns);
	irq_status(t->hw);
}

/* As submit(), with @perfcfg in RING_SUBMIT_PERFCFG */
static void submit_perf(struct simgpu_hw *hw, u32 id, __le32 *ctx,
			__le32 *batch, u32 seqno, u32 perfcfg)
{
	eng_wr(hw, id, RING_SUBMIT_PERFCFG, perfcfg);
	submit(hw, id, ctx, batch, seqno);
}

static void emit_idle(struct simgpu_hw_test *t, u64 ns)
{
	emit(t, SIMGPU_CMD_IDLE);
	emit(t, lower_32_bits(ns));
	emit(t, upper_32_bits(ns));
}

static void emit_copy(struct simgpu_hw_test *t, u64 src, u64 dst, u32 bytes)
{
	emit(t, SIMGPU_CMD_COPY);
	emit(t, lower_32_bits(src));
	emit(t, upper_32_bits(src));
	emit(t, lower_32_bits(dst));
	emit(t, upper_32_bits(dst));
	emit(t, bytes);
}

static void emit_sample(struct simgpu_hw_test *t, u32 flags, u64 addr,
			u32 tag)
{
	emit(t, SIMGPU_CMD_SAMPLE | flags);
	emit(t, lower_32_bits(addr));
	emit(t, upper_32_bits(addr));
	emit(t, tag);
}

static u64 img_rd64(__le32 *img, u32 offset)
{
	return img_rd(img, offset) | (u64)img_rd(img, offset + 4) << 32;
}

static void img_wr64(__le32 *img, u32 offset, u64 val)
{
	img[offset / 4] = cpu_to_le32(lower_32_bits(val));
	img[offset / 4 + 1] = cpu_to_le32(upper_32_bits(val));
}

/* Slot @i of a context image, of a report */
static u64 img_slot(__le32 *img, unsigned int i)
{
	return img_rd64(img, CTX_IMG_PERF_SLOT_LO(i));
}

static u64 rep_slot(__le32 *rep, unsigned int i)
{
	return img_rd64(rep, SIMGPU_REPORT_SLOT(i));
}

static u64 rep_slot_obs(__le32 *rep, unsigned int i)
{
	return img_rd64(rep, SIMGPU_OBS_REPORT_SLOT(i));
}

#define PERFCFG(s0, s1, s2, s3)					\
	(SIMGPU_PERFCFG_SLOT(0, SIMGPU_SIG_##s0) |			\
	 SIMGPU_PERFCFG_SLOT(1, SIMGPU_SIG_##s1) |			\
	 SIMGPU_PERFCFG_SLOT(2, SIMGPU_SIG_##s2) |			\
	 SIMGPU_PERFCFG_SLOT(3, SIMGPU_SIG_##s3))

/*
 * Two contexts interleaving on one engine: each counts only its own work,
 * its configuration and slots go into its image on switch-out and come back
 * on switch-in; a batch without SIMGPU_PERFCFG_LOAD continues the counts.
 */
static void simgpu_hw_test_perf_save_restore(struct kunit *test)
{
	const u32 cfg_a = PERFCFG(BUSY_TICKS, COMMANDS, BATCHES, CTX_SWITCHES);
	/* Slots 1 and 3 off */
	const u32 cfg_b = SIMGPU_PERFCFG_SLOT(0, SIMGPU_SIG_BYTES_WRITTEN) |
			  SIMGPU_PERFCFG_SLOT(2, SIMGPU_SIG_BUSY_TICKS);
	struct simgpu_hw_test *t = test->priv;
	u32 *dst = kunit_kzalloc(test, 4 * sizeof(u32), GFP_KERNEL);
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *rep = test_alloc(t, SIMGPU_REPORT_SIZE);
	__le32 *a1, *b1, *a2;
	struct simgpu_hw *hw;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, dst);
	/* Stale counts in A's image: LOAD replaces them */
	a[CTX_IMG_PERF_CFG / 4] = cpu_to_le32(cfg_b);
	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++)
		img_wr64(a, CTX_IMG_PERF_SLOT_LO(i), 1000 + i);

	a1 = batch_begin(t);
	emit_busy(t, 1000);
	emit_write32(t, virt_to_phys(&dst[0]), 1);
	emit(t, SIMGPU_CMD_END);
	b1 = batch_begin(t);
	emit_write32(t, virt_to_phys(&dst[1]), 2);
	emit_write32(t, virt_to_phys(&dst[2]), 3);
	emit_busy(t, 2000);
	emit(t, SIMGPU_CMD_END);
	a2 = batch_begin(t);
	emit_busy(t, 500);
	emit_sample(t, 0, virt_to_phys(rep), 7);
	emit_busy(t, 250);
	emit(t, SIMGPU_CMD_END);
	hw = test_create(t, TEST_1GHZ, 0, true);

	eng_wr(hw, VCS1, RING_SUBMIT_PERFCFG, ~0u);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_SUBMIT_PERFCFG),
			SIMGPU_PERFCFG_LOAD | 0xffff);

	/* A 0-1000, B 1000-3000, A 3000-3750 */
	submit_perf(hw, VCS1, a, a1, 1, SIMGPU_PERFCFG_LOAD | cfg_a);
	submit_perf(hw, VCS1, b, b1, 2, SIMGPU_PERFCFG_LOAD | cfg_b);
	submit_perf(hw, VCS1, a, a2, 3, 0);
	/* Latched by RING_SUBMIT: a bad LOAD now does not reach a2 */
	eng_wr(hw, VCS1, RING_SUBMIT_PERFCFG, SIMGPU_PERFCFG_LOAD |
	       PERFCFG(COMMANDS, COMMANDS, COMMANDS, COMMANDS));

	run_to(t, 1500);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 2);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_PERF_CFG), cfg_a);
	KUNIT_EXPECT_EQ(test, img_slot(a, 0), 1000);	/* busy ticks */
	KUNIT_EXPECT_EQ(test, img_slot(a, 1), 2);	/* commands */
	KUNIT_EXPECT_EQ(test, img_slot(a, 2), 1);	/* batches */
	KUNIT_EXPECT_EQ(test, img_slot(a, 3), 1);	/* switches */
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SAMPLE_SEQ), 0);

	/* A back at 3000, its SAMPLE at 3500 */
	run_to(t, 3600);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_CURRENT_CTX), 1);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_PERF_CFG), cfg_b);
	KUNIT_EXPECT_EQ(test, img_slot(b, 0), 8);	/* bytes written */
	KUNIT_EXPECT_EQ(test, img_slot(b, 1), 0);
	KUNIT_EXPECT_EQ(test, img_slot(b, 2), 2000);	/* busy ticks */
	KUNIT_EXPECT_EQ(test, img_slot(b, 3), 0);
	KUNIT_EXPECT_EQ(test, img_rd(rep, SIMGPU_REPORT_SEQ), 1);
	KUNIT_EXPECT_EQ(test, img_rd(rep, SIMGPU_REPORT_TAG), 7);
	KUNIT_EXPECT_EQ(test, img_rd(rep, SIMGPU_REPORT_CTX_TIMESTAMP), 1500);
	KUNIT_EXPECT_EQ(test, rep_slot(rep, 0), 1500);
	KUNIT_EXPECT_EQ(test, rep_slot(rep, 1), 3);
	KUNIT_EXPECT_EQ(test, rep_slot(rep, 2), 2);
	KUNIT_EXPECT_EQ(test, rep_slot(rep, 3), 2);

	run_to(t, 10000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, VCS1, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 3);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_PERF_CFG), cfg_a);
	KUNIT_EXPECT_EQ(test, img_slot(a, 0), 1750);
	KUNIT_EXPECT_EQ(test, img_slot(a, 0), img_rd(a, CTX_IMG_TIMESTAMP));
	KUNIT_EXPECT_EQ(test, img_slot(a, 1), 5);
	KUNIT_EXPECT_EQ(test, img_slot(a, 2), 2);
	KUNIT_EXPECT_EQ(test, img_slot(a, 3), 2);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SAMPLE_SEQ), 1);
	/* B untouched by A's work */
	KUNIT_EXPECT_EQ(test, img_slot(b, 0), 8);
	KUNIT_EXPECT_EQ(test, img_slot(b, 2), 2000);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SAMPLE_SEQ), 0);
	KUNIT_EXPECT_EQ(test, dst[0], 1);
	KUNIT_EXPECT_EQ(test, dst[2], 3);
}

/* Write @n bytes of @val at @p, little endian, without cpu_to_le*() */
static void put_bytes(u8 *p, u64 val, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = val >> (8 * i);
}

/* The report, byte by byte, with values that carry into upper halves */
static void simgpu_hw_test_perf_report(struct kunit *test)
{
	const u64 ts_offset = 0x0000000affffff00ull;
	const u32 cfg = SIMGPU_PERFCFG_SLOT(0, SIMGPU_SIG_BUSY_TICKS) |
			SIMGPU_PERFCFG_SLOT(2, SIMGPU_SIG_COMMANDS) |
			SIMGPU_PERFCFG_SLOT(3, SIMGPU_SIG_BYTES_WRITTEN);
	struct simgpu_hw_test *t = test->priv;
	u32 *dst = kunit_kzalloc(test, sizeof(u32), GFP_KERNEL);
	__le32 *a = test_ctx(t, 0x51, 0xfffffff0);
	__le32 *rep = test_alloc(t, SIMGPU_REPORT_SIZE);
	u8 expected[SIMGPU_REPORT_SIZE] = {};
	__le32 *batch;
	struct simgpu_hw *hw;

	KUNIT_ASSERT_NOT_NULL(test, dst);
	/* Kept from the image: bits 31:16 of PERF_CFG are not configuration */
	a[CTX_IMG_PERF_CFG / 4] = cpu_to_le32(0xabcd0000 | cfg);
	img_wr64(a, CTX_IMG_PERF_SLOT_LO(0), BIT_ULL(32) - 500);
	img_wr64(a, CTX_IMG_PERF_SLOT_LO(1), 0x5555);	/* off: reads 0 */
	img_wr64(a, CTX_IMG_PERF_SLOT_LO(2), 0x7fffffffffffffffull);
	img_wr64(a, CTX_IMG_PERF_SLOT_LO(3), 0x10);
	a[CTX_IMG_SAMPLE_SEQ / 4] = cpu_to_le32(0x0a0b0c0d);
	memset(rep, 0xee, SIMGPU_REPORT_SIZE);

	batch = batch_begin(t);
	emit_busy(t, 1000);
	emit_write32(t, virt_to_phys(dst), 1);
	emit_sample(t, 0, virt_to_phys(rep), 0xa1b2c3d4);
	emit(t, SIMGPU_CMD_END);
	hw = test_create(t, TEST_1GHZ, ts_offset, true);

	submit_perf(hw, CCS3, a, batch, 1, 0);
	run_to(t, 5000);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);

	put_bytes(&expected[0x00], 0x0a0b0c0e, 4);
	put_bytes(&expected[0x04], 0xa1b2c3d4, 4);
	put_bytes(&expected[0x08], ts_offset + 1000, 8);
	put_bytes(&expected[0x10], (u32)(0xfffffff0u + 1000), 4);
	put_bytes(&expected[0x14], 4 << 16 | 3, 4);
	put_bytes(&expected[0x18], BIT_ULL(32) + 500, 8);
	/* 0x20: slot 1 off, 0 */
	put_bytes(&expected[0x28], 0x8000000000000001ull, 8);
	put_bytes(&expected[0x30], 0x14, 8);
	/* 0x38-0x3f: 0 */
	KUNIT_EXPECT_MEMEQ(test, rep, expected, SIMGPU_REPORT_SIZE);
	/* Spot checks of the helpers' view, independent of the bytes */
	KUNIT_EXPECT_EQ(test, img_rd64(rep, SIMGPU_REPORT_TIMESTAMP),
			0x0000000b000002e8ull);
	KUNIT_EXPECT_EQ(test, img_rd(rep, SIMGPU_REPORT_ENGINE), 0x00040003);

	/* The context kept counting after the report, not in it */
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_PERF_CFG), cfg);
	KUNIT_EXPECT_EQ(test, img_slot(a, 0), BIT_ULL(32) + 500);
	KUNIT_EXPECT_EQ(test, img_slot(a, 1), 0);
	KUNIT_EXPECT_EQ(test, img_slot(a, 2), 0x8000000000000002ull);
	KUNIT_EXPECT_EQ(test, img_slot(a, 3), 0x14);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SAMPLE_SEQ), 0x0a0b0c0e);
}

/*
 * Every signal of a batch of known content, exactly: BUSY 1000, 2 x WRITE32,
 * COPY 256, IDLE 500, BUSY 300, SAMPLE, COPY 64, END. Busy ticks are the
 * CTX_TIMESTAMP advance, at 1 GHz the resident nanoseconds injected.
 */
static void simgpu_hw_test_perf_exact(struct kunit *test)
{
	const u32 cfg1 = PERFCFG(BUSY_TICKS, COMMANDS, BATCHES, BYTES_WRITTEN);
	const u32 cfg2 = PERFCFG(BYTES_READ, CTX_SWITCHES, COPIES, SAMPLES);
	static const u32 refclks[] = { TEST_1GHZ, TEST_19_2MHZ };
	struct simgpu_hw_test *t = test->priv;
	u8 *buf = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *rep = test_alloc(t, SIMGPU_REPORT_SIZE);
	__le32 *batch;
	u64 phys;
	u32 ts0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	phys = virt_to_phys(buf);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(phys, SZ_4K));
	batch = batch_begin(t);
	emit_busy(t, 1000);
	emit_write32(t, phys, 1);
	emit_write32(t, phys + 4, 2);
	emit_copy(t, phys + 1024, phys + 2048, 256);
	emit_idle(t, 500);
	emit_busy(t, 300);
	emit_sample(t, 0, virt_to_phys(rep), 0);
	emit_copy(t, phys + 1024, phys + 3072, 64);
	emit(t, SIMGPU_CMD_END);

	for (i = 0; i < ARRAY_SIZE(refclks); i++) {
		memset(a, 0, CTX_IMG_SIZE);
		memset(b, 0, CTX_IMG_SIZE);
		a[CTX_IMG_ID / 4] = cpu_to_le32(1);
		b[CTX_IMG_ID / 4] = cpu_to_le32(2);
		ts0 = 0x1000 * i;
		a[CTX_IMG_TIMESTAMP / 4] = cpu_to_le32(ts0);
		test_create(t, refclks[i], 0, true);

		run_to(t, 333);
		submit_perf(t->hw, BCS0, a, batch, 1,
			    SIMGPU_PERFCFG_LOAD | cfg1);
		submit_perf(t->hw, BCS0, b, batch, 2,
			    SIMGPU_PERFCFG_LOAD | cfg2);
		run_to(t, 100000);
		KUNIT_EXPECT_EQ(test, eng_rd(t->hw, BCS0, RING_STATUS), 0);
		KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 2);

		KUNIT_EXPECT_EQ(test, img_slot(a, 0),
				img_rd(a, CTX_IMG_TIMESTAMP) - ts0);
		KUNIT_EXPECT_EQ(test, img_slot(b, 0), 256 + 64);
		KUNIT_EXPECT_EQ(test, img_slot(a, 1), 8);
		KUNIT_EXPECT_EQ(test, img_slot(b, 1), 2);
		KUNIT_EXPECT_EQ(test, img_slot(a, 2), 1);
		KUNIT_EXPECT_EQ(test, img_slot(b, 2), 2);
		KUNIT_EXPECT_EQ(test, img_slot(a, 3), 2 * 4 + 256 + 64);
		KUNIT_EXPECT_EQ(test, img_slot(b, 3), 1);
		/* B's SAMPLE was the last, before B's second COPY */
		KUNIT_EXPECT_EQ(test, rep_slot(rep, 0), 256);
		KUNIT_EXPECT_EQ(test, rep_slot(rep, 1), 2);
		KUNIT_EXPECT_EQ(test, rep_slot(rep, 2), 1);
		KUNIT_EXPECT_EQ(test, rep_slot(rep, 3), 0);
		/* A's SAMPLE seq and B's are their own */
		KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SAMPLE_SEQ), 1);
		KUNIT_EXPECT_EQ(test, img_rd(rep, SIMGPU_REPORT_SEQ), 1);
	}

	/* At 1 GHz: the nanoseconds of BUSY and COPY, IDLE excluded */
	test_create(t, TEST_1GHZ, 0, true);
	memset(a, 0, CTX_IMG_SIZE);
	a[CTX_IMG_ID / 4] = cpu_to_le32(1);
	submit_perf(t->hw, BCS0, a, batch, 3, SIMGPU_PERFCFG_LOAD | cfg1);
	run_to(t, 100000);
	KUNIT_EXPECT_EQ(test, img_slot(a, 0), 1000 + 256 + 300 + 64);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP),
			1000 + 256 + 300 + 64);
	KUNIT_EXPECT_EQ(test, rep_slot(rep, 0), 1000 + 256 + 300);
	KUNIT_EXPECT_EQ(test, rep_slot(rep, 1), 6);
	KUNIT_EXPECT_EQ(test, rep_slot(rep, 3), 2 * 4 + 256);
}

/*
 * SAMPLE sequence numbers: +1 per SAMPLE of the context, across batches,
 * not for NO_SEQ (reported 0), wrapping; a report is written when the
 * engine reaches the SAMPLE and counts what came before it only.
 */
static void simgpu_hw_test_perf_sample_seq(struct kunit *test)
{
	const u32 cfg = PERFCFG(BUSY_TICKS, COMMANDS, SAMPLES, BATCHES);
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *rep = test_alloc(t, 5 * SIMGPU_REPORT_SIZE);
	__le32 *r[5], *s1, *s2;
	struct simgpu_hw *hw;
	int i;

	for (i = 0; i < 5; i++)
		r[i] = rep + i * SIMGPU_REPORT_SIZE / 4;
	memset(rep, 0xee, 5 * SIMGPU_REPORT_SIZE);
	b[CTX_IMG_SAMPLE_SEQ / 4] = cpu_to_le32(U32_MAX);

	s1 = batch_begin(t);
	emit_busy(t, 1000);
	emit_sample(t, 0, virt_to_phys(r[0]), 1);
	emit_sample(t, SIMGPU_SAMPLE_NO_SEQ, virt_to_phys(r[1]), 2);
	emit_busy(t, 2000);
	emit_sample(t, 0, virt_to_phys(r[2]), 3);
	emit(t, SIMGPU_CMD_END);
	s2 = batch_begin(t);
	emit_sample(t, 0, virt_to_phys(r[3]), 4);
	emit(t, SIMGPU_CMD_END);
	hw = test_create(t, TEST_1GHZ, 0, true);

	submit_perf(hw, RCS0, a, s1, 1, SIMGPU_PERFCFG_LOAD | cfg);
	submit_perf(hw, RCS0, a, s2, 2, 0);
	run_to(t, 999);
	KUNIT_EXPECT_EQ(test, img_rd(r[0], SIMGPU_REPORT_SEQ), 0xeeeeeeee);
	run_to(t, 1000);
	KUNIT_EXPECT_EQ(test, img_rd(r[0], SIMGPU_REPORT_SEQ), 1);
	KUNIT_EXPECT_EQ(test, img_rd(r[1], SIMGPU_REPORT_SEQ), 0);
	KUNIT_EXPECT_EQ(test, img_rd(r[2], SIMGPU_REPORT_SEQ), 0xeeeeeeee);

	run_to(t, 5000);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 2);
	KUNIT_EXPECT_EQ(test, img_rd(r[2], SIMGPU_REPORT_SEQ), 2);
	KUNIT_EXPECT_EQ(test, img_rd(r[3], SIMGPU_REPORT_SEQ), 3);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SAMPLE_SEQ), 3);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, img_rd(r[i], SIMGPU_REPORT_TAG), i + 1);

	/* Between the two BUSYs: the first counted, the second not */
	KUNIT_EXPECT_EQ(test, img_rd64(r[0], SIMGPU_REPORT_TIMESTAMP), 1000);
	KUNIT_EXPECT_EQ(test, rep_slot(r[0], 0), 1000);
	KUNIT_EXPECT_EQ(test, rep_slot(r[0], 1), 1);
	KUNIT_EXPECT_EQ(test, rep_slot(r[0], 2), 0);
	KUNIT_EXPECT_EQ(test, rep_slot(r[1], 0), 1000);
	KUNIT_EXPECT_EQ(test, rep_slot(r[1], 1), 2);
	KUNIT_EXPECT_EQ(test, rep_slot(r[1], 2), 1);
	KUNIT_EXPECT_EQ(test, img_rd64(r[2], SIMGPU_REPORT_TIMESTAMP), 3000);
	KUNIT_EXPECT_EQ(test, rep_slot(r[2], 0), 3000);
	KUNIT_EXPECT_EQ(test, rep_slot(r[2], 1), 4);
	KUNIT_EXPECT_EQ(test, rep_slot(r[2], 2), 2);
	KUNIT_EXPECT_EQ(test, rep_slot(r[2], 3), 1);
	/* The next batch of the context, kept: continues */
	KUNIT_EXPECT_EQ(test, rep_slot(r[3], 1), 5);
	KUNIT_EXPECT_EQ(test, rep_slot(r[3], 2), 3);
	KUNIT_EXPECT_EQ(test, rep_slot(r[3], 3), 2);
	KUNIT_EXPECT_EQ(test, img_slot(a, 1), 6);
	KUNIT_EXPECT_EQ(test, img_slot(a, 2), 4);

	/* Per context, and wrapping */
	submit_perf(hw, RCS0, b, s2, 3, 0);
	run_to(t, 6000);
	KUNIT_EXPECT_EQ(test, img_rd(r[3], SIMGPU_REPORT_SEQ), 0);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SAMPLE_SEQ), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SAMPLE_SEQ), 3);
	KUNIT_EXPECT_EQ(test, img_rd(r[4], SIMGPU_REPORT_SEQ), 0xeeeeeeee);
}

/* LOAD of a bad configuration halts; the image keeps the old one */
static void simgpu_hw_test_perf_bad_config(struct kunit *test)
{
	static const u32 bad[] = {
		SIMGPU_PERFCFG_SLOT(0, SIMGPU_SIG_COMMANDS) |
		SIMGPU_PERFCFG_SLOT(2, SIMGPU_SIG_COMMANDS),
		SIMGPU_PERFCFG_SLOT(3, SIMGPU_PERF_NUM_SIGNALS),
		0xf << SIMGPU_PERFCFG_SLOT_SHIFT(1),
		SIMGPU_PERFCFG_SLOT(0, SIMGPU_SIG_SAMPLES) |
		SIMGPU_PERFCFG_SLOT(1, SIMGPU_SIG_SAMPLES),
	};
	const u32 good = SIMGPU_PERFCFG_SLOT(3, SIMGPU_SIG_SAMPLES) |
			 SIMGPU_PERFCFG_SLOT(1, SIMGPU_SIG_BATCHES);
	struct simgpu_hw_test *t = test->priv;
	u32 *dst = kunit_kzalloc(test, sizeof(u32), GFP_KERNEL);
	__le32 *a = test_ctx(t, 1, 0);
	__le32 *batch;
	struct simgpu_hw *hw;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, dst);
	batch = batch_begin(t);
	emit_write32(t, virt_to_phys(dst), 0x600d);
	emit(t, SIMGPU_CMD_END);
	hw = test_create(t, TEST_1GHZ, 0, true);

	/* Nibble SIMGPU_PERF_NUM_SIGNALS is the last signal, fine */
	submit_perf(hw, RCS0, a, batch, 1, SIMGPU_PERFCFG_LOAD | good);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_PERF_CFG), good);
	KUNIT_EXPECT_EQ(test, img_slot(a, 1), 1);
	KUNIT_EXPECT_EQ(test, *dst, 0x600d);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		*dst = 0;
		eng_wr(hw, RCS0, RING_IRQ_REASON, ~0);
		run_to(t, 1000 * (i + 1));
		/* Bits 30:16 are ignored, they do not make it good or bad */
		submit_perf(hw, RCS0, a, batch, 10 + i,
			    SIMGPU_PERFCFG_LOAD | 0x7fff0000 | bad[i]);
		run_to(t, 1000 * (i + 1) + 500);
		KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS),
				RING_STATUS_BUSY | RING_STATUS_ERROR);
		KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_IRQ_REASON),
				RING_IRQ_ERROR);
		KUNIT_EXPECT_EQ(test, *dst, 0);
		eng_wr(hw, RCS0, RING_RESET, 1);
		KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
		KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_PERF_CFG), good);
	}

	/* Without LOAD bits 15:0 are not looked at; halted batches not counted */
	submit_perf(hw, RCS0, a, batch, 2, 0x7fff0000 | bad[0]);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_STATUS), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 2);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_PERF_CFG), good);
	KUNIT_EXPECT_EQ(test, img_slot(a, 1), 2);
	KUNIT_EXPECT_EQ(test, *dst, 0x600d);
}

/* COPY moves the right bytes, when it completes */
static void simgpu_hw_test_copy(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	u8 *buf = kunit_kzalloc(test, SZ_16K, GFP_KERNEL);
	__le32 *a = test_ctx(t, 1, 0);
	struct simgpu_hw *hw;
	__le32 *good;
	u64 src, dst;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	src = virt_to_phys(buf);
	dst = src + SZ_4K;
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(src, SZ_4K));
	for (i = 0; i < SZ_4K; i++)
		buf[i] = i * 7 + 3;
	memset(buf + SZ_4K, 0xaa, 3 * SZ_4K);

	good = batch_begin(t);
	emit_copy(t, src + 16, dst + 32, 64);
	emit_copy(t, src, dst + SZ_4K, SZ_4K);		/* a whole page */
	emit_copy(t, src + SZ_4K - 4, dst + 1000, 4);	/* ends at 4 KiB */
	emit(t, SIMGPU_CMD_END);
	hw = test_create(t, TEST_1GHZ, 0, true);

	submit_perf(hw, RCS0, a, good, 1, 0);
	run_to(t, 63);
	KUNIT_EXPECT_EQ(test, buf[SZ_4K + 32], 0xaa);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 63);
	run_to(t, 64);
	KUNIT_EXPECT_MEMEQ(test, buf + SZ_4K + 32, buf + 16, 64);
	run_to(t, 64 + SZ_4K + 4);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP), 64 + SZ_4K + 4);
	for (i = 0; i < SZ_4K; i++) {
		u8 want = 0xaa;

		if (i >= 32 && i < 32 + 64)
			want = buf[i - 32 + 16];
		else if (i >= 1000 && i < 1004)
			want = buf[SZ_4K - 4 + i - 1000];
		if (buf[SZ_4K + i] != want) {
			KUNIT_FAIL(test, "byte %d of dst: %#x, want %#x", i,
				   buf[SZ_4K + i], want);
			break;
		}
	}
	KUNIT_EXPECT_MEMEQ(test, buf + 2 * SZ_4K, buf, SZ_4K);
	KUNIT_EXPECT_EQ(test, buf[3 * SZ_4K], 0xaa);
}

/* Bad COPY and SAMPLE operands halt, move and report nothing */
static void simgpu_hw_test_bad_operands(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	u8 *buf = kunit_kzalloc(test, SZ_8K, GFP_KERNEL);
	u32 *canary = kunit_kzalloc(test, sizeof(u32), GFP_KERNEL);
	__le32 *a = test_ctx(t, 1, 0);
	__le32 *rep = test_alloc(t, SIMGPU_REPORT_SIZE);
	const u64 src = virt_to_phys(buf), dst = src + SZ_4K;
	const u64 rp = virt_to_phys(rep), far = BIT_ULL(46);
	const struct {
		u32 op;
		u64 src, dst;
		u32 n;
	} bad[] = {
		{ SIMGPU_CMD_COPY, src, dst, 0 },
		{ SIMGPU_CMD_COPY, src, dst, 6 },
		{ SIMGPU_CMD_COPY, src, dst, SZ_4K + 4 },
		{ SIMGPU_CMD_COPY, src + 2, dst, 8 },
		{ SIMGPU_CMD_COPY, src, dst + 2, 8 },
		{ SIMGPU_CMD_COPY, src + SZ_4K - 4, dst, 8 },
		{ SIMGPU_CMD_COPY, src, dst + SZ_4K - 4, 8 },
		{ SIMGPU_CMD_COPY, src, src + 32, 64 },
		{ SIMGPU_CMD_COPY, src + 32, src, 64 },
		{ SIMGPU_CMD_COPY, src, src, 4 },
		{ SIMGPU_CMD_COPY, 0, dst, 4 },
		{ SIMGPU_CMD_COPY, src, far, 4 },
		{ SIMGPU_CMD_SAMPLE, rp + 4 },
		{ SIMGPU_CMD_SAMPLE, rp + 32 },
		{ SIMGPU_CMD_SAMPLE, 0 },
		{ SIMGPU_CMD_SAMPLE, far },
		{ SIMGPU_CMD_SAMPLE | SIMGPU_SAMPLE_NO_SEQ, rp + 16 },
		{ SIMGPU_CMD_SAMPLE | BIT(9), rp },	/* unknown flag */
	};
	struct simgpu_hw *hw;
	__le32 *batch;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, canary);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(src, SZ_4K));
	memset(buf, 0x11, SZ_4K);
	memset(buf + SZ_4K, 0xaa, SZ_4K);
	memset(rep, 0xee, SIMGPU_REPORT_SIZE);
	hw = test_create(t, TEST_1GHZ, 0, true);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		batch = batch_begin(t);
		if ((bad[i].op & 0xff) == SIMGPU_CMD_COPY)
			emit_copy(t, bad[i].src, bad[i].dst, bad[i].n);
		else
			emit_sample(t, bad[i].op & ~0xff, bad[i].src, 0);
		emit_write32(t, virt_to_phys(canary), i + 1);
		emit(t, SIMGPU_CMD_END);

		eng_wr(hw, RCS0, RING_IRQ_REASON, ~0);
		run_to(t, 10000 * i);
		submit_perf(hw, RCS0, a, batch, 10 + i, 0);
		run_to(t, 10000 * i + 5000);
		KUNIT_EXPECT_EQ_MSG(test, eng_rd(hw, RCS0, RING_STATUS),
				    RING_STATUS_BUSY | RING_STATUS_ERROR,
				    "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, eng_rd(hw, RCS0, RING_IRQ_REASON),
				    RING_IRQ_ERROR, "case %d", i);
		eng_wr(hw, RCS0, RING_RESET, 1);
		KUNIT_EXPECT_EQ(test, *canary, 0);
		KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 0);
	}

	/* Nothing moved, nothing reported, no sequence number taken */
	for (i = 0; i < SZ_4K; i++)
		if (buf[i] != 0x11 || buf[SZ_4K + i] != 0xaa)
			break;
	KUNIT_EXPECT_EQ(test, i, SZ_4K);
	for (i = 0; i < SIMGPU_REPORT_SIZE / 4; i++)
		KUNIT_EXPECT_EQ(test, img_rd(rep, 4 * i), 0xeeeeeeee);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SAMPLE_SEQ), 0);
}

/* Real clock: the handler is called from the timer, again until acked */
static void simgpu_hw_test_irq(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0);
	__le32 *busy = busy_batch(t, NSEC_PER_MSEC);
	struct simgpu_hw *hw = test_create(t, TEST_19_2MHZ, 0, false);

	t->irq_ack_from = 2;
	simgpu_hw_write32(hw, SIMGPU_REG_IRQ_ENABLE, 1);
	submit(hw, RCS0, a, busy, 1);

	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&t->irq_done,
							  msecs_to_jiffies(5000)),
			0);
	KUNIT_EXPECT_GE(test, atomic_read(&t->irq_calls), 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->irq_status_seen), BIT_ULL(RCS0));
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->irq_reasons[RCS0]),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, irq_status(hw), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_IRQ_REASON), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
	/* Exact even though the timer fired late: 1 ms at 19.2 MHz */
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP), 19200);
}

/* IRQ_STATUS, RW1C acknowledge and the master enable, with a fake clock */
static void simgpu_hw_test_irq_ack(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0);
	__le32 *busy = busy_batch(t, 1000);
	struct simgpu_hw *hw = test_create(t, TEST_1GHZ, 0, true);

	t->irq_ack_from = 1;
	submit(hw, CCS3, a, busy, 1);
	clock_set(t, 2000);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_IRQ_STATUS), 0);
	KUNIT_EXPECT_EQ(test, simgpu_hw_read32(hw, SIMGPU_REG_IRQ_STATUS_HI),
			BIT(CCS3 - 32));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_IRQ_REASON),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);

	/* Disabled: the handler is not called */
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->irq_calls), 0);

	eng_wr(hw, CCS3, RING_IRQ_REASON, RING_IRQ_COMPLETE);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_IRQ_REASON),
			RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, irq_status(hw), BIT_ULL(CCS3));
	eng_wr(hw, CCS3, RING_IRQ_REASON, RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, irq_status(hw), 0);

	/* Pending reasons raise the line when it gets enabled */
	submit(hw, CCS3, a, busy, 2);
	clock_set(t, 4000);
	KUNIT_EXPECT_EQ(test, irq_status(hw), BIT_ULL(CCS3));
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->irq_calls), 0);
	simgpu_hw_write32(hw, SIMGPU_REG_IRQ_ENABLE, 1);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&t->irq_done,
							  msecs_to_jiffies(5000)),
			0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->irq_status_seen), BIT_ULL(CCS3));
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->irq_reasons[CCS3]),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, irq_status(hw), 0);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 2);
}

/*
 * RING_SAMPLE also latches RING_CTX_TIMESTAMP and RING_CURRENT_CTX, of the
 * same instant as RING_TIMESTAMP; the latches keep them as the engine
 * moves on. RING_SAMPLE_SEQ, even between samples, changes with each
 * sample of its engine only, not as the latches are read. A sample whose
 * clock reads earlier than the engine's time (the latched instant here)
 * is of the engine's time: the latched instant never goes back.
 */
static void simgpu_hw_test_sample_ctx(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 7, 100);
	__le32 *busy = busy_batch(t, 1000);
	struct simgpu_hw *hw = test_create(t, TEST_1GHZ, 0, true);
	u32 seq, other = eng_rd(hw, RCS0, RING_SAMPLE_SEQ);

	submit(hw, CCS3, a, busy, 1);
	clock_set(t, 400);
	seq = eng_rd(hw, CCS3, RING_SAMPLE_SEQ);
	eng_wr(hw, CCS3, RING_SAMPLE, 1);
	KUNIT_EXPECT_NE(test, eng_rd(hw, CCS3, RING_SAMPLE_SEQ), seq);
	seq = eng_rd(hw, CCS3, RING_SAMPLE_SEQ);
	KUNIT_EXPECT_EQ(test, seq % 2, 0);
	clock_set(t, 600);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_CTX), 7);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_CTX_TS), 100 + 400);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_TS_LO), 400);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_SEQ), seq);
	clock_set(t, 300);
	eng_wr(hw, CCS3, RING_SAMPLE, 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_CTX_TS), 100 + 400);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_TS_LO), 400);
	KUNIT_EXPECT_NE(test, eng_rd(hw, CCS3, RING_SAMPLE_SEQ), seq);
	seq = eng_rd(hw, CCS3, RING_SAMPLE_SEQ);

	/* The end of the job overdue: the sample is of after it */
	clock_set(t, 2000);
	eng_wr(hw, CCS3, RING_SAMPLE, 1);
	KUNIT_EXPECT_NE(test, eng_rd(hw, CCS3, RING_SAMPLE_SEQ), seq);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_SEQ) % 2, 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, RCS0, RING_SAMPLE_SEQ), other);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_CTX), 0);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_CTX_TS), 100 + 1000);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_TS_LO), 2000);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_TIMESTAMP), 100 + 1000);
}

/*
 * Fake clock, interrupts on: a sample that ends an overdue job raises the
 * interrupt at once, not when the engine's timer, queued for the job's
 * end in real time (10 s away), would have.
 */
static void simgpu_hw_test_sample_irq(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0);
	__le32 *busy = busy_batch(t, 10ULL * NSEC_PER_SEC);
	struct simgpu_hw *hw = test_create(t, TEST_1GHZ, 0, true);

	t->irq_ack_from = 1;
	simgpu_hw_write32(hw, SIMGPU_REG_IRQ_ENABLE, 1);
	submit(hw, CCS3, a, busy, 1);
	clock_set(t, 11ULL * NSEC_PER_SEC);
	eng_wr(hw, CCS3, RING_SAMPLE, 1);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_BUSY_LO),
			lower_32_bits(10ULL * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, eng_rd(hw, CCS3, RING_SAMPLE_BUSY_HI),
			upper_32_bits(10ULL * NSEC_PER_SEC));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&t->irq_done,
							  msecs_to_jiffies(2000)),
			0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->irq_reasons[CCS3]),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
}

/*
 * Real time, interrupts on: contexts switching on one engine while another
 * runs back-to-back, driven by the model's timers. Sampled run times never
 * go back and end exact (200 us is 3840 ticks at 19.2 MHz). The clock is
 * held while the jobs are submitted: a host delay between two of them
 * would otherwise let CCS3 run dry and switch its context out.
 */
static void simgpu_hw_test_realtime(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *c = test_ctx(t, 3, 0);
	__le32 *busy = busy_batch(t, 200 * NSEC_PER_USEC);
	struct simgpu_hw *hw = test_create_clock(t, TEST_19_2MHZ, 0,
						 test_held_clock);
	u32 ta = 0, tb = 0, tc = 0, now;
	unsigned long timeout;
	int i;

	t->irq_ack_from = 1;
	simgpu_hw_write32(hw, SIMGPU_REG_IRQ_ENABLE, 1);
	clock_hold(t);
	for (i = 1; i <= 10; i++) {
		submit(hw, RCS0, a, busy, i);
		submit(hw, RCS0, b, busy, i);
		submit(hw, CCS3, c, busy, 2 * i - 1);
		submit(hw, CCS3, c, busy, 2 * i);
	}
	clock_release(t);

	/* Only the timers move the engines: memory is not read via MMIO */
	timeout = jiffies + msecs_to_jiffies(5000);
	while ((img_rd(a, CTX_IMG_SEQNO) != 10 ||
		img_rd(b, CTX_IMG_SEQNO) != 10 ||
		img_rd(c, CTX_IMG_SEQNO) != 20 ||
		img_rd(c, CTX_IMG_STATUS)) && time_before(jiffies, timeout)) {
		now = ctx_time(hw, a);
		KUNIT_EXPECT_GE(test, now, ta);
		ta = now;
		now = ctx_time(hw, b);
		KUNIT_EXPECT_GE(test, now, tb);
		tb = now;
		now = ctx_time(hw, c);
		KUNIT_EXPECT_GE(test, now, tc);
		tc = now;
		usleep_range(50, 100);
	}

	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 10);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 10);
	KUNIT_EXPECT_EQ(test, img_rd(c, CTX_IMG_SEQNO), 20);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, a), 10 * 3840);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, b), 10 * 3840);
	KUNIT_EXPECT_EQ(test, ctx_time(hw, c), 20 * 3840);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SWITCH_COUNT), 20);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SWITCH_COUNT), 20);
	KUNIT_EXPECT_EQ(test, img_rd(c, CTX_IMG_SWITCH_COUNT), 2);
	KUNIT_EXPECT_GE(test, atomic_read(&t->irq_calls), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->irq_reasons[RCS0]),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
	KUNIT_EXPECT_EQ(test, READ_ONCE(t->irq_reasons[CCS3]),
			RING_IRQ_COMPLETE | RING_IRQ_CTX_SWITCH);
}

/* The observation unit: helpers */
static u32 obs_rd(struct simgpu_hw *hw, u32 reg)
{
	return simgpu_hw_read32(hw, reg);
}

static void obs_wr(struct simgpu_hw *hw, u32 reg, u32 val)
{
	simgpu_hw_write32(hw, reg, val);
}

/* Program the unit with a buffer of @size bytes at @buf and enable it */
static void obs_enable(struct simgpu_hw *hw, void *buf, u32 size, u32 exp,
		       u32 engine, u32 perfcfg, u32 filter_ctx, u32 threshold)
{
	u64 phys = virt_to_phys(buf);

	obs_wr(hw, SIMGPU_REG_OBS_BUF_LO, lower_32_bits(phys));
	obs_wr(hw, SIMGPU_REG_OBS_BUF_HI, upper_32_bits(phys));
	obs_wr(hw, SIMGPU_REG_OBS_BUF_SIZE, size);
	obs_wr(hw, SIMGPU_REG_OBS_PERFCFG, perfcfg);
	obs_wr(hw, SIMGPU_REG_OBS_CTX, filter_ctx);
	obs_wr(hw, SIMGPU_REG_OBS_THRESHOLD, threshold);
	obs_wr(hw, SIMGPU_REG_OBS_CTRL, SIMGPU_OBS_CTRL_ENABLE |
	       (filter_ctx ? SIMGPU_OBS_CTRL_FILTER : 0) |
	       exp << SIMGPU_OBS_CTRL_EXP_SHIFT |
	       engine << SIMGPU_OBS_CTRL_ENGINE_SHIFT);
}

/* Up to @max reports from TAIL to HEAD, copied into @out; TAIL moved */
static unsigned int obs_drain(struct simgpu_hw *hw, u8 *buf, u32 size,
			      __le32 (*out)[SIMGPU_OBS_REPORT_SIZE / 4],
			      unsigned int max)
{
	u32 head = obs_rd(hw, SIMGPU_REG_OBS_HEAD);
	u32 tail = obs_rd(hw, SIMGPU_REG_OBS_TAIL);
	unsigned int n = 0;

	while (tail != head && n < max) {
		memcpy(out[n++], buf + tail, SIMGPU_OBS_REPORT_SIZE);
		tail = (tail + SIMGPU_OBS_REPORT_SIZE) & (size - 1);
	}
	obs_wr(hw, SIMGPU_REG_OBS_TAIL, tail);
	return n;
}

#define OBS_MAX_REPORTS	8192

/*
 * The period is 2^(e+1) ticks exactly, the reports at the ticks whose
 * RING_TIMESTAMP is a multiple of it, whatever the clock and the offset;
 * the threshold interrupt is pending once enough reports are unread.
 */
static void simgpu_hw_test_obs_period(struct kunit *test)
{
	static const u32 refclks[] = { TEST_1GHZ, TEST_19_2MHZ };
	struct simgpu_hw_test *t = test->priv;
	u8 *buf = kunit_kzalloc(test, SZ_64K, GFP_KERNEL);
	__le32 (*rep)[SIMGPU_OBS_REPORT_SIZE / 4];
	u64 ts, period, first, ticks, end;
	unsigned int n, i, k;

	rep = kunit_kcalloc(test, OBS_MAX_REPORTS, SIMGPU_OBS_REPORT_SIZE,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, rep);

	for (k = 0; k < ARRAY_SIZE(refclks); k++) {
		/* e = 4, 6: 32 and 128 ticks; an offset off the period */
		u32 exp = 4 + 2 * k;

		test_create(t, refclks[k], 0x12345, true);
		period = 2ull << exp;
		run_to(t, 1000);
		obs_enable(t->hw, buf, SZ_64K, exp, VCS1, 0, 0,
			   10 * SIMGPU_OBS_REPORT_SIZE);
		KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_STATUS), 0);
		ticks = mul_u64_u32_div(1000, refclks[k], NSEC_PER_SEC) + 0x12345;

		/* Nine reports: the threshold is not reached */
		run_to(t, 1000 + div_u64(9 * period * NSEC_PER_SEC, refclks[k]) -
		       div_u64(NSEC_PER_SEC, refclks[k]));
		KUNIT_EXPECT_EQ(test, irq_status(t->hw) >> 63, 0);

		/* About 900 reports: they fit, within one burst */
		end = 1000 + div_u64(900 * period * NSEC_PER_SEC, refclks[k]);
		run_to(t, end);
		/* All the reports of (enable, now], the tenth one raised it */
		KUNIT_EXPECT_EQ(test, irq_status(t->hw) >> 63, 1);
		n = obs_drain(t->hw, buf, SZ_64K, rep, OBS_MAX_REPORTS);
		first = round_up(ticks + 1, period);
		KUNIT_EXPECT_EQ(test, n,
				div_u64(mul_u64_u32_div(end, refclks[k],
							NSEC_PER_SEC) +
					0x12345 - first, period) + 1);
		for (i = 0; i < n; i++) {
			ts = img_rd64(rep[i], SIMGPU_OBS_REPORT_TIMESTAMP);
			KUNIT_EXPECT_EQ(test, ts, first + i * period);
			KUNIT_EXPECT_EQ(test, img_rd(rep[i], SIMGPU_OBS_REPORT_REASON),
					SIMGPU_OBS_REASON_PERIODIC);
			KUNIT_EXPECT_EQ(test, img_rd(rep[i], SIMGPU_OBS_REPORT_CTX), 0);
			KUNIT_EXPECT_EQ(test, img_rd(rep[i], SIMGPU_OBS_REPORT_ENGINE),
					2 << 16 | 1);
		}
		obs_wr(t->hw, SIMGPU_REG_OBS_STATUS, SIMGPU_OBS_STATUS_THRESHOLD);
		KUNIT_EXPECT_EQ(test, irq_status(t->hw), 0);

		/* Disabled: no more reports */
		obs_wr(t->hw, SIMGPU_REG_OBS_CTRL, 0);
		run_to(t, 2 * end);
		KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_HEAD),
				obs_rd(t->hw, SIMGPU_REG_OBS_TAIL));
	}

	/* A bad buffer: not enabled, ERROR */
	obs_enable(t->hw, buf, 3 * SZ_4K, 4, RCS0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_CTRL) &
			SIMGPU_OBS_CTRL_ENABLE, 0);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_STATUS),
			SIMGPU_OBS_STATUS_ERROR);
}

/*
 * A duty-cycle load, 300 ticks busy in every 1024-tick period at 1 GHz:
 * each periodic report's busy-ticks is 300 more than the previous one's,
 * its commands 2 more; each IDLE shows as a CTX_OUT and a CTX_IN report.
 */
static void simgpu_hw_test_obs_duty(struct kunit *test)
{
	const u32 cfg = PERFCFG(BUSY_TICKS, COMMANDS, BATCHES, CTX_SWITCHES);
	struct simgpu_hw_test *t = test->priv;
	u8 *buf = kunit_kzalloc(test, SZ_64K, GFP_KERNEL);
	__le32 (*rep)[SIMGPU_OBS_REPORT_SIZE / 4];
	__le32 *a = test_ctx(t, 7, 0), *batch;
	unsigned int n, i, periodic = 0, in = 0, out = 0;
	u64 prev_busy = 0, prev_cmds = 0, ts;
	u32 reason;

	rep = kunit_kcalloc(test, OBS_MAX_REPORTS, SIMGPU_OBS_REPORT_SIZE,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, rep);

	batch = batch_begin(t);
	for (i = 0; i < 20; i++) {
		emit_busy(t, 300);
		emit_idle(t, 724);
	}
	emit(t, SIMGPU_CMD_END);

	test_create(t, TEST_1GHZ, 0, true);
	/* e = 9: 1024 ticks */
	obs_enable(t->hw, buf, SZ_64K, 9, RCS0, cfg, 0, 0);
	submit(t->hw, RCS0, a, batch, 1);
	run_to(t, 30 * 1024);
	KUNIT_EXPECT_EQ(test, img_rd(a, CTX_IMG_SEQNO), 1);

	n = obs_drain(t->hw, buf, SZ_64K, rep, OBS_MAX_REPORTS);
	for (i = 0; i < n; i++) {
		reason = img_rd(rep[i], SIMGPU_OBS_REPORT_REASON);
		ts = img_rd64(rep[i], SIMGPU_OBS_REPORT_TIMESTAMP);
		if (reason == SIMGPU_OBS_REASON_CTX_IN) {
			KUNIT_EXPECT_EQ(test, ts % 1024, 0);
			KUNIT_EXPECT_EQ(test, img_rd(rep[i], SIMGPU_OBS_REPORT_CTX), 7);
			in++;
			continue;
		}
		if (reason == SIMGPU_OBS_REASON_CTX_OUT) {
			/* At the IDLE, or at the END */
			KUNIT_EXPECT_EQ(test, ts % 1024, ts < 20 * 1024 ? 300 : 0);
			out++;
			continue;
		}
		KUNIT_ASSERT_EQ(test, reason, SIMGPU_OBS_REASON_PERIODIC);
		periodic++;
		KUNIT_EXPECT_EQ(test, ts, periodic * 1024);
		if (ts <= 20 * 1024) {
			KUNIT_EXPECT_EQ(test, rep_slot_obs(rep[i], 0) - prev_busy,
					300);
			KUNIT_EXPECT_EQ(test, rep_slot_obs(rep[i], 1) - prev_cmds,
					2);
		} else {
			/* The END at 20 * 1024 is a command, no busy tick */
			KUNIT_EXPECT_EQ(test, rep_slot_obs(rep[i], 0), 20 * 300);
		}
		KUNIT_EXPECT_EQ(test, rep_slot_obs(rep[i], 2), 1);
		prev_busy = rep_slot_obs(rep[i], 0);
		prev_cmds = rep_slot_obs(rep[i], 1);
	}
	KUNIT_EXPECT_EQ(test, periodic, 30);
	/* The first switch-in, one after each IDLE */
	KUNIT_EXPECT_EQ(test, in, 21);
	KUNIT_EXPECT_EQ(test, out, 21);
}

/*
 * Filtered on context B: A's work is not counted, A's switches are not
 * reported, periodic reports show B or nothing.
 */
static void simgpu_hw_test_obs_filter(struct kunit *test)
{
	const u32 cfg = PERFCFG(BUSY_TICKS, COMMANDS, BATCHES, CTX_SWITCHES);
	struct simgpu_hw_test *t = test->priv;
	u8 *buf = kunit_kzalloc(test, SZ_64K, GFP_KERNEL);
	__le32 (*rep)[SIMGPU_OBS_REPORT_SIZE / 4];
	__le32 *a = test_ctx(t, 1, 0), *b = test_ctx(t, 2, 0);
	__le32 *ba = busy_batch(t, 5000), *bb = busy_batch(t, 1000);
	unsigned int n, i, in = 0, out = 0;
	u32 reason, ctx;
	u64 ts;

	rep = kunit_kcalloc(test, OBS_MAX_REPORTS, SIMGPU_OBS_REPORT_SIZE,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, rep);

	test_create(t, TEST_1GHZ, 0, true);
	/* e = 7: 256 ticks */
	obs_enable(t->hw, buf, SZ_64K, 7, RCS0, cfg, 2, 0);
	/* A 0-5000, B 5000-6000, A 6000-11000, B 11000-12000 */
	submit(t->hw, RCS0, a, ba, 1);
	submit(t->hw, RCS0, b, bb, 1);
	submit(t->hw, RCS0, a, ba, 2);
	submit(t->hw, RCS0, b, bb, 2);
	run_to(t, 20000);
	KUNIT_EXPECT_EQ(test, img_rd(b, CTX_IMG_SEQNO), 2);

	n = obs_drain(t->hw, buf, SZ_64K, rep, OBS_MAX_REPORTS);
	KUNIT_EXPECT_EQ(test, n, 20000 / 256 + 4);
	for (i = 0; i < n; i++) {
		reason = img_rd(rep[i], SIMGPU_OBS_REPORT_REASON);
		ctx = img_rd(rep[i], SIMGPU_OBS_REPORT_CTX);
		ts = img_rd64(rep[i], SIMGPU_OBS_REPORT_TIMESTAMP);
		if (reason == SIMGPU_OBS_REASON_CTX_IN) {
			KUNIT_EXPECT_TRUE(test, ts == 5000 || ts == 11000);
			KUNIT_EXPECT_EQ(test, ctx, 2);
			in++;
		} else if (reason == SIMGPU_OBS_REASON_CTX_OUT) {
			KUNIT_EXPECT_TRUE(test, ts == 6000 || ts == 12000);
			KUNIT_EXPECT_EQ(test, ctx, 2);
			out++;
		} else {
			KUNIT_EXPECT_EQ(test, ctx, (ts > 5000 && ts <= 6000) ||
					(ts > 11000 && ts <= 12000) ? 2 : 0);
			/* B's busy ticks up to ts */
			KUNIT_EXPECT_EQ(test, rep_slot_obs(rep[i], 0),
					clamp_t(u64, ts, 5000, 6000) - 5000 +
					clamp_t(u64, ts, 11000, 12000) - 11000);
			KUNIT_EXPECT_EQ(test, rep_slot_obs(rep[i], 2),
					(ts > 5000) + (ts > 11000));
		}
	}
	KUNIT_EXPECT_EQ(test, in, 2);
	KUNIT_EXPECT_EQ(test, out, 2);
}

/*
 * A full buffer drops reports (OVERFLOW_COUNT, and the next report says
 * how many); more than SIMGPU_OBS_MAX_BURST reports due at one evaluation
 * lose the rest (LOST_COUNT, and the next report says how many).
 */
static void simgpu_hw_test_obs_overflow(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;
	u8 *buf = kunit_kzalloc(test, SZ_512K, GFP_KERNEL);
	__le32 (*rep)[SIMGPU_OBS_REPORT_SIZE / 4];
	unsigned int n;

	rep = kunit_kcalloc(test, OBS_MAX_REPORTS, SIMGPU_OBS_REPORT_SIZE,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, rep);

	/* 4 KiB: 63 reports fit; e = 0: a report every 2 ns at 1 GHz */
	test_create(t, TEST_1GHZ, 0, true);
	obs_enable(t->hw, buf, SZ_4K, 0, RCS0, 0, 0, 0);
	run_to(t, 200);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_OVERFLOW_COUNT_LO),
			100 - 63);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_STATUS),
			SIMGPU_OBS_STATUS_OVERFLOW);
	n = obs_drain(t->hw, buf, SZ_4K, rep, OBS_MAX_REPORTS);
	KUNIT_EXPECT_EQ(test, n, 63);
	KUNIT_EXPECT_EQ(test, img_rd(rep[0], SIMGPU_OBS_REPORT_OVERFLOWED), 0);
	KUNIT_EXPECT_EQ(test, img_rd64(rep[62], SIMGPU_OBS_REPORT_TIMESTAMP),
			126);
	run_to(t, 210);
	n = obs_drain(t->hw, buf, SZ_4K, rep, OBS_MAX_REPORTS);
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, img_rd(rep[0], SIMGPU_OBS_REPORT_OVERFLOWED), 37);
	KUNIT_EXPECT_EQ(test, img_rd64(rep[0], SIMGPU_OBS_REPORT_TIMESTAMP),
			202);
	KUNIT_EXPECT_EQ(test, img_rd(rep[1], SIMGPU_OBS_REPORT_OVERFLOWED), 0);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_LOST_COUNT_LO), 0);

	/* 512 KiB: 8191 fit; 6000 due at once, SIMGPU_OBS_MAX_BURST written */
	BUILD_BUG_ON(SIMGPU_OBS_MAX_BURST >= 6000);
	test_create(t, TEST_1GHZ, 0, true);
	obs_enable(t->hw, buf, SZ_512K, 0, RCS0, 0, 0, 0);
	run_to(t, 12000);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_LOST_COUNT_LO),
			6000 - SIMGPU_OBS_MAX_BURST);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_OVERFLOW_COUNT_LO), 0);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_STATUS),
			SIMGPU_OBS_STATUS_LOST);
	n = obs_drain(t->hw, buf, SZ_512K, rep, OBS_MAX_REPORTS);
	KUNIT_EXPECT_EQ(test, n, SIMGPU_OBS_MAX_BURST);
	run_to(t, 12004);
	n = obs_drain(t->hw, buf, SZ_512K, rep, OBS_MAX_REPORTS);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, img_rd(rep[0], SIMGPU_OBS_REPORT_LOST),
			6000 - SIMGPU_OBS_MAX_BURST);
	KUNIT_EXPECT_EQ(test, img_rd64(rep[0], SIMGPU_OBS_REPORT_TIMESTAMP),
			12002);

	/*
	 * 2^33 reports due at once (a host suspend, say): the count goes
	 * past 32 bits, the next report's field saturates
	 */
	test_create(t, TEST_1GHZ, 0, true);
	obs_enable(t->hw, buf, SZ_512K, 0, RCS0, 0, 0, 0);
	run_to(t, 1ULL << 34);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_LOST_COUNT_HI), 1);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_LOST_COUNT_LO),
			(u32)-SIMGPU_OBS_MAX_BURST);
	KUNIT_EXPECT_EQ(test, obs_rd(t->hw, SIMGPU_REG_OBS_OVERFLOW_COUNT_HI),
			0);
	n = obs_drain(t->hw, buf, SZ_512K, rep, OBS_MAX_REPORTS);
	KUNIT_EXPECT_EQ(test, n, SIMGPU_OBS_MAX_BURST);
	run_to(t, (1ULL << 34) + 4);
	n = obs_drain(t->hw, buf, SZ_512K, rep, OBS_MAX_REPORTS);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, img_rd(rep[0], SIMGPU_OBS_REPORT_LOST), U32_MAX);
}

static int simgpu_hw_test_init(struct kunit *test)
{
	struct simgpu_hw_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;

	t->test = test;
	init_completion(&t->irq_done);
	atomic_set(&t->irq_calls, 0);
	test->priv = t;

	/* Freed in exit, after the device is gone */
	t->arena = kzalloc(TEST_ARENA_SIZE, GFP_KERNEL);
	if (!t->arena)
		return -ENOMEM;

	return 0;
}

static void simgpu_hw_test_exit(struct kunit *test)
{
	struct simgpu_hw_test *t = test->priv;

	if (!t)
		return;
	test_destroy(t);
	kfree(t->arena);
}

static struct kunit_case simgpu_hw_test_cases[] = {
	KUNIT_CASE(simgpu_hw_test_registers),
	KUNIT_CASE(simgpu_hw_test_timestamp_carry),
	KUNIT_CASE(simgpu_hw_test_timestamp_days),
	KUNIT_CASE(simgpu_hw_test_ctx_timestamp_wrap),
	KUNIT_CASE(simgpu_hw_test_exact_accounting),
	KUNIT_CASE(simgpu_hw_test_exact_accounting_19_2mhz),
	KUNIT_CASE(simgpu_hw_test_two_contexts),
	KUNIT_CASE(simgpu_hw_test_idle),
	KUNIT_CASE(simgpu_hw_test_busy_ticks),
	KUNIT_CASE(simgpu_hw_test_sample_order),
	KUNIT_CASE(simgpu_hw_test_write32),
	KUNIT_CASE(simgpu_hw_test_hang_reset),
	KUNIT_CASE(simgpu_hw_test_fifo),
	KUNIT_CASE(simgpu_hw_test_perf_save_restore),
	KUNIT_CASE(simgpu_hw_test_perf_report),
	KUNIT_CASE(simgpu_hw_test_perf_exact),
	KUNIT_CASE(simgpu_hw_test_perf_sample_seq),
	KUNIT_CASE(simgpu_hw_test_perf_bad_config),
	KUNIT_CASE(simgpu_hw_test_copy),
	KUNIT_CASE(simgpu_hw_test_bad_operands),
	KUNIT_CASE(simgpu_hw_test_irq),
	KUNIT_CASE(simgpu_hw_test_irq_ack),
	KUNIT_CASE(simgpu_hw_test_sample_irq),
	KUNIT_CASE(simgpu_hw_test_sample_ctx),
	KUNIT_CASE(simgpu_hw_test_realtime),
	KUNIT_CASE(simgpu_hw_test_obs_period),
	KUNIT_CASE(simgpu_hw_test_obs_duty),
	KUNIT_CASE(simgpu_hw_test_obs_filter),
	KUNIT_CASE(simgpu_hw_test_obs_overflow),
	{}
};

static struct kunit_suite simgpu_hw_test_suite = {
	.name = "simgpu_hw",
	.init = simgpu_hw_test_init,
	.exit = simgpu_hw_test_exit,
	.test_cases = simgpu_hw_test_cases,
};

kunit_test_suite(simgpu_hw_test_suite);
