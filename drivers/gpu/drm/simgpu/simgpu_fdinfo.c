// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 The simgpu authors
 */

#include <linux/math64.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "simgpu_ctx.h"
#include "simgpu_drv.h"

static const char * const simgpu_class_names[DRM_SIMGPU_ENGINE_CLASS_COUNT] = {
	[DRM_SIMGPU_ENGINE_CLASS_RENDER] = "rcs",
	[DRM_SIMGPU_ENGINE_CLASS_COPY] = "bcs",
	[DRM_SIMGPU_ENGINE_CLASS_VIDEO] = "vcs",
	[DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE] = "vecs",
	[DRM_SIMGPU_ENGINE_CLASS_COMPUTE] = "ccs",
};

static void show_engines(struct drm_printer *p, struct simgpu_device *sdev,
			 struct simgpu_client_usage *usage)
{
	u64 cycles[DRM_SIMGPU_ENGINE_CLASS_COUNT];
	unsigned int class;
	u64 total;

	total = simgpu_ctx_sample(sdev, usage, cycles);

	for (class = 0; class < DRM_SIMGPU_ENGINE_CLASS_COUNT; class++) {
		const char *name = simgpu_class_names[class];
		unsigned int n = sdev->ctxs.engines_per_class[class];

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
}
