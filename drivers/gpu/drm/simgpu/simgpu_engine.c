// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/bitops.h>
#include <linux/dma-fence.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include <kunit/visibility.h>

#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_fence.h"
#include "simgpu_job.h"
#include "simgpu_perfmon.h"
#include "simgpu_queue.h"
#include "simgpu_trace.h"

/* No SIMGPU_CMD_* has it: an engine halts on it with RING_STATUS_ERROR */
#define ENGINE_HALT_OPCODE	0xbad

/**
 * DOC: simgpu engines
 *
 * Each hardware engine has its own &drm_gpu_scheduler, fed by one entity per
 * exec queue placed on it. run_job() writes the job's descriptor (context
 * image, batch, seqno) to the engine's submission port and links the job on
 * the engine's in-flight list. The hardware runs descriptors in order and
 * writes the seqno into the context image when a batch completes; the
 * interrupt handler then signals every in-flight job whose context reached
 * its seqno and folds the context's engine time into its client's usage.
 * Jobs are signalled under the engine's lock, in the order they are
 * collected, so that the fences of one exec queue (one fence context)
 * always signal in seqno order, also when a reset and the interrupt of the
 * job behind the guilty one race.
 *
 * Resets: an engine that halts on an error raises RING_IRQ_ERROR, and the
 * interrupt handler resets it at once. When a job did not complete within
 * the timeout, the timeout handler looks at the engine: if it is still
 * making progress (busy or in an IDLE command, not hung), nothing is done and the timer restarts,
 * so long BUSY jobs are not killed; if it is hung (or halted), it is reset.
 *
 * Progress or not, a job may hold its engine for &simgpu_device.max_job_ns
 * at most (the ``max_job_ms`` module parameter, 5 s by default), counted
 * on the GPU's clock from when the job got to the head of the engine's
 * in-flight list, which is no earlier than it started: otherwise one
 * client's job of many long BUSY or IDLE commands would make every other
 * client's work on the engine wait for minutes. A delayed work runs the
 * timeout handler (drm_sched_fault()) when the job at the head reaches the
 * limit, as the scheduler's timeout is pushed back by every job it runs;
 * the handler then resets the engine as for a hang, and the job fails with
 * -ETIMEDOUT.
 * Both read the engine's status before they look at completions, so a job
 * that completes just as its engine is found stuck is never failed or
 * blamed. The context resident on the engine is guilty: its oldest
 * uncompleted job gets -ETIMEDOUT (-EIO if it halted the engine), its other
 * jobs already in the hardware FIFO are emptied (their batch becomes a lone
 * END) and get -ECANCELED, its exec queue is banned (the scheduler cancels
 * its queued jobs, new submissions fail with -ECANCELED) and RING_RESET
 * aborts the running batch. The hardware then continues with the next
 * descriptors, so the jobs of innocent queues on the engine complete
 * normally. &simgpu_engine.resets counts the resets by cause.
 *
 * No job is resubmitted: every job completes through its hardware fence,
 * see simgpu_timedout_job() for what that means for the scheduler.
 */

static const char * const simgpu_class_names[DRM_SIMGPU_ENGINE_CLASS_COUNT] = {
	[DRM_SIMGPU_ENGINE_CLASS_RENDER] = "rcs",
	[DRM_SIMGPU_ENGINE_CLASS_COPY] = "bcs",
	[DRM_SIMGPU_ENGINE_CLASS_VIDEO] = "vcs",
	[DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE] = "vecs",
	[DRM_SIMGPU_ENGINE_CLASS_COMPUTE] = "ccs",
};

/**
 * simgpu_engine_class_name - the short name of an engine class
 * @class: an &enum drm_simgpu_engine_class
 *
 * Returns: the name fdinfo and the logs use, e.g. "rcs".
 */
const char *simgpu_engine_class_name(unsigned int class)
{
	return simgpu_class_names[class];
}

