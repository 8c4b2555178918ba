/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_QUEUE_H_
#define _SIMGPU_QUEUE_H_

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

struct drm_device;
struct drm_file;
struct simgpu_ctx;
struct simgpu_device;
struct simgpu_engine;
struct simgpu_file;

/**
 * struct simgpu_queue - an exec queue: in-order jobs on one engine
 * @ref: held by the file's queue xarray and by each job
 * @sdev: the device, referenced (drm_dev_get()) until the queue is freed
 * @engine: the engine the queue's jobs run on
 * @ctx: the hardware context whose image the jobs run in
 * @sched_list: the engine's scheduler, for @entity
 * @entity: feeds the jobs to @engine's scheduler
 * @lock: serialises job arm, push and the install of the jobs' fences in
 *	their out-syncobjs, so that seqnos reach the scheduler and the
 *	syncobjs in order; protects @seqno
 * @seqno: seqno of the last job pushed, protected by @lock
 * @destroyed: the queue was destroyed, no more jobs can be pushed;
 *	protected by @lock
 * @fence_context: dma-fence context of the queue's hardware fences
 * @guilty: set to 1 once a job of the queue hung; the queue is banned and
 *	the scheduler cancels its jobs (it is @entity's guilty pointer)
 * @free_work: frees the queue once the hardware no longer uses its context;
 *	run on the module's own workqueue, see simgpu_queue_module_exit()
 */
struct simgpu_queue {
	struct kref ref;
	struct simgpu_device *sdev;
	struct simgpu_engine *engine;
	struct simgpu_ctx *ctx;
	struct drm_gpu_scheduler *sched_list[1];
	struct drm_sched_entity entity;
	struct mutex lock;	/* job arm + push */
	u32 seqno;		/* protected by @lock */
	bool destroyed;		/* protected by @lock */
	u64 fence_context;
	atomic_t guilty;
	struct delayed_work free_work;
};

static inline bool simgpu_queue_banned(struct simgpu_queue *queue)
{
	return atomic_read(&queue->guilty);
}

struct simgpu_queue *simgpu_queue_lookup(struct simgpu_file *sfile, u32 id);
void simgpu_queue_put(struct simgpu_queue *queue);
void simgpu_queue_defer(struct work_struct *work);
void simgpu_queues_fini(struct simgpu_file *sfile);
int simgpu_queue_module_init(void);
void simgpu_queue_module_exit(void);
unsigned int simgpu_queue_num(void);
long simgpu_queue_wait_freed(unsigned int n, long timeout);

int simgpu_ioctl_exec_queue_create(struct drm_device *drm, void *data,
				   struct drm_file *file);
int simgpu_ioctl_exec_queue_destroy(struct drm_device *drm, void *data,
				    struct drm_file *file);

#endif /* _SIMGPU_QUEUE_H_ */
