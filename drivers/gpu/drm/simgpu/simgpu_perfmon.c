// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/capability.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_managed.h>

#include "simgpu_drv.h"
#include "simgpu_job.h"
#include "simgpu_perfmon.h"
#include "simgpu_trace.h"

/**
 * DOC: simgpu perfmons
 *
 * A perfmon is a set of up to SIMGPU_PERF_NUM_SLOTS counters of a file.
 * Every job is submitted with RING_SUBMIT_PERFCFG = SIMGPU_PERFCFG_LOAD |
 * the configuration of its perfmon (0, all slots off, without one), so the
 * engine starts each job with zeroed slots that count the job's context
 * only. A job with a perfmon ends with a kernel SAMPLE (without sequence
 * number) into a 64-byte report of its own: when the job retires, the
 * report's slots are the job's counts.
 *
 * Jobs are numbered per perfmon at submit time, under the exec queue's
 * lock right before they are pushed, so that nothing fails after a number
 * is taken. Their counts are added in number order: a job that retires
 * before an earlier one waits in &simgpu_perfmon.pending, so
 * &simgpu_perfmon.added = n means exactly jobs 1 to n. A job retires from
 * the completion path (hard interrupt or the timeout handler); one that
 * never reached the hardware (cancelled by the scheduler) retires with 0
 * counts when it is freed. A job that did not run to its end counts 0.
 *
 * Retiring only marks the job's entry done: the adding is left to a work
 * item, which adds the done entries at the head of the sequence a batch at
 * a time. A slow job can hold up any number of later ones, and adding
 * them all in the interrupt handler that retires it would keep interrupts
 * off for as long as userspace likes.
 *
 * The device-wide perfmon (&simgpu_device.global_perfmon) is taken by the
 * jobs of every file that do not name one; &simgpu_device.perfmon_jobs
 * counts the jobs with a per-job perfmon from the submit's check to their
 * retirement, and setting the device-wide perfmon needs it at 0. Both are
 * checked under &simgpu_device.perfmon_lock.
 */

struct simgpu_counter_desc {
	const char *name;
	const char *category;
	const char *unit;
	const char *description;
};

/* Indexed by SIMGPU_SIG_*, the uAPI counter ids */
static const struct simgpu_counter_desc simgpu_counters[SIMGPU_PERF_NUM_SIGNALS] = {
	[SIMGPU_SIG_BUSY_TICKS] = {
		"busy-ticks", "time", "ticks",
		"Reference clock ticks during which the job's context was resident on the engine.",
	},
	[SIMGPU_SIG_COMMANDS] = {
		"commands", "frontend", "commands",
		"Commands the engine began, END excluded; each hardware piece of a split COPY counts.",
	},
	[SIMGPU_SIG_BATCHES] = {
		"batches", "frontend", "batches",
		"Batches (jobs) started on the engine.",
	},
	[SIMGPU_SIG_BYTES_WRITTEN] = {
		"bytes-written", "memory", "bytes",
		"Bytes written by WRITE (4 each) and COPY commands; sample reports are not counted.",
	},
	[SIMGPU_SIG_BYTES_READ] = {
		"bytes-read", "memory", "bytes",
		"Bytes read by COPY commands.",
	},
	[SIMGPU_SIG_CTX_SWITCHES] = {
		"context-switches", "frontend", "switches",
		"Switches of the context onto the engine: at a batch start if not resident, after an IDLE.",
	},
	[SIMGPU_SIG_COPIES] = {
		"copies", "memory", "commands",
		"COPY commands executed, one per piece of a COPY split at 4 KiB boundaries.",
	},
	[SIMGPU_SIG_SAMPLES] = {
		"samples", "frontend", "commands",
		"SAMPLE commands executed, counted after the report they write.",
	},
};

/**
 * simgpu_perfmon_counter_info - describe a counter for the uAPI
 * @id: the counter id, below %SIMGPU_PERF_NUM_SIGNALS
 * @info: filled in; its padding must be zero already
 */
void simgpu_perfmon_counter_info(unsigned int id,
				 struct drm_simgpu_counter_info *info)
{
	const struct simgpu_counter_desc *desc = &simgpu_counters[id];

