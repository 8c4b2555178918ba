/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_DRV_H_
#define _SIMGPU_DRV_H_

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include <uapi/drm/simgpu_drm.h>

#include "simgpu_ctx.h"
#include "simgpu_hw.h"
#include "simgpu_observation.h"

#define DRIVER_NAME	"simgpu"
#define DRIVER_DESC	"Simulated GPU"
#define DRIVER_MAJOR	1
#define DRIVER_MINOR	0

/*
 * The most commands of one job, &drm_simgpu_query_config.max_cmds. The
 * longest batch is as many COPYs split in three (6 words each) plus the
 * kernel's SAMPLE (4 words) and END: it fits in SIMGPU_BATCH_MAX_WORDS, see
 * SIMGPU_JOB_MAX_WORDS.
 */
#define SIMGPU_MAX_CMDS		255

struct platform_device;
struct simgpu_engine;
struct simgpu_perfmon;

/**
 * struct simgpu_device - the driver's view of one simulated GPU
 * @drm: the DRM device
 * @platform: the platform device the driver is bound to, NULL for devices
 *	created by tests
 * @hw: the device model, reached through simgpu_read32()/simgpu_write32()
 * @refclk_hz: reference clock frequency, read from the device at probe
 * @ctxs: the hardware contexts and their engine-time accounting
 * @num_engines: number of entries in @engines
 * @engines: the engines present, ordered by class then instance. The engine
 *	set is fixed at probe; fdinfo walks it without locking.
 * @engine_by_hw_id: the same engines indexed by SIMGPU_HW_ENGINE_ID(), NULL
 *	for absent ones. The interrupt handler reads it under rcu_read_lock();
 *	the engines are cleared from it and an RCU grace period waited for
 *	before they are freed.
 * @engines_per_class: number of engines of each &enum drm_simgpu_engine_class
 * @vram_size: size of the local memory (VRAM0) in bytes, read at probe
 * @vram_used: bytes of VRAM0 allocated to buffer objects; only changed
 *	with atomic64 cmpxchg so it never exceeds @vram_size
 * @sys_size: system memory that buffer objects may take, in bytes; set at
 *	probe
 * @sys_used: bytes of system memory allocated to buffer objects; only
 *	changed with atomic64 cmpxchg so it never exceeds @sys_size
 * @max_bo_size: the largest buffer object in any region, page aligned; set
 *	at probe
 * @purge_lock: protects @purge_list and @purge_pages
 * @purge_list: system buffers marked DONTNEED and not purged yet, linked
 *	by &drm_gem_shmem_object.madv_list; protected by @purge_lock
 * @purge_pages: the pages of the buffers of @purge_list, for the
 *	shrinker's count; written under @purge_lock, read without it
 * @shrinker: purges the idle buffers of @purge_list under memory pressure
 * @job_timeout_ms: how long a job may run without progress before its
 *	engine is reset
 * @max_job_ns: how long a job may run at most, progress or not, before its
 *	engine is reset; reported as &drm_simgpu_query_config.max_job_ns
 * @perfmon_lock: protects @global_perfmon; serialises setting it against
 *	the submits' check of it and of @perfmon_jobs
 * @global_perfmon: the device-wide perfmon, referenced, or NULL;
 *	protected by @perfmon_lock (written with WRITE_ONCE() for the
 *	submit's lockless peek)
 * @perfmon_jobs: jobs with a per-job perfmon from the submit's check
 *	under @perfmon_lock until they retire (atomic: they retire without
 *	the lock)
 * @perfmon_wq: runs the perfmons' add work, drained at device release
 * @obs: the observation unit's stream, see simgpu_observation.c
 */
struct simgpu_device {
	struct drm_device drm;
	struct platform_device *platform;
	struct simgpu_hw *hw;
	u32 refclk_hz;

	struct simgpu_ctx_mgr ctxs;

	unsigned int num_engines;
	struct simgpu_engine *engines[SIMGPU_MAX_ENGINES];
	struct simgpu_engine *engine_by_hw_id[SIMGPU_MAX_ENGINES];
	u8 engines_per_class[DRM_SIMGPU_ENGINE_CLASS_COUNT];

	u64 vram_size;
	atomic64_t vram_used;
	u64 sys_size;
	atomic64_t sys_used;
	u64 max_bo_size;

	struct mutex purge_lock;	/* @purge_list */
	struct list_head purge_list;	/* protected by @purge_lock */
	unsigned long purge_pages;	/* written under @purge_lock */
	struct shrinker *shrinker;

	unsigned int job_timeout_ms;
	u64 max_job_ns;

	struct mutex perfmon_lock;	/* guards @global_perfmon */
	struct simgpu_perfmon *global_perfmon;	/* protected by @perfmon_lock */
	atomic_t perfmon_jobs;
	struct workqueue_struct *perfmon_wq;

	struct simgpu_observation obs;
};

/**
 * struct simgpu_file - per-client state, the &drm_file.driver_priv
 * @sdev: the device
 * @usage: the engine time of the client's contexts, shared with them
 * @queues: the client's &struct simgpu_queue by id; the xarray's lock
 *	serialises lookups against removal
 * @perfmons: the client's &struct simgpu_perfmon by id, each referenced;
 *	the xarray's lock serialises lookups against removal
 */
struct simgpu_file {
	struct simgpu_device *sdev;
	struct simgpu_client_usage *usage;
	struct xarray queues;
	struct xarray perfmons;
};

static inline struct simgpu_device *to_simgpu_device(struct drm_device *drm)
{
	return container_of(drm, struct simgpu_device, drm);
}

static inline struct simgpu_file *to_simgpu_file(struct drm_file *f)
{
	return f->driver_priv;
}

static inline u32 simgpu_read32(struct simgpu_device *sdev, u32 reg)
{
	return simgpu_hw_read32(sdev->hw, reg);
}

static inline void simgpu_write32(struct simgpu_device *sdev, u32 reg, u32 val)
{
	simgpu_hw_write32(sdev->hw, reg, val);
}

/*
 * A 64-bit counter whose halves at @lo and @hi are not latched: HI, LO,
 * HI, and again while HI changed, as the registers' comments say
 */
static inline u64 simgpu_read64(struct simgpu_device *sdev, u32 lo, u32 hi)
{
	u32 h = simgpu_read32(sdev, hi), old, l;

	do {
		old = h;
		l = simgpu_read32(sdev, lo);
		h = simgpu_read32(sdev, hi);
	} while (h != old);

	return (u64)h << 32 | l;
}

struct simgpu_device *simgpu_device_create(struct device *parent,
					   const struct simgpu_hw_config *cfg);

void simgpu_show_fdinfo(struct drm_printer *p, struct drm_file *file);

/**
 * typedef simgpu_user_extension_fn - handler of one uAPI extension
 * @extension: user pointer to the extension
 * @data: the state of the ioctl the extension belongs to
 *
 * Returns: 0 or a negative error code, which fails the ioctl.
 */
typedef int (*simgpu_user_extension_fn)(u64 extension, void *data);

int simgpu_user_extensions(u64 extensions,
			   const simgpu_user_extension_fn *fns, u32 num_fns,
			   void *data);

int simgpu_ioctl_query(struct drm_device *drm, void *data,
		       struct drm_file *file);

void simgpu_debugfs_init(struct simgpu_device *sdev);

#endif /* _SIMGPU_DRV_H_ */
