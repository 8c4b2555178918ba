// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>

#include "simgpu_drv.h"
#include "simgpu_engine.h"

/**
 * DOC: simgpu debugfs
 *
 * The device's debugfs directory, ``/sys/kernel/debug/dri/<minor>/`` for
 * the render and the primary minor alike, holds:
 *
 * ``simgpu_engines``
 *	One line per engine: its name; its state, read from RING_STATUS
 *	(``idle``, ``busy``, ``idle-wait`` in an IDLE command, ``hung`` in a
 *	HANG command, ``halted`` on an error); the context resident on it,
 *	RING_CURRENT_CTX (0 for none); the jobs the scheduler handed to it
 *	that have not completed; and the engine resets it went through by
 *	cause: ``timeout`` (a job timed out and the engine was found hung or
 *	halted) and ``error`` (the engine reported by interrupt that it
 *	halted on an error).
 *
 * ``simgpu_clients``
 *	One line per open file of the device: its drm-client-id, the process
 *	that opened it, the reference clock ticks its contexts spent on each
 *	engine class as accumulated so far (the time of a running context
 *	since its last fold is not in them, unlike in fdinfo), and the ids
 *	of its contexts that have work on the hardware.
 *
 * ``simgpu_purge``
 *	The system buffers marked DONTNEED and not purged yet: the page count
 *	the shrinker reports (``count``), and the pages and buffers on the
 *	purge list, summed while reading. The two page figures agree.
 *
 * ``simgpu_folds``
 *	The engine time accounting's own health (see "engine time
 *	accounting"): ``late``, the folds of a context that came 2^32
 *	reference clock ticks or more after its previous one, when wraps of
 *	its 32-bit CTX_TIMESTAMP may have gone unseen; ``lost``, those of them
 *	that could not be made exact (the context had switched in between);
 *	``retries``, the folds that gave up because the context kept
 *	switching while they read it; ``back``, the folds that found a
 *	context's CTX_TIMESTAMP gone back and added nothing. All four stay 0
 *	on a healthy system.
 *
 * ``simgpu_halt_next``
 *	Fault injection for tests, write-only: writing an engine name (e.g.
 *	``rcs0``) makes the next job written to that engine's submission port
 *	halt it on an error, as a malformed batch does. The engine then
 *	raises RING_IRQ_ERROR and is reset from the interrupt handler: the
 *	job fails with -EIO and the ``error`` count of the engine grows.
 *
 * Reading them takes no lock that the submission path holds while it
 * talks to the hardware and never waits for the hardware: the register
 * reads only bring the model up to date, the reset counts are atomics,
 * the clients' totals are copied under each client's accounting
 * spinlock, as fdinfo does, and the purge list is walked under the lock
 * that the shrinker only try-locks.
 */

static const char *engine_state(u32 status)
{
	if (status & RING_STATUS_ERROR)
		return "halted";
	if (status & RING_STATUS_HUNG)
		return "hung";
	if (status & RING_STATUS_IDLE_WAIT)
		return "idle-wait";
	if (status & RING_STATUS_BUSY)
		return "busy";
	return "idle";
}

static int engines_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct simgpu_device *sdev = to_simgpu_device(entry->dev);
	unsigned int i;

	seq_printf(m, "%-6s %-9s %10s %8s %8s %8s\n", "engine", "state", "ctx",
		   "jobs", "timeout", "error");
	for (i = 0; i < sdev->num_engines; i++) {
		struct simgpu_engine *eng = sdev->engines[i];
		u32 status = simgpu_read32(sdev, eng->base + RING_STATUS);
		u32 ctx = simgpu_read32(sdev, eng->base + RING_CURRENT_CTX);

		seq_printf(m, "%-6s %-9s %10u %8d %8d %8d\n", eng->name,
			   engine_state(status), ctx,
			   atomic_read(&eng->sched.credit_count),
			   atomic_read(&eng->resets[SIMGPU_RESET_TIMEOUT]),
			   atomic_read(&eng->resets[SIMGPU_RESET_ERROR]));
	}

	return 0;
}