static u32 engine_read(struct simgpu_engine *eng, u32 reg)
{
	return simgpu_read32(eng->sdev, eng->base + reg);
}

static void engine_write(struct simgpu_engine *eng, u32 reg, u32 val)
{
	simgpu_write32(eng->sdev, eng->base + reg, val);
}

/* RING_TIMESTAMP, whose halves are not latched */
static u64 engine_timestamp(struct simgpu_engine *eng)
{
	return simgpu_read64(eng->sdev, eng->base + RING_TIMESTAMP_LO,
			     eng->base + RING_TIMESTAMP_HI);
}

/*
 * The engine runs its in-flight jobs in order: the first one has started
 * by the time it is first. Note when it got there and have the timeout
 * handler run once it reaches the run-time limit. Called with eng->lock
 * held whenever the head of the in-flight list may have changed.
 */
static void engine_head_started(struct simgpu_engine *eng)
{
	struct simgpu_job *head;

	lockdep_assert_held(&eng->lock);

	head = list_first_entry_or_null(&eng->inflight, struct simgpu_job,
					link);
	if (!head || head->started)
		return;
	head->started = true;
	head->start_ts = engine_timestamp(eng);
	mod_delayed_work(system_dfl_wq, &eng->limit_work,
			 nsecs_to_jiffies(eng->sdev->max_job_ns) + 1);
}

/*
 * Run time the job at the head of the in-flight list has left, in ns on
 * the GPU's clock: 0 once it reached the limit, U64_MAX without a head.
 * Called with eng->lock held.
 */
static u64 engine_head_time_left(struct simgpu_engine *eng)
{
	struct simgpu_job *head;
	u64 ran;

	lockdep_assert_held(&eng->lock);

	head = list_first_entry_or_null(&eng->inflight, struct simgpu_job,
					link);
	if (!head || !head->started)
		return U64_MAX;
	ran = mul_u64_u32_div(engine_timestamp(eng) - head->start_ts,
			      NSEC_PER_SEC, eng->sdev->refclk_hz);

	return ran < eng->sdev->max_job_ns ? eng->sdev->max_job_ns - ran : 0;
}

/* Kick the timeout handler once the job at the head reached the limit */
static void engine_limit_work(struct work_struct *work)
{
	struct simgpu_engine *eng = container_of(to_delayed_work(work),
						 struct simgpu_engine,
						 limit_work);
	unsigned long flags;
	u64 left;

	spin_lock_irqsave(&eng->lock, flags);
	left = engine_head_time_left(eng);
	/* The GPU's clock is not the one of the work: not quite there yet */
	if (left && left != U64_MAX)
		mod_delayed_work(system_dfl_wq, &eng->limit_work,
				 nsecs_to_jiffies(left) + 1);
	spin_unlock_irqrestore(&eng->lock, flags);

	if (!left)
		drm_sched_fault(&eng->sched);
}

/* Move the completed jobs of the in-flight list to @done */
static void engine_collect(struct simgpu_engine *eng, struct list_head *done)
{
	struct simgpu_job *job, *tmp;

	lockdep_assert_held(&eng->lock);

	list_for_each_entry_safe(job, tmp, &eng->inflight, link) {
		if (simgpu_seqno_passed(simgpu_ctx_seqno(job->queue->ctx),
					job->seqno))
			list_move_tail(&job->link, done);
	}
	engine_head_started(eng);
}

/**
 * simgpu_engine_signal - signal collected jobs
 * @eng: their engine
 * @done: jobs taken off @eng's in-flight list, emptied
 *
 * Folds each job's context time into its client's usage, hands its
 * counts to its perfmon and signals the job's hardware fence. Called with
 * @eng->lock held, from hard interrupt context or the timeout handler:
 * jobs collected by one caller cannot signal before those collected
 * earlier by another, so a fence context's fences signal in seqno order.
 */
