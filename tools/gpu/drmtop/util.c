// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per engine utilisation from two fdinfo samples, and the escaping of
 * strings that processes control
 *
 * Preference: drm-cycles with drm-total-cycles (GPU clock domain), then
 * drm-cycles with drm-maxfreq over CPU time, then drm-engine ns over CPU
 * time; divided by drm-engine-capacity (default 1). Counters that go
 * backwards are ignored until they catch up with the larger previous value
 * (the reference sample is kept), as the specification asks.
 */
#include <langinfo.h>
#include <string.h>

#include "util.h"

const char *const util_method_name[] = {
	[UTIL_METHOD_NONE] = "none",
	[UTIL_METHOD_CYCLES_TOTAL] = "cycles/total-cycles",
	[UTIL_METHOD_CYCLES_MAXFREQ] = "cycles/maxfreq",
	[UTIL_METHOD_NS] = "ns",
};

const char *const util_status_name[] = {
	[UTIL_OK] = "ok",
	[UTIL_FIRST] = "first-sample",
	[UTIL_BACKWARDS] = "counter-backwards",
	[UTIL_NO_DELTA] = "no-delta",
	[UTIL_NO_DATA] = "no-data",
};

enum util_method util_pick_method(const struct fdinfo_engine *e)
{
	if (e->has_cycles && e->has_total_cycles)
		return UTIL_METHOD_CYCLES_TOTAL;
	if (e->has_cycles && e->has_maxfreq && e->maxfreq_hz)
		return UTIL_METHOD_CYCLES_MAXFREQ;
	if (e->has_ns)
		return UTIL_METHOD_NS;
	return UTIL_METHOD_NONE;
}

static void store(struct util_hist *h, enum util_method m, uint64_t value,
		  uint64_t total, uint64_t now_ns)
{
	h->valid = true;
	h->method = m;
	h->value = value;
	h->total = total;
	h->t_ns = now_ns;
}

void util_update(struct util_hist *h, const struct fdinfo_engine *e,
		 uint64_t now_ns, struct util_result *r)
{
	enum util_method m = util_pick_method(e);
	uint64_t value, total = 0;
	double busy, avail;

	memset(r, 0, sizeof(*r));
	r->method = m;
	r->capacity = e->has_capacity && e->capacity ? e->capacity : 1;

	if (m == UTIL_METHOD_NONE) {
		r->status = UTIL_NO_DATA;
		h->valid = false;
		return;
	}
	value = m == UTIL_METHOD_NS ? e->ns : e->cycles;
	if (m == UTIL_METHOD_CYCLES_TOTAL)
		total = e->total_cycles;

	if (!h->valid || h->method != m) {
		store(h, m, value, total, now_ns);
		r->status = UTIL_FIRST;
		return;
	}
	r->dt_ns = now_ns > h->t_ns ? now_ns - h->t_ns : 0;
	if (value < h->value || total < h->total) {
		r->status = UTIL_BACKWARDS;
		return;		/* stay with the larger previous values */
	}
	r->delta = value - h->value;
	r->delta_total = m == UTIL_METHOD_CYCLES_TOTAL ? total - h->total :
							 r->dt_ns;
	/* no time went by (maxfreq is not 0: util_pick_method() checked) */
	if (r->delta_total == 0) {
		r->status = UTIL_NO_DELTA;
		return;		/* keep the reference, try next time */
	}
	/*
	 * An idle engine, most engines of most clients, is 0 % without
	 * floating point: under emulation (qemu TCG) each floating point
	 * operation is a call into a software implementation.
	 */
	if (r->delta) {
		busy = (double)r->delta;
		if (m == UTIL_METHOD_CYCLES_MAXFREQ)
			avail = (double)e->maxfreq_hz * (double)r->dt_ns / 1e9;
		else
			avail = (double)r->delta_total;
		r->pct = 100.0 * busy / avail / (double)r->capacity;
		r->over = r->pct > 100.0;
	}
	r->status = UTIL_OK;
	store(h, m, value, total, now_ns);
}

/*
 * Length of the valid UTF-8 sequence at s, 0 when s[0] does not start
 * one; *cp gets its code point.
 */
