// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/bitmap.h>
#include <linux/dma-fence-chain.h>
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
#include "simgpu_engine.h"
#include "simgpu_fence.h"
#include "simgpu_gem.h"
#include "simgpu_job.h"
#include "simgpu_perfmon.h"
#include "simgpu_queue.h"
#include "simgpu_trace.h"

/**
 * DOC: simgpu jobs
 *
 * DRM_IOCTL_SIMGPU_SUBMIT validates the uAPI commands, holds the pages
 * they write (only those: a job writing one word of a huge buffer
 * allocates one page of it) and translates them into a hardware batch (with
 * physical addresses) before the job is armed, so that nothing can fail or
 * allocate once it is pushed: the hardware fence and the out fence are
 * preallocated too, and so are the fence chain nodes of the timeline points
 * the job signals. The job's out fence (see "simgpu job fences"), never its
 * scheduler fences, goes into the reservation object of every buffer it
 * writes or names in bo_handles, and into its out-syncs: it replaces the
 * fence of a binary syncobj and is added as a new point to a timeline
 * syncobj.
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

	for (i = 0; i < job->num_pages; i++) {
		if (!job->pages[i])
			continue;
		/*
		 * shmem pages the device wrote must be dirtied by whoever
		 * wrote them. Not earlier: writeback could clean a page
		 * between the dirtying and the device's store.
		 */
		if (test_bit(i, job->pages_written))
			set_page_dirty_lock(job->pages[i]);
		put_page(job->pages[i]);
	}
	kvfree(job->pages);
	bitmap_free(job->pages_written);
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
	simgpu_perfmon_job_fini(job);
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
	simgpu_queue_defer(&job->free_work);
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

/* Hardware words of a COPY piece: opcode, src lo, hi, dst lo, hi, bytes */
#define JOB_COPY_WORDS		6
/* A user COPY becomes at most this many pieces, see copy_piece() */
#define JOB_COPY_MAX_PIECES	3
/* The kernel's SAMPLE at the end of a job with a perfmon */
#define JOB_SAMPLE_WORDS	4
/* The longest batch: every command a COPY split in three, SAMPLE, END */
#define SIMGPU_JOB_MAX_WORDS	(SIMGPU_MAX_CMDS * JOB_COPY_WORDS * \
				 JOB_COPY_MAX_PIECES + JOB_SAMPLE_WORDS + 1)

/* A byte range of its buffer that a command accesses */
struct cmd_range {
	u64 offset;
	u32 bytes;
};

/* The length of a COPY, once job_check_cmds() bounded it */
static u32 copy_bytes(const struct drm_simgpu_cmd *cmd)
{
	return cmd->value;
}

/*
 * The ranges of its buffer a command accesses, in the order their pages
 * are held in &simgpu_job.pages. Returns how many (0 to 2).
 */
static unsigned int cmd_ranges(const struct drm_simgpu_cmd *cmd,
			       struct cmd_range *r)
{
	switch (cmd->op) {
	case DRM_SIMGPU_CMD_WRITE:
		r[0].offset = cmd->offset;
		r[0].bytes = sizeof(u32);
		return 1;
	case DRM_SIMGPU_CMD_SAMPLE:
		r[0].offset = cmd->offset;
		r[0].bytes = SIMGPU_REPORT_SIZE;
		return 1;
	case DRM_SIMGPU_CMD_COPY:
		r[0].offset = cmd->src_offset;
		r[0].bytes = copy_bytes(cmd);
		r[1].offset = cmd->offset;
		r[1].bytes = copy_bytes(cmd);
		return 2;
	default:
		return 0;
	}
}

/* Number of pages a non-empty range touches */
static unsigned int range_pages(const struct cmd_range *r)
{
	return ((r->offset + r->bytes - 1) >> PAGE_SHIFT) -
	       (r->offset >> PAGE_SHIFT) + 1;
}

/*
 * The model's COPY may not cross a 4 KiB boundary of its source or
 * destination: the length of the next piece of a user COPY, up to the
 * nearer of the two boundaries. Pages are at least 4 KiB and aligned, so
 * a piece lies within one page of each side, and as both ranges are at
 * most 4 KiB long a COPY has at most three pieces.
 */
