// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: dma_fence_init() with a NULL lock (inline fence locks) */
#include <linux/dma-fence.h>
static __maybe_unused int p(void) { return DMA_FENCE_FLAG_INLINE_LOCK_BIT; }
