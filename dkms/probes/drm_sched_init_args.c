// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: struct drm_sched_init_args */
#include <drm/gpu_scheduler.h>
static __maybe_unused int p(struct drm_gpu_scheduler *s) { const struct drm_sched_init_args a = { .num_rqs = 1 }; return drm_sched_init(s, &a); }
