// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for the fdinfo parser, the utilisation
 * math, discovery over a fake proc tree and of PMUs over a fake sysfs
 * tree. Prints TAP lines.
 *
 * Usage: unit-test FIXTURE_DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "compiler.h"
#include "fdinfo.h"
#include "output.h"
#include "pmu.h"
#include "scan.h"
#include "util.h"

static int ntest, nfail;
static const char *fixdir;

static __printf(2, 3) void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		nfail++;
}

static int load(struct fdinfo *fi, const char *name)
{
	char path[4096], *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	fdinfo_init(fi);
	n = fdinfo_read_file(AT_FDCWD, path, &buf, &cap, NULL);
	if (n < 0) {
		free(buf);
		return -1;
	}
	fdinfo_parse(fi, buf, n);
	free(buf);
	return 0;
}

static int parse_str(struct fdinfo *fi, const char *text)
{
	fdinfo_init(fi);
	return fdinfo_parse(fi, text, strlen(text));
}

static const struct fdinfo_engine *eng(const struct fdinfo *fi,
				       const char *name)
{
	static const struct fdinfo_engine none;
	const struct fdinfo_engine *e = fdinfo_find_engine(fi, name);

	return e ? e : &none;
}

static uint64_t mem(const struct fdinfo *fi, const char *region,
		    enum fdinfo_mem_kind k)
{
	const struct fdinfo_region *r = fdinfo_find_region(fi, region);

	if (!r || !(r->present & (1u << k)))
		return UINT64_MAX;
	return r->bytes[k];
}

#define KiB 1024ull
#define MiB (1024ull * 1024)

static void test_fixtures(void)
{
	struct fdinfo fi;
	const char *x;

	ok(!load(&fi, "xe.txt"), "xe: fixture readable");
	ok(fi.driver && !strcmp(fi.driver, "xe") && fi.has_client_id &&
	   fi.client_id == 3 && fi.pdev && !strcmp(fi.pdev, "0000:03:00.0"),
	   "xe: driver, client id 3, pdev");
	ok(fi.n_engines == 5 && eng(&fi, "rcs")->cycles == 28257900 &&
	   eng(&fi, "rcs")->total_cycles == 7655183225ull &&
	   !eng(&fi, "rcs")->has_ns, "xe: rcs cycles/total-cycles, 5 classes");
	ok(eng(&fi, "vcs")->capacity == 2 && eng(&fi, "ccs")->capacity == 4 &&
	   !eng(&fi, "rcs")->has_capacity, "xe: capacities vcs=2 ccs=4");
	ok(fi.n_regions == 4 && mem(&fi, "vram0", FDINFO_MEM_TOTAL) ==
	   23992 * KiB && mem(&fi, "vram0", FDINFO_MEM_SHARED) == 16 * MiB &&
	   mem(&fi, "gtt", FDINFO_MEM_RESIDENT) == 192 * KiB &&
	   mem(&fi, "gtt", FDINFO_MEM_PURGEABLE) == UINT64_MAX,
	   "xe: memory regions and units");
	ok(fi.malformed == 0 && fi.n_extra == 0, "xe: nothing malformed");
	ok(util_pick_method(eng(&fi, "rcs")) == UTIL_METHOD_CYCLES_TOTAL,
	   "xe: cycles/total-cycles method");
	fdinfo_free(&fi);

	ok(!load(&fi, "i915.txt"), "i915: fixture readable");
	ok(fi.n_engines == 4 && eng(&fi, "render")->ns == 9288864723ull &&
	   eng(&fi, "copy")->ns == 2035071108ull,
	   "i915: engine ns values");
	ok(fdinfo_find_engine(&fi, "video") &&
	   fdinfo_find_engine(&fi, "video-enhance") &&
	   eng(&fi, "video")->capacity == 2 &&
	   !eng(&fi, "video-enhance")->has_capacity,
	   "i915: 'video' and 'video-enhance' are distinct (exact match)");
	ok(mem(&fi, "system0", FDINFO_MEM_TOTAL) == 36 * MiB &&
	   mem(&fi, "stolen-system0", FDINFO_MEM_TOTAL) == 0 &&
	   util_pick_method(eng(&fi, "render")) == UTIL_METHOD_NS,
	   "i915: regions incl. stolen-system0, ns method");
	fdinfo_free(&fi);

	ok(!load(&fi, "amdgpu.txt"), "amdgpu: fixture readable");
	ok(fi.malformed == 0, "amdgpu: 'pasid:' is no malformed line (%u)",
	   fi.malformed);
	ok(mem(&fi, "gtt", FDINFO_MEM_LEGACY) == 2048 * KiB &&
	   mem(&fi, "vram", FDINFO_MEM_LEGACY) == 124316 * KiB &&
	   mem(&fi, "cpu", FDINFO_MEM_LEGACY) == 0 &&
	   mem(&fi, "vram", FDINFO_MEM_SHARED) == 4096 * KiB,
	   "amdgpu: legacy drm-memory- with stray space before tab, KiB");
	ok(eng(&fi, "gfx")->ns == 2451687396ull &&
	   eng(&fi, "dec")->ns == 8839 && fi.n_engines == 3,
	   "amdgpu: engine ns");
	x = fdinfo_find_extra(&fi, "amd-requested-vram");
	ok(fi.n_extra == 6 && x && !strcmp(x, "124316 KiB"),
	   "amdgpu: driver specific amd- keys kept verbatim");
	fdinfo_free(&fi);

	ok(!load(&fi, "msm.txt"), "msm: fixture readable");
	ok(eng(&fi, "gpu")->cycles == 1176331258ull &&
	   eng(&fi, "gpu")->maxfreq_hz == 670000000ull &&
	   eng(&fi, "gpu")->ns == 1239848712ull &&
	   util_pick_method(eng(&fi, "gpu")) == UTIL_METHOD_CYCLES_MAXFREQ,
	   "msm: cycles + maxfreq Hz, maxfreq method");
	ok(fi.client_name && !strcmp(fi.client_name, "weston") &&
	   mem(&fi, "memory", FDINFO_MEM_PURGEABLE) == 140 * KiB,
	   "msm: client name and memory");
	fdinfo_free(&fi);

	ok(!load(&fi, "panfrost.txt"), "panfrost: fixture readable");
	ok(eng(&fi, "fragment")->cycles == 1424359409ull &&
	   eng(&fi, "fragment")->maxfreq_hz == 799999987ull &&
	   eng(&fi, "vertex-tiler")->curfreq_hz == 400000000ull &&
	   eng(&fi, "vertex-tiler")->ns == 71932239ull,
	   "panfrost: cycles, maxfreq, curfreq");
	ok(mem(&fi, "memory", FDINFO_MEM_TOTAL) == 290 * MiB &&
	   mem(&fi, "memory", FDINFO_MEM_RESIDENT) == 36496 * KiB &&
	   mem(&fi, "memory", FDINFO_MEM_ACTIVE) == 226 * MiB &&
	   fi.malformed == 0, "panfrost: MiB/KiB memory");
	fdinfo_free(&fi);

	ok(!load(&fi, "v3d.txt"), "v3d: fixture readable");
	x = fdinfo_find_extra(&fi, "v3d-jobs-render");
	ok(fi.n_engines == 6 && eng(&fi, "render")->ns == 9876543210ull &&
	   eng(&fi, "cache_clean")->has_ns && x && !strcmp(x, "28 jobs") &&
	   fi.malformed == 0, "v3d: ' \\t' separator, 6 queues, v3d-jobs-");
	fdinfo_free(&fi);

	ok(!load(&fi, "simgpu.txt"), "simgpu: fixture readable");
	ok(eng(&fi, "rcs")->ns == 123456 && eng(&fi, "rcs")->cycles == 2370355 &&
	   eng(&fi, "rcs")->total_cycles == 99887766 &&
	   eng(&fi, "ccs")->capacity == 4 && fi.client_id == 7,
	   "simgpu: engines");
	ok(mem(&fi, "memory", FDINFO_MEM_TOTAL) == 8 * KiB &&
	   mem(&fi, "vram0", FDINFO_MEM_TOTAL) == MiB &&
	   mem(&fi, "vram0", FDINFO_MEM_ACTIVE) == 512 * KiB &&
	   fi.malformed == 0, "simgpu: memory");
	fdinfo_free(&fi);
}

static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether a and b hold the same sample (the allocations aside). */
static bool fdinfo_same(const struct fdinfo *a, const struct fdinfo *b)
{
	size_t i;

	if (!str_same(a->driver, b->driver) || !str_same(a->pdev, b->pdev) ||
	    !str_same(a->client_name, b->client_name) ||
	    a->has_client_id != b->has_client_id ||
	    a->client_id != b->client_id || a->n_engines != b->n_engines ||
	    a->n_regions != b->n_regions || a->n_extra != b->n_extra ||
	    a->lines != b->lines || a->malformed != b->malformed ||
	    a->dups != b->dups || a->size != b->size)
		return false;
	for (i = 0; i < a->n_engines; i++) {
		const struct fdinfo_engine *x = &a->engines[i], *y = &b->engines[i];

		if (strcmp(x->name, y->name) || x->has_ns != y->has_ns ||
		    x->has_cycles != y->has_cycles ||
		    x->has_total_cycles != y->has_total_cycles ||
		    x->has_capacity != y->has_capacity ||
		    x->has_maxfreq != y->has_maxfreq ||
		    x->has_curfreq != y->has_curfreq || x->ns != y->ns ||
		    x->cycles != y->cycles ||
		    x->total_cycles != y->total_cycles ||
		    x->capacity != y->capacity ||
		    x->maxfreq_hz != y->maxfreq_hz ||
		    x->curfreq_hz != y->curfreq_hz)
			return false;
	}
	for (i = 0; i < a->n_regions; i++)
		if (strcmp(a->regions[i].name, b->regions[i].name) ||
		    a->regions[i].present != b->regions[i].present ||
		    memcmp(a->regions[i].bytes, b->regions[i].bytes,
			   sizeof(a->regions[i].bytes)))
			return false;
	for (i = 0; i < a->n_extra; i++)
		if (strcmp(a->extra[i].key, b->extra[i].key) ||
		    strcmp(a->extra[i].value, b->extra[i].value))
			return false;
	return true;
}

/* fdinfo_update() of fi, parsed from old, with text; 1, 0 or -ENOMEM */
static int update_str(struct fdinfo *fi, const char *old, const char *text)
{
	fdinfo_reset(fi);
	fdinfo_parse(fi, old, strlen(old));
	return fdinfo_update(fi, old, strlen(old), text, strlen(text));
}

