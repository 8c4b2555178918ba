/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_JOB_H_
#define _SIMGPU_JOB_H_

#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct drm_device;
struct drm_file;
struct drm_gem_object;
struct simgpu_fence;
struct simgpu_perfmon;
struct simgpu_perfmon_entry;
struct simgpu_queue;

/**
 * struct simgpu_job - one submission to an exec queue
 * @base: the scheduler job
 * @queue: the exec queue, referenced by the job
 * @hw_fence: completion on the hardware, allocated at submit time
 * @hw_fence_armed: @hw_fence was initialised by run_job and is freed by
 *	dma_fence_put() rather than kfree()
 * @seqno: the hardware seqno, CTX_IMG_SEQNO once the job completed
 * @aborted: the job will never write @seqno: a reset aborted it or the
 *	hardware lost it; set under &simgpu_engine.lock before the job leaves
 *	the in-flight list
 * @batch: the hardware batch (SIMGPU_CMD_*, little endian words),
 *	physically contiguous; must live until the job completed or its engine
 *	was reset
 * @bos: buffers the job writes (the first @num_pinned, pinned with
 *	simgpu_bo_job_pin()) and those named in bo_handles, each referenced
 *	once
 * @num_bos: number of entries in @bos
 * @num_pinned: number of leading entries of @bos that are pinned
 * @pages: the pages the commands access, referenced, in command order:
 *	for a WRITE the page it writes, for a SAMPLE the page of its report,
 *	for a COPY the one or two pages of its source then those of its
 *	destination; none for other commands
 * @num_pages: number of entries in @pages
 * @pages_written: bit i set if the job writes @pages[i]: marked dirty when
 *	the job is freed, so that reclaim does not drop what the device wrote
 * @num_words: length of @batch in words, END included
 * @perfmon: the perfmon the job counts into (its own or the device-wide
 *	one), referenced, or NULL
 * @perfmon_report: with @perfmon, the 64-byte report the kernel's SAMPLE
 *	at the end of the batch writes the job's counts into
 * @perfmon_entry: with @perfmon, the job's place in its sequence; handed
 *	to the perfmon (set to NULL) when the job retires
 * @perfmon_queued: the job was numbered in @perfmon
 * @perfmon_busy: the job is counted in &simgpu_device.perfmon_jobs
 * @link: entry in &simgpu_engine.inflight, protected by its lock
 * @started: @start_ts is set; protected by &simgpu_engine.lock
 * @start_ts: RING_TIMESTAMP when the job got to the head of
 *	&simgpu_engine.inflight, the latest it can have started at, for the
 *	run-time limit; protected by &simgpu_engine.lock
 * @free_work: frees the job once the scheduler is done with it, see
 *	simgpu_job_release()
 */
struct simgpu_job {
	struct drm_sched_job base;
	struct simgpu_queue *queue;
	struct simgpu_fence *hw_fence;
	bool hw_fence_armed;
	u32 seqno;
	bool aborted;
	__le32 *batch;
	struct drm_gem_object **bos;
	unsigned int num_bos;
	unsigned int num_pinned;
	struct page **pages;
	unsigned int num_pages;
	unsigned long *pages_written;
	unsigned int num_words;
	struct simgpu_perfmon *perfmon;
	__le64 *perfmon_report;
	struct simgpu_perfmon_entry *perfmon_entry;
	bool perfmon_queued;
	bool perfmon_busy;
	struct list_head link;
	bool started;
	u64 start_ts;
	struct work_struct free_work;
};

static inline struct simgpu_job *to_simgpu_job(struct drm_sched_job *job)
{
	return container_of(job, struct simgpu_job, base);
}

void simgpu_job_free(struct simgpu_job *job);
void simgpu_job_release(struct simgpu_job *job);

int simgpu_ioctl_submit(struct drm_device *drm, void *data,
			struct drm_file *file);

#if IS_ENABLED(CONFIG_KUNIT)
struct drm_simgpu_cmd;
unsigned int simgpu_job_build_batch(struct simgpu_job *job,
				    const struct drm_simgpu_cmd *cmds,
				    u32 num_cmds);
#endif

#endif /* _SIMGPU_JOB_H_ */
