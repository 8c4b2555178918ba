/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_PERFMON_H_
#define _SIMGPU_PERFMON_H_

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "simgpu_regs.h"

struct drm_device;
struct drm_file;
struct drm_simgpu_counter_info;
struct simgpu_device;
struct simgpu_file;
struct simgpu_job;

/**
 * struct simgpu_perfmon - a set of counters that jobs count into
 * @ref: held by the file's perfmon xarray, by the device while it is the
 *	device-wide perfmon, and by each job that counts into it
 * @owner: the file that created it; only compared, never dereferenced
 *	(the perfmon stops being device-wide before its file goes)
 * @id: the perfmon's id in its file, for tracing
 * @num_counters: number of entries in @counters, 1 to
 *	%SIMGPU_PERF_NUM_SLOTS
 * @counters: the counter (signal) ids, counted in slots 0 to
 *	@num_counters - 1
 * @cfg: the slot configuration of @counters, RING_SUBMIT_PERFCFG bits 15:0
 * @lock: protects @values, @submitted, @added and @pending. Taken from the
 *	job completion path, which runs in hard interrupt context: irq-safe,
 *	a leaf lock (nothing is taken inside it)
 * @values: the counts of jobs 1 to @added, protected by @lock
 * @submitted: number of jobs numbered so far, the number of the last
 *	one; protected by @lock
 * @added: jobs 1 to @added are in @values; protected by @lock
 * @pending: the &struct simgpu_perfmon_entry of jobs @added + 1 to
 *	@submitted, in number order; protected by @lock
 * @wq: woken up when @added grows
 * @add_work: adds the done entries at the head of @pending to @values
 * @add_wq: the device's workqueue that runs @add_work
 */
struct simgpu_perfmon {
	struct kref ref;
	const struct simgpu_file *owner;
	u32 id;
	u32 num_counters;
	u8 counters[SIMGPU_PERF_NUM_SLOTS];
	u32 cfg;
	spinlock_t lock;	/* irq-safe, see above */
	u64 values[SIMGPU_PERF_NUM_SLOTS];	/* protected by @lock */
	u64 submitted;		/* protected by @lock */
	u64 added;		/* protected by @lock */
	struct list_head pending;	/* protected by @lock */
	wait_queue_head_t wq;
	struct work_struct add_work;
	struct workqueue_struct *add_wq;
};

/**
 * struct simgpu_perfmon_entry - a job's place in its perfmon's sequence
 * @link: entry in &simgpu_perfmon.pending, protected by its lock
 * @seqno: the job's number in the perfmon
 * @done: the job retired and @counts are its counts; protected by the
 *	perfmon's lock
 * @counts: what the job counted, protected by the perfmon's lock
 *
 * Allocated at submit, owned by the job until it is numbered, then by the
 * perfmon, which frees it once the counts are added. The job can be freed
 * before that (it retired ahead of an earlier job).
 */
struct simgpu_perfmon_entry {
	struct list_head link;
	u64 seqno;
	bool done;
	u64 counts[SIMGPU_PERF_NUM_SLOTS];
};

void simgpu_perfmon_get(struct simgpu_perfmon *pm);
void simgpu_perfmon_put(struct simgpu_perfmon *pm);
int simgpu_perfmon_init_device(struct simgpu_device *sdev);
void simgpu_perfmon_init_file(struct simgpu_file *sfile);
void simgpu_perfmon_fini_file(struct simgpu_file *sfile);
void simgpu_perfmon_counter_info(unsigned int id,
				 struct drm_simgpu_counter_info *info);

int simgpu_perfmon_job_init(struct simgpu_job *job, struct simgpu_file *sfile,
			    u32 perfmon_id);
void simgpu_perfmon_job_queue(struct simgpu_job *job);
void simgpu_perfmon_job_retire(struct simgpu_job *job, bool completed);
void simgpu_perfmon_job_fini(struct simgpu_job *job);

int simgpu_ioctl_perfmon_create(struct drm_device *drm, void *data,
				struct drm_file *file);
int simgpu_ioctl_perfmon_destroy(struct drm_device *drm, void *data,
				 struct drm_file *file);
int simgpu_ioctl_perfmon_get_values(struct drm_device *drm, void *data,
				    struct drm_file *file);
int simgpu_ioctl_perfmon_set_global(struct drm_device *drm, void *data,
				    struct drm_file *file);

#endif /* _SIMGPU_PERFMON_H_ */