static void test_update(void)
{
	static const char base[] =
		"pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t911\n"
		"drm-driver:\tsimgpu\ndrm-client-id:\t7\n"
		"drm-pdev:\t0000:00:04.0\ndrm-client-name:\tbench\n"
		"drm-engine-rcs:\t100 ns\ndrm-cycles-rcs:\t30\n"
		"drm-total-cycles-rcs:\t99887766\n"
		"drm-engine-ccs:\t0 ns\ndrm-cycles-ccs:\t0\n"
		"drm-total-cycles-ccs:\t99887766\n"
		"drm-engine-capacity-ccs:\t4\n"
		"drm-maxfreq-ccs:\t1200 MHz\ndrm-curfreq-ccs:\t300 MHz\n"
		"drm-total-memory:\t8 KiB\ndrm-resident-memory:\t4 KiB\n"
		"drm-total-vram0:\t1 MiB\n"
		"simgpu-note:\tx\n";
	static const struct {
		const char *from, *to;	/* in base */
		int ret;
		const char *what;
	} cases[] = {
		{ "\t100 ns", "\t100 ns", 1, "the same text" },
		{ "\t100 ns", "\t12345 ns", 1, "a counter" },
		{ "\t100 ns", "\t7", 1, "a counter, without its unit" },
		{ "\t99887766\ndrm-engine-ccs", "\t18446744073709551615\ndrm-engine-ccs",
		  1, "2^64 - 1" },
		{ "\t8 KiB", "\t3 MiB", 1, "memory" },
		{ "\t300 MHz", "\t1 GHz", 1, "a frequency" },
		{ "-ccs:\t4", "-ccs:\t2", 1, "a capacity" },
		{ "pos:\t0", "pos:\t4096", 1, "a VFS line" },
		{ "\t100 ns", "\t1 ms", 0, "a bad unit" },
		{ "-ccs:\t4", "-ccs:\t0", 0, "a zero capacity" },
		{ "\t99887766\ndrm-engine-ccs", "\t18446744073709551616\ndrm-engine-ccs",
		  0, "2^64" },
		{ "id:\t7", "id:\t8", 0, "the client id" },
		{ "\tsimgpu\n", "\tother\n", 0, "the driver" },
		{ "04.0", "05.0", 0, "the device" },
		{ "\tbench", "\tother", 0, "the client name" },
		{ "note:\tx", "note:\ty", 0, "a driver's own key" },
		{ "engine-rcs:", "engine-vcs:", 0, "a key" },
		{ "engine-rcs:", "engine-rcs :", 0, "a key with a blank" },
		{ "\t100 ns\n", "\t100 ns\ndrm-engine-vcs:\t1 ns\n", 0, "a line more" },
		{ "drm-engine-rcs:\t100 ns\n", "", 0, "a line less" },
		{ "note:\tx\n", "note:\tx", 0, "no newline at the end" },
		{ "\t100 ns", "\t9999999999999999999 ns", 1, "19 digits" },
		{ "\t100 ns", "\t000000000000000000000100 ns", 1,
		  "leading zeros past 19 digits" },
		{ "\t99887766\ndrm-engine-ccs",
		  "\t00018446744073709551616\ndrm-engine-ccs", 0,
		  "2^64 after zeros" },
		{ "rcs:\t100 ns", "rcs:100 ns", 1, "no blank after the ':'" },
		{ "rcs:\t100 ns", "rcs:\t100 ns  ", 1, "blanks after the unit" },
		{ "-ccs:\t4", "-ccs:\t4 ", 1, "a blank at the end" },
		{ "\t1 MiB\n", "\t2 MiB", 0, "a line joined to the next" },
		{ "ino:\t911", "ino:\t", 1, "a VFS value gone" },
		{ "\t100 ns", "\t ns", 0, "a counter gone" },
	};
	static const char *const how[] = {
		"parsed again", "only the changed lines parsed"
	};
	struct fdinfo fi, ref;
	char text[2048], *p;
	unsigned int seed = 4321, round, agree = 0, fast = 0;
	size_t i;
	int ret;

	fdinfo_init(&fi);
	fdinfo_init(&ref);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		p = strstr(base, cases[i].from);
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(p - base), base,
			 cases[i].to, p + strlen(cases[i].from));
		ret = update_str(&fi, base, text);
		fdinfo_reset(&ref);
		fdinfo_parse(&ref, text, strlen(text));
		ok(ret == cases[i].ret && (ret == 0 || fdinfo_same(&fi, &ref)),
		   "update: %s: %s", cases[i].what, how[ret == 1]);
	}

	/*
	 * A NUL in a value that changed makes the line malformed, even where
	 * nothing of the value is kept (a VFS line): parsed again.
	 */
	{
		static const char from[] = "drm-driver:\tx\npos:\t0\n";
		static const char to[] = "drm-driver:\tx\npos:\t1\0\n";

		fdinfo_reset(&fi);
		fdinfo_parse(&fi, from, sizeof(from) - 1);
		ret = fdinfo_update(&fi, from, sizeof(from) - 1, to,
				    sizeof(to) - 1);
		fdinfo_reset(&ref);
		fdinfo_parse(&ref, to, sizeof(to) - 1);
		ok(ret == 0 && ref.malformed == 1,
		   "update: a NUL in a changed value: parsed again (%d)", ret);
	}

	/*
	 * As many changed lines as an update takes (64), and one more: that
	 * one is parsed again, and the update wrote nothing past its room.
	 */
	{
		static char from[4096], to[4096];
		unsigned int nlines;
		size_t fl, tl;

		for (nlines = 64; nlines <= 65; nlines++) {
			fl = snprintf(from, sizeof(from), "drm-driver:\tx\n");
			tl = snprintf(to, sizeof(to), "drm-driver:\tx\n");
			for (i = 0; i < nlines; i++) {
				fl += snprintf(from + fl, sizeof(from) - fl,
					       "drm-cycles-e%zu:\t1\n", i);
				tl += snprintf(to + tl, sizeof(to) - tl,
					       "drm-cycles-e%zu:\t22\n", i);
			}
			ret = update_str(&fi, from, to);
			fdinfo_reset(&ref);
			fdinfo_parse(&ref, to, tl);
			ok(ret == (nlines == 64) &&
			   (ret == 0 || fdinfo_same(&fi, &ref)),
			   "update: %u changed lines: %s", nlines,
			   how[ret == 1]);
		}
	}

	/*
	 * What an update learnt of the lines that changed serves the next
	 * one, at offsets moved by a line before them that grew or shrank;
	 * after keys that swapped places (parsed again), it starts afresh.
	 */
	{
		/* a line of 18 bytes; pos grows or shrinks by one */
#define P19	"pos:\t1000000000000000000\n"
#define P1	"pos:\t1\n"
		static const char *const steps[] = {
			P19 "drm-cycles-rcs:\t1\ndrm-cycles-ccs:\t1\n"
			"drm-total-vram0:\t1\n",
			P19 "drm-cycles-rcs:\t2\ndrm-cycles-ccs:\t1\n"
			"drm-total-vram0:\t2\n",
			/* rcs now where ccs was */
			P1 "drm-cycles-rcs:\t2\ndrm-cycles-ccs:\t1\n"
			"drm-total-vram0:\t2\n",
			P1 "drm-cycles-rcs:\t2\ndrm-cycles-ccs:\t3\n"
			"drm-total-vram0:\t3\n",
			P19 "drm-cycles-rcs:\t4\ndrm-cycles-ccs:\t3\n"
			"drm-total-vram0:\t4\n",
			P19 "drm-cycles-rcs:\t5\ndrm-cycles-ccs:\t55\n"
			"drm-total-vram0:\t5\n",
			/* keys swapped */
			P19 "drm-cycles-ccs:\t6\ndrm-cycles-rcs:\t6\n"
			"drm-total-vram0:\t6\n",
			P1 "drm-cycles-ccs:\t7\ndrm-cycles-rcs:\t77\n"
			"drm-total-vram0:\t7\n",
		};
#undef P19
#undef P1
		unsigned int same = 0, fast = 0;

		fdinfo_reset(&fi);
		fdinfo_parse(&fi, steps[0], strlen(steps[0]));
		for (i = 1; i < ARRAY_SIZE(steps); i++) {
			ret = fdinfo_update(&fi, steps[i - 1],
					    strlen(steps[i - 1]), steps[i],
					    strlen(steps[i]));
			if (ret == 1) {
				fast++;
			} else {
				fdinfo_reset(&fi);
				fdinfo_parse(&fi, steps[i], strlen(steps[i]));
			}
			fdinfo_reset(&ref);
			fdinfo_parse(&ref, steps[i], strlen(steps[i]));
			same += fdinfo_same(&fi, &ref);
		}
		ok(same == ARRAY_SIZE(steps) - 1 && fast == ARRAY_SIZE(steps) - 2,
		   "update: lines that changed before, moved: %u of %zu as parsed (%u in place)",
		   same, ARRAY_SIZE(steps) - 1, fast);
	}

	/* nothing updated once a line was malformed or given twice */
	ok(update_str(&fi, "drm-driver:\tx\ndrm-cycles-a:\t1\nbad\n",
		      "drm-driver:\tx\ndrm-cycles-a:\t2\nbad\n") == 0,
	   "update: not after a malformed line");
	ok(update_str(&fi, "drm-driver:\tx\ndrm-cycles-a:\t1\ndrm-cycles-a:\t5\n",
		      "drm-driver:\tx\ndrm-cycles-a:\t2\ndrm-cycles-a:\t5\n") == 0 &&
	   fi.dups == 1, "update: not after a value given twice");

	/*
	 * Random counters and layouts: whenever fdinfo_update() takes a
	 * text, it agrees with a parse from scratch, and it takes the texts
	 * that differ in counters only.
	 */
	fdinfo_reset(&fi);
	fdinfo_parse(&fi, base, strlen(base));
	snprintf(text, sizeof(text), "%s", base);
	for (round = 0; round < 2000; round++) {
		char next[2048], *q;
		size_t len = strlen(text);
		bool counters_only = true;

		memcpy(next, text, len + 1);
		/* change 0 to 3 numbers, or now and then a key */
		for (i = 0; i < (size_t)(rand_r(&seed) % 4); i++) {
			enum fdinfo_mem_kind mk;
			enum fdinfo_key k;
			const char *sfx;
			size_t sfx_len;
			char num[32];

			/* a line, its key and its value */
			q = next + rand_r(&seed) % strlen(next);
			while (q > next && q[-1] != '\n')
				q--;
			p = strchr(q, ':');
			if (!p || p[1] != '\t')
				continue;
			if (rand_r(&seed) % 16 == 0) {
				p[-1] = p[-1] == 's' ? 'x' : 's';
				counters_only = false;
				continue;
			}
			k = fdinfo_classify(q, p - q, &sfx, &sfx_len, &mk);
			if ((k < FDINFO_KEY_ENGINE_CAPACITY || k > FDINFO_KEY_MEM) &&
			    k != FDINFO_KEY_GENERIC && k != FDINFO_KEY_INVALID)
				counters_only = false;	/* a string, an id */
			q = p + 2;
			if (*q < '0' || *q > '9')
				continue;
			snprintf(num, sizeof(num), "%u", rand_r(&seed) % 100000 + 1);
			p = q + strspn(q, "0123456789");
			memmove(q + strlen(num), p, strlen(p) + 1);
			memcpy(q, num, strlen(num));
		}
		ret = fdinfo_update(&fi, text, len, next, strlen(next));
		if (ret == 1) {
			fast++;
		} else {
			fdinfo_reset(&fi);
			fdinfo_parse(&fi, next, strlen(next));
		}
		fdinfo_reset(&ref);
		fdinfo_parse(&ref, next, strlen(next));
		if (fdinfo_same(&fi, &ref) &&
		    (ret == 1 || !counters_only || ref.malformed || ref.dups))
			agree++;
		snprintf(text, sizeof(text), "%s", next);
	}
	ok(agree == round && fast > round / 4,
	   "update: %u random texts as parsed from scratch (%u updated in place)",
	   agree, fast);
	fdinfo_free(&fi);
	fdinfo_free(&ref);
}

