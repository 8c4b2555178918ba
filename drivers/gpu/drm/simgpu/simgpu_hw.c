// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

/**
 * DOC: simgpu device model
 *
 * The device model is the simulated silicon below the simgpu driver, in the
 * way vkms simulates display hardware: the driver only talks to it through a
 * 32-bit MMIO register block (simgpu_hw_read32() and simgpu_hw_write32()),
 * through memory the device reads and writes by physical address, and
 * through an interrupt handler. The register map is in simgpu_regs.h.
 *
 * There are five engine classes (rcs, bcs, vcs, vecs, ccs) with up to
 * SIMGPU_MAX_INSTANCES instances each, as configured at creation;
 * SIMGPU_REG_ENGINE_FUSE(class) has a bit set per present instance. Engine
 * (class, instance) has the register block at SIMGPU_ENGINE_BASE() of
 * SIMGPU_HW_ENGINE_ID(class, instance). Blocks of absent engines read 0.
 *
 * The driver queues work on an engine by writing a descriptor (context image
 * address, batch address, seqno, performance counter configuration) into the
 * RING_SUBMIT_* registers and 1 to RING_SUBMIT. Descriptors wait in a FIFO of
 * RING_SUBMIT_FIFO_DEPTH entries (RING_SUBMIT_FREE is the number of free
 * slots) and run in order. A batch is a stream of at most
 * SIMGPU_BATCH_MAX_WORDS SIMGPU_CMD_* words: BUSY keeps the engine busy for a
 * number of nanoseconds, IDLE switches the context out for a number of
 * nanoseconds (the engine idles with RING_STATUS_IDLE_WAIT set, descriptors
 * behind it wait) and back in, HANG never completes, WRITE32 stores a value
 * at a physical address, COPY copies up to SIMGPU_COPY_MAX_BYTES between two
 * buffers in one nanosecond per byte (the context resident; the bytes move
 * when it completes), SAMPLE writes a report of the performance counters
 * (below) and END completes the batch: the engine writes the seqno into
 * CTX_IMG_SEQNO of the context image and raises RING_IRQ_COMPLETE. Malformed
 * batches, bad COPY or SAMPLE operands and a bad counter configuration halt
 * the engine with RING_STATUS_ERROR, see simgpu_regs.h. RING_RESET aborts the
 * running batch without writing its seqno (an unfinished COPY moves
 * nothing), switches its context out, raises RING_IRQ_RESET_DONE and goes on
 * with the next descriptor.
 *
 * Each engine has a counter unit: SIMGPU_PERF_NUM_SLOTS 64-bit slots, each
 * counting one of SIMGPU_PERF_NUM_SIGNALS signals of the work of the
 * resident context. The configuration and the slots are context state kept
 * in the context image, so each context counts its own work only; a
 * descriptor with SIMGPU_PERFCFG_LOAD loads a configuration and zeroes the
 * slots when its batch starts. SAMPLE writes a SIMGPU_REPORT_SIZE report of
 * the slots, the timestamps and a per-context sequence number at the point
 * of the stream where the engine reaches it. See "simgpu performance
 * counters" for the exact rules.
 */

/**
 * DOC: simgpu performance counters
 *
 * The signals are SIMGPU_SIG_*, counted for the resident context only:
 *
 * - busy-ticks: reference clock ticks while the context is resident,
 *   exactly what its RING_CTX_TIMESTAMP advances by (so BUSY and COPY
 *   count, the time switched out in an IDLE does not);
 * - commands: every command but END, +1 when the engine begins it (a
 *   command with bad operands halts and is not counted);
 * - batches: +1 when a batch starts, after its configuration is loaded;
 * - bytes-written: +4 per WRITE32, +n per COPY of n bytes (reports are not
 *   counted);
 * - bytes-read: +n per COPY of n bytes;
 * - context-switches: +1 per switch-in, when a batch starts on an engine
 *   the context was not resident on, and at the end of an IDLE;
 * - copies: +1 per COPY; with bytes-read and bytes-written, counted when
 *   the COPY completes and its bytes move;
 * - samples: +1 per SAMPLE, after its report is written.
 *
 * A configuration (RING_SUBMIT_PERFCFG bits 15:0, CTX_IMG_PERF_CFG) has a
 * nibble per slot: 0 off, s + 1 for signal s. An off slot reads 0 and
 * counts nothing. When a batch starts, the engine first switches its
 * context in if it is not resident (loading CTX_IMG_PERF_CFG, the
 * CTX_IMG_PERF_SLOT_LO/HI() values and CTX_IMG_SAMPLE_SEQ); then, if the
 * descriptor has SIMGPU_PERFCFG_LOAD, it loads the descriptor's
 * configuration and zeroes the four slots, or halts with RING_STATUS_ERROR
 * and RING_IRQ_ERROR for a nibble above SIMGPU_PERF_NUM_SIGNALS or two
 * slots counting the same signal (the context keeps its configuration and
 * slots then); then it counts batches and, if it switched in, a
 * context-switch. Without SIMGPU_PERFCFG_LOAD the counts continue from the
 * image. Configurations loaded from an image are not checked: a nibble
 * above SIMGPU_PERF_NUM_SIGNALS counts nothing. Switch-out stores the
 * configuration, the slots and the sequence number back, before TIMESTAMP;
 * while the context is resident they are stale in the image.
 *
 * SAMPLE (opcode word SIMGPU_CMD_SAMPLE, optionally with
 * SIMGPU_SAMPLE_NO_SEQ) takes no time. When the engine reaches it, it
 * increments the context's sample sequence number (a 32-bit count that
 * wraps, kept in CTX_IMG_SAMPLE_SEQ) unless SIMGPU_SAMPLE_NO_SEQ is set,
 * then writes the little endian report at the address, which must be
 * SIMGPU_REPORT_SIZE aligned: SIMGPU_REPORT_SEQ the new sequence number (0
 * with SIMGPU_SAMPLE_NO_SEQ), SIMGPU_REPORT_TAG the command's tag,
 * SIMGPU_REPORT_TIMESTAMP the 64-bit RING_TIMESTAMP and
 * SIMGPU_REPORT_CTX_TIMESTAMP the RING_CTX_TIMESTAMP of that instant,
 * SIMGPU_REPORT_ENGINE class << 16 | instance, SIMGPU_REPORT_SLOT(i) the
 * four 64-bit slots, and 8 bytes of zeros; only then does it count the
 * SAMPLE (commands and samples), so a report never counts itself. A SAMPLE
 * between two BUSY commands thus shows the first counted and not the
 * second.
 */

/**
 * DOC: simgpu context images
 *
 * A context is a CTX_IMG_SIZE memory block. When a descriptor of a context
 * that is not resident starts, the engine switches the resident context out
 * (if any) and the new one in. Back-to-back descriptors of one context (same
 * image address) run without a switch; when the FIFO runs empty the context
 * is switched out and the engine goes idle.
 *
 * Switch-in loads CTX_IMG_TIMESTAMP into RING_CTX_TIMESTAMP, sets
 * CTX_IMG_STATUS to RESIDENT | engine id and increments CTX_IMG_SWITCH_COUNT.
 * Switch-out stores RING_CTX_TIMESTAMP into CTX_IMG_TIMESTAMP, clears
 * CTX_IMG_STATUS, increments CTX_IMG_SWITCH_COUNT and raises
 * RING_IRQ_CTX_SWITCH. The stores are ordered (smp_wmb()) so that software
 * can sample the run time of a context at any time, resident or not::
 *
 *	do {
 *		count = READ_ONCE(img[CTX_IMG_SWITCH_COUNT]);
 *		smp_rmb();
 *		status = READ_ONCE(img[CTX_IMG_STATUS]);
 *		smp_rmb();
 *		if (status & CTX_IMG_STATUS_RESIDENT)
 *			ts = RING_CTX_TIMESTAMP of the engine in status;
 *		else
 *			ts = READ_ONCE(img[CTX_IMG_TIMESTAMP]);
 *		smp_rmb();
 *	} while (READ_ONCE(img[CTX_IMG_SWITCH_COUNT]) != count);
 *
 * This works because switch-out writes TIMESTAMP before STATUS before
 * SWITCH_COUNT, and because an MMIO read first brings the engine up to date
 * (see below): if the context left the engine before the register read, the
 * read has made the switch-out happen and SWITCH_COUNT changed.
 */

/**
 * DOC: simgpu virtual time
 *
 * The model keeps time in virtual nanoseconds since creation, from
 * ktime_get_raw_ns() or the clock of the configuration. The reference clock
 * tick count at virtual time t is ts_offset + t * refclk_hz / 10^9, which is
 * what RING_TIMESTAMP returns; its halves are not latched. Each engine runs
 * on an exact timeline: a BUSY of n ns starting at t ends at t + n, and the
 * next command or descriptor starts at exactly that time. Context time is
 * the difference of tick counts between switch-in and switch-out, so it does
 * not drift over back-to-back work and is off by less than one tick per
 * switch from the busy time injected. RING_BUSY_TICKS counts the same
 * ticks for the engine, from the same tick counts: over any interval it
 * advances by exactly the sum of what the CTX_TIMESTAMPs of the contexts
 * that ran on the engine advanced by, which is what lets a busyness
 * counter of the whole engine and per-client run times agree.
 *
 * Nothing depends on when the host runs the model: every MMIO access and
 * every timer expiry first processes all events of the engine scheduled at
 * or before the current time, at their scheduled time, then answers. A
 * per-engine hrtimer only makes completions and interrupts happen promptly;
 * its lateness does not change any count. Memory the device writes (context
 * images, seqnos, WRITE32) is therefore updated when the engine is
 * evaluated: by its timer, soon after the event in real time, or by an
 * earlier access to one of its registers, SIMGPU_REG_IRQ_STATUS or
 * SIMGPU_REG_IRQ_STATUS_HI.
 */

/**
 * DOC: simgpu interrupts
 *
 * Each engine has a RING_IRQ_REASON register (write 1 to clear) and
 * SIMGPU_REG_IRQ_STATUS/SIMGPU_REG_IRQ_STATUS_HI have bit e set while engine
 * e has a reason pending. While SIMGPU_REG_IRQ_ENABLE is 1 and a reason is
 * pending, the model calls the interrupt handler from the engine's hrtimer
 * (hard interrupt context, soft interrupt context on PREEMPT_RT), never from
 * within an MMIO access and never with a lock of the model held, and calls
 * it again every 100 us while reasons stay pending (level triggered). Calls
 * of the handler do not run concurrently.
 */

