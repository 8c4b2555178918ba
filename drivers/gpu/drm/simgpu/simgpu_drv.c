// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_gem.h"
#include "simgpu_job.h"
#include "simgpu_perfmon.h"
#include "simgpu_pmu.h"
#include "simgpu_queue.h"

static unsigned int refclk_hz = 19200000;
module_param(refclk_hz, uint, 0444);
MODULE_PARM_DESC(refclk_hz, "Reference clock of the timestamps in Hz (default 19200000)");

static unsigned int num_rcs = 1;
module_param(num_rcs, uint, 0444);
MODULE_PARM_DESC(num_rcs, "Number of render engines (default 1)");

static unsigned int num_bcs = 1;
module_param(num_bcs, uint, 0444);
MODULE_PARM_DESC(num_bcs, "Number of copy engines (default 1)");

static unsigned int num_vcs = 2;
module_param(num_vcs, uint, 0444);
MODULE_PARM_DESC(num_vcs, "Number of video engines (default 2)");

static unsigned int num_vecs = 1;
module_param(num_vecs, uint, 0444);
MODULE_PARM_DESC(num_vecs, "Number of video enhancement engines (default 1)");

static unsigned int num_ccs = 4;
module_param(num_ccs, uint, 0444);
MODULE_PARM_DESC(num_ccs, "Number of compute engines (default 4)");

static unsigned long vram_mb = 256;
module_param(vram_mb, ulong, 0444);
MODULE_PARM_DESC(vram_mb, "Size of the local memory in MiB (default 256)");

static unsigned long sys_mem_mb;
module_param(sys_mem_mb, ulong, 0444);
MODULE_PARM_DESC(sys_mem_mb, "System memory that buffer objects may take in MiB (default 0: half of RAM)");

static unsigned long max_bo_mb;
module_param(max_bo_mb, ulong, 0444);
MODULE_PARM_DESC(max_bo_mb, "Largest buffer object in MiB (default 0: no limit but its region's size)");

static unsigned int job_timeout_ms = 500;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms, "Time a job may run without progress before its engine is reset, in ms (default 500)");

static unsigned int max_job_ms = 5000;
module_param(max_job_ms, uint, 0444);
MODULE_PARM_DESC(max_job_ms, "Time a job may run at most, progress or not, before its engine is reset, in ms (default 5000)");

static int simgpu_open(struct drm_device *drm, struct drm_file *file)
{
	struct simgpu_file *sfile;

	sfile = kzalloc_obj(*sfile);
	if (!sfile)
		return -ENOMEM;

	sfile->usage = simgpu_client_usage_create();
	if (!sfile->usage) {
		kfree(sfile);
		return -ENOMEM;
	}
	sfile->sdev = to_simgpu_device(drm);
	xa_init_flags(&sfile->queues, XA_FLAGS_ALLOC1);
	simgpu_perfmon_init_file(sfile);
	file->driver_priv = sfile;

	return 0;
}

static void simgpu_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct simgpu_file *sfile = to_simgpu_file(file);

	simgpu_queues_fini(sfile);
	simgpu_perfmon_fini_file(sfile);
	simgpu_client_usage_put(sfile->usage);
	kfree(sfile);
}

/**
 * simgpu_user_extensions - walk the extension chain of an ioctl
 * @extensions: user pointer to the first &struct drm_simgpu_user_extension,
 *	or 0 for none
 * @fns: the ioctl's handlers, indexed by &drm_simgpu_user_extension.name;
 *	NULL for a name the ioctl does not take
 * @num_fns: number of entries at @fns
 * @data: the ioctl's state, passed to the handlers
 *
 * A handler gets the user pointer to its extension, whose header was
 * checked, and reads the whole structure itself. The chain is bounded by
 * %DRM_SIMGPU_MAX_USER_EXTENSIONS, so that a loop in it ends.
 *
 * Returns: 0, -EFAULT if an extension could not be read, -EINVAL for an
 * unknown name or a non-zero pad, -E2BIG for a chain too long, or the
 * error a handler returned.
 */
