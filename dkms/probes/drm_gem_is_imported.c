// SPDX-License-Identifier: GPL-2.0-only
/* required: drm_gem_is_imported() of <drm/drm_gem.h> */
#include <drm/drm_gem.h>
static __maybe_unused bool p(struct drm_gem_object *o) { return drm_gem_is_imported(o); }