/**
 * DOC: simgpu observation unit
 *
 * The device has one observation unit, which samples the counters of one
 * engine (SIMGPU_OBS_CTRL_ENGINE) periodically into a circular buffer in
 * memory, as Intel's OA unit does. It has its own four counter slots,
 * configured by SIMGPU_REG_OBS_PERFCFG in the nibble format of the
 * contexts' (see "simgpu performance counters"), counting the same
 * signals, independent of the slots in the context images: a stream and
 * the per-job perfmons never disturb each other.
 *
 * The driver programs the unit while it is disabled: the buffer
 * (SIMGPU_REG_OBS_BUF_LO/HI, physically contiguous, 4 KiB aligned,
 * SIMGPU_REG_OBS_BUF_SIZE a power of two from SIMGPU_OBS_BUF_MIN to
 * SIMGPU_OBS_BUF_MAX), the slots, the threshold, and for the filtered mode
 * the CTX_IMG_ID to count (SIMGPU_REG_OBS_CTX); then writes
 * SIMGPU_REG_OBS_CTRL with SIMGPU_OBS_CTRL_ENABLE, the period exponent e
 * and the engine. A bad engine or buffer leaves the unit disabled with
 * SIMGPU_OBS_STATUS_ERROR. Enabling zeroes the slots, HEAD, TAIL, STATUS
 * and both counts.
 *
 * Enabled, the unit writes a SIMGPU_OBS_REPORT_SIZE report at HEAD and
 * advances HEAD (a byte offset, wrapping at the size):
 *
 * - periodically, at every reference clock tick whose RING_TIMESTAMP is a
 *   multiple of the period 2^(e+1), the first one after the enable;
 * - at each context switch of the engine: a CTX_OUT report just before a
 *   context is switched out and a CTX_IN report just after one is switched
 *   in (before the switch-in and the batch start are counted).
 *
 * A report holds RING_TIMESTAMP, the resident context's CTX_IMG_ID (0 when
 * none), the reason and the four slots, all of the report's instant; a
 * report at tick T counts the events before T, not those at T. The slots
 * count from the enable on, as 64-bit totals, and only while a context is
 * resident on the engine. In the filtered mode (SIMGPU_OBS_CTRL_FILTER)
 * they count only while the context SIMGPU_REG_OBS_CTX is resident, the
 * switch reports are written for that context only, and a periodic report
 * shows the context id only while that context is resident (0 otherwise):
 * a filtered report tells nothing about other contexts but that the time
 * went by.
 *
 * The driver reads the reports from its TAIL to HEAD and then writes TAIL.
 * The unit keeps one report free: a report that would make HEAD reach TAIL
 * is dropped, counted in SIMGPU_REG_OBS_OVERFLOW_COUNT_LO/HI, and sets
 * SIMGPU_OBS_STATUS_OVERFLOW. When the unread amount reaches
 * SIMGPU_REG_OBS_THRESHOLD bytes (from below: once, until TAIL moves it
 * under again), the unit sets SIMGPU_OBS_STATUS_THRESHOLD, which is
 * pending in SIMGPU_REG_IRQ_STATUS_HI as SIMGPU_IRQ_STATUS_HI_OBS and
 * raises the interrupt until written back to SIMGPU_REG_OBS_STATUS.
 *
 * The unit writes at most SIMGPU_OBS_MAX_BURST reports each time the model
 * evaluates its engine (a register access, or the unit's own timer, set
 * for when a sixteenth of that many reports or the threshold is due, but
 * not less than a millisecond ahead): the periodic reports due beyond
 * that are lost, counted in SIMGPU_REG_OBS_LOST_COUNT_LO/HI with
 * SIMGPU_OBS_STATUS_LOST. That bounds the time the model spends with
 * interrupts off; it loses reports only at
 * periods under a quarter of a microsecond or when the host runs the
 * timer late by more than fifteen sixteenths of the burst.
 * The next report written after dropped or lost ones says how many in
 * SIMGPU_OBS_REPORT_OVERFLOWED and SIMGPU_OBS_REPORT_LOST, so that
 * software sees exactly where the series has a gap; these 32-bit fields
 * saturate, the 64-bit counts do not.
 *
 * Disabling the unit (writing CTRL without ENABLE) first writes the
 * reports due until then; HEAD, the buffer's contents and the counts stay
 * readable until the next enable.
 */

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/seqlock.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "simgpu_hw.h"

#define SIMGPU_NEVER		U64_MAX

/* The slot configuration bits of RING_SUBMIT_PERFCFG and CTX_IMG_PERF_CFG */
#define SIMGPU_PERFCFG_CFG	GENMASK(15, 0)

/* Delay before the interrupt handler is called again for pending reasons */
#define SIMGPU_IRQ_RETRY_NS	(100 * NSEC_PER_USEC)
/* Bounds of the real time delay to the next event of an engine */
#define SIMGPU_TIMER_MIN_NS	(1 * NSEC_PER_USEC)
#define SIMGPU_TIMER_MIN_FAKE_NS (1 * NSEC_PER_MSEC)
#define SIMGPU_TIMER_MAX_NS	(3600ULL * NSEC_PER_SEC)
/* The shortest delay of the observation unit's timer */
#define SIMGPU_OBS_TIMER_MIN_NS	(1 * NSEC_PER_MSEC)

/* RING_SAMPLE_TS, RING_SAMPLE_BUSY, RING_SAMPLE_CTX_TS, RING_SAMPLE_CTX */
struct simgpu_hw_latch {
	u64 ts;
	u64 busy;
	u32 ctx_ts;
	u32 ctx;
};

/* What an engine is given by RING_SUBMIT */
struct simgpu_desc {
	u64 ctx;
	u64 batch;
	u32 seqno;
	u32 perfcfg;
};

struct simgpu_hw_engine {
	struct simgpu_hw *hw;
	u8 id;

	/* Runs the engine in real time, see simgpu_hw_engine_timer() */
	struct hrtimer timer;

	/*
	 * RING_SAMPLE's latches, written under @lock in @latch_seq
	 * (RING_SAMPLE_SEQ) and read without a lock: a reader tells a whole
	 * sample by the sequence, as the driver does on hardware.
	 */
	seqcount_raw_spinlock_t latch_seq;
	struct simgpu_hw_latch latch;

	/*
	 * Protects all the fields below. Raw: the model is hardware, reached
	 * from any context, under raw spinlocks too (perf's PMU callbacks)
	 * and on PREEMPT_RT. Innermost: nothing is called with it held that
	 * takes a sleeping lock, and the interrupt handler runs without it.
	 */
	raw_spinlock_t lock;

	/* Set by simgpu_hw_destroy(): no more timer starts */
	bool dying;
	/* Time of the queued timer, KTIME_MAX if none */
	ktime_t timer_expires;
	/* Reasons were raised since the interrupt handler was last called */
	bool irq_new;

	/* Virtual time (ns) the engine has been brought up to */
	u64 now;

	/* The submission port */
	u64 port_ctx;
	u64 port_batch;
	u32 port_seqno;
	u32 port_perfcfg;

	/* Submit FIFO, fifo[fifo_head] is the oldest of fifo_count entries */
	struct simgpu_desc fifo[RING_SUBMIT_FIFO_DEPTH];
	unsigned int fifo_head;
	unsigned int fifo_count;

	/* Running descriptor and its batch */
	bool running;
	struct simgpu_desc cur;
	/* Word index of the next command in the batch */
	u32 pc;
	/* Virtual time the current command waits for, SIMGPU_NEVER if halted */
	u64 wait_until;
	/* RING_STATUS_HUNG | RING_STATUS_ERROR */
	u32 halt;
	/* The COPY in progress, moved when it completes; copy_len 0 if none */
	u64 copy_src;
	u64 copy_dst;
	u32 copy_len;

	/* Resident context, ctx_img NULL if none */
	__le32 *ctx_img;
	/* RING_CURRENT_CTX */
	u32 ctx_id;
	/*
	 * RING_CTX_TIMESTAMP: ctx_ts at tick ctx_ts_tick; counts while a context
	 * is resident, keeps its last value otherwise.
	 */
	u32 ctx_ts;
	u64 ctx_ts_tick;
	/*
	 * RING_BUSY_TICKS: busy_ticks plus, while a context is resident, the
	 * ticks since ctx_ts_tick
	 */
	u64 busy_ticks;

	/*
	 * Performance counters of the resident context, loaded from its image
	 * on switch-in and stored back on switch-out. A slot counting
	 * SIMGPU_SIG_BUSY_TICKS holds its value minus the context's ticks
	 * since switch-in, see simgpu_hw_perf_slot().
	 */
	u32 perf_cfg;
	u64 perf_slot[SIMGPU_PERF_NUM_SLOTS];
	u32 sample_seq;

	/* RING_IRQ_REASON */
	u32 irq_reason;

	/* The observation unit observes this engine, see simgpu_hw_obs */
	bool obs_on;
};

/*
 * The observation unit. While enabled it belongs to the engine it observes
 * (e), and that engine's lock protects its state: the engine's own paths
 * (advance, a context switch, a signal counted) reach it with no lock of
 * its own. Its own lock protects it while disabled; the accesses through
 * its registers and its timer take both (simgpu_hw_obs_lock()). Lock
 * order: the engine's lock, then the unit's.
 */
struct simgpu_hw_obs {
	/* Evaluates the unit in real time, see simgpu_hw_obs_timer() */
	struct hrtimer timer;

	/* Innermost; see above for what it protects */
	raw_spinlock_t lock;

	/* Under @lock: set by simgpu_hw_destroy(), no more timer starts */
	bool dying;
	/* Under @lock: time of the queued timer, KTIME_MAX if none */
	ktime_t timer_expires;

	/* Engine observed while enabled, NULL otherwise; written under both locks */
	struct simgpu_hw_engine *e;

	/* The fields below: under e's lock while enabled, @lock otherwise */

	/* Registers */
	u32 ctrl;
	u32 perfcfg;
	u32 ctx;
	u64 buf;
	u32 size;
	u32 head;
	u32 tail;
	u32 threshold;
	u32 status;
	u64 overflow_count;
	u64 lost_count;

