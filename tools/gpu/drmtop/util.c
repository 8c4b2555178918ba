// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per engine utilisation from two fdinfo samples
 *
 * Preference: drm-cycles with drm-total-cycles (GPU clock domain), then
 * drm-cycles with drm-maxfreq over CPU time, then drm-engine ns over CPU
 * time; divided by drm-engine-capacity (default 1). Counters that go
 * backwards are ignored until they catch up with the larger previous value
 * (the reference sample is kept), as the specification asks.
 */
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

	switch (m) {
	case UTIL_METHOD_CYCLES_TOTAL:
		r->delta_total = total - h->total;
		busy = (double)r->delta;
		avail = (double)r->delta_total;
		break;
	case UTIL_METHOD_CYCLES_MAXFREQ:
		r->delta_total = r->dt_ns;
		busy = (double)r->delta;
		avail = (double)e->maxfreq_hz * (double)r->dt_ns / 1e9;
		break;
	default:
		r->delta_total = r->dt_ns;
		busy = (double)r->delta;
		avail = (double)r->dt_ns;
		break;
	}
	if (r->delta_total == 0 || avail <= 0.0) {
		r->status = UTIL_NO_DELTA;
		return;		/* keep the reference, try next time */
	}
	r->pct = 100.0 * busy / avail / (double)r->capacity;
	r->over = r->pct > 100.0;
	r->status = UTIL_OK;
	store(h, m, value, total, now_ns);
}
