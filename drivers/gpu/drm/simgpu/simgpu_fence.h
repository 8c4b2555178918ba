/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_FENCE_H_
#define _SIMGPU_FENCE_H_

#include <linux/dma-fence.h>

/**
 * struct simgpu_fence - completion of one job on the hardware
 * @base: the fence; its context is the exec queue's, its seqno the job's
 *	hardware seqno (CTX_IMG_SEQNO)
 *
 * Allocated at submit time and initialised by run_job, which must not
 * allocate memory; signalled from the interrupt handler.
 */
struct simgpu_fence {
	struct dma_fence base;
};

struct simgpu_fence *simgpu_fence_alloc(void);
void simgpu_fence_init(struct simgpu_fence *fence, spinlock_t *lock,
		       u64 context, u64 seqno);

#endif /* _SIMGPU_FENCE_H_ */