	/*
	 * Latched at enable: the buffer, log2 of the period in ticks, and
	 * for each signal the slots that count it (a bit each)
	 */
	__le32 *map;
	unsigned int shift;
	u8 sig_slots[SIMGPU_PERF_NUM_SIGNALS];
	/* Tick (since creation, without ts_offset) and time of the next report */
	u64 next_tick;
	u64 next_t;
	/*
	 * When the unit's timer must evaluate it next, recomputed by
	 * simgpu_hw_obs_delay() once HEAD, TAIL or next_tick moved (stale)
	 */
	u64 eval_t;
	bool eval_stale;
	/* The slots; busy-ticks is busy plus the ticks since busy_since */
	u64 slot[SIMGPU_PERF_NUM_SLOTS];
	u64 busy;
	u64 busy_since;
	/* Reports dropped or lost since the last one written */
	u32 overflowed;
	u32 lost;
};

struct simgpu_hw {
	/* Constant after simgpu_hw_create() */
	struct simgpu_hw_config cfg;
	u64 t0;
	simgpu_irq_handler_t irq;
	void *irq_data;
	u32 fuse[SIMGPU_MAX_CLASSES];
	struct simgpu_hw_engine *engines[SIMGPU_MAX_ENGINES];

	/* SIMGPU_REG_IRQ_ENABLE, accessed with READ_ONCE()/WRITE_ONCE() */
	u32 irq_enable;
	/* Calls of the interrupt handler wanted, see simgpu_hw_irq_deliver() */
	atomic_t irq_requests;

	struct simgpu_hw_obs obs;
};

static u64 simgpu_hw_clock(struct simgpu_hw *hw)
{
	if (hw->cfg.now_ns)
		return hw->cfg.now_ns(hw->cfg.clock_data);
	return ktime_get_raw_ns();
}

/* Reference clock ticks at virtual time @t, without ts_offset */
static u64 simgpu_hw_ticks(struct simgpu_hw *hw, u64 t)
{
	return mul_u64_u32_div(t, hw->cfg.refclk_hz, NSEC_PER_SEC);
}

/*
 * Device memory access. Addresses are CPU physical addresses of lowmem RAM,
 * see simgpu_hw.h. A bad address is a fault, never a crash.
 */
static __le32 *simgpu_hw_map(u64 addr, size_t size)
{
	u64 pfn;

	if (!addr || !IS_ALIGNED(addr, sizeof(u32)) ||
	    addr > (u64)(phys_addr_t)-1 - size)
		return NULL;
	for (pfn = PHYS_PFN(addr); pfn <= PHYS_PFN(addr + size - 1); pfn++)
		if (!pfn_valid(pfn) || PageHighMem(pfn_to_page(pfn)))
			return NULL;
	return phys_to_virt(addr);
}

static u32 simgpu_img_read(__le32 *img, u32 offset)
{
	return le32_to_cpu(READ_ONCE(img[offset / 4]));
}

static void simgpu_img_write(__le32 *img, u32 offset, u32 val)
{
	WRITE_ONCE(img[offset / 4], cpu_to_le32(val));
}

static void simgpu_hw_engine_raise(struct simgpu_hw_engine *e, u32 reason)
{
	e->irq_reason |= reason;
	e->irq_new = true;
}

/*
 * Reference clock ticks of the resident context from its switch-in to
 * virtual time @t: what RING_CTX_TIMESTAMP, RING_BUSY_TICKS and the
 * SIMGPU_SIG_BUSY_TICKS slots have advanced by since then.
 */
static u64 simgpu_hw_engine_ctx_ticks(struct simgpu_hw_engine *e, u64 t)
{
	return simgpu_hw_ticks(e->hw, t) - e->ctx_ts_tick;
}

/* RING_CTX_TIMESTAMP at virtual time @t */
static u32 simgpu_hw_engine_ctx_ts(struct simgpu_hw_engine *e, u64 t)
{
	if (!e->ctx_img)
		return e->ctx_ts;
	return e->ctx_ts + (u32)simgpu_hw_engine_ctx_ticks(e, t);
}

/* RING_BUSY_TICKS at virtual time @t */
static u64 simgpu_hw_engine_busy_ticks(struct simgpu_hw_engine *e, u64 t)
{
	if (!e->ctx_img)
		return e->busy_ticks;
	return e->busy_ticks + simgpu_hw_engine_ctx_ticks(e, t);
}

/* The nibble of slot @i in a slot configuration: 0 off, s + 1 signal s */
static u32 simgpu_perfcfg_nibble(u32 cfg, unsigned int i)
{
	return (cfg & SIMGPU_PERFCFG_SLOT_MASK(i)) >> SIMGPU_PERFCFG_SLOT_SHIFT(i);
}

/* A configuration the engine can load: no nibble too big, no duplicate */
static bool simgpu_perfcfg_valid(u32 cfg)
{
	unsigned int i, j, n;

	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++) {
		n = simgpu_perfcfg_nibble(cfg, i);
		if (n > SIMGPU_PERF_NUM_SIGNALS)
			return false;
		for (j = 0; n && j < i; j++)
			if (simgpu_perfcfg_nibble(cfg, j) == n)
				return false;
	}
	return true;
}

/*
 * Slot @i of the resident context at virtual time @t; 0 for a slot that is
 * off (or, restored from an image, counts no signal)
 */
static u64 simgpu_hw_perf_slot(struct simgpu_hw_engine *e, unsigned int i,
			       u64 t)
{
	u32 n = simgpu_perfcfg_nibble(e->perf_cfg, i);

	if (!n || n > SIMGPU_PERF_NUM_SIGNALS)
		return 0;
	if (n == SIMGPU_SIG_BUSY_TICKS + 1)
		return e->perf_slot[i] + simgpu_hw_engine_ctx_ticks(e, t);
	return e->perf_slot[i];
}

/* Set slot @i of the resident context to @val at virtual time @t */
static void simgpu_hw_perf_set_slot(struct simgpu_hw_engine *e,
				    unsigned int i, u64 val, u64 t)
{
	if (simgpu_perfcfg_nibble(e->perf_cfg, i) == SIMGPU_SIG_BUSY_TICKS + 1)
		val -= simgpu_hw_engine_ctx_ticks(e, t);
	e->perf_slot[i] = val;
}

/* The engine id of a report: class << 16 | instance */
static u32 simgpu_hw_engine_report_id(struct simgpu_hw_engine *e)
{
	return (u32)(e->id / SIMGPU_MAX_INSTANCES) << 16 |
	       e->id % SIMGPU_MAX_INSTANCES;
}

/* Virtual time of reference tick @tick: the first t with ticks(t) >= tick */
static u64 simgpu_hw_tick_time(struct simgpu_hw *hw, u64 tick)
{
	u64 t = mul_u64_u32_div(tick, NSEC_PER_SEC, hw->cfg.refclk_hz);

	/* The division rounds down by less than a nanosecond */
	while (simgpu_hw_ticks(hw, t) < tick)
		t++;
	return t;
}

/* Do the observation unit's slots count now, on its engine @e? */
static bool simgpu_hw_obs_counts(struct simgpu_hw_obs *o,
				 struct simgpu_hw_engine *e)
{
	return e->ctx_img &&
	       (!(o->ctrl & SIMGPU_OBS_CTRL_FILTER) || e->ctx_id == o->ctx);
}

/* Slot @i of the observation unit at reference clock tick @tick */
static u64 simgpu_hw_obs_slot(struct simgpu_hw_obs *o,
			      struct simgpu_hw_engine *e, unsigned int i,
			      u64 tick)
{
	u32 n = simgpu_perfcfg_nibble(o->perfcfg, i);

	if (!n || n > SIMGPU_PERF_NUM_SIGNALS)
		return 0;
	if (n != SIMGPU_SIG_BUSY_TICKS + 1)
		return o->slot[i];
	if (!simgpu_hw_obs_counts(o, e))
		return o->busy;
	return o->busy + tick - o->busy_since;
}

/* A report or a gap: the next report written says how many were missed */
static void simgpu_hw_obs_miss(u32 *pending, u64 *count, u64 n)
{
	*pending = min_t(u64, (u64)*pending + n, U32_MAX);
	*count += n;
}

/*
 * Write a report of @reason at reference clock tick @tick (since creation,
 * without ts_offset) into the buffer, if it fits
 */
static void simgpu_hw_obs_report(struct simgpu_hw_obs *o,
				 struct simgpu_hw_engine *e, u32 reason,
				 u64 tick)
{
	u32 used = (o->head - o->tail) & (o->size - 1);
	u64 ts, slot;
	__le32 *rep;
	unsigned int i;

	lockdep_assert_held(&e->lock);

	/* One report stays free, so that HEAD == TAIL means empty */
	if (used + SIMGPU_OBS_REPORT_SIZE >= o->size) {
		simgpu_hw_obs_miss(&o->overflowed, &o->overflow_count, 1);
		o->status |= SIMGPU_OBS_STATUS_OVERFLOW;
		return;
	}

	rep = o->map + o->head / 4;
	ts = e->hw->cfg.ts_offset + tick;
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_REASON, reason);
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_CTX,
			 !(o->ctrl & SIMGPU_OBS_CTRL_FILTER) ||
			 e->ctx_id == o->ctx ? e->ctx_id : 0);
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_TIMESTAMP, lower_32_bits(ts));
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_TIMESTAMP + 4, upper_32_bits(ts));
	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++) {
		slot = simgpu_hw_obs_slot(o, e, i, tick);
		simgpu_img_write(rep, SIMGPU_OBS_REPORT_SLOT(i),
				 lower_32_bits(slot));
		simgpu_img_write(rep, SIMGPU_OBS_REPORT_SLOT(i) + 4,
				 upper_32_bits(slot));
	}
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_ENGINE,
			 simgpu_hw_engine_report_id(e));
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_OVERFLOWED, o->overflowed);
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_LOST, o->lost);
	simgpu_img_write(rep, SIMGPU_OBS_REPORT_SIZE - 4, 0);
	o->overflowed = 0;
	o->lost = 0;

	o->head = (o->head + SIMGPU_OBS_REPORT_SIZE) & (o->size - 1);
	o->eval_stale = true;
	if (o->threshold && used < o->threshold &&
	    used + SIMGPU_OBS_REPORT_SIZE >= o->threshold) {
		o->status |= SIMGPU_OBS_STATUS_THRESHOLD;
		e->irq_new = true;
	}
}

/*
 * Write the periodic reports due at or before virtual time @limit, at most
 * *@budget of them; those beyond the budget are lost.
 */