int simgpu_user_extensions(u64 extensions,
			   const simgpu_user_extension_fn *fns, u32 num_fns,
			   void *data)
{
	unsigned int n = 0;

	while (extensions) {
		struct drm_simgpu_user_extension ext;
		u32 name;
		int ret;

		if (++n > DRM_SIMGPU_MAX_USER_EXTENSIONS)
			return -E2BIG;
		if (copy_from_user(&ext, u64_to_user_ptr(extensions),
				   sizeof(ext)))
			return -EFAULT;
		if (ext.pad || ext.name >= num_fns)
			return -EINVAL;
		name = array_index_nospec(ext.name, num_fns);
		if (!fns[name])
			return -EINVAL;
		ret = fns[name](extensions, data);
		if (ret)
			return ret;
		extensions = ext.next_extension;
	}

	return 0;
}

static const struct drm_ioctl_desc simgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(SIMGPU_QUERY, simgpu_ioctl_query, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_EXEC_QUEUE_CREATE,
			  simgpu_ioctl_exec_queue_create, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_EXEC_QUEUE_DESTROY,
			  simgpu_ioctl_exec_queue_destroy, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_GEM_CREATE, simgpu_ioctl_gem_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_GEM_MMAP_OFFSET, simgpu_ioctl_gem_mmap_offset,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_GEM_MADVISE, simgpu_ioctl_gem_madvise,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_SUBMIT, simgpu_ioctl_submit, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_WAIT_BO, simgpu_ioctl_wait_bo,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_PERFMON_CREATE, simgpu_ioctl_perfmon_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_PERFMON_DESTROY, simgpu_ioctl_perfmon_destroy,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_PERFMON_GET_VALUES,
			  simgpu_ioctl_perfmon_get_values, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_PERFMON_SET_GLOBAL,
			  simgpu_ioctl_perfmon_set_global, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMGPU_OBSERVATION_OPEN,
			  simgpu_ioctl_observation_open, DRM_RENDER_ALLOW),
};

static const struct file_operations simgpu_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver simgpu_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = simgpu_open,
	.postclose = simgpu_postclose,
	.ioctls = simgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(simgpu_ioctls),
	.gem_create_object = simgpu_gem_create_object,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
	.show_fdinfo = simgpu_show_fdinfo,
	.fops = &simgpu_fops,
	.name = DRIVER_NAME,
	.desc = DRIVER_DESC,
	.major = DRIVER_MAJOR,
	.minor = DRIVER_MINOR,
};

static void simgpu_hw_fini(struct drm_device *drm, void *arg)
{
	simgpu_hw_destroy(arg);
}

/*
 * The system memory buffers may take: sys_mem_mb, or half of RAM, which
 * leaves the rest of the machine room to live. Page aligned, as
 * simgpu_ioctl_gem_create() wants.
 */
static void simgpu_mem_limits(struct simgpu_device *sdev)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	sdev->sys_size = sys_mem_mb ? (u64)sys_mem_mb << 20 : ram / 2;
	sdev->sys_size = min_t(u64, sdev->sys_size, MAX_LFS_FILESIZE);
	sdev->sys_size = round_down(sdev->sys_size, PAGE_SIZE);
	sdev->max_bo_size = max_bo_mb ? (u64)max_bo_mb << 20 : U64_MAX;
	sdev->max_bo_size = min_t(u64, sdev->max_bo_size, MAX_LFS_FILESIZE);
	sdev->max_bo_size = round_down(sdev->max_bo_size, PAGE_SIZE);
}

/**
 * simgpu_device_create - create a simgpu device
 * @parent: the parent device, whose devres group owns the DRM device
 * @cfg: how the simulated hardware is configured
 *
 * Creates the device model and the DRM device on top of it. The caller
 * registers the DRM device if userspace is to see it.
 *
 * Returns: the new device or an ERR_PTR().
 */
