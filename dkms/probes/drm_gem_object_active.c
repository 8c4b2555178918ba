// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: DRM_GEM_OBJECT_ACTIVE of <drm/drm_gem.h> */
#include <drm/drm_gem.h>
static __maybe_unused enum drm_gem_object_status p(void) { return DRM_GEM_OBJECT_ACTIVE; }