static u32 copy_piece(u64 src, u64 dst, u32 bytes)
{
	u32 len = min_t(u64, bytes, SZ_4K - (src & (SZ_4K - 1)));

	return min_t(u64, len, SZ_4K - (dst & (SZ_4K - 1)));
}

static unsigned int copy_num_pieces(u64 src, u64 dst, u32 bytes)
{
	unsigned int n = 0;

	while (bytes) {
		u32 len = copy_piece(src, dst, bytes);

		src += len;
		dst += len;
		bytes -= len;
		n++;
	}

	return n;
}

/*
 * Look up the buffer of a WRITE, COPY or SAMPLE, check that the ranges
 * the command accesses lie inside it, and add it to the job's buffers.
 * Counts the pages those ranges touch into @num_pages.
 */
static int job_cmd_bo(struct simgpu_job *job, struct drm_file *file,
		      const struct drm_simgpu_cmd *cmd,
		      struct drm_gem_object **objp, unsigned int *num_pages)
{
	struct cmd_range r[2];
	struct drm_gem_object *obj;
	unsigned int n, k;

	obj = drm_gem_object_lookup(file, cmd->handle);
	if (!obj)
		return -ENOENT;
	if (!simgpu_gem_is_native(obj))
		goto err;

	n = cmd_ranges(cmd, r);
	for (k = 0; k < n; k++) {
		if (r[k].bytes > obj->size ||
		    r[k].offset > obj->size - r[k].bytes)
			goto err;
	}
	/* The source and destination of a COPY may not overlap */
	if (n == 2 && r[0].offset < r[1].offset + r[1].bytes &&
	    r[1].offset < r[0].offset + r[0].bytes)
		goto err;

	for (k = 0; k < n; k++)
		*num_pages += range_pages(&r[k]);
	*objp = obj;
	job_add_bo(job, obj);
	return 0;

err:
	drm_gem_object_put(obj);
	return -EINVAL;
}

/*
 * Check the commands and look up the buffers they access, into @objs (one
 * entry per command, referenced through the job's buffer list). Sets
 * @num_pages to the number of pages they touch and @num_words to the
 * length of their hardware batch, END not included.
 * Buffers are native: purged is checked at pin time.
 */
static int job_check_cmds(struct simgpu_job *job, struct drm_file *file,
			  const struct drm_simgpu_cmd *cmds, u32 num_cmds,
			  struct drm_gem_object **objs,
			  unsigned int *num_pages, unsigned int *num_words)
{
	u32 i;
	int ret;

	*num_pages = 0;
	*num_words = 0;
	for (i = 0; i < num_cmds; i++) {
		const struct drm_simgpu_cmd *cmd = &cmds[i];

		/* Only a COPY has a source */
		if (cmd->op != DRM_SIMGPU_CMD_COPY && cmd->src_offset)
			return -EINVAL;

		switch (cmd->op) {
		case DRM_SIMGPU_CMD_BUSY:
		case DRM_SIMGPU_CMD_IDLE:
			if (cmd->handle || cmd->offset ||
			    cmd->value > NSEC_PER_SEC)
				return -EINVAL;
			*num_words += 3;
			break;
		case DRM_SIMGPU_CMD_HANG:
			if (cmd->handle || cmd->offset || cmd->value)
				return -EINVAL;
			*num_words += 1;
			break;
		case DRM_SIMGPU_CMD_WRITE:
			if (cmd->offset & 3 || upper_32_bits(cmd->value))
				return -EINVAL;
			*num_words += 4;
			break;
		case DRM_SIMGPU_CMD_COPY:
			if ((cmd->src_offset | cmd->value | cmd->offset) & 3 ||
			    cmd->value < 4 ||
			    cmd->value > DRM_SIMGPU_COPY_MAX_BYTES)
				return -EINVAL;
			*num_words += JOB_COPY_WORDS *
				      copy_num_pieces(cmd->src_offset,
						      cmd->offset,
						      copy_bytes(cmd));
			break;
		case DRM_SIMGPU_CMD_SAMPLE:
			if (cmd->offset & (SIMGPU_REPORT_SIZE - 1) ||
			    upper_32_bits(cmd->value))
				return -EINVAL;
			*num_words += 4;
			break;
		default:
			return -EINVAL;
		}

		if (cmd->op == DRM_SIMGPU_CMD_WRITE ||
		    cmd->op == DRM_SIMGPU_CMD_COPY ||
		    cmd->op == DRM_SIMGPU_CMD_SAMPLE) {
			ret = job_cmd_bo(job, file, cmd, &objs[i], num_pages);
			if (ret)
				return ret;
		}
	}

	return 0;
}

