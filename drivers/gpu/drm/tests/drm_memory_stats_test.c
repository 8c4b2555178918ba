// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fdinfo memory stats helpers of drm_file.c
 *
 * A mock driver puts GEM objects of known sizes, states and regions in the
 * handle table of a real DRM file, and the tests compare what
 * drm_show_memory_stats() and drm_show_memory_stats_regions() print with
 * the text of Documentation/gpu/drm-usage-stats.rst, worked out by hand.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/lockdep.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <kunit/test.h>
#include <kunit/test-bug.h>

#include <drm/drm_drv.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_kunit_helpers.h>
#include <drm/drm_print.h>

#define MOCK_BUF_SIZE	4096

/* Region numbers of the mock driver */
enum {
	MOCK_SYS,
	MOCK_VRAM,
	MOCK_ABSENT,	/* a region this device does not have */
	MOCK_NUM_REGIONS
};

static const struct drm_memory_region mock_regions[MOCK_NUM_REGIONS] = {
	[MOCK_SYS] = {
		.name = "sys",
		.supported_status = DRM_GEM_OBJECT_RESIDENT |
				    DRM_GEM_OBJECT_PURGEABLE,
	},
	[MOCK_VRAM] = {
		.name = "vram0",
		.supported_status = DRM_GEM_OBJECT_RESIDENT,
	},
	[MOCK_ABSENT] = {
		.name = NULL,
	},
};

struct mock_bo {
	struct drm_gem_object base;
	int region;			/* what mock_object_region() returns */
	enum drm_gem_object_status status;
	size_t rss;
};

struct mock_test {
	struct drm_device *drm;
	struct file *file;		/* the client the tests look at */
	struct file *other;		/* another client, to share objects */
	char *buf;
	struct drm_print_iterator iter;
	struct drm_printer p;
	unsigned int region_calls;
};

static struct mock_bo *to_mock_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct mock_bo, base);
}

static void mock_bo_free(struct drm_gem_object *obj)
{
	drm_gem_object_release(obj);
	kfree(to_mock_bo(obj));
}

static enum drm_gem_object_status mock_bo_status(struct drm_gem_object *obj)
{
	return to_mock_bo(obj)->status;
}

static size_t mock_bo_rss(struct drm_gem_object *obj)
{
	return to_mock_bo(obj)->rss;
}

/* Objects that tell their state */
static const struct drm_gem_object_funcs mock_bo_funcs = {
	.free = mock_bo_free,
	.status = mock_bo_status,
	.rss = mock_bo_rss,
};

/* Objects that do not: no status, resident size is the size */
static const struct drm_gem_object_funcs mock_plain_bo_funcs = {
	.free = mock_bo_free,
};

/*
 * The region callback of the mock driver; with lockdep, it also checks that
 * it is called under the handle table lock, as documented.
 */
static int mock_object_region(struct drm_gem_object *obj)
{
	struct kunit *test = kunit_get_current_test();
	struct mock_test *mt = test->priv;
	struct drm_file *dfile = mt->file->private_data;

#ifdef CONFIG_LOCKDEP
	KUNIT_EXPECT_TRUE(test, lockdep_is_held(&dfile->table_lock));
#endif
	mt->region_calls++;

	return to_mock_bo(obj)->region;
}

DEFINE_DRM_GEM_FOPS(mock_fops);

static const struct drm_driver mock_driver = {
	.driver_features = DRIVER_GEM,
	.fops = &mock_fops,
	.name = "drm-memory-stats-mock",
	.desc = "mock driver for the memory stats tests",
	.date = "20260101",
};

static void mock_fput(void *file)
{
	fput(file);
	flush_delayed_fput();
}

static struct file *mock_open(struct kunit *test)
{
	struct mock_test *mt = test->priv;
	struct file *file;

	file = mock_drm_getfile(mt->drm->primary, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mock_fput, file),
			0);
	return file;
}

/*
 * An object of @size bytes in @region with a handle in the test's file;
 * the handle holds the only reference, it goes when the file is closed.
 */
static struct mock_bo *mock_bo_create(struct kunit *test, size_t size,
				      int region,
				      const struct drm_gem_object_funcs *funcs)
{
	struct mock_test *mt = test->priv;
	struct mock_bo *bo;
	u32 handle;
	int ret;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	bo->base.funcs = funcs;
	bo->region = region;
	drm_gem_private_object_init(mt->drm, &bo->base, size);

	ret = drm_gem_handle_create(mt->file->private_data, &bo->base, &handle);
	drm_gem_object_put(&bo->base);
	KUNIT_ASSERT_EQ(test, ret, 0);

	return bo;
}

static void mock_bo_share(struct kunit *test, struct mock_bo *bo)
{
	struct mock_test *mt = test->priv;
	u32 handle;

	KUNIT_ASSERT_EQ(test, drm_gem_handle_create(mt->other->private_data,
						    &bo->base, &handle), 0);
}

static const char *mock_fence_name(struct dma_fence *fence)
{
	return "drm-memory-stats-mock";
}