static size_t utf8_char(const unsigned char *s, size_t len, uint32_t *cp)
{
	uint32_t c, min;
	size_t n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] < 0xc2) {		/* a continuation byte, or overlong */
		return 0;
	} else if (s[0] < 0xe0) {
		n = 2;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] < 0xf0) {
		n = 3;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] < 0xf5) {
		n = 4;
		c = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

static const char hex[] = "0123456789abcdef";

/* STR_ESC_TEXT and STR_ESC_ASCII */
static size_t escape_text(const unsigned char *s, size_t len, bool ascii,
			  char *out, size_t *out_len)
{
	size_t n, i, o = 0;
	uint32_t cp;

	n = utf8_char(s, len, &cp);
	if (n && !is_control(cp) && !(ascii && cp >= 0x80)) {
		if (cp == '\\')
			out[o++] = '\\';
		memcpy(out + o, s, n);
		*out_len = o + n;
		return n;
	}
	if (!n)
		n = 1;
	for (i = 0; i < n; i++) {
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[s[i] >> 4];
		out[o++] = hex[s[i] & 0xf];
	}
	*out_len = o;
	return n;
}

static size_t escape_json(const unsigned char *s, size_t len, char *out,
			  size_t *out_len)
{
	uint32_t cp;
	size_t n;

	n = utf8_char(s, len, &cp);
	if (!n) {
		memcpy(out, "\\ufffd", 6);
		*out_len = 6;
		return 1;
	}
	if (cp == '"' || cp == '\\') {
		out[0] = '\\';
		out[1] = cp;
		*out_len = 2;
	} else if (is_control(cp)) {
		memcpy(out, "\\u00", 4);
		out[4] = hex[cp >> 4];
		out[5] = hex[cp & 0xf];
		*out_len = 6;
	} else {
		memcpy(out, s, n);
		*out_len = n;
	}
	return n;
}

static size_t escape_prom(const unsigned char *s, size_t len, char *out,
			  size_t *out_len)
{
	char text[STR_ESC_MAX];
	size_t n, tn, i, o = 0;

	n = escape_text(s, len, false, text, &tn);
	for (i = 0; i < tn; i++) {
		if (text[i] == '\\' || text[i] == '"') {
			out[o++] = '\\';
			out[o++] = text[i];
		} else if (text[i] == '\n') {	/* not left by escape_text() */
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = text[i];
		}
	}
	*out_len = o;
	return n;
}

size_t str_escape_char(const char *s, size_t len, enum str_esc how,
		       char *out, size_t *out_len)
{
	const unsigned char *u = (const unsigned char *)s;

	switch (how) {
	case STR_ESC_JSON:
		return escape_json(u, len, out, out_len);
	case STR_ESC_PROM:
		return escape_prom(u, len, out, out_len);
	case STR_ESC_ASCII:
		return escape_text(u, len, true, out, out_len);
	default:
		return escape_text(u, len, false, out, out_len);
	}
}

size_t str_escape(char *buf, size_t size, const char *s, size_t len,
		  enum str_esc how)
{
	size_t total = 0, used = 0, n, on;
	char one[STR_ESC_MAX];

	while (len) {
		n = str_escape_char(s, len, how, one, &on);
		if (used == total && total + on < size) {
			memcpy(buf + used, one, on);
			used += on;
		}
		total += on;
		s += n;
		len -= n;
	}
	if (size)
		buf[used] = '\0';
	return total;
}

/* Bytes that every enum str_esc writes as they are: printable ASCII but \ and ". */
static bool esc_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\' && c != '"';
}

void str_escape_fputs(const char *s, enum str_esc how, FILE *f)
{
	size_t len = s ? strlen(s) : 0, n, on;
	char one[STR_ESC_MAX];

	while (len) {
		/* a run of plain bytes in one write: most names are all plain */
		for (n = 0; n < len && esc_plain(s[n]); n++)
			;
		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			len -= n;
			continue;
		}
		n = str_escape_char(s, len, how, one, &on);
		fwrite(one, 1, on, f);
		s += n;
		len -= n;
	}
}

enum str_esc str_esc_text(void)
{
	return strcmp(nl_langinfo(CODESET), "UTF-8") ? STR_ESC_ASCII :
						       STR_ESC_TEXT;
}
