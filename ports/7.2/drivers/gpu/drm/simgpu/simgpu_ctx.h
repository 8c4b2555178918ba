/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_CTX_H_
#define _SIMGPU_CTX_H_

#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <uapi/drm/simgpu_drm.h>

#include "simgpu_regs.h"

struct simgpu_device;

/**
 * struct simgpu_client_usage - engine time of one client
 * @ref: held by the client's drm_file and by each of its contexts, which
 *	may outlive the file while the hardware finishes their jobs
 * @lock: serialises folds; taken from hard interrupt context
 * @cycles: CTX_TIMESTAMP ticks accumulated per engine class, protected by
 *	@lock; only ever grows
 * @active: the client's contexts that have work on the hardware, or had
 *	when last folded, protected by @lock: the only ones whose time can be
 *	outside @cycles
 * @shown_cycles: drm-cycles last printed per class, protected by @lock
 * @shown_total: drm-total-cycles last printed, protected by @lock
 * @rcu: frees the accumulators after lockless readers are done with them
 */
struct simgpu_client_usage {
	struct kref ref;
	spinlock_t lock; /* protects all but @ref and @rcu */
	u64 cycles[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	struct list_head active;
	u64 shown_cycles[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	u64 shown_total;
	struct rcu_head rcu;
};

/**
 * struct simgpu_ctx - a hardware context and its engine-time accounting
 * @id: CTX_IMG_ID, the hardware's name of the context; key of the
 *	device's context xarray
 * @engine_class: class of the engines the context runs on
 * @sdev: the device
 * @usage: the owning client's accumulators
 * @last_ts: CTX_TIMESTAMP value already added to @usage, protected by
 *	@usage->lock
 * @last_ref: a reference clock tick (RING_TIMESTAMP) at which the
 *	context's CTX_TIMESTAMP was @last_ts, protected by @usage->lock
 * @last_count: CTX_IMG_SWITCH_COUNT at @last_ref, protected by
 *	@usage->lock
 * @last_resident: the context was resident at @last_ref, protected by
 *	@usage->lock
 * @last_seqno: seqno of the last batch handed to the hardware, protected
 *	by @usage->lock
 * @last_aborted: a reset aborted the batch of @last_seqno, which the
 *	hardware then never writes; protected by @usage->lock
 * @active_link: link in @usage->active while the context has work on the
 *	hardware, empty otherwise; protected by @usage->lock
 * @dead: set under @usage->lock once the final fold is done
 * @rcu: frees the context after lockless readers are done with it
 * @image: the context image the hardware loads and saves (CTX_IMG_*)
 */
struct simgpu_ctx {
	u32 id;
	u8 engine_class;
	struct simgpu_device *sdev;
	struct simgpu_client_usage *usage;
	u32 last_ts;
	u64 last_ref;
	u32 last_count;
	bool last_resident;
	u32 last_seqno;
	bool last_aborted;
	struct list_head active_link;
	bool dead;
	struct rcu_head rcu;
	__le32 image[] __aligned(64);
};

/**
 * simgpu_seqno_passed - has a seqno reached a target?
 * @seqno: a seqno the hardware wrote
 * @target: the seqno waited for
 *
 * Seqnos wrap; they are compared within half their range.
 *
 * Return: true if @seqno is @target or later.
 */
static inline bool simgpu_seqno_passed(u32 seqno, u32 target)
{
	return (s32)(seqno - target) >= 0;
}

struct simgpu_client_usage *simgpu_client_usage_create(void);
void simgpu_client_usage_put(struct simgpu_client_usage *usage);

/**
 * struct simgpu_ctx_mgr - the device's contexts
 * @xa: &struct simgpu_ctx by id; lookups under RCU, stores irq-safe
 * @fold_work: folds the resident contexts often enough that no 32-bit
 *	CTX_TIMESTAMP can wrap between two folds; stops when the GPU is idle
 * @fold_period: jiffies between two runs of @fold_work
 * @flags: %SIMGPU_FOLD_ARMED while @fold_work is queued or will queue
 *	itself again
 * @submits: batches handed to the hardware so far, a wrapping count
 * @seen_submits: @submits at the previous run of @fold_work, which alone
 *	uses it
 * @late_folds: folds of a context 2^32 reference clock ticks or more after
 *	its previous one, when wraps of its CTX_TIMESTAMP may have gone unseen
 * @lost_folds: those of @late_folds that could not be made exact: the
 *	context had switched in between, its time may be short by multiples
 *	of 2^32 ticks
 * @fold_retries: folds that gave up, the context switching all the time;
 *	the next fold of the context adds what they left
 * @back_folds: folds that found a context's CTX_TIMESTAMP moved by more
 *	than the ticks elapsed since its previous fold: it went back, and
 *	nothing was added
 *
 * The fold worker and simgpu_ctx_sample() walk &simgpu_device.engines,
 * which simgpu_engines_init() fills from the fuses before any submission.
 */
struct simgpu_ctx_mgr {
	struct xarray xa;
	struct delayed_work fold_work;
	unsigned long fold_period;
	unsigned long flags;
#define SIMGPU_FOLD_ARMED	0
	atomic_t submits;
	int seen_submits;
	atomic_t late_folds;
	atomic_t lost_folds;
	atomic_t fold_retries;
	atomic_t back_folds;
};

struct simgpu_ctx *simgpu_ctx_create(struct simgpu_device *sdev,
				     struct simgpu_client_usage *usage,
				     unsigned int engine_class);
u64 simgpu_ctx_submit(struct simgpu_ctx *ctx, u32 seqno);
void simgpu_ctx_submitted(struct simgpu_device *sdev);
void simgpu_ctx_fold(struct simgpu_device *sdev, struct simgpu_ctx *ctx);
void simgpu_ctx_abort(struct simgpu_device *sdev, struct simgpu_ctx *ctx,
		      u32 seqno);
void simgpu_ctx_destroy(struct simgpu_device *sdev, struct simgpu_ctx *ctx);
u32 simgpu_ctx_seqno(const struct simgpu_ctx *ctx);

u64 simgpu_ctx_sample(struct simgpu_device *sdev,
		      struct simgpu_client_usage *usage,
		      u64 cycles[DRM_SIMGPU_ENGINE_CLASS_COUNT]);

unsigned long simgpu_ctx_fold_period(u32 refclk_hz);
int simgpu_ctx_init_device(struct simgpu_device *sdev);

#endif /* _SIMGPU_CTX_H_ */
