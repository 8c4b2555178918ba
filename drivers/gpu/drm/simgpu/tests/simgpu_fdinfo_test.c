// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of simgpu's fdinfo usage statistics.
 *
 * Copyright (c) 2026 The simgpu authors
 */

#include <kunit/test.h>

#include <linux/file.h>
#include <linux/seq_file.h>

#include <drm/drm_file.h>
#include <drm/drm_kunit_helpers.h>

#include "../simgpu_drv.h"

#define FDINFO_BUF_SIZE	4096

struct fdinfo_test {
	struct simgpu_device *sdev;
	char *buf;
};

static int fdinfo_test_init(struct kunit *test)
{
	struct simgpu_hw_config cfg = {
		.refclk_hz = 19200000,
		.instances = { 1, 1, 2, 1, 4 },
		.vram_size = SZ_16M,
	};
	struct fdinfo_test *ft;
	struct device *dev;

	ft = kunit_kzalloc(test, sizeof(*ft), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ft);
	ft->buf = kunit_kzalloc(test, FDINFO_BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ft->buf);

	dev = drm_kunit_helper_alloc_device(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);

	ft->sdev = simgpu_device_create(dev, &cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ft->sdev);

	test->priv = ft;
	return 0;
}

static struct file *fdinfo_open(struct kunit *test)
{
	struct fdinfo_test *ft = test->priv;
	struct file *file;

	file = mock_drm_getfile(ft->sdev->drm.primary, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	return file;
}

/* Run the fdinfo callback as procfs does, into a seq_file over ft->buf. */
static const char *fdinfo_read(struct kunit *test, struct file *file)
{
	struct fdinfo_test *ft = test->priv;
	struct seq_file m = {
		.buf = ft->buf,
		.size = FDINFO_BUF_SIZE,
		.file = file,
	};

	drm_show_fdinfo(&m, file);
	KUNIT_ASSERT_FALSE_MSG(test, seq_has_overflowed(&m),
			       "fdinfo larger than %d bytes", FDINFO_BUF_SIZE);
	ft->buf[m.count] = '\0';
	return ft->buf;
}

static void fdinfo_test_common_keys(struct kunit *test)
{
	struct file *file = fdinfo_open(test);
	struct drm_file *dfile = file->private_data;
	const char *out = fdinfo_read(test, file);
	char line[64];

	KUNIT_EXPECT_TRUE(test, str_has_prefix(out, "drm-driver:\tsimgpu\n"));
	snprintf(line, sizeof(line), "\ndrm-client-id:\t%llu\n",
		 dfile->client_id);
	KUNIT_EXPECT_NOT_NULL(test, strstr(out, line));

	fput(file);
}

static struct kunit_case fdinfo_test_cases[] = {
	KUNIT_CASE(fdinfo_test_common_keys),
	{}
};

static struct kunit_suite fdinfo_test_suite = {
	.name = "simgpu_fdinfo",
	.init = fdinfo_test_init,
	.test_cases = fdinfo_test_cases,
};

kunit_test_suite(fdinfo_test_suite);