/* fdinfo_parse_uint() as the spec reads, a digit at a time */
static int ref_parse_uint(const char *s, size_t len, uint64_t *out,
			  size_t *unit_off)
{
	bool range = false;
	uint64_t v = 0;
	size_t i;

	if (!len || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			range = true;
	if (i < len && !strchr(" \t\r\v\f", s[i] ? s[i] : 'x'))
		return -EINVAL;
	while (i < len && s[i] && strchr(" \t\r\v\f", s[i]))
		i++;
	*unit_off = i;
	if (range)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * Numbers of 1 to 24 digits, and a byte that is not a digit at each place
 * of them (eight are read at once): as parsed a digit at a time.
 */
static void test_parse_uint(void)
{
	static const char others[] = { '/', ':', ' ', '\t', 'a', '.', '\0',
				       (char)0xb9, (char)0x39 + 0x80 };
	unsigned int seed = 2024, agree = 0, total = 0, i;
	size_t len, pos, off_ref, k;
	uint64_t v, v_ref;
	const char *unit;
	char num[40];
	int ret, ret_ref;

	for (len = 1; len <= 24; len++) {
		for (i = 0; i < 200; i++) {
			for (k = 0; k < len; k++)
				num[k] = '0' + rand_r(&seed) % 10;
			if (i % 3 == 0)
				memset(num, '9', len);	/* near 2^64 */
			pos = rand_r(&seed) % (len + 1);
			if (i % 2 && pos < len)
				num[pos] = others[rand_r(&seed) % sizeof(others)];
			memcpy(num + len, " ns", 3);
			v = 0;
			v_ref = 0;
			unit = NULL;
			off_ref = 0;
			ret = fdinfo_parse_uint(num, len + 3, &v, &unit, &k);
			ret_ref = ref_parse_uint(num, len + 3, &v_ref, &off_ref);
			total++;
			if (ret == ret_ref &&
			    (ret || (v == v_ref && unit == num + off_ref &&
				     k == len + 3 - off_ref))) {
				agree++;
				continue;
			}
			if (total - agree > 5)
				continue;
			printf("# parse_uint: %zu digits, 0x%02x at %zu: ", len,
			       (unsigned char)num[pos], pos);
			printf("%d %llu, expected %d %llu\n", ret,
			       (unsigned long long)v, ret_ref,
			       (unsigned long long)v_ref);
		}
	}
	ok(agree == total, "parse_uint: %u of %u numbers as a digit at a time",
	   agree, total);
}

static void test_hostile(void)
{
	struct fdinfo fi;
	size_t i, len, n;
	char *big, *p;
	unsigned int seed = 12345;
	const char *key;
	size_t klen;

	parse_str(&fi, "drm-driver:\tx\ndrm-engine-a:\t99999999999999999999999 ns\n"
		  "drm-cycles-b:\t18446744073709551616\n"
		  "drm-cycles-c:\t18446744073709551615\n"
		  "drm-total-vram0:\t18446744073709551615 KiB\n");
	ok(fi.malformed == 3 && !fdinfo_find_engine(&fi, "a") &&
	   !fdinfo_find_engine(&fi, "b") &&
	   eng(&fi, "c")->cycles == UINT64_MAX &&
	   !fdinfo_find_region(&fi, "vram0"),
	   "values > 2^64-1 and unit overflow rejected, 2^64-1 accepted");
	fdinfo_free(&fi);

	/* one rule for sizes with drm-fdinfo-check: bytes fit in 64 bits */
	parse_str(&fi, "drm-driver:\tx\n"
		  "drm-total-a:\t18014398509481984 KiB\n"
		  "drm-total-b:\t17592186044416 MiB\n"
		  "drm-total-c:\t18014398509481983 KiB\n"
		  "drm-total-d:\t17592186044415 MiB\n");
	ok(fi.malformed == 2 && mem(&fi, "c", FDINFO_MEM_TOTAL) ==
	   18014398509481983ull * 1024 && mem(&fi, "d", FDINFO_MEM_TOTAL) ==
	   17592186044415ull << 20,
	   "2^64 bytes in KiB or MiB is out of range, 2^64 - 1 KiB less is not (%u malformed)",
	   fi.malformed);
	fdinfo_free(&fi);

	parse_str(&fi, "drm-driver:\tx\ndrm-client-id:\t5");
	ok(fi.has_client_id && fi.client_id == 5,
	   "last line without newline parsed");
	fdinfo_free(&fi);

	parse_str(&fi, "drm-driver:\tx\ndrm-engine-capacity-r:\t0\n"
		  "drm-engine-r:\t5 us\ndrm-cycles-r:\t-1\ndrm-maxfreq-r:\t5 THz\n"
		  ":\t1\nnocolon\ndrm-pdev:\n");
	ok(fi.malformed == 7 && !fdinfo_find_engine(&fi, "r") && !fi.pdev,
	   "zero capacity, bad units, negative, empty key/value malformed (%u)",
	   fi.malformed);
	fdinfo_free(&fi);

	parse_str(&fi, "drm-driver:\tx\ndrm-maxfreq-g:\t800 MHz\n"
		  "drm-curfreq-g:\t300 KHz\ndrm-total-memory:\t3\n");
	ok(eng(&fi, "g")->maxfreq_hz == 800000000ull &&
	   eng(&fi, "g")->curfreq_hz == 300000 &&
	   mem(&fi, "memory", FDINFO_MEM_TOTAL) == 3,
	   "MHz/KHz scaled to Hz, bare bytes");
	fdinfo_free(&fi);

	ok(fdinfo_classify("drm-engine-capacity-x", 21, &key, &klen, NULL) ==
	   FDINFO_KEY_ENGINE_CAPACITY && klen == 1 &&
	   fdinfo_classify("drm-total-cycles-rcs", 20, &key, &klen, NULL) ==
	   FDINFO_KEY_TOTAL_CYCLES && klen == 3 &&
	   fdinfo_classify("drm-total-", 10, &key, &klen, NULL) ==
	   FDINFO_KEY_DRM_UNKNOWN &&
	   fdinfo_classify("pasid", 5, &key, &klen, NULL) ==
	   FDINFO_KEY_INVALID &&
	   fdinfo_classify("amd-x", 5, &key, &klen, NULL) ==
	   FDINFO_KEY_DRIVER_SPECIFIC,
	   "key classification is exact, longest prefix first");

	/* 1 MiB of distinct engine classes: no limits, no quadratic blowup */
	len = 1 << 20;
	big = malloc(len + 64);
	p = big + sprintf(big, "drm-driver:\tbig\n");
	for (n = 0; (size_t)(p - big) < len; n++)
		p += sprintf(p, "drm-engine-e%zu:\t%zu ns\n", n, n);
	fdinfo_init(&fi);
	fdinfo_parse(&fi, big, p - big);
	ok(fi.n_engines == n && eng(&fi, "e33333")->ns == 33333 &&
	   fi.malformed == 0 && fi.size >= len,
	   "1 MiB file with %zu engine classes parsed", n);
	fdinfo_free(&fi);

	{
		char tmpl[] = "/tmp/drmtop-big-XXXXXX", *buf = NULL;
		int fd = mkstemp(tmpl);
		bool cut = false;
		size_t cap = 0;
		ssize_t r = -1;

		if (fd >= 0 && write(fd, big, p - big) == p - big)
			r = fdinfo_read_file(AT_FDCWD, tmpl, &buf, &cap, &cut);
		ok(cut && r > FDINFO_READ_MAX - 64 && r <= FDINFO_READ_MAX &&
		   buf[r - 1] == '\n' && cap <= FDINFO_READ_MAX + 1,
		   "1 MiB file: %zd bytes read up to a newline, no more than %d",
		   r, FDINFO_READ_MAX);
		r = -1;
		if (fd >= 0 && !ftruncate(fd, FDINFO_READ_MAX))
			r = fdinfo_read_file(AT_FDCWD, tmpl, &buf, &cap, &cut);
		ok(r == FDINFO_READ_MAX && !cut,
		   "a file of exactly %d bytes is read whole (%zd)",
		   FDINFO_READ_MAX, r);
		if (fd >= 0) {
			close(fd);
			unlink(tmpl);
		}
		free(buf);
	}

	/* binary garbage with NULs */
	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		big[i] = (seed >> 16) % 7 == 0 ? '\0' : (char)(seed >> 8);
	}
	fdinfo_init(&fi);
	fdinfo_parse(&fi, big, len);
	ok(fi.malformed > 0, "binary garbage: %u malformed lines, no crash",
	   fi.malformed);
	fdinfo_free(&fi);

	memcpy(big, "drm-driver:\tx\0y\ndrm-cycles-a\0b:\t1\n", 34);
	fdinfo_init(&fi);
	fdinfo_parse(&fi, big, 34);
	ok(fi.malformed == 2 && !fi.driver && !fi.n_engines,
	   "NUL inside key or value makes the line malformed");
	fdinfo_free(&fi);

	/* reuse through fdinfo_reset() */
	parse_str(&fi, "drm-driver:\ta\ndrm-engine-x:\t1 ns\namd-k:\tv\n");
	fdinfo_reset(&fi);
	fdinfo_parse(&fi, "drm-driver:\tb\ndrm-engine-y:\t2 ns\n", 33);
	ok(!strcmp(fi.driver, "b") && fi.n_engines == 1 &&
	   eng(&fi, "y")->ns == 2 && !fdinfo_find_engine(&fi, "x") &&
	   fi.n_extra == 0, "fdinfo_reset() forgets the previous sample");
	fdinfo_free(&fi);
	free(big);
}

/* What a test tree may hold instead of an fdinfo file. */
static void test_read_limits(void)
{
	char dir[] = "/tmp/drmtop-fifo-XXXXXX", path[64], *buf = NULL;
	bool cut = false;
	size_t cap = 0;
	uint64_t t;
	ssize_t n;
	int w;

	n = fdinfo_read_file(AT_FDCWD, "/dev/zero", &buf, &cap, &cut);
	ok(n == 0 && cut && cap == FDINFO_READ_MAX + 1,
	   "/dev/zero: %d bytes read, no line in them (%zd, %zu)",
	   FDINFO_READ_MAX, n, cap);

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		free(buf);
		return;
	}
	snprintf(path, sizeof(path), "%s/fifo", dir);
	mkfifo(path, 0600);
	t = now_ns();
	n = fdinfo_read_file(AT_FDCWD, path, &buf, &cap, &cut);
	t = now_ns() - t;
	ok(n == -ETIMEDOUT && t >= FDINFO_WAIT_MS * 1000000ull &&
	   t < 3 * FDINFO_WAIT_MS * 1000000ull,
	   "a FIFO without a writer: -ETIMEDOUT after %llu ms (%zd)",
	   (unsigned long long)(t / 1000000), n);

	/* a writer that keeps it open, without writing */
	w = open(path, O_RDWR);
	t = now_ns();
	n = fdinfo_read_file(AT_FDCWD, path, &buf, &cap, &cut);
	t = now_ns() - t;
	ok(w >= 0 && n == -ETIMEDOUT && t < 3 * FDINFO_WAIT_MS * 1000000ull,
	   "a FIFO whose writer writes nothing: -ETIMEDOUT after %llu ms",
	   (unsigned long long)(t / 1000000));
	if (w >= 0)
		close(w);
	unlink(path);
	rmdir(dir);
	free(buf);
}

/* s escaped, in one of four static buffers used in turn */
static const char *esc(enum str_esc how, const char *s)
{
	static char buf[4][512];
	static unsigned int next;
	char *b = buf[next++ % 4];

	str_escape(b, sizeof(buf[0]), s, strlen(s), how);
	return b;
}

/* name_is(): a counted string against a name, and two names */
static void test_name_is(void)
{
	static const struct {
		const char *name, *s;
		size_t len;
		bool eq;
	} cases[] = {
		{ "rcs", "rcs", 3, true },
		{ "rcs", "rcs0", 3, true },	/* counted: the prefix */
		{ "rcs", "rcs0", 4, false },
		{ "rcs0", "rcs", 3, false },
		{ "rcs", "rc", 2, false },
		{ "", "x", 0, true },
		{ "", "x", 1, false },
		{ "ab", "ab\0c", 4, false },	/* a NUL inside s */
		{ "ab", "ab\0", 3, false },
		{ "rcs", "rcs", NAME_NUL, true },
		{ "rcs", "rcs0", NAME_NUL, false },
		{ "rcs0", "rcs", NAME_NUL, false },
		{ "", "", NAME_NUL, true },
		{ "vram0", "vram1", NAME_NUL, false },
	};
	static const char same[] = "memory";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ok(name_is(cases[i].name, cases[i].s, cases[i].len) ==
		   cases[i].eq, "name_is: case %zu (\"%s\", %zu)", i,
		   cases[i].s, cases[i].len);
	ok(name_eq(same, same) && name_eq("memory", same) &&
	   !name_eq("memor", same), "name_eq: NUL-terminated names");
}

static void test_escape(void)
{
	static const struct {
		const char *in, *text, *ascii, *json, *prom;
	} cases[] = {
		{ "plain-1.0_x", "plain-1.0_x", "plain-1.0_x", "plain-1.0_x",
		  "plain-1.0_x" },
		{ "\033[2J\033]0;t\007", "\\x1b[2J\\x1b]0;t\\x07",
		  "\\x1b[2J\\x1b]0;t\\x07", "\\u001b[2J\\u001b]0;t\\u0007",
		  "\\\\x1b[2J\\\\x1b]0;t\\\\x07" },
		{ "a\nb\tc\rd\x7f", "a\\x0ab\\x09c\\x0dd\\x7f",
		  "a\\x0ab\\x09c\\x0dd\\x7f", "a\\u000ab\\u0009c\\u000dd\\u007f",
		  "a\\\\x0ab\\\\x09c\\\\x0dd\\\\x7f" },
		{ "q\"b\\", "q\"b\\\\", "q\"b\\\\", "q\\\"b\\\\",
		  "q\\\"b\\\\\\\\" },
		/* C1: CSI and NEL in UTF-8 */
		{ "\xc2\x9b\x31m\xc2\x85", "\\xc2\\x9b1m\\xc2\\x85",
		  "\\xc2\\x9b1m\\xc2\\x85", "\\u009b1m\\u0085",
		  "\\\\xc2\\\\x9b1m\\\\xc2\\\\x85" },
		/* a lone 8-bit CSI, 0xff, overlong '/', a surrogate, a cut CJK */
		{ "\x9b\xff\xc0\xaf\xed\xa0\x80\xe5\x9b",
		  "\\x9b\\xff\\xc0\\xaf\\xed\\xa0\\x80\\xe5\\x9b",
		  "\\x9b\\xff\\xc0\\xaf\\xed\\xa0\\x80\\xe5\\x9b",
		  "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd",
		  "\\\\x9b\\\\xff\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\\\\xe5\\\\x9b" },
		/* above U+10FFFF, then a continuation byte after a valid one */
		{ "\xf4\x90\x80\x80\xc3\xa9\xa9",
		  "\\xf4\\x90\\x80\\x80\xc3\xa9\\xa9",
		  "\\xf4\\x90\\x80\\x80\\xc3\\xa9\\xa9",
		  "\\ufffd\\ufffd\\ufffd\\ufffd\xc3\xa9\\ufffd",
		  "\\\\xf4\\\\x90\\\\x80\\\\x80\xc3\xa9\\\\xa9" },
		/* "café", CJK, U+00A0 (not C1) and an emoji: kept */
		{ "caf\xc3\xa9 \xe5\x9b\xbe\xe5\xbd\xa2\xc2\xa0\xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe5\x9b\xbe\xe5\xbd\xa2\xc2\xa0\xf0\x9f\x98\x80",
		  "caf\\xc3\\xa9 \\xe5\\x9b\\xbe\\xe5\\xbd\\xa2\\xc2\\xa0"
		  "\\xf0\\x9f\\x98\\x80",
		  "caf\xc3\xa9 \xe5\x9b\xbe\xe5\xbd\xa2\xc2\xa0\xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe5\x9b\xbe\xe5\xbd\xa2\xc2\xa0\xf0\x9f\x98\x80" },
	};
	char buf[16], *tmp;
	size_t i, n, cut;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ok(!strcmp(esc(STR_ESC_TEXT, cases[i].in), cases[i].text),
		   "escape %zu: text '%s'", i, esc(STR_ESC_ASCII, cases[i].in));
		ok(!strcmp(esc(STR_ESC_ASCII, cases[i].in), cases[i].ascii),
		   "escape %zu: text for other locales '%s'", i,
		   esc(STR_ESC_ASCII, cases[i].in));
		ok(!strcmp(esc(STR_ESC_JSON, cases[i].in), cases[i].json),
		   "escape %zu: JSON '%s'", i,
		   esc(STR_ESC_ASCII, esc(STR_ESC_JSON, cases[i].in)));
		ok(!strcmp(esc(STR_ESC_PROM, cases[i].in), cases[i].prom),
		   "escape %zu: Prometheus '%s'", i,
		   esc(STR_ESC_ASCII, esc(STR_ESC_PROM, cases[i].in)));
	}

	n = str_escape(buf, sizeof(buf), "\x01\x02\x03\x04", 4, STR_ESC_TEXT);
	ok(n == 16 && !strcmp(buf, "\\x01\\x02\\x03"),
	   "cut like snprintf, never inside an escape (%zu, '%s')", n, buf);
	n = str_escape(buf, 5, "ab\xe5\x9b\xbe", 5, STR_ESC_TEXT);
	cut = strlen(buf);
	ok(n == 5 && cut == 2, "never inside a UTF-8 character (%zu, %zu)", n,
	   cut);
	n = str_escape(buf, sizeof(buf), "a\0\x1b", 3, STR_ESC_JSON);
	ok(n == 13 && !strcmp(buf, "a\\u0000\\u001b"),
	   "a NUL inside the length is escaped too ('%s')",
	   esc(STR_ESC_ASCII, buf));

	n = 0;
	tmp = NULL;
	f = open_memstream(&tmp, &n);
	if (f) {
		str_escape_fputs("x\033\"", STR_ESC_PROM, f);
		str_escape_fputs(NULL, STR_ESC_PROM, f);
		fclose(f);
	}
	ok(tmp && !strcmp(tmp, "x\\\\x1b\\\""),
	   "str_escape_fputs() writes the same to a stream ('%s')",
	   tmp ? tmp : "?");
	free(tmp);
}

