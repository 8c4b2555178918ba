// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/slab.h>
#include <linux/string.h>

#include "simgpu_fence.h"

/**
 * DOC: simgpu job fences
 *
 * The fences of a job that leave the driver (into the out syncobj and the
 * reservation objects of the job's buffers, and from there into
 * sync_files, dma-bufs and other drivers) can outlive the client's file,
 * the device and the module: nothing bounds how long userspace keeps a
 * sync_file. Everything such a fence points at must live as long as the
 * fence: its ops, its lock and its names.
 *
 * The scheduler's fences of a job point at the engine's scheduler (its
 * name, &drm_sched_fence.sched), and the hardware fence at the engine's
 * lock, all in the device's memory, which goes when the device is
 * released; the driver is not told when those fences are freed. So they
 * never leave the driver: only the job, the exec queue's entity and the
 * scheduler reference them, all gone before the exec queue is freed, and
 * each exec queue holds the device.
 *
 * What leaves is the job's out fence, &struct simgpu_out_fence, which the
 * finished fence's callback signals with the job's error. It points at
 * nothing but itself (its lock is the fence's inline lock, its engine's
 * name its own copy) and at the module, through its ops, until it
 * signals. Its ops have neither &dma_fence_ops.release nor
 * &dma_fence_ops.wait, so dma_fence_signal() drops them: from then on the
 * fence belongs to the DMA fence core, which names it through
 * dma_fence_driver_name() and dma_fence_timeline_name() and frees it with
 * kfree_rcu(). A job's exec queue holds the module until the job is done
 * (see "simgpu exec queues"), so every out fence has signalled by the time
 * the module can go, and unloading it waits for an RCU grace period, after
 * which no reader of the ops is left. Userspace may keep a sync_file of a
 * job as long as it likes: neither unbinding the driver nor unloading the
 * module waits for it.
 *
 * The out fence is on the finished fence's timeline (same context and
 * seqno), the only fence of that timeline outside the driver: the
 * scheduler skips a dependency on an earlier job of the same exec queue,
 * which runs in order anyway, as it did for the finished fence.
 */

static const char *simgpu_fence_get_driver_name(struct dma_fence *fence)
{
	return "simgpu";
}

static const char *simgpu_fence_get_timeline_name(struct dma_fence *fence)
{
	return "simgpu-exec-queue";
}

static const struct dma_fence_ops simgpu_fence_ops = {
	.get_driver_name = simgpu_fence_get_driver_name,
	.get_timeline_name = simgpu_fence_get_timeline_name,
};

/**
 * simgpu_fence_alloc - preallocate a hardware fence
 *
 * Free it with kfree() while simgpu_fence_init() has not been called,
 * with dma_fence_put() afterwards.
 *
 * Returns: the fence or NULL.
 */
struct simgpu_fence *simgpu_fence_alloc(void)
{
	return kzalloc_obj(struct simgpu_fence, GFP_KERNEL_ACCOUNT);
}

/**
 * simgpu_fence_init - initialise a preallocated hardware fence
 * @fence: the fence from simgpu_fence_alloc()
 * @lock: the spinlock signalling is serialised by
 * @context: the fence context of the exec queue
 * @seqno: the job's hardware seqno
 *
 * Does not allocate, can be called in the fence signalling path.
 */
void simgpu_fence_init(struct simgpu_fence *fence, spinlock_t *lock,
		       u64 context, u64 seqno)
{
	dma_fence_init(&fence->base, &simgpu_fence_ops, lock, context, seqno);
}

static struct simgpu_out_fence *to_simgpu_out_fence(struct dma_fence *fence)
{
	return container_of(fence, struct simgpu_out_fence, base);
}

static const char *simgpu_out_fence_get_timeline_name(struct dma_fence *fence)
{
	return to_simgpu_out_fence(fence)->timeline;
}

/* No release or wait: a signalled out fence no longer uses the module */
static const struct dma_fence_ops simgpu_out_fence_ops = {
	.get_driver_name = simgpu_fence_get_driver_name,
	.get_timeline_name = simgpu_out_fence_get_timeline_name,
};

/* The finished fence signalled: so does the out fence, with its error */
static void simgpu_out_fence_cb(struct dma_fence *finished,
				struct dma_fence_cb *cb)
{
	struct simgpu_out_fence *out = container_of(cb, struct simgpu_out_fence,
						    cb);

	if (finished->error)
		dma_fence_set_error(&out->base, finished->error);
	dma_fence_signal(&out->base);
	dma_fence_put(&out->base);
}

/**
 * simgpu_out_fence_alloc - preallocate a job's out fence
 *
 * Free it with kfree() while simgpu_out_fence_init() has not been called;
 * afterwards it is reference counted.
 *
 * Returns: the fence or NULL.
 */
struct simgpu_out_fence *simgpu_out_fence_alloc(void)
{
	return kzalloc_obj(struct simgpu_out_fence, GFP_KERNEL_ACCOUNT);
}

/**
 * simgpu_out_fence_init - initialise a job's out fence
 * @out: the fence from simgpu_out_fence_alloc()
 * @finished: the finished fence of the armed job
 * @timeline: the name of the job's engine
 *
 * The fence uses the module until it signals, which it does before the
 * job's device is released.
 *
 * Returns: the out fence, with a reference for the caller.
 */
struct dma_fence *simgpu_out_fence_init(struct simgpu_out_fence *out,
					struct dma_fence *finished,
					const char *timeline)
{
	strscpy(out->timeline, timeline);
	dma_fence_init(&out->base, &simgpu_out_fence_ops, NULL,
		       finished->context, finished->seqno);

	/* A reference for the callback, dropped when it ran */
	dma_fence_get(&out->base);
	if (dma_fence_add_callback(finished, &out->cb, simgpu_out_fence_cb))
		simgpu_out_fence_cb(finished, &out->cb);

	return &out->base;
}