static void simgpu_hw_obs_periodic(struct simgpu_hw_engine *e, u64 limit,
				   unsigned int *budget)
{
	struct simgpu_hw_obs *o = &e->hw->obs;
	struct simgpu_hw *hw = e->hw;
	u64 skip;

	lockdep_assert_held(&e->lock);

	while (o->next_t <= limit) {
		if (!*budget) {
			skip = ((simgpu_hw_ticks(hw, limit) - o->next_tick) >>
				o->shift) + 1;
			simgpu_hw_obs_miss(&o->lost, &o->lost_count, skip);
			o->status |= SIMGPU_OBS_STATUS_LOST;
			o->next_tick += skip << o->shift;
			o->next_t = simgpu_hw_tick_time(hw, o->next_tick);
			o->eval_stale = true;
			break;
		}
		(*budget)--;
		simgpu_hw_obs_report(o, e, SIMGPU_OBS_REASON_PERIODIC,
				     o->next_tick);
		o->next_tick += 1ull << o->shift;
		o->next_t = simgpu_hw_tick_time(hw, o->next_tick);
	}
}

/* Signal @sig happened @n times on the engine the unit observes */
static void simgpu_hw_obs_count(struct simgpu_hw_engine *e, u32 sig, u64 n)
{
	struct simgpu_hw_obs *o = &e->hw->obs;
	unsigned long slots = o->sig_slots[sig];
	unsigned int i;

	lockdep_assert_held(&e->lock);

	if (!slots || !simgpu_hw_obs_counts(o, e))
		return;
	for_each_set_bit(i, &slots, SIMGPU_PERF_NUM_SLOTS)
		o->slot[i] += n;
}

/*
 * The resident context of the observed engine switched in (@in), or is
 * about to switch out, at virtual time @t
 */
static void simgpu_hw_obs_switch(struct simgpu_hw_engine *e, bool in, u64 t)
{
	struct simgpu_hw_obs *o = &e->hw->obs;
	u64 tick;

	lockdep_assert_held(&e->lock);

	if (!simgpu_hw_obs_counts(o, e))
		return;

	tick = simgpu_hw_ticks(e->hw, t);
	if (in) {
		o->busy_since = tick;
		simgpu_hw_obs_report(o, e, SIMGPU_OBS_REASON_CTX_IN, tick);
	} else {
		simgpu_hw_obs_report(o, e, SIMGPU_OBS_REASON_CTX_OUT, tick);
		o->busy += tick - o->busy_since;
	}
}

/* Signal @sig of the resident context happened @n times */
static void simgpu_hw_perf_count(struct simgpu_hw_engine *e, u32 sig, u64 n)
{
	unsigned int i;

	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++)
		if (simgpu_perfcfg_nibble(e->perf_cfg, i) == sig + 1)
			e->perf_slot[i] += n;
	if (e->obs_on)
		simgpu_hw_obs_count(e, sig, n);
}

/* Load slot configuration @cfg into the resident context, slots at 0 */
static void simgpu_hw_perf_load(struct simgpu_hw_engine *e, u32 cfg, u64 t)
{
	unsigned int i;

	e->perf_cfg = cfg;
	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++)
		simgpu_hw_perf_set_slot(e, i, 0, t);
}

/*
 * Context switches. The order of the stores is what the sampling protocol
 * in the DOC comment relies on: switch-out makes TIMESTAMP visible before
 * STATUS is cleared, and both before SWITCH_COUNT changes.
 */
static void simgpu_hw_engine_switch_in(struct simgpu_hw_engine *e,
				       __le32 *img, u64 t)
{
	unsigned int i;

	e->ctx_img = img;
	e->ctx_id = simgpu_img_read(img, CTX_IMG_ID);
	e->ctx_ts = simgpu_img_read(img, CTX_IMG_TIMESTAMP);
	e->ctx_ts_tick = simgpu_hw_ticks(e->hw, t);

	/* Not checked: nibbles above SIMGPU_PERF_NUM_SIGNALS count nothing */
	e->perf_cfg = simgpu_img_read(img, CTX_IMG_PERF_CFG) & SIMGPU_PERFCFG_CFG;
	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++)
		simgpu_hw_perf_set_slot(e, i,
					simgpu_img_read(img, CTX_IMG_PERF_SLOT_LO(i)) |
					(u64)simgpu_img_read(img, CTX_IMG_PERF_SLOT_HI(i)) << 32,
					t);
	e->sample_seq = simgpu_img_read(img, CTX_IMG_SAMPLE_SEQ);

	simgpu_img_write(img, CTX_IMG_STATUS, CTX_IMG_STATUS_RESIDENT |
			 (u32)e->id << CTX_IMG_STATUS_ENGINE_SHIFT);
	smp_wmb(); /* STATUS before SWITCH_COUNT, pairs with the reader */
	simgpu_img_write(img, CTX_IMG_SWITCH_COUNT,
			 simgpu_img_read(img, CTX_IMG_SWITCH_COUNT) + 1);

	if (e->obs_on)
		simgpu_hw_obs_switch(e, true, t);
}

static void simgpu_hw_engine_switch_out(struct simgpu_hw_engine *e, u64 t)
{
	__le32 *img = e->ctx_img;
	unsigned int i;
	u64 slot;

	if (e->obs_on)
		simgpu_hw_obs_switch(e, false, t);

	/* Counters first: the busy-ticks slots need ctx_ts_tick */
	simgpu_img_write(img, CTX_IMG_PERF_CFG, e->perf_cfg);
	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++) {
		slot = simgpu_hw_perf_slot(e, i, t);
		simgpu_img_write(img, CTX_IMG_PERF_SLOT_LO(i), lower_32_bits(slot));
		simgpu_img_write(img, CTX_IMG_PERF_SLOT_HI(i), upper_32_bits(slot));
	}
	simgpu_img_write(img, CTX_IMG_SAMPLE_SEQ, e->sample_seq);

	e->busy_ticks += simgpu_hw_engine_ctx_ticks(e, t);
	e->ctx_ts = simgpu_hw_engine_ctx_ts(e, t);
	e->ctx_ts_tick = simgpu_hw_ticks(e->hw, t);
	e->ctx_img = NULL;
	e->ctx_id = 0;

	simgpu_img_write(img, CTX_IMG_TIMESTAMP, e->ctx_ts);
	smp_wmb(); /* TIMESTAMP before STATUS, pairs with the reader */
	simgpu_img_write(img, CTX_IMG_STATUS, 0);
	smp_wmb(); /* STATUS before SWITCH_COUNT, pairs with the reader */
	simgpu_img_write(img, CTX_IMG_SWITCH_COUNT,
			 simgpu_img_read(img, CTX_IMG_SWITCH_COUNT) + 1);

	simgpu_hw_engine_raise(e, RING_IRQ_CTX_SWITCH);
}

/* Stop executing the batch until RING_RESET */
static void simgpu_hw_engine_halt(struct simgpu_hw_engine *e, u32 why)
{
	e->halt = why;
	e->wait_until = SIMGPU_NEVER;
	if (why & RING_STATUS_ERROR)
		simgpu_hw_engine_raise(e, RING_IRQ_ERROR);
}

/*
 * Start the next descriptor of the FIFO at virtual time @t, switching
 * contexts as needed, then load its counter configuration if it asks to,
 * or go idle.
 */
static void simgpu_hw_engine_start_next(struct simgpu_hw_engine *e, u64 t)
{
	bool switched = false;
	struct simgpu_desc *d;
	__le32 *img;

	e->running = false;
	e->halt = 0;
	e->copy_len = 0;

	if (!e->fifo_count) {
		if (e->ctx_img)
			simgpu_hw_engine_switch_out(e, t);
		return;
	}

	d = &e->fifo[e->fifo_head];
	e->fifo_head = (e->fifo_head + 1) % RING_SUBMIT_FIFO_DEPTH;
	e->fifo_count--;

	/* Checked at submission, the memory does not move */
	img = simgpu_hw_map(d->ctx, CTX_IMG_SIZE);
	if (e->ctx_img && e->ctx_img != img)
		simgpu_hw_engine_switch_out(e, t);
	if (!e->ctx_img) {
		simgpu_hw_engine_switch_in(e, img, t);
		switched = true;
	}

	e->cur = *d;
	e->running = true;
	e->pc = 0;
	e->wait_until = t;

	if (e->cur.perfcfg & SIMGPU_PERFCFG_LOAD) {
		if (!simgpu_perfcfg_valid(e->cur.perfcfg & SIMGPU_PERFCFG_CFG)) {
			simgpu_hw_engine_halt(e, RING_STATUS_ERROR);
			return;
		}
		simgpu_hw_perf_load(e, e->cur.perfcfg & SIMGPU_PERFCFG_CFG, t);
	}
	simgpu_hw_perf_count(e, SIMGPU_SIG_BATCHES, 1);
	if (switched)
		simgpu_hw_perf_count(e, SIMGPU_SIG_CTX_SWITCHES, 1);
}

/* Fetch @n command words at the program counter, NULL on a fault */
static __le32 *simgpu_hw_engine_fetch(struct simgpu_hw_engine *e, u32 n)
{
	if (e->pc + n > SIMGPU_BATCH_MAX_WORDS)
		return NULL;
	return simgpu_hw_map(e->cur.batch + 4ull * e->pc, 4 * n);
}

/* The 64-bit operand in words @i (low) and @i + 1 (high) of a command */
static u64 simgpu_cmd_u64(const __le32 *cmd, unsigned int i)
{
	return le32_to_cpu(READ_ONCE(cmd[i])) |
	       (u64)le32_to_cpu(READ_ONCE(cmd[i + 1])) << 32;
}

/*
 * Begin COPY @cmd: check its operands and note what to move when it
 * completes. False for bad operands.
 */
static bool simgpu_hw_engine_copy(struct simgpu_hw_engine *e,
				  const __le32 *cmd)
{
	u64 src = simgpu_cmd_u64(cmd, 1), dst = simgpu_cmd_u64(cmd, 3);
	u32 len = le32_to_cpu(READ_ONCE(cmd[5]));

	if (!len || len > SIMGPU_COPY_MAX_BYTES || !IS_ALIGNED(len, 4))
		return false;
	/* A range may end at a 4 KiB boundary, not cross it */
	if ((src & (SZ_4K - 1)) + len > SZ_4K ||
	    (dst & (SZ_4K - 1)) + len > SZ_4K)
		return false;
	/* Overlap: either start lies in the other range (no sum to wrap) */
	if (src - dst < len || dst - src < len)
		return false;
	if (!simgpu_hw_map(src, len) || !simgpu_hw_map(dst, len))
		return false;

	e->copy_src = src;
	e->copy_dst = dst;
	e->copy_len = len;
	return true;
}

/*
 * SAMPLE @cmd at virtual time @t: count the sequence number if @seq and
 * write the report. False for a bad address, nothing changed then.
 */
