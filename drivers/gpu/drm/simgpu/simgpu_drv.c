// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 The simgpu authors
 */

#include <linux/module.h>
#include <linux/platform_device.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "simgpu_drv.h"

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

static struct simgpu_device *simgpu_global;

static void simgpu_irq(void *data)
{
	struct simgpu_device *sdev = data;
	u32 pending = simgpu_read32(sdev, SIMGPU_REG_IRQ_STATUS);

	while (pending) {
		unsigned int id = __ffs(pending);
		u32 reg = SIMGPU_ENGINE_BASE(id) + RING_IRQ_REASON;

		simgpu_write32(sdev, reg, simgpu_read32(sdev, reg));
		pending &= ~BIT(id);
	}
}

static const struct file_operations simgpu_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static const struct drm_driver simgpu_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER,
	.show_fdinfo = simgpu_show_fdinfo,
	.fops = &simgpu_fops,
	.name = DRIVER_NAME,
	.desc = DRIVER_DESC,
	.date = DRIVER_DATE,
	.major = DRIVER_MAJOR,
	.minor = DRIVER_MINOR,
};

static void simgpu_hw_fini(struct drm_device *drm, void *arg)
{
	simgpu_hw_destroy(arg);
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

	sdev->hw = simgpu_hw_create(cfg, simgpu_irq, sdev);
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
	simgpu_write32(sdev, SIMGPU_REG_IRQ_ENABLE, 1);

	return sdev;
}

static int __init simgpu_init(void)
{
	struct simgpu_hw_config cfg = {
		.refclk_hz = refclk_hz,
		.instances = { num_rcs, num_bcs, num_vcs, num_vecs, num_ccs },
		.vram_size = (u64)vram_mb << 20,
	};
	struct platform_device *pdev;
	struct simgpu_device *sdev;
	int ret;

	pdev = platform_device_register_simple(DRIVER_NAME, -1, NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);

	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister;
	}

	sdev = simgpu_device_create(&pdev->dev, &cfg);
	if (IS_ERR(sdev)) {
		ret = PTR_ERR(sdev);
		goto err_devres;
	}
	sdev->platform = pdev;

	ret = drm_dev_register(&sdev->drm, 0);
	if (ret)
		goto err_devres;

	simgpu_global = sdev;
	return 0;

err_devres:
	devres_release_group(&pdev->dev, NULL);
err_unregister:
	platform_device_unregister(pdev);
	return ret;
}

static void __exit simgpu_exit(void)
{
	struct platform_device *pdev = simgpu_global->platform;

	drm_dev_unregister(&simgpu_global->drm);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
}

module_init(simgpu_init);
module_exit(simgpu_exit);

MODULE_DESCRIPTION(DRIVER_DESC);
MODULE_LICENSE("GPL");
