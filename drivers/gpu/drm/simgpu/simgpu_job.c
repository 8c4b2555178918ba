// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 The simgpu authors
 */

#include <linux/dma-resv.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/ww_mutex.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include "simgpu_drv.h"
#include "simgpu_fence.h"
#include "simgpu_gem.h"
#include "simgpu_job.h"
#include "simgpu_queue.h"
#include "simgpu_trace.h"

/**
 * DOC: simgpu jobs
 *
 * DRM_IOCTL_SIMGPU_SUBMIT validates the uAPI commands, holds the pages
 * they write (only those: a job writing one word of a huge buffer
 * allocates one page of it) and translates them into a hardware batch (with
 * physical addresses) before the job is armed, so that nothing can fail or
 * allocate once it is pushed: the hardware fence is preallocated too. The
 * job's finished fence goes into the reservation object of every buffer
 * it writes or names in bo_handles, and into the out syncobj.
 */

/**
 * simgpu_job_free - free a job and drop what it references
 * @job: the job, either never pushed or done with (free_job)
 *
 * The caller ran drm_sched_job_cleanup() if drm_sched_job_init() succeeded.
 */
void simgpu_job_free(struct simgpu_job *job)
{
	unsigned int i;

	for (i = 0; i < job->num_pages; i++)
		if (job->pages[i])
			put_page(job->pages[i]);
	kvfree(job->pages);
	for (i = 0; i < job->num_pinned; i++)
		simgpu_bo_job_unpin(job->bos[i]);
	for (i = 0; i < job->num_bos; i++)
		drm_gem_object_put(job->bos[i]);
	kvfree(job->bos);
	if (job->hw_fence_armed)
		dma_fence_put(&job->hw_fence->base);
	else
		kfree(job->hw_fence);
	kfree(job->batch);
	if (job->queue)
		simgpu_queue_put(job->queue);
	kfree(job);
}

static void job_free_work(struct work_struct *work)
{
	simgpu_job_free(container_of(work, struct simgpu_job, free_work));
}

/**
 * simgpu_job_release - free a job the scheduler is done with
 * @job: the job, after drm_sched_job_cleanup()
 *
 * Called from &drm_sched_backend_ops.free_job, on the scheduler's ordered
 * workqueue, which also runs run_job(). Unpinning the job's buffers takes
 * their reservation locks, and a thread may hold one of those while it
 * waits for a fence of a later job of the same scheduler: had the unpin
 * been done here, that job's run_job() would wait behind it for ever. So
 * the job is freed by a work item on the exec queues' workqueue, which
 * module exit waits for (the job holds a reference to its queue).
 */
void simgpu_job_release(struct simgpu_job *job)
{
	INIT_WORK(&job->free_work, job_free_work);
	simgpu_queue_queue_work(&job->free_work);
}

/* Add @obj to the job's buffers unless it is there; consumes the reference */
static void job_add_bo(struct simgpu_job *job, struct drm_gem_object *obj)
{
	unsigned int i;

	for (i = 0; i < job->num_bos; i++) {
		if (job->bos[i] == obj) {
			drm_gem_object_put(obj);
			return;
		}
	}
	job->bos[job->num_bos++] = obj;
}

/*
 * Check the commands and look up the buffers they write, into @objs (one
 * entry per command, referenced through the job's buffer list).
 * Buffers are native: purged is checked at pin time.
 */
static int job_check_cmds(struct simgpu_job *job, struct drm_file *file,
			  const struct drm_simgpu_cmd *cmds, u32 num_cmds,
			  struct drm_gem_object **objs)
{
	u32 i;