static struct fdinfo_engine mk(uint64_t ns, uint64_t cycles, uint64_t total,
			       uint64_t maxfreq, uint64_t cap)
{
	struct fdinfo_engine e = { 0 };

	e.has_ns = ns != UINT64_MAX;
	e.ns = ns;
	e.has_cycles = cycles != UINT64_MAX;
	e.cycles = cycles;
	e.has_total_cycles = total != UINT64_MAX;
	e.total_cycles = total;
	e.has_maxfreq = maxfreq != UINT64_MAX;
	e.maxfreq_hz = maxfreq;
	e.has_capacity = cap != UINT64_MAX;
	e.capacity = cap;
	return e;
}

#define NA UINT64_MAX
#define SEC 1000000000ull
#define EPS 0.000001

static int near(double a, double b)
{
	return a > b - EPS && a < b + EPS;
}

static void test_util(void)
{
	struct util_hist h = { 0 };
	struct util_result r;
	struct fdinfo_engine e;

	e = mk(NA, 100, 1000, NA, NA);
	util_update(&h, &e, 1 * SEC, &r);
	ok(r.status == UTIL_FIRST, "first sample has no value");
	e = mk(NA, 600, 2000, NA, NA);
	util_update(&h, &e, 2 * SEC, &r);
	ok(r.status == UTIL_OK && near(r.pct, 50) && r.delta == 500 &&
	   r.delta_total == 1000, "cycles/total-cycles: 500/1000 = 50%%");
	e = mk(NA, 500, 3000, NA, NA);
	util_update(&h, &e, 3 * SEC, &r);
	ok(r.status == UTIL_BACKWARDS, "backwards counter: no value");
	e = mk(NA, 1100, 4000, NA, NA);
	util_update(&h, &e, 4 * SEC, &r);
	ok(r.status == UTIL_OK && near(r.pct, 25) && r.delta == 500,
	   "after backwards: delta from the larger previous value (25%%)");
	e = mk(NA, 1100, 4000, NA, NA);
	util_update(&h, &e, 5 * SEC, &r);
	ok(r.status == UTIL_NO_DELTA, "total-cycles not advancing: no value, no crash");
	e = mk(NA, 1300, 4000, NA, NA);
	util_update(&h, &e, 6 * SEC, &r);
	ok(r.status == UTIL_NO_DELTA, "cycles advance, total-cycles not: no value");
	e = mk(NA, 1600, 5000, NA, NA);
	util_update(&h, &e, 7 * SEC, &r);
	ok(r.status == UTIL_OK && near(r.pct, 50),
	   "window after no-delta spans both (500/1000)");

	/* idle: 0 % from integers alone, and the window moves on */
	memset(&h, 0, sizeof(h));
	e = mk(NA, 100, 1000, NA, NA);
	util_update(&h, &e, 1, &r);
	e = mk(NA, 100, 2000, NA, NA);
	util_update(&h, &e, 2, &r);
	ok(r.status == UTIL_OK && r.pct == 0 && !signbit(r.pct) && !r.over &&
	   r.delta == 0 && r.delta_total == 1000,
	   "cycles/total-cycles: idle window is +0%%");
	e = mk(NA, 350, 2500, NA, NA);
	util_update(&h, &e, 3, &r);
	ok(r.status == UTIL_OK && near(r.pct, 50) && r.delta_total == 500,
	   "the window after an idle one starts at its end (250/500)");

	memset(&h, 0, sizeof(h));
	e = mk(NA, 0, 0, NA, 4);
	util_update(&h, &e, 0, &r);
	e = mk(NA, 2000, 1000, NA, 4);
	util_update(&h, &e, 1, &r);
	ok(r.status == UTIL_OK && near(r.pct, 50) && r.capacity == 4 && !r.over,
	   "capacity 4: 2000/1000 cycles = 50%%");

	memset(&h, 0, sizeof(h));
	e = mk(NA, 1000, NA, 1000000000ull, NA);
	util_update(&h, &e, 10 * SEC, &r);
	e = mk(NA, 1000 + 500000000ull, NA, 1000000000ull, NA);
	util_update(&h, &e, 11 * SEC, &r);
	ok(r.status == UTIL_OK && r.method == UTIL_METHOD_CYCLES_MAXFREQ &&
	   near(r.pct, 50), "maxfreq: 5e8 cycles at 1 GHz over 1 s = 50%%");

	memset(&h, 0, sizeof(h));
	e = mk(0, NA, NA, NA, NA);
	util_update(&h, &e, 20 * SEC, &r);
	e = mk(250000000ull, NA, NA, NA, NA);
	util_update(&h, &e, 21 * SEC, &r);
	ok(r.status == UTIL_OK && r.method == UTIL_METHOD_NS &&
	   near(r.pct, 25) && r.dt_ns == SEC, "ns: 0.25 s busy in 1 s = 25%%");
	e = mk(250000000ull, NA, NA, NA, NA);
	util_update(&h, &e, 21 * SEC, &r);
	ok(r.status == UTIL_NO_DELTA, "ns: dt = 0 gives no value");
	e = mk(1750000000ull, NA, NA, NA, NA);
	util_update(&h, &e, 22 * SEC, &r);
	ok(r.status == UTIL_OK && near(r.pct, 150) && r.over,
	   "150%% is reported and flagged, not clamped");
	e = mk(1750000000ull, NA, NA, NA, 2);
	util_update(&h, &e, 23 * SEC, &r);
	ok(r.status == UTIL_OK && near(r.pct, 0) && r.capacity == 2,
	   "ns with capacity 2, idle = 0%%");
	e = mk(100, NA, NA, NA, NA);
	util_update(&h, &e, 24 * SEC, &r);
	ok(r.status == UTIL_BACKWARDS, "ns backwards: no value");

	memset(&h, 0, sizeof(h));
	e = mk(NA, NA, NA, NA, 3);
	util_update(&h, &e, 1, &r);
	ok(r.status == UTIL_NO_DATA, "capacity only: no data");
	e = mk(5, NA, NA, NA, NA);
	util_update(&h, &e, 2, &r);
	e = mk(10, 10, NA, 100, NA);
	util_update(&h, &e, 3, &r);
	ok(r.status == UTIL_FIRST && r.method == UTIL_METHOD_CYCLES_MAXFREQ,
	   "method change restarts with a first sample");
}

/* ---- fake proc tree ---- */

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512], tmp[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	rename(tmp, path);
}

static void mkpid(int pid, const char *comm)
{
	char path[512], buf[64];

	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/fd", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/fdinfo", root, pid);
	mkdir(path, 0755);
	snprintf(buf, sizeof(buf), "%d/comm", pid);
	snprintf(path, sizeof(path), "%s\n", comm);
	put(buf, path);
}

static void mkfd(int pid, int fd, const char *target, const char *fdinfo)
{
	char path[512], rel[64];

	snprintf(path, sizeof(path), "%s/%d/fd/%d", root, pid, fd);
	unlink(path);
	if (symlink(target, path))
		perror(path);
	snprintf(rel, sizeof(rel), "%d/fdinfo/%d", pid, fd);
	put(rel, fdinfo);
}

static char *simgpu(char *buf, size_t size, int id, const char *pdev,
		    unsigned long long cycles, unsigned long long total)
{
	snprintf(buf, size,
		 "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t911\n"
		 "drm-driver:\tsimgpu\ndrm-client-id:\t%d\ndrm-pdev:\t%s\n"
		 "drm-engine-rcs:\t0 ns\ndrm-cycles-rcs:\t%llu\n"
		 "drm-total-cycles-rcs:\t%llu\ndrm-total-vram0:\t1 MiB\n",
		 id, pdev, cycles, total);
	return buf;
}

static struct drm_client *find(struct drm_scan *s, const char *pdev, int id)
{
	size_t i;

	for (i = 0; i < s->nclients; i++)
		if (s->clients[i]->info.client_id == (uint64_t)id &&
		    !strcmp(s->clients[i]->devname, pdev))
			return s->clients[i];
	return NULL;
}

static void rmrf(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", path);
}

/* fdinfo files kept open, counted from the clients */
static unsigned int held_fds(const struct drm_scan *s)
{
	unsigned int n = 0;
	size_t i, j;

	for (i = 0; i < s->nclients; i++)
		for (j = 0; j < s->clients[i]->nfds; j++)
			n += s->clients[i]->fds[j].info_fd >= 0;
	return n;
}

