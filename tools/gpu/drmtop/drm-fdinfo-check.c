// SPDX-License-Identifier: GPL-2.0-only
/*
 * drm-fdinfo-check: validate DRM fdinfo output against drm-usage-stats.rst
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "fdinfo.h"
#include "util.h"

#define PAGE_LIMIT 4096

struct msg {
	unsigned int line;
	unsigned int seq;
	bool warning;
	char *text;
};

struct keyref {
	const char *key;
	size_t len;
	unsigned int line;
};

enum cls_kind { C_ENGINE, C_CYCLES, C_TOTAL, C_MAXFREQ, C_CAPACITY };

struct clsref {
	const char *name;
	size_t len;
	enum cls_kind kind;
	unsigned int line;
};

struct counter {
	char *key;
	uint64_t value;
	unsigned int line;
};

struct report {
	struct msg *msgs;
	size_t n, cap;
};

static const char *progname = "drm-fdinfo-check";
static bool strict;
static bool quiet;
static enum str_esc text_esc = STR_ESC_ASCII;	/* see main() */

static void *xgrow(void *arr, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 16;
	p = realloc(arr, *cap * size);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", progname);
		exit(2);
	}
	return p;
}

static __printf(4, 5) void add(struct report *r, unsigned int line,
			       bool warning, const char *fmt, ...)
{
	va_list ap;
	struct msg *m;

	r->msgs = xgrow(r->msgs, &r->cap, r->n, sizeof(*r->msgs));
	m = &r->msgs[r->n];
	m->line = line;
	m->seq = r->n;
	m->warning = warning;
	va_start(ap, fmt);
	if (vasprintf(&m->text, fmt, ap) < 0)
		m->text = NULL;
	va_end(ap);
	r->n++;
}

static int cmp_msg(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Print and free; returns the number of violations (warnings if strict). */
static unsigned int flush(struct report *r, const char *name)
{
	unsigned int bad = 0;
	size_t i;

	if (r->n)
		qsort(r->msgs, r->n, sizeof(*r->msgs), cmp_msg);
	for (i = 0; i < r->n; i++) {
		if (!r->msgs[i].warning || strict)
			bad++;
		str_escape_fputs(name, text_esc, stdout);
		printf(": line %u: %s%s\n", r->msgs[i].line,
		       r->msgs[i].warning ? "warning: " : "",
		       r->msgs[i].text ? r->msgs[i].text : "(out of memory)");
		free(r->msgs[i].text);
	}
	free(r->msgs);
	memset(r, 0, sizeof(*r));
	return bad;
}

/*
 * Printable, bounded copy of a key or value for messages, escaped like any
 * text that a driver or a file controls (str_escape()).
 */
static const char *show(const char *s, size_t len, char *out, size_t size)
{
	if (str_escape(out, size - 3, s, len, text_esc) >= size - 3)
		strcat(out, "...");
	return out;
}

static int cmp_keyref(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	size_t l = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->key, y->key, l);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_clsref(const void *a, const void *b)
{
	const struct clsref *x = a, *y = b;
	size_t l = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, l);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* dddd:bb:dd.f, domain may be longer than 4 digits */
static bool valid_pdev(const char *s, size_t len)
{
	size_t i = 0, n;

	for (n = 0; i < len && is_hex(s[i]); i++)
		n++;
	if (n < 4 || i >= len || s[i++] != ':')
		return false;
	for (n = 0; i < len && is_hex(s[i]); i++)
		n++;
	if (n != 2 || i >= len || s[i++] != ':')
		return false;
	for (n = 0; i < len && is_hex(s[i]); i++)
		n++;
	if (n != 2 || i >= len || s[i++] != '.')
		return false;
	return i + 1 == len && s[i] >= '0' && s[i] <= '7';
}

static bool unit_in(const char *u, size_t len, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == len && !memcmp(u, *list, len))
			return true;
	return false;
}

static const char *const no_unit[] = { "", NULL };
static const char *const ns_unit[] = { "ns", NULL };
static const char *const freq_units[] = { "", "Hz", "KHz", "MHz", NULL };
static const char *const mem_units[] = { "", "KiB", "MiB", NULL };