	for (i = 0; i < num_cmds; i++) {
		const struct drm_simgpu_cmd *cmd = &cmds[i];
		struct drm_gem_object *obj;

		switch (cmd->op) {
		case DRM_SIMGPU_CMD_BUSY:
		case DRM_SIMGPU_CMD_IDLE:
			if (cmd->handle || cmd->offset ||
			    cmd->value > NSEC_PER_SEC)
				return -EINVAL;
			break;
		case DRM_SIMGPU_CMD_HANG:
			if (cmd->handle || cmd->offset || cmd->value)
				return -EINVAL;
			break;
		case DRM_SIMGPU_CMD_WRITE:
			if (cmd->offset & 3 || upper_32_bits(cmd->value))
				return -EINVAL;
			obj = drm_gem_object_lookup(file, cmd->handle);
			if (!obj)
				return -ENOENT;
			if (!simgpu_gem_is_native(obj) ||
			    cmd->offset > obj->size - sizeof(u32)) {
				drm_gem_object_put(obj);
				return -EINVAL;
			}
			objs[i] = obj;
			job_add_bo(job, obj);
			break;
		default:
			return -EINVAL;
		}
	}

	return 0;
}

/**
 * simgpu_job_build_batch - translate checked commands into the job's batch
 * @job: the job, with its batch allocated
 * @cmds: the commands, checked by job_check_cmds()
 * @num_cmds: number of entries at @cmds, and at the job's @pages, which
 *	hold the page each WRITE command writes
 *
 * KUnit tests replace it with a static stub to hand the hardware a
 * malformed batch, which userspace cannot.
 *
 * Return: the number of words written, END included.
 */
VISIBLE_IF_KUNIT unsigned int simgpu_job_build_batch(struct simgpu_job *job,
						     const struct drm_simgpu_cmd *cmds,
						     u32 num_cmds)
{
	__le32 *batch = job->batch;
	unsigned int w = 0;
	u32 i;

	KUNIT_STATIC_STUB_REDIRECT(simgpu_job_build_batch, job, cmds, num_cmds);

	for (i = 0; i < num_cmds; i++) {
		const struct drm_simgpu_cmd *cmd = &cmds[i];
		phys_addr_t addr;

		switch (cmd->op) {
		case DRM_SIMGPU_CMD_BUSY:
		case DRM_SIMGPU_CMD_IDLE:
			batch[w++] = cpu_to_le32(cmd->op == DRM_SIMGPU_CMD_BUSY ?
						 SIMGPU_CMD_BUSY :
						 SIMGPU_CMD_IDLE);
			batch[w++] = cpu_to_le32(lower_32_bits(cmd->value));
			batch[w++] = cpu_to_le32(upper_32_bits(cmd->value));
			break;
		case DRM_SIMGPU_CMD_HANG:
			batch[w++] = cpu_to_le32(SIMGPU_CMD_HANG);
			break;
		case DRM_SIMGPU_CMD_WRITE:
			/* Referenced: the page cannot go away */
			addr = page_to_phys(job->pages[i]) +
			       offset_in_page(cmd->offset);
			batch[w++] = cpu_to_le32(SIMGPU_CMD_WRITE32);
			batch[w++] = cpu_to_le32(lower_32_bits(addr));
			batch[w++] = cpu_to_le32(upper_32_bits(addr));
			batch[w++] = cpu_to_le32(lower_32_bits(cmd->value));
			break;
		}
	}
	batch[w++] = cpu_to_le32(SIMGPU_CMD_END);

	return w;
}

static int job_add_bo_handles(struct simgpu_job *job, struct drm_file *file,
			      u64 ptr, u32 count)
{
	u32 *handles;
	u32 i;
	int ret = 0;

	if (!count)
		return 0;

	handles = vmemdup_array_user(u64_to_user_ptr(ptr), count,
				     sizeof(*handles));
	if (IS_ERR(handles))
		return PTR_ERR(handles);

	for (i = 0; i < count; i++) {
		struct drm_gem_object *obj;

		obj = drm_gem_object_lookup(file, handles[i]);
		if (!obj) {
			ret = -ENOENT;
			break;
		}
		job_add_bo(job, obj);
	}
	kvfree(handles);
	return ret;
}