	info->id = id;
	strscpy(info->name, desc->name, sizeof(info->name));
	strscpy(info->category, desc->category, sizeof(info->category));
	strscpy(info->unit, desc->unit, sizeof(info->unit));
	strscpy(info->description, desc->description,
		sizeof(info->description));
}

static void perfmon_release(struct kref *ref)
{
	struct simgpu_perfmon *pm = container_of(ref, struct simgpu_perfmon,
						 ref);
	struct simgpu_perfmon_entry *e, *tmp;

	/*
	 * Every job retired before it dropped its reference, and the add
	 * work holds one while it is queued: all was added. Entries are only
	 * left of jobs that retired ahead of one that never did, which would
	 * be a bug; free them anyway.
	 */
	WARN_ON_ONCE(!list_empty(&pm->pending));
	list_for_each_entry_safe(e, tmp, &pm->pending, link)
		kfree(e);
	kfree(pm);
}

/**
 * simgpu_perfmon_get - take a reference to a perfmon
 * @pm: the perfmon
 */
void simgpu_perfmon_get(struct simgpu_perfmon *pm)
{
	kref_get(&pm->ref);
}

/**
 * simgpu_perfmon_put - drop a reference to a perfmon
 * @pm: the perfmon, or NULL
 *
 * Frees it with the last reference. Does not sleep.
 */
void simgpu_perfmon_put(struct simgpu_perfmon *pm)
{
	if (pm)
		kref_put(&pm->ref, perfmon_release);
}

/* The perfmon @id of @sfile, referenced, or NULL */
static struct simgpu_perfmon *perfmon_lookup(struct simgpu_file *sfile,
					     u32 id)
{
	struct simgpu_perfmon *pm;

	xa_lock(&sfile->perfmons);
	pm = xa_load(&sfile->perfmons, id);
	if (pm)
		simgpu_perfmon_get(pm);
	xa_unlock(&sfile->perfmons);

	return pm;
}

static void perfmon_destroy_wq(struct drm_device *drm, void *wq)
{
	destroy_workqueue(wq);
}

/**
 * simgpu_perfmon_init_device - set up the device's perfmon state
 * @sdev: the device
 *
 * Return: 0 or a negative error code.
 */
int simgpu_perfmon_init_device(struct simgpu_device *sdev)
{
	int ret;

	atomic_set(&sdev->perfmon_jobs, 0);
	sdev->global_perfmon = NULL;
	ret = drmm_mutex_init(&sdev->drm, &sdev->perfmon_lock);
	if (ret)
		return ret;

	/* Drained at release: no add work outlives the device (or module) */
	sdev->perfmon_wq = alloc_workqueue("simgpu-perfmon", WQ_UNBOUND, 0);
	if (!sdev->perfmon_wq)
		return -ENOMEM;
	return drmm_add_action_or_reset(&sdev->drm, perfmon_destroy_wq,
					sdev->perfmon_wq);
}

/**
 * simgpu_perfmon_init_file - set up a file's perfmons
 * @sfile: the new file
 */
void simgpu_perfmon_init_file(struct simgpu_file *sfile)
{
	xa_init_flags(&sfile->perfmons, XA_FLAGS_ALLOC1);
}

/* Stop @pm being the device-wide perfmon; returns the device's reference */
static struct simgpu_perfmon *perfmon_unset_global(struct simgpu_device *sdev,
						   struct simgpu_perfmon *pm)
{
	lockdep_assert_held(&sdev->perfmon_lock);

	if (sdev->global_perfmon != pm)
		return NULL;
	WRITE_ONCE(sdev->global_perfmon, NULL);
	return pm;
}

/**
 * simgpu_perfmon_fini_file - free the perfmons of a closing file
 * @sfile: the file
 *
 * Turns the device-wide mode off if one of them is the device-wide
 * perfmon. Jobs in flight keep the perfmons they count into until they
 * retire.
 */
