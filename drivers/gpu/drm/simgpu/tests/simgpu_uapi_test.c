// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the simgpu uAPI: argument validation of every ioctl and
 * the basic behaviour behind them.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>

#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/iosys-map.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/shmem_fs.h>
#include <linux/shrinker.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_kunit_helpers.h>
#include <drm/drm_syncobj.h>

#include "../simgpu_ctx.h"
#include "../simgpu_drv.h"
#include "../simgpu_engine.h"
#include "../simgpu_gem.h"
#include "../simgpu_job.h"
#include "../simgpu_perfmon.h"
#include "../simgpu_queue.h"

struct uapi_test {
	struct simgpu_device *sdev;
	struct file *file;
	struct drm_file *dfile;
	void __user *ubuf;	/* a page of user memory */
	void __user *ubuf2;	/* another one, for syncs, extensions, perfmons */
	u64 clock;		/* the fake clock of the timeout suite, ns */
};

typedef int (*ioctl_fn)(struct drm_device *drm, void *data,
			struct drm_file *file);

static u64 fake_clock(void *data)
{
	struct uapi_test *ut = data;

	return READ_ONCE(ut->clock);
}

/* A device on the real clock, or on a fake one if @fake */
static void uapi_test_setup(struct kunit *test, bool fake)
{
	struct simgpu_hw_config cfg = {
		.refclk_hz = 19200000,
		.instances = { 1, 1, 2, 1, 4 },
		.vram_size = SZ_16M,
	};
	struct uapi_test *ut;
	struct device *dev;
	unsigned long addr;

	ut = kunit_kzalloc(test, sizeof(*ut), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ut);
	if (fake) {
		ut->clock = NSEC_PER_SEC;
		cfg.now_ns = fake_clock;
		cfg.clock_data = ut;
	}

	dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);

	ut->sdev = simgpu_device_create(dev, &cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ut->sdev);

	ut->file = mock_drm_getfile(ut->sdev->drm.primary, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ut->file);
	ut->dfile = ut->file->private_data;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	ut->ubuf = (void __user *)addr;
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	ut->ubuf2 = (void __user *)addr;

	test->priv = ut;
}

static int uapi_test_init(struct kunit *test)
{
	uapi_test_setup(test, false);
	return 0;
}

static void uapi_test_exit(struct kunit *test)
{
	struct uapi_test *ut = test->priv;

	fput(ut->file);
	flush_delayed_fput();
}

static int call(struct kunit *test, ioctl_fn fn, void *args)
{
	struct uapi_test *ut = test->priv;

	return fn(&ut->sdev->drm, args, ut->dfile);
}

static u32 queue_create(struct kunit *test, u16 class, u16 instance)
{
	struct drm_simgpu_exec_queue_create args = {
		.engine_class = class,
		.engine_instance = instance,
	};

	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), 0);
	KUNIT_ASSERT_NE(test, args.exec_queue_id, 0);
	return args.exec_queue_id;
}

static u32 bo_create(struct kunit *test, u64 size, u32 region)
{
	struct drm_simgpu_gem_create args = { .size = size, .region = region };

	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_gem_create, &args), 0);
	return args.handle;
}

/* Copy @cmds to user memory and submit them */
static int submit(struct kunit *test, u32 queue,
		  const struct drm_simgpu_cmd *cmds, u32 num_cmds)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_submit args = {
		.exec_queue_id = queue,
		.num_cmds = num_cmds,
		.cmds = (u64)(uintptr_t)ut->ubuf,
	};

	KUNIT_ASSERT_LE(test, num_cmds * sizeof(*cmds), PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, cmds,
					   num_cmds * sizeof(*cmds)), 0);
	return call(test, simgpu_ioctl_submit, &args);
}

static int wait_bo(struct kunit *test, u32 handle, s64 timeout_ns)
{
	struct drm_simgpu_wait_bo args = {
		.handle = handle,
		.timeout_ns = timeout_ns,
	};

	return call(test, simgpu_ioctl_wait_bo, &args);
}

static u32 bo_read32(struct kunit *test, u32 handle, u32 offset)
{
	struct uapi_test *ut = test->priv;
	struct drm_gem_object *obj = drm_gem_object_lookup(ut->dfile, handle);
	struct iosys_map map;
	u32 val;

	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_ASSERT_EQ(test, drm_gem_vmap(obj, &map), 0);
	/* The device stores little endian */
	val = le32_to_cpu((__force __le32)iosys_map_rd(&map, offset, u32));
	drm_gem_vunmap(obj, &map);
	drm_gem_object_put(obj);

	return val;
}

/* A syncobj of the test's file, for out_sync */
static u32 syncobj_create(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_syncobj *syncobj;
	u32 handle;

	KUNIT_ASSERT_EQ(test, drm_syncobj_create(&syncobj, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, drm_syncobj_get_handle(ut->dfile, syncobj,
						     &handle), 0);
	drm_syncobj_put(syncobj);
	return handle;
}

/*
 * The second half of ubuf2 holds the syncs of a submit: SYNCS_MAX of them,
 * the out-sync of submit_sync() and submit_pm() first.
 */
#define SYNCS_OFFSET	2048
#define SYNCS_MAX	(SYNCS_OFFSET / sizeof(struct drm_simgpu_sync))

/* Copy @n syncs to user memory; their user pointer */
static u64 syncs_to_user(struct kunit *test,
			 const struct drm_simgpu_sync *syncs, u32 n)
{
	struct uapi_test *ut = test->priv;

	KUNIT_ASSERT_LE(test, n, SYNCS_MAX);
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf2 + SYNCS_OFFSET, syncs,
					   n * sizeof(*syncs)), 0);
	return (u64)(uintptr_t)(ut->ubuf2 + SYNCS_OFFSET);
}

/* Submit @cmds with the binary out-sync @sync, if not 0 */
static int submit_sync(struct kunit *test, u32 queue,
		       const struct drm_simgpu_cmd *cmds, u32 num_cmds, u32 sync)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_sync out = { .handle = sync };
	struct drm_simgpu_submit args = {
		.exec_queue_id = queue,
		.num_cmds = num_cmds,
		.cmds = (u64)(uintptr_t)ut->ubuf,
		.num_out_syncs = sync ? 1 : 0,
	};

	KUNIT_ASSERT_LE(test, num_cmds * sizeof(*cmds), PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, cmds,
					   num_cmds * sizeof(*cmds)), 0);
	args.out_syncs = syncs_to_user(test, &out, 1);
	return call(test, simgpu_ioctl_submit, &args);
}

/*
 * The status of the fence in syncobj @sync, waiting up to 5 s for it:
 * 1 signalled without error, a negative error code, or 0 not signalled.
 */
static int sync_status(struct kunit *test, u32 sync)
{
	struct uapi_test *ut = test->priv;
	struct dma_fence *fence;
	int ret;

	KUNIT_ASSERT_EQ(test, drm_syncobj_find_fence(ut->dfile, sync, 0, 0,
						     &fence), 0);
	dma_fence_wait_timeout(fence, false, 5 * HZ);
	ret = dma_fence_get_status(fence);
	dma_fence_put(fence);
	return ret;
}

static void uapi_test_query(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_query q = { .type = 4 };
	struct drm_simgpu_query_engines *engines;
	struct drm_simgpu_query_config config;
	u32 size;

	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), -EINVAL);

	q.type = DRM_SIMGPU_QUERY_CONFIG;
	q.size = 0;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), 0);
	KUNIT_EXPECT_EQ(test, q.size, sizeof(config));
	q.size = sizeof(config) - 1;
	q.data = (u64)(uintptr_t)ut->ubuf;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), -EINVAL);
	q.size = sizeof(config);
	q.data = 8;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), -EFAULT);
	q.data = (u64)(uintptr_t)ut->ubuf;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), 0);
	KUNIT_EXPECT_EQ(test, q.size, sizeof(config));
	KUNIT_ASSERT_EQ(test, copy_from_user(&config, ut->ubuf,
					     sizeof(config)), 0);
	KUNIT_EXPECT_EQ(test, config.refclk_hz, 19200000);
	KUNIT_EXPECT_EQ(test, config.num_engines, 9);
	KUNIT_EXPECT_EQ(test, config.max_cmds, SIMGPU_MAX_CMDS);
	KUNIT_EXPECT_EQ(test, config.max_bo_handles, DRM_SIMGPU_MAX_BO_HANDLES);
	KUNIT_EXPECT_EQ(test, config.max_in_syncs, DRM_SIMGPU_MAX_IN_SYNCS);
	KUNIT_EXPECT_EQ(test, config.max_job_ns, 5ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, config.max_out_syncs, DRM_SIMGPU_MAX_OUT_SYNCS);

	q.type = DRM_SIMGPU_QUERY_ENGINES;
	q.size = 0;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), 0);
	size = q.size;
	KUNIT_EXPECT_EQ(test, size, sizeof(*engines) +
			9 * sizeof(engines->engines[0]));
	engines = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, engines);
	q.size = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), 0);
	KUNIT_EXPECT_EQ(test, q.size, size);
	KUNIT_ASSERT_EQ(test, copy_from_user(engines, ut->ubuf, size), 0);
	KUNIT_EXPECT_EQ(test, engines->num_engines, 9);
	KUNIT_EXPECT_EQ(test, engines->engines[8].engine_class,
			DRM_SIMGPU_ENGINE_CLASS_COMPUTE);
	KUNIT_EXPECT_EQ(test, engines->engines[8].engine_instance, 3);
}

static void uapi_test_queue_create(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_exec_queue_create args = { .flags = 1 };
	struct drm_simgpu_user_extension ext = {};
	struct simgpu_engine *seen[4] = {};
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), -EINVAL);
	args.flags = 0;
	args.pad = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), -EINVAL);
	args.pad = 0;
	/* No extension is defined: a chain is refused */
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf2, &ext, sizeof(ext)), 0);
	args.extensions = (u64)(uintptr_t)ut->ubuf2;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), -EINVAL);
	args.extensions = 8;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), -EFAULT);
	args.extensions = 0;
	args.engine_class = DRM_SIMGPU_ENGINE_CLASS_COUNT;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), -EINVAL);
	args.engine_class = DRM_SIMGPU_ENGINE_CLASS_RENDER;
	args.engine_instance = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), -EINVAL);
	args.engine_instance = SIMGPU_MAX_INSTANCES;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), -EINVAL);
	args.engine_instance = 0;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_create,
				   &args), 0);

	/* ANY spreads the queues over the instances */
	for (i = 0; i < 4; i++) {
		u32 id = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COMPUTE,
				      DRM_SIMGPU_ENGINE_INSTANCE_ANY);
		struct simgpu_queue *q;

		q = simgpu_queue_lookup(to_simgpu_file(ut->dfile), id);
		KUNIT_ASSERT_NOT_NULL(test, q);
		seen[i] = q->engine;
		simgpu_queue_put(q);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, seen[i], seen[j]);
	}
}

