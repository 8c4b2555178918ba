// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: drm_memory_stats_add() (series 02) */
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
static __maybe_unused void p(struct drm_memory_stats *s, struct drm_gem_object *o) { drm_memory_stats_add(s, o, 4096, DRM_GEM_OBJECT_RESIDENT); }
