// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parser for DRM client usage stats (drm-usage-stats.rst)
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdinfo.h"

const char *const fdinfo_mem_kind_name[FDINFO_MEM_KINDS] = {
	[FDINFO_MEM_TOTAL] = "total",
	[FDINFO_MEM_SHARED] = "shared",
	[FDINFO_MEM_RESIDENT] = "resident",
	[FDINFO_MEM_PURGEABLE] = "purgeable",
	[FDINFO_MEM_ACTIVE] = "active",
	[FDINFO_MEM_LEGACY] = "memory",
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The value of line l, whose key ends at colon, and which ends at nl. */
static void set_value(struct fdinfo_line *l, const char *colon,
		      const char *nl)
{
	const char *q = colon + 1;

	l->has_colon = true;
	l->ws_after_colon = q < nl && is_blank(*q);
	while (q < nl && is_blank(*q))
		q++;
	l->val = q;
	l->val_len = nl - q;
	while (l->val_len && is_blank(l->val[l->val_len - 1]))
		l->val_len--;
}

bool fdinfo_next_line(const char **pos, const char *end, unsigned int *lineno,
		      struct fdinfo_line *l)
{
	const char *p = *pos, *nl, *q;

	if (p >= end)
		return false;

	/* one pass over the line, short as lines are */
	l->has_nul = false;
	for (nl = p; nl < end && *nl != '\n'; nl++)
		l->has_nul |= !*nl;

	l->lineno = ++*lineno;
	l->start = p;
	l->len = nl - p;
	l->key_has_ws = false;
	*pos = nl < end ? nl + 1 : end;

	/* one pass over the key: find ':' and note bad characters */
	for (q = p; q < nl && *q != ':'; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			l->key_has_ws = true;
	l->key = p;
	l->key_len = q - p;
	if (q == nl) {
		l->has_colon = false;
		l->ws_after_colon = false;
		l->val = nl;
		l->val_len = 0;
		return true;
	}
	set_value(l, q, nl);
	return true;
}

struct prefix {
	const char *str;
	size_t len;
	enum fdinfo_key key;
	enum fdinfo_mem_kind mem;
};

#define PFX(s, k, m) { s, sizeof(s) - 1, k, m }

/* Longest/most specific first: "drm-engine-capacity-" before "drm-engine-". */
static const struct prefix prefixes[] = {
	PFX("drm-engine-capacity-", FDINFO_KEY_ENGINE_CAPACITY, 0),
	PFX("drm-engine-", FDINFO_KEY_ENGINE, 0),
	PFX("drm-total-cycles-", FDINFO_KEY_TOTAL_CYCLES, 0),
	PFX("drm-cycles-", FDINFO_KEY_CYCLES, 0),
	PFX("drm-maxfreq-", FDINFO_KEY_MAXFREQ, 0),
	PFX("drm-curfreq-", FDINFO_KEY_CURFREQ, 0),
	PFX("drm-memory-", FDINFO_KEY_MEM, FDINFO_MEM_LEGACY),
	PFX("drm-total-", FDINFO_KEY_MEM, FDINFO_MEM_TOTAL),
	PFX("drm-shared-", FDINFO_KEY_MEM, FDINFO_MEM_SHARED),
	PFX("drm-resident-", FDINFO_KEY_MEM, FDINFO_MEM_RESIDENT),
	PFX("drm-purgeable-", FDINFO_KEY_MEM, FDINFO_MEM_PURGEABLE),
	PFX("drm-active-", FDINFO_KEY_MEM, FDINFO_MEM_ACTIVE),
};

#define KEY_IS(k, len, lit) \
	((len) == sizeof(lit) - 1 && !memcmp((k), (lit), sizeof(lit) - 1))

/* Classify a key already known to be free of blanks and control chars. */
static enum fdinfo_key classify(const char *key, size_t len,
				const char **suffix, size_t *suffix_len,
				enum fdinfo_mem_kind *mem_kind)
{
	const char *dash;
	size_t i;

	*suffix = NULL;
	*suffix_len = 0;
	if (!len)
		return FDINFO_KEY_INVALID;

	if (len > 4 && !memcmp(key, "drm-", 4)) {
		switch (key[4]) {
		case 'd':
			if (KEY_IS(key, len, "drm-driver"))
				return FDINFO_KEY_DRIVER;
			break;
		case 'p':
			if (KEY_IS(key, len, "drm-pdev"))
				return FDINFO_KEY_PDEV;
			break;
		case 'c':
			if (KEY_IS(key, len, "drm-client-id"))
				return FDINFO_KEY_CLIENT_ID;
			if (KEY_IS(key, len, "drm-client-name"))
				return FDINFO_KEY_CLIENT_NAME;
			break;
		}
		for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
			const struct prefix *p = &prefixes[i];

			/* cheap first test on the character after "drm-" */
			if (key[4] != p->str[4] || len <= p->len ||
			    memcmp(key + 5, p->str + 5, p->len - 5))
				continue;
			*suffix = key + p->len;
			*suffix_len = len - p->len;
			if (mem_kind)
				*mem_kind = p->mem;
			return p->key;
		}
		return FDINFO_KEY_DRM_UNKNOWN;
	}

	if (KEY_IS(key, len, "pos") || KEY_IS(key, len, "flags") ||
	    KEY_IS(key, len, "mnt_id") || KEY_IS(key, len, "ino"))
		return FDINFO_KEY_GENERIC;

	/* driver specific: non-empty prefix, a dash, non-empty rest */
	dash = memchr(key, '-', len);
	if (dash && dash > key && dash < key + len - 1)
		return FDINFO_KEY_DRIVER_SPECIFIC;
	return FDINFO_KEY_INVALID;
}

static bool key_char_bad(char c)
{
	/* keystr: no whitespace, control characters, NULs or ':' */
	return (unsigned char)c <= ' ' || c == ':' || c == 0x7f;
}

enum fdinfo_key fdinfo_classify(const char *key, size_t len,
				const char **suffix, size_t *suffix_len,
				enum fdinfo_mem_kind *mem_kind)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (key_char_bad(key[i])) {
			*suffix = NULL;
			*suffix_len = 0;
			return FDINFO_KEY_INVALID;
		}
	}
	return classify(key, len, suffix, suffix_len, mem_kind);
}

