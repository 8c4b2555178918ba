// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the handle counts of the array-taking syncobj ioctls
 *
 * A client of the render node of a mock driver calls the ioctls through
 * drm_ioctl() as a program would, with the argument and the arrays in user
 * memory: counts over the limits documented in include/uapi/drm/drm.h must
 * fail with -EINVAL, without a warning of the page allocator, and small
 * counts as well as the largest allowed ones must work.
 */

#include <linux/file.h>
#include <linux/mman.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <kunit/test.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_kunit_helpers.h>

/*
 * The limits documented in include/uapi/drm/drm.h: of WAIT and TIMELINE_WAIT,
 * and of RESET, SIGNAL, TIMELINE_SIGNAL and QUERY
 */
#define WAIT_MAX_HANDLES	SZ_64K
#define ARRAY_MAX_HANDLES	SZ_512K

#define WAIT_ALL	DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL
#define WAIT_FOR_SUBMIT	DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT

/* User memory: the ioctl argument, room for the handles, the points */
#define UARG_SIZE	PAGE_SIZE
#define UHANDLES_SIZE	PAGE_ALIGN((ARRAY_MAX_HANDLES + 1) * sizeof(u32))
#define UPOINTS_SIZE	PAGE_ALIGN((ARRAY_MAX_HANDLES + 1) * sizeof(u64))

struct syncobj_test {
	struct drm_device *drm;
	struct file *file;
	void __user *uarg;
	u32 __user *uhandles;
	u64 __user *upoints;
};

DEFINE_DRM_GEM_FOPS(mock_fops);

static const struct drm_driver mock_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.fops = &mock_fops,
	.name = "drm-syncobj-mock",
	.desc = "mock driver for the syncobj ioctl tests",
};

static void mock_fput(void *file)
{
	fput(file);
	flush_delayed_fput();
}

/* Calls ioctl @cmd of the test's client with @arg, which it updates. */
static int mock_ioctl(struct kunit *test, unsigned int cmd, void *arg)
{
	struct syncobj_test *st = test->priv;
	size_t size = _IOC_SIZE(cmd);
	long ret;

	KUNIT_ASSERT_LE(test, size, UARG_SIZE);
	KUNIT_ASSERT_EQ(test, copy_to_user(st->uarg, arg, size), 0UL);
	ret = drm_ioctl(st->file, cmd, (unsigned long)st->uarg);
	KUNIT_ASSERT_EQ(test, copy_from_user(arg, st->uarg, size), 0UL);

	return ret;
}

static u32 mock_syncobj_create(struct kunit *test, u32 flags)
{
	struct drm_syncobj_create args = { .flags = flags };

	KUNIT_ASSERT_EQ(test, mock_ioctl(test, DRM_IOCTL_SYNCOBJ_CREATE, &args),
			0);
	KUNIT_ASSERT_NE(test, args.handle, 0);

	return args.handle;
}

/* Puts @count times @handle in the user array of handles. */
static void mock_fill_handles(struct kunit *test, u32 handle, u32 count)
{
	struct syncobj_test *st = test->priv;
	u32 *handles;
	u32 i;

	handles = kvmalloc_array(count, sizeof(*handles), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, handles);
	for (i = 0; i < count; i++)
		handles[i] = handle;
	i = copy_to_user(st->uhandles, handles, count * sizeof(*handles));
	kvfree(handles);
	KUNIT_ASSERT_EQ(test, i, 0);
}

static void mock_put_points(struct kunit *test, const u64 *points, u32 count)
{
	struct syncobj_test *st = test->priv;

	KUNIT_ASSERT_EQ(test, copy_to_user(st->upoints, points,
					   count * sizeof(*points)), 0UL);
}

static int mock_wait(struct kunit *test, u32 count, u32 flags, u32 *first)
{
	struct syncobj_test *st = test->priv;
	struct drm_syncobj_wait args = {
		.handles = (uintptr_t)st->uhandles,
		.count_handles = count,
		.flags = flags,
		.first_signaled = ~0u,
	};
	int ret;

	ret = mock_ioctl(test, DRM_IOCTL_SYNCOBJ_WAIT, &args);
	if (first)
		*first = args.first_signaled;
	return ret;
}

