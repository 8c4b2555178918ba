// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/bitfield.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "simgpu_ctx.h"
#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_trace.h"

/**
 * DOC: engine time accounting
 *
 * The hardware counts the time a context spends on an engine in the 32-bit
 * CTX_TIMESTAMP of its context image, which wraps after 2^32 reference
 * clock ticks (224 s at 19.2 MHz, 4.3 s at 1 GHz). The driver *folds* that
 * counter into a 64-bit per-client, per-class accumulator: it adds the
 * wrapping difference to the value it saw last time. Folding a context
 * that did not run is free of effect, so it can be done as often as
 * needed, from any context, by anyone.
 *
 * A context can only gain time while it has work on the hardware. The
 * driver calls simgpu_ctx_submit() before it hands the hardware a batch,
 * which puts the context on its client's list of active contexts; a fold
 * that finds the context switched out with its last batch completed takes
 * it off again. Folds happen:
 *
 * - on every job completion and engine reset, for the context concerned;
 * - when an exec queue is destroyed, so that the time its jobs ran so far is
 *   in the totals as soon as the ioctl returns;
 * - periodically, for the contexts resident on an engine, at least every
 *   2^29 ticks (an eighth of the wrap), so that no wrap goes unseen however
 *   long a context stays resident. The worker that does it stops once it
 *   finds no context resident and nothing handed to the hardware for a
 *   period, and the next submission starts it again: an idle GPU costs no
 *   wakeups;
 * - when fdinfo is read, for the client's active contexts, so that a running
 *   job's time is counted as it runs and a finished one's as soon as the
 *   hardware has switched it out, before its completion interrupt.
 *
 * Each read also keeps the cycles it shows from growing faster than the
 * total cycles times the engines of the class, which the time between the
 * two register reads could otherwise make them do (see
 * simgpu_ctx_sample()).
 *
 * An idle exec queue therefore costs a reader nothing: a read costs
 * O(contexts with work on the hardware) whatever the number of queues,
 * takes only the client's accounting spinlock (no lock that the driver's
 * submission path holds while it talks to the hardware) and never sleeps.
 * The accumulators only ever grow, under that lock, so no reader can see a
 * value go backwards.
 *
 * While a context is resident its image's CTX_TIMESTAMP is stale; the
 * hardware flags that in CTX_IMG_STATUS and the driver samples the engine
 * instead (RING_SAMPLE: RING_CTX_TIMESTAMP with RING_CURRENT_CTX and
 * RING_TIMESTAMP of one instant), checking CTX_IMG_SWITCH_COUNT before and
 * after to detect a switch in between. A sample, unlike a register read,
 * never raises the engine's interrupts on the reading CPU nor moves the
 * engine's timer to it: a reader does not run the submitter's completions.
 * The check is retried at most %SIMGPU_CTX_TS_TRIES times, as it runs with
 * interrupts off: a context switching in and out all along (short IDLE
 * commands) could otherwise keep a reader spinning. After that the fold
 * gives up and adds nothing; the context stays active and the next fold
 * adds what this one left.
 *
 * Each fold also records the reference clock tick at which the
 * CTX_TIMESTAMP it read was valid, so the next fold of the context knows
 * how long it was away: 2^32 ticks or more, and wraps may have gone
 * unseen (the fold worker was late, say). Such a late fold is counted
 * (``simgpu_folds`` in debugfs). If the context was resident on one engine
 * all along (resident at both folds, no switch in between), it ran for
 * exactly the ticks in between, and that is what is added; otherwise the
 * wrapped difference is, a lower bound, and the late fold is also counted
 * as lost, with a warning. (A context switched out for that long between
 * two folds, in an IDLE command, is counted so too: whether it ran for
 * 2^32 ticks in between cannot be told.) The first fold after a context
 * got work again counts from its submission: time idle, off the active
 * list, is not late.
 *
 * A context cannot run for more ticks than elapsed between two folds. A
 * fold whose CTX_TIMESTAMP moved by more than that, beyond a second's
 * slack for an engine whose timer is late in stamping a switch, means
 * the counter went back: the hardware, or a sample of it, was wrong. The
 * wrapped difference (close to 2^32 ticks) would then add minutes of
 * engine time to an idle client, so nothing is added; the fold is counted
 * (``simgpu_folds`` in debugfs) with a warning, and the next fold counts
 * from the new value.
 */

