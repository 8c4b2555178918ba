// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of drm_seq_file_printer(), the printer of fdinfo and debugfs
 *
 * What drm_printf() writes through it must be what seq_printf() writes for
 * the same format and arguments: every conversion, a "%pV" of the caller's
 * own, and the seq_file's overflow when the buffer is too small, after
 * which seq_read() retries with a bigger one.
 */

#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <kunit/test.h>

#include <drm/drm_print.h>

#define BUF_SIZE	SZ_1K

struct print_test {
	struct seq_file m;	/* through drm_printf() */
	struct seq_file want;	/* through seq_printf() */
};

static int drm_print_test_init(struct kunit *test)
{
	struct print_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->m.size = BUF_SIZE;
	t->m.buf = kunit_kzalloc(test, BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->m.buf);
	t->want.size = BUF_SIZE;
	t->want.buf = kunit_kzalloc(test, BUF_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->want.buf);
	test->priv = t;
	return 0;
}

static void expect_same(struct kunit *test, struct print_test *t)
{
	KUNIT_EXPECT_EQ(test, t->m.count, t->want.count);
	KUNIT_EXPECT_MEMEQ(test, t->m.buf, t->want.buf,
			   min(t->m.count, t->want.count));
}

/* The fdinfo keys' formats, and the other conversions, as seq_printf()'s */
static void drm_test_print_seq_file_formats(struct kunit *test)
{
	struct print_test *t = test->priv;
	struct drm_printer p = drm_seq_file_printer(&t->m);
	static const char *const name = "ccs";
	u64 ns = 18446744073709551615ull;

	drm_printf(&p, "drm-engine-%s:\t%llu ns\n", name, ns);
	seq_printf(&t->want, "drm-engine-%s:\t%llu ns\n", name, ns);
	drm_printf(&p, "drm-engine-capacity-%s:\t%u\n", name, 4u);
	seq_printf(&t->want, "drm-engine-capacity-%s:\t%u\n", name, 4u);
	drm_printf(&p, "%d %x %08lx %c %.3s %5s|%-5s| %%\n", -7, 0xbeef,
		   0xabcUL, 'z', "truncated", "r", "l");
	seq_printf(&t->want, "%d %x %08lx %c %.3s %5s|%-5s| %%\n", -7,
		   0xbeef, 0xabcUL, 'z', "truncated", "r", "l");
	drm_puts(&p, "a string\n");
	seq_puts(&t->want, "a string\n");

	expect_same(test, t);
	KUNIT_EXPECT_STREQ(test, t->m.buf,
			   "drm-engine-ccs:\t18446744073709551615 ns\n"
			   "drm-engine-capacity-ccs:\t4\n"
			   "-7 beef 00000abc z tru     r|l    | %\n"
			   "a string\n");
}

static __printf(3, 4) void print_vaf(struct drm_printer *p,
				     const char *prefix, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	drm_printf(p, "%s: %pV\n", prefix, &vaf);
	va_end(args);
}

/* A caller's own va_format, printed with "%pV" */
static void drm_test_print_seq_file_pv(struct kunit *test)
{
	struct print_test *t = test->priv;
	struct drm_printer p = drm_seq_file_printer(&t->m);

	print_vaf(&p, "engine", "%s%u busy for %llu ns", "rcs", 0u, 12345ull);
	KUNIT_EXPECT_STREQ(test, t->m.buf, "engine: rcs0 busy for 12345 ns\n");
}

/*
 * A line that does not fit overflows the seq_file, as seq_printf() does:
 * count == size, so that seq_read() retries with a bigger buffer, and
 * nothing of the line is kept.
 */
static void drm_test_print_seq_file_overflow(struct kunit *test)
{
	struct print_test *t = test->priv;
	struct drm_printer p = drm_seq_file_printer(&t->m);
	char *line = kunit_kzalloc(test, BUF_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, line);
	memset(line, 'x', BUF_SIZE - 16);

	drm_printf(&p, "first\n");
	seq_puts(&t->want, "first\n");
	KUNIT_EXPECT_EQ(test, t->m.count, 6);
	drm_printf(&p, "%s%s\n", line, line);
	seq_printf(&t->want, "%s%s\n", line, line);
	KUNIT_EXPECT_TRUE(test, seq_has_overflowed(&t->m));
	KUNIT_EXPECT_EQ(test, t->m.count, t->m.size);
	expect_same(test, t);
}

static struct kunit_case drm_print_tests[] = {
	KUNIT_CASE(drm_test_print_seq_file_formats),
	KUNIT_CASE(drm_test_print_seq_file_pv),
	KUNIT_CASE(drm_test_print_seq_file_overflow),
	{}
};

static struct kunit_suite drm_print_suite = {
	.name = "drm_print",
	.init = drm_print_test_init,
	.test_cases = drm_print_tests,
};

kunit_test_suite(drm_print_suite);

MODULE_DESCRIPTION("KUnit tests of the DRM printer of seq_files");
MODULE_LICENSE("GPL");
