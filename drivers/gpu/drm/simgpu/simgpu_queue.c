// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/dma-fence.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_queue.h"

/**
 * DOC: simgpu exec queues
 *
 * An exec queue is a stream of in-order jobs on one engine, in one hardware
 * context. Each file keeps its queues in an xarray; the xarray holds one
 * reference and every job of the queue one more, so a destroyed queue lives
 * on until its last job completed. Its hardware context is then freed once
 * the engine no longer has it resident.
 *
 * The free work runs on simgpu_queue_wq, which the module owns, never on a
 * system workqueue: it may drop the last reference to the device and so run
 * the device's release, module code. Each queue also holds a reference to
 * the module, which its free work drops last: while a closed file's jobs
 * still run, the module is in use (rmmod says so), instead of its exit
 * waiting for them. Module exit destroys the workqueue, which waits for
 * the last work function to return; so no work outlives the module.
 */

static struct workqueue_struct *simgpu_queue_wq;
/* Queues created and not freed yet, on any device */
static atomic_t simgpu_queue_count = ATOMIC_INIT(0);

static void simgpu_queue_free_work(struct work_struct *work)
{
	struct simgpu_queue *queue =
		container_of(to_delayed_work(work), struct simgpu_queue,
			     free_work);
	struct simgpu_engine *eng = queue->engine;
	struct simgpu_device *sdev = queue->sdev;

	/*
	 * All jobs completed, but the engine switches the context out (and
	 * writes its image) only when it runs out of work or starts another
	 * context. Reading the register brings the model up to date.
	 */
	if (simgpu_read32(sdev, eng->base + RING_CURRENT_CTX) == queue->ctx->id) {
		queue_delayed_work(simgpu_queue_wq, &queue->free_work, 1);
		return;
	}

	simgpu_ctx_destroy(sdev, queue->ctx);
	atomic_dec(&eng->num_queues);
	mutex_destroy(&queue->lock);
	kfree(queue);
	/* Can be the last reference, and release the device */
	drm_dev_put(&sdev->drm);

	/* Last, see simgpu_queue_module_exit() */
	atomic_dec(&simgpu_queue_count);
	wake_up_var(&simgpu_queue_count);
	module_put(THIS_MODULE);
}

static void simgpu_queue_release(struct kref *ref)
{
	struct simgpu_queue *queue = container_of(ref, struct simgpu_queue,
						  ref);

	queue_delayed_work(simgpu_queue_wq, &queue->free_work, 0);
}

/**
 * simgpu_queue_module_init - allocate the workqueue that frees exec queues
 *
 * Called at module init, before any device exists.
 *
 * Returns: 0 or -ENOMEM.
 */
int simgpu_queue_module_init(void)
{
	simgpu_queue_wq = alloc_workqueue("simgpu_queue", WQ_UNBOUND, 0);

	return simgpu_queue_wq ? 0 : -ENOMEM;
}

/**
 * simgpu_queue_num - number of exec queues not freed yet, of all devices
 *
 * Returns: the number, for tests.
 */
unsigned int simgpu_queue_num(void)
{
	return atomic_read(&simgpu_queue_count);
}

/**
 * simgpu_queue_wait_freed - wait until at most @n exec queues exist
 * @n: the number of exec queues, of all devices, still allowed
 * @timeout: how long to wait at most, in jiffies
 *
 * For tests: the queues of closed files are freed by work items once their
 * last job completed.
 *
 * Returns: 0 on timeout, else the jiffies left of @timeout (at least 1).
 */
long simgpu_queue_wait_freed(unsigned int n, long timeout)
{
	return wait_var_event_timeout(&simgpu_queue_count,
				      atomic_read(&simgpu_queue_count) <= n,
				      timeout);
}

/**
 * simgpu_queue_module_exit - wait for all exec queues to be freed
 *
 * Called at module exit, once no file is open any more. The queues of
 * closed files free themselves once their last job completed, and each
 * holds the module until then, so none should be left; this waits for any
 * that is, then destroys the workqueue, which waits for the last free work
 * to return from module code.
 */
void simgpu_queue_module_exit(void)
{
	wait_var_event(&simgpu_queue_count, !atomic_read(&simgpu_queue_count));
	destroy_workqueue(simgpu_queue_wq);
	simgpu_queue_wq = NULL;
}

/**
 * simgpu_queue_defer - run a work item on the module's workqueue
 * @work: the work, whose function may drop the last reference to an exec
 *	queue
 *
 * Module exit waits for the last exec queue to be freed, then destroys the
 * workqueue, which waits for @work to return.
 */
void simgpu_queue_defer(struct work_struct *work)
{
	queue_work(simgpu_queue_wq, work);
}

/**
 * simgpu_queue_put - drop a reference to an exec queue
 * @queue: the queue
 */