void simgpu_perfmon_fini_file(struct simgpu_file *sfile)
{
	struct simgpu_device *sdev = sfile->sdev;
	struct simgpu_perfmon *pm;
	unsigned long id;

	xa_for_each(&sfile->perfmons, id, pm) {
		xa_erase(&sfile->perfmons, id);
		mutex_lock(&sdev->perfmon_lock);
		simgpu_perfmon_put(perfmon_unset_global(sdev, pm));
		mutex_unlock(&sdev->perfmon_lock);
		simgpu_perfmon_put(pm);
	}
	xa_destroy(&sfile->perfmons);
}

/**
 * simgpu_perfmon_job_init - find the perfmon a job counts into
 * @job: the job being submitted
 * @sfile: the submitting file
 * @perfmon_id: &drm_simgpu_submit.perfmon_id
 *
 * Takes a reference to the perfmon named, or to the device-wide one for a
 * job that names none, and allocates the job's report and place in the
 * perfmon's sequence. What it sets up is undone by
 * simgpu_perfmon_job_fini() whether the job is pushed or not.
 *
 * Return: 0, -ENOENT if @sfile has no perfmon @perfmon_id, -EBUSY if it is
 * not 0 while the device-wide perfmon is set, or -ENOMEM.
 */
int simgpu_perfmon_job_init(struct simgpu_job *job, struct simgpu_file *sfile,
			    u32 perfmon_id)
{
	struct simgpu_device *sdev = sfile->sdev;
	struct simgpu_perfmon *pm = NULL;
	int ret = 0;

	/* The common case: no perfmon at all, no lock */
	if (!perfmon_id && !READ_ONCE(sdev->global_perfmon))
		return 0;

	mutex_lock(&sdev->perfmon_lock);
	if (sdev->global_perfmon) {
		if (perfmon_id) {
			ret = -EBUSY;
		} else {
			pm = sdev->global_perfmon;
			simgpu_perfmon_get(pm);
		}
	} else if (perfmon_id) {
		pm = perfmon_lookup(sfile, perfmon_id);
		if (!pm) {
			ret = -ENOENT;
		} else {
			/* Until it retires: SET_GLOBAL is -EBUSY meanwhile */
			atomic_inc(&sdev->perfmon_jobs);
			job->perfmon_busy = true;
		}
	}
	mutex_unlock(&sdev->perfmon_lock);
	if (!pm)
		return ret;
	job->perfmon = pm;

	/*
	 * The kernel SAMPLE's report: kmalloc() aligns power-of-two sizes
	 * naturally, as SIMGPU_CMD_SAMPLE needs.
	 */
	BUILD_BUG_ON(SIMGPU_REPORT_SIZE != 64);
	job->perfmon_report = kzalloc(SIMGPU_REPORT_SIZE, GFP_KERNEL_ACCOUNT);
	job->perfmon_entry = kzalloc_obj(*job->perfmon_entry, GFP_KERNEL_ACCOUNT);
	if (!job->perfmon_report || !job->perfmon_entry)
		return -ENOMEM;
	INIT_LIST_HEAD(&job->perfmon_entry->link);

	return 0;
}

/**
 * simgpu_perfmon_job_queue - give a job its number in its perfmon
 * @job: the job, about to be pushed; nothing may fail after this
 *
 * Called under the exec queue's lock, so jobs are numbered in the order
 * their queues get them.
 */
void simgpu_perfmon_job_queue(struct simgpu_job *job)
{
	struct simgpu_perfmon *pm = job->perfmon;
	struct simgpu_perfmon_entry *e = job->perfmon_entry;
	unsigned long flags;

	if (!pm)
		return;

	spin_lock_irqsave(&pm->lock, flags);
	e->seqno = ++pm->submitted;
	list_add_tail(&e->link, &pm->pending);
	job->perfmon_queued = true;
	spin_unlock_irqrestore(&pm->lock, flags);
}

/* Entries added per hold of the perfmon's lock */
#define PERFMON_ADD_BATCH	64

/*
 * Add the done jobs at the head of the sequence, in order, a batch at a
 * time with interrupts on in between. Holds the reference its queuer took.
 */