static int mock_timeline_wait(struct kunit *test, u32 count, u32 flags)
{
	struct syncobj_test *st = test->priv;
	struct drm_syncobj_timeline_wait args = {
		.handles = (uintptr_t)st->uhandles,
		.points = (uintptr_t)st->upoints,
		.count_handles = count,
		.flags = flags,
	};

	return mock_ioctl(test, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &args);
}

/* RESET and SIGNAL */
static int mock_array(struct kunit *test, unsigned int cmd, u32 count)
{
	struct syncobj_test *st = test->priv;
	struct drm_syncobj_array args = {
		.handles = (uintptr_t)st->uhandles,
		.count_handles = count,
	};

	return mock_ioctl(test, cmd, &args);
}

/* TIMELINE_SIGNAL and QUERY */
static int mock_timeline_array(struct kunit *test, unsigned int cmd,
			       u32 count)
{
	struct syncobj_test *st = test->priv;
	struct drm_syncobj_timeline_array args = {
		.handles = (uintptr_t)st->uhandles,
		.points = (uintptr_t)st->upoints,
		.count_handles = count,
	};

	return mock_ioctl(test, cmd, &args);
}

/* Binary syncobjs with small counts: signal, wait, reset. */
static void drm_test_syncobj_wait_signal_reset(struct kunit *test)
{
	struct syncobj_test *st = test->priv;
	u32 handles[2], first;

	handles[0] = mock_syncobj_create(test, 0);
	handles[1] = mock_syncobj_create(test, 0);
	KUNIT_ASSERT_EQ(test, copy_to_user(st->uhandles, handles,
					   sizeof(handles)), 0UL);

	/* Nothing submitted yet: no fence, or a timeout when waiting for one */
	KUNIT_EXPECT_EQ(test, mock_wait(test, 2, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, mock_wait(test, 2, WAIT_FOR_SUBMIT, NULL),
			-ETIME);

	KUNIT_EXPECT_EQ(test, mock_array(test, DRM_IOCTL_SYNCOBJ_SIGNAL, 2), 0);
	KUNIT_EXPECT_EQ(test, mock_wait(test, 2, WAIT_ALL, NULL), 0);

	KUNIT_EXPECT_EQ(test, mock_array(test, DRM_IOCTL_SYNCOBJ_RESET, 1), 0);
	KUNIT_EXPECT_EQ(test, mock_wait(test, 2, WAIT_FOR_SUBMIT | WAIT_ALL,
					NULL), -ETIME);
	KUNIT_EXPECT_EQ(test, mock_wait(test, 2, WAIT_FOR_SUBMIT, &first), 0);
	KUNIT_EXPECT_EQ(test, first, 1);

	/* Zero handles: nothing to wait for, nothing to reset */
	KUNIT_EXPECT_EQ(test, mock_wait(test, 0, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, mock_array(test, DRM_IOCTL_SYNCOBJ_RESET, 0),
			-EINVAL);
}

/* A timeline syncobj with small counts: signal a point, query, wait. */
static void drm_test_syncobj_timeline(struct kunit *test)
{
	struct syncobj_test *st = test->priv;
	u64 points[2] = { 3, 5 };
	u32 handles[2];
	int ret;

	handles[0] = mock_syncobj_create(test, 0);
	handles[1] = mock_syncobj_create(test, 0);
	KUNIT_ASSERT_EQ(test, copy_to_user(st->uhandles, handles,
					   sizeof(handles)), 0UL);
	mock_put_points(test, points, 2);

	ret = mock_timeline_array(test, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, 2);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, mock_timeline_wait(test, 2, WAIT_ALL), 0);

	points[0] = 0;
	points[1] = 0;
	mock_put_points(test, points, 2);
	KUNIT_EXPECT_EQ(test, mock_timeline_array(test, DRM_IOCTL_SYNCOBJ_QUERY,
						  2), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(points, st->upoints,
					     sizeof(points)), 0UL);
	KUNIT_EXPECT_EQ(test, points[0], 3);
	KUNIT_EXPECT_EQ(test, points[1], 5);

	/* A point not submitted yet */
	points[1] = 6;
	mock_put_points(test, points, 2);
	KUNIT_EXPECT_EQ(test, mock_timeline_wait(test, 2,
						 WAIT_ALL | WAIT_FOR_SUBMIT),
			-ETIME);
}

/*
 * The largest counts allowed work: the arrays for them are allocated, and
 * the handles may repeat.
 */
static void drm_test_syncobj_max_counts(struct kunit *test)
{
	struct syncobj_test *st = test->priv;
	u64 __user *last = &st->upoints[ARRAY_MAX_HANDLES - 1];
	u32 handle;
	u64 point;

	handle = mock_syncobj_create(test, DRM_SYNCOBJ_CREATE_SIGNALED);

	mock_fill_handles(test, handle, WAIT_MAX_HANDLES);
	KUNIT_EXPECT_EQ(test, mock_wait(test, WAIT_MAX_HANDLES, WAIT_ALL, NULL),
			0);
	/* The user array of points is zero: point 0 of a binary syncobj */
	KUNIT_EXPECT_EQ(test, mock_timeline_wait(test, WAIT_MAX_HANDLES, 0), 0);

	mock_fill_handles(test, handle, ARRAY_MAX_HANDLES);
	KUNIT_EXPECT_EQ(test, mock_array(test, DRM_IOCTL_SYNCOBJ_RESET,
					 ARRAY_MAX_HANDLES), 0);
	KUNIT_EXPECT_EQ(test, mock_wait(test, 1, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, mock_array(test, DRM_IOCTL_SYNCOBJ_SIGNAL,
					 ARRAY_MAX_HANDLES), 0);
	KUNIT_EXPECT_EQ(test, mock_wait(test, 1, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, put_user(U64_MAX, last), 0);
	KUNIT_EXPECT_EQ(test, mock_timeline_array(test, DRM_IOCTL_SYNCOBJ_QUERY,
						  ARRAY_MAX_HANDLES), 0);
	KUNIT_ASSERT_EQ(test, get_user(point, last), 0);
	KUNIT_EXPECT_EQ(test, point, 0);
}

struct count_case {
	const char *name;
	unsigned int cmd;
	u32 count;
};

/*
 * For each ioctl: just over the limit; large, with arrays that vmalloc()
 * could still allocate; and the largest counts, of arrays of 8 to 256 GiB.
 */
static const struct count_case count_cases[] = {
	{ "WAIT max+1", DRM_IOCTL_SYNCOBJ_WAIT, WAIT_MAX_HANDLES + 1 },
	{ "WAIT 0x1000000", DRM_IOCTL_SYNCOBJ_WAIT, 0x1000000 },
	{ "WAIT 0x7fffffff", DRM_IOCTL_SYNCOBJ_WAIT, 0x7fffffff },
	{ "WAIT 0xffffffff", DRM_IOCTL_SYNCOBJ_WAIT, 0xffffffff },
	{ "TIMELINE_WAIT max+1", DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
	  WAIT_MAX_HANDLES + 1 },
	{ "TIMELINE_WAIT 0x1000000", DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
	  0x1000000 },
	{ "TIMELINE_WAIT 0x7fffffff", DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
	  0x7fffffff },
	{ "TIMELINE_WAIT 0xffffffff", DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
	  0xffffffff },
	{ "RESET max+1", DRM_IOCTL_SYNCOBJ_RESET, ARRAY_MAX_HANDLES + 1 },
	{ "RESET 0x1000000", DRM_IOCTL_SYNCOBJ_RESET, 0x1000000 },
	{ "RESET 0x7fffffff", DRM_IOCTL_SYNCOBJ_RESET, 0x7fffffff },
	{ "RESET 0xffffffff", DRM_IOCTL_SYNCOBJ_RESET, 0xffffffff },
	{ "SIGNAL max+1", DRM_IOCTL_SYNCOBJ_SIGNAL, ARRAY_MAX_HANDLES + 1 },
	{ "SIGNAL 0x1000000", DRM_IOCTL_SYNCOBJ_SIGNAL, 0x1000000 },
	{ "SIGNAL 0x7fffffff", DRM_IOCTL_SYNCOBJ_SIGNAL, 0x7fffffff },
	{ "SIGNAL 0xffffffff", DRM_IOCTL_SYNCOBJ_SIGNAL, 0xffffffff },
	{ "TIMELINE_SIGNAL max+1", DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	  ARRAY_MAX_HANDLES + 1 },
	{ "TIMELINE_SIGNAL 0x1000000", DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	  0x1000000 },
	{ "TIMELINE_SIGNAL 0x7fffffff", DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	  0x7fffffff },
	{ "TIMELINE_SIGNAL 0xffffffff", DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	  0xffffffff },
	{ "QUERY max+1", DRM_IOCTL_SYNCOBJ_QUERY, ARRAY_MAX_HANDLES + 1 },
	{ "QUERY 0x1000000", DRM_IOCTL_SYNCOBJ_QUERY, 0x1000000 },
	{ "QUERY 0x7fffffff", DRM_IOCTL_SYNCOBJ_QUERY, 0x7fffffff },
	{ "QUERY 0xffffffff", DRM_IOCTL_SYNCOBJ_QUERY, 0xffffffff },
};

static void count_case_desc(const struct count_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(count, count_cases, count_case_desc);

/*
 * Counts over the limits fail with -EINVAL, whatever the arrays hold; here
 * they start with one more valid handle than allowed, and the rest of the
 * user memory is zero.
 */
static void drm_test_syncobj_count_over_limit(struct kunit *test)
{
	const struct count_case *c = test->param_value;
	u32 handle;
	int ret;

	handle = mock_syncobj_create(test, DRM_SYNCOBJ_CREATE_SIGNALED);
	mock_fill_handles(test, handle,
			  min_t(u32, c->count, ARRAY_MAX_HANDLES + 1));

	switch (c->cmd) {
	case DRM_IOCTL_SYNCOBJ_WAIT:
		ret = mock_wait(test, c->count, WAIT_ALL, NULL);
		break;
	case DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT:
		ret = mock_timeline_wait(test, c->count, WAIT_ALL);
		break;
	case DRM_IOCTL_SYNCOBJ_RESET:
	case DRM_IOCTL_SYNCOBJ_SIGNAL:
		ret = mock_array(test, c->cmd, c->count);
		break;
	default:
		ret = mock_timeline_array(test, c->cmd, c->count);
		break;
	}
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);

	/* Nothing was done to the syncobj */
	KUNIT_EXPECT_EQ(test, mock_wait(test, 1, 0, NULL), 0);
}

static int drm_syncobj_test_init(struct kunit *test)
{
	struct syncobj_test *st;
	struct drm_device *drm;
	struct device *dev;
	unsigned long addr;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	test->priv = st;

	dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);

	drm = __drm_kunit_helper_alloc_drm_device_with_driver(test, dev,
							      sizeof(*drm), 0,
							      &mock_driver);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, drm);
	st->drm = drm;

	/* Any program that can open the render node can make these calls */
	st->file = mock_drm_getfile(st->drm->render, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, st->file);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, mock_fput,
							st->file), 0);

	addr = kunit_vm_mmap(test, NULL, 0,
			     UARG_SIZE + UHANDLES_SIZE + UPOINTS_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	st->uarg = (void __user *)addr;
	st->uhandles = (u32 __user *)(addr + UARG_SIZE);
	st->upoints = (u64 __user *)(addr + UARG_SIZE + UHANDLES_SIZE);

	return 0;
}

static struct kunit_case drm_syncobj_tests[] = {
	KUNIT_CASE(drm_test_syncobj_wait_signal_reset),
	KUNIT_CASE(drm_test_syncobj_timeline),
	KUNIT_CASE_PARAM(drm_test_syncobj_count_over_limit, count_gen_params),
	KUNIT_CASE_SLOW(drm_test_syncobj_max_counts),
	{}
};

static struct kunit_suite drm_syncobj_suite = {
	.name = "drm_syncobj",
	.init = drm_syncobj_test_init,
	.test_cases = drm_syncobj_tests,
};

kunit_test_suite(drm_syncobj_suite);

MODULE_DESCRIPTION("KUnit tests of the DRM syncobj ioctls' handle counts");
MODULE_LICENSE("GPL");