static bool simgpu_hw_engine_report(struct simgpu_hw_engine *e,
				    const __le32 *cmd, bool seq, u64 t)
{
	u64 addr = simgpu_cmd_u64(cmd, 1), ts, slot;
	__le32 *rep;
	unsigned int i;

	if (!IS_ALIGNED(addr, SIMGPU_REPORT_SIZE))
		return false;
	rep = simgpu_hw_map(addr, SIMGPU_REPORT_SIZE);
	if (!rep)
		return false;

	if (seq)
		e->sample_seq++;
	ts = e->hw->cfg.ts_offset + simgpu_hw_ticks(e->hw, t);

	simgpu_img_write(rep, SIMGPU_REPORT_SEQ, seq ? e->sample_seq : 0);
	simgpu_img_write(rep, SIMGPU_REPORT_TAG, le32_to_cpu(READ_ONCE(cmd[3])));
	simgpu_img_write(rep, SIMGPU_REPORT_TIMESTAMP, lower_32_bits(ts));
	simgpu_img_write(rep, SIMGPU_REPORT_TIMESTAMP + 4, upper_32_bits(ts));
	simgpu_img_write(rep, SIMGPU_REPORT_CTX_TIMESTAMP,
			 simgpu_hw_engine_ctx_ts(e, t));
	simgpu_img_write(rep, SIMGPU_REPORT_ENGINE,
			 simgpu_hw_engine_report_id(e));
	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++) {
		slot = simgpu_hw_perf_slot(e, i, t);
		simgpu_img_write(rep, SIMGPU_REPORT_SLOT(i), lower_32_bits(slot));
		simgpu_img_write(rep, SIMGPU_REPORT_SLOT(i) + 4,
				 upper_32_bits(slot));
	}
	for (i = SIMGPU_REPORT_SLOT(SIMGPU_PERF_NUM_SLOTS); i < SIMGPU_REPORT_SIZE;
	     i += 4)
		simgpu_img_write(rep, i, 0);
	return true;
}

/*
 * Execute commands of the running batch at virtual time e->wait_until,
 * until one makes the engine wait, halts it or the batch ends.
 */
static void simgpu_hw_engine_exec(struct simgpu_hw_engine *e)
{
	u64 t = e->wait_until;
	__le32 *cmd, *dst;
	u64 arg;
	u32 op;

	/* The end of an IDLE: the context comes back (checked at submission) */
	if (!e->ctx_img) {
		simgpu_hw_engine_switch_in(e, simgpu_hw_map(e->cur.ctx,
							    CTX_IMG_SIZE), t);
		simgpu_hw_perf_count(e, SIMGPU_SIG_CTX_SWITCHES, 1);
	}

	/* The end of a COPY: the bytes move (checked when it began) */
	if (e->copy_len) {
		memcpy(simgpu_hw_map(e->copy_dst, e->copy_len),
		       simgpu_hw_map(e->copy_src, e->copy_len), e->copy_len);
		simgpu_hw_perf_count(e, SIMGPU_SIG_COPIES, 1);
		simgpu_hw_perf_count(e, SIMGPU_SIG_BYTES_READ, e->copy_len);
		simgpu_hw_perf_count(e, SIMGPU_SIG_BYTES_WRITTEN, e->copy_len);
		e->copy_len = 0;
	}

	for (;;) {
		cmd = simgpu_hw_engine_fetch(e, 1);
		if (!cmd)
			goto fault;

		op = le32_to_cpu(READ_ONCE(cmd[0]));
		switch (op) {
		case SIMGPU_CMD_END:
			smp_wmb(); /* the batch's stores before its seqno */
			simgpu_img_write(e->ctx_img, CTX_IMG_SEQNO, e->cur.seqno);
			simgpu_hw_engine_raise(e, RING_IRQ_COMPLETE);
			simgpu_hw_engine_start_next(e, t);
			return;
		case SIMGPU_CMD_BUSY:
		case SIMGPU_CMD_IDLE:
			cmd = simgpu_hw_engine_fetch(e, 3);
			if (!cmd)
				goto fault;
			arg = simgpu_cmd_u64(cmd, 1);
			e->pc += 3;
			simgpu_hw_perf_count(e, SIMGPU_SIG_COMMANDS, 1);
			if (!arg)
				break;
			/* IDLE waits with the context out, BUSY with it in */
			if (op == SIMGPU_CMD_IDLE)
				simgpu_hw_engine_switch_out(e, t);
			if (check_add_overflow(t, arg, &e->wait_until))
				e->wait_until = SIMGPU_NEVER - 1;
			return;
		case SIMGPU_CMD_HANG:
			simgpu_hw_perf_count(e, SIMGPU_SIG_COMMANDS, 1);
			simgpu_hw_engine_halt(e, RING_STATUS_HUNG);
			return;
		case SIMGPU_CMD_WRITE32:
			cmd = simgpu_hw_engine_fetch(e, 4);
			if (!cmd)
				goto fault;
			dst = simgpu_hw_map(simgpu_cmd_u64(cmd, 1), sizeof(u32));
			if (!dst)
				goto fault;
			WRITE_ONCE(*dst, READ_ONCE(cmd[3]));
			e->pc += 4;
			simgpu_hw_perf_count(e, SIMGPU_SIG_COMMANDS, 1);
			simgpu_hw_perf_count(e, SIMGPU_SIG_BYTES_WRITTEN,
					     sizeof(u32));
			break;
		case SIMGPU_CMD_COPY:
			cmd = simgpu_hw_engine_fetch(e, 6);
			if (!cmd || !simgpu_hw_engine_copy(e, cmd))
				goto fault;
			e->pc += 6;
			simgpu_hw_perf_count(e, SIMGPU_SIG_COMMANDS, 1);
			e->wait_until = t + e->copy_len;
			return;
		case SIMGPU_CMD_SAMPLE:
		case SIMGPU_CMD_SAMPLE | SIMGPU_SAMPLE_NO_SEQ:
			cmd = simgpu_hw_engine_fetch(e, 4);
			if (!cmd ||
			    !simgpu_hw_engine_report(e, cmd,
						     !(op & SIMGPU_SAMPLE_NO_SEQ),
						     t))
				goto fault;
			e->pc += 4;
			simgpu_hw_perf_count(e, SIMGPU_SIG_COMMANDS, 1);
			simgpu_hw_perf_count(e, SIMGPU_SIG_SAMPLES, 1);
			break;
		default:
			goto fault;
		}
	}

fault:
	simgpu_hw_engine_halt(e, RING_STATUS_ERROR);
}

/*
 * The current virtual time of engine @e, never before e->now. The clock is
 * read under the engine's lock so that the engine's time never goes back.
 */
static u64 simgpu_hw_engine_clock(struct simgpu_hw_engine *e)
{
	struct simgpu_hw *hw = e->hw;
	u64 clock;

	lockdep_assert_held(&e->lock);

	clock = simgpu_hw_clock(hw);
	if (clock > hw->t0)
		return max(e->now, clock - hw->t0);
	return e->now;
}

/*
 * Bring the engine to the current virtual time (e->now): process every
 * event scheduled at or before it, at its scheduled time, and write the
 * observation unit's periodic reports in between, each at its own time.
 */
static void simgpu_hw_engine_advance(struct simgpu_hw_engine *e)
{
	lockdep_assert_held(&e->lock);

	unsigned int budget = SIMGPU_OBS_MAX_BURST;

	e->now = simgpu_hw_engine_clock(e);
	for (;;) {
		/* The reports due before the next event, or up to now */
		if (e->obs_on)
			simgpu_hw_obs_periodic(e, e->running ?
					       min(e->wait_until, e->now) :
					       e->now, &budget);
		if (!e->running || e->wait_until > e->now)
			break;
		simgpu_hw_engine_exec(e);
	}
}

/* Does engine @e raise the interrupt line: its reasons, the unit's status? */
static bool simgpu_hw_engine_irq_pending(struct simgpu_hw_engine *e)
{
	lockdep_assert_held(&e->lock);

	if (e->irq_reason || !e->obs_on)
		return e->irq_reason;
	/* The unit is this engine's: its lock suffices to read it */
	return e->hw->obs.status & SIMGPU_OBS_STATUS_THRESHOLD;
}

/*
 * Make sure the engine's timer is queued for the earliest thing to do in
 * real time: call the interrupt handler at once for new reasons, or after
 * SIMGPU_IRQ_RETRY_NS for reasons still pending after a call (@retry), or
 * process the next event. The timer only ever moves to an earlier expiry
 * here; the callback recomputes everything when it runs.
 */
static void simgpu_hw_engine_arm(struct simgpu_hw_engine *e, bool retry)
{
	struct simgpu_hw *hw = e->hw;
	u64 delay = SIMGPU_NEVER;
	ktime_t expires;

	lockdep_assert_held(&e->lock);

	if (e->dying)
		return;

	if (hw->irq && READ_ONCE(hw->irq_enable) &&
	    simgpu_hw_engine_irq_pending(e)) {
		if (e->irq_new)
			delay = 0;
		else if (retry)
			delay = SIMGPU_IRQ_RETRY_NS;
	}

	if (e->running && e->wait_until != SIMGPU_NEVER) {
		u64 d = e->wait_until - e->now;

		/*
		 * With a test clock virtual time only moves when the test
		 * moves it, do not spin on a timer meanwhile.
		 */
		d = clamp_t(u64, d, hw->cfg.now_ns ? SIMGPU_TIMER_MIN_FAKE_NS :
			    SIMGPU_TIMER_MIN_NS, SIMGPU_TIMER_MAX_NS);
		delay = min(delay, d);
	}

	if (delay == SIMGPU_NEVER)
		return;

	expires = ktime_add_ns(ktime_get(), delay);
	if (e->timer_expires <= expires)
		return;

	e->timer_expires = expires;
	hrtimer_start(&e->timer, expires, HRTIMER_MODE_ABS);
}

/*
 * RING_SAMPLE: latch RING_TIMESTAMP, RING_BUSY_TICKS, RING_CTX_TIMESTAMP
 * and RING_CURRENT_CTX of the current instant, as a hardware engine's
 * counters would read. The sample is an access to the engine like any
 * other, under its lock: what is overdue runs first, so that the instant
 * is the current one, and no change of the engine's state (a reset, a
 * submission, a halt) can fall between the instant and the state it is
 * latched with. Instants thus only move forward, in the order of the
 * samples and of every other access.
 *
 * Unlike a register access, a sample leaves the interrupt line to the
 * engine's timer, which is due for what ran: a monitor sampling from
 * another CPU neither takes the engine's interrupts nor moves its timer to
 * that CPU. Only if the timer is not yet due (a test clock) is it brought
 * forward, so that an interrupt is never later than without the sample.
 */