static void uapi_test_queue_destroy(struct kunit *test)
{
	struct drm_simgpu_exec_queue_destroy args = {};
	u32 id = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COPY, 0);

	args.exec_queue_id = id + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_destroy,
				   &args), -ENOENT);
	args.exec_queue_id = id;
	args.pad = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_destroy,
				   &args), -EINVAL);
	args.pad = 0;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_destroy,
				   &args), 0);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_exec_queue_destroy,
				   &args), -ENOENT);
}

static void uapi_test_gem_create(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_gem_create args = {};
	struct drm_gem_object *obj;
	u32 big;

	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-EINVAL);
	args.size = 1;
	args.region = DRM_SIMGPU_REGION_COUNT;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-EINVAL);
	args.region = DRM_SIMGPU_REGION_SYSTEM;
	args.flags = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-EINVAL);
	args.flags = 0;
	args.pad = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-EINVAL);
	args.pad = 0;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args), 0);
	obj = drm_gem_object_lookup(ut->dfile, args.handle);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, obj->size, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, simgpu_gem_region(obj), DRM_SIMGPU_REGION_SYSTEM);
	drm_gem_object_put(obj);

	/* VRAM0 is 16 MiB */
	args.size = SZ_16M + 1;
	args.region = DRM_SIMGPU_REGION_VRAM0;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-EINVAL);
	big = bo_create(test, SZ_16M, DRM_SIMGPU_REGION_VRAM0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ut->sdev->vram_used), SZ_16M);
	args.size = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, drm_gem_handle_delete(ut->dfile, big), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ut->sdev->vram_used), 0);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args), 0);
	obj = drm_gem_object_lookup(ut->dfile, args.handle);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, simgpu_gem_region(obj), DRM_SIMGPU_REGION_VRAM0);
	KUNIT_EXPECT_TRUE(test, obj->funcs->status(obj) &
			  DRM_GEM_OBJECT_RESIDENT);
	drm_gem_object_put(obj);
}

/*
 * System memory is bounded: -EINVAL above the largest buffer, -ENOSPC once
 * the limit is reached. A job writing two words of a buffer allocates two
 * of its pages, not all of them.
 */
static void uapi_test_sys_limits(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct simgpu_device *sdev = ut->sdev;
	struct drm_simgpu_gem_create args = {
		.region = DRM_SIMGPU_REGION_SYSTEM,
	};
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = SZ_4M, .value = 1 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = SZ_8M - 4, .value = 2 },
	};
	struct drm_gem_object *obj;
	u32 big;

	KUNIT_ASSERT_EQ(test, atomic64_read(&sdev->sys_used), 0);
	KUNIT_EXPECT_GT(test, sdev->sys_size, 0);
	KUNIT_EXPECT_LT(test, sdev->sys_size,
			(u64)totalram_pages() << PAGE_SHIFT);
	sdev->sys_size = SZ_16M;
	sdev->max_bo_size = SZ_8M;

	args.size = SZ_8M + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-EINVAL);
	args.size = U64_MAX;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-EINVAL);
	big = bo_create(test, SZ_8M, DRM_SIMGPU_REGION_SYSTEM);
	bo_create(test, SZ_4M, DRM_SIMGPU_REGION_SYSTEM);
	args.size = SZ_4M + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->sys_used), 3 * SZ_4M);

	cmds[0].handle = big;
	cmds[1].handle = big;
	KUNIT_ASSERT_EQ(test, submit(test, queue, cmds, 2), 0);
	KUNIT_ASSERT_EQ(test, wait_bo(test, big, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	obj = drm_gem_object_lookup(ut->dfile, big);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, obj->funcs->rss(obj), 2 * PAGE_SIZE);
	drm_gem_object_put(obj);
	KUNIT_EXPECT_EQ(test, bo_read32(test, big, SZ_4M), 1);
	KUNIT_EXPECT_EQ(test, bo_read32(test, big, SZ_8M - 4), 2);

	KUNIT_EXPECT_EQ(test, drm_gem_handle_delete(ut->dfile, big), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&sdev->sys_used), SZ_4M);
	args.size = SZ_8M;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_create, &args), 0);
}

static void uapi_test_mmap_offset(struct kunit *test)
{
	struct drm_simgpu_gem_mmap_offset args = {
		.handle = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM),
		.flags = 1,
	};

	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_mmap_offset, &args),
			-EINVAL);
	args.flags = 0;
	args.handle++;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_mmap_offset, &args),
			-ENOENT);
	args.handle--;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_mmap_offset, &args),
			0);
	KUNIT_EXPECT_NE(test, args.offset, 0);
}

static void uapi_test_madvise(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 vram = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_VRAM0);
	struct drm_simgpu_gem_madvise args = {
		.handle = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM),
		.madv = 2,
	};
	struct drm_gem_object *obj;

	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_madvise, &args),
			-EINVAL);
	args.madv = DRM_SIMGPU_MADV_DONTNEED;
	args.pad = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_madvise, &args),
			-EINVAL);
	args.pad = 0;
	args.handle += 10;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_madvise, &args),
			-ENOENT);
	args.handle -= 10;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_madvise, &args), 0);
	KUNIT_EXPECT_EQ(test, args.retained, 1);

	/* Resident once it has pages; purgeable only when not pinned */
	obj = drm_gem_object_lookup(ut->dfile, args.handle);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	KUNIT_EXPECT_EQ(test, obj->funcs->status(obj), 0);
	KUNIT_ASSERT_EQ(test, drm_gem_shmem_pin(to_drm_gem_shmem_obj(obj)), 0);
	KUNIT_EXPECT_EQ(test, obj->funcs->status(obj), DRM_GEM_OBJECT_RESIDENT);
	drm_gem_shmem_unpin(to_drm_gem_shmem_obj(obj));
	KUNIT_EXPECT_EQ(test, obj->funcs->status(obj),
			DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE);
	drm_gem_object_put(obj);

	args.handle = vram;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_gem_madvise, &args),
			-EINVAL);
}

static void uapi_test_submit_args(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0);
	u32 bo = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM);
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1 };
	struct drm_simgpu_submit args = {
		.exec_queue_id = queue,
		.num_cmds = 1,
		.cmds = (u64)(uintptr_t)ut->ubuf,
	};
	const struct {
		struct drm_simgpu_sync sync;
		int ret;
	} sync_cases[] = {
		{ { .handle = 1234 }, -ENOENT },
		{ { .flags = DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ,
		    .handle = 1234, .timeline_value = 1 }, -ENOENT },
		{ { .handle = 1234, .timeline_value = 1 }, -EINVAL },
		{ { .flags = DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ,
		    .handle = 1234 }, -EINVAL },
		{ { .flags = 2, .handle = 1234 }, -EINVAL },
		{ { .flags = 1u << 8, .handle = 1234 }, -EINVAL },
	};
	struct drm_simgpu_user_extension ext = {};
	struct drm_simgpu_sync sync;
	u32 handle = 1234;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, &cmd, sizeof(cmd)), 0);
	args.flags = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.flags = 0;
	args.num_cmds = 0;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.num_cmds = SIMGPU_MAX_CMDS + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.num_cmds = 1;
	args.num_bo_handles = DRM_SIMGPU_MAX_BO_HANDLES + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.num_bo_handles = 0;
	args.num_in_syncs = DRM_SIMGPU_MAX_IN_SYNCS + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.num_in_syncs = 0;
	args.num_out_syncs = DRM_SIMGPU_MAX_OUT_SYNCS + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.num_out_syncs = 0;
	args.pad = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.pad = 0;
	args.exec_queue_id = queue + 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -ENOENT);
	args.exec_queue_id = queue;
	args.cmds = 8;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EFAULT);
	args.cmds = (u64)(uintptr_t)ut->ubuf;

	/* Buffer handles, from the second half of the page */
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf + 2048, &handle,
					   sizeof(handle)), 0);
	args.num_bo_handles = 1;
	args.bo_handles = (u64)(uintptr_t)(ut->ubuf + 2048);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -ENOENT);
	args.bo_handles = 8;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EFAULT);
	args.num_bo_handles = 0;

	/* Syncs: unknown syncobjs, bad types and points, bad pointers */
	for (i = 0; i < ARRAY_SIZE(sync_cases); i++) {
		args.in_syncs = syncs_to_user(test, &sync_cases[i].sync, 1);
		args.out_syncs = args.in_syncs;
		args.num_in_syncs = 1;
		KUNIT_EXPECT_EQ_MSG(test, call(test, simgpu_ioctl_submit, &args),
				    sync_cases[i].ret, "in-sync case %u", i);
		args.num_in_syncs = 0;
		args.num_out_syncs = 1;
		KUNIT_EXPECT_EQ_MSG(test, call(test, simgpu_ioctl_submit, &args),
				    sync_cases[i].ret, "out-sync case %u", i);
		args.num_out_syncs = 0;
	}
	/* A syncobj that has no fence, or not the point, cannot be waited */
	sync = (struct drm_simgpu_sync){ .handle = syncobj_create(test) };
	args.in_syncs = syncs_to_user(test, &sync, 1);
	args.num_in_syncs = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	sync.flags = DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ;
	sync.timeline_value = 1;
	args.in_syncs = syncs_to_user(test, &sync, 1);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.in_syncs = 8;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EFAULT);
	args.num_in_syncs = 0;
	args.out_syncs = 8;
	args.num_out_syncs = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EFAULT);
	args.num_out_syncs = 0;

	/* No extension is defined: a chain is refused */
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf2, &ext, sizeof(ext)), 0);
	args.extensions = (u64)(uintptr_t)ut->ubuf2;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	args.extensions = 8;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EFAULT);
	args.extensions = 0;

	/* Commands */
	cmd = (struct drm_simgpu_cmd){ .op = 0 };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_IDLE + 1 };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_BUSY,
				       .value = NSEC_PER_SEC + 1 };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_BUSY, .handle = bo };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_IDLE,
				       .value = NSEC_PER_SEC + 1 };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_IDLE, .offset = 4 };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_HANG, .value = 1 };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd = (struct drm_simgpu_cmd){ .op = DRM_SIMGPU_CMD_WRITE,
				       .handle = bo, .offset = 2 };
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd.offset = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd.offset = PAGE_SIZE - 4;
	cmd.handle = bo + 1;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -ENOENT);
	cmd.handle = bo;
	/* A WRITE stores 32 bits: a value that does not fit is refused */
	cmd.value = 0x1234567800c0ffeeULL;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
	cmd.value = 0x00c0ffee;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), 0);

	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() + NSEC_PER_SEC),
			0);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, PAGE_SIZE - 4), 0x00c0ffee);
}

