/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_ENGINE_H_
#define _SIMGPU_ENGINE_H_

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct simgpu_device;

/**
 * enum simgpu_reset_cause - why an engine was reset
 * @SIMGPU_RESET_TIMEOUT: a job timed out and the engine was found hung or
 *	halted, or the job ran past the run-time limit
 * @SIMGPU_RESET_ERROR: the engine reported by interrupt that it halted on
 *	an error
 * @SIMGPU_RESET_CAUSE_COUNT: number of causes
 */
enum simgpu_reset_cause {
	SIMGPU_RESET_TIMEOUT,
	SIMGPU_RESET_ERROR,
	SIMGPU_RESET_CAUSE_COUNT,
};

/**
 * struct simgpu_engine - the driver side of one hardware engine
 * @sdev: the device
 * @class: the &enum drm_simgpu_engine_class
 * @instance: the instance number within the class, as fused
 * @hw_id: SIMGPU_HW_ENGINE_ID() of the engine
 * @base: offset of the engine's register block
 * @name: e.g. "rcs0", for the scheduler and messages
 * @sched: the scheduler feeding the engine's submission port; one entity
 *	per exec queue
 * @lock: serialises the submission port, the reset and the signalling of
 *	the hardware fences; protects @inflight. Taken from hard interrupt
 *	context. Lock order: @lock, then @fence_lock.
 * @fence_lock: lock of the hardware fences of the jobs run on the engine.
 *	Not the fences' inline locks: signalling a hardware fence signals
 *	the job's out fence (through the scheduler's finished fence), whose
 *	lock is its inline one, and inline locks are all of one lockdep
 *	class
 * @inflight: jobs written to the submission port and not yet signalled, in
 *	submission order, &simgpu_job.link; protected by @lock
 * @num_queues: number of exec queues placed on the engine, for the
 *	least-loaded placement of DRM_SIMGPU_ENGINE_INSTANCE_ANY
 * @resets: number of engine resets done by &enum simgpu_reset_cause, for
 *	debugging and tests
 * @traced_ctx: the context the simgpu_ctx_switch tracepoint last saw
 *	resident, protected by @lock
 * @halt_next: set through debugfs to make the next job written to the
 *	submission port halt the engine on an error, for tests
 * @limit_work: runs the timeout handler when the job at the head of
 *	@inflight reaches &simgpu_device.max_job_ns, see
 *	simgpu_engine_check_hang()
 * @sample_lock: serialises the samplers that could not read the engine's
 *	RING_SAMPLE latches whole without it, see simgpu_engine_sample().
 *	Raw, as perf reads under raw spinlocks; innermost of the driver's
 *	locks
 * @sample_serial: set while a sampler holds @sample_lock: new samplers
 *	then take it too
 */
struct simgpu_engine {
	struct simgpu_device *sdev;
	u8 class;
	u8 instance;
	u8 hw_id;
	u32 base;
	char name[8];
	struct drm_gpu_scheduler sched;
	spinlock_t lock;	/* the port, @inflight; irq-safe */
	spinlock_t fence_lock;	/* the hardware fences */
	struct list_head inflight;	/* protected by @lock */
	atomic_t num_queues;
	atomic_t resets[SIMGPU_RESET_CAUSE_COUNT];
	u32 traced_ctx;		/* protected by @lock */
	atomic_t halt_next;
	struct delayed_work limit_work;
	raw_spinlock_t sample_lock;
	bool sample_serial;
};

/**
 * struct simgpu_engine_sample - an engine's counters of one instant
 * @ts: RING_TIMESTAMP, the reference clock
 * @busy: RING_BUSY_TICKS
 * @ctx_ts: RING_CTX_TIMESTAMP
 * @ctx: RING_CURRENT_CTX, the id of the resident context, 0 for none
 */
struct simgpu_engine_sample {
	u64 ts;
	u64 busy;
	u32 ctx_ts;
	u32 ctx;
};

int simgpu_engines_init(struct simgpu_device *sdev);
struct simgpu_engine *simgpu_engine_get(struct simgpu_device *sdev,
					unsigned int class,
					unsigned int instance);
void simgpu_irq_handler(void *data);
const char *simgpu_engine_class_name(unsigned int class);
void simgpu_engine_sample(struct simgpu_engine *eng,
			  struct simgpu_engine_sample *s);

#if IS_ENABLED(CONFIG_KUNIT)
bool simgpu_engine_check_hang(struct simgpu_engine *eng,
			      struct list_head *done);
void simgpu_engine_signal(struct simgpu_engine *eng, struct list_head *done);
#endif

#endif /* _SIMGPU_ENGINE_H_ */
