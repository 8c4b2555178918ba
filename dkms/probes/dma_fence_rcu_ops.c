// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: RCU-protected fence ops, dropped when a fence signals */
#include <linux/dma-fence.h>
/* signalled fences without release/wait drop their ops; names read through these */
static __maybe_unused const char __rcu *p(struct dma_fence *f) { return dma_fence_timeline_name(f); }