static void perfmon_add_work(struct work_struct *work)
{
	struct simgpu_perfmon *pm = container_of(work, struct simgpu_perfmon,
						 add_work);
	struct simgpu_perfmon_entry *e, *tmp;
	bool more;

	do {
		LIST_HEAD(added);
		unsigned int n = 0, i;

		spin_lock_irq(&pm->lock);
		while ((e = list_first_entry_or_null(&pm->pending,
						     struct simgpu_perfmon_entry,
						     link)) &&
		       e->done && n < PERFMON_ADD_BATCH) {
			for (i = 0; i < pm->num_counters; i++)
				pm->values[i] += e->counts[i];
			pm->added = e->seqno;
			trace_simgpu_perfmon_add(pm, e);
			list_move_tail(&e->link, &added);
			n++;
		}
		more = e && e->done;
		spin_unlock_irq(&pm->lock);

		list_for_each_entry_safe(e, tmp, &added, link)
			kfree(e);
		if (n)
			wake_up_all(&pm->wq);
		cond_resched();
	} while (more);

	simgpu_perfmon_put(pm);
}

/**
 * simgpu_perfmon_job_retire - hand a job's counts to its perfmon
 * @job: the job, done with the hardware
 * @completed: the job ran to its end: its report holds its counts. A job
 *	that did not counts 0.
 *
 * Marks the job's entry done, and if it is the first of the perfmon's
 * sequence not added yet, queues the work that adds it and the later done
 * ones. Called from the completion path, possibly in hard interrupt
 * context, or when the job is freed; only the first call for a job counts.
 */
void simgpu_perfmon_job_retire(struct simgpu_job *job, bool completed)
{
	struct simgpu_perfmon *pm = job->perfmon;
	struct simgpu_perfmon_entry *e = job->perfmon_entry;
	unsigned long flags;
	bool head;
	unsigned int i;

	if (!pm || !job->perfmon_queued || !e)
		return;

	/*
	 * The engine wrote the report before the seqno that told the
	 * completion path the job was done.
	 */
	smp_rmb();
	for (i = 0; i < pm->num_counters && completed; i++)
		e->counts[i] =
			le64_to_cpu(job->perfmon_report[SIMGPU_REPORT_SLOT(i) /
							sizeof(u64)]);

	spin_lock_irqsave(&pm->lock, flags);
	e->done = true;
	/* From here the perfmon owns the entry */
	job->perfmon_entry = NULL;
	head = list_first_entry(&pm->pending, struct simgpu_perfmon_entry,
				link) == e;
	spin_unlock_irqrestore(&pm->lock, flags);

	/* One reference per queueing; the job still holds its own */
	if (head) {
		simgpu_perfmon_get(pm);
		if (!queue_work(pm->add_wq, &pm->add_work))
			simgpu_perfmon_put(pm);
	}

	if (job->perfmon_busy) {
		atomic_dec(&job->queue->sdev->perfmon_jobs);
		job->perfmon_busy = false;
	}
}

/**
 * simgpu_perfmon_job_fini - release what simgpu_perfmon_job_init() set up
 * @job: the job being freed
 *
 * A job that was numbered but never retired (the scheduler cancelled it
 * before it reached the hardware) retires here with 0 counts.
 */
void simgpu_perfmon_job_fini(struct simgpu_job *job)
{
	if (!job->perfmon)
		return;

	simgpu_perfmon_job_retire(job, false);
	if (job->perfmon_busy)
		atomic_dec(&job->queue->sdev->perfmon_jobs);
	/* Not numbered: the submit failed, the entry is still the job's */
	kfree(job->perfmon_entry);
	kfree(job->perfmon_report);
	simgpu_perfmon_put(job->perfmon);
}

/**
 * simgpu_ioctl_perfmon_create - DRM_IOCTL_SIMGPU_PERFMON_CREATE
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_perfmon_create
 * @file: the client
 *
 * Return: 0, -EINVAL for non-zero flags or pad or a bad counter list,
 * -ENOSPC when the file has %DRM_SIMGPU_MAX_PERFMONS perfmons, -EFAULT or
 * -ENOMEM.
 */