static void uapi_test_wait_bo(struct kunit *test)
{
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	u32 bo = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_VRAM0);
	struct drm_simgpu_wait_bo args = { .handle = bo, .pad = 1 };
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 100 * NSEC_PER_MSEC },
		{ .op = DRM_SIMGPU_CMD_WRITE, .handle = bo, .value = 7 },
	};

	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_wait_bo, &args), -EINVAL);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo + 1, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, 0), 0);

	KUNIT_ASSERT_EQ(test, submit(test, queue, cmds, 2), 0);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, 0), -ETIME);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      10 * NSEC_PER_MSEC), -ETIME);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      2ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 7);
}

/*
 * A hang: the hung job fails with -ETIMEDOUT, the job queued behind it in
 * its queue with -ECANCELED, the queue is banned; a job of another queue
 * on the same engine completes without an error.
 */
static void uapi_test_hang(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 guilty = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 innocent = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 bo = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM);
	u32 bo2 = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM);
	u32 s_hang = syncobj_create(test), s_behind = syncobj_create(test);
	u32 s_innocent = syncobj_create(test);
	struct drm_simgpu_cmd hang = { .op = DRM_SIMGPU_CMD_HANG };
	struct drm_simgpu_cmd write = {
		.op = DRM_SIMGPU_CMD_WRITE, .handle = bo, .value = 42,
	};
	unsigned int id = SIMGPU_HW_ENGINE_ID(DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	struct simgpu_engine *eng = ut->sdev->engine_by_hw_id[id];

	KUNIT_ASSERT_NOT_NULL(test, eng);
	KUNIT_ASSERT_EQ(test, submit_sync(test, guilty, &hang, 1, s_hang), 0);
	/* Queued behind the hang in the guilty queue: never runs */
	write.handle = bo2;
	write.value = 1;
	KUNIT_ASSERT_EQ(test, submit_sync(test, guilty, &write, 1, s_behind), 0);
	write.handle = bo;
	write.value = 42;
	KUNIT_ASSERT_EQ(test, submit_sync(test, innocent, &write, 1,
					  s_innocent), 0);

	KUNIT_EXPECT_EQ(test, sync_status(test, s_hang), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, sync_status(test, s_behind), -ECANCELED);
	KUNIT_EXPECT_EQ(test, sync_status(test, s_innocent), 1);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 42);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo2, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo2, 0), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_TIMEOUT]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_ERROR]), 0);

	KUNIT_EXPECT_EQ(test, submit(test, guilty, &write, 1), -ECANCELED);
	write.value = 43;
	KUNIT_EXPECT_EQ(test, submit_sync(test, innocent, &write, 1,
					  s_innocent), 0);
	KUNIT_EXPECT_EQ(test, sync_status(test, s_innocent), 1);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 43);
}

/*
 * Is the context of exec queue @id on its client's active list, which
 * fdinfo reads walk?
 */
static bool queue_ctx_active(struct kunit *test, u32 id)
{
	struct uapi_test *ut = test->priv;
	struct simgpu_queue *queue;
	struct simgpu_ctx *ctx;
	bool active;

	queue = simgpu_queue_lookup(to_simgpu_file(ut->dfile), id);
	KUNIT_ASSERT_NOT_NULL(test, queue);
	ctx = queue->ctx;
	spin_lock_irq(&ctx->usage->lock);
	active = !list_empty(&ctx->active_link);
	spin_unlock_irq(&ctx->usage->lock);
	simgpu_queue_put(queue);

	return active;
}

/* An opcode the engine does not know: it halts with RING_STATUS_ERROR */
static unsigned int bad_batch(struct simgpu_job *job,
			      const struct drm_simgpu_cmd *cmds, u32 num_cmds)
{
	job->batch[0] = cpu_to_le32(0xbad);
	return 1;
}

/*
 * An engine halted on an error is reset from its interrupt, not at the job
 * timeout: the job fails with -EIO, its queue is banned, another queue's
 * job behind it on the engine completes.
 */
static void uapi_test_engine_error(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 guilty = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 innocent = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 s_bad = syncobj_create(test), s_innocent = syncobj_create(test);
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_MSEC,
	};
	unsigned int id = SIMGPU_HW_ENGINE_ID(DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	struct simgpu_engine *eng = ut->sdev->engine_by_hw_id[id];

	KUNIT_ASSERT_NOT_NULL(test, eng);
	kunit_activate_static_stub(test, simgpu_job_build_batch, bad_batch);
	KUNIT_ASSERT_EQ(test, submit_sync(test, guilty, &busy, 1, s_bad), 0);
	kunit_deactivate_static_stub(test, simgpu_job_build_batch);
	KUNIT_ASSERT_EQ(test, submit_sync(test, innocent, &busy, 1,
					  s_innocent), 0);

	KUNIT_EXPECT_EQ(test, sync_status(test, s_bad), -EIO);
	KUNIT_EXPECT_EQ(test, sync_status(test, s_innocent), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_ERROR]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_TIMEOUT]), 0);
	KUNIT_EXPECT_EQ(test, submit(test, guilty, &busy, 1), -ECANCELED);
	/* Its aborted batch was its last: fdinfo reads skip it */
	KUNIT_EXPECT_FALSE(test, queue_ctx_active(test, guilty));
}

/* Jobs of a queue run in order; a syncobj orders jobs of two queues */
static void uapi_test_ordering(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 q1 = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COMPUTE, 0);
	u32 q2 = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	u32 bo = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_VRAM0);
	struct drm_simgpu_cmd cmds[3] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 100 * NSEC_PER_USEC },
		{ .op = DRM_SIMGPU_CMD_WRITE, .handle = bo },
		{ .op = DRM_SIMGPU_CMD_WRITE, .handle = bo },
	};
	struct drm_simgpu_submit args = {
		.num_cmds = 2,
		.cmds = (u64)(uintptr_t)ut->ubuf,
	};
	struct drm_simgpu_sync sync = {};
	struct drm_syncobj *syncobj;
	struct dma_fence *fence;
	u32 handle;
	unsigned int i;

	for (i = 0; i < 32; i++) {
		cmds[1].value = i;
		cmds[2].offset = 4 * (i + 1);
		cmds[2].value = 3 * i + 1;
		KUNIT_ASSERT_EQ(test, submit(test, q1, cmds, 3), 0);
	}
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 31);
	for (i = 0; i < 32; i++)
		KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 4 * (i + 1)),
				3 * i + 1);

	KUNIT_ASSERT_EQ(test, drm_syncobj_create(&syncobj, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, drm_syncobj_get_handle(ut->dfile, syncobj,
						     &handle), 0);
	drm_syncobj_put(syncobj);

	/* q1: a long job that signals the syncobj, q2 waits for it */
	cmds[0].value = 50 * NSEC_PER_MSEC;
	cmds[1].value = 1;
	sync.handle = handle;
	args.exec_queue_id = q1;
	args.out_syncs = syncs_to_user(test, &sync, 1);
	args.num_out_syncs = 1;
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, cmds, sizeof(cmds)), 0);
	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_submit, &args), 0);
	cmds[1].value = 2;
	args.exec_queue_id = q2;
	args.in_syncs = args.out_syncs;
	args.num_in_syncs = 1;
	args.num_out_syncs = 0;
	args.num_cmds = 1;
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, &cmds[1],
					   sizeof(cmds[1])), 0);
	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_submit, &args), 0);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 2);

	KUNIT_ASSERT_EQ(test, drm_syncobj_find_fence(ut->dfile, handle, 0, 0,
						     &fence), 0);
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(fence));
	KUNIT_EXPECT_EQ(test, fence->error, 0);
	dma_fence_put(fence);
}

/* Create and destroy many queues and buffers */
static void uapi_test_cycles(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_exec_queue_destroy destroy = {};
	unsigned int i;

	for (i = 0; i < 10000; i++) {
		destroy.exec_queue_id =
			queue_create(test, i % DRM_SIMGPU_ENGINE_CLASS_COUNT,
				     DRM_SIMGPU_ENGINE_INSTANCE_ANY);
		KUNIT_ASSERT_EQ(test, call(test,
					   simgpu_ioctl_exec_queue_destroy,
					   &destroy), 0);
	}
	for (i = 0; i < 10000; i++) {
		u32 bo = bo_create(test, PAGE_SIZE * (1 + i % 4),
				   i % DRM_SIMGPU_REGION_COUNT);

		KUNIT_ASSERT_EQ(test, drm_gem_handle_delete(ut->dfile, bo), 0);
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&ut->sdev->vram_used), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ut->sdev->sys_used), 0);
}

/* Closing a file with jobs queued and running */
static void uapi_test_close_busy(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_MSEC },
		{ .op = DRM_SIMGPU_CMD_WRITE },
	};
	struct drm_file *dfile = ut->dfile;
	struct file *file = ut->file;
	unsigned int before = simgpu_queue_num();
	unsigned int i, j;
	u32 queues[4];
	u32 bo;

	/* Use a second file; the fixture's one is closed at exit */
	ut->file = mock_drm_getfile(ut->sdev->drm.primary, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ut->file);
	ut->dfile = ut->file->private_data;

	bo = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM);
	cmds[1].handle = bo;
	for (i = 0; i < 4; i++)
		queues[i] = queue_create(test, i,
					 DRM_SIMGPU_ENGINE_INSTANCE_ANY);
	for (j = 0; j < 20; j++)
		for (i = 0; i < 4; i++)
			KUNIT_ASSERT_EQ(test, submit(test, queues[i], cmds, 2),
					0);

	fput(ut->file);
	flush_delayed_fput();
	ut->file = file;
	ut->dfile = dfile;

	/*
	 * The queues can outlive the file until their jobs are done, then
	 * free themselves on the driver's workqueue, which module exit waits
	 * for.
	 */
	KUNIT_EXPECT_GT(test, simgpu_queue_wait_freed(before, 10 * HZ), 0);
	KUNIT_EXPECT_LE(test, simgpu_queue_num(), before);
}