static int job_add_in_syncs(struct simgpu_job *job, struct drm_file *file,
			    u64 ptr, u32 count)
{
	u32 *handles;
	u32 i;
	int ret = 0;

	if (!count)
		return 0;

	handles = vmemdup_array_user(u64_to_user_ptr(ptr), count,
				     sizeof(*handles));
	if (IS_ERR(handles))
		return PTR_ERR(handles);

	for (i = 0; i < count; i++) {
		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   handles[i], 0);
		if (ret)
			break;
	}
	kvfree(handles);
	return ret;
}

/* Lock the buffers, reserve a fence slot and wait for their users */
static int job_lock_bos(struct simgpu_job *job, struct ww_acquire_ctx *ticket)
{
	unsigned int i;
	int ret;

	ret = drm_gem_lock_reservations(job->bos, job->num_bos, ticket);
	if (ret)
		return ret;

	for (i = 0; i < job->num_bos; i++) {
		ret = dma_resv_reserve_fences(job->bos[i]->resv, 1);
		if (ret)
			goto err;
		ret = drm_sched_job_add_implicit_dependencies(&job->base,
							      job->bos[i],
							      true);
		if (ret)
			goto err;
	}

	return 0;

err:
	drm_gem_unlock_reservations(job->bos, job->num_bos, ticket);
	return ret;
}

/*
 * Find (or allocate) the page each WRITE command writes: one at a time,
 * charged to the submitter's memory cgroup, never in highmem (the
 * mapping's gfp mask: the device takes physical addresses), and a fatal
 * signal stops the loop.
 */
static int job_get_pages(struct simgpu_job *job,
			 const struct drm_simgpu_cmd *cmds, u32 num_cmds,
			 struct drm_gem_object **objs)
{
	u32 i;

	for (i = 0; i < num_cmds; i++) {
		struct address_space *mapping;
		struct page *page;

		if (!objs[i])
			continue;
		if (fatal_signal_pending(current))
			return -EINTR;
		mapping = objs[i]->filp->f_mapping;
		page = shmem_read_mapping_page_gfp(mapping,
						   cmds[i].offset >> PAGE_SHIFT,
						   mapping_gfp_mask(mapping));
		if (IS_ERR(page))
			return PTR_ERR(page);
		job->pages[i] = page;
		cond_resched();
	}

	return 0;
}

