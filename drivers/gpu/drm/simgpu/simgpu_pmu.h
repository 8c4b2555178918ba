/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_PMU_H_
#define _SIMGPU_PMU_H_

struct simgpu_device;

#if IS_ENABLED(CONFIG_PERF_EVENTS)
int simgpu_pmu_register(struct simgpu_device *sdev);
#else
static inline int simgpu_pmu_register(struct simgpu_device *sdev)
{
	return 0;
}
#endif

#endif /* _SIMGPU_PMU_H_ */
