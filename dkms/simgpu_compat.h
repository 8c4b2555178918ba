/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * simgpu_compat.h - what a stock kernel lacks, for the out-of-tree (DKMS)
 * build of simgpu
 *
 * The driver is written for Linux 7.2 with the series it is sent with
 * (drm_print_kv_u64() and drm_memory_stats_add() of the fdinfo helpers).
 * The DKMS build force-includes this header (-include) into every object,
 * so that the driver's files build unchanged on Debian's stock 6.12
 * kernels: no #ifdef in the driver, no LINUX_VERSION_CODE here (the patched
 * and the stock kernel have the same version). Stock 7.2 should need only
 * the series' helpers; its headers are not built against yet.
 *
 * Every decision is a probe's: conftest.sh compiles probes/<name>.c against
 * the target kernel's headers and writes simgpu_compat_probes.h, where
 * SIMGPU_HAVE_<NAME> is 1 if it compiled. A fallback below stands in for
 * each missing API a probe calls "shimmed"; conftest.sh refuses a kernel
 * without a "required" one, and the #error lines below say so again if
 * the header is used without it. On a kernel with the series, every
 * SIMGPU_HAVE_ is 1 and this header adds nothing.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_COMPAT_H_
#define _SIMGPU_COMPAT_H_

#include "simgpu_compat_probes.h"

#include <linux/hrtimer.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include <linux/dma-fence.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_print.h>
#include <drm/gpu_scheduler.h>

/* --- required: stable backports, in Debian's 6.12.107 and later */
#if !SIMGPU_HAVE_KMALLOC_OBJ
#error "simgpu needs kzalloc_obj() and kvzalloc_objs() (<linux/slab.h>)"
#endif
#if !SIMGPU_HAVE_SYSTEM_DFL_WQ || !SIMGPU_HAVE_SYSTEM_PERCPU_WQ
#error "simgpu needs system_dfl_wq and system_percpu_wq (<linux/workqueue.h>)"
#endif
#if !SIMGPU_HAVE_DRM_GEM_IS_IMPORTED
#error "simgpu needs drm_gem_is_imported() (<drm/drm_gem.h>)"
#endif
#if !SIMGPU_HAVE_DRM_SCHED_JOB_INIT_CLIENT_ID
#error "simgpu needs drm_sched_job_init() with a drm_client_id argument"
#endif