static void batch_emit_addr(__le32 *batch, unsigned int *w, phys_addr_t addr)
{
	batch[(*w)++] = cpu_to_le32(lower_32_bits(addr));
	batch[(*w)++] = cpu_to_le32(upper_32_bits(addr));
}

/* The physical address of byte @offset of a range whose pages are @pages */
static phys_addr_t range_phys(struct page **pages, u64 first, u64 offset)
{
	return page_to_phys(pages[(offset >> PAGE_SHIFT) -
				  (first >> PAGE_SHIFT)]) +
	       (offset & ~PAGE_MASK);
}

/* Emit the pieces of a COPY whose pages start at @pages */
static void batch_emit_copy(__le32 *batch, unsigned int *w,
			    const struct drm_simgpu_cmd *cmd,
			    struct page **pages)
{
	struct cmd_range r[2];
	struct page **dst_pages;
	u64 src, dst;
	u32 bytes;

	cmd_ranges(cmd, r);
	dst_pages = pages + range_pages(&r[0]);
	src = r[0].offset;
	dst = r[1].offset;
	bytes = r[0].bytes;
	while (bytes) {
		u32 len = copy_piece(src, dst, bytes);

		batch[(*w)++] = cpu_to_le32(SIMGPU_CMD_COPY);
		batch_emit_addr(batch, w, range_phys(pages, r[0].offset, src));
		batch_emit_addr(batch, w,
				range_phys(dst_pages, r[1].offset, dst));
		batch[(*w)++] = cpu_to_le32(len);
		src += len;
		dst += len;
		bytes -= len;
	}
}