/*
 * The number the eight digits at s make, or false when one of the bytes is
 * not a digit. A counter has ten to twenty: a step for eight of them costs
 * less than eight steps.
 */
static bool eight_digits(const char *s, uint64_t *out)
{
	const uint64_t high = 0xf0f0f0f0f0f0f0f0ull;
	const uint64_t zeros = 0x3030303030303030ull;
	uint64_t x;

	memcpy(&x, s, sizeof(x));
	x = le64toh(x);		/* s[0] in the low byte */
	/* each byte 0x30 to 0x39: 0x3 high, and still once 6 is added */
	if ((x & high) != zeros || ((x + 0x0606060606060606ull) & high) != zeros)
		return false;
	x -= zeros;
	/* pairs of digits in 16 bits, then fours in 32, then all eight */
	x = x * 10 + (x >> 8);
	x = (x & 0x00ff00ff00ff00ffull) * 100 + ((x >> 16) & 0x00ff00ff00ff00ffull);
	x &= 0x0000ffff0000ffffull;
	*out = (x & 0xffff) * 10000 + (x >> 32);
	return true;
}

int fdinfo_parse_uint(const char *s, size_t len, uint64_t *out,
		      const char **unit, size_t *unit_len)
{
	const char *end = s + len, *lim;
	uint64_t v = 0, d8;
	bool range = false;

	if (!len || *s < '0' || *s > '9')
		return -EINVAL;
	/* 19 digits cannot overflow: no checks for those */
	lim = len < 19 ? end : s + 19;
	while (lim - s >= 8 && eight_digits(s, &d8)) {
		v = v * 100000000 + d8;
		s += 8;
	}
	while (s < lim && *s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned int d = *s - '0';

		/* UINT64_MAX = 18446744073709551615 */
		if (v > 1844674407370955161ull ||
		    (v == 1844674407370955161ull && d > 5))
			range = true;
		else if (!range)
			v = v * 10 + d;
		s++;
	}
	if (s < end && !is_blank(*s))
		return -EINVAL;	/* e.g. "12abc" or "1.5" */
	while (s < end && is_blank(*s))
		s++;
	if (unit) {
		*unit = s;
		*unit_len = end - s;
	} else if (s != end) {
		return -EINVAL;
	}
	if (range)
		return -ERANGE;
	*out = v;
	return 0;
}

static bool unit_is(const char *u, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(u, s, len);
}