int simgpu_ioctl_perfmon_create(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_perfmon_create *args = data;
	u32 ids[SIMGPU_PERF_NUM_SLOTS];
	struct simgpu_perfmon *pm;
	unsigned int i, j;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!args->num_counters || args->num_counters > SIMGPU_PERF_NUM_SLOTS)
		return -EINVAL;
	if (copy_from_user(ids, u64_to_user_ptr(args->counters),
			   args->num_counters * sizeof(ids[0])))
		return -EFAULT;
	for (i = 0; i < args->num_counters; i++) {
		if (ids[i] >= SIMGPU_PERF_NUM_SIGNALS)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (ids[j] == ids[i])
				return -EINVAL;
	}

	pm = kzalloc_obj(*pm, GFP_KERNEL_ACCOUNT);
	if (!pm)
		return -ENOMEM;
	kref_init(&pm->ref);
	pm->owner = sfile;
	spin_lock_init(&pm->lock);
	INIT_LIST_HEAD(&pm->pending);
	init_waitqueue_head(&pm->wq);
	INIT_WORK(&pm->add_work, perfmon_add_work);
	pm->add_wq = to_simgpu_device(drm)->perfmon_wq;
	pm->num_counters = args->num_counters;
	for (i = 0; i < pm->num_counters; i++) {
		pm->counters[i] = ids[i];
		pm->cfg |= SIMGPU_PERFCFG_SLOT(i, ids[i]);
	}

	/* xa_alloc() sets @pm->id before another thread can find @pm */
	ret = xa_alloc(&sfile->perfmons, &pm->id, pm,
		       XA_LIMIT(1, DRM_SIMGPU_MAX_PERFMONS), GFP_KERNEL);
	if (ret) {
		kfree(pm);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	args->id = pm->id;

	return 0;
}

/**
 * simgpu_ioctl_perfmon_destroy - DRM_IOCTL_SIMGPU_PERFMON_DESTROY
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_perfmon_destroy
 * @file: the client
 *
 * Jobs in flight keep counting into the perfmon. Destroying the
 * device-wide perfmon turns the device-wide mode off.
 *
 * Return: 0, -EINVAL for a non-zero pad, -ENOENT for an unknown id.
 */
int simgpu_ioctl_perfmon_destroy(struct drm_device *drm, void *data,
				 struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(drm);
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_perfmon_destroy *args = data;
	struct simgpu_perfmon *pm;

	if (args->pad)
		return -EINVAL;

	pm = xa_erase(&sfile->perfmons, args->id);
	if (!pm)
		return -ENOENT;

	mutex_lock(&sdev->perfmon_lock);
	simgpu_perfmon_put(perfmon_unset_global(sdev, pm));
	mutex_unlock(&sdev->perfmon_lock);
	simgpu_perfmon_put(pm);

	return 0;
}

/* The values of jobs 1 to *seqno, consistently */
static void perfmon_read(struct simgpu_perfmon *pm, u64 *values, u64 *seqno)
{
	unsigned long flags;

	spin_lock_irqsave(&pm->lock, flags);
	memcpy(values, pm->values, sizeof(pm->values));
	*seqno = pm->added;
	spin_unlock_irqrestore(&pm->lock, flags);
}

static bool perfmon_added(struct simgpu_perfmon *pm, u64 target)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&pm->lock, flags);
	ret = pm->added >= target;
	spin_unlock_irqrestore(&pm->lock, flags);

	return ret;
}

/* Wait until jobs 1 to @target are added, up to CLOCK_MONOTONIC @timeout_ns */
static int perfmon_wait(struct simgpu_perfmon *pm, u64 target, s64 timeout_ns)
{
	s64 now = ktime_get_ns();
	long ret;

	if (perfmon_added(pm, target))
		return 0;
	if (timeout_ns <= now)
		return -ETIME;

	ret = wait_event_interruptible_hrtimeout(pm->wq,
						 perfmon_added(pm, target),
						 ns_to_ktime(timeout_ns - now));
	/* -ERESTARTSYS restarts the call: its timeout is absolute */
	return ret;
}