static const struct dma_fence_ops mock_fence_ops = {
	.get_driver_name = mock_fence_name,
	.get_timeline_name = mock_fence_name,
};

static DEFINE_SPINLOCK(mock_fence_lock);

static void mock_fence_signal(void *data)
{
	struct dma_fence *fence = data;

	dma_fence_signal(fence);
	dma_fence_put(fence);
}

/* Makes @bo busy until the test ends: an unsignaled write fence. */
static void mock_bo_make_busy(struct kunit *test, struct mock_bo *bo)
{
	struct dma_resv *resv = bo->base.resv;
	struct dma_fence *fence;
	int ret;

	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fence);
	dma_fence_init(fence, &mock_fence_ops, &mock_fence_lock,
		       dma_fence_context_alloc(1), 1);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mock_fence_signal,
							fence), 0);

	dma_resv_lock(resv, NULL);
	ret = dma_resv_reserve_fences(resv, 1);
	if (!ret)
		dma_resv_add_fence(resv, fence, DMA_RESV_USAGE_WRITE);
	dma_resv_unlock(resv);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

static void mock_reset_output(struct mock_test *mt)
{
	memset(mt->buf, 0, MOCK_BUF_SIZE + 1);
	mt->iter.data = mt->buf;
	mt->iter.start = 0;
	mt->iter.offset = 0;
	mt->iter.remain = MOCK_BUF_SIZE;
	mt->p = drm_coredump_printer(&mt->iter);
}

static const char *mock_show_regions(struct kunit *test)
{
	struct mock_test *mt = test->priv;

	mock_reset_output(mt);
	drm_show_memory_stats_regions(&mt->p, mt->file->private_data,
				      mock_regions, ARRAY_SIZE(mock_regions),
				      mock_object_region);
	return mt->buf;
}

static const char *mock_show(struct kunit *test)
{
	struct mock_test *mt = test->priv;

	mock_reset_output(mt);
	drm_show_memory_stats(&mt->p, mt->file->private_data);
	return mt->buf;
}

/*
 * The objects of the region tests, with what each adds to the stats of
 * drm_show_memory_stats_regions() ("regions") and of drm_show_memory_stats()
 * ("memory").
 */