VISIBLE_IF_KUNIT void simgpu_engine_signal(struct simgpu_engine *eng,
					   struct list_head *done)
{
	struct simgpu_job *job, *tmp;
	bool cookie;

	lockdep_assert_held(&eng->lock);

	cookie = dma_fence_begin_signalling();
	list_for_each_entry_safe(job, tmp, done, link) {
		list_del_init(&job->link);
		if (job->aborted)
			simgpu_ctx_abort(eng->sdev, job->queue->ctx, job->seqno);
		else
			simgpu_ctx_fold(eng->sdev, job->queue->ctx);
		/* Before the fence: the job can be freed once it signalled */
		if (job->perfmon)
			simgpu_perfmon_job_retire(job, !job->aborted &&
						  !job->hw_fence->base.error);
		trace_simgpu_job_complete(job, job->hw_fence->base.error);
		/* The job can be freed as soon as its fence signalled */
		dma_fence_signal(&job->hw_fence->base);
	}
	dma_fence_end_signalling(cookie);
}

/*
 * Reset a hung or halted engine whose completed jobs were collected: the
 * oldest job of the resident context is guilty. It fails with -ETIMEDOUT
 * if it hung, -EIO if it halted the engine on an error; the other jobs of
 * its queue are cancelled and the queue is banned. Called with eng->lock
 * held.
 */
static void engine_reset_locked(struct simgpu_engine *eng,
				struct list_head *done,
				enum simgpu_reset_cause cause)
{
	u32 status = engine_read(eng, RING_STATUS);
	u32 cur = engine_read(eng, RING_CURRENT_CTX);
	int error = status & RING_STATUS_ERROR ? -EIO : -ETIMEDOUT;
	struct simgpu_job *job, *hung;
	struct simgpu_queue *guilty;

	hung = list_first_entry(&eng->inflight, struct simgpu_job, link);
	list_for_each_entry(job, &eng->inflight, link) {
		if (job->queue->ctx->id == cur) {
			hung = job;
			break;
		}
	}
	guilty = hung->queue;
	atomic_set(&guilty->guilty, 1);

	drm_dbg(&eng->sdev->drm, "%s: %s on context %u seqno %u, resetting\n",
		eng->name, error == -EIO ? "halted" : "hung", guilty->ctx->id,
		hung->seqno);

	list_for_each_entry(job, &eng->inflight, link) {
		if (job->queue != guilty)
			continue;
		if (job == hung) {
			dma_fence_set_error(&job->hw_fence->base, error);
		} else {
			/* Still in the FIFO: make it a no-op */
			WRITE_ONCE(job->batch[0], cpu_to_le32(SIMGPU_CMD_END));
			dma_fence_set_error(&job->hw_fence->base, -ECANCELED);
		}
	}
	/* The batches are in memory before the engine goes on */
	wmb();

	/* The aborted batch never writes its seqno */
	hung->aborted = true;
	list_move_tail(&hung->link, done);
	engine_write(eng, RING_RESET, 1);
	atomic_inc(&eng->resets[cause]);
	trace_simgpu_reset(eng, cause, guilty->ctx->id, hung->seqno);
	engine_head_started(eng);
}

/*
 * The driver sees context switches after the fact: the interrupt of a
 * switch-out, and a submission to an idle engine, which switches in at
 * once. Called with eng->lock held.
 */
static void engine_trace_switch(struct simgpu_engine *eng, u32 in)
{
	lockdep_assert_held(&eng->lock);
	trace_simgpu_ctx_switch(eng, eng->traced_ctx, in);
	eng->traced_ctx = in;
}

