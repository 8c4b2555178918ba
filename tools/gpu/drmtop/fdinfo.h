/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parser for DRM client usage stats (drm-usage-stats.rst)
 *
 * Shared by drmtop and drm-fdinfo-check. The parser has no fixed limits:
 * any number of engines, memory regions and extra keys, input of any size;
 * the readers read at most FDINFO_READ_MAX bytes of a file.
 */
#ifndef DRMTOP_FDINFO_H
#define DRMTOP_FDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Memory statistic kinds, in display order. */
enum fdinfo_mem_kind {
	FDINFO_MEM_TOTAL,
	FDINFO_MEM_SHARED,
	FDINFO_MEM_RESIDENT,
	FDINFO_MEM_PURGEABLE,
	FDINFO_MEM_ACTIVE,
	FDINFO_MEM_LEGACY,	/* drm-memory-<region> */
	FDINFO_MEM_KINDS
};

extern const char *const fdinfo_mem_kind_name[FDINFO_MEM_KINDS];

/* Classification of a key, see fdinfo_classify(). */
enum fdinfo_key {
	FDINFO_KEY_DRIVER,		/* drm-driver */
	FDINFO_KEY_PDEV,		/* drm-pdev */
	FDINFO_KEY_CLIENT_ID,		/* drm-client-id */
	FDINFO_KEY_CLIENT_NAME,		/* drm-client-name */
	FDINFO_KEY_ENGINE_CAPACITY,	/* drm-engine-capacity-<class> */
	FDINFO_KEY_ENGINE,		/* drm-engine-<class> */
	FDINFO_KEY_TOTAL_CYCLES,	/* drm-total-cycles-<class> */
	FDINFO_KEY_CYCLES,		/* drm-cycles-<class> */
	FDINFO_KEY_MAXFREQ,		/* drm-maxfreq-<class> */
	FDINFO_KEY_CURFREQ,		/* drm-curfreq-<class> */
	FDINFO_KEY_MEM,			/* drm-{memory,total,...}-<region> */
	FDINFO_KEY_DRM_UNKNOWN,		/* drm-<anything else> */
	FDINFO_KEY_DRIVER_SPECIFIC,	/* <prefix>-<rest> */
	FDINFO_KEY_GENERIC,		/* pos, flags, mnt_id, ino (VFS) */
	FDINFO_KEY_INVALID,		/* no prefix, whitespace, empty */
};

struct fdinfo_engine {
	char *name;
	bool has_ns, has_cycles, has_total_cycles, has_capacity;
	bool has_maxfreq, has_curfreq;
	uint64_t ns;
	uint64_t cycles;
	uint64_t total_cycles;
	uint64_t capacity;
	uint64_t maxfreq_hz;
	uint64_t curfreq_hz;
};

struct fdinfo_region {
	char *name;
	unsigned int present;			/* 1 << enum fdinfo_mem_kind */
	uint64_t bytes[FDINFO_MEM_KINDS];
};

struct fdinfo_kv {
	char *key;
	char *value;
};

/* name -> index+1 open addressing table, keeps lookups O(1) */
struct fdinfo_index {
	size_t *slots;
	size_t size;
	size_t hint;		/* last index found or added */
};

struct fdinfo_memo;

struct fdinfo {
	char *driver;
	char *pdev;
	char *client_name;
	bool has_client_id;
	uint64_t client_id;

	/*
	 * Arrays may hold named slots past n_* (kept by fdinfo_reset() for
	 * reuse); *_named counts them.
	 */
	struct fdinfo_engine *engines;
	size_t n_engines, cap_engines, engines_named;
	struct fdinfo_region *regions;
	size_t n_regions, cap_regions, regions_named;
	struct fdinfo_index engine_idx, region_idx;
	/*
	 * What fdinfo_update() learnt of the lines that changed, sorted by
	 * their offset in the text fi holds; memo_next is the room the next
	 * update builds its memo in. Emptied by a reset or a parse.
	 */
	struct fdinfo_memo *memo, *memo_next;
	size_t n_memo, cap_memo, cap_memo_next;
	/* driver specific keys and unknown drm- keys, verbatim */
	struct fdinfo_kv *extra;
	size_t n_extra, cap_extra, extra_named;

	char *spare[3];			/* strings kept by fdinfo_reset() */

	unsigned int lines;		/* non-empty lines seen */
	unsigned int malformed;		/* lines breaking drm-usage-stats */
	unsigned int dups;		/* values given again (the last counts) */
	size_t size;			/* bytes of input */
};

/* One tokenised line of an fdinfo file. Pointers point into the buffer. */
struct fdinfo_line {
	unsigned int lineno;		/* 1-based */
	const char *start;
	size_t len;			/* without the newline */
	const char *key;
	size_t key_len;
	const char *val;		/* leading whitespace skipped */
	size_t val_len;			/* trailing whitespace removed */
	bool has_colon;
	bool ws_after_colon;		/* at least one blank after ':' */
	bool has_nul;			/* line contains a NUL byte */
	bool key_has_ws;		/* whitespace inside the key */
};

/* name_is()'s len for a string s that ends with a NUL, as name does */
#define NAME_NUL	((size_t)-1)

