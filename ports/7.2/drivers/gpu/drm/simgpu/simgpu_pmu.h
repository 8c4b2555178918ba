/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_PMU_H_
#define _SIMGPU_PMU_H_

#include <linux/err.h>

struct device;
struct simgpu_device;
struct simgpu_pmu;

#if IS_ENABLED(CONFIG_PERF_EVENTS)
struct simgpu_pmu *simgpu_pmu_register(struct device *parent, int id);
void simgpu_pmu_unregister(struct simgpu_pmu *pmu);
void simgpu_pmu_bind(struct simgpu_pmu *pmu, struct simgpu_device *sdev);
void simgpu_pmu_unbind(struct simgpu_pmu *pmu);
#else
static inline struct simgpu_pmu *simgpu_pmu_register(struct device *parent,
						     int id)
{
	return NULL;
}

static inline void simgpu_pmu_unregister(struct simgpu_pmu *pmu) { }
static inline void simgpu_pmu_bind(struct simgpu_pmu *pmu,
				   struct simgpu_device *sdev) { }
static inline void simgpu_pmu_unbind(struct simgpu_pmu *pmu) { }
#endif

#endif /* _SIMGPU_PMU_H_ */