struct simgpu_device *simgpu_device_create(struct device *parent,
					   const struct simgpu_hw_config *cfg)
{
	struct simgpu_device *sdev;
	int ret;

	sdev = devm_drm_dev_alloc(parent, &simgpu_driver, struct simgpu_device,
				  drm);
	if (IS_ERR(sdev))
		return sdev;

	sdev->job_timeout_ms = job_timeout_ms ?: 1;
	sdev->max_job_ns = (u64)(max_job_ms ?: 1) * NSEC_PER_MSEC;
	sdev->hw = simgpu_hw_create(cfg, simgpu_irq_handler, sdev);
	if (IS_ERR(sdev->hw))
		return ERR_CAST(sdev->hw);
	ret = drmm_add_action_or_reset(&sdev->drm, simgpu_hw_fini, sdev->hw);
	if (ret)
		return ERR_PTR(ret);

	if (simgpu_read32(sdev, SIMGPU_REG_ID) != SIMGPU_ID_MAGIC) {
		drm_err(&sdev->drm, "no simgpu found\n");
		return ERR_PTR(-ENODEV);
	}
	sdev->refclk_hz = simgpu_read32(sdev, SIMGPU_REG_REFCLK_HZ);
	sdev->vram_size = simgpu_read32(sdev, SIMGPU_REG_VRAM_SIZE_LO) |
		(u64)simgpu_read32(sdev, SIMGPU_REG_VRAM_SIZE_HI) << 32;
	simgpu_mem_limits(sdev);

	ret = simgpu_ctx_init_device(sdev);
	if (ret)
		return ERR_PTR(ret);
	ret = simgpu_gem_init(sdev);
	if (ret)
		return ERR_PTR(ret);
	ret = simgpu_perfmon_init_device(sdev);
	if (ret)
		return ERR_PTR(ret);
	ret = simgpu_observation_init(sdev);
	if (ret)
		return ERR_PTR(ret);
	ret = simgpu_engines_init(sdev);
	if (ret)
		return ERR_PTR(ret);
	simgpu_debugfs_init(sdev);

	simgpu_write32(sdev, SIMGPU_REG_IRQ_ENABLE, 1);

	return sdev;
}

static struct platform_device *simgpu_pdev;

static int simgpu_probe(struct platform_device *pdev)
{
	struct simgpu_hw_config cfg = {
		.refclk_hz = refclk_hz,
		.instances = { num_rcs, num_bcs, num_vcs, num_vecs, num_ccs },
		.vram_size = (u64)vram_mb << 20,
	};
	struct simgpu_device *sdev;
	int ret;

	sdev = simgpu_device_create(&pdev->dev, &cfg);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);
	sdev->platform = pdev;
	platform_set_drvdata(pdev, sdev);

	ret = drm_dev_register(&sdev->drm, 0);
	if (ret)
		return ret;

	/* The device works without it: fdinfo has the engines' busyness too */
	ret = simgpu_pmu_register(sdev);
	if (ret)
		drm_warn(&sdev->drm, "no PMU: %pe\n", ERR_PTR(ret));
	return 0;
}

/*
 * Unbind, through sysfs or at module unload. Open files and everything
 * they use stay until closed: the device's state is freed with the last
 * reference to the DRM device, its model with it. drm_dev_unplug() makes
 * new ioctls fail with -ENODEV.
 */
static void simgpu_remove(struct platform_device *pdev)
{
	struct simgpu_device *sdev = platform_get_drvdata(pdev);

	/* The unit must stop writing into a stream's buffer */
	simgpu_observation_unplug(sdev);
	drm_dev_unplug(&sdev->drm);
}

static struct platform_driver simgpu_platform_driver = {
	.probe = simgpu_probe,
	.remove = simgpu_remove,
	.driver = {
		.name = DRIVER_NAME,
	},
};

static int __init simgpu_init(void)
{
	int ret;

	ret = simgpu_observation_module_init();
	if (ret)
		return ret;

	ret = simgpu_queue_module_init();
	if (ret)
		goto err_sysctl;

	simgpu_pdev = platform_device_register_simple(DRIVER_NAME, 0, NULL, 0);
	if (IS_ERR(simgpu_pdev)) {
		ret = PTR_ERR(simgpu_pdev);
		goto err_queue;
	}

	ret = platform_driver_register(&simgpu_platform_driver);
	if (ret)
		goto err_unregister;

	return 0;

err_unregister:
	platform_device_unregister(simgpu_pdev);
err_queue:
	simgpu_queue_module_exit();
err_sysctl:
	simgpu_observation_module_exit();
	return ret;
}

static void __exit simgpu_exit(void)
{
	platform_driver_unregister(&simgpu_platform_driver);
	platform_device_unregister(simgpu_pdev);
	/*
	 * Exec queues of closed files may still hold the device: wait until
	 * they are freed, the last one releasing the device, before the
	 * module's code goes away.
	 */
	simgpu_queue_module_exit();
	simgpu_observation_module_exit();
}

module_init(simgpu_init);
module_exit(simgpu_exit);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