static void mock_populate(struct kunit *test)
{
	struct mock_bo *bo;

	/* sys: private, resident and purgeable (idle) 64 KiB */
	bo = mock_bo_create(test, SZ_64K, MOCK_SYS, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_64K;

	/* sys: private, resident and active 128 KiB; busy: not purgeable */
	bo = mock_bo_create(test, SZ_128K, MOCK_SYS, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_128K;
	mock_bo_make_busy(test, bo);

	/* sys: private 256 KiB; not resident (purged): not purgeable */
	bo = mock_bo_create(test, SZ_256K, MOCK_SYS, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_PURGEABLE;

	/*
	 * vram0: shared 512 KiB, of which 192 KiB resident and purgeable, a
	 * key the region does not have.
	 */
	bo = mock_bo_create(test, SZ_512K, MOCK_VRAM, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_128K + SZ_64K;
	mock_bo_share(test, bo);

	/* vram0: private and active 64 KiB, no status: not resident */
	bo = mock_bo_create(test, SZ_64K, MOCK_VRAM, &mock_plain_bo_funcs);
	mock_bo_make_busy(test, bo);

	/*
	 * Left out of the per-region stats, 64 KiB private each in "memory":
	 * a region without a name, no region, a region past the end.
	 */
	mock_bo_create(test, SZ_64K, MOCK_ABSENT, &mock_plain_bo_funcs);
	mock_bo_create(test, SZ_64K, -ENOENT, &mock_plain_bo_funcs);
	mock_bo_create(test, SZ_64K, MOCK_NUM_REGIONS + 2,
		       &mock_plain_bo_funcs);
}

static void drm_test_memory_stats_regions(struct kunit *test)
{
	struct mock_test *mt = test->priv;

	mock_populate(test);

	KUNIT_EXPECT_STREQ(test, mock_show_regions(test),
			   "drm-total-sys:\t448 KiB\n"
			   "drm-shared-sys:\t0\n"
			   "drm-active-sys:\t128 KiB\n"
			   "drm-resident-sys:\t192 KiB\n"
			   "drm-purgeable-sys:\t64 KiB\n"
			   "drm-total-vram0:\t576 KiB\n"
			   "drm-shared-vram0:\t512 KiB\n"
			   "drm-active-vram0:\t64 KiB\n"
			   "drm-resident-vram0:\t192 KiB\n");
	/* Asked once per object */
	KUNIT_EXPECT_EQ(test, mt->region_calls, 8);
}

/* drm_show_memory_stats() counts every object in "memory", as it did. */
static void drm_test_memory_stats_single(struct kunit *test)
{
	mock_populate(test);

	KUNIT_EXPECT_STREQ(test, mock_show(test),
			   "drm-total-memory:\t1216 KiB\n"
			   "drm-shared-memory:\t512 KiB\n"
			   "drm-active-memory:\t192 KiB\n"
			   "drm-resident-memory:\t384 KiB\n"
			   "drm-purgeable-memory:\t256 KiB\n");
}

/* Without objects that tell their status, no resident or purgeable keys. */
static void drm_test_memory_stats_single_no_status(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, mock_show(test),
			   "drm-total-memory:\t0\n"
			   "drm-shared-memory:\t0\n"
			   "drm-active-memory:\t0\n");

	mock_bo_create(test, SZ_1M, MOCK_SYS, &mock_plain_bo_funcs);
	KUNIT_EXPECT_STREQ(test, mock_show(test),
			   "drm-total-memory:\t1 MiB\n"
			   "drm-shared-memory:\t0\n"
			   "drm-active-memory:\t0\n");
}

/* An empty file shows every region the device has, with zeroes. */
static void drm_test_memory_stats_regions_empty(struct kunit *test)
{
	struct mock_test *mt = test->priv;

	KUNIT_EXPECT_STREQ(test, mock_show_regions(test),
			   "drm-total-sys:\t0\n"
			   "drm-shared-sys:\t0\n"
			   "drm-active-sys:\t0\n"
			   "drm-resident-sys:\t0\n"
			   "drm-purgeable-sys:\t0\n"
			   "drm-total-vram0:\t0\n"
			   "drm-shared-vram0:\t0\n"
			   "drm-active-vram0:\t0\n"
			   "drm-resident-vram0:\t0\n");
	KUNIT_EXPECT_EQ(test, mt->region_calls, 0);
}

/* An object that moves counts where the callback says it is now. */
static void drm_test_memory_stats_regions_migrate(struct kunit *test)
{
	struct mock_bo *bo;

	bo = mock_bo_create(test, SZ_64K, MOCK_VRAM, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_64K;

	KUNIT_EXPECT_STREQ(test, mock_show_regions(test),
			   "drm-total-sys:\t0\n"
			   "drm-shared-sys:\t0\n"
			   "drm-active-sys:\t0\n"
			   "drm-resident-sys:\t0\n"
			   "drm-purgeable-sys:\t0\n"
			   "drm-total-vram0:\t64 KiB\n"
			   "drm-shared-vram0:\t0\n"
			   "drm-active-vram0:\t0\n"
			   "drm-resident-vram0:\t64 KiB\n");

	/* Evicted to system memory */
	bo->region = MOCK_SYS;
	KUNIT_EXPECT_STREQ(test, mock_show_regions(test),
			   "drm-total-sys:\t64 KiB\n"
			   "drm-shared-sys:\t0\n"
			   "drm-active-sys:\t0\n"
			   "drm-resident-sys:\t64 KiB\n"
			   "drm-purgeable-sys:\t64 KiB\n"
			   "drm-total-vram0:\t0\n"
			   "drm-shared-vram0:\t0\n"
			   "drm-active-vram0:\t0\n"
			   "drm-resident-vram0:\t0\n");
}

/* No region, no output; no object is looked at. */
static void drm_test_memory_stats_regions_none(struct kunit *test)
{
	struct mock_test *mt = test->priv;

	mock_bo_create(test, SZ_64K, MOCK_SYS, &mock_bo_funcs);

	mock_reset_output(mt);
	drm_show_memory_stats_regions(&mt->p, mt->file->private_data,
				      mock_regions, 0, mock_object_region);
	KUNIT_EXPECT_STREQ(test, mt->buf, "");
}

static int drm_memory_stats_test_init(struct kunit *test)
{
	struct mock_test *mt;
	struct device *dev;

	mt = kunit_kzalloc(test, sizeof(*mt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt);
	test->priv = mt;

	/* One more byte: the coredump printer writes no terminating NUL */
	mt->buf = kunit_kzalloc(test, MOCK_BUF_SIZE + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt->buf);

	dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);

	mt->drm = __drm_kunit_helper_alloc_drm_device_with_driver(test, dev,
								  sizeof(*mt->drm),
								  0,
								  &mock_driver);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mt->drm);

	mt->file = mock_open(test);
	mt->other = mock_open(test);

	return 0;
}

static struct kunit_case drm_memory_stats_tests[] = {
	KUNIT_CASE(drm_test_memory_stats_regions),
	KUNIT_CASE(drm_test_memory_stats_single),
	KUNIT_CASE(drm_test_memory_stats_single_no_status),
	KUNIT_CASE(drm_test_memory_stats_regions_empty),
	KUNIT_CASE(drm_test_memory_stats_regions_migrate),
	KUNIT_CASE(drm_test_memory_stats_regions_none),
	{}
};

static struct kunit_suite drm_memory_stats_suite = {
	.name = "drm_memory_stats",
	.init = drm_memory_stats_test_init,
	.test_cases = drm_memory_stats_tests,
};

kunit_test_suite(drm_memory_stats_suite);

MODULE_DESCRIPTION("KUnit tests of the DRM fdinfo memory stats helpers");
MODULE_LICENSE("GPL");
