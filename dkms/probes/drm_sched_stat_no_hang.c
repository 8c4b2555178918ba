// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: DRM_GPU_SCHED_STAT_NO_HANG */
#include <drm/gpu_scheduler.h>
static __maybe_unused enum drm_gpu_sched_stat p(void) { return DRM_GPU_SCHED_STAT_NO_HANG; }
