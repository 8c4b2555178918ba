// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 The simgpu authors
 */

#include <linux/math64.h>

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

/* Only system memory can be purged. */
static const struct drm_memory_region
simgpu_regions[DRM_SIMGPU_REGION_COUNT] = {
	[DRM_SIMGPU_REGION_SYSTEM] = {
		.name = "memory",
		.supported_status = DRM_GEM_OBJECT_RESIDENT |
				    DRM_GEM_OBJECT_PURGEABLE,
	},
	[DRM_SIMGPU_REGION_VRAM0] = {
		.name = "vram0",
		.supported_status = DRM_GEM_OBJECT_RESIDENT,
	},
};

/* Called under the file's table_lock: must not sleep. */
static int simgpu_object_region(struct drm_gem_object *obj)
{
	enum drm_simgpu_region region = simgpu_gem_region(obj);

	/* Imported from another device: it lives in system memory. */
	if (region >= DRM_SIMGPU_REGION_COUNT)
		return DRM_SIMGPU_REGION_SYSTEM;

	return region;
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
	drm_show_memory_stats_regions(p, file, simgpu_regions,
				      ARRAY_SIZE(simgpu_regions),
				      simgpu_object_region);
}