/**
 * simgpu_job_build_batch - translate checked commands into the job's batch
 * @job: the job, with its batch allocated (&simgpu_job.num_words long)
 *	and its @pages, the pages the commands access, held
 * @cmds: the commands, checked by job_check_cmds()
 * @num_cmds: number of entries at @cmds
 *
 * A COPY is split at the 4 KiB boundaries of its source and destination
 * into up to three hardware COPYs; a SAMPLE becomes one hardware SAMPLE.
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
	unsigned int w = 0, p = 0;
	struct cmd_range r[2];
	u32 i;

	KUNIT_STATIC_STUB_REDIRECT(simgpu_job_build_batch, job, cmds, num_cmds);

	for (i = 0; i < num_cmds; i++) {
		const struct drm_simgpu_cmd *cmd = &cmds[i];
		unsigned int n = cmd_ranges(cmd, r);
		struct page **pages = &job->pages[p];

		/* Referenced: the pages cannot go away */
		if (n)
			p += range_pages(&r[0]);
		if (n == 2)
			p += range_pages(&r[1]);

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
			batch[w++] = cpu_to_le32(SIMGPU_CMD_WRITE32);
			batch_emit_addr(batch, &w,
					range_phys(pages, r[0].offset,
						   cmd->offset));
			batch[w++] = cpu_to_le32(lower_32_bits(cmd->value));
			break;
		case DRM_SIMGPU_CMD_COPY:
			batch_emit_copy(batch, &w, cmd, pages);
			break;
		case DRM_SIMGPU_CMD_SAMPLE:
			batch[w++] = cpu_to_le32(SIMGPU_CMD_SAMPLE);
			batch_emit_addr(batch, &w,
					range_phys(pages, r[0].offset,
						   cmd->offset));
			batch[w++] = cpu_to_le32(lower_32_bits(cmd->value));
			break;
		}
	}
	/* The job's counts, for its perfmon; no sequence number taken */
	if (job->perfmon) {
		batch[w++] = cpu_to_le32(SIMGPU_CMD_SAMPLE |
					 SIMGPU_SAMPLE_NO_SEQ);
		batch_emit_addr(batch, &w, virt_to_phys(job->perfmon_report));
		batch[w++] = 0;
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

/*
 * Copy an array of syncs from userspace and check their types and points.
 * Returns NULL for none, or an error pointer.
 */
static struct drm_simgpu_sync *syncs_copy(u64 ptr, u32 count)
{
	struct drm_simgpu_sync *syncs;
	u32 i;

	if (!count)
		return NULL;

	syncs = vmemdup_array_user(u64_to_user_ptr(ptr), count,
				   sizeof(*syncs));
	if (IS_ERR(syncs))
		return syncs;

	for (i = 0; i < count; i++) {
		bool timeline;

		switch (syncs[i].flags) {
		case DRM_SIMGPU_SYNC_TYPE_SYNCOBJ:
			timeline = false;
			break;
		case DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ:
			timeline = true;
			break;
		default:
			goto err;
		}
		/* A point is never 0, a binary syncobj has none */
		if (timeline != !!syncs[i].timeline_value)
			goto err;
	}

	return syncs;

err:
	kvfree(syncs);
	return ERR_PTR(-EINVAL);
}

/*
 * Make the job wait for its in-syncs: the fence of a binary syncobj, or
 * that of the point of a timeline syncobj. A syncobj without a fence, or
 * a timeline without the point yet, is -EINVAL, as for
 * DRM_IOCTL_SYNCOBJ_WAIT without WAIT_FOR_SUBMIT.
 */
static int job_add_in_syncs(struct simgpu_job *job, struct drm_file *file,
			    const struct drm_simgpu_sync *syncs, u32 count)
{
	u32 i;
	int ret;

	for (i = 0; i < count; i++) {
		const struct drm_simgpu_sync *sync = &syncs[i];

		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   sync->handle,
							   sync->timeline_value);
		if (ret)
			return ret;
	}

	return 0;
}

/**
 * struct job_out_sync - an out-sync of a submit, ready to take the fence
 * @syncobj: the syncobj, referenced
 * @chain: for a timeline point, the node that adds it, allocated before
 *	the job is pushed; NULL for a binary syncobj or once used
 * @point: the timeline point, 0 for a binary syncobj
 */
struct job_out_sync {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

static void out_syncs_put(struct job_out_sync *outs, u32 count)
{
	u32 i;

	if (!outs)
		return;
	for (i = 0; i < count; i++) {
		dma_fence_chain_free(outs[i].chain);
		if (outs[i].syncobj)
			drm_syncobj_put(outs[i].syncobj);
	}
	kvfree(outs);
}

/* Look up the out-syncs and allocate what signalling them takes */
static struct job_out_sync *out_syncs_get(struct drm_file *file,
					  const struct drm_simgpu_sync *syncs,
					  u32 count)
{
	struct job_out_sync *outs;
	u32 i;
	int ret;

	if (!count)
		return NULL;

	outs = kvcalloc(count, sizeof(*outs), GFP_KERNEL);
	if (!outs)
		return ERR_PTR(-ENOMEM);

	for (i = 0; i < count; i++) {
		outs[i].syncobj = drm_syncobj_find(file, syncs[i].handle);
		if (!outs[i].syncobj) {
			ret = -ENOENT;
			goto err;
		}
		outs[i].point = syncs[i].timeline_value;
		if (outs[i].point) {
			outs[i].chain = dma_fence_chain_alloc();
			if (!outs[i].chain) {
				ret = -ENOMEM;
				goto err;
			}
		}
	}

	return outs;

err:
	out_syncs_put(outs, count);
	return ERR_PTR(ret);
}

/* Give the job's fence to its out-syncs; cannot fail */
static void out_syncs_signal(struct job_out_sync *outs, u32 count,
			     struct dma_fence *fence)
{
	u32 i;