static void simgpu_engine_irq(struct simgpu_engine *eng, u32 reason)
{
	unsigned long flags;
	LIST_HEAD(done);
	u32 status = 0;

	spin_lock_irqsave(&eng->lock, flags);
	/*
	 * The model raises CTX_SWITCH when a context leaves the engine; the
	 * one resident now, if any, was switched in meanwhile.
	 */
	if (reason & RING_IRQ_CTX_SWITCH && trace_simgpu_ctx_switch_enabled())
		engine_trace_switch(eng, engine_read(eng, RING_CURRENT_CTX));
	/* Halted for good: what completed before stays completed below */
	if (reason & RING_IRQ_ERROR)
		status = engine_read(eng, RING_STATUS);
	engine_collect(eng, &done);
	/*
	 * A halted engine is reset at once rather than at the job timeout;
	 * an error without a halt is a dropped descriptor, which the timeout
	 * finds.
	 */
	if (status & RING_STATUS_ERROR && !list_empty(&eng->inflight))
		engine_reset_locked(eng, &done, SIMGPU_RESET_ERROR);
	else if (reason & RING_IRQ_ERROR)
		drm_err_ratelimited(&eng->sdev->drm,
				    "%s: submission dropped\n", eng->name);
	simgpu_engine_signal(eng, &done);
	spin_unlock_irqrestore(&eng->lock, flags);
}

/**
 * simgpu_irq_handler - the device's interrupt handler
 * @data: the &struct simgpu_device
 *
 * Acknowledges the pending engines and completes their finished jobs. Runs
 * in hard interrupt context.
 */
void simgpu_irq_handler(void *data)
{
	struct simgpu_device *sdev = data;
	u64 pending;

	/*
	 * The RCU read section lets simgpu_engines_fini() wait for a handler
	 * running on another CPU before the engines are freed.
	 */
	rcu_read_lock();

	pending = simgpu_read32(sdev, SIMGPU_REG_IRQ_STATUS) |
		  (u64)simgpu_read32(sdev, SIMGPU_REG_IRQ_STATUS_HI) << 32;

	if (pending & (u64)SIMGPU_IRQ_STATUS_HI_OBS << 32) {
		pending &= ~((u64)SIMGPU_IRQ_STATUS_HI_OBS << 32);
		simgpu_observation_irq(sdev);
	}

	while (pending) {
		unsigned int id = __ffs64(pending);
		u32 reg = SIMGPU_ENGINE_BASE(id) + RING_IRQ_REASON;
		u32 reason = simgpu_read32(sdev, reg);
		struct simgpu_engine *eng;

		pending &= ~BIT_ULL(id);
		simgpu_write32(sdev, reg, reason);

		eng = id < SIMGPU_MAX_ENGINES ?
		      READ_ONCE(sdev->engine_by_hw_id[id]) : NULL;
		if (eng && reason)
			simgpu_engine_irq(eng, reason);
	}

	rcu_read_unlock();
}

static struct dma_fence *simgpu_run_job(struct drm_sched_job *sched_job)
{
	struct simgpu_job *job = to_simgpu_job(sched_job);
	struct simgpu_queue *queue = job->queue;
	struct simgpu_engine *eng = queue->engine;
	struct dma_fence *finished = &sched_job->s_fence->finished;
	u64 ctx_addr, batch_addr;
	unsigned long flags;
	u32 perfcfg;

	/* Cancelled by the scheduler, or the queue was banned meanwhile */
	if (unlikely(finished->error))
		return NULL;
	if (unlikely(simgpu_queue_banned(queue))) {
		dma_fence_set_error(finished, -ECANCELED);
		return NULL;
	}

	simgpu_fence_init(job->hw_fence, &eng->fence_lock,
			  queue->fence_context, job->seqno);
	job->hw_fence_armed = true;

	ctx_addr = simgpu_ctx_submit(queue->ctx, job->seqno);
	batch_addr = virt_to_phys(job->batch);
	/* Fault injection, see simgpu_debugfs.c: an opcode the engine halts on */
	if (unlikely(atomic_read(&eng->halt_next)) &&
	    atomic_xchg(&eng->halt_next, 0))
		job->batch[0] = cpu_to_le32(ENGINE_HALT_OPCODE);

