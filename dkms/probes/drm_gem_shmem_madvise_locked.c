// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: drm_gem_shmem_madvise_locked() */
#include <drm/drm_gem_shmem_helper.h>
static __maybe_unused int p(struct drm_gem_shmem_object *s) { return drm_gem_shmem_madvise_locked(s, 1); }
