/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per engine utilisation from two fdinfo samples, and the escaping of
 * strings that processes control
 */
#ifndef DRMTOP_UTIL_H
#define DRMTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* status and pct first: the views and the sort read them for every client */
struct util_result {
	enum util_method method;
	enum util_status status;
	double pct;		/* valid if status == UTIL_OK */
	bool over;		/* pct > 100 after capacity */
	uint64_t delta;		/* dns or dcycles */
	uint64_t delta_total;	/* dtotal-cycles or dt in ns */
	uint64_t dt_ns;		/* wall time between the samples */
	uint64_t capacity;
};

extern const char *const util_method_name[];
extern const char *const util_status_name[];

enum util_method util_pick_method(const struct fdinfo_engine *e);
void util_update(struct util_hist *h, const struct fdinfo_engine *e,
		 uint64_t now_ns, struct util_result *r);

/* Whether two NUL-terminated names are the same. */
static inline bool name_eq(const char *a, const char *b)
{
	return name_is(a, b, NAME_NUL);
}

/*
 * How str_escape() writes a string that a process or a file controls
 * (command names, fdinfo values, engine and region names). Control
 * characters are C0, DEL and C1 (U+0080 to U+009F); an invalid byte is one
 * that does not belong to a valid UTF-8 sequence (RFC 3629: no overlong
 * forms, surrogates or code points above U+10FFFF).
 */
enum str_esc {
	/*
	 * Text for a UTF-8 terminal: \\ for a backslash, each byte of a
	 * control character and each invalid byte as \xNN, the rest as is.
	 */
	STR_ESC_TEXT,
	/* Text for other terminals: bytes from 0x80 on as \xNN too. */
	STR_ESC_ASCII,
	/*
	 * Inside a JSON string: \" and \\, control characters as \u00XX,
	 * an invalid byte as \ufffd (U+FFFD), valid UTF-8 as is.
	 */
	STR_ESC_JSON,
	/*
	 * A Prometheus label value holding the STR_ESC_TEXT form: the \\, \"
	 * and \n of the text exposition format applied to that form.
	 */
	STR_ESC_PROM,
};

/* Most bytes str_escape_char() writes for one character or byte. */
#define STR_ESC_MAX 16

/*
 * Escape the character (or invalid byte) at s, of len > 0 bytes, into out
 * (STR_ESC_MAX bytes, not NUL terminated); *out_len gets the length
 * written. Returns the number of bytes of s it covers.
 */
size_t str_escape_char(const char *s, size_t len, enum str_esc how,
		       char *out, size_t *out_len);
/*
 * Escape len bytes of s into buf like snprintf(): at most size - 1 bytes
 * and a NUL, never a part of an escape or of a character. Returns the
 * length of the whole escaped string (size or more when it was cut).
 */
size_t str_escape(char *buf, size_t size, const char *s, size_t len,
		  enum str_esc how);
/* Escape the NUL terminated s to a stream. */
void str_escape_fputs(const char *s, enum str_esc how, FILE *f);
/* STR_ESC_TEXT if the character set of LC_CTYPE is UTF-8, else ASCII. */
enum str_esc str_esc_text(void);

#endif