static void test_discovery(void)
{
	const char *A = "0000:00:04.0", *B = "0000:00:05.0";
	struct drm_client *c, *gone[3], *top;
	struct drm_scan *s;
	size_t spare;
	char b[1024], path[512];
	const struct client_engine *ce;
	uint64_t n;
	int i;

	snprintf(root, sizeof(root), "/tmp/drmtop-proc-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	mkpid(100, "app");
	mkfd(100, 0, "/dev/null", "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t5\n");
	mkfd(100, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 100, 1000));
	mkfd(100, 4, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 100, 1000));
	mkpid(101, "child");
	mkfd(101, 5, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 100, 1000));
	mkfd(101, 6, "/dev/dri/card1", simgpu(b, sizeof(b), 8, A, 0, 1000));
	/* same id on another device is another client */
	mkfd(101, 7, "/dev/dri/renderD129", simgpu(b, sizeof(b), 7, B, 0, 1000));
	mkpid(102, "nodrv");	/* DRM node but fdinfo without drm-driver */
	mkfd(102, 3, "/dev/dri/renderD128", "pos:\t0\nflags:\t02\n");
	mkpid(103, "secret");	/* fd not a readable directory */
	snprintf(path, sizeof(path), "%s/103/fd", root);
	rmdir(path);
	put("103/fd", "");
	chmod(path, 0);
	mkpid(104, "other");
	mkfd(104, 3, "/nonexistent/file", simgpu(b, sizeof(b), 9, A, 0, 1000));
	snprintf(path, sizeof(path), "%s/self", root);
	mkdir(path, 0755);

	s = drm_scan_new(root);
	ok(!!s, "scan on fake proc root %s", root);
	if (!s)
		return;
	ok(!drm_scan_refresh(s, DRM_SCAN_AUTO) && s->last_was_full,
	   "first refresh is a full discovery");
	ok(s->nclients == 3, "3 clients (dup + fork shared deduplicated): %zu",
	   s->nclients);
	c = find(s, A, 7);
	ok(c && find(s, A, 8) && c->devname == find(s, A, 8)->devname &&
	   c->neng && find(s, A, 8)->neng &&
	   c->eng[0].name == find(s, A, 8)->eng[0].name &&
	   find(s, B, 7) && find(s, B, 7)->devname != c->devname &&
	   !strcmp(find(s, B, 7)->devname, B),
	   "clients of a device share its name and their engines' names");
	ok(c && c->nfds == 3 && c->fds[0].pid == 100 && c->fds[2].pid == 101 &&
	   !strcmp(c->fds[0].comm, "app") && !strcmp(c->fds[2].comm, "child"),
	   "client 7 on %s held by pids 100 (fds 3, 4) and 101 (fd 5)", A);
	ok(c && c->rdev == makedev(226, 128), "dev_t from /dev/dri/renderD128");
	ok(find(s, B, 7) && find(s, A, 8) && !find(s, A, 9),
	   "same client id on another pdev is separate; non-DRM link ignored");
	ok(s->nunreadable == 1 && s->unreadable[0] == 103,
	   "unreadable pid counted (%zu)", s->nunreadable);
	ce = c ? client_engine(c, "rcs") : NULL;
	ok(ce && ce->res.status == UTIL_FIRST, "first sample: no utilisation");
	ok(s->nheld == 3 && s->nheld == held_fds(s),
	   "one fdinfo file of each of the 3 clients kept open (%u)", s->nheld);

	/* counters advance; a new pid appears */
	mkfd(100, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 600, 2000));
	mkfd(100, 4, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 600, 2000));
	mkfd(101, 5, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 600, 2000));
	mkpid(105, "late");
	mkfd(105, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 11, A, 0, 0));
	/* no share of the sweep over all pids this time */
	s->full_every = 0;
	s->full_ns = 0;
	ok(!drm_scan_refresh(s, DRM_SCAN_AUTO) && !s->last_was_full,
	   "second refresh is cheap");
	s->full_every = 5;
	s->full_ns = 5000000000ull;
	ok(s->nclients == 4 && find(s, A, 11), "new pid found without full discovery");
	c = find(s, A, 7);
	ce = c ? client_engine(c, "rcs") : NULL;
	ok(ce && ce->res.status == UTIL_OK && near(ce->res.pct, 50),
	   "client 7 rcs: 500/1000 cycles = 50%%");
	ok(s->files_read == 3 + 1, "cheap refresh read one fdinfo per client (%u)",
	   s->files_read);
	ok(s->files_opened == 2,
	   "only the replaced file and the new pid's were opened by path (%u)",
	   s->files_opened);

	/* nothing changed: the sample stays, only its time moves */
	c = find(s, A, 7);
	n = c ? c->nsamples : 0;
	s->full_every = 0;
	s->full_ns = 0;
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	ce = c ? client_engine(c, "rcs") : NULL;
	ok(c && c->nsamples == n + 1 && c->raw && s->files_read == 4 &&
	   ce && ce->res.status == UTIL_NO_DELTA,
	   "an unchanged fdinfo text keeps the sample (no cycles passed)");
	/* then the counters move again: parsed again */
	mkfd(100, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 850, 3000));
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	ce = c ? client_engine(c, "rcs") : NULL;
	ok(ce && ce->res.status == UTIL_OK && near(ce->res.pct, 25),
	   "a changed text is parsed: 250/1000 cycles = 25%%");
	/*
	 * A full discovery finds the same client behind the same fd: its
	 * sample is updated in place, keeping what the update learnt.
	 */
	mkfd(100, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 1350, 4000));
	drm_scan_refresh(s, DRM_SCAN_FULL);
	c = find(s, A, 7);
	ce = c ? client_engine(c, "rcs") : NULL;
	ok(c && c->info.n_memo && c->nfds == 3 && ce &&
	   ce->res.status == UTIL_OK && near(ce->res.pct, 50),
	   "full discovery: changed counters updated in place (memo of %zu lines), 500/1000 = 50%%",
	   c ? c->info.n_memo : 0);
	/* ... but not a file that is now another client's */
	mkfd(105, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 14, A, 0, 0));
	drm_scan_refresh(s, DRM_SCAN_FULL);
	ok(find(s, A, 14) && !find(s, A, 11) && find(s, A, 7),
	   "full discovery: an fd reused for another client is that client");
	mkfd(105, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 11, A, 0, 0));
	drm_scan_refresh(s, DRM_SCAN_FULL);
	ok(find(s, A, 11) && !find(s, A, 14), "full discovery: and back");
	s->full_every = 5;
	s->full_ns = 5000000000ull;

	/*
	 * A process that holds client 7 too, but not its file read, exits.
	 * No share of the sweep: the listing of pids alone tells.
	 */
	mkpid(106, "third");
	mkfd(106, 8, "/dev/dri/renderD128", simgpu(b, sizeof(b), 7, A, 850, 3000));
	s->full_every = 0;
	s->full_ns = 0;
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	c = find(s, A, 7);
	ok(c && c->nfds == 4 && c->fds[3].pid == 106,
	   "a new process holding client 7 found (%zu fds)", c ? c->nfds : 0);
	snprintf(path, sizeof(path), "%s/106", root);
	rmrf(path);
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	c = find(s, A, 7);
	ok(c && c->nfds == 3 && c->fds[2].pid == 101,
	   "its fd forgotten when it exits (%zu fds)", c ? c->nfds : 0);
	s->full_every = 5;
	s->full_ns = 5000000000ull;

	/* process 100 exits: client 7 lives on in 101 */
	snprintf(path, sizeof(path), "%s/100", root);
	rmrf(path);
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	c = find(s, A, 7);
	ok(c && c->nfds == 1 && c->fds[0].pid == 101,
	   "pid 100 gone: client 7 kept with pid 101 only");
	/* process 101 exits: clients 7 and 8, and 7 of B, gone */
	gone[0] = find(s, A, 7);
	gone[1] = find(s, A, 8);
	gone[2] = find(s, B, 7);
	spare = s->nspare;
	snprintf(path, sizeof(path), "%s/101", root);
	rmrf(path);
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	ok(s->nclients == 1 && !find(s, A, 7) && find(s, A, 11),
	   "pid 101 gone: its clients removed (%zu left)", s->nclients);
	top = s->nspare ? s->spare[s->nspare - 1] : NULL;
	ok(gone[0] && gone[1] && gone[2] && s->nspare == spare + 3 &&
	   (top == gone[0] || top == gone[1] || top == gone[2]),
	   "their 3 slots are spare (%zu spare)", s->nspare);
	ok(s->nheld == 1 && held_fds(s) == 1,
	   "files of fds of exited pids closed (%u kept open)", s->nheld);
	/* pids 102-105 left, a share of ceil(4 / 5) = 1 pid per refresh */
	for (i = 0; i < 5; i++) {
		drm_scan_refresh(s, DRM_SCAN_AUTO);
		if (s->last_was_full)
			break;
	}
	ok(s->last_was_full && i < 5 && s->nunreadable == 1,
	   "the sweep over all pids ends within 5 refreshes (%d), the unreadable pid counted again",
	   i + 1);
	ok(s->nheld == 0 && held_fds(s) == 0 && find(s, A, 11),
	   "the sweep closes the files it kept to open them again (%u kept open)",
	   s->nheld);
	s->full_every = 0;
	s->full_ns = 0;
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	ok(s->nheld == 1 && held_fds(s) == 1 && s->files_opened == 1,
	   "the next refresh opens it by path and keeps it (%u kept open)",
	   s->nheld);

	/* fd reused for another client between refreshes */
	mkfd(105, 3, "/dev/dri/renderD128", simgpu(b, sizeof(b), 12, A, 0, 0));
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	ok(s->nclients == 1 && find(s, A, 12) && !find(s, A, 11),
	   "fd reused for another client is noticed on a cheap refresh");
	ok(find(s, A, 12) == top && s->nspare == spare + 3,
	   "the new client takes a spare slot, the old one's is spare (%zu)",
	   s->nspare);
	ok(s->nheld == 1 && held_fds(s) == 1,
	   "the reused fd's file kept open once (%u)", s->nheld);

	/* out of descriptors to keep: every read opens the file by path */
	s->max_held = 0;
	drm_scan_refresh(s, DRM_SCAN_FULL);
	drm_scan_refresh(s, DRM_SCAN_CHEAP);
	ok(s->nheld == 0 && held_fds(s) == 0 && s->files_opened == 1 &&
	   find(s, A, 12), "with no files kept open a refresh opens by path");

	/* the sweep finds a second fd of a known client, then its closing */
	mkfd(105, 5, "/dev/dri/renderD128", simgpu(b, sizeof(b), 12, A, 0, 0));
	s->full_every = 5;
	s->full_ns = 5000000000ull;
	for (i = 0; i < 5; i++) {
		drm_scan_refresh(s, DRM_SCAN_AUTO);
		c = find(s, A, 12);
		if (c && c->nfds == 2)
			break;
	}
	ok(i < 5 && c && c->nfds == 2 && c->fds[1].fd == 5,
	   "the sweep finds a new fd of a known process (%d refreshes)", i + 1);
	snprintf(path, sizeof(path), "%s/105/fd/5", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/105/fdinfo/5", root);
	unlink(path);
	for (i = 0; i < 5; i++) {
		drm_scan_refresh(s, DRM_SCAN_AUTO);
		c = find(s, A, 12);
		if (c && c->nfds == 1)
			break;
	}
	ok(i < 5 && c && c->nfds == 1 && c->fds[0].fd == 3,
	   "the sweep forgets a closed fd (%d refreshes)", i + 1);

	/* a client's only fd closes between two cheap refreshes */
	snprintf(path, sizeof(path), "%s/105/fd/3", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/105/fdinfo/3", root);
	unlink(path);
	drm_scan_refresh(s, DRM_SCAN_CHEAP);
	ok(!find(s, A, 12),
	   "a client whose last fd closed is gone after a cheap refresh");
	drm_scan_free(s);
	rmrf(root);

	s = drm_scan_new("/nonexistent-proc-root");
	ok(!s && errno == ENOENT, "missing proc root reported");
}

/* A client whose fdinfo lists its engines in another order keeps them. */
static void test_engine_order(void)
{
	static const char *const fmt =
		"drm-driver:\tsimgpu\ndrm-client-id:\t1\ndrm-pdev:\tp\n"
		"drm-cycles-%s:\t%u\ndrm-total-cycles-%s:\t%u\n"
		"drm-cycles-%s:\t%u\ndrm-total-cycles-%s:\t%u\n";
	const struct client_engine *rcs, *vcs;
	struct drm_scan *s;
	struct drm_client *c;
	char b[512];

	snprintf(root, sizeof(root), "/tmp/drmtop-proc-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	mkpid(100, "app");
	snprintf(b, sizeof(b), fmt, "rcs", 0, "rcs", 1000, "vcs", 0, "vcs",
		 1000);
	mkfd(100, 3, "/dev/dri/renderD128", b);
	s = drm_scan_new(root);
	if (!s) {
		ok(0, "engine order: scan on %s", root);
		rmrf(root);
		return;
	}
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	snprintf(b, sizeof(b), fmt, "vcs", 250, "vcs", 2000, "rcs", 750, "rcs",
		 2000);
	mkfd(100, 3, "/dev/dri/renderD128", b);
	drm_scan_refresh(s, DRM_SCAN_AUTO);
	c = find(s, "p", 1);
	rcs = c ? client_engine(c, "rcs") : NULL;
	vcs = c ? client_engine(c, "vcs") : NULL;
	ok(c && c->neng == 2, "engine order: still two engines (%zu)",
	   c ? c->neng : 0);
	ok(rcs && vcs && rcs->res.status == UTIL_OK &&
	   vcs->res.status == UTIL_OK && near(rcs->res.pct, 75) &&
	   near(vcs->res.pct, 25),
	   "engine order: rcs 75%%, vcs 25%% across the reorder (%.1f, %.1f)",
	   rcs ? rcs->res.pct : -1, vcs ? vcs->res.pct : -1);
	drm_scan_free(s);
	rmrf(root);
}

/* What drmtop relies on when it keeps a procfs fdinfo file open. */
static void test_proc_fdinfo_kept_open(void)
{
	char path[64], *buf = NULL, *ino1 = NULL, *ino2 = NULL;
	int p[2], f = -1, null = -1;
	size_t cap = 0;
	ssize_t n;

	if (pipe(p)) {
		ok(0, "pipe: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", p[0]);
	f = open(path, O_RDONLY | O_CLOEXEC);
	n = f < 0 ? -errno : fdinfo_read_fd(f, &buf, &cap, FDINFO_READ_REWIND, NULL);
	if (n > 0 && strstr(buf, "ino:"))
		ino1 = strndup(strstr(buf, "ino:"), strcspn(strstr(buf, "ino:"), "\n"));
	null = open("/dev/null", O_WRONLY);
	dup2(null, p[0]);
	n = f < 0 ? -errno : fdinfo_read_fd(f, &buf, &cap, FDINFO_READ_REWIND, NULL);
	if (n > 0 && strstr(buf, "ino:"))
		ino2 = strndup(strstr(buf, "ino:"), strcspn(strstr(buf, "ino:"), "\n"));
	ok(ino1 && ino2 && strcmp(ino1, ino2) && strstr(buf, "flags:\t0100001"),
	   "an fdinfo file kept open shows the fd's current file (%s, then %s)",
	   ino1 ? ino1 : "?", ino2 ? ino2 : "?");
	close(p[0]);
	n = f < 0 ? -EBADF : fdinfo_read_fd(f, &buf, &cap, FDINFO_READ_REWIND, NULL);
	ok(n == -ENOENT, "and fails with ENOENT once the fd is closed (%zd)", n);
	if (f >= 0)
		close(f);
	if (null >= 0)
		close(null);
	close(p[1]);
	free(ino1);
	free(ino2);
	free(buf);
}

/* ---- engine busyness from PMUs, over a fake sysfs tree ---- */

static void test_pmu_format(void)
{
	static const char *const bad[] = {
		"", "config:", "config:12-", "config:27-20", "config:64",
		"conf:1", "config:0-11 junk", "config:1,,2", "config3:1",
		"config:-1", "config:0x1", "config:123",
	};
	uint64_t cfg[3] = { 0 };
	struct pmu_field f;
	size_t i;
	int ret;

	ok(!pmu_parse_format("config:0-11\n", 12, &f) && f.word == 0 &&
	   f.mask == 0xfff, "format config:0-11");
	ok(!pmu_parse_format("config:60-63", 12, &f) && f.word == 0 &&
	   f.mask == 0xfull << 60 && pmu_field_bits(&f) == 4,
	   "format config:60-63 is 4 bits");
	ok(!pmu_parse_format("config1:3", 9, &f) && f.word == 1 &&
	   f.mask == 8, "format config1:3");
	ok(!pmu_parse_format("config2:0-63", 12, &f) && f.word == 2 &&
	   f.mask == ~0ull, "format config2:0-63");
	ok(!pmu_parse_format("config:8-9,16-17", 16, &f) && f.mask == 0x30300,
	   "format config:8-9,16-17 (two ranges)");
	ret = pmu_field_put(&f, 5, cfg);
	ok(!ret && cfg[0] == 0x10100,
	   "value 5 (0b101) goes to bits 8 and 16 (%#llx)",
	   (unsigned long long)cfg[0]);
	ok(pmu_field_put(&f, 16, cfg) == -ERANGE && cfg[0] == 0x10100,
	   "a value wider than the field is -ERANGE, config unchanged");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = pmu_parse_format(bad[i], strlen(bad[i]), &f);
		ok(ret == -EINVAL, "malformed format '%s' is -EINVAL (%d)",
		   bad[i], ret);
	}
}

/*
 * The fake perf_event_open(): type 42 has simgpu's layout, type 43 a
 * layout of its own (see mksys()); it checks what every open asks for
 * and serves counters that the test sets.
 */
#define FAKE_FDS 64
static struct {
	int err;			/* every open fails with it */
	unsigned int opens, wrong;	/* calls, calls with a wrong attr */
	uint64_t act_cfg[3], tot_cfg[3];	/* of the xe vcs5 group */
	int fd[FAKE_FDS], total_of[FAKE_FDS];
	unsigned int key[FAKE_FDS];	/* type << 16 | gt << 12 | class << 8 | instance */
	uint64_t active[FAKE_FDS], total[FAKE_FDS];
	unsigned int n;
} fake;

static int fake_slot(int fd)
{
	unsigned int i;

	for (i = 0; i < fake.n; i++)
		if (fake.fd[i] == fd)
			return i;
	return -1;
}

static int fake_open(struct perf_event_attr *a, int cpu, int group_fd)
{
	static const unsigned int sim_inst[] = { 1, 1, 2, 1, 4 };
	unsigned int ev, cls, inst, gt = 0, i;
	bool present;
	int fd;

	fake.opens++;
	if (fake.err)
		return fake.err;
	if (a->size != sizeof(*a) || a->read_format != PERF_FORMAT_GROUP)
		fake.wrong++;
	if (a->type == 42) {		/* simgpu: cpumask 1-3 */
		ev = a->config & 0xfff;
		inst = (a->config >> 12) & 0xff;
		cls = (a->config >> 20) & 0xff;
		gt = a->config >> 60;
		present = !gt && cls < 5 && inst < sim_inst[cls];
		if (cpu != 1 || a->config1 || a->config2 ||
		    (a->config & 0x0ffffffff0000000ull))
			fake.wrong++;
	} else if (a->type == 43) {	/* xe-like: cpumask 0 */
		ev = a->config & 0xff;
		cls = a->config1 & 0xff;
		inst = ((a->config >> 8) & 3) | ((a->config >> 14) & 0xc);
		present = (cls <= 1 && inst == 0) ||
			  (cls == 2 && (inst == 0 || inst == 5));
		if (cls == 2 && inst == 5) {
			uint64_t *c = ev == 2 ? fake.act_cfg : fake.tot_cfg;

			c[0] = a->config;
			c[1] = a->config1;
			c[2] = a->config2;
		}
		if (cpu != 0 || a->config2 != (ev == 3 ? 0x20u : 0))
			fake.wrong++;
	} else {
		return -ENOENT;
	}
	/* active ticks lead, total ticks follow in the leader's group */
	if (ev == 2 ? group_fd != -1 : ev != 3 || fake_slot(group_fd) < 0)
		fake.wrong++;
	if (!present)
		return -ENOENT;
	if (fake.n == FAKE_FDS)
		return -EMFILE;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	i = fake.n++;
	fake.fd[i] = fd;
	fake.key[i] = a->type << 16 | gt << 12 | cls << 8 | inst;
	fake.total_of[i] = ev == 3 ? fake_slot(group_fd) : -1;
	fake.active[i] = 0;
	fake.total[i] = 0;
	return fd;
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	int i = fake_slot(fd);
	uint64_t v[3];

	if (i < 0 || fake.total_of[i] >= 0 || len < sizeof(v))
		return -EINVAL;
	v[0] = 2;
	v[1] = fake.active[i];
	v[2] = fake.total[i];
	memcpy(buf, v, sizeof(v));
	return sizeof(v);
}

static const struct pmu_ops fake_ops = { fake_open, fake_read };

/* the slot of the leader of an engine, for setting its counters */
static int fake_engine(unsigned int type, unsigned int cls, unsigned int inst)
{
	unsigned int i, key = type << 16 | cls << 8 | inst;

	for (i = 0; i < fake.n; i++)
		if (fake.key[i] == key && fake.total_of[i] < 0)
			return i;
	return 0;
}

static void mkdirs(const char *rel)
{
	char path[600], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void link_at(const char *target, const char *rel)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (symlink(target, path))
		perror(path);
}

/* a DRM device at devices/DEV with driver DRV, nodes card<n>, renderD<128+n> */
static void mkdrm(const char *dev, const char *drv, const char *bus, int n)
{
	char rel[256], target[600];

	snprintf(rel, sizeof(rel), "bus/%s/drivers/%s", bus, drv);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "devices/%s/drm/card%d", dev, n);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "devices/%s/drm/renderD%d", dev, 128 + n);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "devices/%s/driver", dev);
	snprintf(target, sizeof(target), "%s/bus/%s/drivers/%s", root, bus, drv);
	link_at(target, rel);
	snprintf(rel, sizeof(rel), "class/drm/card%d", n);
	snprintf(target, sizeof(target), "../../devices/%s/drm/card%d", dev, n);
	link_at(target, rel);
	snprintf(rel, sizeof(rel), "class/drm/renderD%d", 128 + n);
	snprintf(target, sizeof(target), "../../devices/%s/drm/renderD%d", dev,
		 128 + n);
	link_at(target, rel);
	snprintf(rel, sizeof(rel), "devices/%s/drm/card%d/device", dev, n);
	link_at("../..", rel);
	snprintf(rel, sizeof(rel), "devices/%s/drm/renderD%d/device", dev, 128 + n);
	link_at("../..", rel);
}