/*
 * A thread may hold the reservation of a buffer a job wrote while it waits
 * for a later job of the same engine. Freeing the first job unpins the
 * buffer, which takes that reservation: done on the scheduler's ordered
 * workqueue, it would keep the later job from ever running. With the
 * submission FIFO full, the later job waits for credits, which only a
 * free_job work item gives it the chance to take.
 */
static void uapi_test_free_job_resv(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0);
	u32 bo = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM);
	u32 later = syncobj_create(test);
	struct drm_simgpu_cmd cmds[2] = {
		/* Time to lock the buffer before the job is freed */
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_SEC },
		{ .op = DRM_SIMGPU_CMD_WRITE, .handle = bo, .value = 1 },
	};
	struct drm_simgpu_cmd tiny = {
		.op = DRM_SIMGPU_CMD_BUSY,
		.value = NSEC_PER_USEC,
	};
	struct drm_gem_object *obj;
	unsigned int i;

	obj = drm_gem_object_lookup(ut->dfile, bo);
	KUNIT_ASSERT_NOT_NULL(test, obj);

	/* Fill the FIFO, the writer first; the job after waits for credits */
	KUNIT_ASSERT_EQ(test, submit(test, queue, cmds, 2), 0);
	for (i = 1; i < RING_SUBMIT_FIFO_DEPTH; i++)
		KUNIT_ASSERT_EQ(test, submit(test, queue, &tiny, 1), 0);
	KUNIT_ASSERT_EQ(test, submit_sync(test, queue, &tiny, 1, later), 0);

	/* No user memory is touched under the lock (mmap_lock nests outside) */
	dma_resv_lock(obj->resv, NULL);
	KUNIT_EXPECT_EQ_MSG(test, sync_status(test, later), 1,
			    "the scheduler waits for a reservation lock");
	dma_resv_unlock(obj->resv);
	drm_gem_object_put(obj);
}

/* The shrinker purges idle DONTNEED buffers */
static void uapi_test_purge(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct shrinker *shrinker = ut->sdev->shrinker;
	struct shrink_control sc = {
		.gfp_mask = GFP_KERNEL,
		.nr_to_scan = 1024,
	};
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0);
	struct drm_simgpu_gem_madvise args = {
		.handle = bo_create(test, 4 * PAGE_SIZE,
				    DRM_SIMGPU_REGION_SYSTEM),
		.madv = DRM_SIMGPU_MADV_DONTNEED,
	};
	struct drm_simgpu_cmd cmd = {
		.op = DRM_SIMGPU_CMD_WRITE,
		.handle = args.handle,
		.value = 1,
	};
	unsigned long freed = 0;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, submit(test, queue, &cmd, 1), 0);
	KUNIT_ASSERT_EQ(test, wait_bo(test, args.handle, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_gem_madvise, &args), 0);
	KUNIT_EXPECT_EQ(test, args.retained, 1);
	KUNIT_EXPECT_EQ(test, shrinker->count_objects(shrinker, &sc), 4);

	/* The job unpins the pages when it is freed, a little later */
	for (i = 0; i < 100 && !freed; i++) {
		freed = shrinker->scan_objects(shrinker, &sc);
		if (freed == SHRINK_STOP) {
			freed = 0;
			msleep(20);
		}
	}
	KUNIT_EXPECT_EQ(test, freed, 4);
	KUNIT_EXPECT_EQ(test, shrinker->count_objects(shrinker, &sc),
			SHRINK_EMPTY);

	args.madv = DRM_SIMGPU_MADV_WILLNEED;
	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_gem_madvise, &args), 0);
	KUNIT_EXPECT_EQ(test, args.retained, 0);
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -EINVAL);
}

/* The extension handlers of uapi_test_extensions(): counts its calls */
static int ext_count(u64 extension, void *data)
{
	(*(unsigned int *)data)++;
	return 0;
}

static int ext_fail(u64 extension, void *data)
{
	return -ENODEV;
}

/*
 * The extension walker: each extension reaches the handler of its name, a
 * chain longer than DRM_SIMGPU_MAX_USER_EXTENSIONS (a loop) is -E2BIG, an
 * unknown name or a non-zero pad -EINVAL.
 */
static void uapi_test_extensions(struct kunit *test)
{
	static const simgpu_user_extension_fn fns[] = {
		ext_count, NULL, ext_fail,
	};
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_user_extension __user *uext = ut->ubuf2;
	const unsigned int max = DRM_SIMGPU_MAX_USER_EXTENSIONS;
	struct drm_simgpu_user_extension ext[DRM_SIMGPU_MAX_USER_EXTENSIONS];
	unsigned int i, calls = 0;

	KUNIT_ASSERT_LE(test, sizeof(ext), PAGE_SIZE);
	/* A chain of max extensions, all ext_count */
	for (i = 0; i < max; i++)
		ext[i] = (struct drm_simgpu_user_extension){
			.next_extension = i + 1 < max ?
				(u64)(uintptr_t)&uext[i + 1] : 0,
		};
	KUNIT_ASSERT_EQ(test, copy_to_user(uext, ext, sizeof(ext)), 0);
	KUNIT_EXPECT_EQ(test, simgpu_user_extensions(0, fns, 3, &calls), 0);
	KUNIT_EXPECT_EQ(test, calls, 0);
	KUNIT_EXPECT_EQ(test, simgpu_user_extensions((u64)(uintptr_t)uext,
						     fns, 3, &calls), 0);
	KUNIT_EXPECT_EQ(test, calls, max);

	/* One more is too long; so is a loop */
	ext[max - 1].next_extension = (u64)(uintptr_t)&uext[0];
	KUNIT_ASSERT_EQ(test, copy_to_user(uext, ext, sizeof(ext)), 0);
	calls = 0;
	KUNIT_EXPECT_EQ(test, simgpu_user_extensions((u64)(uintptr_t)uext,
						     fns, 3, &calls), -E2BIG);
	KUNIT_EXPECT_EQ(test, calls, max);

	/* Names without a handler, a pad, a handler's error, a bad pointer */
	ext[0].next_extension = 0;
	for (i = 1; i < 5; i++) {
		ext[0].name = i;
		ext[0].pad = i == 4;
		if (i == 4)
			ext[0].name = 0;
		KUNIT_ASSERT_EQ(test, copy_to_user(uext, ext, sizeof(ext[0])),
				0);
		KUNIT_EXPECT_EQ_MSG(test,
				    simgpu_user_extensions((u64)(uintptr_t)uext,
							   fns, 3, &calls),
				    i == 2 ? -ENODEV : -EINVAL, "case %u", i);
	}
	KUNIT_EXPECT_EQ(test, simgpu_user_extensions(8, fns, 3, &calls),
			-EFAULT);
	/* The ioctls define none yet */
	ext[0] = (struct drm_simgpu_user_extension){};
	KUNIT_ASSERT_EQ(test, copy_to_user(uext, ext, sizeof(ext[0])), 0);
	KUNIT_EXPECT_EQ(test, simgpu_user_extensions((u64)(uintptr_t)uext,
						     NULL, 0, NULL), -EINVAL);
}

/*
 * Timeline syncobjs: a job signals a point, which another job waits for;
 * one submit signals a binary syncobj and a point together; a point not
 * submitted yet cannot be waited for.
 */
static void uapi_test_timeline(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 q1 = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COMPUTE, 0);
	u32 q2 = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	u32 bo = bo_create(test, PAGE_SIZE, DRM_SIMGPU_REGION_SYSTEM);
	u32 timeline = syncobj_create(test), binary = syncobj_create(test);
	struct drm_simgpu_cmd cmds[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = 20 * NSEC_PER_MSEC },
		{ .op = DRM_SIMGPU_CMD_WRITE, .handle = bo, .value = 1 },
	};
	struct drm_simgpu_sync syncs[2] = {
		{ .flags = DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ,
		  .handle = timeline, .timeline_value = 5 },
		{ .handle = binary },
	};
	struct drm_simgpu_submit args = {
		.exec_queue_id = q1,
		.num_cmds = 2,
		.cmds = (u64)(uintptr_t)ut->ubuf,
		.num_out_syncs = 2,
	};
	struct dma_fence *fence, *point;

	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, cmds, sizeof(cmds)), 0);
	args.out_syncs = syncs_to_user(test, syncs, 2);
	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_submit, &args), 0);

	/* Both hold the job's fence; point 5 exists, 6 does not */
	KUNIT_ASSERT_EQ(test, drm_syncobj_find_fence(ut->dfile, binary, 0, 0,
						     &fence), 0);
	KUNIT_ASSERT_EQ(test, drm_syncobj_find_fence(ut->dfile, timeline, 5, 0,
						     &point), 0);
	KUNIT_EXPECT_EQ(test, point->seqno, 5);
	KUNIT_EXPECT_PTR_EQ(test, dma_fence_chain_contained(point), fence);
	dma_fence_put(point);
	KUNIT_EXPECT_EQ(test, drm_syncobj_find_fence(ut->dfile, timeline, 6,
						     0, &point), -EINVAL);

	/* q2 waits for point 5, then overwrites the word */
	cmds[1].value = 2;
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, &cmds[1],
					   sizeof(cmds[1])), 0);
	args.exec_queue_id = q2;
	args.num_cmds = 1;
	args.num_out_syncs = 0;
	args.in_syncs = syncs_to_user(test, syncs, 1);
	args.num_in_syncs = 1;
	KUNIT_ASSERT_EQ(test, call(test, simgpu_ioctl_submit, &args), 0);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_TRUE(test, dma_fence_is_signaled(fence));
	dma_fence_put(fence);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 2);

	/* Point 6 was never submitted */
	syncs[0].timeline_value = 6;
	args.in_syncs = syncs_to_user(test, syncs, 1);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	/* A point below the last one submitted is the next one up's */
	syncs[0].timeline_value = 3;
	args.in_syncs = syncs_to_user(test, syncs, 1);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), 0);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
}