/**
 * simgpu_ioctl_perfmon_get_values - DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_perfmon_get_values
 * @file: the client
 *
 * Return: 0, -EINVAL for a bad argument, -ENOENT for an unknown id, -ETIME
 * when the wait timed out, -ERESTARTSYS when a signal interrupted it, -EFAULT.
 */
int simgpu_ioctl_perfmon_get_values(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_perfmon_get_values *args = data;
	u64 values[SIMGPU_PERF_NUM_SLOTS];
	struct simgpu_perfmon *pm;
	unsigned long flags;
	u64 seqno, target;
	int ret = 0;

	if (args->pad || args->flags & ~DRM_SIMGPU_PERFMON_WAIT ||
	    (!(args->flags & DRM_SIMGPU_PERFMON_WAIT) && args->timeout_ns))
		return -EINVAL;

	pm = perfmon_lookup(sfile, args->id);
	if (!pm)
		return -ENOENT;
	if (args->num_values != pm->num_counters) {
		ret = -EINVAL;
		goto out;
	}

	if (args->flags & DRM_SIMGPU_PERFMON_WAIT) {
		spin_lock_irqsave(&pm->lock, flags);
		target = pm->submitted;
		spin_unlock_irqrestore(&pm->lock, flags);
		ret = perfmon_wait(pm, target, args->timeout_ns);
		if (ret)
			goto out;
	}

	perfmon_read(pm, values, &seqno);
	if (copy_to_user(u64_to_user_ptr(args->values), values,
			 pm->num_counters * sizeof(values[0]))) {
		ret = -EFAULT;
		goto out;
	}
	args->seqno = seqno;

out:
	simgpu_perfmon_put(pm);
	return ret;
}

/**
 * simgpu_ioctl_perfmon_set_global - DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_perfmon_set_global
 * @file: the client
 *
 * Return: 0, -EINVAL for a bad argument, -EACCES if the caller may not
 * observe all work (simgpu_observation_device_wide_allowed()), -ENOENT
 * for an unknown id, -EBUSY when jobs with a per-job perfmon are in flight
 * or another perfmon is the device-wide one, or when clearing, if none of
 * the file's perfmons is.
 */
int simgpu_ioctl_perfmon_set_global(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(drm);
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_perfmon_set_global *args = data;
	struct simgpu_perfmon *pm, *old = NULL;
	int ret = 0;

	if (args->flags & ~DRM_SIMGPU_PERFMON_CLEAR_GLOBAL)
		return -EINVAL;
	if (args->flags & DRM_SIMGPU_PERFMON_CLEAR_GLOBAL && args->id)
		return -EINVAL;
	if (!simgpu_observation_device_wide_allowed())
		return -EACCES;

	if (args->flags & DRM_SIMGPU_PERFMON_CLEAR_GLOBAL) {
		mutex_lock(&sdev->perfmon_lock);
		pm = sdev->global_perfmon;
		if (pm && pm->owner == sfile)
			old = perfmon_unset_global(sdev, pm);
		else
			ret = -EBUSY;
		mutex_unlock(&sdev->perfmon_lock);
		simgpu_perfmon_put(old);
		return ret;
	}

	pm = perfmon_lookup(sfile, args->id);
	if (!pm)
		return -ENOENT;

	mutex_lock(&sdev->perfmon_lock);
	/*
	 * Destroy and file close erase the id before they take the lock to
	 * unset the device-wide perfmon: one erased meanwhile must not be set.
	 */
	if (xa_load(&sfile->perfmons, args->id) != pm) {
		old = pm;
		ret = -ENOENT;
	} else if (sdev->global_perfmon == pm) {
		old = pm;	/* already: drop the lookup's reference */
	} else if (sdev->global_perfmon || atomic_read(&sdev->perfmon_jobs)) {
		old = pm;
		ret = -EBUSY;
	} else {
		/* The lookup's reference becomes the device's */
		WRITE_ONCE(sdev->global_perfmon, pm);
	}
	mutex_unlock(&sdev->perfmon_lock);
	simgpu_perfmon_put(old);

	return ret;
}