	/*
	 * Every job starts with its own slots zeroed: all off without a
	 * perfmon, so that a job never sees another's configuration
	 */
	perfcfg = SIMGPU_PERFCFG_LOAD | (job->perfmon ? job->perfmon->cfg : 0);

	spin_lock_irqsave(&eng->lock, flags);
	if (trace_simgpu_ctx_switch_enabled() && list_empty(&eng->inflight))
		engine_trace_switch(eng, queue->ctx->id);
	list_add_tail(&job->link, &eng->inflight);
	engine_write(eng, RING_SUBMIT_CTX_LO, lower_32_bits(ctx_addr));
	engine_write(eng, RING_SUBMIT_CTX_HI, upper_32_bits(ctx_addr));
	engine_write(eng, RING_SUBMIT_BATCH_LO, lower_32_bits(batch_addr));
	engine_write(eng, RING_SUBMIT_BATCH_HI, upper_32_bits(batch_addr));
	engine_write(eng, RING_SUBMIT_SEQNO, job->seqno);
	engine_write(eng, RING_SUBMIT_PERFCFG, perfcfg);
	engine_write(eng, RING_SUBMIT, 1);
	engine_head_started(eng);
	trace_simgpu_job_run(job);
	spin_unlock_irqrestore(&eng->lock, flags);
	simgpu_ctx_submitted(eng->sdev);

	/* One reference for the job, one returned to the scheduler */
	return dma_fence_get(&job->hw_fence->base);
}

/**
 * simgpu_engine_check_hang - act on a job timeout, hardware side
 * @eng: the engine a job timed out on
 * @done: jobs to signal, with simgpu_engine_signal() before @eng->lock is
 *	dropped
 *
 * Brings the engine up to date first (any register read runs the model up
 * to now), then collects what completed: a job that finished at the moment
 * its timeout fired completes without an error, and the context resident
 * on a hung engine is the one whose oldest uncompleted job is guilty.
 * Resets a hung or halted engine; fails the in-flight jobs with -EIO if the
 * engine went idle without completing them (their descriptors were
 * dropped); resets the engine if the job it runs, the first in flight,
 * reached the run-time limit; otherwise the engine is making progress and
 * nothing is done.
 *
 * Return: true if the engine was reset.
 */
VISIBLE_IF_KUNIT bool simgpu_engine_check_hang(struct simgpu_engine *eng,
					       struct list_head *done)
{
	struct simgpu_job *job, *tmp, *head;
	u32 status;

	lockdep_assert_held(&eng->lock);

	status = engine_read(eng, RING_STATUS);
	engine_collect(eng, done);

	if (list_empty(&eng->inflight))
		return false;	/* everything completed meanwhile */

	if (status & (RING_STATUS_HUNG | RING_STATUS_ERROR)) {
		engine_reset_locked(eng, done, SIMGPU_RESET_TIMEOUT);
		return true;
	}

	if (!(status & (RING_STATUS_BUSY | RING_STATUS_IDLE_WAIT)) &&
	    engine_read(eng, RING_SUBMIT_FREE) == RING_SUBMIT_FIFO_DEPTH) {
		drm_err(&eng->sdev->drm, "%s: lost jobs\n", eng->name);
		list_for_each_entry_safe(job, tmp, &eng->inflight, link) {
			dma_fence_set_error(&job->hw_fence->base, -EIO);
			job->aborted = true;
			list_move_tail(&job->link, done);
		}
		return false;
	}