/* How often ctx_timestamp() tries before it gives up */
#define SIMGPU_CTX_TS_TRIES	8

static u32 img_read(const struct simgpu_ctx *ctx, unsigned int offset)
{
	return le32_to_cpu(READ_ONCE(ctx->image[offset / 4]));
}

static void img_write(struct simgpu_ctx *ctx, unsigned int offset, u32 val)
{
	WRITE_ONCE(ctx->image[offset / 4], cpu_to_le32(val));
}

/* The reference clock (RING_TIMESTAMP) now, without running any engine */
static u64 ref_ticks(struct simgpu_device *sdev)
{
	struct simgpu_engine_sample s;

	/* Every engine's RING_TIMESTAMP counts the same reference clock */
	simgpu_engine_sample(sdev->engines[0], &s);
	return s.ts;
}

/* A context's CTX_TIMESTAMP and when it had that value */
struct ctx_ts_sample {
	u32 ts;		/* CTX_TIMESTAMP */
	u64 ref;	/* a reference clock tick at which it was @ts */
	u32 count;	/* CTX_IMG_SWITCH_COUNT then */
	bool resident;
};

/*
 * CTX_TIMESTAMP now: sampled from the engine if resident, else from the
 * image, where it holds since the switch-out. False if the context kept
 * switching for %SIMGPU_CTX_TS_TRIES tries.
 */
static bool ctx_timestamp(struct simgpu_device *sdev,
			  const struct simgpu_ctx *ctx, struct ctx_ts_sample *s)
{
	struct simgpu_engine_sample es;
	struct simgpu_engine *eng;
	unsigned int tries;
	u32 status;

	for (tries = 0; tries < SIMGPU_CTX_TS_TRIES; tries++) {
		s->count = img_read(ctx, CTX_IMG_SWITCH_COUNT);
		smp_rmb(); /* pairs with the hardware's smp_wmb() on switch */
		status = img_read(ctx, CTX_IMG_STATUS);
		smp_rmb(); /* status before the timestamp it qualifies */
		s->resident = status & CTX_IMG_STATUS_RESIDENT;
		if (s->resident) {
			u32 id = FIELD_GET(CTX_IMG_STATUS_ENGINE_MASK, status);

			eng = id < SIMGPU_MAX_ENGINES ?
			      sdev->engine_by_hw_id[id] : NULL;
			if (!eng)
				continue;
			simgpu_engine_sample(eng, &es);
			/* Switched out before the sample: count changed */
			if (es.ctx != ctx->id)
				continue;
			s->ts = es.ctx_ts;
			s->ref = es.ts;
		} else {
			s->ts = img_read(ctx, CTX_IMG_TIMESTAMP);
			/* Still @ts until the next switch-in: count changes */
			s->ref = ref_ticks(sdev);
		}
		smp_rmb(); /* read the value before re-checking the count */
		if (img_read(ctx, CTX_IMG_SWITCH_COUNT) == s->count)
			return true;
	}
	return false;
}

/*
 * The ticks @ctx ran since its last fold: the wrapped difference of its
 * CTX_TIMESTAMPs, or, after 2^32 ticks or more, what the reference clock
 * tells of them (see "engine time accounting").
 */