static void check_uint(struct report *r, const struct fdinfo_line *l,
		       const char *key, const char *const *units,
		       const char *what, uint64_t *out)
{
	const char *unit;
	size_t unit_len;
	uint64_t scaled;
	char buf[80];
	int ret;

	ret = fdinfo_parse_uint(l->val, l->val_len, out, &unit, &unit_len);
	if (ret == -ERANGE) {
		add(r, l->lineno, false,
		    "%s: value does not fit in 64 bits", key);
	} else if (ret) {
		add(r, l->lineno, false,
		    "%s: value '%s' is not %s", key,
		    show(l->val, l->val_len, buf, sizeof(buf)), what);
	} else if (!unit_in(unit, unit_len, units)) {
		if (!unit_len)
			add(r, l->lineno, false, "%s: unit missing (%s)", key,
			    what);
		else
			add(r, l->lineno, false,
			    "%s: unit '%s' is not allowed (%s)", key,
			    show(unit, unit_len, buf, sizeof(buf)), what);
	} else if ((units == mem_units &&
		    fdinfo_mem_bytes(*out, unit, unit_len, &scaled) == -ERANGE) ||
		   (units == freq_units &&
		    fdinfo_freq_hz(*out, unit, unit_len, &scaled) == -ERANGE)) {
		/*
		 * The rule drmtop's parser follows: a size or frequency is
		 * a 64-bit count of bytes or Hz (the kernel prints a u64),
		 * whatever its unit.
		 */
		add(r, l->lineno, false,
		    "%s: value does not fit in 64 bits as %s", key,
		    units == mem_units ? "bytes" : "Hz");
	}
}

