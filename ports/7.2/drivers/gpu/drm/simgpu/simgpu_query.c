// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_gem.h"
#include "simgpu_perfmon.h"

static size_t query_size(struct simgpu_device *sdev, u32 type)
{
	struct drm_simgpu_query_engines *engines;
	struct drm_simgpu_query_regions *regions;
	struct drm_simgpu_query_counters *counters;

	switch (type) {
	case DRM_SIMGPU_QUERY_CONFIG:
		return sizeof(struct drm_simgpu_query_config);
	case DRM_SIMGPU_QUERY_ENGINES:
		return struct_size(engines, engines, sdev->num_engines);
	case DRM_SIMGPU_QUERY_REGIONS:
		return struct_size(regions, regions, DRM_SIMGPU_REGION_COUNT);
	case DRM_SIMGPU_QUERY_COUNTERS:
		return struct_size(counters, counters, SIMGPU_PERF_NUM_SIGNALS);
	default:
		return 0;
	}
}

static void query_fill(struct simgpu_device *sdev, u32 type, void *buf)
{
	struct drm_simgpu_query_config *config = buf;
	struct drm_simgpu_query_engines *engines = buf;
	struct drm_simgpu_query_regions *regions = buf;
	struct drm_simgpu_query_counters *counters = buf;
	unsigned int i;

	switch (type) {
	case DRM_SIMGPU_QUERY_CONFIG:
		config->refclk_hz = sdev->refclk_hz;
		config->num_engines = sdev->num_engines;
		config->max_cmds = SIMGPU_MAX_CMDS;
		config->max_bo_handles = DRM_SIMGPU_MAX_BO_HANDLES;
		config->max_in_syncs = DRM_SIMGPU_MAX_IN_SYNCS;
		config->max_job_ns = sdev->max_job_ns;
		config->max_out_syncs = DRM_SIMGPU_MAX_OUT_SYNCS;
		break;
	case DRM_SIMGPU_QUERY_ENGINES:
		engines->num_engines = sdev->num_engines;
		for (i = 0; i < sdev->num_engines; i++) {
			engines->engines[i].engine_class =
				sdev->engines[i]->class;
			engines->engines[i].engine_instance =
				sdev->engines[i]->instance;
		}
		break;
	case DRM_SIMGPU_QUERY_REGIONS:
		regions->num_regions = DRM_SIMGPU_REGION_COUNT;
		for (i = 0; i < DRM_SIMGPU_REGION_COUNT; i++) {
			struct drm_simgpu_region_info *info =
				&regions->regions[i];

			info->region = i;
			info->total_size = simgpu_region_size(sdev, i);
			info->used_size =
				atomic64_read(simgpu_region_used(sdev, i));
			info->max_bo_size = simgpu_region_max_bo_size(sdev, i);
		}
		break;
	case DRM_SIMGPU_QUERY_COUNTERS:
		BUILD_BUG_ON(sizeof(struct drm_simgpu_sample_report) !=
			     SIMGPU_REPORT_SIZE);
		counters->num_counters = SIMGPU_PERF_NUM_SIGNALS;
		counters->num_slots = SIMGPU_PERF_NUM_SLOTS;
		counters->report_size = SIMGPU_REPORT_SIZE;
		for (i = 0; i < SIMGPU_PERF_NUM_SIGNALS; i++)
			simgpu_perfmon_counter_info(i, &counters->counters[i]);
		break;
	}
}

/**
 * simgpu_ioctl_query - DRM_IOCTL_SIMGPU_QUERY
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_query
 * @file: the client
 *
 * Returns: 0, -EINVAL for an unknown type or a buffer too small, -EFAULT
 * for a bad user pointer.
 */
int simgpu_ioctl_query(struct drm_device *drm, void *data,
		       struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(drm);
	struct drm_simgpu_query *args = data;
	size_t size = query_size(sdev, args->type);
	void *buf;
	int ret = 0;

	if (!size)
		return -EINVAL;
	if (!args->size) {
		args->size = size;
		return 0;
	}
	if (args->size < size)
		return -EINVAL;

	buf = kzalloc(size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	query_fill(sdev, args->type, buf);
	if (copy_to_user(u64_to_user_ptr(args->data), buf, size))
		ret = -EFAULT;
	else
		args->size = size;
	kfree(buf);

	return ret;
}
