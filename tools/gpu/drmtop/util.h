/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per engine utilisation from two fdinfo samples
 */
#ifndef DRMTOP_UTIL_H
#define DRMTOP_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "fdinfo.h"

enum util_method {
	UTIL_METHOD_NONE,
	UTIL_METHOD_CYCLES_TOTAL,	/* dcycles / dtotal-cycles */
	UTIL_METHOD_CYCLES_MAXFREQ,	/* dcycles / (maxfreq * dt) */
	UTIL_METHOD_NS,			/* dns / dt */
};

enum util_status {
	UTIL_OK,
	UTIL_FIRST,		/* first sample, nothing to compare with */
	UTIL_BACKWARDS,		/* a counter went backwards: window skipped */
	UTIL_NO_DELTA,		/* time base did not advance */
	UTIL_NO_DATA,		/* no usable keys for this engine */
};

/* The reference sample: the last one that moved forward. */
struct util_hist {
	bool valid;
	enum util_method method;
	uint64_t value;		/* ns or cycles */
	uint64_t total;		/* total cycles */
	uint64_t t_ns;		/* CLOCK_MONOTONIC of the read */
};

struct util_result {
	enum util_method method;
	enum util_status status;
	uint64_t delta;		/* dns or dcycles */
	uint64_t delta_total;	/* dtotal-cycles or dt in ns */
	uint64_t dt_ns;		/* wall time between the samples */
	uint64_t capacity;
	double pct;		/* valid if status == UTIL_OK */
	bool over;		/* pct > 100 after capacity */
};

extern const char *const util_method_name[];
extern const char *const util_status_name[];

enum util_method util_pick_method(const struct fdinfo_engine *e);
void util_update(struct util_hist *h, const struct fdinfo_engine *e,
		 uint64_t now_ns, struct util_result *r);

#endif