/*
 * Whether the NUL-terminated name is the string s of len bytes (NAME_NUL: up
 * to its NUL). The names compared on every refresh (keys, engines, regions,
 * devices) are short and mostly equal: a loop inline costs less than a call
 * to strncmp() or strcmp(), and a count needs no strlen().
 */
static inline bool name_is(const char *name, const char *s, size_t len)
{
	size_t i;

	if (name == s && len == NAME_NUL)
		return true;
	for (i = 0; i < len; i++) {
		if (name[i] != s[i])
			return false;
		if (!name[i])		/* both end here */
			return len == NAME_NUL;
	}
	return name[len] == '\0';
}

/*
 * Iterate over lines in [*pos, end). Returns false at the end. Empty lines
 * are returned too (len == 0) so that line numbers stay exact.
 */
bool fdinfo_next_line(const char **pos, const char *end, unsigned int *lineno,
		      struct fdinfo_line *l);

/*
 * Classify a key. For keys with a class/region suffix, *suffix and
 * *suffix_len describe it; for FDINFO_KEY_MEM *mem_kind is set too.
 */
enum fdinfo_key fdinfo_classify(const char *key, size_t len,
				const char **suffix, size_t *suffix_len,
				enum fdinfo_mem_kind *mem_kind);

/*
 * Parse an unsigned decimal number followed by optional blanks and an
 * optional unit. Returns 0, -ERANGE on overflow (> 2^64 - 1) or -EINVAL.
 */
int fdinfo_parse_uint(const char *s, size_t len, uint64_t *out,
		      const char **unit, size_t *unit_len);

/* Unit helpers: return 0 and the scaled value, or -EINVAL / -ERANGE. */
int fdinfo_mem_bytes(uint64_t v, const char *unit, size_t unit_len,
		     uint64_t *bytes);
int fdinfo_freq_hz(uint64_t v, const char *unit, size_t unit_len,
		   uint64_t *hz);

void fdinfo_init(struct fdinfo *fi);
void fdinfo_free(struct fdinfo *fi);
/* Empty fi for another parse, keeping its allocations for reuse. */
void fdinfo_reset(struct fdinfo *fi);
/* Parse buf (need not be NUL terminated, may contain NULs). -ENOMEM only. */
int fdinfo_parse(struct fdinfo *fi, const char *buf, size_t len);
/*
 * From one read to the next, a client's file usually changes in its
 * counters only. fi was parsed, by fdinfo_parse() alone after a reset, from
 * old (old_len bytes); when buf has the same lines with the same keys and
 * only numeric values changed, parse the changed lines into fi, which then
 * holds what fdinfo_parse() would give for buf, and return 1. Return 0,
 * fi unchanged, when buf must be parsed from scratch: another layout, a
 * changed string, client id or extra key, a value that is malformed, or
 * fi had malformed lines or values given twice. -ENOMEM.
 */
int fdinfo_update(struct fdinfo *fi, const char *old, size_t old_len,
		  const char *buf, size_t len);

struct fdinfo_engine *fdinfo_find_engine(const struct fdinfo *fi,
					 const char *name);
struct fdinfo_region *fdinfo_find_region(const struct fdinfo *fi,
					 const char *name);
const char *fdinfo_find_extra(const struct fdinfo *fi, const char *key);

/*
 * At most this much of one file is read: real fdinfo files are a few KiB,
 * a file of a test tree may never end (/dev/zero).
 */
#define FDINFO_READ_MAX		(64 * 1024)
/* How long a read waits for a FIFO (of a test tree) to be written. */
#define FDINFO_WAIT_MS		2000

/* Flags of fdinfo_read_fd() */
enum {
	FDINFO_READ_REWIND = 1,		/* pread() from the start */
	FDINFO_READ_WAIT = 2,		/* poll() before the first read */
	/*
	 * A read that does not fill the buffer got the whole file: true of
	 * a seq_file such as a procfs fdinfo file, which a read fills with
	 * every line it has room for, and of a regular file. Saves the read
	 * that would return 0.
	 */
	FDINFO_READ_SHORT_EOF = 4,
};

/*
 * Open path relative to dirfd for reading with O_NONBLOCK, so that a FIFO
 * without a writer does not block, and fstat() it into *st if st is not
 * NULL. Returns the descriptor or -errno.
 */
int fdinfo_open(int dirfd, const char *path, struct stat *st);
/*
 * Read at most FDINFO_READ_MAX bytes of an open file into *buf, growing it
 * as needed: from the current position, or from the start with pread()
 * with FDINFO_READ_REWIND (a procfs fdinfo file kept open shows the fd's
 * state at the time of each read from its start). A file with nothing to
 * read yet is waited for with poll(), at most FDINFO_WAIT_MS in all, then
 * -ETIMEDOUT is returned: a FIFO opened with O_NONBLOCK needs
 * FDINFO_READ_WAIT, as read() returns 0 until it has a writer. When the
 * file has more, *truncated (if not NULL) is set and the bytes after the
 * last newline are dropped, so that no line is cut. Returns the number of
 * bytes or -errno.
 */
ssize_t fdinfo_read_fd(int fd, char **buf, size_t *cap, unsigned int flags,
		       bool *truncated);
/*
 * The same for a file named relative to dirfd, opened with fdinfo_open()
 * and waited for if it is a FIFO.
 */
ssize_t fdinfo_read_file(int dirfd, const char *path, char **buf,
			 size_t *cap, bool *truncated);

#endif