/* Everything that can fail, before the job is pushed */
static int job_prepare(struct simgpu_job *job, struct drm_file *file,
		       const struct drm_simgpu_submit *args,
		       const struct drm_simgpu_cmd *cmds)
{
	struct drm_gem_object **objs;
	unsigned int num_written, i;
	int ret;

	/* The batch fits: SIMGPU_MAX_CMDS is derived from its size */
	BUILD_BUG_ON(SIMGPU_MAX_CMDS * 4 + 1 > SIMGPU_BATCH_MAX_WORDS);

	job->bos = kvcalloc(args->num_cmds + args->num_bo_handles,
			    sizeof(*job->bos), GFP_KERNEL_ACCOUNT);
	job->batch = kmalloc_array(SIMGPU_BATCH_MAX_WORDS, sizeof(*job->batch),
				   GFP_KERNEL_ACCOUNT);
	job->hw_fence = simgpu_fence_alloc();
	if (!job->bos || !job->batch || !job->hw_fence)
		return -ENOMEM;

	job->pages = kvcalloc(args->num_cmds, sizeof(*job->pages),
			      GFP_KERNEL_ACCOUNT);
	if (!job->pages)
		return -ENOMEM;
	job->num_pages = args->num_cmds;

	objs = kvcalloc(args->num_cmds, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;

	ret = job_check_cmds(job, file, cmds, args->num_cmds, objs);
	if (ret)
		goto out;

	num_written = job->num_bos;
	for (i = 0; i < num_written; i++) {
		ret = simgpu_bo_job_pin(job->bos[i]);
		if (ret)
			goto out;
		job->num_pinned++;
	}

	ret = job_get_pages(job, cmds, args->num_cmds, objs);
	if (ret)
		goto out;

	simgpu_job_build_batch(job, cmds, args->num_cmds);

	ret = job_add_bo_handles(job, file, args->bo_handles,
				 args->num_bo_handles);
out:
	kvfree(objs);
	return ret;
}

/**
 * simgpu_ioctl_submit - DRM_IOCTL_SIMGPU_SUBMIT
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_submit
 * @file: the client
 *
 * Returns: 0, -EINVAL for a bad argument, -ENOENT for an unknown queue,
 * buffer or syncobj, -ECANCELED for a banned queue, -EFAULT for a bad user
 * pointer, or another negative error code.
 */
int simgpu_ioctl_submit(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_submit *args = data;
	struct drm_syncobj *out_sync = NULL;
	struct drm_simgpu_cmd *cmds = NULL;
	struct ww_acquire_ctx ticket;
	struct dma_fence *finished;
	struct simgpu_queue *queue;
	struct simgpu_job *job;
	bool sched_init = false;
	unsigned int i;
	int ret;

	if (args->flags)
		return -EINVAL;
	if (!args->num_cmds || args->num_cmds > SIMGPU_MAX_CMDS ||
	    args->num_bo_handles > DRM_SIMGPU_MAX_BO_HANDLES ||
	    args->num_in_syncs > DRM_SIMGPU_MAX_IN_SYNCS)
		return -EINVAL;

	queue = simgpu_queue_lookup(sfile, args->exec_queue_id);
	if (!queue)
		return -ENOENT;
	if (simgpu_queue_banned(queue)) {
		simgpu_queue_put(queue);
		return -ECANCELED;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job) {
		simgpu_queue_put(queue);
		return -ENOMEM;
	}
	job->queue = queue;
	INIT_LIST_HEAD(&job->link);

	cmds = kvmalloc_array(args->num_cmds, sizeof(*cmds), GFP_KERNEL);
	if (!cmds) {
		ret = -ENOMEM;
		goto err_job;
	}
	if (copy_from_user(cmds, u64_to_user_ptr(args->cmds),
			   args->num_cmds * sizeof(*cmds))) {
		ret = -EFAULT;
		goto err_job;
	}

	ret = job_prepare(job, file, args, cmds);
	if (ret)
		goto err_job;

	ret = drm_sched_job_init(&job->base, &queue->entity, 1, queue,
				 file->client_id);
	if (ret)
		goto err_job;
	sched_init = true;

	ret = job_add_in_syncs(job, file, args->in_syncs, args->num_in_syncs);
	if (ret)
		goto err_job;

	if (args->out_sync) {
		out_sync = drm_syncobj_find(file, args->out_sync);
		if (!out_sync) {
			ret = -ENOENT;
			goto err_job;
		}
	}

	ret = job_lock_bos(job, &ticket);
	if (ret)
		goto err_job;

	mutex_lock(&queue->lock);
	if (queue->destroyed || simgpu_queue_banned(queue)) {
		ret = queue->destroyed ? -ENOENT : -ECANCELED;
		mutex_unlock(&queue->lock);
		drm_gem_unlock_reservations(job->bos, job->num_bos, &ticket);
		goto err_job;
	}
	job->seqno = ++queue->seqno;
	drm_sched_job_arm(&job->base);
	finished = dma_fence_get(&job->base.s_fence->finished);
	for (i = 0; i < job->num_bos; i++)
		dma_resv_add_fence(job->bos[i]->resv, finished,
				   DMA_RESV_USAGE_WRITE);
	drm_gem_unlock_reservations(job->bos, job->num_bos, &ticket);
	trace_simgpu_job_submit(job, file->client_id);
	/* The job can be done and freed as soon as it is pushed */
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&queue->lock);

	if (out_sync) {
		drm_syncobj_replace_fence(out_sync, finished);
		drm_syncobj_put(out_sync);
	}
	dma_fence_put(finished);
	kvfree(cmds);

	return 0;

err_job:
	if (out_sync)
		drm_syncobj_put(out_sync);
	if (sched_init)
		drm_sched_job_cleanup(&job->base);
	simgpu_job_free(job);
	kvfree(cmds);
	return ret;
}