/* The u32 at byte @offset of a shmem buffer, without mapping all of it */
static u32 bo_page_read32(struct kunit *test, u32 handle, u64 offset)
{
	struct uapi_test *ut = test->priv;
	struct drm_gem_object *obj = drm_gem_object_lookup(ut->dfile, handle);
	struct page *page;
	__le32 *p;
	u32 val;

	KUNIT_ASSERT_NOT_NULL(test, obj);
	page = shmem_read_mapping_page(obj->filp->f_mapping,
				       offset >> PAGE_SHIFT);
	drm_gem_object_put(obj);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
	p = kmap_local_page(page);
	val = le32_to_cpu(p[offset_in_page(offset) / 4]);
	kunmap_local(p);
	put_page(page);

	return val;
}

/*
 * A COPY whose source lies above 4 GiB in a buffer larger than that: only
 * the pages it touches are allocated.
 */
static void uapi_test_copy_64bit(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	const u64 src = SZ_4G + SZ_1G + 4088;
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	struct drm_simgpu_cmd cmds[3] = {
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = src, .value = 0x1234 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .offset = src + 4,
		  .value = 0x5678 },
		{ .op = DRM_SIMGPU_CMD_COPY, .offset = 64, .src_offset = src,
		  .value = 8 },
	};
	u32 bo;

	ut->sdev->sys_size = 8ULL * SZ_1G;
	ut->sdev->max_bo_size = 8ULL * SZ_1G;
	bo = bo_create(test, 6ULL * SZ_1G, DRM_SIMGPU_REGION_SYSTEM);
	cmds[0].handle = bo;
	cmds[1].handle = bo;
	cmds[2].handle = bo;
	KUNIT_ASSERT_EQ(test, submit(test, queue, cmds, 3), 0);
	KUNIT_ASSERT_EQ(test, wait_bo(test, bo, ktime_get_ns() +
				      5ULL * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, bo_page_read32(test, bo, 64), 0x1234);
	KUNIT_EXPECT_EQ(test, bo_page_read32(test, bo, 68), 0x5678);

	/* Past the end of the buffer */
	cmds[2].src_offset = 6ULL * SZ_1G;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmds[2], 1), -EINVAL);
	cmds[2].src_offset = 6ULL * SZ_1G - 4;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmds[2], 1), -EINVAL);
}

static struct kunit_case uapi_test_cases[] = {
	KUNIT_CASE(uapi_test_query),
	KUNIT_CASE(uapi_test_queue_create),
	KUNIT_CASE(uapi_test_queue_destroy),
	KUNIT_CASE(uapi_test_gem_create),
	KUNIT_CASE(uapi_test_sys_limits),
	KUNIT_CASE(uapi_test_mmap_offset),
	KUNIT_CASE(uapi_test_madvise),
	KUNIT_CASE(uapi_test_purge),
	KUNIT_CASE(uapi_test_submit_args),
	KUNIT_CASE(uapi_test_wait_bo),
	KUNIT_CASE_SLOW(uapi_test_hang),
	KUNIT_CASE(uapi_test_engine_error),
	KUNIT_CASE(uapi_test_ordering),
	KUNIT_CASE(uapi_test_extensions),
	KUNIT_CASE(uapi_test_timeline),
	KUNIT_CASE(uapi_test_copy_64bit),
	KUNIT_CASE_SLOW(uapi_test_cycles),
	KUNIT_CASE(uapi_test_close_busy),
	KUNIT_CASE(uapi_test_free_job_resv),
	{}
};

static struct kunit_suite uapi_test_suite = {
	.name = "simgpu_uapi",
	.init = uapi_test_init,
	.exit = uapi_test_exit,
	.test_cases = uapi_test_cases,
};

static int timeout_test_init(struct kunit *test)
{
	uapi_test_setup(test, true);
	return 0;
}

/*
 * The exec queues of the closed file are freed by work items that read
 * the device's registers, so its fake clock: wait for them before the
 * clock goes away with the test.
 */
static void timeout_test_exit(struct kunit *test)
{
	uapi_test_exit(test);
	KUNIT_EXPECT_NE(test, simgpu_queue_wait_freed(0, 5 * HZ), 0);
}

static unsigned int inflight_count(struct simgpu_engine *eng)
{
	struct list_head *pos;
	unsigned int n = 0;

	spin_lock_irq(&eng->lock);
	list_for_each(pos, &eng->inflight)
		n++;
	spin_unlock_irq(&eng->lock);
	return n;
}

/* Wait (real time) until @n jobs were written to @eng's submission port */
static void wait_inflight(struct kunit *test, struct simgpu_engine *eng,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 2000 && inflight_count(eng) < n; i++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_EQ(test, inflight_count(eng), n);
}

/*
 * Move the fake clock by @ns and run the timeout handler's hardware part
 * at once, with interrupts off: on the single CPU of the KUnit kernel no
 * timer of the model runs in between, so the engine has work that completed
 * in virtual time and that nothing has evaluated yet, the interleaving of
 * a completion with its timeout. Returns whether the engine was reset.
 */
static bool timeout_now(struct kunit *test, struct simgpu_engine *eng, u64 ns)
{
	struct uapi_test *ut = test->priv;
	unsigned long flags;
	LIST_HEAD(done);
	bool reset;

	local_irq_save(flags);
	WRITE_ONCE(ut->clock, ut->clock + ns);
	spin_lock(&eng->lock);
	reset = simgpu_engine_check_hang(eng, &done);
	simgpu_engine_signal(eng, &done);
	spin_unlock(&eng->lock);
	local_irq_restore(flags);

	return reset;
}

static struct simgpu_engine *test_engine(struct kunit *test, u16 class,
					 u16 instance)
{
	struct uapi_test *ut = test->priv;
	struct simgpu_engine *eng;

	eng = ut->sdev->engine_by_hw_id[SIMGPU_HW_ENGINE_ID(class, instance)];
	KUNIT_ASSERT_NOT_NULL(test, eng);
	return eng;
}

/* A job that completed as its timeout fired is not failed */
static void timeout_test_completed_job(struct kunit *test)
{
	struct simgpu_engine *eng = test_engine(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_MSEC,
	};
	u32 sync = syncobj_create(test);

	KUNIT_ASSERT_EQ(test, submit_sync(test, queue, &busy, 1, sync), 0);
	wait_inflight(test, eng, 1);

	KUNIT_EXPECT_FALSE(test, timeout_now(test, eng, 2 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, sync_status(test, sync), 1);
	KUNIT_EXPECT_EQ(test, inflight_count(eng), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_TIMEOUT]), 0);
}

/*
 * A job completes and the next one of its context hangs, both before the
 * timeout looks: the completed job succeeds, the hung one is guilty.
 */
static void timeout_test_guilty_is_hung(struct kunit *test)
{
	struct simgpu_engine *eng = test_engine(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_MSEC,
	};
	struct drm_simgpu_cmd hang = { .op = DRM_SIMGPU_CMD_HANG };
	u32 ok = syncobj_create(test), hung = syncobj_create(test);

	KUNIT_ASSERT_EQ(test, submit_sync(test, queue, &busy, 1, ok), 0);
	KUNIT_ASSERT_EQ(test, submit_sync(test, queue, &hang, 1, hung), 0);
	wait_inflight(test, eng, 2);

	KUNIT_EXPECT_TRUE(test, timeout_now(test, eng, 2 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, sync_status(test, ok), 1);
	KUNIT_EXPECT_EQ(test, sync_status(test, hung), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, inflight_count(eng), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_TIMEOUT]), 1);
	KUNIT_EXPECT_EQ(test, submit_sync(test, queue, &busy, 1, 0),
			-ECANCELED);
	/* The banned queue's context is switched out: fdinfo reads skip it */
	KUNIT_EXPECT_FALSE(test, queue_ctx_active(test, queue));
}

/*
 * A job making progress is given more time until it reaches the run-time
 * limit, then its engine is reset and it fails with -ETIMEDOUT; the job of
 * another queue behind it runs. The limit counts from when the job got to
 * the engine, not from its submission.
 */
static void timeout_test_run_time_limit(struct kunit *test)
{
	struct simgpu_engine *eng = test_engine(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 first = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 hog = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	u32 other = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	struct drm_simgpu_cmd busy[10];
	u32 s_first = syncobj_create(test), s_hog = syncobj_create(test);
	u32 s_other = syncobj_create(test);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, eng->sdev->max_job_ns, 5ULL * NSEC_PER_SEC);
	for (i = 0; i < ARRAY_SIZE(busy); i++)
		busy[i] = (struct drm_simgpu_cmd){
			.op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_SEC,
		};
	/* 4 s, then the hog's 10 s, then 1 ms */
	KUNIT_ASSERT_EQ(test, submit_sync(test, first, busy, 4, s_first), 0);
	KUNIT_ASSERT_EQ(test, submit_sync(test, hog, busy, 10, s_hog), 0);
	busy[0].value = NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, submit_sync(test, other, busy, 1, s_other), 0);
	wait_inflight(test, eng, 3);

	KUNIT_EXPECT_FALSE(test, timeout_now(test, eng, 3ULL * NSEC_PER_SEC));
	/* The first job completed: the hog is first since 4.5 s */
	KUNIT_EXPECT_FALSE(test, timeout_now(test, eng, 1500 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, sync_status(test, s_first), 1);
	KUNIT_EXPECT_FALSE(test, timeout_now(test, eng, 4ULL * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, inflight_count(eng), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_TIMEOUT]), 0);

	/* 5.5 s into the hog */
	KUNIT_EXPECT_TRUE(test, timeout_now(test, eng, 1500 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, sync_status(test, s_hog), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, atomic_read(&eng->resets[SIMGPU_RESET_TIMEOUT]), 1);
	KUNIT_EXPECT_FALSE(test, timeout_now(test, eng, 2 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, sync_status(test, s_other), 1);
	KUNIT_EXPECT_EQ(test, inflight_count(eng), 0);
	KUNIT_EXPECT_EQ(test, submit_sync(test, hog, busy, 1, 0), -ECANCELED);
}

static struct kunit_case timeout_test_cases[] = {
	KUNIT_CASE(timeout_test_completed_job),
	KUNIT_CASE(timeout_test_guilty_is_hung),
	KUNIT_CASE(timeout_test_run_time_limit),
	{}
};

static struct kunit_suite timeout_test_suite = {
	.name = "simgpu_timeout",
	.init = timeout_test_init,
	.exit = timeout_test_exit,
	.test_cases = timeout_test_cases,
};

/* Performance counters: the perfmon ioctls, COPY and SAMPLE */

/* Submit @cmds to @queue counting into @perfmon, with out-sync @sync */
static int submit_pm(struct kunit *test, u32 queue,
		     const struct drm_simgpu_cmd *cmds, u32 num_cmds,
		     u32 perfmon, u32 sync)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_sync out = { .handle = sync };
	struct drm_simgpu_submit args = {
		.exec_queue_id = queue,
		.num_cmds = num_cmds,
		.cmds = (u64)(uintptr_t)ut->ubuf,
		.num_out_syncs = sync ? 1 : 0,
		.perfmon_id = perfmon,
	};

	KUNIT_ASSERT_LE(test, num_cmds * sizeof(*cmds), PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, cmds,
					   num_cmds * sizeof(*cmds)), 0);
	args.out_syncs = syncs_to_user(test, &out, 1);
	return call(test, simgpu_ioctl_submit, &args);
}

