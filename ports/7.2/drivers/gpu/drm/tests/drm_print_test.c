// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of drm_seq_file_printer(), the printer of fdinfo and debugfs
 *
 * What drm_printf() writes through it must be what seq_printf() writes for
 * the same format and arguments: every conversion, a "%pV" of the caller's
 * own, and the seq_file's overflow when the buffer is too small, after
 * which seq_read() retries with a bigger one. The same holds for
 * drm_print_kv_u64() and the format it stands for.
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

/* drm_print_kv_u64() and drm_printf() of the format it stands for */
static void print_kv(struct print_test *t, struct drm_printer *p,
		     const char *key, const char *suffix, u64 value,
		     const char *unit)
{
	drm_print_kv_u64(p, key, suffix, value, unit);
	seq_printf(&t->want, "%s%s:\t%llu%s\n", key, suffix ?: "", value,
		   unit ?: "");
}

/*
 * A printer into a seq_file, but not drm_seq_file_printer(), that counts
 * which of its callbacks got the lines.
 */
struct spy {
	struct seq_file *m;
	unsigned int puts, printfn;
};

static void spy_printfn(struct drm_printer *p, struct va_format *vaf)
{
	struct spy *spy = p->arg;

	spy->printfn++;
	seq_printf(spy->m, "%pV", vaf);
}

static void spy_puts(struct drm_printer *p, const char *str)
{
	struct spy *spy = p->arg;

	spy->puts++;
	seq_puts(spy->m, str);
}

/* Every digit count, with and without the suffix and the unit */
static void drm_test_print_kv_u64(struct kunit *test)
{
	struct print_test *t = test->priv;
	struct drm_printer p = drm_seq_file_printer(&t->m);
	static const char want[] =
		"drm-client-id:\t0\n"
		"drm-total-cycles-rcs:\t18446744073709551615\n"
		"drm-total-vram0:\t512 KiB\n"
		"drm-engine-rcs:\t18446744073709551615 ns\n"
		"c:\t9\n"
		"c:\t10\n";
	u64 v = 0;
	int i;

	print_kv(t, &p, "drm-client-id", NULL, 0, NULL);
	print_kv(t, &p, "drm-total-cycles-", "rcs", U64_MAX, NULL);
	print_kv(t, &p, "drm-total-", "vram0", 512, " KiB");
	print_kv(t, &p, "drm-engine-", "rcs", U64_MAX, " ns");
	for (i = 0; i < 19; i++) {
		v = v * 10 + 9;		/* 9, 99, ... and 10, 100, ... */
		print_kv(t, &p, "c", NULL, v, NULL);
		print_kv(t, &p, "c", NULL, v + 1, NULL);
	}
	KUNIT_EXPECT_FALSE(test, seq_has_overflowed(&t->m));
	expect_same(test, t);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(t->m.buf, want));
}

/* Keys far longer than those of fdinfo */
static void drm_test_print_kv_u64_long_key(struct kunit *test)
{
	struct print_test *t = test->priv;
	struct drm_printer p = drm_seq_file_printer(&t->m);
	char *name = kunit_kzalloc(test, 301, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, name);
	memset(name, 'n', 300);

	print_kv(t, &p, "drm-engine-", name, 42, " ns");
	print_kv(t, &p, name, NULL, 7, NULL);
	expect_same(test, t);
	/* "drm-engine-<name>:\t42 ns\n" and "<name>:\t7\n" */
	KUNIT_EXPECT_EQ(test, t->m.count,
			(11 + 300 + 2 + 2 + 3 + 1) + (300 + 2 + 1 + 1));
}

/* A line that does not fit overflows the seq_file, as seq_printf() does */
static void drm_test_print_kv_u64_overflow(struct kunit *test)
{
	struct print_test *t = test->priv;
	struct drm_printer p = drm_seq_file_printer(&t->m);
	char *fill = kunit_kzalloc(test, BUF_SIZE, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, fill);

	/* overflowing in the suffix, then in the key */
	for (i = 0; i < 2; i++) {
		t->m.count = 0;
		t->want.count = 0;
		memset(fill, 'x', BUF_SIZE - 20);
		drm_puts(&p, fill);
		seq_puts(&t->want, fill);
		print_kv(t, &p, i ? fill + BUF_SIZE - 100 : "drm-total-cycles-",
			 "rcs", U64_MAX, NULL);
		KUNIT_EXPECT_TRUE(test, seq_has_overflowed(&t->want));
		KUNIT_EXPECT_TRUE(test, seq_has_overflowed(&t->m));
		KUNIT_EXPECT_EQ(test, t->m.count, t->m.size);
		/* past the overflow, seq_read() drops the buffer */
		KUNIT_EXPECT_MEMEQ(test, t->m.buf, fill, BUF_SIZE - 20);
	}
}

/* Another printer gets the line through drm_printf(), as one line */
static void drm_test_print_kv_u64_printfn(struct kunit *test)
{
	struct print_test *t = test->priv;
	struct spy spy = { .m = &t->m };
	struct drm_printer p = {
		.printfn = spy_printfn,
		.puts = spy_puts,
		.arg = &spy,
	};

	print_kv(t, &p, "drm-engine-capacity-", "vcs", 2, NULL);
	expect_same(test, t);
	KUNIT_EXPECT_EQ(test, spy.printfn, 1);
	KUNIT_EXPECT_EQ(test, spy.puts, 0);
	KUNIT_EXPECT_STREQ(test, t->m.buf, "drm-engine-capacity-vcs:\t2\n");
}

static struct kunit_case drm_print_tests[] = {
	KUNIT_CASE(drm_test_print_seq_file_formats),
	KUNIT_CASE(drm_test_print_seq_file_pv),
	KUNIT_CASE(drm_test_print_seq_file_overflow),
	KUNIT_CASE(drm_test_print_kv_u64),
	KUNIT_CASE(drm_test_print_kv_u64_long_key),
	KUNIT_CASE(drm_test_print_kv_u64_overflow),
	KUNIT_CASE(drm_test_print_kv_u64_printfn),
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