	/*
	 * The engine is making progress: give it more time, unless the first
	 * job in flight used up its run time. Only if that job is the one
	 * running (its context is resident, or in an IDLE command), which
	 * the reset aborts and blames.
	 */
	head = list_first_entry(&eng->inflight, struct simgpu_job, link);
	if (engine_head_time_left(eng))
		return false;
	if (status & RING_STATUS_IDLE_WAIT ||
	    engine_read(eng, RING_CURRENT_CTX) == head->queue->ctx->id) {
		drm_dbg(&eng->sdev->drm,
			"%s: context %u seqno %u ran past the %llu ms limit\n",
			eng->name, head->queue->ctx->id, head->seqno,
			div_u64(eng->sdev->max_job_ns, NSEC_PER_MSEC));
		engine_reset_locked(eng, done, SIMGPU_RESET_TIMEOUT);
		return true;
	}
	/*
	 * Past its limit but not the one running at this instant: look
	 * again at the next tick, not only at the next job timeout
	 */
	mod_delayed_work(system_dfl_wq, &eng->limit_work, 1);
	return false;
}

/*
 * Nothing is resubmitted after a reset: the hardware goes on with the
 * descriptors it has and every job, the guilty one included, completes
 * through its hardware fence. drm_sched_stop() and drm_sched_start() do
 * not fit that: without drm_sched_resubmit_jobs() (deprecated) in between,
 * drm_sched_start() cancels every job that was still running, innocent
 * ones included. So the handler parks the scheduler's workers with
 * drm_sched_wqueue_stop(), deals with the hardware, and restarts the
 * workers with drm_sched_wqueue_start(); a job whose fence signalled while
 * they were parked is freed once they run again. The timed-out job goes
 * back at the head of the pending list it was taken from: after a reset
 * the handler puts it there itself, while the workers are parked, as
 * drm_sched_stop() would, and returns DRM_GPU_SCHED_STAT_RESET; when the
 * engine is making progress, it returns DRM_GPU_SCHED_STAT_NO_HANG and
 * the scheduler puts the job back and restarts its timeout.
 */
static enum drm_gpu_sched_stat
simgpu_timedout_job(struct drm_sched_job *sched_job)
{
	struct simgpu_job *bad = to_simgpu_job(sched_job);
	struct simgpu_engine *eng = bad->queue->engine;
	struct drm_gpu_scheduler *sched = &eng->sched;
	unsigned long flags;
	LIST_HEAD(done);
	bool reset;

	drm_sched_wqueue_stop(sched);

	spin_lock_irqsave(&eng->lock, flags);
	reset = simgpu_engine_check_hang(eng, &done);
	/*
	 * Before the lock is dropped: the reset lets the hardware complete
	 * the jobs behind the guilty one at once, and their interrupt must
	 * not signal them first.
	 */
	simgpu_engine_signal(eng, &done);
	spin_unlock_irqrestore(&eng->lock, flags);

	if (reset) {
		spin_lock(&sched->job_list_lock);
		list_add(&sched_job->list, &sched->pending_list);
		spin_unlock(&sched->job_list_lock);
	}

	drm_sched_wqueue_start(sched);

	return reset ? DRM_GPU_SCHED_STAT_RESET : DRM_GPU_SCHED_STAT_NO_HANG;
}

static void simgpu_free_job(struct drm_sched_job *sched_job)
{
	drm_sched_job_cleanup(sched_job);
	simgpu_job_release(to_simgpu_job(sched_job));
}

static const struct drm_sched_backend_ops simgpu_sched_ops = {
	.run_job = simgpu_run_job,
	.timedout_job = simgpu_timedout_job,
	.free_job = simgpu_free_job,
};

/**
 * simgpu_engine_get - find the engine for an exec queue
 * @sdev: the device
 * @class: the engine class, below %DRM_SIMGPU_ENGINE_CLASS_COUNT
 * @instance: the instance, or %DRM_SIMGPU_ENGINE_INSTANCE_ANY for the
 *	engine of @class with the fewest exec queues
 *
 * Returns: the engine, or NULL if the device has no such engine.
 */
