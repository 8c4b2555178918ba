/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_FENCE_H_
#define _SIMGPU_FENCE_H_

#include <linux/dma-fence.h>
#include <linux/spinlock.h>

/**
 * struct simgpu_fence - completion of one job on the hardware
 * @base: the fence; its context is the exec queue's, its seqno the job's
 *	hardware seqno (CTX_IMG_SEQNO)
 *
 * Allocated at submit time and initialised by run_job, which must not
 * allocate memory; signalled from the interrupt handler. It never leaves
 * the driver, see "simgpu job fences".
 */
struct simgpu_fence {
	struct dma_fence base;
};

/**
 * struct simgpu_out_fence - the fence of a job that leaves the driver
 * @base: the fence, on the timeline (context and seqno) of the job's
 *	finished fence; signalled right after it, with its error
 * @cb: signals @base when the finished fence signalled
 * @timeline: the name of the job's engine, e.g. "rcs0"
 *
 * See "simgpu job fences".
 */
struct simgpu_out_fence {
	struct dma_fence base;
	struct dma_fence_cb cb;
	char timeline[8];
};

struct simgpu_fence *simgpu_fence_alloc(void);
void simgpu_fence_init(struct simgpu_fence *fence, spinlock_t *lock,
		       u64 context, u64 seqno);

struct simgpu_out_fence *simgpu_out_fence_alloc(void);
struct dma_fence *simgpu_out_fence_init(struct simgpu_out_fence *out,
					struct dma_fence *finished,
					const char *timeline);

#endif /* _SIMGPU_FENCE_H_ */
