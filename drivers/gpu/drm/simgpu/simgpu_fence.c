// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/slab.h>

#include "simgpu_fence.h"

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
	return kzalloc(sizeof(struct simgpu_fence), GFP_KERNEL_ACCOUNT);
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