struct simgpu_engine *simgpu_engine_get(struct simgpu_device *sdev,
					unsigned int class,
					unsigned int instance)
{
	struct simgpu_engine *best = NULL;
	unsigned int i;

	if (instance != DRM_SIMGPU_ENGINE_INSTANCE_ANY) {
		if (instance >= SIMGPU_MAX_INSTANCES)
			return NULL;
		return sdev->engine_by_hw_id[SIMGPU_HW_ENGINE_ID(class,
								 instance)];
	}

	for (i = 0; i < sdev->num_engines; i++) {
		struct simgpu_engine *eng = sdev->engines[i];

		if (eng->class != class)
			continue;
		if (!best || atomic_read(&eng->num_queues) <
			     atomic_read(&best->num_queues))
			best = eng;
	}

	return best;
}

static void simgpu_engines_fini(struct drm_device *drm, void *arg)
{
	struct simgpu_device *sdev = arg;
	unsigned int i;

	/*
	 * No new calls of the handler once IRQ_ENABLE is clear, but one may
	 * still be running on another CPU: the model's timers, which call it,
	 * are only cancelled by simgpu_hw_destroy(), after the engines were
	 * freed. Unpublish the engines and wait for such a handler to return.
	 */
	simgpu_write32(sdev, SIMGPU_REG_IRQ_ENABLE, 0);
	for (i = 0; i < sdev->num_engines; i++)
		WRITE_ONCE(sdev->engine_by_hw_id[sdev->engines[i]->hw_id], NULL);
	synchronize_rcu();

	for (i = 0; i < sdev->num_engines; i++) {
		struct simgpu_engine *eng = sdev->engines[i];

		drm_WARN_ON(drm, !list_empty(&eng->inflight));
		/* Before the scheduler whose timeout handler it runs */
		cancel_delayed_work_sync(&eng->limit_work);
		drm_sched_fini(&eng->sched);
	}
}

/**
 * simgpu_engines_init - discover the engines and start their schedulers
 * @sdev: the device, whose hardware is ready
 *
 * Reads SIMGPU_REG_ENGINE_FUSE() of each class and fills
 * &simgpu_device.engines, &simgpu_device.engine_by_hw_id and
 * &simgpu_device.engines_per_class.
 *
 * Returns: 0 or a negative error code.
 */