/*
 * A PMU at devices/PATH, linked as bus/event_source/devices/<basename>;
 * files is "name=content;..." relative to it.
 */
static void mkpmu(const char *path, const char *files)
{
	char rel[512], target[512], buf[512], *f, *eq, *save = NULL;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	snprintf(rel, sizeof(rel), "devices/%s/format", path);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "devices/%s/events", path);
	mkdirs(rel);
	mkdirs("bus/event_source/devices");
	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s", name);
	snprintf(target, sizeof(target), "../../../devices/%s", path);
	link_at(target, rel);
	snprintf(buf, sizeof(buf), "%s", files);
	for (f = strtok_r(buf, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
		eq = strchr(f, '=');
		*eq = '\0';
		snprintf(rel, sizeof(rel), "devices/%s/%s", path, f);
		snprintf(target, sizeof(target), "%s\n", eq + 1);
		put(rel, target);
	}
}

#define SIM_FORMAT "format/event=config:0-11;format/engine_instance=config:12-19;" \
	"format/engine_class=config:20-27;format/gt=config:60-63;"
#define SIM_EVENTS "events/engine-active-ticks=event=0x02;" \
	"events/engine-total-ticks=event=0x03;"

static void mksys(void)
{
	char path[600];

	mkdirs("class/drm");
	mkdrm("platform/simgpu.0", "simgpu", "platform", 0);
	mkpmu("platform/simgpu.0/simgpu_0",
	      "type=42;cpumask=1-3;" SIM_FORMAT SIM_EVENTS);
	/* xe: a PMU of its own, matched by name; another bit layout */
	mkdrm("pci0000:00/0000:03:00.0", "xe", "pci", 1);
	mkpmu("xe_0000_03_00.0",
	      "type=43;cpumask=0;format/event=config:0-7;"
	      "format/engine_class=config1:0-7;"
	      "format/engine_instance=config:8-9,16-17;format/flag=config2:5;"
	      "events/engine-active-ticks=event=0x02;"
	      "events/engine-total-ticks=event=0x03,flag");
	/* a PMU without engine-total-ticks is none */
	mkdrm("platform/simgpu.1", "simgpu", "platform", 2);
	mkpmu("platform/simgpu.1/simgpu_1", "type=42;cpumask=1;" SIM_FORMAT
	      "events/engine-active-ticks=event=0x02");
	/* malformed files */
	mkdrm("platform/simgpu.2", "simgpu", "platform", 3);
	mkpmu("platform/simgpu.2/simgpu_2", "type=42;cpumask=1;" SIM_FORMAT
	      SIM_EVENTS "format/engine_class=config:27-20");
	mkdrm("platform/simgpu.3", "simgpu", "platform", 4);
	mkpmu("platform/simgpu.3/simgpu_3", "type=42;cpumask=1;" SIM_FORMAT
	      "events/engine-active-ticks=event=\033[2J;"
	      "events/engine-total-ticks=event=0x03");
	mkdrm("platform/simgpu.4", "simgpu", "platform", 5);
	mkpmu("platform/simgpu.4/simgpu_4", "cpumask=1;" SIM_FORMAT SIM_EVENTS);
	snprintf(path, sizeof(path), "%s/devices/platform/simgpu.4/simgpu_4/type",
		 root);
	if (symlink("/dev/zero", path))
		perror(path);
	mkdrm("platform/simgpu.5", "simgpu", "platform", 6);
	mkpmu("platform/simgpu.5/simgpu_5", "type=42;" SIM_FORMAT SIM_EVENTS);
	snprintf(path, sizeof(path), "%s/devices/platform/simgpu.5/simgpu_5/cpumask",
		 root);
	mkfifo(path, 0600);
	/* PMUs of other kinds */
	mkpmu("cpu", "type=4;format/event=config:0-7");
	mkpmu("platform/simgpu.0/i915", "type=44;format/event=config:0-7;"
	      "events/rcs0-busy=event=0x02");
	/* proc, for perf_event_paranoid */
	mkdirs("proc/sys/kernel");
	put("proc/sys/kernel/perf_event_paranoid", "2\n");
}

static const struct pmu_engine *pmu_eng(const struct pmu_dev *d,
					unsigned int cls, unsigned int inst)
{
	size_t i;

	for (i = 0; d && i < d->neng; i++)
		if (d->eng[i].cls == cls && d->eng[i].inst == inst)
			return &d->eng[i];
	return NULL;
}

/* the status of device dev in ps is st, with the message msg */
static void ok_msg(struct pmu_set *ps, const char *dev, enum pmu_status st,
		   const char *what, const char *msg)
{
	const struct pmu_dev *d = pmu_find_dev(ps, dev);

	ok(d && d->status == st && d->msg && !strcmp(d->msg, msg), "%s: %s",
	   what, d && d->msg ? d->msg : "?");
}

/* what output.c prints of s, in a string to free */
static char *output(const struct drm_scan *s, int mode)
{
	struct view_opts vo = { NULL, NULL, false, true, NULL };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (mode == 0)
		print_batch(f, s, &vo, 2);
	else if (mode == 1)
		print_json(f, s, &vo, 2);
	else
		print_prometheus(f, s, &vo);
	fclose(f);
	return text;
}

static void test_pmu_output(struct pmu_set *ps, const char *proc)
{
	struct drm_scan *s = drm_scan_new(proc);
	bool m1, m2, m3, m4;
	char *text;

	if (!s) {
		ok(0, "scan of %s", proc);
		return;
	}
	s->pmu = ps;
	drm_scan_refresh(s, DRM_SCAN_FULL);
	text = output(s, 0);
	m1 = strstr(text,
		    "\nsimgpu.0 simgpu pmu=simgpu_0 rcs0=50.0% bcs0=- vcs0=- vcs1=- vecs0=- ccs0=- ccs1=- ccs2=- ccs3=0.0%\n");
	ok(m1 && !strstr(text, "simgpu_2"),
	   "batch: a line per device whose PMU is read, '-' if no tick passed");
	free(text);

	text = output(s, 1);
	m1 = strstr(text, "{\"refresh\":2,\"record\":\"device\",");
	m2 = strstr(text,
		    "\"device\":\"simgpu.0\",\"driver\":\"simgpu\",\"pmu\":\"simgpu_0\",\"status\":\"ok\",\"message\":null,\"engines\":[{\"name\":\"rcs0\",\"class\":\"rcs\",\"class_id\":0,\"instance\":0,\"gt\":0,\"active_ticks\":2000,\"total_ticks\":4000,\"delta_active\":500,\"delta_total\":1000,\"busy\":50.0000}");
	ok(m1 && m2, "json: device record with its engines");
	m1 = strstr(text,
		    "\"status\":\"bad-sysfs\",\"message\":\"PMU simgpu_3: malformed events/engine-active-ticks: 'event=\\u001b[2J', ");
	ok(m1 && !strstr(text, "simgpu.1"),
	   "json: status and escaped message; no record without a PMU");
	free(text);

	text = output(s, 2);
	m1 = strstr(text,
		    "\ndrmtop_engine_utilization_ratio{device=\"simgpu.0\",driver=\"simgpu\",pmu=\"simgpu_0\",class=\"rcs\",instance=\"0\",gt=\"0\"} 0.500000\n");
	m2 = strstr(text,
		    "\ndrmtop_engine_active_ticks_total{device=\"0000:03:00.0\",driver=\"xe\",pmu=\"xe_0000_03_00.0\",class=\"vcs\",instance=\"5\",gt=\"0\"} 0\n");
	m3 = strstr(text,
		    "\ndrmtop_engine_total_ticks_total{device=\"simgpu.0\",driver=\"simgpu\",pmu=\"simgpu_0\",class=\"ccs\",instance=\"3\",gt=\"0\"} 3000\n");
	m4 = strstr(text,
		    "\ndrmtop_engine_pmu_up{device=\"simgpu.2\",driver=\"simgpu\",pmu=\"simgpu_2\"} 0\n");
	ok(m1 && m2 && m3 && m4 &&
	   strstr(text, "# TYPE drmtop_engine_active_ticks_total counter\n"),
	   "prometheus: ticks, ratio and pmu_up metrics");
	free(text);
	s->pmu = NULL;
	drm_scan_free(s);
}