static void simgpu_hw_engine_sample(struct simgpu_hw_engine *e)
{
	struct simgpu_hw_latch *l = &e->latch;
	struct simgpu_hw *hw = e->hw;
	bool irq_new;

	lockdep_assert_held(&e->lock);

	irq_new = e->irq_new;
	simgpu_hw_engine_advance(e);
	if (e->irq_new && !irq_new)
		simgpu_hw_engine_arm(e, false);

	write_seqcount_begin(&e->latch_seq);
	WRITE_ONCE(l->ts, hw->cfg.ts_offset + simgpu_hw_ticks(hw, e->now));
	WRITE_ONCE(l->busy, simgpu_hw_engine_busy_ticks(e, e->now));
	WRITE_ONCE(l->ctx_ts, simgpu_hw_engine_ctx_ts(e, e->now));
	WRITE_ONCE(l->ctx, e->ctx_id);
	write_seqcount_end(&e->latch_seq);
}

/*
 * A RING_SAMPLE_* register: what the last RING_SAMPLE latched, or the
 * latches' sequence. A register read completes before the next one starts,
 * as a CPU's uncached reads of a device do: a read of the sequence comes
 * after the latches read before it.
 */
static u32 simgpu_hw_engine_read_latch(struct simgpu_hw_engine *e, u32 reg)
{
	struct simgpu_hw_latch *l = &e->latch;

	switch (reg) {
	case RING_SAMPLE_SEQ:
		smp_rmb(); /* pairs with write_seqcount_begin() */
		return raw_read_seqcount(&e->latch_seq);
	case RING_SAMPLE_TS_LO:
		return lower_32_bits(READ_ONCE(l->ts));
	case RING_SAMPLE_TS_HI:
		return upper_32_bits(READ_ONCE(l->ts));
	case RING_SAMPLE_BUSY_LO:
		return lower_32_bits(READ_ONCE(l->busy));
	case RING_SAMPLE_BUSY_HI:
		return upper_32_bits(READ_ONCE(l->busy));
	case RING_SAMPLE_CTX_TS:
		return READ_ONCE(l->ctx_ts);
	case RING_SAMPLE_CTX:
		return READ_ONCE(l->ctx);
	}
	return 0;
}

/* Is any engine's RING_IRQ_REASON non-zero? A racy hint. */
static bool simgpu_hw_irq_pending(struct simgpu_hw *hw)
{
	int i;

	for (i = 0; i < SIMGPU_MAX_ENGINES; i++) {
		/* Unlocked: only decides whether to call the handler */
		if (hw->engines[i] && data_race(hw->engines[i]->irq_reason))
			return true;
	}
	/* Unlocked as the engines' reasons: only decides whether to call */
	return data_race(hw->obs.status) & SIMGPU_OBS_STATUS_THRESHOLD;
}

/*
 * Raise the interrupt line: call the handler, unless another CPU is already
 * running it, in which case that CPU calls it again once it returns. So the
 * handler never runs concurrently with itself, as for a real interrupt.
 * Called without any lock of the model held.
 */
static void simgpu_hw_irq_deliver(struct simgpu_hw *hw)
{
	int n;

	if (atomic_inc_return(&hw->irq_requests) != 1)
		return;

	do {
		n = atomic_read(&hw->irq_requests);
		if (READ_ONCE(hw->irq_enable) && simgpu_hw_irq_pending(hw))
			hw->irq(hw->irq_data);
	} while (atomic_sub_return(n, &hw->irq_requests));
}

static enum hrtimer_restart simgpu_hw_engine_timer(struct hrtimer *timer)
{
	struct simgpu_hw_engine *e = container_of(timer, struct simgpu_hw_engine,
					       timer);
	struct simgpu_hw *hw = e->hw;
	unsigned long flags;
	bool irq;

	raw_spin_lock_irqsave(&e->lock, flags);
	e->timer_expires = KTIME_MAX;
	simgpu_hw_engine_advance(e);
	irq = hw->irq && READ_ONCE(hw->irq_enable) &&
	      simgpu_hw_engine_irq_pending(e);
	if (irq)
		e->irq_new = false;
	raw_spin_unlock_irqrestore(&e->lock, flags);

	if (irq)
		simgpu_hw_irq_deliver(hw);

	raw_spin_lock_irqsave(&e->lock, flags);
	simgpu_hw_engine_advance(e);
	simgpu_hw_engine_arm(e, true);
	raw_spin_unlock_irqrestore(&e->lock, flags);

	return HRTIMER_NORESTART;
}

static void simgpu_hw_engine_submit(struct simgpu_hw_engine *e)
{
	struct simgpu_desc *d;

	if (e->fifo_count == RING_SUBMIT_FIFO_DEPTH ||
	    !simgpu_hw_map(e->port_ctx, CTX_IMG_SIZE)) {
		pr_warn_ratelimited("simgpu_hw: engine %u: descriptor dropped (%s)\n",
				    e->id, e->fifo_count ==
				    RING_SUBMIT_FIFO_DEPTH ? "FIFO full" :
				    "bad context address");
		simgpu_hw_engine_raise(e, RING_IRQ_ERROR);
		return;
	}

	d = &e->fifo[(e->fifo_head + e->fifo_count) % RING_SUBMIT_FIFO_DEPTH];
	d->ctx = e->port_ctx;
	d->batch = e->port_batch;
	d->seqno = e->port_seqno;
	d->perfcfg = e->port_perfcfg;
	e->fifo_count++;

	/* An idle engine starts at the time of the submission */
	if (!e->running)
		simgpu_hw_engine_start_next(e, e->now);
}

static void simgpu_hw_engine_reset(struct simgpu_hw_engine *e)
{
	if (e->running && e->ctx_img)
		simgpu_hw_engine_switch_out(e, e->now);
	simgpu_hw_engine_raise(e, RING_IRQ_RESET_DONE);
	simgpu_hw_engine_start_next(e, e->now);
}

/*
 * The engine lock of an access to the unit, with the engine brought up to
 * date; nothing for a disabled unit (@e NULL)
 */
static void simgpu_hw_obs_engine_lock(struct simgpu_hw_engine *e)
	__acquires(&e->lock)
{
	if (!e) {
		__acquire(e);	/* for sparse: no engine, no lock */
		return;
	}
	raw_spin_lock(&e->lock);
	simgpu_hw_engine_advance(e);
}

static void simgpu_hw_obs_engine_unlock(struct simgpu_hw_engine *e)
	__releases(&e->lock)
{
	if (!e) {
		__release(e);
		return;
	}
	simgpu_hw_engine_arm(e, false);
	raw_spin_unlock(&e->lock);
}

/*
 * Lock the observation unit, after the engine it observes if enabled,
 * brought up to date first. Interrupts must be off. Returns that engine.
 */
static struct simgpu_hw_engine *simgpu_hw_obs_lock(struct simgpu_hw *hw)
	__acquires(&hw->obs.lock) __acquires(&e->lock)
{
	struct simgpu_hw_obs *o = &hw->obs;
	struct simgpu_hw_engine *e;

	for (;;) {
		e = READ_ONCE(o->e);
		simgpu_hw_obs_engine_lock(e);
		raw_spin_lock(&o->lock);
		/* Only changes under both locks */
		if (o->e == e)
			return e;
		raw_spin_unlock(&o->lock);
		simgpu_hw_obs_engine_unlock(e);
	}
}

static void simgpu_hw_obs_unlock(struct simgpu_hw *hw,
				 struct simgpu_hw_engine *e)
	__releases(&hw->obs.lock) __releases(&e->lock)
{
	raw_spin_unlock(&hw->obs.lock);
	simgpu_hw_obs_engine_unlock(e);
}

/*
 * Virtual time from now until the observation unit on engine @e must be
 * evaluated: at a sixteenth of its burst budget, which leaves a late
 * timer room, and when the periodic reports reach the threshold. Computed
 * again only once a report was written, TAIL moved or reports were lost.
 */
static u64 simgpu_hw_obs_delay(struct simgpu_hw_engine *e)
{
	struct simgpu_hw_obs *o = &e->hw->obs;
	u64 n = SIMGPU_OBS_MAX_BURST / 16;
	u32 used;

	lockdep_assert_held(&o->lock);

	if (o->eval_stale) {
		used = (o->head - o->tail) & (o->size - 1);
		if (o->threshold && used < o->threshold)
			n = min_t(u64, n, DIV_ROUND_UP(o->threshold - used,
						       SIMGPU_OBS_REPORT_SIZE));
		o->eval_t = simgpu_hw_tick_time(e->hw, o->next_tick +
						((n - 1) << o->shift));
		o->eval_stale = false;
	}

	return o->eval_t > e->now ? o->eval_t - e->now : 0;
}

/*
 * Make sure the unit's timer is queued for its next evaluation on engine
 * @e, not less than SIMGPU_OBS_TIMER_MIN_NS ahead; it only ever moves to
 * an earlier expiry here. The unit has a timer of its own so that the
 * accesses to the engine it observes, each of which arms the engine's
 * timer for the engine's next event, never move it back and forth.
 */
static void simgpu_hw_obs_arm(struct simgpu_hw_obs *o,
			      struct simgpu_hw_engine *e)
{
	ktime_t expires;
	u64 delay;

	lockdep_assert_held(&e->lock);
	lockdep_assert_held(&o->lock);

	if (o->dying)
		return;

	delay = clamp_t(u64, simgpu_hw_obs_delay(e), SIMGPU_OBS_TIMER_MIN_NS,
			SIMGPU_TIMER_MAX_NS);
	expires = ktime_add_ns(ktime_get(), delay);
	if (o->timer_expires <= expires)
		return;

	o->timer_expires = expires;
	hrtimer_start(&o->timer, expires, HRTIMER_MODE_ABS);
}

/* Enable the unit on engine @e, locked and brought up to date */
static void simgpu_hw_obs_enable(struct simgpu_hw_obs *o,
				 struct simgpu_hw_engine *e, u32 ctrl)
{
	struct simgpu_hw *hw = e->hw;
	u64 tick, period;
	unsigned int i;
	u32 n;

	lockdep_assert_held(&o->lock);

	o->status = 0;
	o->map = NULL;
	if (is_power_of_2(o->size) && o->size >= SIMGPU_OBS_BUF_MIN &&
	    o->size <= SIMGPU_OBS_BUF_MAX && IS_ALIGNED(o->buf, SZ_4K))
		o->map = simgpu_hw_map(o->buf, o->size);
	if (!o->map) {
		o->status = SIMGPU_OBS_STATUS_ERROR;
		return;
	}