static int pm_create(struct kunit *test, const u32 *ids, u32 num, u32 *id)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_perfmon_create args = {
		.counters = (u64)(uintptr_t)ut->ubuf2,
		.num_counters = num,
	};
	int ret;

	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf2, ids,
					   min(num, 8u) * sizeof(*ids)), 0);
	ret = call(test, simgpu_ioctl_perfmon_create, &args);
	if (!ret) {
		KUNIT_EXPECT_NE(test, args.id, 0);
		*id = args.id;
	}
	return ret;
}

static int pm_destroy(struct kunit *test, u32 id)
{
	struct drm_simgpu_perfmon_destroy args = { .id = id };

	return call(test, simgpu_ioctl_perfmon_destroy, &args);
}

/* GET_VALUES of @num values into @values, the seqno into @seqno */
static int pm_values(struct kunit *test, u32 id, u32 flags, s64 timeout_ns,
		     u64 *values, u32 num, u64 *seqno)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_perfmon_get_values args = {
		.id = id,
		.flags = flags,
		.timeout_ns = timeout_ns,
		.values = (u64)(uintptr_t)ut->ubuf2,
		.num_values = num,
	};
	int ret;

	ret = call(test, simgpu_ioctl_perfmon_get_values, &args);
	if (!ret) {
		KUNIT_ASSERT_EQ(test, copy_from_user(values, ut->ubuf2,
						     num * sizeof(*values)), 0);
		*seqno = args.seqno;
	}
	return ret;
}

static s64 in_5s(void)
{
	return ktime_get_ns() + 5LL * NSEC_PER_SEC;
}

static int pm_set_global(struct kunit *test, u32 flags, u32 id)
{
	struct drm_simgpu_perfmon_set_global args = {
		.flags = flags,
		.id = id,
	};

	return call(test, simgpu_ioctl_perfmon_set_global, &args);
}

static u64 bo_read64(struct kunit *test, u32 handle, u32 offset)
{
	return bo_read32(test, handle, offset) |
	       (u64)bo_read32(test, handle, offset + 4) << 32;
}

static void perfmon_test_query(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_query q = { .type = DRM_SIMGPU_QUERY_COUNTERS };
	struct drm_simgpu_query_counters *c;
	size_t size = struct_size(c, counters, 8);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), 0);
	KUNIT_ASSERT_EQ(test, q.size, size);
	KUNIT_ASSERT_LE(test, size, PAGE_SIZE);
	q.data = (u64)(uintptr_t)ut->ubuf;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_query, &q), 0);
	c = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ(test, copy_from_user(c, ut->ubuf, size), 0);
	KUNIT_EXPECT_EQ(test, c->num_counters, 8);
	KUNIT_EXPECT_EQ(test, c->num_slots, 4);
	KUNIT_EXPECT_EQ(test, c->report_size, 64);
	KUNIT_EXPECT_EQ(test, c->pad, 0);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, c->counters[i].id, i);
		KUNIT_EXPECT_EQ(test, c->counters[i].pad, 0);
		KUNIT_EXPECT_GT(test, strlen(c->counters[i].name), 0);
		KUNIT_EXPECT_GT(test, strlen(c->counters[i].category), 0);
		KUNIT_EXPECT_GT(test, strlen(c->counters[i].unit), 0);
		KUNIT_EXPECT_GT(test, strlen(c->counters[i].description), 0);
	}
	KUNIT_EXPECT_STREQ(test, c->counters[0].name, "busy-ticks");
	KUNIT_EXPECT_STREQ(test, c->counters[0].unit, "ticks");
	KUNIT_EXPECT_STREQ(test, c->counters[3].name, "bytes-written");
	KUNIT_EXPECT_STREQ(test, c->counters[3].category, "memory");
	KUNIT_EXPECT_STREQ(test, c->counters[7].name, "samples");
	KUNIT_EXPECT_STREQ(test, c->counters[7].category, "frontend");
}

static void perfmon_test_create_destroy(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_perfmon_create bad = { .counters = 8,
						 .num_counters = 1 };
	const u32 five[8] = { 0, 1, 2, 3, 4 };
	const u32 dup[4] = { 1, 2, 1 };
	const u32 unknown[2] = { 0, 8 };
	u32 ids[DRM_SIMGPU_MAX_PERFMONS];
	u32 id, i;

	KUNIT_EXPECT_EQ(test, pm_create(test, five, 0, &id), -EINVAL);
	KUNIT_EXPECT_EQ(test, pm_create(test, five, 5, &id), -EINVAL);
	KUNIT_EXPECT_EQ(test, pm_create(test, dup, 3, &id), -EINVAL);
	KUNIT_EXPECT_EQ(test, pm_create(test, unknown, 2, &id), -EINVAL);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_create, &bad),
			-EFAULT);
	/* Flags and pad are MBZ */
	bad.counters = (u64)(uintptr_t)ut->ubuf2;
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf2, five, sizeof(five)), 0);
	bad.flags = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_create, &bad),
			-EINVAL);
	bad.flags = 1u << 31;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_create, &bad),
			-EINVAL);
	bad.flags = 0;
	bad.pad = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_create, &bad),
			-EINVAL);

	/* The limit, then ids are reused */
	for (i = 0; i < DRM_SIMGPU_MAX_PERFMONS; i++)
		KUNIT_ASSERT_EQ(test, pm_create(test, five, 4, &ids[i]), 0);
	KUNIT_EXPECT_EQ(test, pm_create(test, five, 4, &id), -ENOSPC);
	KUNIT_EXPECT_EQ(test, pm_destroy(test, ids[5]), 0);
	KUNIT_EXPECT_EQ(test, pm_destroy(test, ids[5]), -ENOENT);
	KUNIT_EXPECT_EQ(test, pm_create(test, five, 1, &id), 0);
	KUNIT_EXPECT_EQ(test, pm_destroy(test, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, pm_destroy(test, DRM_SIMGPU_MAX_PERFMONS + 1),
			-ENOENT);
	{
		struct drm_simgpu_perfmon_destroy d = { .id = id, .pad = 1 };

		KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_destroy,
					   &d), -EINVAL);
	}
	/* Another file does not see this one's perfmons */
	{
		struct drm_file *dfile = ut->dfile;
		struct file *file = ut->file;

		ut->file = mock_drm_getfile(ut->sdev->drm.primary, O_RDWR);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ut->file);
		ut->dfile = ut->file->private_data;
		KUNIT_EXPECT_EQ(test, pm_destroy(test, id), -ENOENT);
		fput(ut->file);
		ut->file = file;
		ut->dfile = dfile;
	}
	/* The rest are freed when the file closes (kmemleak checks) */
}

static void perfmon_test_get_values_args(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	const u32 ids[2] = { 1, 2 };
	struct drm_simgpu_perfmon_get_values args = {};
	u64 values[2] = { 1, 1 }, seqno = 1;
	u32 id;

	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 2, &id), 0);
	KUNIT_EXPECT_EQ(test, pm_values(test, id, 0, 0, values, 2, &seqno), 0);
	KUNIT_EXPECT_EQ(test, values[0], 0);
	KUNIT_EXPECT_EQ(test, values[1], 0);
	KUNIT_EXPECT_EQ(test, seqno, 0);
	/* Nothing submitted: WAIT returns at once even past the timeout */
	KUNIT_EXPECT_EQ(test, pm_values(test, id, DRM_SIMGPU_PERFMON_WAIT, 0,
					values, 2, &seqno), 0);

	KUNIT_EXPECT_EQ(test, pm_values(test, id, 0, 0, values, 1, &seqno),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pm_values(test, id, 0, 0, values, 3, &seqno),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pm_values(test, id, 2, 0, values, 2, &seqno),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pm_values(test, id, 0, 1, values, 2, &seqno),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, pm_values(test, id + 1, 0, 0, values, 2, &seqno),
			-ENOENT);
	args.id = id;
	args.num_values = 2;
	args.pad = 1;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_get_values,
				   &args), -EINVAL);
	args.pad = 0;
	args.values = 8;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_get_values,
				   &args), -EFAULT);
	args.values = (u64)(uintptr_t)ut->ubuf2;
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_perfmon_get_values,
				   &args), 0);
}