static void client_show(struct seq_file *m, struct drm_file *file)
{
	struct simgpu_file *sfile = to_simgpu_file(file);
	struct simgpu_client_usage *usage = sfile->usage;
	struct simgpu_ctx *ctx;
	struct task_struct *task;
	unsigned long flags;
	unsigned int class;
	struct pid *pid;

	rcu_read_lock(); /* file->pid and the task's comm */
	pid = rcu_dereference(file->pid);
	task = pid_task(pid, PIDTYPE_TGID);
	seq_printf(m, "%6llu %7d %-16s", file->client_id, pid_vnr(pid),
		   task ? task->comm : "<unknown>");
	rcu_read_unlock();

	spin_lock_irqsave(&usage->lock, flags);
	for (class = 0; class < DRM_SIMGPU_ENGINE_CLASS_COUNT; class++)
		seq_printf(m, " %12llu", usage->cycles[class]);
	seq_puts(m, " ");
	list_for_each_entry(ctx, &usage->active, active_link)
		seq_printf(m, "%s%u", list_is_first(&ctx->active_link,
						    &usage->active) ? "" : ",",
			   ctx->id);
	spin_unlock_irqrestore(&usage->lock, flags);
	seq_puts(m, "\n");
}

static int clients_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct drm_device *drm = entry->dev;
	struct drm_file *file;
	unsigned int class;

	seq_printf(m, "%6s %7s %-16s", "client", "pid", "command");
	for (class = 0; class < DRM_SIMGPU_ENGINE_CLASS_COUNT; class++)
		seq_printf(m, " %12s", simgpu_engine_class_name(class));
	seq_puts(m, " contexts\n");

	/* Oldest first; the list only changes under filelist_mutex */
	mutex_lock(&drm->filelist_mutex);
	list_for_each_entry_reverse(file, &drm->filelist, lhead) {
		if (file->driver_priv)
			client_show(m, file);
	}
	mutex_unlock(&drm->filelist_mutex);

	return 0;
}

/* The shrinker's count beside what the purge list holds: they agree */
static int purge_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct simgpu_device *sdev = to_simgpu_device(entry->dev);
	struct drm_gem_shmem_object *shmem;
	unsigned long pages = 0, buffers = 0;

	mutex_lock(&sdev->purge_lock);
	list_for_each_entry(shmem, &sdev->purge_list, madv_list) {
		pages += shmem->base.size >> PAGE_SHIFT;
		buffers++;
	}
	seq_printf(m, "count %lu\nlisted %lu pages in %lu buffers\n",
		   sdev->purge_pages, pages, buffers);
	mutex_unlock(&sdev->purge_lock);

	return 0;
}

static int folds_show(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct simgpu_ctx_mgr *mgr = &to_simgpu_device(entry->dev)->ctxs;

	seq_printf(m, "late: %d\nlost: %d\nretries: %d\nback: %d\n",
		   atomic_read(&mgr->late_folds), atomic_read(&mgr->lost_folds),
		   atomic_read(&mgr->fold_retries),
		   atomic_read(&mgr->back_folds));
	return 0;
}

static const struct drm_debugfs_info simgpu_debugfs_list[] = {
	{ "simgpu_engines", engines_show, 0 },
	{ "simgpu_clients", clients_show, 0 },
	{ "simgpu_purge", purge_show, 0 },
	{ "simgpu_folds", folds_show, 0 },
};

static ssize_t halt_next_write(struct file *f, const char __user *ubuf,
			       size_t len, loff_t *pos)
{
	struct simgpu_device *sdev = f->private_data;
	char name[16];
	unsigned int i;

	if (!len || len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, len))
		return -EFAULT;
	name[len] = '\0';

	for (i = 0; i < sdev->num_engines; i++) {
		struct simgpu_engine *eng = sdev->engines[i];

		if (sysfs_streq(name, eng->name)) {
			atomic_set(&eng->halt_next, 1);
			return len;
		}
	}

	return -ENODEV;
}

static const struct file_operations halt_next_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = halt_next_write,
	.llseek = noop_llseek,
};

/**
 * simgpu_debugfs_init - create the device's debugfs files
 * @sdev: the device, with its engines set up
 *
 * The files go in the DRM device's debugfs directory; the DRM core removes
 * them with it. Failures are not errors: debugfs is optional.
 */
void simgpu_debugfs_init(struct simgpu_device *sdev)
{
	struct drm_device *drm = &sdev->drm;

	drm_debugfs_add_files(drm, simgpu_debugfs_list,
			      ARRAY_SIZE(simgpu_debugfs_list));
	debugfs_create_file("simgpu_halt_next", 0200, drm->debugfs_root, sdev,
			    &halt_next_fops);
}