	o->ctrl = ctrl;
	o->head = 0;
	o->tail = 0;
	o->overflow_count = 0;
	o->lost_count = 0;
	o->overflowed = 0;
	o->lost = 0;
	memset(o->slot, 0, sizeof(o->slot));
	memset(o->sig_slots, 0, sizeof(o->sig_slots));
	for (i = 0; i < SIMGPU_PERF_NUM_SLOTS; i++) {
		n = simgpu_perfcfg_nibble(o->perfcfg, i);
		if (n && n <= SIMGPU_PERF_NUM_SIGNALS)
			o->sig_slots[n - 1] |= BIT(i);
	}
	o->busy = 0;
	tick = simgpu_hw_ticks(hw, e->now);
	o->busy_since = tick;

	/* The first tick after now whose RING_TIMESTAMP is a multiple */
	o->shift = ((ctrl & SIMGPU_OBS_CTRL_EXP_MASK) >>
		    SIMGPU_OBS_CTRL_EXP_SHIFT) + 1;
	period = 1ull << o->shift;
	o->next_tick = tick + period -
		       ((hw->cfg.ts_offset + tick) & (period - 1));
	o->next_t = simgpu_hw_tick_time(hw, o->next_tick);
	o->eval_stale = true;

	o->e = e;
	e->obs_on = true;
	simgpu_hw_obs_arm(o, e);
}

static void simgpu_hw_obs_disable(struct simgpu_hw_obs *o,
				  struct simgpu_hw_engine *e)
{
	lockdep_assert_held(&o->lock);

	o->ctrl &= ~SIMGPU_OBS_CTRL_ENABLE;
	if (e) {
		e->obs_on = false;
		o->e = NULL;
	}
}

static u32 simgpu_hw_obs_reg(struct simgpu_hw_obs *o, u32 offset)
{
	switch (offset) {
	case SIMGPU_REG_OBS_CTRL:
		return o->ctrl;
	case SIMGPU_REG_OBS_PERFCFG:
		return o->perfcfg;
	case SIMGPU_REG_OBS_CTX:
		return o->ctx;
	case SIMGPU_REG_OBS_BUF_LO:
		return lower_32_bits(o->buf);
	case SIMGPU_REG_OBS_BUF_HI:
		return upper_32_bits(o->buf);
	case SIMGPU_REG_OBS_BUF_SIZE:
		return o->size;
	case SIMGPU_REG_OBS_HEAD:
		return o->head;
	case SIMGPU_REG_OBS_TAIL:
		return o->tail;
	case SIMGPU_REG_OBS_THRESHOLD:
		return o->threshold;
	case SIMGPU_REG_OBS_STATUS:
		return o->status;
	case SIMGPU_REG_OBS_OVERFLOW_COUNT_LO:
		return lower_32_bits(o->overflow_count);
	case SIMGPU_REG_OBS_OVERFLOW_COUNT_HI:
		return upper_32_bits(o->overflow_count);
	case SIMGPU_REG_OBS_LOST_COUNT_LO:
		return lower_32_bits(o->lost_count);
	case SIMGPU_REG_OBS_LOST_COUNT_HI:
		return upper_32_bits(o->lost_count);
	}
	return 0;
}

static u32 simgpu_hw_obs_read(struct simgpu_hw *hw, u32 offset)
{
	struct simgpu_hw_engine *e;
	unsigned long flags;
	u32 val;

	local_irq_save(flags);
	e = simgpu_hw_obs_lock(hw);
	val = simgpu_hw_obs_reg(&hw->obs, offset);
	simgpu_hw_obs_unlock(hw, e);
	local_irq_restore(flags);

	return val;
}

static void simgpu_hw_obs_write(struct simgpu_hw *hw, u32 offset, u32 val)
{
	struct simgpu_hw_obs *o = &hw->obs;
	struct simgpu_hw_engine *e;
	unsigned long flags;
	u32 id;

	local_irq_save(flags);
	if (offset == SIMGPU_REG_OBS_CTRL && (val & SIMGPU_OBS_CTRL_ENABLE) &&
	    !(READ_ONCE(o->ctrl) & SIMGPU_OBS_CTRL_ENABLE)) {
		/* Enable: the engine to lock is the one written */
		id = (val & SIMGPU_OBS_CTRL_ENGINE_MASK) >>
		     SIMGPU_OBS_CTRL_ENGINE_SHIFT;
		e = id < SIMGPU_MAX_ENGINES ? hw->engines[id] : NULL;
		simgpu_hw_obs_engine_lock(e);
		raw_spin_lock(&o->lock);
		if (!e)
			o->status = SIMGPU_OBS_STATUS_ERROR;
		else if (!o->e)
			simgpu_hw_obs_enable(o, e, val);
		simgpu_hw_obs_unlock(hw, e);
		local_irq_restore(flags);
		return;
	}

	e = simgpu_hw_obs_lock(hw);
	switch (offset) {
	case SIMGPU_REG_OBS_CTRL:
		if (!(val & SIMGPU_OBS_CTRL_ENABLE)) {
			simgpu_hw_obs_disable(o, e);
			o->ctrl = val;
		}
		break;
	case SIMGPU_REG_OBS_TAIL:
		if (o->size)
			o->tail = val & (o->size - 1) &
				  ~(SIMGPU_OBS_REPORT_SIZE - 1);
		/* The threshold may now be due earlier */
		o->eval_stale = true;
		if (e)
			simgpu_hw_obs_arm(o, e);
		break;
	case SIMGPU_REG_OBS_STATUS:
		o->status &= ~val;
		break;
	}
	if (!e) {
		switch (offset) {
		case SIMGPU_REG_OBS_PERFCFG:
			o->perfcfg = val & SIMGPU_PERFCFG_CFG;
			break;
		case SIMGPU_REG_OBS_CTX:
			o->ctx = val;
			break;
		case SIMGPU_REG_OBS_BUF_LO:
			o->buf = (o->buf & ~0xffffffffull) | val;
			break;
		case SIMGPU_REG_OBS_BUF_HI:
			o->buf = lower_32_bits(o->buf) | (u64)val << 32;
			break;
		case SIMGPU_REG_OBS_BUF_SIZE:
			o->size = val;
			break;
		case SIMGPU_REG_OBS_THRESHOLD:
			o->threshold = val;
			break;
		}
	}
	simgpu_hw_obs_unlock(hw, e);
	local_irq_restore(flags);
}

/*
 * The unit's timer: evaluate the unit (the engine's timer raises the
 * interrupt if the threshold was reached meanwhile) and queue the next
 * evaluation, while it is enabled
 */
static enum hrtimer_restart simgpu_hw_obs_timer(struct hrtimer *timer)
{
	struct simgpu_hw *hw = container_of(timer, struct simgpu_hw, obs.timer);
	struct simgpu_hw_obs *o = &hw->obs;
	struct simgpu_hw_engine *e;
	unsigned long flags;

	local_irq_save(flags);
	e = simgpu_hw_obs_lock(hw);
	o->timer_expires = KTIME_MAX;
	if (e)
		simgpu_hw_obs_arm(o, e);
	simgpu_hw_obs_unlock(hw, e);
	local_irq_restore(flags);

	return HRTIMER_NORESTART;
}

/* The registers RING_SAMPLE latches into */
static bool simgpu_hw_reg_is_sample(u32 reg)
{
	return (reg >= RING_SAMPLE_TS_LO && reg <= RING_SAMPLE_BUSY_HI) ||
	       reg == RING_SAMPLE_CTX_TS || reg == RING_SAMPLE_CTX ||
	       reg == RING_SAMPLE_SEQ;
}

static u32 simgpu_hw_engine_read(struct simgpu_hw_engine *e, u32 reg)
{
	u64 ts;

	switch (reg) {
	case RING_TIMESTAMP_LO:
	case RING_TIMESTAMP_HI:
		ts = e->hw->cfg.ts_offset + simgpu_hw_ticks(e->hw, e->now);
		return reg == RING_TIMESTAMP_LO ? lower_32_bits(ts) :
						  upper_32_bits(ts);
	case RING_CTX_TIMESTAMP:
		return simgpu_hw_engine_ctx_ts(e, e->now);
	case RING_BUSY_TICKS_LO:
		return lower_32_bits(simgpu_hw_engine_busy_ticks(e, e->now));
	case RING_BUSY_TICKS_HI:
		return upper_32_bits(simgpu_hw_engine_busy_ticks(e, e->now));
	case RING_CURRENT_CTX:
		return e->ctx_id;
	case RING_SUBMIT_CTX_LO:
		return lower_32_bits(e->port_ctx);
	case RING_SUBMIT_CTX_HI:
		return upper_32_bits(e->port_ctx);
	case RING_SUBMIT_BATCH_LO:
		return lower_32_bits(e->port_batch);
	case RING_SUBMIT_BATCH_HI:
		return upper_32_bits(e->port_batch);
	case RING_SUBMIT_SEQNO:
		return e->port_seqno;
	case RING_SUBMIT_PERFCFG:
		return e->port_perfcfg;
	case RING_SUBMIT_FREE:
		return RING_SUBMIT_FIFO_DEPTH - e->fifo_count;
	case RING_STATUS:
		if (e->running && !e->ctx_img)
			return RING_STATUS_IDLE_WAIT;
		return (e->ctx_img ? RING_STATUS_BUSY : 0) | e->halt;
	case RING_IRQ_REASON:
		return e->irq_reason;
	default:
		return 0;
	}
}

static void simgpu_hw_engine_write(struct simgpu_hw_engine *e, u32 reg, u32 val)
{
	switch (reg) {
	case RING_SUBMIT_CTX_LO:
		e->port_ctx = (e->port_ctx & ~0xffffffffull) | val;
		break;
	case RING_SUBMIT_CTX_HI:
		e->port_ctx = lower_32_bits(e->port_ctx) | (u64)val << 32;
		break;
	case RING_SUBMIT_BATCH_LO:
		e->port_batch = (e->port_batch & ~0xffffffffull) | val;
		break;
	case RING_SUBMIT_BATCH_HI:
		e->port_batch = lower_32_bits(e->port_batch) | (u64)val << 32;
		break;
	case RING_SUBMIT_SEQNO:
		e->port_seqno = val;
		break;
	case RING_SUBMIT_PERFCFG:
		e->port_perfcfg = val & (SIMGPU_PERFCFG_LOAD | SIMGPU_PERFCFG_CFG);
		break;
	case RING_SUBMIT:
		if (val & 1)
			simgpu_hw_engine_submit(e);
		break;
	case RING_RESET:
		if (val & 1)
			simgpu_hw_engine_reset(e);
		break;
	case RING_IRQ_REASON:
		e->irq_reason &= ~val;
		break;
	}
}

