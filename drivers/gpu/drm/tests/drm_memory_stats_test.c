// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the fdinfo memory stats helpers of drm_file.c
 *
 * A mock driver puts GEM objects of known sizes and states in the handle
 * table of a real DRM file, and the tests compare what
 * drm_memory_stats_add() counts and what drm_show_memory_stats() prints
 * with the rules of Documentation/gpu/drm-usage-stats.rst, worked out by
 * hand.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <kunit/test.h>

#include <drm/drm_drv.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_kunit_helpers.h>
#include <drm/drm_print.h>

#define MOCK_BUF_SIZE	4096

/* Region numbers of a driver with two regions */
enum {
	MOCK_SYS,
	MOCK_VRAM,
	MOCK_NUM_REGIONS
};

struct mock_bo {
	struct drm_gem_object base;
	int region;			/* the region the object is in */
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

DEFINE_DRM_GEM_FOPS(mock_fops);

static const struct drm_driver mock_driver = {
	.driver_features = DRIVER_GEM,
	.fops = &mock_fops,
	.name = "drm-memory-stats-mock",
	.desc = "mock driver for the memory stats tests",
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

	bo = kzalloc_obj(*bo);
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

	fence = kzalloc_obj(*fence);
	KUNIT_ASSERT_NOT_NULL(test, fence);
	dma_fence_init(fence, &mock_fence_ops, NULL, dma_fence_context_alloc(1),
		       1);
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

static const char *mock_show(struct kunit *test)
{
	struct mock_test *mt = test->priv;

	mock_reset_output(mt);
	drm_show_memory_stats(&mt->p, mt->file->private_data);
	return mt->buf;
}

/* The objects of the drm_show_memory_stats() tests */
static void mock_populate(struct kunit *test)
{
	struct mock_bo *bo;

	/* private, resident and purgeable (idle) 64 KiB */
	bo = mock_bo_create(test, SZ_64K, MOCK_SYS, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_64K;

	/* private, resident and active 128 KiB; busy: not purgeable */
	bo = mock_bo_create(test, SZ_128K, MOCK_SYS, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_128K;
	mock_bo_make_busy(test, bo);

	/* private 256 KiB; not resident (purged): not purgeable */
	bo = mock_bo_create(test, SZ_256K, MOCK_SYS, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_PURGEABLE;

	/* shared 512 KiB, of which 192 KiB resident and purgeable */
	bo = mock_bo_create(test, SZ_512K, MOCK_VRAM, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_128K + SZ_64K;
	mock_bo_share(test, bo);

	/* private and active 64 KiB, no status: not resident */
	bo = mock_bo_create(test, SZ_64K, MOCK_VRAM, &mock_plain_bo_funcs);
	mock_bo_make_busy(test, bo);

	/* private 3 x 64 KiB, no status */
	mock_bo_create(test, SZ_64K, MOCK_SYS, &mock_plain_bo_funcs);
	mock_bo_create(test, SZ_64K, MOCK_SYS, &mock_plain_bo_funcs);
	mock_bo_create(test, SZ_64K, MOCK_VRAM, &mock_plain_bo_funcs);
}

struct add_case {
	const char *name;
	enum drm_gem_object_status status;
	u64 resident, active, purgeable;	/* in units of the size */
};

/* What each status adds, for an object of 64 KiB counted with 4 KiB */
static const struct add_case add_cases[] = {
	{ "none", 0, 0, 0, 0 },
	{ "resident", DRM_GEM_OBJECT_RESIDENT, 1, 0, 0 },
	{ "active", DRM_GEM_OBJECT_ACTIVE, 0, 1, 0 },
	{ "resident active", DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_ACTIVE,
	  1, 1, 0 },
	/* purged or not backed yet: nothing to purge */
	{ "purgeable", DRM_GEM_OBJECT_PURGEABLE, 0, 0, 0 },
	{ "resident purgeable",
	  DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE, 1, 0, 1 },
	/* still in use: cannot be purged yet */
	{ "active purgeable", DRM_GEM_OBJECT_ACTIVE | DRM_GEM_OBJECT_PURGEABLE,
	  0, 1, 0 },
	{ "resident active purgeable",
	  DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_ACTIVE |
	  DRM_GEM_OBJECT_PURGEABLE, 1, 1, 0 },
};

static void add_case_desc(const struct add_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(add, add_cases, add_case_desc);

/* Each status counts the size where the rules say, twice as much twice. */
static void drm_test_memory_stats_add(struct kunit *test)
{
	const struct add_case *c = test->param_value;
	struct drm_memory_stats stats = {};
	struct mock_bo *bo;
	int i;

	bo = mock_bo_create(test, SZ_64K, MOCK_SYS, &mock_plain_bo_funcs);

	for (i = 1; i <= 2; i++) {
		drm_memory_stats_add(&stats, &bo->base, SZ_4K, c->status);
		KUNIT_EXPECT_EQ(test, stats.private, i * SZ_64K);
		KUNIT_EXPECT_EQ(test, stats.shared, 0);
		KUNIT_EXPECT_EQ(test, stats.resident, i * c->resident * SZ_4K);
		KUNIT_EXPECT_EQ(test, stats.active, i * c->active * SZ_4K);
		KUNIT_EXPECT_EQ(test, stats.purgeable,
				i * c->purgeable * SZ_4K);
	}
}

/* An object with handles in two files, or exported, counts as shared. */
static void drm_test_memory_stats_add_shared(struct kunit *test)
{
	struct drm_memory_stats stats = {};
	struct mock_bo *bo;

	bo = mock_bo_create(test, SZ_128K, MOCK_SYS, &mock_plain_bo_funcs);
	mock_bo_share(test, bo);

	drm_memory_stats_add(&stats, &bo->base, SZ_128K,
			     DRM_GEM_OBJECT_RESIDENT);
	KUNIT_EXPECT_EQ(test, stats.shared, SZ_128K);
	KUNIT_EXPECT_EQ(test, stats.private, 0);
	KUNIT_EXPECT_EQ(test, stats.resident, SZ_128K);
}

/*
 * A driver with two regions counts each object in its region and prints
 * each region's keys, as xe and i915 do; one that tells busy objects says
 * so with DRM_GEM_OBJECT_ACTIVE, and drm-active- shows even when zero.
 */
static void drm_test_memory_stats_add_regions(struct kunit *test)
{
	struct mock_test *mt = test->priv;
	struct drm_memory_stats stats[MOCK_NUM_REGIONS] = {};
	struct mock_bo *sys, *vram;

	sys = mock_bo_create(test, SZ_1M, MOCK_SYS, &mock_plain_bo_funcs);
	vram = mock_bo_create(test, SZ_2M, MOCK_VRAM, &mock_plain_bo_funcs);
	mock_bo_share(test, vram);

	drm_memory_stats_add(&stats[sys->region], &sys->base, SZ_1M,
			     DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_PURGEABLE);
	drm_memory_stats_add(&stats[vram->region], &vram->base, SZ_2M,
			     DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_ACTIVE);

	mock_reset_output(mt);
	drm_print_memory_stats(&mt->p, &stats[MOCK_SYS],
			       DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_ACTIVE |
			       DRM_GEM_OBJECT_PURGEABLE, "system");
	drm_print_memory_stats(&mt->p, &stats[MOCK_VRAM],
			       DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_ACTIVE,
			       "vram0");
	KUNIT_EXPECT_STREQ(test, mt->buf,
			   "drm-total-system:\t1 MiB\n"
			   "drm-shared-system:\t0\n"
			   "drm-active-system:\t0\n"
			   "drm-resident-system:\t1 MiB\n"
			   "drm-purgeable-system:\t1 MiB\n"
			   "drm-total-vram0:\t2 MiB\n"
			   "drm-shared-vram0:\t2 MiB\n"
			   "drm-active-vram0:\t2 MiB\n"
			   "drm-resident-vram0:\t2 MiB\n");
}

/* drm_show_memory_stats() counts every object in "memory". */
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

/*
 * An object whose status callback says it is active while its fences are
 * idle: drm_show_memory_stats() goes by the fences, so the object counts as
 * purgeable and not as active, while drm-active- shows, as the callback
 * says the driver tracks it.
 */
static void drm_test_memory_stats_single_status_active(struct kunit *test)
{
	struct mock_bo *bo;

	bo = mock_bo_create(test, SZ_64K, MOCK_SYS, &mock_bo_funcs);
	bo->status = DRM_GEM_OBJECT_RESIDENT | DRM_GEM_OBJECT_ACTIVE |
		     DRM_GEM_OBJECT_PURGEABLE;
	bo->rss = SZ_64K;

	KUNIT_EXPECT_STREQ(test, mock_show(test),
			   "drm-total-memory:\t64 KiB\n"
			   "drm-shared-memory:\t0\n"
			   "drm-active-memory:\t0\n"
			   "drm-resident-memory:\t64 KiB\n"
			   "drm-purgeable-memory:\t64 KiB\n");
}

/*
 * Without objects that tell their status, no resident or purgeable keys,
 * and no drm-active- while none is busy.
 */
static void drm_test_memory_stats_single_no_status(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, mock_show(test),
			   "drm-total-memory:\t0\n"
			   "drm-shared-memory:\t0\n");

	mock_bo_create(test, SZ_1M, MOCK_SYS, &mock_plain_bo_funcs);
	KUNIT_EXPECT_STREQ(test, mock_show(test),
			   "drm-total-memory:\t1 MiB\n"
			   "drm-shared-memory:\t0\n");
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
	KUNIT_CASE_PARAM(drm_test_memory_stats_add, add_gen_params),
	KUNIT_CASE(drm_test_memory_stats_add_shared),
	KUNIT_CASE(drm_test_memory_stats_add_regions),
	KUNIT_CASE(drm_test_memory_stats_single),
	KUNIT_CASE(drm_test_memory_stats_single_no_status),
	KUNIT_CASE(drm_test_memory_stats_single_status_active),
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
