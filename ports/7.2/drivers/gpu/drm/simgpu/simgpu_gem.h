/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_GEM_H_
#define _SIMGPU_GEM_H_

#include <drm/drm_gem_shmem_helper.h>

#include <uapi/drm/simgpu_drm.h>

struct drm_device;
struct drm_file;

/**
 * struct simgpu_bo - a simgpu buffer object
 * @base: the shmem object; VRAM0 buffers are shmem backed too
 * @region: where the buffer was allocated, %DRM_SIMGPU_REGION_COUNT for
 *	buffers imported from other devices and until the buffer is
 *	accounted to a region; set once at creation
 * @job_pins: number of jobs that hold pages of the buffer (see
 *	simgpu_bo_job_pin()); the shrinker leaves the buffer alone while it
 *	is not zero. Incremented under the reservation lock, decremented
 *	without it.
 * @mmap_count: number of CPU mappings (VMAs) of the buffer; the shrinker
 *	leaves the buffer alone while it is not zero. Raised from zero only
 *	under the reservation lock (mmap()), from an existing mapping by its
 *	copies, and lowered once a mapping's pages were unmapped.
 */
struct simgpu_bo {
	struct drm_gem_shmem_object base;
	enum drm_simgpu_region region;
	atomic_t job_pins;
	atomic_t mmap_count;
};

static inline struct simgpu_bo *to_simgpu_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct simgpu_bo, base);
}

struct simgpu_device;

int simgpu_gem_init(struct simgpu_device *sdev);
atomic64_t *simgpu_region_used(struct simgpu_device *sdev,
			       enum drm_simgpu_region region);
u64 simgpu_region_size(struct simgpu_device *sdev,
		       enum drm_simgpu_region region);
u64 simgpu_region_max_bo_size(struct simgpu_device *sdev,
			      enum drm_simgpu_region region);
struct drm_gem_object *simgpu_gem_create_object(struct drm_device *drm,
						size_t size);
bool simgpu_gem_is_native(struct drm_gem_object *obj);
enum drm_simgpu_region simgpu_gem_region(struct drm_gem_object *obj);
int simgpu_bo_job_pin(struct drm_gem_object *obj);

/* Undo simgpu_bo_job_pin() */
static inline void simgpu_bo_job_unpin(struct drm_gem_object *obj)
{
	atomic_dec(&to_simgpu_bo(obj)->job_pins);
}

int simgpu_ioctl_gem_create(struct drm_device *drm, void *data,
			    struct drm_file *file);
int simgpu_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				 struct drm_file *file);
int simgpu_ioctl_gem_madvise(struct drm_device *drm, void *data,
			     struct drm_file *file);
int simgpu_ioctl_wait_bo(struct drm_device *drm, void *data,
			 struct drm_file *file);

#endif /* _SIMGPU_GEM_H_ */