void simgpu_queue_put(struct simgpu_queue *queue)
{
	kref_put(&queue->ref, simgpu_queue_release);
}

/**
 * simgpu_queue_lookup - find an exec queue of a file
 * @sfile: the file
 * @id: the queue id
 *
 * Returns: the queue with a reference, or NULL.
 */
struct simgpu_queue *simgpu_queue_lookup(struct simgpu_file *sfile, u32 id)
{
	struct simgpu_queue *queue;

	xa_lock(&sfile->queues);
	queue = xa_load(&sfile->queues, id);
	if (queue)
		kref_get(&queue->ref);
	xa_unlock(&sfile->queues);

	return queue;
}

/*
 * Stop accepting jobs, let those submitted finish and drop the reference
 * the file held. Queued jobs still run unless the process is exiting.
 */
static void simgpu_queue_kill(struct simgpu_queue *queue)
{
	mutex_lock(&queue->lock);
	queue->destroyed = true;
	mutex_unlock(&queue->lock);

	drm_sched_entity_destroy(&queue->entity);
	/* The file's totals include the queue right away */
	simgpu_ctx_fold(queue->sdev, queue->ctx);
	simgpu_queue_put(queue);
}

/**
 * simgpu_queues_fini - destroy all exec queues of a closing file
 * @sfile: the file
 */
void simgpu_queues_fini(struct simgpu_file *sfile)
{
	struct simgpu_queue *queue;
	unsigned long id;

	xa_for_each(&sfile->queues, id, queue) {
		xa_erase(&sfile->queues, id);
		simgpu_queue_kill(queue);
	}
	xa_destroy(&sfile->queues);
}

/**
 * simgpu_ioctl_exec_queue_create - DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_exec_queue_create
 * @file: the client
 *
 * Returns: 0, -EINVAL for a bad argument or an engine the device does not
 * have, -EINVAL, -EFAULT or -E2BIG for a bad extension chain, or another
 * negative error code.
 */
int simgpu_ioctl_exec_queue_create(struct drm_device *drm, void *data,
				   struct drm_file *file)
{
	struct simgpu_device *sdev = to_simgpu_device(drm);
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_exec_queue_create *args = data;
	struct simgpu_queue *queue;
	struct simgpu_engine *eng;
	u32 id;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	/* No extension is defined yet: any in the chain is -EINVAL */
	ret = simgpu_user_extensions(args->extensions, NULL, 0, NULL);
	if (ret)
		return ret;
	if (args->engine_class >= DRM_SIMGPU_ENGINE_CLASS_COUNT)
		return -EINVAL;
	eng = simgpu_engine_get(sdev, args->engine_class,
				args->engine_instance);
	if (!eng)
		return -EINVAL;
	if (WARN_ON_ONCE(!simgpu_queue_wq))
		return -ENODEV;

	queue = kzalloc_obj(*queue, GFP_KERNEL_ACCOUNT);
	if (!queue)
		return -ENOMEM;

	queue->ctx = simgpu_ctx_create(sdev, sfile->usage, eng->class);
	if (IS_ERR(queue->ctx)) {
		ret = PTR_ERR(queue->ctx);
		kfree(queue);
		return ret;
	}

	queue->sched_list[0] = &eng->sched;
	ret = drm_sched_entity_init(&queue->entity, DRM_SCHED_PRIORITY_NORMAL,
				    queue->sched_list, 1, &queue->guilty);
	if (ret) {
		simgpu_ctx_destroy(sdev, queue->ctx);
		kfree(queue);
		return ret;
	}

	kref_init(&queue->ref);
	mutex_init(&queue->lock);
	INIT_DELAYED_WORK(&queue->free_work, simgpu_queue_free_work);
	queue->sdev = sdev;
	queue->engine = eng;
	queue->fence_context = dma_fence_context_alloc(1);
	atomic_inc(&eng->num_queues);
	atomic_inc(&simgpu_queue_count);
	drm_dev_get(drm);
	/* The caller holds the module through its file */
	__module_get(THIS_MODULE);

	ret = xa_alloc(&sfile->queues, &id, queue, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		simgpu_queue_kill(queue);
		return ret;
	}
	args->exec_queue_id = id;

	return 0;
}

/**
 * simgpu_ioctl_exec_queue_destroy - DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY
 * @drm: the DRM device
 * @data: a &struct drm_simgpu_exec_queue_destroy
 * @file: the client
 *
 * Returns: 0, -EINVAL for a non-zero pad, -ENOENT for an unknown queue.
 */
int simgpu_ioctl_exec_queue_destroy(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct drm_simgpu_exec_queue_destroy *args = data;
	struct simgpu_queue *queue;

	if (args->pad)
		return -EINVAL;

	queue = xa_erase(&sfile->queues, args->exec_queue_id);
	if (!queue)
		return -ENOENT;

	simgpu_queue_kill(queue);

	return 0;
}