static void perfmon_test_submit_args(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0);
	u32 bo = bo_create(test, 3 * SZ_4K, DRM_SIMGPU_REGION_SYSTEM);
	u32 size = 3 * SZ_4K;
	struct drm_simgpu_cmd busy = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1 };
	struct drm_simgpu_submit args = {
		.exec_queue_id = queue,
		.num_cmds = 1,
		.cmds = (u64)(uintptr_t)ut->ubuf,
		.pad = 1,
	};
	const struct {
		u32 op;
		u64 offset;
		u64 src;
		u64 value;
		int ret;
	} cases[] = {
		/* COPY: dst offset, src offset, bytes */
		{ DRM_SIMGPU_CMD_COPY, 64, 0, 64, 0 },
		{ DRM_SIMGPU_CMD_COPY, 4, 8188, 4096, 0 },
		{ DRM_SIMGPU_CMD_COPY, 64, 2, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 66, 0, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 64, 0, 6, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 64, 0, 0, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 8192, 0, 4100, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 0, size - 4, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, size - 4, 0, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 1ULL << 63, 0, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 4, 0, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 0, 4, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 0, 8, 8, 0 },
		/* A 64-bit source offset past the buffer, a 64-bit length */
		{ DRM_SIMGPU_CMD_COPY, 0, 1ULL << 32, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 0, (1ULL << 32) + 8, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 0, 1ULL << 63, 8, -EINVAL },
		{ DRM_SIMGPU_CMD_COPY, 0, 8, (1ULL << 32) + 8, -EINVAL },
		/* SAMPLE: offset, tag */
		{ DRM_SIMGPU_CMD_SAMPLE, 0, 0, 0xffffffff, 0 },
		{ DRM_SIMGPU_CMD_SAMPLE, size - 64, 0, 0, 0 },
		{ DRM_SIMGPU_CMD_SAMPLE, 32, 0, 0, -EINVAL },
		{ DRM_SIMGPU_CMD_SAMPLE, size, 0, 0, -EINVAL },
		{ DRM_SIMGPU_CMD_SAMPLE, 0, 0, 1ULL << 32, -EINVAL },
		{ DRM_SIMGPU_CMD_SAMPLE, 1ULL << 63, 0, 0, -EINVAL },
		/* Only a COPY has a source */
		{ DRM_SIMGPU_CMD_SAMPLE, 0, 64, 0, -EINVAL },
		{ DRM_SIMGPU_CMD_WRITE, 0, 64, 0, -EINVAL },
	};
	struct drm_simgpu_cmd cmd = {};
	unsigned int i;
	u32 id;

	/* pad, unknown perfmon */
	KUNIT_ASSERT_EQ(test, copy_to_user(ut->ubuf, &busy, sizeof(busy)), 0);
	KUNIT_EXPECT_EQ(test, call(test, simgpu_ioctl_submit, &args), -EINVAL);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, 1, 0), -ENOENT);
	KUNIT_ASSERT_EQ(test, pm_create(test, (u32[]){ 1 }, 1, &id), 0);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, id + 1, 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, id, 0), 0);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cmd.op = cases[i].op;
		cmd.handle = bo;
		cmd.offset = cases[i].offset;
		cmd.src_offset = cases[i].src;
		cmd.value = cases[i].value;
		KUNIT_EXPECT_EQ_MSG(test, submit(test, queue, &cmd, 1),
				    cases[i].ret, "case %u", i);
	}
	/* Unknown handles */
	cmd.op = DRM_SIMGPU_CMD_COPY;
	cmd.handle = bo + 1;
	cmd.offset = 64;
	cmd.src_offset = 0;
	cmd.value = 8;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -ENOENT);
	cmd.op = DRM_SIMGPU_CMD_SAMPLE;
	cmd.value = 0;
	KUNIT_EXPECT_EQ(test, submit(test, queue, &cmd, 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, wait_bo(test, bo, in_5s()), 0);
}

/*
 * A job of known content counts exactly: a user COPY split in three, the
 * user SAMPLE's report counts what came before it, the perfmon gets the
 * whole job.
 */
static void perfmon_test_counts(struct kunit *test)
{
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	u32 bo = bo_create(test, 3 * SZ_4K, DRM_SIMGPU_REGION_SYSTEM);
	const u32 ids[4] = {
		SIMGPU_SIG_COMMANDS, SIMGPU_SIG_BYTES_WRITTEN,
		SIMGPU_SIG_COPIES, SIMGPU_SIG_SAMPLES,
	};
	const u32 time_ids[4] = {
		SIMGPU_SIG_BUSY_TICKS, SIMGPU_SIG_BATCHES,
		SIMGPU_SIG_BYTES_READ, SIMGPU_SIG_CTX_SWITCHES,
	};
	struct drm_simgpu_cmd cmds[] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_MSEC },
		{ .op = DRM_SIMGPU_CMD_WRITE, .handle = bo, .offset = 4088,
		  .value = 0x11223344 },
		{ .op = DRM_SIMGPU_CMD_WRITE, .handle = bo, .offset = 4100,
		  .value = 0x55667788 },
		/* 4088..4103 to 8188..8203: pieces of 4, 4 and 8 bytes */
		{ .op = DRM_SIMGPU_CMD_COPY, .handle = bo, .offset = 8188,
		  .src_offset = 4088, .value = 16 },
		{ .op = DRM_SIMGPU_CMD_SAMPLE, .handle = bo, .offset = 0,
		  .value = 0xcafe },
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_USEC },
	};
	u64 values[4], seqno;
	u32 pm, pm_time;

	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 4, &pm), 0);
	KUNIT_ASSERT_EQ(test, pm_create(test, time_ids, 4, &pm_time), 0);
	KUNIT_ASSERT_EQ(test, submit_pm(test, queue, cmds, ARRAY_SIZE(cmds),
					pm, 0), 0);
	KUNIT_ASSERT_EQ(test, pm_values(test, pm, DRM_SIMGPU_PERFMON_WAIT,
					in_5s(), values, 4, &seqno), 0);
	KUNIT_EXPECT_EQ(test, seqno, 1);
	/* BUSY, 2 WRITE, 3 COPY pieces, SAMPLE, BUSY; the kernel's SAMPLE not */
	KUNIT_EXPECT_EQ(test, values[0], 8);
	KUNIT_EXPECT_EQ(test, values[1], 4 + 4 + 16);
	KUNIT_EXPECT_EQ(test, values[2], 3);
	KUNIT_EXPECT_EQ(test, values[3], 1);

	/* The copy landed, the report counts what came before it */
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 8188), 0x11223344);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 8200), 0x55667788);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 1);	/* seqno */
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 4), 0xcafe);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 20),
			DRM_SIMGPU_ENGINE_CLASS_COPY << 16);
	KUNIT_EXPECT_EQ(test, bo_read64(test, bo, 24), 6);
	KUNIT_EXPECT_EQ(test, bo_read64(test, bo, 32), 24);
	KUNIT_EXPECT_EQ(test, bo_read64(test, bo, 40), 3);
	KUNIT_EXPECT_EQ(test, bo_read64(test, bo, 48), 0);
	KUNIT_EXPECT_EQ(test, bo_read64(test, bo, 56), 0);

	/* Second job, other counters: busy ticks are the injected time */
	KUNIT_ASSERT_EQ(test, submit_pm(test, queue, cmds, ARRAY_SIZE(cmds),
					pm_time, 0), 0);
	KUNIT_ASSERT_EQ(test, pm_values(test, pm_time,
					DRM_SIMGPU_PERFMON_WAIT, in_5s(),
					values, 4, &seqno), 0);
	KUNIT_EXPECT_EQ(test, seqno, 1);
	/* 1 ms + 1 us + 16 ns of COPY at 19.2 MHz, to a tick */
	KUNIT_EXPECT_GE(test, values[0], 19219 - 1);
	KUNIT_EXPECT_LE(test, values[0], 19219 + 1);
	KUNIT_EXPECT_EQ(test, values[1], 1);
	KUNIT_EXPECT_EQ(test, values[2], 16);
	KUNIT_EXPECT_EQ(test, values[3], 1);
	/* The user SAMPLE's seqno went on; the kernel's took none */
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 2);
	/* Without a perfmon, the report's counters are 0 */
	KUNIT_ASSERT_EQ(test, submit(test, queue, cmds, ARRAY_SIZE(cmds)), 0);
	KUNIT_ASSERT_EQ(test, wait_bo(test, bo, in_5s()), 0);
	KUNIT_EXPECT_EQ(test, bo_read32(test, bo, 0), 3);
	KUNIT_EXPECT_EQ(test, bo_read64(test, bo, 24), 0);
	KUNIT_EXPECT_EQ(test, bo_read64(test, bo, 32), 0);
}

/*
 * Jobs are added in submit order: a later job that completes first waits
 * for the earlier one, so seqno n means jobs 1 to n. A job that did not
 * complete counts 0 and still takes its place.
 */
static void perfmon_test_in_order(struct kunit *test)
{
	u32 slow_q = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COMPUTE, 0);
	u32 fast_q = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COMPUTE, 1);
	u32 bad_q = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_COMPUTE, 2);
	u32 s_fast = syncobj_create(test), s_bad = syncobj_create(test);
	/* Long enough that a loaded machine checks jobs 2 and 3 before */
	struct drm_simgpu_cmd slow[2] = {
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_SEC },
		{ .op = DRM_SIMGPU_CMD_BUSY, .value = NSEC_PER_SEC },
	};
	struct drm_simgpu_cmd fast = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1 };
	const u32 ids[1] = { SIMGPU_SIG_BATCHES };
	u64 value, seqno;
	u32 pm;

	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 1, &pm), 0);
	KUNIT_ASSERT_EQ(test, submit_pm(test, slow_q, slow, 2, pm, 0), 0);
	KUNIT_ASSERT_EQ(test, submit_pm(test, fast_q, &fast, 1, pm, s_fast),
			0);
	kunit_activate_static_stub(test, simgpu_job_build_batch, bad_batch);
	KUNIT_ASSERT_EQ(test, submit_pm(test, bad_q, &fast, 1, pm, s_bad), 0);
	kunit_deactivate_static_stub(test, simgpu_job_build_batch);

	KUNIT_ASSERT_EQ(test, sync_status(test, s_fast), 1);
	KUNIT_ASSERT_EQ(test, sync_status(test, s_bad), -EIO);
	/* Jobs 2 and 3 retired, job 1 runs: nothing is added yet */
	KUNIT_EXPECT_EQ(test, pm_values(test, pm, 0, 0, &value, 1, &seqno), 0);
	KUNIT_EXPECT_EQ(test, seqno, 0);
	KUNIT_EXPECT_EQ(test, value, 0);
	/* A wait that times out writes nothing */
	KUNIT_EXPECT_EQ(test, pm_values(test, pm, DRM_SIMGPU_PERFMON_WAIT,
					ktime_get_ns() + NSEC_PER_MSEC,
					&value, 1, &seqno), -ETIME);

	KUNIT_EXPECT_EQ(test, pm_values(test, pm, DRM_SIMGPU_PERFMON_WAIT,
					ktime_get_ns() + 10ULL * NSEC_PER_SEC,
					&value, 1, &seqno), 0);
	KUNIT_EXPECT_EQ(test, seqno, 3);
	/* The halted job counts 0 */
	KUNIT_EXPECT_EQ(test, value, 2);
}