int simgpu_engines_init(struct simgpu_device *sdev)
{
	struct drm_device *drm = &sdev->drm;
	u32 fuse[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	struct simgpu_engine *pool;
	unsigned int class, inst, count = 0;
	int ret;

	for (class = 0; class < DRM_SIMGPU_ENGINE_CLASS_COUNT; class++) {
		fuse[class] = simgpu_read32(sdev, SIMGPU_REG_ENGINE_FUSE(class)) &
			      GENMASK(SIMGPU_MAX_INSTANCES - 1, 0);
		count += hweight32(fuse[class]);
	}
	if (!count) {
		drm_err(drm, "no engines\n");
		return -ENODEV;
	}

	/* Allocated before the fini action, so freed after it ran */
	pool = drmm_kcalloc(drm, count, sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	ret = drmm_add_action(drm, simgpu_engines_fini, sdev);
	if (ret)
		return ret;

	for (class = 0; class < DRM_SIMGPU_ENGINE_CLASS_COUNT; class++) {
		for (inst = 0; inst < SIMGPU_MAX_INSTANCES; inst++) {
			struct drm_sched_init_args args = {
				.ops = &simgpu_sched_ops,
				.num_rqs = DRM_SCHED_PRIORITY_COUNT,
				.credit_limit = RING_SUBMIT_FIFO_DEPTH,
				.timeout = msecs_to_jiffies(sdev->job_timeout_ms),
				.dev = drm->dev,
			};
			struct simgpu_engine *eng;

			if (!(fuse[class] & BIT(inst)))
				continue;

			eng = &pool[sdev->num_engines];
			args.name = eng->name;
			eng->sdev = sdev;
			eng->class = class;
			eng->instance = inst;
			eng->hw_id = SIMGPU_HW_ENGINE_ID(class, inst);
			eng->base = SIMGPU_ENGINE_BASE(eng->hw_id);
			snprintf(eng->name, sizeof(eng->name), "%s%u",
				 simgpu_class_names[class], inst);
			spin_lock_init(&eng->lock);
			spin_lock_init(&eng->fence_lock);
			raw_spin_lock_init(&eng->sample_lock);
			INIT_LIST_HEAD(&eng->inflight);
			INIT_DELAYED_WORK(&eng->limit_work, engine_limit_work);

			ret = drm_sched_init(&eng->sched, &args);
			if (ret) {
				drm_err(drm, "%s: scheduler init failed: %d\n",
					eng->name, ret);
				return ret;
			}

			sdev->engines[sdev->num_engines++] = eng;
			sdev->engines_per_class[class]++;
			WRITE_ONCE(sdev->engine_by_hw_id[eng->hw_id], eng);
		}
	}

	return 0;
}

/* Reads of the latches before a sampler serializes its sample */
#define SIMGPU_SAMPLE_TRIES	4

/* Read the latches; false if a sample overwrote them meanwhile */
static bool engine_read_latches(struct simgpu_engine *eng,
				struct simgpu_engine_sample *s)
{
	u32 seq = engine_read(eng, RING_SAMPLE_SEQ);

	if (seq & 1)
		return false;
	s->ts = engine_read(eng, RING_SAMPLE_TS_LO) |
		(u64)engine_read(eng, RING_SAMPLE_TS_HI) << 32;
	s->busy = engine_read(eng, RING_SAMPLE_BUSY_LO) |
		  (u64)engine_read(eng, RING_SAMPLE_BUSY_HI) << 32;
	s->ctx_ts = engine_read(eng, RING_SAMPLE_CTX_TS);
	s->ctx = engine_read(eng, RING_SAMPLE_CTX);
	return engine_read(eng, RING_SAMPLE_SEQ) == seq;
}

/**
 * simgpu_engine_sample - read an engine's counters of one instant
 * @eng: the engine
 * @s: filled with the counters
 *
 * Latches the counters with RING_SAMPLE and reads the latches: the
 * current instant, without raising the engine's interrupts on this CPU or
 * moving its timer here, so that a monitor (the PMU, fdinfo) does not run
 * a submitter's completions. Never sleeps; callable from any context,
 * under raw spinlocks too.
 *
 * Samplers take no lock: a sample written by another CPU while the
 * latches are read shows in RING_SAMPLE_SEQ, and they are read again,
 * without a new sample, since the latched instant only moves forward: it
 * is this sample's or a later one. Only a sampler that lost
 * %SIMGPU_SAMPLE_TRIES reads to others takes @eng->sample_lock and sets
 * @eng->sample_serial, which makes new samplers queue behind it: then
 * only the samples already requested can overwrite its latches. A sampler
 * runs with interrupts off from its check of @eng->sample_serial to its
 * last read, so each other CPU has at most one such sample: the
 * serialized sampler succeeds within as many reads as there are CPUs.
 */
void simgpu_engine_sample(struct simgpu_engine *eng,
			  struct simgpu_engine_sample *s)
{
	unsigned long flags;
	unsigned int tries;

	local_irq_save(flags);
	if (!READ_ONCE(eng->sample_serial)) {
		engine_write(eng, RING_SAMPLE, 1);
		for (tries = 0; tries < SIMGPU_SAMPLE_TRIES; tries++)
			if (engine_read_latches(eng, s))
				goto out;
	}

	raw_spin_lock(&eng->sample_lock);
	WRITE_ONCE(eng->sample_serial, true);
	smp_mb(); /* the flag before the sample: new samplers see it */
	engine_write(eng, RING_SAMPLE, 1);
	while (!engine_read_latches(eng, s))
		cpu_relax();
	WRITE_ONCE(eng->sample_serial, false);
	raw_spin_unlock(&eng->sample_lock);
out:
	local_irq_restore(flags);
}