static u64 ctx_fold_delta(struct simgpu_device *sdev, struct simgpu_ctx *ctx,
			  const struct ctx_ts_sample *s)
{
	struct simgpu_ctx_mgr *mgr = &sdev->ctxs;
	u32 delta = s->ts - ctx->last_ts;
	u64 elapsed = s->ref - ctx->last_ref;

	lockdep_assert_held(&ctx->usage->lock);

	if (elapsed <= U32_MAX) {
		if (delta <= elapsed + sdev->refclk_hz)
			return delta;
		atomic_inc(&mgr->back_folds);
		drm_warn_once(&sdev->drm,
			      "context %u: CTX_TIMESTAMP moved by %u ticks in %llu: it went back, nothing counted\n",
			      ctx->id, delta, elapsed);
		return 0;
	}

	atomic_inc(&mgr->late_folds);
	/* Resident all along on one engine: it ran every tick in between */
	if (ctx->last_resident && s->resident &&
	    s->count == ctx->last_count && (u32)elapsed == delta)
		return elapsed;

	atomic_inc(&mgr->lost_folds);
	drm_warn_once(&sdev->drm,
		      "context %u folded %llu ticks after its previous fold: its time may be short by multiples of 2^32 ticks\n",
		      ctx->id, elapsed);
	return delta;
}

static void ctx_fold_locked(struct simgpu_device *sdev, struct simgpu_ctx *ctx)
{
	struct simgpu_client_usage *usage = ctx->usage;
	struct ctx_ts_sample s;
	u64 delta;

	lockdep_assert_held(&usage->lock);
	if (ctx->dead)
		return;

	/* Nothing added, the context stays active: the next fold adds it */
	if (!ctx_timestamp(sdev, ctx, &s)) {
		atomic_inc(&sdev->ctxs.fold_retries);
		return;
	}
	/* Off the active list it had no work since its last fold */
	if (list_empty(&ctx->active_link))
		delta = s.ts - ctx->last_ts;
	else
		delta = ctx_fold_delta(sdev, ctx, &s);
	usage->cycles[ctx->engine_class] += delta;
	ctx->last_ts = s.ts;
	ctx->last_ref = s.ref;
	ctx->last_count = s.count;
	ctx->last_resident = s.resident;
	if (delta)
		trace_simgpu_ctx_fold(ctx, delta,
				      usage->cycles[ctx->engine_class]);

	/*
	 * Out, with nothing left to run: no time can be outside @cycles. A
	 * batch aborted by a reset is done too, though it wrote no seqno.
	 */
	if (!s.resident && !list_empty(&ctx->active_link) &&
	    (simgpu_seqno_passed(simgpu_ctx_seqno(ctx), ctx->last_seqno) ||
	     ctx->last_aborted))
		list_del_init(&ctx->active_link);
}

/**
 * simgpu_ctx_submit - note that a context is about to get a batch
 * @ctx: the context
 * @seqno: the seqno of the batch, written by the hardware on completion
 *
 * Called before the batch is handed to the hardware, so that fdinfo
 * readers look at the context from then on. Never sleeps.
 *
 * Returns: the address of the context image for the submission port.
 */
u64 simgpu_ctx_submit(struct simgpu_ctx *ctx, u32 seqno)
{
	struct simgpu_client_usage *usage = ctx->usage;
	unsigned long flags;

	spin_lock_irqsave(&usage->lock, flags);
	ctx->last_seqno = seqno;
	ctx->last_aborted = false;
	if (list_empty(&ctx->active_link)) {
		/*
		 * Out with nothing to run since its last fold: its time is
		 * still @last_ts, now too, and from now on it may run.
		 */
		ctx->last_ref = ref_ticks(ctx->sdev);
		ctx->last_resident = false;
		list_add_tail(&ctx->active_link, &usage->active);
	}
	spin_unlock_irqrestore(&usage->lock, flags);

	return virt_to_phys(ctx->image);
}