/* truncated: the file had more than FDINFO_READ_MAX bytes */
static void check_buffer(struct report *r, const char *buf, size_t len,
			 bool truncated, struct counter **ctrs, size_t *nctrs)
{
	const char *pos = buf, *end = buf + len;
	struct keyref *keys = NULL;
	struct clsref *cls = NULL;
	size_t nkeys = 0, capkeys = 0, ncls = 0, capcls = 0, capctrs = 0;
	size_t i, j;
	unsigned int lineno = 0;
	bool driver = false;
	struct fdinfo_line l;
	char kb[80], cb[80];

	if (truncated)
		add(r, 0, false, "more than %d bytes: the rest is not checked",
		    FDINFO_READ_MAX);
	else if (len > PAGE_LIMIT)
		add(r, 0, true,
		    "%zu bytes, more than %d: readers with a one page buffer truncate it",
		    len, PAGE_LIMIT);

	while (fdinfo_next_line(&pos, end, &lineno, &l)) {
		enum fdinfo_mem_kind mk;
		enum fdinfo_key k;
		const char *sfx;
		size_t sfx_len;
		uint64_t v = 0;
		const char *key;

		if (!l.len) {
			add(r, l.lineno, false, "empty line");
			continue;
		}
		if (l.has_nul) {
			add(r, l.lineno, false, "line contains a NUL byte");
			continue;
		}
		if (!l.has_colon) {
			add(r, l.lineno, false,
			    "no ':' between key and value in '%s'",
			    show(l.start, l.len, kb, sizeof(kb)));
			continue;
		}
		key = show(l.key, l.key_len, kb, sizeof(kb));
		if (!l.key_len) {
			add(r, l.lineno, false, "empty key");
			continue;
		}
		if (l.key_has_ws) {
			add(r, l.lineno, false,
			    "key '%s' contains whitespace", key);
			continue;
		}
		k = fdinfo_classify(l.key, l.key_len, &sfx, &sfx_len, &mk);
		if (k == FDINFO_KEY_GENERIC)
			continue;	/* pos, flags, mnt_id, ino from the VFS */
		if (k == FDINFO_KEY_INVALID) {
			add(r, l.lineno, false,
			    "key '%s' has neither the drm- prefix nor a driver specific <driver>- prefix",
			    key);
			continue;
		}
		if (l.val_len && !l.ws_after_colon)
			add(r, l.lineno, false,
			    "%s: no whitespace between ':' and the value", key);

		keys = xgrow(keys, &capkeys, nkeys, sizeof(*keys));
		keys[nkeys++] = (struct keyref){ l.key, l.key_len, l.lineno };

		switch (k) {
		case FDINFO_KEY_DRIVER:
			driver = true;
			if (!l.val_len)
				add(r, l.lineno, false, "drm-driver: empty value");
			break;
		case FDINFO_KEY_PDEV:
			if (!valid_pdev(l.val, l.val_len))
				add(r, l.lineno, false,
				    "drm-pdev: '%s' is not a PCI address (dddd:bb:dd.f)",
				    show(l.val, l.val_len, cb, sizeof(cb)));
			break;
		case FDINFO_KEY_CLIENT_ID:
			check_uint(r, &l, key, no_unit, "an unsigned integer", &v);
			break;
		case FDINFO_KEY_CLIENT_NAME:
		case FDINFO_KEY_DRIVER_SPECIFIC:
			break;
		case FDINFO_KEY_DRM_UNKNOWN:
			add(r, l.lineno, false,
			    "'%s' is not a key of drm-usage-stats (driver specific keys need a <driver>- prefix)",
			    key);
			break;
		case FDINFO_KEY_MEM:
			check_uint(r, &l, key, mem_units,
				   "<uint> [KiB|MiB]", &v);
			break;
		case FDINFO_KEY_ENGINE:
		case FDINFO_KEY_CYCLES:
		case FDINFO_KEY_TOTAL_CYCLES:
		case FDINFO_KEY_MAXFREQ:
		case FDINFO_KEY_CURFREQ:
		case FDINFO_KEY_ENGINE_CAPACITY: {
			enum cls_kind ck = C_ENGINE;

			if (k == FDINFO_KEY_ENGINE) {
				check_uint(r, &l, key, ns_unit, "<uint> ns", &v);
			} else if (k == FDINFO_KEY_MAXFREQ ||
				   k == FDINFO_KEY_CURFREQ) {
				check_uint(r, &l, key, freq_units,
					   "<uint> [Hz|KHz|MHz]", &v);
			} else {
				check_uint(r, &l, key, no_unit,
					   "an unsigned integer", &v);
			}
			if (k == FDINFO_KEY_ENGINE_CAPACITY && l.val_len &&
			    l.val[0] == '0' && !v)
				add(r, l.lineno, false,
				    "%s: capacity must be greater than zero",
				    key);
			if (k == FDINFO_KEY_CURFREQ)
				break;
			if (k == FDINFO_KEY_CYCLES)
				ck = C_CYCLES;
			else if (k == FDINFO_KEY_TOTAL_CYCLES)
				ck = C_TOTAL;
			else if (k == FDINFO_KEY_MAXFREQ)
				ck = C_MAXFREQ;
			else if (k == FDINFO_KEY_ENGINE_CAPACITY)
				ck = C_CAPACITY;
			cls = xgrow(cls, &capcls, ncls, sizeof(*cls));
			cls[ncls++] = (struct clsref){ sfx, sfx_len, ck,
						       l.lineno };
			if (ctrs && ck <= C_TOTAL) {
				*ctrs = xgrow(*ctrs, &capctrs, *nctrs,
					      sizeof(**ctrs));
				(*ctrs)[*nctrs] = (struct counter){
					strndup(l.key, l.key_len), v, l.lineno };
				(*nctrs)++;
			}
			break;
		}
		default:
			break;
		}
	}

	if (!driver)
		add(r, 0, false, "mandatory key drm-driver is missing");

	/* duplicate keys */
	if (nkeys)
		qsort(keys, nkeys, sizeof(*keys), cmp_keyref);
	for (i = 1; i < nkeys; i++) {
		if (keys[i].len == keys[i - 1].len &&
		    !memcmp(keys[i].key, keys[i - 1].key, keys[i].len)) {
			for (j = i - 1; j && keys[j - 1].len == keys[i].len &&
			     !memcmp(keys[j - 1].key, keys[i].key, keys[i].len);)
				j--;
			add(r, keys[i].line, false,
			    "duplicate key '%s' (first on line %u)",
			    show(keys[i].key, keys[i].len, kb, sizeof(kb)),
			    keys[j].line);
		}
	}
	free(keys);

	/* per engine class consistency */
	if (ncls)
		qsort(cls, ncls, sizeof(*cls), cmp_clsref);
	for (i = 0; i < ncls; i = j) {
		unsigned int line[C_CAPACITY + 1] = { 0 };
		const char *n;

		for (j = i; j < ncls && cls[j].len == cls[i].len &&
		     !memcmp(cls[j].name, cls[i].name, cls[i].len); j++)
			if (!line[cls[j].kind])
				line[cls[j].kind] = cls[j].line;
		n = show(cls[i].name, cls[i].len, cb, sizeof(cb));
		if (line[C_TOTAL] && line[C_MAXFREQ])
			add(r, line[C_MAXFREQ], false,
			    "both drm-total-cycles-%s and drm-maxfreq-%s (a driver may only provide one)",
			    n, n);
		if (line[C_CYCLES] && !line[C_TOTAL] && !line[C_MAXFREQ])
			add(r, line[C_CYCLES], false,
			    "drm-cycles-%s without drm-total-cycles-%s or drm-maxfreq-%s",
			    n, n, n);
		if (line[C_TOTAL] && !line[C_CYCLES])
			add(r, line[C_TOTAL], false,
			    "drm-total-cycles-%s without drm-cycles-%s", n, n);
		if (line[C_CAPACITY] && !line[C_ENGINE] && !line[C_CYCLES])
			add(r, line[C_CAPACITY], false,
			    "drm-engine-capacity-%s without drm-engine-%s or drm-cycles-%s",
			    n, n, n);
	}
	free(cls);
}