/* Destroying a perfmon, or closing its file, with jobs in flight */
static void perfmon_test_destroy_busy(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = 20 * NSEC_PER_MSEC,
	};
	const u32 ids[2] = { SIMGPU_SIG_BUSY_TICKS, SIMGPU_SIG_COMMANDS };
	struct drm_file *dfile = ut->dfile;
	struct file *file = ut->file;
	unsigned int before;
	u32 queue, sync, pm, pm2, i;

	queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0);
	sync = syncobj_create(test);
	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 2, &pm), 0);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, submit_pm(test, queue, &busy, 1, pm,
						sync), 0);
	KUNIT_EXPECT_EQ(test, pm_destroy(test, pm), 0);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, pm, 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, sync_status(test, sync), 1);

	/* A second file closed with perfmons and their jobs alive */
	before = simgpu_queue_num();
	ut->file = mock_drm_getfile(ut->sdev->drm.primary, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ut->file);
	ut->dfile = ut->file->private_data;
	queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_RENDER, 0);
	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 2, &pm), 0);
	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 1, &pm2), 0);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, submit_pm(test, queue, &busy, 1, pm, 0),
				0);
		KUNIT_ASSERT_EQ(test, submit_pm(test, queue, &busy, 1, pm2, 0),
				0);
	}
	fput(ut->file);
	flush_delayed_fput();
	ut->file = file;
	ut->dfile = dfile;
	KUNIT_EXPECT_GT(test, simgpu_queue_wait_freed(before, 10 * HZ), 0);
	/* Every job retired, however queues of earlier tests went */
	for (i = 0; i < 500 && atomic_read(&ut->sdev->perfmon_jobs); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&ut->sdev->perfmon_jobs), 0);
}

/* Run @fn's ioctl without CAP_PERFMON and CAP_SYS_ADMIN */
static int call_unprivileged(struct kunit *test, ioctl_fn fn, void *args)
{
	const struct cred *old;
	struct cred *cred;
	int ret;

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_clear(cred->cap_effective);
	old = override_creds(cred);
	ret = call(test, fn, args);
	revert_creds(old);
	put_cred(cred);

	return ret;
}

static void perfmon_test_global(struct kunit *test)
{
	struct uapi_test *ut = test->priv;
	u32 queue = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 0);
	u32 sync = syncobj_create(test);
	struct drm_simgpu_cmd busy = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = 50 * NSEC_PER_MSEC,
	};
	struct drm_simgpu_perfmon_set_global set = {};
	const u32 ids[1] = { SIMGPU_SIG_BATCHES };
	struct drm_file *dfile = ut->dfile;
	struct file *file = ut->file;
	u32 pm, other, queue2;
	u64 value, seqno;

	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 1, &pm), 0);
	KUNIT_ASSERT_EQ(test, pm_create(test, ids, 1, &other), 0);

	KUNIT_EXPECT_EQ(test, pm_set_global(test, 2, pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, pm_set_global(test,
					    DRM_SIMGPU_PERFMON_CLEAR_GLOBAL,
					    pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, pm_set_global(test, 0, other + 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, pm_set_global(test,
					    DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0),
			-EBUSY);
	set.id = pm;
	KUNIT_EXPECT_EQ(test, call_unprivileged(test,
						simgpu_ioctl_perfmon_set_global,
						&set), -EACCES);

	/* Not while a per-job perfmon counts a job */
	KUNIT_ASSERT_EQ(test, submit_pm(test, queue, &busy, 1, other, sync),
			0);
	KUNIT_EXPECT_EQ(test, pm_set_global(test, 0, pm), -EBUSY);
	KUNIT_ASSERT_EQ(test, sync_status(test, sync), 1);
	KUNIT_ASSERT_EQ(test, pm_values(test, other, DRM_SIMGPU_PERFMON_WAIT,
					in_5s(), &value, 1, &seqno), 0);

	KUNIT_EXPECT_EQ(test, pm_set_global(test, 0, pm), 0);
	KUNIT_EXPECT_EQ(test, pm_set_global(test, 0, pm), 0);
	KUNIT_EXPECT_EQ(test, pm_set_global(test, 0, other), -EBUSY);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, other, 0),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, 0, 0), 0);

	/* Another file's jobs count into it, and it cannot clear it */
	ut->file = mock_drm_getfile(ut->sdev->drm.primary, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ut->file);
	ut->dfile = ut->file->private_data;
	queue2 = queue_create(test, DRM_SIMGPU_ENGINE_CLASS_VIDEO, 1);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue2, &busy, 1, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, pm_set_global(test,
					    DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0),
			-EBUSY);
	fput(ut->file);
	flush_delayed_fput();
	ut->file = file;
	ut->dfile = dfile;

	KUNIT_EXPECT_EQ(test, pm_values(test, pm, DRM_SIMGPU_PERFMON_WAIT,
					in_5s(), &value, 1, &seqno), 0);
	KUNIT_EXPECT_EQ(test, seqno, 2);
	KUNIT_EXPECT_EQ(test, value, 2);

	KUNIT_EXPECT_EQ(test, pm_set_global(test,
					    DRM_SIMGPU_PERFMON_CLEAR_GLOBAL, 0),
			0);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, other, 0), 0);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, pm_values(test, pm, 0, 0, &value, 1, &seqno), 0);
	KUNIT_EXPECT_EQ(test, seqno, 2);

	/* Destroying the device-wide perfmon turns the mode off */
	KUNIT_EXPECT_EQ(test, pm_values(test, other, DRM_SIMGPU_PERFMON_WAIT,
					in_5s(), &value, 1, &seqno), 0);
	KUNIT_EXPECT_EQ(test, pm_set_global(test, 0, pm), 0);
	KUNIT_EXPECT_EQ(test, pm_destroy(test, pm), 0);
	KUNIT_EXPECT_NULL(test, ut->sdev->global_perfmon);
	KUNIT_EXPECT_EQ(test, submit_pm(test, queue, &busy, 1, other, 0), 0);
	/* Closing the file with it set turns it off too */
	KUNIT_EXPECT_EQ(test, pm_values(test, other, DRM_SIMGPU_PERFMON_WAIT,
					in_5s(), &value, 1, &seqno), 0);
	KUNIT_EXPECT_EQ(test, pm_set_global(test, 0, other), 0);
}

/* Expect a hardware COPY at word @at of @b */
static void expect_copy(struct kunit *test, const __le32 *b, unsigned int at,
			phys_addr_t src, phys_addr_t dst, u32 len)
{
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b[at]), SIMGPU_CMD_COPY);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b[at + 1]), lower_32_bits(src));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b[at + 2]), upper_32_bits(src));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b[at + 3]), lower_32_bits(dst));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b[at + 4]), upper_32_bits(dst));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b[at + 5]), len);
}

/* The batch of a COPY split at 4 KiB boundaries, and of a SAMPLE */
static void perfmon_test_batch(struct kunit *test)
{
	struct drm_simgpu_cmd cmds[2] = {
		/* 4088..4103 to 8188..8203: 4, 4 then 8 bytes */
		{ .op = DRM_SIMGPU_CMD_COPY, .offset = 8188,
		  .src_offset = 4088, .value = 16 },
		{ .op = DRM_SIMGPU_CMD_SAMPLE, .offset = 4096 + 128,
		  .value = 0xbeef },
	};
	struct simgpu_job *job;
	struct page *pages[5];
	phys_addr_t pa[5];
	unsigned int i, j, w;
	__le32 *b;

	if (PAGE_SIZE != SZ_4K)
		kunit_skip(test, "the expected batch assumes 4 KiB pages");

	job = kunit_kzalloc(test, sizeof(*job), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, job);
	job->batch = kunit_kcalloc(test, 64, sizeof(*job->batch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, job->batch);
	for (i = 0; i < 5; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		pa[i] = page_to_phys(pages[i]);
	}
	job->pages = pages;
	job->num_pages = 5;

	/* The same with the source 5 GiB higher: the same pages */
	for (j = 0; j < 2; j++) {
		cmds[0].src_offset = 4088 + j * (SZ_4G + SZ_1G);
		memset(job->batch, 0xff, 64 * sizeof(*job->batch));
		w = simgpu_job_build_batch(job, cmds, 2);
		b = job->batch;
		KUNIT_EXPECT_EQ(test, w, 3 * 6 + 4 + 1);
		/* src pages 0, 1; dst pages 2, 3; the report's page 4 */
		expect_copy(test, b, 0, pa[0] + 4088, pa[2] + 4092, 4);
		expect_copy(test, b, 6, pa[0] + 4092, pa[3], 4);
		expect_copy(test, b, 12, pa[1], pa[3] + 4, 8);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(b[18]), SIMGPU_CMD_SAMPLE);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(b[19]),
				lower_32_bits(pa[4] + 128));
		KUNIT_EXPECT_EQ(test, le32_to_cpu(b[20]),
				upper_32_bits(pa[4] + 128));
		KUNIT_EXPECT_EQ(test, le32_to_cpu(b[21]), 0xbeef);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(b[22]), SIMGPU_CMD_END);
	}

	for (i = 0; i < 5; i++)
		__free_page(pages[i]);
}

static struct kunit_case perfmon_test_cases[] = {
	KUNIT_CASE(perfmon_test_query),
	KUNIT_CASE(perfmon_test_create_destroy),
	KUNIT_CASE(perfmon_test_get_values_args),
	KUNIT_CASE(perfmon_test_submit_args),
	KUNIT_CASE(perfmon_test_counts),
	KUNIT_CASE(perfmon_test_in_order),
	KUNIT_CASE(perfmon_test_destroy_busy),
	KUNIT_CASE(perfmon_test_global),
	KUNIT_CASE(perfmon_test_batch),
	{}
};

static struct kunit_suite perfmon_test_suite = {
	.name = "simgpu_perfmon",
	.init = uapi_test_init,
	.exit = uapi_test_exit,
	.test_cases = perfmon_test_cases,
};

kunit_test_suites(&uapi_test_suite, &timeout_test_suite, &perfmon_test_suite);