static void test_pmu(void)
{
	char sys[300], proc[300];
	const struct pmu_engine *e;
	struct pmu_set *ps;
	struct pmu_dev *d;
	int a, b;

	snprintf(root, sizeof(root), "/tmp/drmtop-sys-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	mksys();
	snprintf(sys, sizeof(sys), "%s", root);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	ps = pmu_set_new(sys, proc, &fake_ops);
	ok(!!ps, "PMU set on fake sysfs %s", sys);
	if (!ps)
		return;
	pmu_refresh(ps, false);
	ok(ps->ndevs == 7, "7 DRM devices, card and render nodes once (%zu)",
	   ps->ndevs);
	d = pmu_find_dev(ps, "simgpu.0");
	ok(d && d->status == PMU_OK && d->pmu && !strcmp(d->pmu, "simgpu_0") &&
	   d->driver && !strcmp(d->driver, "simgpu"),
	   "simgpu.0: PMU simgpu_0 found under the device");
	ok(d && d->neng == 9 && pmu_eng(d, 2, 1) && pmu_eng(d, 4, 3) &&
	   !pmu_eng(d, 2, 2) && !pmu_eng(d, 5, 0),
	   "simgpu.0: 9 engines, those that did not answer ENOENT (%zu)",
	   d ? d->neng : 0);
	ok(fake.wrong == 0,
	   "each open: type, cpu and config of the PMU, active ticks leading");
	ok(fake.opens == 4 * 8 * 16 + 9 + 8 * 16 + 4,
	   "simgpu: gt 0-3, classes 0-7, instances 0-15; xe: no gt (%u opens)",
	   fake.opens);
	d = pmu_find_dev(ps, "0000:03:00.0");
	ok(d && d->status == PMU_OK && !strcmp(d->pmu, "xe_0000_03_00.0") &&
	   d->neng == 4 && pmu_eng(d, 2, 5) && !pmu_eng(d, 2, 1),
	   "xe: PMU xe_0000_03_00.0 matched by name, 4 engines, vcs5 sparse");
	ok(fake.act_cfg[0] == 0x10102 && fake.act_cfg[1] == 2 &&
	   fake.act_cfg[2] == 0 && fake.tot_cfg[0] == 0x10103 &&
	   fake.tot_cfg[2] == 0x20,
	   "xe vcs5: config %#llx config1 %#llx, total config2 %#llx (flag term)",
	   (unsigned long long)fake.act_cfg[0],
	   (unsigned long long)fake.act_cfg[1],
	   (unsigned long long)fake.tot_cfg[2]);
	ok_msg(ps, "simgpu.1", PMU_NONE, "a PMU without engine-total-ticks is none",
	       "no PMU with engine-active-ticks for simgpu.1");
	ok_msg(ps, "simgpu.2", PMU_BAD_SYSFS, "malformed format file",
	       "PMU simgpu_2: malformed format/engine_class: 'config:27-20', engine header from PMU off");
	ok_msg(ps, "simgpu.3", PMU_BAD_SYSFS, "malformed event file",
	       "PMU simgpu_3: malformed events/engine-active-ticks: 'event=\033[2J', engine header from PMU off");
	ok_msg(ps, "simgpu.4", PMU_BAD_SYSFS, "type from /dev/zero",
	       "PMU simgpu_4: malformed type: '', engine header from PMU off");
	ok_msg(ps, "simgpu.5", PMU_BAD_SYSFS, "cpumask a FIFO, no wait",
	       "PMU simgpu_5: malformed cpumask: '', engine header from PMU off");

	/* counters: the first sample has no value */
	e = pmu_eng(pmu_find_dev(ps, "simgpu.0"), 0, 0);
	ok(e && !e->ok && e->nsamples == 1, "first sample: no busyness");
	a = fake_engine(42, 0, 0);
	fake.active[a] = 1500;
	fake.total[a] = 3000;
	b = fake_engine(42, 4, 3);
	fake.active[b] = 2000;
	fake.total[b] = 2000;
	pmu_refresh(ps, false);
	fake.active[a] += 500;
	fake.total[a] += 1000;
	fake.total[b] += 1000;
	pmu_refresh(ps, true);
	e = pmu_eng(pmu_find_dev(ps, "simgpu.0"), 0, 0);
	ok(e && e->ok && e->d_active == 500 && e->d_total == 1000 &&
	   near(e->pct, 50), "rcs0: 500 of 1000 ticks = 50%%");
	e = pmu_eng(pmu_find_dev(ps, "simgpu.0"), 4, 3);
	ok(e && e->ok && e->pct == 0 && e->active == 2000,
	   "ccs3: idle, 0%%; rediscovery keeps open PMUs open");
	test_pmu_output(ps, proc);
	pmu_set_free(ps);

	/* errors of perf_event_open() */
	fake.err = -EACCES;
	ps = pmu_set_new(sys, proc, &fake_ops);
	pmu_refresh(ps, false);
	ok_msg(ps, "simgpu.0", PMU_NO_PERMISSION, "EACCES",
	       "PMU simgpu_0: no permission (perf_event_paranoid=2), engine header from PMU off");
	fake.err = -EPERM;
	pmu_refresh(ps, true);
	d = pmu_find_dev(ps, "simgpu.0");
	ok(d && d->status == PMU_NO_PERMISSION && !d->reported,
	   "EPERM: no permission, the same message");
	fake.err = -ENODEV;
	pmu_refresh(ps, true);
	ok_msg(ps, "simgpu.0", PMU_UNBOUND, "ENODEV",
	       "PMU simgpu_0: device unbound (ENODEV), engine header from PMU off");
	fake.err = -EINVAL;
	pmu_refresh(ps, true);
	ok_msg(ps, "simgpu.0", PMU_ERROR, "EINVAL",
	       "PMU simgpu_0: perf_event_open: Invalid argument, engine header from PMU off");
	fake.err = 0;
	fake.n = 0;
	pmu_refresh(ps, true);
	ok(pmu_find_dev(ps, "simgpu.0")->status == PMU_OK,
	   "opened on the next discovery once it works");
	rmrf(root);
	pmu_refresh(ps, true);
	ok(ps->ndevs == 0, "devices gone from sysfs are forgotten");
	pmu_set_free(ps);
	ok(!pmu_set_new("/nonexistent-sys", proc, NULL) && errno == ENOENT,
	   "missing sysfs root reported");
}

static void test_real_proc(void)
{
	struct drm_scan *s = drm_scan_new("/proc");
	int ret = s ? drm_scan_refresh(s, DRM_SCAN_FULL) : -1;

	ok(s && !ret && s->npids > 0,
	   "real /proc scanned without error (%zu pids, %zu clients)",
	   s ? s->npids : 0, s ? s->nclients : 0);
	drm_scan_free(s);
}

/* A client of dev with one engine "rcs" at pct and "vram0" bytes, pids[np] */
static void mk_view_client(struct drm_client *c, struct fdinfo_engine *fe,
			   struct drm_fdref *fds, struct fdinfo_region *r,
			   const char *dev, double pct, uint64_t bytes,
			   const pid_t *pids, size_t np)
{
	static struct client_engine eng[16];
	static size_t neng;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->key = (char *)dev;
	c->devname = (char *)dev;
	c->info.driver = "simgpu";
	for (i = 0; i < np; i++) {
		fds[i].pid = pids[i];
		fds[i].fd = 3 + i;
		fds[i].comm = "proc";
	}
	c->fds = fds;
	c->nfds = np;
	c->eng = &eng[neng++ % 16];
	memset(c->eng, 0, sizeof(*c->eng));
	c->eng->name = "rcs";
	c->eng->cur = fe;
	c->eng->res.status = UTIL_OK;
	c->eng->res.pct = pct;
	c->neng = 1;
	memset(r, 0, sizeof(*r));
	r->name = "vram0";
	r->present = 1u << FDINFO_MEM_TOTAL;
	r->bytes[FDINFO_MEM_TOTAL] = bytes;
	c->info.regions = r;
	c->info.n_regions = 1;
}

static const struct drm_client *
view_row(struct drm_client **a, size_t n, const char *dev, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(a[i]->devname, dev) && a[i]->fds[0].pid == pid)
			return a[i];
	return NULL;
}

static double row_pct(const struct drm_client *r)
{
	const struct client_engine *e = r ? client_engine(r, "rcs") : NULL;

	return e && e->res.status == UTIL_OK ? e->res.pct : -1;
}

static uint64_t row_mem(const struct drm_client *r)
{
	return r ? client_mem(r, FDINFO_MEM_TOTAL) : 0;
}

/*
 * Process and device views: pid 10 holds 3 clients on card0, the third
 * shared with pid 20 (one client, two pids); pid 30 one client on card1.
 */
static void test_views(void)
{
	static const pid_t p10[] = { 10 }, p1020[] = { 10, 20 }, p30[] = { 30 };
	struct drm_client c[4], *v[4], **a;
	struct client_engine e1[2] = { 0 };
	struct fdinfo_engine fe = { 0 };
	struct drm_fdref fds[4][2];
	struct fdinfo_region r[4];
	struct view_opts o = { 0 };
	const struct drm_client *row;
	size_t n, i;

	mk_view_client(&c[0], &fe, fds[0], &r[0], "card0", 10, 1000, p10, 1);
	mk_view_client(&c[1], &fe, fds[1], &r[1], "card0", 20, 2000, p10, 1);
	mk_view_client(&c[2], &fe, fds[2], &r[2], "card0", 30, 4000, p1020, 2);
	mk_view_client(&c[3], &fe, fds[3], &r[3], "card1", 50, 8000, p30, 1);
	/* c[1] lists another engine before rcs: the sums meet by name */
	e1[0].name = "vcs";
	e1[0].cur = &fe;
	e1[0].res.status = UTIL_OK;
	e1[0].res.pct = 5;
	e1[1] = c[1].eng[0];
	c[1].eng = e1;
	c[1].neng = 2;
	for (i = 0; i < 4; i++)
		v[i] = &c[i];

	n = view_aggregate(v, 4, VIEW_PROCESS, &o, &a);
	ok(n == 3, "views: process view has 3 rows (got %zu)", n);
	row = view_row(a, n, "card0", 10);
	ok(row && row->nagg == 3, "views: pid 10 is one row of 3 clients");
	ok(near(row_pct(row), 60), "views: pid 10 rcs is the sum 60%% (%.1f)",
	   row_pct(row));
	ok(row_mem(row) == 7000, "views: pid 10 vram0 is the sum 7000 (%llu)",
	   (unsigned long long)row_mem(row));
	ok(row && row->neng == 2, "views: pid 10 has one rcs and one vcs (%zu)",
	   row ? row->neng : 0);
	row = view_row(a, n, "card0", 20);
	ok(row && row->nagg == 1 && near(row_pct(row), 30) &&
	   row_mem(row) == 4000, "views: the shared client counts in pid 20");
	ok(n && a[0]->fds[0].pid == 10, "views: sorted busiest first");
	view_agg_free(a, n);

	/* idle clients: rows at 0 %, not without a figure */
	for (i = 0; i < 4; i++)
		c[i].eng[c[i].neng - 1].res.pct = 0;
	e1[0].res.pct = 0;
	n = view_aggregate(v, 4, VIEW_PROCESS, &o, &a);
	row = view_row(a, n, "card0", 10);
	ok(row && row_pct(row) == 0 && !signbit(row_pct(row)) &&
	   row_mem(row) == 7000, "views: idle clients sum to +0%% (%.1f)",
	   row_pct(row));
	view_agg_free(a, n);
	c[0].eng[0].res.pct = 10;
	c[1].eng[1].res.pct = 20;
	c[2].eng[0].res.pct = 30;
	c[3].eng[0].res.pct = 50;
	e1[0].res.pct = 5;

	n = view_aggregate(v, 4, VIEW_DEVICE, &o, &a);
	ok(n == 2, "views: device view has 2 rows (got %zu)", n);
	row = view_row(a, n, "card0", 0);
	ok(row && row->nagg == 3,
	   "views: card0 counts its 3 clients once each (%zu)",
	   row ? row->nagg : 0);
	ok(near(row_pct(row), 60) && row_mem(row) == 7000 && row->neng == 2,
	   "views: card0 sums match its clients' (%.1f%%, %llu)",
	   row_pct(row), (unsigned long long)row_mem(row));
	row = view_row(a, n, "card1", 0);
	ok(row && row->nagg == 1 && near(row_pct(row), 50) &&
	   row_mem(row) == 8000, "views: card1 is its one client");
	ok(row && row->nproc == 1, "views: card1 has one process (%zu)",
	   row ? row->nproc : 0);
	row = view_row(a, n, "card0", 0);
	ok(row && row->nproc == 2, "views: card0 has two processes (%zu)",
	   row ? row->nproc : 0);
	view_agg_free(a, n);

	/* no data (no counter for the class) stays so only if all agree */
	c[3].eng[0].res.status = UTIL_NO_DATA;
	c[3].eng[0].res.capacity = 2;
	n = view_aggregate(v, 4, VIEW_DEVICE, &o, &a);
	row = view_row(a, n, "card1", 0);
	ok(row && client_engine(row, "rcs") &&
	   client_engine(row, "rcs")->res.status == UTIL_NO_DATA &&
	   client_engine(row, "rcs")->res.capacity == 2,
	   "views: a class without data on every client is no data, with its capacity");
	view_agg_free(a, n);
	c[2].eng[0].res.status = UTIL_NO_DATA;
	n = view_aggregate(v, 4, VIEW_DEVICE, &o, &a);
	row = view_row(a, n, "card0", 0);
	ok(row && client_engine(row, "rcs") &&
	   client_engine(row, "rcs")->res.status == UTIL_OK &&
	   near(row_pct(row), 30),
	   "views: a class with data on one client has a figure (%.1f)",
	   row_pct(row));
	view_agg_free(a, n);
	c[2].eng[0].res.status = UTIL_OK;
	c[3].eng[0].res.status = UTIL_OK;

	n = view_aggregate(v, 0, VIEW_PROCESS, &o, &a);
	ok(n == 0, "views: no clients, no rows");
	view_agg_free(a, n);
}

/* An ns-only client (as v3d, etnaviv): its busy time is exact */
static char *nsclient(char *buf, size_t size, int id, unsigned long long ns)
{
	snprintf(buf, size,
		 "drm-driver:\tv3d\ndrm-client-id:\t%d\ndrm-pdev:\tcg0\n"
		 "drm-engine-render:\t%llu ns\ndrm-total-vram0:\t%d KiB\n",
		 id, ns, id);
	return buf;
}

static void put_cgroup(int pid, const char *text)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/cgroup", pid);
	put(rel, text);
}

static uint64_t acc_ns(const struct drm_scan *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->nacc; i++)
		if (!strcmp(s->acc[i].cgroup->path, path) &&
		    !strcmp(s->acc[i].engine, "render"))
			return s->acc[i].busy_ns;
	return UINT64_MAX;
}

static const struct drm_client *
cg_row(struct drm_client **a, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i]->fds[0].cgroup && !strcmp(a[i]->fds[0].cgroup->path, path))
			return a[i];
	return NULL;
}

static bool near_ns(uint64_t a, uint64_t b)
{
	return a + 1 >= b && a <= b + 1;
}

/*
 * cgroups: names, prefix match, discovery (read once, at discovery), the
 * cgroup view, and the engine time accumulated per cgroup across clients
 * that come and go.
 */
