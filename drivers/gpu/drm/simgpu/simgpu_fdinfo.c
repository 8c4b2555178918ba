// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 The simgpu authors
 */

#include <linux/math64.h>

#include <linux/dma-resv.h>

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

		drm_printf(p, "drm-engine-%s:\t%llu ns\n", name,
			   mul_u64_u32_div(cycles[class], NSEC_PER_SEC,
					   sdev->refclk_hz));
		drm_printf(p, "drm-cycles-%s:\t%llu\n", name, cycles[class]);
		drm_printf(p, "drm-total-cycles-%s:\t%llu\n", name, total);
		if (n > 1)
			drm_printf(p, "drm-engine-capacity-%s:\t%u\n", name, n);
	}
}

static const char * const simgpu_region_names[DRM_SIMGPU_REGION_COUNT] = {
	[DRM_SIMGPU_REGION_SYSTEM] = "memory",
	[DRM_SIMGPU_REGION_VRAM0] = "vram0",
};

/* Only system memory can be purged. */
static const enum drm_gem_object_status
simgpu_region_status[DRM_SIMGPU_REGION_COUNT] = {
	[DRM_SIMGPU_REGION_SYSTEM] = DRM_GEM_OBJECT_RESIDENT |
				     DRM_GEM_OBJECT_PURGEABLE,
	[DRM_SIMGPU_REGION_VRAM0] = DRM_GEM_OBJECT_RESIDENT,
};

static void account_object(struct drm_memory_stats *stats,
			   struct drm_gem_object *obj)
{
	enum drm_gem_object_status status = 0;
	size_t rss = obj->size;

	if (obj->funcs && obj->funcs->status)
		status = obj->funcs->status(obj);
	if (obj->funcs && obj->funcs->rss)
		rss = obj->funcs->rss(obj);

	if (drm_gem_object_is_shared_for_memory_stats(obj))
		stats->shared += obj->size;
	else
		stats->private += obj->size;

	/* Not resident or still busy: nothing to purge yet. */
	if (status & DRM_GEM_OBJECT_RESIDENT)
		stats->resident += rss;
	else
		status &= ~DRM_GEM_OBJECT_PURGEABLE;

	if (!dma_resv_test_signaled(obj->resv, dma_resv_usage_rw(true))) {
		stats->active += rss;
		status &= ~DRM_GEM_OBJECT_PURGEABLE;
	}

	if (status & DRM_GEM_OBJECT_PURGEABLE)
		stats->purgeable += rss;
}

static void show_memory(struct drm_printer *p, struct drm_file *file)
{
	struct drm_memory_stats stats[DRM_SIMGPU_REGION_COUNT] = {};
	struct drm_gem_object *obj;
	unsigned int region;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		region = simgpu_gem_region(obj);
		/* Imported from another device: it lives in system memory. */
		if (region >= DRM_SIMGPU_REGION_COUNT)
			region = DRM_SIMGPU_REGION_SYSTEM;
		account_object(&stats[region], obj);
	}
	spin_unlock(&file->table_lock);

	for (region = 0; region < DRM_SIMGPU_REGION_COUNT; region++)
		drm_print_memory_stats(p, &stats[region],
				       simgpu_region_status[region],
				       simgpu_region_names[region]);
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
