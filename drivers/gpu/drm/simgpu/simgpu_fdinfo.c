// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/dma-resv.h>
#include <linux/idr.h>
#include <linux/math64.h>
#include <linux/spinlock.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "simgpu_ctx.h"
#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_gem.h"

static void show_engines(struct drm_printer *p, struct simgpu_device *sdev,
			 struct simgpu_client_usage *usage)
{
	u64 cycles[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	unsigned int class;
	u64 total;

	total = simgpu_ctx_sample(sdev, usage, cycles);

	for (class = 0; class < DRM_SIMGPU_ENGINE_CLASS_COUNT; class++) {
		const char *name = simgpu_engine_class_name(class);
		unsigned int n = sdev->engines_per_class[class];

		if (!n)
			continue;

		drm_print_kv_u64(p, "drm-engine-", name,
				 mul_u64_u32_div(cycles[class], NSEC_PER_SEC,
						 sdev->refclk_hz), " ns");
		drm_print_kv_u64(p, "drm-cycles-", name, cycles[class], NULL);
		drm_print_kv_u64(p, "drm-total-cycles-", name, total, NULL);
		if (n > 1)
			drm_print_kv_u64(p, "drm-engine-capacity-", name, n,
					 NULL);
	}
}

/*
 * The memory regions in fdinfo: simgpu tells busy buffers in both (by
 * their fences), only system memory can be purged.
 */
static const struct {
	const char *name;
	enum drm_gem_object_status supported_status;
} simgpu_regions[DRM_SIMGPU_REGION_COUNT] = {
	[DRM_SIMGPU_REGION_SYSTEM] = {
		.name = "memory",
		.supported_status = DRM_GEM_OBJECT_RESIDENT |
				    DRM_GEM_OBJECT_ACTIVE |
				    DRM_GEM_OBJECT_PURGEABLE,
	},
	[DRM_SIMGPU_REGION_VRAM0] = {
		.name = "vram0",
		.supported_status = DRM_GEM_OBJECT_RESIDENT |
				    DRM_GEM_OBJECT_ACTIVE,
	},
};

/* Called under the file's table_lock: must not sleep. */
static enum drm_simgpu_region simgpu_object_region(struct drm_gem_object *obj)
{
	enum drm_simgpu_region region = simgpu_gem_region(obj);

	/* Imported from another device: it lives in system memory. */
	if (region >= DRM_SIMGPU_REGION_COUNT)
		return DRM_SIMGPU_REGION_SYSTEM;

	return region;
}

/*
 * Counts the buffers with a handle in @file as drm_show_memory_stats() does,
 * with their status and rss callbacks and their fences, but each in its own
 * region.
 */
static void show_memory(struct drm_printer *p, struct drm_file *file)
{
	struct drm_memory_stats stats[DRM_SIMGPU_REGION_COUNT] = {};
	struct drm_gem_object *obj;
	unsigned int i;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		enum drm_gem_object_status status = 0;
		size_t size = obj->size;

		if (obj->funcs && obj->funcs->status)
			status = obj->funcs->status(obj);
		if (obj->funcs && obj->funcs->rss)
			size = obj->funcs->rss(obj);
		if (!dma_resv_test_signaled(obj->resv, dma_resv_usage_rw(true)))
			status |= DRM_GEM_OBJECT_ACTIVE;

		drm_memory_stats_add(&stats[simgpu_object_region(obj)], obj,
				     size, status);
	}
	spin_unlock(&file->table_lock);

	for (i = 0; i < ARRAY_SIZE(stats); i++)
		drm_print_memory_stats(p, &stats[i],
				       simgpu_regions[i].supported_status,
				       simgpu_regions[i].name);
}

/**
 * simgpu_show_fdinfo - print the usage statistics of a client
 * @p: printer for the fdinfo file
 * @file: the client
 *
 * Called by drm_show_fdinfo() after the keys common to all drivers.
 */
void simgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(file->minor->dev);

	show_engines(p, sdev, to_simgpu_file(file)->usage);
	show_memory(p, file);
}