static void test_cgroups(void)
{
	static const char *const id =
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	static const struct { const char *path, *name; } names[] = {
		{ "/system.slice/foo.service", "foo.service" },
		{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope" },
		{ "/system.slice/docker-%s.scope", "0123456789ab" },
		{ "/machine.slice/libpod-%s.scope", "0123456789ab" },
		{ "/kubepods.slice/cri-containerd-%s.scope", "0123456789ab" },
		{ "/kubepods/burstable/pod1/%s", "0123456789ab" },
		{ "/system.slice/docker-0123.scope", "docker-0123.scope" },
		{ "/system.slice/docker-%s.scope/init", "init" },
		{ "/", "/" },
		{ "", "-" },
	};
	const char *docker = "/system.slice/docker-%s.scope";
	char b[1024], path[512], name[64], dpath[256];
	struct view_opts o = { 0 };
	const struct drm_client *row;
	struct drm_client **v, **a;
	struct drm_scan *s;
	struct drm_client *c;
	uint64_t before;
	size_t i, n, na;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), names[i].path, id);
		cgroup_friendly_name(path, name, sizeof(name));
		ok(!strcmp(name, names[i].name), "cgroup name of '%s': '%s'",
		   path, name);
	}
	ok(cgroup_match("/system.slice/a.service", "/system.slice") &&
	   cgroup_match("/system.slice", "/system.slice/") &&
	   cgroup_match("/system.slice", "/system.slice") &&
	   !cgroup_match("/system.slice2/a.service", "/system.slice") &&
	   !cgroup_match("/system", "/system.slice") &&
	   cgroup_match("/a", "/") && !cgroup_match("", "/"),
	   "cgroup filter: a prefix of whole components");

	snprintf(root, sizeof(root), "/tmp/drmtop-cg-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(dpath, sizeof(dpath), docker, id);
	mkpid(100, "a1");
	put_cgroup(100, "0::/system.slice/a.service\n");
	mkfd(100, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 1, 1000));
	mkpid(101, "a2");
	put_cgroup(101, "0::/system.slice/a.service\n");
	mkfd(101, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 2, 0));
	mkfd(101, 4, "/dev/dri/renderD128", nsclient(b, sizeof(b), 3, 0));
	mkpid(102, "ctr");	/* in a container, pid 7 there */
	snprintf(b, sizeof(b), "0::%s\n", dpath);
	put_cgroup(102, b);
	put("102/status", "Name:\tctr\nPid:\t102\nNSpid:\t102\t7\n");
	mkfd(102, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 4, 0));
	mkpid(103, "nocg");		/* no cgroup file */
	mkfd(103, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 5, 0));
	mkpid(104, "v1only");		/* cgroup v1 lines only */
	put_cgroup(104, "12:cpu,cpuacct:/foo\n1:name=systemd:/bar\n");
	mkfd(104, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 6, 0));

	s = drm_scan_new(root);
	ok(s && !drm_scan_refresh(s, DRM_SCAN_FULL) && s->nclients == 6,
	   "cgroups: 6 clients");
	if (!s)
		return;
	c = find(s, "cg0", 1);
	ok(c && client_cgroup(c) &&
	   !strcmp(client_cgroup(c)->path, "/system.slice/a.service") &&
	   !strcmp(client_cgroup(c)->name, "a.service"),
	   "cgroups: the 0:: line of /proc/PID/cgroup");
	c = find(s, "cg0", 4);
	ok(c && c->fds[0].pid == 102 && client_cgroup(c) &&
	   !strcmp(client_cgroup(c)->path, dpath) &&
	   !strcmp(client_cgroup(c)->name, "0123456789ab"),
	   "cgroups: a container's process: the pid of drmtop's namespace, NSpid ignored, its id");
	ok(find(s, "cg0", 5) && find(s, "cg0", 6) &&
	   client_cgroup(find(s, "cg0", 5)) == client_cgroup(find(s, "cg0", 6)) &&
	   !strcmp(client_cgroup(find(s, "cg0", 5))->path, "") &&
	   !strcmp(client_cgroup(find(s, "cg0", 5))->name, "-"),
	   "cgroups: no file and v1 lines only are the unknown cgroup '-'");
	ok(client_cgroup(find(s, "cg0", 2)) == client_cgroup(find(s, "cg0", 1)),
	   "cgroups: one copy of a path for all its processes");

	/* the cgroup is read at discovery, not at each refresh */
	put_cgroup(100, "0::/moved.slice\n");
	mkfd(100, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 1, 5000));
	mkfd(101, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 2, 3000));
	mkfd(102, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 4, 250));
	drm_scan_refresh(s, DRM_SCAN_CHEAP);
	c = find(s, "cg0", 1);
	ok(c && !strcmp(client_cgroup(c)->path, "/system.slice/a.service"),
	   "cgroups: a refresh does not read the cgroup again");
	ok(near_ns(acc_ns(s, "/system.slice/a.service"), 7000) &&
	   near_ns(acc_ns(s, dpath), 250) && acc_ns(s, "") == 0,
	   "cgroups: engine time summed per cgroup: 4000 + 3000 ns (%llu), 250 ns (%llu)",
	   (unsigned long long)acc_ns(s, "/system.slice/a.service"),
	   (unsigned long long)acc_ns(s, dpath));

	n = view_clients(s, &o, &v);
	na = view_aggregate(v, n, VIEW_CGROUP, &o, &a);
	ok(na == 3, "cgroup view: 3 rows (got %zu)", na);
	row = cg_row(a, na, "/system.slice/a.service");
	ok(row && row->nagg == 3 && row->nproc == 2 &&
	   !strcmp(row->fds[0].comm, "a.service"),
	   "cgroup view: a.service has 3 clients of 2 processes (%zu, %zu)",
	   row ? row->nagg : 0, row ? row->nproc : 0);
	ok(row && client_mem(row, FDINFO_MEM_TOTAL) == (1 + 2 + 3) * 1024,
	   "cgroup view: memory summed per region (%llu)",
	   row ? (unsigned long long)client_mem(row, FDINFO_MEM_TOTAL) : 0);
	row = cg_row(a, na, "");
	ok(row && row->nagg == 2 && row->nproc == 2 &&
	   !strcmp(row->fds[0].comm, "-"), "cgroup view: the unknown row");
	view_agg_free(a, na);
	free(v);

	o.cgroup = "/system.slice";
	n = view_clients(s, &o, &v);
	ok(n == 4, "--cgroup /system.slice: the clients of a.service and the container (%zu)",
	   n);
	free(v);
	o.cgroup = NULL;

	/* a client goes: what it added stays */
	snprintf(path, sizeof(path), "%s/101", root);
	rmrf(path);
	mkfd(100, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 1, 6000));
	drm_scan_refresh(s, DRM_SCAN_CHEAP);
	ok(s->nclients == 4 &&
	   near_ns(acc_ns(s, "/system.slice/a.service"), 8000),
	   "cgroups: a client gone keeps its time in the cgroup's (%llu)",
	   (unsigned long long)acc_ns(s, "/system.slice/a.service"));
	/* a counter gone backwards, a new client's first sample: nothing */
	mkfd(100, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 1, 100));
	mkpid(105, "a3");
	put_cgroup(105, "0::/system.slice/a.service\n");
	mkfd(105, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 7, 90000));
	before = acc_ns(s, "/system.slice/a.service");
	drm_scan_refresh(s, DRM_SCAN_CHEAP);
	ok(acc_ns(s, "/system.slice/a.service") == before,
	   "cgroups: backwards counter and first sample add nothing (%llu)",
	   (unsigned long long)acc_ns(s, "/system.slice/a.service"));
	mkfd(105, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 7, 90500));
	drm_scan_refresh(s, DRM_SCAN_CHEAP);
	ok(near_ns(acc_ns(s, "/system.slice/a.service"), before + 500),
	   "cgroups: a new client of the cgroup adds to it (%llu)",
	   (unsigned long long)acc_ns(s, "/system.slice/a.service"));
	/* a discovery sees the process moved: the old cgroup's time stays */
	before = acc_ns(s, "/system.slice/a.service");
	mkfd(100, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 1, 7000));
	drm_scan_refresh(s, DRM_SCAN_FULL);
	mkfd(100, 3, "/dev/dri/renderD128", nsclient(b, sizeof(b), 1, 7400));
	drm_scan_refresh(s, DRM_SCAN_CHEAP);
	c = find(s, "cg0", 1);
	ok(c && !strcmp(client_cgroup(c)->path, "/moved.slice") &&
	   acc_ns(s, "/system.slice/a.service") >= before &&
	   acc_ns(s, "/moved.slice") <= 1400,
	   "cgroups: a discovery reads the cgroup of a process that moved (%llu, %llu)",
	   (unsigned long long)acc_ns(s, "/system.slice/a.service"),
	   (unsigned long long)acc_ns(s, "/moved.slice"));
	drm_scan_free(s);
	rmrf(root);
}

/* The order of view_clients() for sort keys, ties and an order kept. */
static void test_sort(void)
{
	static const struct {
		const char *dev;
		double pct;		/* < 0: no figure (UTIL_NO_DATA) */
		uint64_t id, bytes;
		pid_t pid;
	} in[] = {
		{ "card1", 20, 4, 100, 40 },
		{ "card0", -1, 9, 900, 30 },
		{ "card0", 20, 7, 300, 10 },
		{ "card0", -0.0, 2, 200, 20 },
		{ "card0", 0, 1, 200, 50 },
		{ "card0", 75.5, 8, 50, 60 },
	};
	static const struct {
		const char *sort;
		bool reverse;
		uint64_t ids[6];
	} want[] = {
		/* busiest first, then the device's name, then the id */
		{ NULL, false, { 8, 7, 4, 1, 2, 9 } },
		{ NULL, true, { 9, 1, 2, 7, 4, 8 } },
		{ "pid", false, { 7, 2, 9, 4, 1, 8 } },
		{ "mem", false, { 9, 7, 1, 2, 4, 8 } },
		{ "client", false, { 1, 2, 7, 8, 9, 4 } },
	};
	struct drm_client c[6], *ptr[6], **v;
	struct fdinfo_engine fe = { 0 };
	struct drm_fdref fds[6][1];
	struct fdinfo_region r[6];
	struct drm_scan s = { 0 };
	struct view_opts o = { 0 };
	size_t i, j, k, n;

	for (i = 0; i < 6; i++) {
		mk_view_client(&c[i], &fe, fds[i], &r[i], in[i].dev,
			       in[i].pct, in[i].bytes, &in[i].pid, 1);
		c[i].info.client_id = in[i].id;
		if (in[i].pct < 0)
			c[i].eng->res.status = UTIL_NO_DATA;
		ptr[i] = &c[i];
	}
	s.clients = ptr;
	s.nclients = 6;
	for (k = 0; k < ARRAY_SIZE(want); k++) {
		/* from the listing's order, then from the sorted order */
		for (j = 0; j < 2; j++) {
			o.sort = want[k].sort;
			o.reverse = want[k].reverse;
			n = view_clients(&s, &o, &v);
			for (i = 0; i < n && v[i]->info.client_id ==
				    want[k].ids[i]; i++)
				;
			ok(n == 6 && i == n, "sort: %s%s, %s: client %zu of 6 in place",
			   want[k].sort ? want[k].sort : "busy",
			   want[k].reverse ? " reversed" : "",
			   j ? "sorted input" : "listing's order", i);
			if (n == 6)
				memcpy(ptr, v, sizeof(ptr));
			free(v);
		}
		for (i = 0; i < 6; i++)
			ptr[i] = &c[i];
	}
}

/*
 * view_clients() of 200 clients listed nearly in order, in reverse and
 * shuffled: the near order is sorted in place, the others past the
 * insertion sort's budget.
 */
static void test_sort_orders(void)
{
	static const char *const name[] = { "nearly sorted", "reversed",
					     "shuffled" };
	struct drm_client c[200], *ptr[200], **v;
	struct fdinfo_engine fe = { 0 };
	struct drm_fdref fds[200][1];
	struct fdinfo_region r[200];
	struct drm_scan s = { 0 };
	struct view_opts o = { 0 };
	uint32_t seed = 12345;
	size_t i, j, k, n;
	pid_t pid = 1;

	o.sort = "client";
	for (k = 0; k < ARRAY_SIZE(name); k++) {
		for (i = 0; i < 200; i++) {
			mk_view_client(&c[i], &fe, fds[i], &r[i], "card0", 0, 0,
				       &pid, 1);
			ptr[i] = &c[i];
		}
		for (i = 0; i < 200; i++)
			c[i].info.client_id = k == 1 ? 200 - i : i + 1;
		if (k == 0) {
			/* one found late, and neighbours swapped */
			for (i = 2; i < 150; i++)
				c[i].info.client_id = i + 2;
			c[150].info.client_id = 3;
			for (i = 160; i < 200; i += 2) {
				c[i].info.client_id = i + 2;
				c[i + 1].info.client_id = i + 1;
			}
		}
		for (i = 199; k == 2 && i; i--) {
			struct drm_client *t;

			seed = seed * 1103515245 + 12345;
			j = (seed >> 8) % (i + 1);
			t = ptr[i];
			ptr[i] = ptr[j];
			ptr[j] = t;
		}
		s.clients = ptr;
		s.nclients = 200;
		n = view_clients(&s, &o, &v);
		for (i = 0; i < n && v[i]->info.client_id == i + 1; i++)
			;
		ok(n == 200 && i == n, "sort: 200 clients %s: %zu in place",
		   name[k], i);
		free(v);
	}
}

int main(int argc, char **argv)
{
	fixdir = argc > 1 ? argv[1] : "tests/fixtures";
	test_fixtures();
	test_hostile();
	test_parse_uint();
	test_update();
	test_name_is();
	test_util();
	test_escape();
	test_read_limits();
	test_discovery();
	test_engine_order();
	test_pmu_format();
	test_pmu();
	test_real_proc();
	test_proc_fdinfo_kept_open();
	test_views();
	test_sort();
	test_sort_orders();
	test_cgroups();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