/**
 * simgpu_ctx_submitted - keep the fold worker running after a submission
 * @sdev: the device
 *
 * Called after a batch was handed to the hardware, whose context may be
 * resident from then on: had it been called before, a worker that saw the
 * count before the hardware saw the batch could stop for good.
 */
void simgpu_ctx_submitted(struct simgpu_device *sdev)
{
	struct simgpu_ctx_mgr *mgr = &sdev->ctxs;

	/*
	 * Count the submission before looking at the worker's state, which
	 * the worker clears before it looks at the count: one of the two
	 * sees the other.
	 */
	atomic_inc(&mgr->submits);
	smp_mb__after_atomic(); /* pairs with fold_work() */
	if (!test_bit(SIMGPU_FOLD_ARMED, &mgr->flags) &&
	    !test_and_set_bit(SIMGPU_FOLD_ARMED, &mgr->flags))
		schedule_delayed_work(&mgr->fold_work, mgr->fold_period);
}

/**
 * simgpu_ctx_fold - add a context's engine time to its client's totals
 * @sdev: the device
 * @ctx: the context, which the caller keeps alive
 *
 * Safe from any context, hard interrupts included; never sleeps.
 */
void simgpu_ctx_fold(struct simgpu_device *sdev, struct simgpu_ctx *ctx)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->usage->lock, flags);
	ctx_fold_locked(sdev, ctx);
	spin_unlock_irqrestore(&ctx->usage->lock, flags);
}

/**
 * simgpu_ctx_abort - fold a context after a reset aborted one of its batches
 * @sdev: the device
 * @ctx: the context, switched out by the reset
 * @seqno: the seqno of the aborted batch, which the hardware never writes
 *
 * The aborted batch counts as done: if it was the context's last, the
 * context leaves its client's active list here, and a banned exec queue
 * costs fdinfo readers nothing from then on.
 */
void simgpu_ctx_abort(struct simgpu_device *sdev, struct simgpu_ctx *ctx,
		      u32 seqno)
{
	unsigned long flags;

	spin_lock_irqsave(&ctx->usage->lock, flags);
	if (seqno == ctx->last_seqno)
		ctx->last_aborted = true;
	ctx_fold_locked(sdev, ctx);
	spin_unlock_irqrestore(&ctx->usage->lock, flags);
}

/**
 * simgpu_client_usage_create - allocate a client's usage accumulators
 *
 * Returns: the accumulators with one reference, or NULL.
 */
struct simgpu_client_usage *simgpu_client_usage_create(void)
{
	struct simgpu_client_usage *usage;

	usage = kzalloc_obj(*usage);
	if (!usage)
		return NULL;

	kref_init(&usage->ref);
	spin_lock_init(&usage->lock);
	INIT_LIST_HEAD(&usage->active);
	return usage;
}

static void client_usage_release(struct kref *ref)
{
	struct simgpu_client_usage *usage =
		container_of(ref, struct simgpu_client_usage, ref);

	/* The fold worker may still look at it under RCU. */
	kfree_rcu(usage, rcu);
}

/**
 * simgpu_client_usage_put - drop a reference to a client's accumulators
 * @usage: the accumulators
 */
void simgpu_client_usage_put(struct simgpu_client_usage *usage)
{
	kref_put(&usage->ref, client_usage_release);
}

/**
 * simgpu_ctx_create - create a hardware context for a client
 * @sdev: the device
 * @usage: the client's accumulators, which the context references
 * @engine_class: the class of engines the context will run on
 *
 * Allocates the context image and the id the hardware knows it by.
 *
 * Returns: the new context or an ERR_PTR().
 */