static void free_counters(struct counter *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(c[i].key);
	free(c);
}

static int cmp_counter(const void *a, const void *b)
{
	const struct counter *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->line < y->line ? -1 : x->line > y->line);
}

/* first occurrence of a duplicated key wins: compare keys only */
static int cmp_counter_key(const void *a, const void *b)
{
	const struct counter *x = a, *y = b;

	return strcmp(x->key, y->key);
}

/* Resolve FILE or PID:FD. Returns a malloced path. */
static char *resolve(const char *arg, const char *proc_root)
{
	unsigned long pid, fd;
	char *path, *end;

	if (access(arg, F_OK)) {
		errno = 0;
		pid = strtoul(arg, &end, 10);
		if (!errno && end != arg && *end == ':' && end[1]) {
			char *e2;

			fd = strtoul(end + 1, &e2, 10);
			if (!errno && !*e2 &&
			    asprintf(&path, "%s/%lu/fdinfo/%lu", proc_root,
				     pid, fd) >= 0)
				return path;
		}
	}
	return strdup(arg);
}

/* "ARG: line 0: cannot read PATH[ again]: why" */
static void read_error(const char *arg, const char *path, const char *again,
		       ssize_t err)
{
	str_escape_fputs(arg, text_esc, stdout);
	fputs(": line 0: cannot read ", stdout);
	str_escape_fputs(path, text_esc, stdout);
	if (err == -ETIMEDOUT)
		printf("%s: nothing to read within %d ms\n", again,
		       FDINFO_WAIT_MS);
	else
		printf("%s: %s\n", again, strerror(-err));
}