/* --- hrtimer_setup() (6.15); 6.12: hrtimer_init() + .function */
#if !SIMGPU_HAVE_HRTIMER_SETUP
static inline void
simgpu_compat_hrtimer_setup(struct hrtimer *timer,
			    enum hrtimer_restart (*function)(struct hrtimer *),
			    clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#define hrtimer_setup simgpu_compat_hrtimer_setup
#endif

/*
 * --- register_sysctl() of a const table (6.13). 6.12's core does not
 * write the table (nothing in fs/proc/proc_sysctl.c assigns to an entry),
 * so casting the const away is safe.
 */
#if !SIMGPU_HAVE_REGISTER_SYSCTL_CONST
#undef register_sysctl
#define register_sysctl(path, table) \
	register_sysctl_sz(path, (struct ctl_table *)(table), ARRAY_SIZE(table))
#endif

/* --- GEM */
#if !SIMGPU_HAVE_DRM_GEM_OBJECT_ACTIVE
/* 6.12's drm_print_memory_stats() prints drm-active- unconditionally */
#define DRM_GEM_OBJECT_ACTIVE ((enum drm_gem_object_status)BIT(2))
#endif

/*
 * 6.12's drm_gem_shmem_madvise() IS the locked variant (asserts the resv
 * lock); 7.2 renamed it _locked and added an unlocked drm_gem_shmem_madvise()
 * that takes the lock. Probe the _locked name, never the plain one.
 */
#if !SIMGPU_HAVE_DRM_GEM_SHMEM_MADVISE_LOCKED
#define drm_gem_shmem_madvise_locked(shmem, madv) \
	drm_gem_shmem_madvise(shmem, madv)
#endif

/* --- the fdinfo helpers of the series: no stock kernel has them */
#if !SIMGPU_HAVE_DRM_PRINT_KV_U64
/* Same bytes as series 02's version; without its seq_file fast path */
static inline void drm_print_kv_u64(struct drm_printer *p, const char *key,
				    const char *suffix, u64 value,
				    const char *unit)
{
	drm_printf(p, "%s%s:\t%llu%s\n", key, suffix ?: "", value, unit ?: "");
}
#endif

#if !SIMGPU_HAVE_DRM_MEMORY_STATS_ADD
static inline void drm_memory_stats_add(struct drm_memory_stats *stats,
					struct drm_gem_object *obj, u64 size,
					enum drm_gem_object_status status)
{
	if (drm_gem_object_is_shared_for_memory_stats(obj))
		stats->shared += obj->size;
	else
		stats->private += obj->size;

	if (status & DRM_GEM_OBJECT_RESIDENT)
		stats->resident += size;
	else
		status &= ~DRM_GEM_OBJECT_PURGEABLE;

	if (status & DRM_GEM_OBJECT_ACTIVE) {
		stats->active += size;
		status &= ~DRM_GEM_OBJECT_PURGEABLE;
	}

	if (status & DRM_GEM_OBJECT_PURGEABLE)
		stats->purgeable += size;
}
#endif

/* --- DRM scheduler */
#if !SIMGPU_HAVE_DRM_SCHED_STAT_RESET
/* 6.17 renamed NOMINAL to RESET, same value and meaning */
#define DRM_GPU_SCHED_STAT_RESET DRM_GPU_SCHED_STAT_NOMINAL
#endif

#if !SIMGPU_HAVE_DRM_SCHED_INIT_ARGS
/* In Debian's 6.12.115 and later, upstream 6.15: the same struct */
struct drm_sched_init_args {
	const struct drm_sched_backend_ops *ops;
	struct workqueue_struct *submit_wq;
	struct workqueue_struct *timeout_wq;
	u32 num_rqs;
	u32 credit_limit;
	unsigned int hang_limit;
	long timeout;
	atomic_t *score;
	const char *name;
	struct device *dev;
};
#endif

#if !SIMGPU_HAVE_DRM_SCHED_STAT_NO_HANG
/*
 * 6.12's drm_sched_job_timedout() took the job off pending_list and only
 * drm_sched_stop() puts it back; 7.2 reinserts it itself when the handler
 * returns NO_HANG. Emulate: the handler's NO_HANG is a value 6.12's enum
 * does not have, and a wrapper around the driver's timedout_job (put in by
 * drm_sched_init() below) reinserts the job, kicks the free worker as 7.2's
 * drm_sched_job_reinsert_on_false_timeout() does, and returns NOMINAL. The
 * value never reaches 6.12's scheduler.
 */
#define DRM_GPU_SCHED_STAT_NO_HANG ((enum drm_gpu_sched_stat)0x4e48)

static const struct drm_sched_backend_ops *simgpu_compat_sched_ops_orig
	__maybe_unused;
static struct drm_sched_backend_ops simgpu_compat_sched_ops __maybe_unused;

static inline enum drm_gpu_sched_stat
simgpu_compat_timedout_job(struct drm_sched_job *job)
{
	struct drm_gpu_scheduler *sched = job->sched;
	enum drm_gpu_sched_stat stat;

	stat = simgpu_compat_sched_ops_orig->timedout_job(job);
	if (stat != DRM_GPU_SCHED_STAT_NO_HANG)
		return stat;

	spin_lock(&sched->job_list_lock);
	list_add(&job->list, &sched->pending_list);
	if (!READ_ONCE(sched->pause_submit))
		queue_work(sched->submit_wq, &sched->work_free_job);
	spin_unlock(&sched->job_list_lock);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}
#endif

#if !SIMGPU_HAVE_DRM_SCHED_INIT_ARGS || !SIMGPU_HAVE_DRM_SCHED_STAT_NO_HANG
static inline int
simgpu_compat_drm_sched_init(struct drm_gpu_scheduler *sched,
			     const struct drm_sched_init_args *args)
{
	struct drm_sched_init_args a = *args;

#if !SIMGPU_HAVE_DRM_SCHED_STAT_NO_HANG
	/* simgpu has one backend_ops: every engine passes the same one */
	if (WARN_ON(simgpu_compat_sched_ops_orig &&
		    simgpu_compat_sched_ops_orig != args->ops))
		return -EINVAL;
	if (!simgpu_compat_sched_ops_orig) {
		simgpu_compat_sched_ops = *args->ops;
		simgpu_compat_sched_ops.timedout_job = simgpu_compat_timedout_job;
		simgpu_compat_sched_ops_orig = args->ops;
	}
	a.ops = &simgpu_compat_sched_ops;
#endif
#if SIMGPU_HAVE_DRM_SCHED_INIT_ARGS
	return drm_sched_init(sched, &a);
#else
	return drm_sched_init(sched, a.ops, a.submit_wq, a.num_rqs,
			      a.credit_limit, a.hang_limit, a.timeout,
			      a.timeout_wq, a.score, a.name, a.dev);
#endif
}
#define drm_sched_init simgpu_compat_drm_sched_init
#endif

/*
 * --- DMA fences: 7.2's inline lock (dma_fence_init(..., NULL, ...)) and
 * ops dropped at signal (fences without .release/.wait no longer use the
 * module once signalled). 6.12 BUG()s on a NULL lock and keeps calling
 * fence->ops (get_*_name, release) for as long as the fence lives, which a
 * sync_file or a dma-buf's reservation can make longer than the module.
 *
 * Emulation, for the fences initialised with a NULL lock (simgpu's out
 * fences, all in simgpu_fence.c: the statics below are per object file,
 * as this header is in each): one spinlock stands in for the inline locks
 * (7.2's inline locks share one lockdep class anyway; nothing signals one
 * out fence under another's lock), a copy of the fence's ops gets a .release,
 * and the fence holds a module reference until that release's work, run
 * on the module's workqueue (simgpu_queue_defer(): module exit destroys
 * that workqueue, which waits for the work to return), kfree_rcu()s it and
 * drops the reference. So on 6.12 rmmod fails (in use) while userspace
 * holds a job's out fence.
 */
#if !SIMGPU_HAVE_DMA_FENCE_INLINE_LOCK || !SIMGPU_HAVE_DMA_FENCE_RCU_OPS
void simgpu_queue_defer(struct work_struct *work);	/* simgpu_queue.c */

static __maybe_unused DEFINE_SPINLOCK(simgpu_compat_fence_lock);
static __maybe_unused DEFINE_SPINLOCK(simgpu_compat_fence_ops_lock);
static __maybe_unused LLIST_HEAD(simgpu_compat_fence_free_list);

static inline void simgpu_compat_fence_free_work(struct work_struct *work)
{
	struct llist_node *node = llist_del_all(&simgpu_compat_fence_free_list);
	struct llist_node *next;

	for (; node; node = next) {
		/* the node is in the fence's rcu head, unused until now */
		struct dma_fence *fence = container_of((void *)node,
						       struct dma_fence, rcu);

		next = node->next;
		kfree_rcu(fence, rcu);
		module_put(THIS_MODULE);
	}
}

static __maybe_unused DECLARE_WORK(simgpu_compat_fence_work,
				    simgpu_compat_fence_free_work);

/* Any context, as dma_fence_release() may be called in */
static inline void simgpu_compat_fence_release(struct dma_fence *fence)
{
	BUILD_BUG_ON(sizeof(fence->rcu) < sizeof(struct llist_node));
	if (llist_add((struct llist_node *)&fence->rcu,
		      &simgpu_compat_fence_free_list))
		simgpu_queue_defer(&simgpu_compat_fence_work);
}

static inline void
simgpu_compat_dma_fence_init(struct dma_fence *fence,
			     const struct dma_fence_ops *ops, spinlock_t *lock,
			     u64 context, u64 seqno,
			     struct dma_fence_ops *shadow)
{
	if (lock) {
		dma_fence_init(fence, ops, lock, context, seqno);
		return;
	}
	if (WARN_ON(ops->release || ops->wait)) {
		/* 7.2 would keep these ops: nothing to emulate but the lock */
		dma_fence_init(fence, ops, &simgpu_compat_fence_lock, context,
			       seqno);
		return;
	}
	if (!smp_load_acquire(&shadow->release)) {
		spin_lock(&simgpu_compat_fence_ops_lock);
		if (!shadow->release) {
			struct dma_fence_ops copy = *ops;

			copy.release = NULL;
			*shadow = copy;
			smp_store_release(&shadow->release,
					  simgpu_compat_fence_release);
		}
		spin_unlock(&simgpu_compat_fence_ops_lock);
	}
	__module_get(THIS_MODULE);
	dma_fence_init(fence, shadow, &simgpu_compat_fence_lock, context, seqno);
}

/* A copy of the ops per call site, made on first use */
#define dma_fence_init(fence, ops, lock, context, seqno) do {		\
	static struct dma_fence_ops __simgpu_compat_shadow_ops;		\
	simgpu_compat_dma_fence_init(fence, ops, lock, context, seqno,	\
				     &__simgpu_compat_shadow_ops);	\
} while (0)
#endif

/*
 * --- perf: 7.2's perf_pmu_unregister() revokes the events still open
 * (6.15); 6.12's frees the PMU's contexts under them, and the driver's
 * devres then frees the PMU itself: use after free at the unbind. On 6.12
 * the only unbind left is module exit, which perf's module reference per
 * event holds off until the last event is closed: no sysfs bind/unbind.
 */
#if IS_ENABLED(CONFIG_PERF_EVENTS) && !SIMGPU_HAVE_PERF_PMU_UNREGISTER_REVOKES
#undef platform_driver_register
#define platform_driver_register(drv) ({				\
	(drv)->driver.suppress_bind_attrs = true;			\
	__platform_driver_register(drv, THIS_MODULE);			\
})
#endif

#endif /* _SIMGPU_COMPAT_H_ */
