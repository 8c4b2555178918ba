// SPDX-License-Identifier: GPL-2.0-only
/* required: drm_sched_job_init() with a drm_client_id argument */
#include <drm/gpu_scheduler.h>
static __maybe_unused int p(struct drm_sched_job *j, struct drm_sched_entity *e) { return drm_sched_job_init(j, e, 1, NULL, 0); }