struct simgpu_ctx *simgpu_ctx_create(struct simgpu_device *sdev,
				     struct simgpu_client_usage *usage,
				     unsigned int engine_class)
{
	struct simgpu_ctx *ctx;
	int ret;

	ctx = kzalloc(struct_size(ctx, image, CTX_IMG_SIZE / 4),
		      GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);

	ctx->sdev = sdev;
	ctx->engine_class = engine_class;
	ctx->usage = usage;
	INIT_LIST_HEAD(&ctx->active_link);

	/* Reserve an id, set the context up, then let lookups find it. */
	ret = xa_alloc_irq(&sdev->ctxs.xa, &ctx->id, NULL, xa_limit_32b,
			   GFP_KERNEL);
	if (ret) {
		kfree(ctx);
		return ERR_PTR(ret);
	}
	img_write(ctx, CTX_IMG_ID, ctx->id);
	kref_get(&usage->ref);
	/* Cannot fail: storing into a reserved slot allocates nothing. */
	xa_store_irq(&sdev->ctxs.xa, ctx->id, ctx, GFP_KERNEL);

	return ctx;
}

/**
 * simgpu_ctx_destroy - account a context's last time and free it
 * @sdev: the device
 * @ctx: the context, which the hardware must no longer use
 */
void simgpu_ctx_destroy(struct simgpu_device *sdev, struct simgpu_ctx *ctx)
{
	struct simgpu_client_usage *usage = ctx->usage;
	unsigned long flags;

	spin_lock_irqsave(&usage->lock, flags);
	ctx_fold_locked(sdev, ctx);
	ctx->dead = true;
	list_del_init(&ctx->active_link);
	spin_unlock_irqrestore(&usage->lock, flags);

	xa_erase_irq(&sdev->ctxs.xa, ctx->id);
	simgpu_client_usage_put(usage);
	kfree_rcu(ctx, rcu);
}

/**
 * simgpu_ctx_seqno - the seqno of the context's last completed batch
 * @ctx: the context
 *
 * Returns: CTX_IMG_SEQNO as last written by the hardware.
 */
u32 simgpu_ctx_seqno(const struct simgpu_ctx *ctx)
{
	return img_read(ctx, CTX_IMG_SEQNO);
}

/*
 * Fold the context resident on each engine, whoever it belongs to. Returns
 * whether any engine had one, or is in an IDLE command: its context comes
 * back without a submission.
 */
static bool fold_resident(struct simgpu_device *sdev)
{
	struct simgpu_ctx_mgr *mgr = &sdev->ctxs;
	bool resident = false;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < sdev->num_engines; i++) {
		u32 base = sdev->engines[i]->base;
		u32 id = simgpu_read32(sdev, base + RING_CURRENT_CTX);
		struct simgpu_ctx *ctx;

		if (!id) {
			if (simgpu_read32(sdev, base + RING_STATUS) &
			    RING_STATUS_IDLE_WAIT)
				resident = true;
			continue;
		}
		resident = true;
		/* A dead context is skipped under its client's lock. */
		ctx = xa_load(&mgr->xa, id);
		if (ctx)
			simgpu_ctx_fold(sdev, ctx);
	}
	rcu_read_unlock();

	return resident;
}

static void fold_work(struct work_struct *work)
{
	struct simgpu_ctx_mgr *mgr =
		container_of(work, struct simgpu_ctx_mgr, fold_work.work);
	struct simgpu_device *sdev = container_of(mgr, struct simgpu_device,
						  ctxs);
	int submits;

	submits = atomic_read(&mgr->submits);
	if (fold_resident(sdev) || submits != mgr->seen_submits) {
		/* A batch handed over may not have started yet. */
		mgr->seen_submits = submits;
		schedule_delayed_work(&mgr->fold_work, mgr->fold_period);
		return;
	}

	/* Idle for a whole period: stop until the next submission. */
	clear_bit(SIMGPU_FOLD_ARMED, &mgr->flags);
	smp_mb__after_atomic(); /* pairs with simgpu_ctx_submitted() */
	if (atomic_read(&mgr->submits) != submits &&
	    !test_and_set_bit(SIMGPU_FOLD_ARMED, &mgr->flags))
		schedule_delayed_work(&mgr->fold_work, mgr->fold_period);
}