static int scale(uint64_t v, uint64_t mul, uint64_t *out)
{
	if (mul && v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int fdinfo_mem_bytes(uint64_t v, const char *unit, size_t unit_len,
		     uint64_t *bytes)
{
	if (!unit_len)
		return scale(v, 1, bytes);
	if (unit_is(unit, unit_len, "KiB"))
		return scale(v, 1ULL << 10, bytes);
	if (unit_is(unit, unit_len, "MiB"))
		return scale(v, 1ULL << 20, bytes);
	/* not in the spec, tolerated by the parser (the checker reports) */
	if (unit_is(unit, unit_len, "GiB"))
		return scale(v, 1ULL << 30, bytes);
	return -EINVAL;
}

int fdinfo_freq_hz(uint64_t v, const char *unit, size_t unit_len, uint64_t *hz)
{
	if (!unit_len || unit_is(unit, unit_len, "Hz"))
		return scale(v, 1, hz);
	if (unit_is(unit, unit_len, "KHz") || unit_is(unit, unit_len, "kHz"))
		return scale(v, 1000, hz);
	if (unit_is(unit, unit_len, "MHz"))
		return scale(v, 1000000, hz);
	if (unit_is(unit, unit_len, "GHz"))
		return scale(v, 1000000000, hz);
	return -EINVAL;
}

void fdinfo_init(struct fdinfo *fi)
{
	memset(fi, 0, sizeof(*fi));
}

void fdinfo_free(struct fdinfo *fi)
{
	size_t i;

	free(fi->driver);
	free(fi->pdev);
	free(fi->client_name);
	for (i = 0; i < 3; i++)
		free(fi->spare[i]);
	for (i = 0; i < fi->engines_named; i++)
		free(fi->engines[i].name);
	free(fi->engines);
	for (i = 0; i < fi->regions_named; i++)
		free(fi->regions[i].name);
	free(fi->regions);
	for (i = 0; i < fi->extra_named; i++) {
		free(fi->extra[i].key);
		free(fi->extra[i].value);
	}
	free(fi->extra);
	free(fi->engine_idx.slots);
	free(fi->region_idx.slots);
	free(fi->memo);
	free(fi->memo_next);
	fdinfo_init(fi);
}

void fdinfo_reset(struct fdinfo *fi)
{
	char **str[3] = { &fi->driver, &fi->pdev, &fi->client_name };
	int i;

	for (i = 0; i < 3; i++) {
		if (*str[i]) {
			free(fi->spare[i]);
			fi->spare[i] = *str[i];
			*str[i] = NULL;
		}
	}
	fi->has_client_id = false;
	fi->client_id = 0;
	fi->n_engines = 0;
	fi->n_regions = 0;
	fi->n_extra = 0;
	if (fi->engine_idx.size)
		memset(fi->engine_idx.slots, 0,
		       fi->engine_idx.size * sizeof(size_t));
	if (fi->region_idx.size)
		memset(fi->region_idx.slots, 0,
		       fi->region_idx.size * sizeof(size_t));
	fi->n_memo = 0;
	fi->lines = 0;
	fi->malformed = 0;
	fi->dups = 0;
	fi->size = 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static size_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return (size_t)h;
}

/*
 * Find the element named (s, len) in an array of elements whose first member
 * is the char *name; add it (zeroed) if missing. Returns its index or -1.
 */
static ssize_t index_get(struct fdinfo_index *idx, void **arr, size_t *n,
			 size_t *cap, size_t *named, size_t elsize,
			 const char *s, size_t len)
{
	size_t j, i, mask;
	char *name;

	/* the last name found, or the one after it: files list in order */
	for (i = idx->hint; i < *n && i <= idx->hint + 1; i++) {
		name = *(char **)((char *)*arr + i * elsize);
		if (name_is(name, s, len))
			return idx->hint = i;
	}
	if (*n <= 16) {
		for (i = 0; i < *n; i++) {
			name = *(char **)((char *)*arr + i * elsize);
			if (name_is(name, s, len))
				return idx->hint = i;
		}
	} else if (idx->size) {
		mask = idx->size - 1;
		for (j = name_hash(s, len) & mask; idx->slots[j];
		     j = (j + 1) & mask) {
			name = *(char **)((char *)*arr +
					  (idx->slots[j] - 1) * elsize);
			if (name_is(name, s, len))
				return idx->hint = idx->slots[j] - 1;
		}
	}
	if (grow(arr, cap, *n, elsize))
		return -1;
	name = NULL;
	if (*n < *named) {	/* slot kept by fdinfo_reset() */
		name = *(char **)((char *)*arr + *n * elsize);
		if (!name_is(name, s, len)) {
			free(name);
			name = NULL;
		}
	}
	if (!name) {
		name = strndup(s, len);
		if (!name) {
			if (*n < *named)	/* slot lost its name */
				*named = *n;
			return -1;
		}
	}
	memset((char *)*arr + *n * elsize, 0, elsize);
	*(char **)((char *)*arr + *n * elsize) = name;
	(*n)++;
	if (*named < *n)
		*named = *n;

	if (*n <= 16) {
		/* small: linear search, no index yet */
	} else if (*n * 2 > idx->size) {
		size_t size = idx->size ? idx->size * 4 : 64;
		size_t *slots = calloc(size, sizeof(*slots));

		if (!slots)
			return -1;	/* element is kept, freed by owner */
		free(idx->slots);
		idx->slots = slots;
		idx->size = size;
		for (i = 0; i < *n; i++) {
			name = *(char **)((char *)*arr + i * elsize);
			for (j = name_hash(name, strlen(name)) & (size - 1);
			     slots[j]; j = (j + 1) & (size - 1))
				;
			slots[j] = i + 1;
		}
	} else {
		mask = idx->size - 1;
		for (j = name_hash(s, len) & mask; idx->slots[j];
		     j = (j + 1) & mask)
			;
		idx->slots[j] = *n;
	}
	return idx->hint = *n - 1;
}

static struct fdinfo_engine *get_engine(struct fdinfo *fi, const char *s,
					size_t len)
{
	ssize_t i = index_get(&fi->engine_idx, (void **)&fi->engines,
			      &fi->n_engines, &fi->cap_engines,
			      &fi->engines_named, sizeof(*fi->engines), s, len);

	return i < 0 ? NULL : &fi->engines[i];
}

static struct fdinfo_region *get_region(struct fdinfo *fi, const char *s,
					size_t len)
{
	ssize_t i = index_get(&fi->region_idx, (void **)&fi->regions,
			      &fi->n_regions, &fi->cap_regions,
			      &fi->regions_named, sizeof(*fi->regions), s, len);

	return i < 0 ? NULL : &fi->regions[i];
}

static int set_str(char **dst, char **spare, const char *s, size_t len)
{
	char *n;

	if (*spare && name_is(*spare, s, len)) {
		free(*dst);
		*dst = *spare;
		*spare = NULL;
		return 0;
	}
	n = strndup(s, len);

	if (!n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

static int set_mem(char **dst, const char *s, size_t len)
{
	char *n;

	if (*dst && name_is(*dst, s, len))
		return 0;
	n = strndup(s, len);
	if (!n)
		return -ENOMEM;
	free(*dst);
	*dst = n;
	return 0;
}

static int add_extra(struct fdinfo *fi, const struct fdinfo_line *l)
{
	struct fdinfo_kv *kv;

	if (grow((void **)&fi->extra, &fi->cap_extra, fi->n_extra,
		 sizeof(*kv)))
		return -ENOMEM;
	kv = &fi->extra[fi->n_extra];
	if (fi->n_extra >= fi->extra_named) {
		kv->key = NULL;
		kv->value = NULL;
		fi->extra_named = fi->n_extra + 1;
	}
	/* on failure the slot stays named with whatever it holds */
	if (set_mem(&kv->key, l->key, l->key_len) ||
	    set_mem(&kv->value, l->val, l->val_len)) {
		if (!kv->key || !kv->value) {
			free(kv->key);
			free(kv->value);
			kv->key = NULL;
			kv->value = NULL;
			fi->extra_named = fi->n_extra;
		}
		return -ENOMEM;
	}
	fi->n_extra++;
	return 0;
}

/* idx of a line_value whose engine or region is still to be looked up */
#define NO_IDX	((size_t)-1)

/* The value of a line with a numeric key, ready to be stored. */
struct line_value {
	enum fdinfo_key k;
	enum fdinfo_mem_kind mk;
	const char *sfx;	/* engine class or region */
	size_t sfx_len;
	size_t idx;		/* of its engine or region, NO_IDX: by sfx */
	uint64_t v;		/* bytes, Hz, ns or a plain number */
	/*
	 * fdinfo_update()'s: where the line starts in the old and new text,
	 * its key's length and the new line's (without its newline)
	 */
	size_t old_off, new_off;
	size_t key_len, len;
};

/* Parse the value of a numeric key into lv. Returns 1 if malformed, 0. */
static int line_value(const struct fdinfo_line *l, struct line_value *lv)
{
	const char *unit;
	size_t unit_len;
	uint64_t v;

	if (fdinfo_parse_uint(l->val, l->val_len, &v, &unit, &unit_len))
		return 1;

	switch (lv->k) {
	case FDINFO_KEY_CLIENT_ID:
		if (unit_len)
			return 1;
		break;
	case FDINFO_KEY_MEM:
		if (fdinfo_mem_bytes(v, unit, unit_len, &v))
			return 1;
		break;
	case FDINFO_KEY_ENGINE:
		if (unit_len && !unit_is(unit, unit_len, "ns"))
			return 1;
		break;
	case FDINFO_KEY_MAXFREQ:
	case FDINFO_KEY_CURFREQ:
		if (fdinfo_freq_hz(v, unit, unit_len, &v))
			return 1;
		break;
	default:
		if (unit_len)
			return 1;
		/* zero capacity is not allowed: ignore it */
		if (lv->k == FDINFO_KEY_ENGINE_CAPACITY && v == 0)
			return 1;
		break;
	}
	lv->v = v;
	return 0;
}

/* Set a value and its flag; whether the flag was set already. */
static bool store(bool *has, uint64_t *field, uint64_t v)
{
	bool was = *has;

	*has = true;
	*field = v;
	return was;
}

/*
 * Store a parsed value. Returns 1 when it replaced one of the same key
 * (the last one counts), 0, or -ENOMEM.
 */
static int store_value(struct fdinfo *fi, struct line_value *lv)
{
	struct fdinfo_engine *e;
	struct fdinfo_region *r;
	bool dup;

	if (lv->k == FDINFO_KEY_CLIENT_ID)
		return store(&fi->has_client_id, &fi->client_id, lv->v);
	if (lv->k == FDINFO_KEY_MEM) {
		if (lv->idx != NO_IDX) {
			r = &fi->regions[lv->idx];
		} else {
			r = get_region(fi, lv->sfx, lv->sfx_len);
			if (!r)
				return -ENOMEM;
			lv->idx = r - fi->regions;
		}
		dup = r->present & (1u << lv->mk);
		r->present |= 1u << lv->mk;
		r->bytes[lv->mk] = lv->v;
		return dup;
	}

	if (lv->idx != NO_IDX) {
		e = &fi->engines[lv->idx];
	} else {
		e = get_engine(fi, lv->sfx, lv->sfx_len);
		if (!e)
			return -ENOMEM;
		lv->idx = e - fi->engines;
	}
	switch (lv->k) {
	case FDINFO_KEY_ENGINE:
		return store(&e->has_ns, &e->ns, lv->v);
	case FDINFO_KEY_CYCLES:
		return store(&e->has_cycles, &e->cycles, lv->v);
	case FDINFO_KEY_TOTAL_CYCLES:
		return store(&e->has_total_cycles, &e->total_cycles, lv->v);
	case FDINFO_KEY_ENGINE_CAPACITY:
		return store(&e->has_capacity, &e->capacity, lv->v);
	case FDINFO_KEY_MAXFREQ:
		return store(&e->has_maxfreq, &e->maxfreq_hz, lv->v);
	case FDINFO_KEY_CURFREQ:
		return store(&e->has_curfreq, &e->curfreq_hz, lv->v);
	default:
		return 0;
	}
}

/* Returns 1 if malformed, 0 if parsed, -ENOMEM. */
static int parse_line(struct fdinfo *fi, const struct fdinfo_line *l)
{
	struct line_value lv = { .mk = FDINFO_MEM_TOTAL, .idx = NO_IDX };
	int ret;

	if (!l->has_colon || l->has_nul || l->key_has_ws)
		return 1;
	lv.k = classify(l->key, l->key_len, &lv.sfx, &lv.sfx_len, &lv.mk);

	switch (lv.k) {
	case FDINFO_KEY_INVALID:
		/*
		 * A key outside the drm- namespace (amdgpu's "pasid") is the
		 * driver's business: drm-fdinfo-check reports it, a monitor
		 * skips it. Only an empty key is malformed.
		 */
		return !l->key_len;
	case FDINFO_KEY_GENERIC:
		return 0;
	case FDINFO_KEY_DRM_UNKNOWN:
	case FDINFO_KEY_DRIVER_SPECIFIC:
		return add_extra(fi, l);
	case FDINFO_KEY_DRIVER:
		return l->val_len ? set_str(&fi->driver, &fi->spare[0], l->val, l->val_len) : 1;
	case FDINFO_KEY_PDEV:
		return l->val_len ? set_str(&fi->pdev, &fi->spare[1], l->val, l->val_len) : 1;
	case FDINFO_KEY_CLIENT_NAME:
		return set_str(&fi->client_name, &fi->spare[2], l->val, l->val_len);
	default:
		break;
	}

	if (line_value(l, &lv))
		return 1;
	ret = store_value(fi, &lv);
	if (ret < 0)
		return ret;
	fi->dups += ret;
	return 0;
}

int fdinfo_parse(struct fdinfo *fi, const char *buf, size_t len)
{
	const char *pos = buf, *end = buf + len;
	struct fdinfo_line l;
	unsigned int lineno = 0;
	int ret;

	fi->size += len;
	fi->n_memo = 0;
	while (fdinfo_next_line(&pos, end, &lineno, &l)) {
		if (!l.len)
			continue;
		fi->lines++;
		ret = parse_line(fi, &l);
		if (ret < 0)
			return ret;
		if (ret)
			fi->malformed++;
	}
	return 0;
}

/* Length of the common prefix of a and b, of at most len bytes. */
static size_t common_prefix(const char *a, const char *b, size_t len)
{
	size_t i = 0;
	uint64_t x, y;

	for (; i + sizeof(x) <= len; i += sizeof(x)) {
		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
			break;
	}
	while (i < len && a[i] == b[i])
		i++;
	return i;
}

/*
 * The line at *pos, whose first d bytes are those of the line at the same
 * place in the previous text, into l; *pos moves to the next line. colon,
 * when less than d, is where that line's first ':' is (the caller knows
 * it from the memo), else it is looked for. False when the key may
 * differ (no ':' before byte d) or a NUL came in. The previous text had
 * no malformed line, so its first d bytes hold no NUL; key_has_ws is not
 * set (the key is the previous line's).
 *
 * The spans looked through here and in fdinfo_update() are a line's few
 * bytes: a loop costs less than a call to memchr() or memrchr(), whose
 * vector code is emulated instruction by instruction under qemu TCG.
 */
static bool changed_line(const char **pos, const char *end, size_t d,
			 size_t colon, struct fdinfo_line *l)
{
	const char *p = *pos, *nl, *q;

	if (p >= end)
		return false;
	if (colon < d) {
		q = p + colon;	/* the memo's line: its ':' is known */
	} else {
		for (q = p; q < p + d && *q != ':'; q++)
			;
		if (q == p + d)
			return false;
	}
	for (nl = p + d; nl < end && *nl != '\n'; nl++)
		if (!*nl)
			return false;
	*pos = nl < end ? nl + 1 : end;
	l->start = p;
	l->len = nl - p;
	l->key = p;
	l->key_len = q - p;
	l->has_nul = false;
	l->key_has_ws = false;
	set_value(l, q, nl);
	return true;
}

/* Changed lines fdinfo_update() handles; more are parsed from scratch. */
#define UPDATE_MAX	64

/*
 * A line that changed in an update, by the offset of its start in the text
 * fi holds. The next update finds a changed line at that offset with as
 * long a key to have the same key: the bytes up to its ':' are those of
 * the previous text. It then needs neither classifying nor its engine or
 * region looked up: a live driver moves the same few counters every time.
 */
struct fdinfo_memo {
	size_t off;
	size_t key_len;
	size_t len;		/* of the line, without its newline */
	enum fdinfo_key k;
	enum fdinfo_mem_kind mk;
	size_t idx;		/* of its engine or region, by k */
};

/*
 * The memo of the new text: that of the old one, its offsets moved by as
 * much as the lines before them grew or shrank, and the lines of upd.
 * Without memory, no memo: it only saves work.
 */
static void memo_update(struct fdinfo *fi, const struct line_value *upd,
			size_t nupd, ptrdiff_t end_delta)
{
	const struct fdinfo_memo *m = fi->memo;
	struct fdinfo_memo *out;
	size_t i = 0, j = 0, n = 0, cap;
	ptrdiff_t delta;

	cap = fi->n_memo + nupd;
	if (cap > fi->cap_memo_next) {
		out = realloc(fi->memo_next, cap * sizeof(*out));
		if (!out) {
			fi->n_memo = 0;
			return;
		}
		fi->memo_next = out;
		fi->cap_memo_next = cap;
	}
	out = fi->memo_next;
	while (i < fi->n_memo || j < nupd) {
		if (j < nupd && (i == fi->n_memo ||
				 upd[j].old_off <= m[i].off)) {
			/* a line that changed: replaces what was known */
			if (i < fi->n_memo && m[i].off == upd[j].old_off)
				i++;
			out[n].off = upd[j].new_off;
			out[n].key_len = upd[j].key_len;
			out[n].len = upd[j].len;
			out[n].k = upd[j].k;
			out[n].mk = upd[j].mk;
			out[n].idx = upd[j].idx;
			n++;
			j++;
			continue;
		}
		/* a line before upd[j], or after the last changed one */
		delta = j < nupd ? (ptrdiff_t)(upd[j].new_off - upd[j].old_off) :
				   end_delta;
		out[n] = m[i++];
		out[n++].off += delta;
	}
	fi->memo_next = fi->memo;
	fi->memo = out;
	cap = fi->cap_memo_next;
	fi->cap_memo_next = fi->cap_memo;
	fi->cap_memo = cap;
	fi->n_memo = n;
}

int fdinfo_update(struct fdinfo *fi, const char *old, size_t old_len,
		  const char *buf, size_t len)
{
	const char *o = old, *oe = old + old_len, *n = buf, *ne = buf + len;
	const struct fdinfo_memo *memo = fi->memo, *mt = memo;
	struct line_value upd[UPDATE_MAX], *lv;
	size_t i, k, d, off, nupd = 0;
	bool known;
	const char *start;
	struct fdinfo_line ln;
	int ret;

	if (fi->malformed || fi->dups)
		return 0;
	if (fi->n_memo)
		mt += fi->n_memo;
	for (;;) {
		/*
		 * Up to the next line that changed last time, or to the end,
		 * the texts are most likely the same: memcmp() tells that
		 * faster than common_prefix() finds where they differ.
		 */
		while (memo < mt && memo->off < (size_t)(o - old))
			memo++;
		k = memo < mt ? memo->off - (o - old) : (size_t)(oe - o);
		if (k > (size_t)(ne - n) || memcmp(o, n, k))
			k = 0;
		k += common_prefix(o + k, n + k, oe - o < ne - n ?
				   oe - o - k : ne - n - k);
		if (o + k == oe && n + k == ne)
			break;
		/*
		 * Back to the start of the line that differs, in both. Most
		 * often it is the memo's line, and the first byte that
		 * differs is in its value or at its end: then where the line
		 * starts, its ':' and its end in the old text are known.
		 */
		off = o - old + k;
		known = memo < mt && memo->off <= off &&
			off > memo->off + memo->key_len &&
			off <= memo->off + memo->len;
		if (known)
			d = off - memo->off;
		else
			for (d = 0; d < k && o[k - d - 1] != '\n'; d++)
				;
		k -= d;
		o += k;
		n += k;
		/*
		 * The key is the same when the line's ':' comes before the
		 * first byte that differs. Then on to the next line in both.
		 */
		start = n;
		if (o == oe || nupd == UPDATE_MAX ||
		    !changed_line(&n, ne, d, known ? memo->key_len : d, &ln))
			return 0;	/* a line more or less, another key */
		lv = &upd[nupd];
		lv->old_off = o - old;
		lv->new_off = start - buf;
		lv->key_len = ln.key_len;
		lv->len = ln.len;
		if (known)
			o += memo->len;
		else
			for (o += d; o < oe && *o != '\n'; o++)
				;
		if (o < oe)
			o++;

		/* the memo is sorted, and so are the changed lines */
		while (memo < mt && memo->off < lv->old_off)
			memo++;
		if (memo < mt && memo->off == lv->old_off &&
		    memo->key_len == ln.key_len) {
			lv->k = memo->k;
			lv->mk = memo->mk;
			lv->idx = memo->idx;
		} else {
			lv->mk = FDINFO_MEM_TOTAL;
			lv->k = classify(ln.key, ln.key_len, &lv->sfx,
					 &lv->sfx_len, &lv->mk);
			lv->idx = NO_IDX;
		}
		switch (lv->k) {
		case FDINFO_KEY_GENERIC:
		case FDINFO_KEY_INVALID:
			break;	/* pos, flags...: nothing kept */
		case FDINFO_KEY_ENGINE_CAPACITY:
		case FDINFO_KEY_ENGINE:
		case FDINFO_KEY_TOTAL_CYCLES:
		case FDINFO_KEY_CYCLES:
		case FDINFO_KEY_MAXFREQ:
		case FDINFO_KEY_CURFREQ:
		case FDINFO_KEY_MEM:
			if (line_value(&ln, lv))
				return 0;
			break;
		default:
			return 0;	/* strings, the client id, extras */
		}
		nupd++;
	}

	for (i = 0; i < nupd; i++) {
		if (upd[i].k == FDINFO_KEY_GENERIC ||
		    upd[i].k == FDINFO_KEY_INVALID)
			continue;
		ret = store_value(fi, &upd[i]);
		if (ret < 0)
			return ret;
	}
	memo_update(fi, upd, nupd, (ptrdiff_t)len - (ptrdiff_t)old_len);
	fi->size = fi->size - old_len + len;
	return 1;
}

struct fdinfo_engine *fdinfo_find_engine(const struct fdinfo *fi,
					 const char *name)
{
	size_t i;

	for (i = 0; i < fi->n_engines; i++)
		if (!strcmp(fi->engines[i].name, name))
			return &fi->engines[i];
	return NULL;
}

struct fdinfo_region *fdinfo_find_region(const struct fdinfo *fi,
					 const char *name)
{
	size_t i;

	for (i = 0; i < fi->n_regions; i++)
		if (!strcmp(fi->regions[i].name, name))
			return &fi->regions[i];
	return NULL;
}

const char *fdinfo_find_extra(const struct fdinfo *fi, const char *key)
{
	size_t i;

	for (i = 0; i < fi->n_extra; i++)
		if (!strcmp(fi->extra[i].key, key))
			return fi->extra[i].value;
	return NULL;
}

int fdinfo_open(int dirfd, const char *path, struct stat *st)
{
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (st && fstat(fd, st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd can be read, at most until *deadline (0: not set yet). */
static int wait_input(int fd, int64_t *deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int64_t left;
	int ret;

	if (!*deadline)
		*deadline = now_ms() + FDINFO_WAIT_MS;
	for (;;) {
		left = *deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&p, 1, (int)left);
		if (ret > 0)
			return 0;	/* data, end of file or an error */
		if (ret < 0 && errno != EINTR)
			return -errno;
	}
}

ssize_t fdinfo_read_fd(int fd, char **buf, size_t *cap, unsigned int flags,
		       bool *truncated)
{
	bool wait = flags & FDINFO_READ_WAIT;
	int64_t deadline = 0;
	size_t len = 0, want;
	const char *nl;
	ssize_t n;

	if (truncated)
		*truncated = false;
	for (;;) {
		/* one byte more than the limit tells whether there is more */
		if (len == *cap) {
			size_t ncap = *cap ? *cap * 2 : 4096;
			char *p;

			if (ncap > FDINFO_READ_MAX + 1)
				ncap = FDINFO_READ_MAX + 1;
			p = realloc(*buf, ncap);
			if (!p)
				return -ENOMEM;
			*buf = p;
			*cap = ncap;
		}
		want = *cap < FDINFO_READ_MAX + 1 ? *cap : FDINFO_READ_MAX + 1;
		if (wait) {
			n = wait_input(fd, &deadline);
			if (n)
				return n;
			wait = false;
		}
		if (flags & FDINFO_READ_REWIND)
			n = pread(fd, *buf + len, want - len, len);
		else
			n = read(fd, *buf + len, want - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				wait = true;
				continue;
			}
			return -errno;
		}
		if (n == 0)
			break;
		len += n;
		if (len > FDINFO_READ_MAX) {
			if (truncated)
				*truncated = true;
			nl = memrchr(*buf, '\n', FDINFO_READ_MAX);
			return nl ? nl + 1 - *buf : 0;
		}
		if ((flags & FDINFO_READ_SHORT_EOF) && len < want)
			break;
	}
	return len;
}

ssize_t fdinfo_read_file(int dirfd, const char *path, char **buf,
			 size_t *cap, bool *truncated)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = fdinfo_open(dirfd, path, &st);
	if (fd < 0)
		return fd;
	n = fdinfo_read_fd(fd, buf, cap,
			   S_ISFIFO(st.st_mode) ? FDINFO_READ_WAIT : 0,
			   truncated);
	close(fd);
	return n;
}