	for (i = 0; i < count; i++) {
		if (outs[i].chain) {
			drm_syncobj_add_point(outs[i].syncobj, outs[i].chain,
					      fence, outs[i].point);
			outs[i].chain = NULL;
		} else {
			drm_syncobj_replace_fence(outs[i].syncobj, fence);
		}
	}
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
 * Find (or allocate) the pages the commands access, into the job's
 * @pages in the order simgpu_job_build_batch() walks them: one at a time,
 * charged to the submitter's memory cgroup, never in highmem (the
 * mapping's gfp mask: the device takes physical addresses), and a fatal
 * signal stops the loop.
 */
static int job_get_pages(struct simgpu_job *job,
			 const struct drm_simgpu_cmd *cmds, u32 num_cmds,
			 struct drm_gem_object **objs)
{
	unsigned int p = 0;
	u32 i;

	for (i = 0; i < num_cmds; i++) {
		struct address_space *mapping;
		struct cmd_range r[2];
		unsigned int n, k, j;

		if (!objs[i])
			continue;
		mapping = objs[i]->filp->f_mapping;
		n = cmd_ranges(&cmds[i], r);
		for (k = 0; k < n; k++) {
			pgoff_t first = r[k].offset >> PAGE_SHIFT;
			/* Only a COPY's source (its first range) is read */
			bool written = cmds[i].op != DRM_SIMGPU_CMD_COPY || k;

			for (j = 0; j < range_pages(&r[k]); j++) {
				struct page *page;

				if (fatal_signal_pending(current))
					return -EINTR;
				page = shmem_read_mapping_page_gfp(mapping,
								   first + j,
								   mapping_gfp_mask(mapping));
				if (IS_ERR(page))
					return PTR_ERR(page);
				if (written)
					__set_bit(p, job->pages_written);
				job->pages[p++] = page;
				cond_resched();
			}
		}
	}