static unsigned int check_one(const char *arg, const char *proc_root,
			      double interval)
{
	struct counter *c1 = NULL, *c2 = NULL;
	size_t n1 = 0, n2 = 0, i, cap = 0;
	struct report r = { 0 };
	unsigned int bad;
	char *path, *buf = NULL, kb[80];
	bool truncated;
	ssize_t len;

	path = resolve(arg, proc_root);
	if (!path) {
		fprintf(stderr, "%s: out of memory\n", progname);
		exit(2);
	}
	len = fdinfo_read_file(AT_FDCWD, path, &buf, &cap, &truncated);
	if (len < 0) {
		read_error(arg, path, "", len);
		free(path);
		free(buf);
		return 1;
	}
	check_buffer(&r, buf, len, truncated, interval > 0 ? &c1 : NULL, &n1);
	bad = flush(&r, arg);

	if (interval > 0) {
		struct timespec ts = {
			.tv_sec = (time_t)interval,
			.tv_nsec = (long)((interval - (time_t)interval) * 1e9),
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		len = fdinfo_read_file(AT_FDCWD, path, &buf, &cap, &truncated);
		if (len < 0) {
			read_error(arg, path, " again", len);
			bad++;
		} else {
			check_buffer(&r, buf, len, truncated, &c2, &n2);
			/* format problems were reported for the first read */
			for (i = 0; i < r.n; i++)
				free(r.msgs[i].text);
			free(r.msgs);
			memset(&r, 0, sizeof(r));
			if (n1)
				qsort(c1, n1, sizeof(*c1), cmp_counter);
			for (i = 0; i < n2; i++) {
				struct counter key = { c2[i].key, 0, 0 };
				struct counter *o;

				o = n1 ? bsearch(&key, c1, n1, sizeof(*c1),
						 cmp_counter_key) : NULL;
				if (o && c2[i].value < o->value)
					add(&r, c2[i].line, false,
					    "%s went backwards: %llu -> %llu after %gs",
					    show(c2[i].key, strlen(c2[i].key),
						 kb, sizeof(kb)),
					    (unsigned long long)o->value,
					    (unsigned long long)c2[i].value,
					    interval);
			}
			bad += flush(&r, arg);
		}
	}
	if (!quiet && !bad) {
		str_escape_fputs(arg, text_esc, stderr);
		fputs(": ok\n", stderr);
	}
	free_counters(c1, n1);
	free_counters(c2, n2);
	free(path);
	free(buf);
	return bad;
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS] FILE|PID:FD...\n"
		"\n"
		"Validate DRM fdinfo text against Documentation/gpu/drm-usage-stats.rst.\n"
		"FILE is a saved fdinfo file; PID:FD reads <proc-root>/PID/fdinfo/FD.\n"
		"At most 64 KiB of a file are read (more is a violation); a FIFO is\n"
		"waited for at most 2 seconds.\n"
		"\n"
		"Options:\n"
		"  -i, --interval SECONDS  read every file a second time after SECONDS and\n"
		"                          report drm-engine-, drm-cycles- and\n"
		"                          drm-total-cycles- counters that went backwards\n"
		"  -p, --proc-root DIR     proc file system for PID:FD (default /proc)\n"
		"  -W, --strict            treat warnings (file larger than 4096 bytes)\n"
		"                          as violations\n"
		"  -q, --quiet             do not print 'ok' lines for clean files\n"
		"  -V, --version           print the version and exit\n"
		"  -h, --help              show this help\n"
		"\n"
		"Output: one line per problem, 'FILE: line N: message' (line 0 for\n"
		"problems of the whole file), on stdout. Control characters and bytes\n"
		"of invalid UTF-8 in names, keys and values are shown as \\xNN, a\n"
		"backslash as \\\\, other bytes from 0x80 on too unless the locale is\n"
		"UTF-8.\n"
		"\n"
		"Checks: every line is 'key:<whitespace>value'; keys have no whitespace\n"
		"and start with drm- or a driver specific '<driver>-' prefix (pos, flags,\n"
		"mnt_id and ino from the VFS are accepted); drm- keys are ones the\n"
		"specification defines; value types and units (drm-engine-: '<uint> ns',\n"
		"drm-cycles-/drm-total-cycles-/drm-engine-capacity-/drm-client-id: <uint>,\n"
		"drm-maxfreq-/drm-curfreq-: <uint> [Hz|KHz|MHz], memory keys:\n"
		"<uint> [KiB|MiB], drm-pdev: dddd:bb:dd.f) and 64 bit range (a size in\n"
		"bytes, a frequency in Hz: 18014398509481984 KiB is 2^64 bytes, out of\n"
		"range, as drmtop's parser says too); capacity > 0;\n"
		"not both drm-total-cycles-X and drm-maxfreq-X; drm-cycles-X needs\n"
		"drm-total-cycles-X or drm-maxfreq-X; drm-total-cycles-X needs\n"
		"drm-cycles-X; drm-engine-capacity-X needs drm-engine-X or drm-cycles-X;\n"
		"no duplicate keys; drm-driver present; no empty lines or NUL bytes.\n"
		"\n"
		"Exit status: 0 clean, 1 violations found (or a file was unreadable),\n"
		"2 usage error.\n", progname);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "proc-root", required_argument, NULL, 'p' },
		{ "strict", no_argument, NULL, 'W' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *proc_root = "/proc";
	unsigned int bad = 0;
	double interval = 0;
	char *end;
	int c, i;

	/* messages keep UTF-8 characters on a UTF-8 terminal only */
	setlocale(LC_CTYPE, "");
	text_esc = str_esc_text();
	while ((c = getopt_long(argc, argv, "i:p:WqVh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(interval > 0) ||
			    interval > 86400) {
				fprintf(stderr,
					"%s: invalid interval '%s' (seconds, > 0)\n",
					progname, optarg);
				return 2;
			}
			break;
		case 'p':
			proc_root = optarg;
			break;
		case 'W':
			strict = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'V':
			printf("drm-fdinfo-check %s\n", DRMTOP_VERSION);
			return 0;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", progname);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no FILE or PID:FD given\nTry '%s --help'.\n",
			progname, progname);
		return 2;
	}
	for (i = optind; i < argc; i++)
		bad += check_one(argv[i], proc_root, interval);
	return bad ? 1 : 0;
}