static struct simgpu_hw_engine *simgpu_hw_engine(struct simgpu_hw *hw,
						 u32 offset)
{
	if (offset < SIMGPU_ENGINE_BASE(0) || offset >= SIMGPU_MMIO_SIZE)
		return NULL;
	return hw->engines[(offset - SIMGPU_ENGINE_BASE(0)) / 0x100];
}

static u32 simgpu_hw_irq_status(struct simgpu_hw *hw, unsigned int first)
{
	struct simgpu_hw_engine *e;
	unsigned long flags;
	u32 status = 0;
	unsigned int i;

	for (i = first; i < min_t(unsigned int, first + 32, SIMGPU_MAX_ENGINES);
	     i++) {
		e = hw->engines[i];
		if (!e)
			continue;
		raw_spin_lock_irqsave(&e->lock, flags);
		simgpu_hw_engine_advance(e);
		if (e->irq_reason)
			status |= BIT(i - first);
		simgpu_hw_engine_arm(e, false);
		raw_spin_unlock_irqrestore(&e->lock, flags);
	}
	if (first == 32 && simgpu_hw_obs_read(hw, SIMGPU_REG_OBS_STATUS) &
	    SIMGPU_OBS_STATUS_THRESHOLD)
		status |= SIMGPU_IRQ_STATUS_HI_OBS;
	return status;
}

static void simgpu_hw_set_irq_enable(struct simgpu_hw *hw, u32 val)
{
	struct simgpu_hw_engine *e;
	unsigned long flags;
	unsigned int i;

	WRITE_ONCE(hw->irq_enable, val & 1);
	if (!(val & 1))
		return;

	/* Reasons already pending now raise the line */
	for (i = 0; i < SIMGPU_MAX_ENGINES; i++) {
		e = hw->engines[i];
		if (!e)
			continue;
		raw_spin_lock_irqsave(&e->lock, flags);
		if (e->irq_reason)
			e->irq_new = true;
		simgpu_hw_engine_arm(e, false);
		raw_spin_unlock_irqrestore(&e->lock, flags);
	}
}

/**
 * simgpu_hw_read32 - read a device register
 * @hw: the device
 * @offset: byte offset of the register in the MMIO block
 *
 * Brings the engine addressed up to the current time first. Does not sleep,
 * can be called from any context.
 *
 * Return: the register value, 0 for unknown or unaligned offsets.
 */
u32 simgpu_hw_read32(struct simgpu_hw *hw, u32 offset)
{
	struct simgpu_hw_engine *e;
	unsigned long flags;
	u32 val;

	if (!IS_ALIGNED(offset, 4))
		return 0;

	switch (offset) {
	case SIMGPU_REG_ID:
		return SIMGPU_ID_MAGIC;
	case SIMGPU_REG_REFCLK_HZ:
		return hw->cfg.refclk_hz;
	case SIMGPU_REG_ENGINE_FUSE(0) ...
	     SIMGPU_REG_ENGINE_FUSE(SIMGPU_MAX_CLASSES - 1):
		return hw->fuse[(offset - SIMGPU_REG_ENGINE_FUSE(0)) / 4];
	case SIMGPU_REG_VRAM_SIZE_LO:
		return lower_32_bits(hw->cfg.vram_size);
	case SIMGPU_REG_VRAM_SIZE_HI:
		return upper_32_bits(hw->cfg.vram_size);
	case SIMGPU_REG_IRQ_STATUS:
		return simgpu_hw_irq_status(hw, 0);
	case SIMGPU_REG_IRQ_STATUS_HI:
		return simgpu_hw_irq_status(hw, 32);
	case SIMGPU_REG_IRQ_ENABLE:
		return READ_ONCE(hw->irq_enable);
	case SIMGPU_REG_OBS_CTRL ... SIMGPU_REG_OBS_LOST_COUNT_HI:
		return simgpu_hw_obs_read(hw, offset);
	}

	e = simgpu_hw_engine(hw, offset);
	if (!e)
		return 0;

	/* Latched: reading them neither runs the engine nor takes its lock */
	if (simgpu_hw_reg_is_sample(offset & 0xff))
		return simgpu_hw_engine_read_latch(e, offset & 0xff);

	raw_spin_lock_irqsave(&e->lock, flags);
	simgpu_hw_engine_advance(e);
	val = simgpu_hw_engine_read(e, offset & 0xff);
	simgpu_hw_engine_arm(e, false);
	raw_spin_unlock_irqrestore(&e->lock, flags);

	return val;
}

/**
 * simgpu_hw_write32 - write a device register
 * @hw: the device
 * @offset: byte offset of the register in the MMIO block
 * @val: value to write
 *
 * Brings the engine addressed up to the current time first, so that the
 * write takes effect at the current time. Writes to read-only, unknown or
 * unaligned offsets are ignored. Does not sleep, can be called from any
 * context.
 */
void simgpu_hw_write32(struct simgpu_hw *hw, u32 offset, u32 val)
{
	struct simgpu_hw_engine *e;
	unsigned long flags;

	if (!IS_ALIGNED(offset, 4))
		return;

	if (offset == SIMGPU_REG_IRQ_ENABLE) {
		simgpu_hw_set_irq_enable(hw, val);
		return;
	}
	if (offset >= SIMGPU_REG_OBS_CTRL &&
	    offset <= SIMGPU_REG_OBS_LOST_COUNT_HI) {
		simgpu_hw_obs_write(hw, offset, val);
		return;
	}

	e = simgpu_hw_engine(hw, offset);
	if (!e)
		return;

	raw_spin_lock_irqsave(&e->lock, flags);
	if ((offset & 0xff) == RING_SAMPLE) {
		if (val & 1)
			simgpu_hw_engine_sample(e);
		raw_spin_unlock_irqrestore(&e->lock, flags);
		return;
	}
	simgpu_hw_engine_advance(e);
	simgpu_hw_engine_write(e, offset & 0xff, val);
	/* Run what the write started at the current time, e.g. a WRITE32 */
	simgpu_hw_engine_advance(e);
	simgpu_hw_engine_arm(e, false);
	raw_spin_unlock_irqrestore(&e->lock, flags);
}

/**
 * simgpu_hw_create - create a simulated device
 * @cfg: configuration, copied
 * @irq: interrupt handler, or NULL for none
 * @irq_data: argument to @irq
 *
 * The device starts with interrupts disabled, all engines idle and its
 * virtual time at 0 (RING_TIMESTAMP at @cfg->ts_offset). Must be called from
 * process context.
 *
 * Return: the device, or an ERR_PTR(): -EINVAL for a zero reference clock or
 * more than %SIMGPU_MAX_INSTANCES instances of a class, -ENOMEM.
 */
struct simgpu_hw *simgpu_hw_create(const struct simgpu_hw_config *cfg,
				   simgpu_irq_handler_t irq, void *irq_data)
{
	struct simgpu_hw_engine *e;
	struct simgpu_hw *hw;
	unsigned int class, inst;

	if (!cfg->refclk_hz)
		return ERR_PTR(-EINVAL);
	for (class = 0; class < SIMGPU_MAX_CLASSES; class++)
		if (cfg->instances[class] > SIMGPU_MAX_INSTANCES)
			return ERR_PTR(-EINVAL);

	hw = kzalloc_obj(*hw);
	if (!hw)
		return ERR_PTR(-ENOMEM);

	hw->cfg = *cfg;
	hw->irq = irq;
	hw->irq_data = irq_data;
	atomic_set(&hw->irq_requests, 0);
	raw_spin_lock_init(&hw->obs.lock);
	hw->obs.timer_expires = KTIME_MAX;
	hrtimer_setup(&hw->obs.timer, simgpu_hw_obs_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);

	for (class = 0; class < SIMGPU_MAX_CLASSES; class++) {
		for (inst = 0; inst < cfg->instances[class]; inst++) {
			e = kzalloc_obj(*e);
			if (!e) {
				simgpu_hw_destroy(hw);
				return ERR_PTR(-ENOMEM);
			}
			e->hw = hw;
			e->id = SIMGPU_HW_ENGINE_ID(class, inst);
			raw_spin_lock_init(&e->lock);
			seqcount_raw_spinlock_init(&e->latch_seq, &e->lock);
			e->timer_expires = KTIME_MAX;
			hrtimer_setup(&e->timer, simgpu_hw_engine_timer,
				      CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
			hw->engines[e->id] = e;
			hw->fuse[class] |= BIT(inst);
		}
	}

	hw->t0 = simgpu_hw_clock(hw);

	return hw;
}

/**
 * simgpu_hw_destroy - destroy a simulated device
 * @hw: the device, may be NULL or an ERR_PTR()
 *
 * Stops the device and frees it. Must be called from process context, with
 * no concurrent simgpu_hw_read32()/simgpu_hw_write32() and not from the
 * interrupt handler. Once it returns, the interrupt handler is not running
 * and is not called again, and the device does not access memory anymore.
 * Work still queued is dropped; its context images may be left resident.
 */
void simgpu_hw_destroy(struct simgpu_hw *hw)
{
	struct simgpu_hw_engine *e;
	unsigned long flags;
	int i;

	if (IS_ERR_OR_NULL(hw))
		return;

	for (i = 0; i < SIMGPU_MAX_ENGINES; i++) {
		e = hw->engines[i];
		if (!e)
			continue;
		raw_spin_lock_irqsave(&e->lock, flags);
		e->dying = true;
		raw_spin_unlock_irqrestore(&e->lock, flags);
	}
	raw_spin_lock_irqsave(&hw->obs.lock, flags);
	hw->obs.dying = true;
	raw_spin_unlock_irqrestore(&hw->obs.lock, flags);

	/* The unit's timer locks an engine, and arms the engine's timer */
	hrtimer_cancel(&hw->obs.timer);
	/* The handler, called from any engine's timer, reads all engines */
	for (i = 0; i < SIMGPU_MAX_ENGINES; i++)
		if (hw->engines[i])
			hrtimer_cancel(&hw->engines[i]->timer);
	for (i = 0; i < SIMGPU_MAX_ENGINES; i++)
		kfree(hw->engines[i]);

	kfree(hw);
}