	return 0;
}

/* Everything that can fail, before the job is pushed */
static int job_prepare(struct simgpu_job *job, struct drm_file *file,
		       const struct drm_simgpu_submit *args,
		       const struct drm_simgpu_cmd *cmds)
{
	unsigned int num_written, num_pages, num_words, i;
	struct drm_gem_object **objs;
	int ret;

	BUILD_BUG_ON(SIMGPU_JOB_MAX_WORDS > SIMGPU_BATCH_MAX_WORDS);

	job->bos = kvcalloc(args->num_cmds + args->num_bo_handles,
			    sizeof(*job->bos), GFP_KERNEL_ACCOUNT);
	job->hw_fence = simgpu_fence_alloc();
	if (!job->bos || !job->hw_fence)
		return -ENOMEM;

	objs = kvcalloc(args->num_cmds, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;

	ret = job_check_cmds(job, file, cmds, args->num_cmds, objs,
			     &num_pages, &num_words);
	if (ret)
		goto out;

	/* Sized for this job: the longest batch is 18 KiB, most are tiny */
	job->num_words = num_words + (job->perfmon ? JOB_SAMPLE_WORDS : 0) + 1;
	job->batch = kmalloc_array(job->num_words, sizeof(*job->batch),
				   GFP_KERNEL_ACCOUNT);
	if (!job->batch) {
		ret = -ENOMEM;
		goto out;
	}

	if (num_pages) {
		job->pages = kvcalloc(num_pages, sizeof(*job->pages),
				      GFP_KERNEL_ACCOUNT);
		job->pages_written = bitmap_zalloc(num_pages,
						   GFP_KERNEL_ACCOUNT);
		if (!job->pages || !job->pages_written) {
			ret = -ENOMEM;
			goto out;
		}
		job->num_pages = num_pages;
	}

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
 * Returns: 0, -EINVAL for a bad argument or an in-sync without a fence,
 * -EINVAL, -EFAULT or -E2BIG for a bad extension chain, -ENOENT for an
 * unknown queue, buffer, syncobj or perfmon, -EBUSY for a perfmon while
 * the device-wide one is set, -ECANCELED for a banned queue, -EFAULT for a
 * bad user pointer, or another negative error code.
 */
int simgpu_ioctl_submit(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_submit *args = data;
	struct drm_simgpu_sync *in_syncs = NULL, *out_syncs = NULL;
	struct simgpu_out_fence *out_fence = NULL;
	struct job_out_sync *outs = NULL;
	struct drm_simgpu_cmd *cmds = NULL;
	struct ww_acquire_ctx ticket;
	struct dma_fence *fence;
	struct simgpu_queue *queue;
	struct simgpu_job *job;
	bool sched_init = false;
	unsigned int i;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	if (!args->num_cmds || args->num_cmds > SIMGPU_MAX_CMDS ||
	    args->num_bo_handles > DRM_SIMGPU_MAX_BO_HANDLES ||
	    args->num_in_syncs > DRM_SIMGPU_MAX_IN_SYNCS ||
	    args->num_out_syncs > DRM_SIMGPU_MAX_OUT_SYNCS)
		return -EINVAL;
	/* No extension is defined yet: any in the chain is -EINVAL */
	ret = simgpu_user_extensions(args->extensions, NULL, 0, NULL);
	if (ret)
		return ret;

	in_syncs = syncs_copy(args->in_syncs, args->num_in_syncs);
	if (IS_ERR(in_syncs))
		return PTR_ERR(in_syncs);
	out_syncs = syncs_copy(args->out_syncs, args->num_out_syncs);
	if (IS_ERR(out_syncs)) {
		kvfree(in_syncs);
		return PTR_ERR(out_syncs);
	}

	queue = simgpu_queue_lookup(sfile, args->exec_queue_id);
	if (!queue) {
		ret = -ENOENT;
		goto err_syncs;
	}
	if (simgpu_queue_banned(queue)) {
		simgpu_queue_put(queue);
		ret = -ECANCELED;
		goto err_syncs;
	}

	job = kzalloc_obj(*job, GFP_KERNEL_ACCOUNT);
	if (!job) {
		simgpu_queue_put(queue);
		ret = -ENOMEM;
		goto err_syncs;
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

	ret = simgpu_perfmon_job_init(job, sfile, args->perfmon_id);
	if (ret)
		goto err_job;

	ret = job_prepare(job, file, args, cmds);
	if (ret)
		goto err_job;

	out_fence = simgpu_out_fence_alloc();
	if (!out_fence) {
		ret = -ENOMEM;
		goto err_job;
	}

	ret = drm_sched_job_init(&job->base, &queue->entity, 1, queue,
				 file->client_id);
	if (ret)
		goto err_job;
	sched_init = true;

	ret = job_add_in_syncs(job, file, in_syncs, args->num_in_syncs);
	if (ret)
		goto err_job;

	outs = out_syncs_get(file, out_syncs, args->num_out_syncs);
	if (IS_ERR(outs)) {
		ret = PTR_ERR(outs);
		outs = NULL;
		goto err_job;
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
	simgpu_perfmon_job_queue(job);
	drm_sched_job_arm(&job->base);
	fence = simgpu_out_fence_init(out_fence, &job->base.s_fence->finished,
				      queue->engine->name);
	for (i = 0; i < job->num_bos; i++)
		dma_resv_add_fence(job->bos[i]->resv, fence,
				   DMA_RESV_USAGE_WRITE);
	drm_gem_unlock_reservations(job->bos, job->num_bos, &ticket);
	trace_simgpu_job_submit(job, file->client_id);
	/* The job can be done and freed as soon as it is pushed */
	drm_sched_entity_push_job(&job->base);
	/*
	 * Under the queue's lock, in the order of the jobs: two submits on
	 * the queue naming one out-syncobj install their fences in the order
	 * the fences signal, and a timeline's points in seqno order.
	 */
	out_syncs_signal(outs, args->num_out_syncs, fence);
	mutex_unlock(&queue->lock);

	out_syncs_put(outs, args->num_out_syncs);
	dma_fence_put(fence);
	kvfree(cmds);
	kvfree(out_syncs);
	kvfree(in_syncs);

	return 0;

err_job:
	kfree(out_fence);
	out_syncs_put(outs, args->num_out_syncs);
	if (sched_init)
		drm_sched_job_cleanup(&job->base);
	simgpu_job_free(job);
	kvfree(cmds);
err_syncs:
	kvfree(out_syncs);
	kvfree(in_syncs);
	return ret;
}