/**
 * simgpu_ctx_sample - sample a client's engine time
 * @sdev: the device
 * @usage: the client's accumulators
 * @cycles: filled with the ticks per engine class
 *
 * Folds the client's active contexts, then samples RING_TIMESTAMP right
 * away; neither runs the submitters' work on this CPU (see "engine time
 * accounting").
 * The two reads are not one instant: were the first sample's gap between
 * them longer than the second's, the cycles would grow by more than the
 * total between the two, and utilisation read over 100 %. So the cycles
 * shown grow by at most the total's growth times the engines of the class
 * since the last sample; what is held back shows in the next one.
 *
 * Returns: RING_TIMESTAMP, the GPU's total ticks.
 */
u64 simgpu_ctx_sample(struct simgpu_device *sdev,
		      struct simgpu_client_usage *usage,
		      u64 cycles[DRM_SIMGPU_ENGINE_CLASS_COUNT])
{
	struct simgpu_ctx *ctx, *next;
	unsigned int class;
	unsigned long flags;
	u64 total, room, held;

	spin_lock_irqsave(&usage->lock, flags);
	list_for_each_entry_safe(ctx, next, &usage->active, active_link)
		ctx_fold_locked(sdev, ctx);
	total = ref_ticks(sdev);

	for (class = 0; class < DRM_SIMGPU_ENGINE_CLASS_COUNT; class++) {
		held = usage->cycles[class] - usage->shown_cycles[class];
		/* The first sample's room is RING_TIMESTAMP itself: any */
		if (check_mul_overflow(total - usage->shown_total,
				       (u64)sdev->engines_per_class[class],
				       &room) || held <= room)
			usage->shown_cycles[class] = usage->cycles[class];
		else
			usage->shown_cycles[class] += room;
		cycles[class] = usage->shown_cycles[class];
	}
	usage->shown_total = total;
	spin_unlock_irqrestore(&usage->lock, flags);

	return total;
}

/**
 * simgpu_ctx_fold_period - how often resident contexts must be folded
 * @refclk_hz: the reference clock
 *
 * Returns: a period in jiffies, at most a second, in which a context
 * resident all along advances its 32-bit CTX_TIMESTAMP by at most 2^29
 * ticks: the fold worker can run seven periods late before a wrap goes
 * unseen.
 */
unsigned long simgpu_ctx_fold_period(u32 refclk_hz)
{
	u64 period_ns = div_u64((u64)NSEC_PER_SEC << 29, refclk_hz);

	period_ns = min_t(u64, period_ns, NSEC_PER_SEC);
	/* Round down: a period of more than 2^29 ticks would break the bound */
	return max_t(unsigned long, div_u64(period_ns * HZ, NSEC_PER_SEC), 1);
}

static void ctx_mgr_fini(struct drm_device *drm, void *arg)
{
	struct simgpu_ctx_mgr *mgr = arg;

	cancel_delayed_work_sync(&mgr->fold_work);
	drm_WARN_ON(drm, !xa_empty(&mgr->xa));
	xa_destroy(&mgr->xa);
}

/**
 * simgpu_ctx_init_device - set up context management of a device
 * @sdev: the device, whose hardware is ready
 *
 * Returns: 0 or a negative error code.
 */
int simgpu_ctx_init_device(struct simgpu_device *sdev)
{
	struct simgpu_ctx_mgr *mgr = &sdev->ctxs;

	xa_init_flags(&mgr->xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	INIT_DELAYED_WORK(&mgr->fold_work, fold_work);

	if (!sdev->refclk_hz) {
		drm_err(&sdev->drm, "no reference clock\n");
		return -ENODEV;
	}

	/* The worker starts with the first submission. */
	mgr->fold_period = simgpu_ctx_fold_period(sdev->refclk_hz);

	return drmm_add_action_or_reset(&sdev->drm, ctx_mgr_fini, mgr);
}
