// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu uAPI fuzzer: every simgpu ioctl, and the DRM core ioctls simgpu
 * relies on (GEM close, PRIME, syncobjs, version, get_cap), plus mmap of
 * GEM mmap offsets, called with random and boundary arguments from several
 * threads of two processes sharing the DRM file, while another thread
 * closes and reopens the dup()ed descriptors the callers use.
 *
 * Random arguments are mostly rejected early, so valid exec queues,
 * buffers, commands and syncobjs are also built on purpose and one field
 * of them mutated at a time, which reaches the job path. As root, the
 * fuzzer also writes 2 to /proc/sys/vm/drop_caches now and then: the
 * shrinkers run, and simgpu's purges the buffers marked DONTNEED.
 *
 *   simgpu_fuzz_test [--seed N|random] [--seconds S] [--threads T]
 *                    [--no-syncobj-counts REASON]
 *
 * (or FUZZ_SEED, FUZZ_SECONDS, FUZZ_NO_SYNCOBJ_COUNTS). The seed is
 * printed: a failure reproduces with the same seed, as far as the
 * interleaving of the threads allows.
 *
 * The syncobj ioctls that take an array are also given counts the array
 * does not have, up to 2^32 - 1. A kernel without "drm/syncobj: bound the
 * handle counts of the array ioctls" (a stock kernel running simgpu out of
 * tree, say) WARNs on a count whose array the page allocator cannot give:
 * there, --no-syncobj-counts keeps the counts true, and the case that
 * checks they were fuzzed is skipped with REASON.
 *
 * It fails on an errno the uAPI does not document for the call, if a
 * simgpu ioctl never succeeded in a run of at least FUZZ_MIN_CALLS calls,
 * on a hang (no call returned for FUZZ_STALL_SECONDS), on a crash of
 * either process, and if anything is left in the file once the fuzzer
 * closed what it created. Kernel reports (KASAN, lockdep, WARN, kmemleak)
 * are the VM runner's to catch.
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <poll.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/eventfd.h>
#include <sys/wait.h>

#include "../../../kselftest.h"
#include "simgpu_test.h"

#define PAGE			4096ULL

/*
 * The largest buffer the fuzzer keeps and touches. GEM_CREATE is asked for
 * any size: the driver bounds them (-EINVAL, -ENOSPC), and a buffer it
 * accepts above this size is closed at once, untouched, so that the
 * threads' mappings and writes cannot fill the guest's memory.
 */
#define FUZZ_BO_SIZE_MAX	(4ULL << 20)

/* The coverage check needs a run of at least that many calls */
#define FUZZ_MIN_CALLS		2000

/* No call returned for that long: a hang */
#define FUZZ_STALL_SECONDS	60

#define MAX_THREADS		16
#define NERR			256
#define NALIAS			4
#define NCTX			2
#define TBL_MAX			24
#define MAX_REPORTS		20

enum fuzz_op {
	/* The simgpu ioctls: each must succeed at least once */
	OP_QUERY,
	OP_QUEUE_CREATE,
	OP_QUEUE_DESTROY,
	OP_GEM_CREATE,
	OP_GEM_MMAP_OFFSET,
	OP_GEM_MADVISE,
	OP_SUBMIT,
	OP_WAIT_BO,
	NUM_SIMGPU_OPS,
	/* The DRM core's */
	OP_VERSION = NUM_SIMGPU_OPS,
	OP_GET_CAP,
	OP_GEM_CLOSE,
	OP_PRIME_HANDLE_TO_FD,
	OP_PRIME_FD_TO_HANDLE,
	OP_SYNCOBJ_CREATE,
	OP_SYNCOBJ_DESTROY,
	OP_SYNCOBJ_HANDLE_TO_FD,
	OP_SYNCOBJ_FD_TO_HANDLE,
	OP_SYNCOBJ_WAIT,
	OP_SYNCOBJ_RESET,
	OP_SYNCOBJ_SIGNAL,
	OP_SYNCOBJ_TIMELINE_WAIT,
	OP_SYNCOBJ_TIMELINE_SIGNAL,
	OP_SYNCOBJ_QUERY,
	OP_SYNCOBJ_TRANSFER,
	OP_SYNCOBJ_EVENTFD,
	/*
	 * The perfmon ioctls, not required to succeed: SET_GLOBAL cannot
	 * while jobs with a perfmon run, which the fuzzer keeps submitting
	 */
	OP_PERFMON_CREATE,
	OP_PERFMON_DESTROY,
	OP_PERFMON_GET_VALUES,
	OP_PERFMON_SET_GLOBAL,
	/*
	 * Observation streams, not required to succeed: one stream at a time
	 * between the threads. The stream's own calls (its ioctls, read(),
	 * poll()) count as one more.
	 */
	OP_OBSERVATION_OPEN,
	OP_OBSERVATION_STREAM,
	/* mmap() of a GEM mmap offset, munmap() */
	OP_MMAP,
	OP_MUNMAP,
	/* A simgpu ioctl number with another size or direction, or none */
	OP_RAW,
	NUM_OPS
};

/* Name, how often it is picked, the errnos it may return */
static const struct op_desc {
	const char *name;
	unsigned int weight;
	int errs[12];
} op_desc[NUM_OPS] = {
	[OP_QUERY] = { "SIMGPU_QUERY", 4, { EINVAL, EFAULT, ENOMEM } },
	/* EFAULT, E2BIG: the extension chain */
	[OP_QUEUE_CREATE] = { "SIMGPU_EXEC_QUEUE_CREATE", 4,
		{ EINVAL, ENOMEM, EBUSY, EFAULT, E2BIG } },
	[OP_QUEUE_DESTROY] = { "SIMGPU_EXEC_QUEUE_DESTROY", 3,
		{ EINVAL, ENOENT } },
	[OP_GEM_CREATE] = { "SIMGPU_GEM_CREATE", 6,
		{ EINVAL, ENOSPC, ENOMEM } },
	[OP_GEM_MMAP_OFFSET] = { "SIMGPU_GEM_MMAP_OFFSET", 3,
		{ EINVAL, ENOENT, ENOSPC, ENOMEM } },
	[OP_GEM_MADVISE] = { "SIMGPU_GEM_MADVISE", 3,
		{ EINVAL, ENOENT, EINTR } },
	/*
	 * EBUSY: a perfmon named while the device-wide one is set; E2BIG: an
	 * extension chain too long
	 */
	[OP_SUBMIT] = { "SIMGPU_SUBMIT", 20,
		{ EINVAL, ENOENT, ECANCELED, EFAULT, ENOMEM, EINTR, EBUSY,
		  E2BIG } },
	[OP_WAIT_BO] = { "SIMGPU_WAIT_BO", 3,
		{ EINVAL, ENOENT, ETIME, EINTR } },
	[OP_VERSION] = { "VERSION", 1, { EFAULT } },
	/* EOPNOTSUPP: a KMS capability */
	[OP_GET_CAP] = { "GET_CAP", 1, { EINVAL, EOPNOTSUPP } },
	[OP_GEM_CLOSE] = { "GEM_CLOSE", 4, { EINVAL, ENOENT } },
	[OP_PRIME_HANDLE_TO_FD] = { "PRIME_HANDLE_TO_FD", 2,
		{ EINVAL, ENOENT, EMFILE, ENOMEM } },
	[OP_PRIME_FD_TO_HANDLE] = { "PRIME_FD_TO_HANDLE", 2,
		{ EINVAL, EBADF, ENOMEM, ENOSPC } },
	[OP_SYNCOBJ_CREATE] = { "SYNCOBJ_CREATE", 3, { EINVAL, ENOMEM } },
	[OP_SYNCOBJ_DESTROY] = { "SYNCOBJ_DESTROY", 2, { EINVAL, ENOENT } },
	[OP_SYNCOBJ_HANDLE_TO_FD] = { "SYNCOBJ_HANDLE_TO_FD", 2,
		{ EINVAL, ENOENT, EMFILE, ENOMEM } },
	[OP_SYNCOBJ_FD_TO_HANDLE] = { "SYNCOBJ_FD_TO_HANDLE", 2,
		{ EINVAL, EBADF, ENOENT, ENOMEM } },
	/* A count of handles above the core's bound is -EINVAL */
	[OP_SYNCOBJ_WAIT] = { "SYNCOBJ_WAIT", 3,
		{ EINVAL, EFAULT, ENOENT, ETIME, ENOMEM, EINTR } },
	[OP_SYNCOBJ_RESET] = { "SYNCOBJ_RESET", 2,
		{ EINVAL, EFAULT, ENOENT, ENOMEM } },
	[OP_SYNCOBJ_SIGNAL] = { "SYNCOBJ_SIGNAL", 2,
		{ EINVAL, EFAULT, ENOENT, ENOMEM } },
	/*
	 * simgpu has DRIVER_SYNCOBJ_TIMELINE: no EOPNOTSUPP. A TRANSFER
	 * with WAIT_FOR_SUBMIT of a point nobody submits gives up with ETIME.
	 */
	[OP_SYNCOBJ_TIMELINE_WAIT] = { "SYNCOBJ_TIMELINE_WAIT", 2,
		{ EINVAL, EFAULT, ENOENT, ETIME, ENOMEM, EINTR } },
	[OP_SYNCOBJ_TIMELINE_SIGNAL] = { "SYNCOBJ_TIMELINE_SIGNAL", 2,
		{ EINVAL, EFAULT, ENOENT, ENOMEM } },
	[OP_SYNCOBJ_QUERY] = { "SYNCOBJ_QUERY", 2,
		{ EINVAL, EFAULT, ENOENT, ENOMEM } },
	[OP_SYNCOBJ_TRANSFER] = { "SYNCOBJ_TRANSFER", 1,
		{ EINVAL, ENOENT, ENOMEM, ETIME, EINTR } },
	[OP_SYNCOBJ_EVENTFD] = { "SYNCOBJ_EVENTFD", 1,
		{ EINVAL, EBADF, ENOENT, ENOMEM } },
	[OP_PERFMON_CREATE] = { "SIMGPU_PERFMON_CREATE", 2,
		{ EINVAL, EFAULT, ENOSPC, ENOMEM } },
	[OP_PERFMON_DESTROY] = { "SIMGPU_PERFMON_DESTROY", 2,
		{ EINVAL, ENOENT } },
	[OP_PERFMON_GET_VALUES] = { "SIMGPU_PERFMON_GET_VALUES", 2,
		{ EINVAL, ENOENT, ETIME, EFAULT, EINTR } },
	/* EACCES: the fuzzer may run without CAP_PERFMON */
	[OP_PERFMON_SET_GLOBAL] = { "SIMGPU_PERFMON_SET_GLOBAL", 1,
		{ EINVAL, ENOENT, EBUSY, EACCES } },
	/* EACCES: device-wide or fast without CAP_PERFMON */
	[OP_OBSERVATION_OPEN] = { "SIMGPU_OBSERVATION_OPEN", 2,
		{ EINVAL, EFAULT, E2BIG, ENOENT, EACCES, EBUSY, ENOMEM,
		  EMFILE } },
	/* ENOTTY: an unknown command; EIO, EAGAIN, ENOSPC: read() */
	[OP_OBSERVATION_STREAM] = { "observation stream", 0,
		{ ENOTTY, EIO, EAGAIN, ENOSPC, EFAULT } },
	[OP_MMAP] = { "mmap", 4,
		{ EINVAL, EACCES, ENOMEM, EOVERFLOW, ENODEV } },
	[OP_MUNMAP] = { "munmap", 0, { } },
	[OP_RAW] = { "raw simgpu ioctl nr", 1,
		{ EINVAL, EFAULT, ENOENT, ENOTTY, ENOSPC, E2BIG, ENOMEM,
		  EBUSY, ETIME, ECANCELED, EINTR } },
};

/*
 * Errnos of a call on a descriptor another thread may close and reuse
 * meanwhile: a closed one, or another file (a dma-buf, a syncobj, a sync
 * file, a new DRM file).
 */
static const int volatile_errs[] = { EBADF, ENOTTY, EACCES, ENODEV, ENOENT,
				     EINVAL };

/* Shared by both processes */
struct stats {
	uint64_t calls[NUM_OPS];
	uint64_t ok[NUM_OPS];
	uint64_t unexpected[NUM_OPS];
	uint64_t err[NUM_OPS][NERR];
	uint64_t progress;
	uint64_t submit_built_ok;
	uint64_t submit_mutated_ok;
	uint64_t sigbus;
	uint64_t purged;
	uint64_t syncobj_counts;
	uint32_t max_handle;
	uint32_t max_queue;
	uint32_t reports;
	struct {
		int op;
		int pid;
		uint64_t since;
	} thr[2 * MAX_THREADS + 4];
};

static struct stats *st;
static uint64_t seed;
static unsigned int seconds = 30, nthreads = 3;
static bool lift_caps;
static const char *no_syncobj_counts;
static int drop_caches = -1;
static int stop;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* What the device has */
static struct {
	struct drm_simgpu_engine_info engines[64];
	unsigned int num_engines;
	uint32_t max_cmds;
	uint64_t vram_size;
} dev;

/* --- random numbers ------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct thr;
static uint64_t rnd(struct thr *t);

static uint32_t rn(struct thr *t, uint32_t n)
{
	return n ? rnd(t) % n : 0;
}

static bool chance(struct thr *t, unsigned int percent)
{
	return rn(t, 100) < percent;
}

static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 16, 0x7f, 0x80, 0xff, 0x100, 0xfff, PAGE - 4,
	PAGE - 1, PAGE, PAGE + 1, PAGE + 4, 2 * PAGE, 0xffff, 0x10000,
	(2 << 20) - 1, 2 << 20, (2 << 20) + 1, 0x7fffffff, 0x80000000,
	0xfffffffe, 0xffffffff, 1ULL << 32, (1ULL << 32) + 1,
	(1ULL << 32) + PAGE, 1ULL << 40, 1ULL << 47, (1ULL << 63) - PAGE,
	(1ULL << 63) - 1, 1ULL << 63, ~0ULL - PAGE, ~0ULL - 1, ~0ULL,
	1000000000, 1000000001,
};

/* A boundary value, a small one, a random one or random bits */
static uint64_t fuzz_u64(struct thr *t)
{
	switch (rn(t, 8)) {
	case 0: case 1: case 2:
		return interesting[rn(t, ARRAY_SIZE(interesting))];
	case 3: case 4:
		return rn(t, 64);
	case 5:
		return rnd(t);
	case 6:
		return 1ULL << rn(t, 64);
	default:
		return rnd(t) & ((1ULL << rn(t, 64)) - 1);
	}
}

static uint32_t fuzz_u32(struct thr *t)
{
	return fuzz_u64(t);
}

/* A flags or pad word: mostly 0, else random bits */
static uint32_t fuzz_mbz(struct thr *t)
{
	return chance(t, 85) ? 0 : fuzz_u32(t) ?: 1;
}

/* An absolute CLOCK_MONOTONIC timeout that does not block for long */
static int64_t fuzz_timeout(struct thr *t)
{
	static const int64_t special[] = { 0, 1, -1, INT64_MIN, INT64_MIN + 1,
					   1000000000 };

	if (chance(t, 30))
		return special[rn(t, ARRAY_SIZE(special))];
	return now_ns() + rn(t, 20000000);
}

/* --- pointers ------------------------------------------------------------- */

/* A page followed by a PROT_NONE one, and a read-only page */
static uint8_t *edge_page, *ro_page;

static uint64_t bad_ptr(struct thr *t)
{
	static const uint64_t bad[] = {
		0, 1, 8, PAGE - 1, PAGE, 0x7fffffff, 1ULL << 47,
		0xffff888000000000ULL, 0xffffffff81000000ULL,
		0xffffffffff600000ULL, ~0ULL - 7, ~0ULL,
	};

	switch (rn(t, 4)) {
	case 0:
		/* The end of the data runs into a PROT_NONE page */
		return (uintptr_t)edge_page + PAGE - 8 * (1 + rn(t, 4));
	case 1:
		/* Unmapped, or read-only for an output */
		return (uintptr_t)(chance(t, 50) ? edge_page + PAGE : ro_page);
	default:
		return bad[rn(t, ARRAY_SIZE(bad))];
	}
}

/* @p most of the time, else a bad pointer */
static uint64_t fuzz_ptr(struct thr *t, const void *p, unsigned int bad)
{
	return chance(t, bad) ? bad_ptr(t) : (uintptr_t)p;
}

/* --- objects -------------------------------------------------------------- */

/* What the fuzzer created: handles, or descriptors and mappings it owns */
struct item {
	uint64_t a;	/* handle, fd or address */
	uint64_t size;	/* of a buffer or mapping */
	uint32_t gen;	/* of the file, for the second file's objects */
	int prot;	/* of a mapping */
};

struct table {
	pthread_mutex_t lock;
	unsigned int n;
	struct item items[TBL_MAX];
};

enum { T_BO, T_QUEUE, T_SYNCOBJ, T_DMABUF, T_SYNCFD, T_MAP, NUM_TABLES };

/*
 * A DRM file: the main one, whose descriptor stays open and whose dup()s
 * the closer thread closes and reopens, or a second one that it closes
 * and reopens whole.
 */
struct fctx {
	int fd;
	int alias[NALIAS];
	uint32_t gen;
	struct table tbl[NUM_TABLES];
};

static struct fctx ctx[NCTX];

struct thr {
	uint64_t rng;
	unsigned int id;
	pthread_t pt;
};

static __thread sigjmp_buf touch_jmp;
static __thread int touching;

static uint64_t rnd(struct thr *t)
{
	return splitmix(&t->rng);
}

static bool tbl_add(struct table *tb, struct item it)
{
	bool ok;

	pthread_mutex_lock(&tb->lock);
	ok = tb->n < TBL_MAX;
	if (ok)
		tb->items[tb->n++] = it;
	pthread_mutex_unlock(&tb->lock);
	return ok;
}

static bool tbl_get(struct thr *t, struct table *tb, struct item *it,
		    bool take)
{
	unsigned int i;
	bool ok;

	pthread_mutex_lock(&tb->lock);
	ok = tb->n;
	if (ok) {
		i = rn(t, tb->n);
		*it = tb->items[i];
		if (take)
			tb->items[i] = tb->items[--tb->n];
	}
	pthread_mutex_unlock(&tb->lock);
	return ok;
}

static void note_max(uint32_t *max, uint32_t v)
{
	uint32_t m = __atomic_load_n(max, __ATOMIC_RELAXED);

	while (v > m && !__atomic_compare_exchange_n(max, &m, v, false,
						     __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
}

/* --- calls and their accounting --------------------------------------------- */

static bool errno_allowed(enum fuzz_op op, int err, bool vol)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(op_desc[op].errs) && op_desc[op].errs[i];
	     i++)
		if (op_desc[op].errs[i] == err)
			return true;
	if (vol)
		for (i = 0; i < ARRAY_SIZE(volatile_errs); i++)
			if (volatile_errs[i] == err)
				return true;
	/*
	 * A descriptor reused by a file of a pseudo filesystem (a dma-buf,
	 * an anonymous inode), which are noexec: mmap(PROT_EXEC) of it
	 */
	if (vol && op == OP_MMAP && err == EPERM)
		return true;
	return false;
}

static void report(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&st->reports, 1, __ATOMIC_RELAXED) >=
	    MAX_REPORTS)
		return;
	pthread_mutex_lock(&print_lock);
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	pthread_mutex_unlock(&print_lock);
}

static void begin(struct thr *t, enum fuzz_op op)
{
	st->thr[t->id].op = op;
	st->thr[t->id].since = now_ns();
}

/* Count a result: 0 or an errno */
static void account(struct thr *t, enum fuzz_op op, int err, bool vol)
{
	__atomic_fetch_add(&st->calls[op], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->progress, 1, __ATOMIC_RELAXED);
	st->thr[t->id].op = -1;
	if (!err) {
		__atomic_fetch_add(&st->ok[op], 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&st->err[op][err < NERR ? err : NERR - 1], 1,
			   __ATOMIC_RELAXED);
	if (!errno_allowed(op, err, vol)) {
		__atomic_fetch_add(&st->unexpected[op], 1, __ATOMIC_RELAXED);
		report("UNEXPECTED: %s: %s (%d), %s fd, pid %d thread %u\n",
		       op_desc[op].name, strerrorname_np(err) ?: "?", err,
		       vol ? "volatile" : "stable", getpid(), t->id);
	}
}

/* One ioctl: 0 or -errno */
static int fz_ioctl(struct thr *t, enum fuzz_op op, int fd, bool vol,
		    unsigned long req, void *arg)
{
	int ret, err;

	begin(t, op);
	ret = ioctl(fd, req, arg);
	err = ret < 0 ? errno : 0;
	account(t, op, err, vol);
	return ret < 0 ? -err : ret;
}

/* A descriptor of a file: mostly its own, sometimes a dup() in flux */
static int pick_fd(struct thr *t, struct fctx *c, bool *vol)
{
	if (c == &ctx[0] && chance(t, 70)) {
		*vol = false;
		return c->fd;
	}
	*vol = true;
	if (c != &ctx[0] && chance(t, 50))
		return __atomic_load_n(&c->fd, __ATOMIC_RELAXED);
	return __atomic_load_n(&c->alias[rn(t, NALIAS)], __ATOMIC_RELAXED);
}

static struct fctx *pick_ctx(struct thr *t)
{
	return &ctx[chance(t, 80) ? 0 : 1];
}

/* A handle from a table, or a made up one */
static uint32_t pick_handle(struct thr *t, struct fctx *c, int tbl)
{
	struct item it;

	if (chance(t, 85) && tbl_get(t, &c->tbl[tbl], &it, false))
		return it.a;
	return chance(t, 50) ? rn(t, 64) : fuzz_u32(t);
}

static void close_handle(struct thr *t, struct fctx *c, int tbl,
			 uint32_t h)
{
	struct drm_syncobj_destroy sd = { .handle = h };
	struct drm_simgpu_exec_queue_destroy qd = { .exec_queue_id = h };
	struct drm_gem_close gc = { .handle = h };
	bool vol = c != &ctx[0];
	int fd = c->fd;

	switch (tbl) {
	case T_BO:
		fz_ioctl(t, OP_GEM_CLOSE, fd, vol, DRM_IOCTL_GEM_CLOSE, &gc);
		break;
	case T_QUEUE:
		fz_ioctl(t, OP_QUEUE_DESTROY, fd, vol,
			 DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &qd);
		break;
	case T_SYNCOBJ:
		fz_ioctl(t, OP_SYNCOBJ_DESTROY, fd, vol,
			 DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
		break;
	}
}

/* Release an item taken from a table */
static void drop_item(struct thr *t, struct fctx *c, int tbl, struct item it)
{
	switch (tbl) {
	case T_DMABUF:
	case T_SYNCFD:
		close(it.a);
		break;
	case T_MAP:
		begin(t, OP_MUNMAP);
		account(t, OP_MUNMAP, munmap((void *)(uintptr_t)it.a, it.size) ?
			errno : 0, false);
		break;
	default:
		if (it.gen == c->gen)
			close_handle(t, c, tbl, it.a);
	}
}

/* Keep a new object; when the table is full, release another one */
static void keep_item(struct thr *t, struct fctx *c, int tbl, struct item it)
{
	uint64_t a = it.a;
	uint32_t gen = it.gen;
	struct item old;

	if (tbl == T_BO || tbl == T_SYNCOBJ)
		note_max(&st->max_handle, a);
	if (tbl == T_QUEUE)
		note_max(&st->max_queue, a);
	/* The second file was reopened meanwhile */
	if (gen != __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE)) {
		if (tbl >= T_DMABUF)
			drop_item(t, c, tbl, it);
		return;
	}
	while (!tbl_add(&c->tbl[tbl], it)) {
		if (tbl_get(t, &c->tbl[tbl], &old, true))
			drop_item(t, c, tbl, old);
	}
}

static void keep(struct thr *t, struct fctx *c, int tbl, uint64_t a,
		 uint64_t size, uint32_t gen)
{
	keep_item(t, c, tbl, (struct item){ .a = a, .size = size, .gen = gen });
}

/* --- touching mappings -------------------------------------------------------- */

static void sigbus_handler(int sig)
{
	if (__atomic_load_n(&touching, __ATOMIC_SEQ_CST))
		siglongjmp(touch_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void touch(struct thr *t, uint8_t *p, uint64_t len, int prot)
{
	uint64_t off;

	__atomic_store_n(&touching, 1, __ATOMIC_SEQ_CST);
	if (sigsetjmp(touch_jmp, 1)) {
		__atomic_store_n(&touching, 0, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&st->sigbus, 1, __ATOMIC_RELAXED);
		return;
	}
	for (off = 0; off < len; off += PAGE) {
		if (prot & PROT_WRITE)
			p[off] = rnd(t);
		else if (prot & PROT_READ)
			(void)__atomic_load_n(&p[off], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&touching, 0, __ATOMIC_SEQ_CST);
}

/* --- the simgpu ioctls ---------------------------------------------------- */

static void op_query(struct thr *t)
{
	/*
	 * Larger than any answer (the counters' is 1,872 bytes): a size
	 * that lies about it must not let the kernel write past it
	 */
	uint64_t buf[512];
	struct fctx *c = pick_ctx(t);
	struct drm_simgpu_query q = {
		.type = chance(t, 80) ? rn(t, 4) : fuzz_u32(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	/* The size query, then the real one, or made up sizes */
	if (chance(t, 30)) {
		fz_ioctl(t, OP_QUERY, fd, vol, DRM_IOCTL_SIMGPU_QUERY, &q);
		if (q.size > sizeof(buf))
			q.size = sizeof(buf);
		if (chance(t, 20))
			q.size += rn(t, 3) - 1;
	} else {
		q.size = chance(t, 50) ? sizeof(buf) : fuzz_u32(t);
	}
	if (q.size > sizeof(buf) && chance(t, 70))
		q.size = sizeof(buf);
	q.data = fuzz_ptr(t, buf, 15);
	fz_ioctl(t, OP_QUERY, fd, vol, DRM_IOCTL_SIMGPU_QUERY, &q);
}

/* The longest extension chain the fuzzer builds, past the kernel's bound */
#define FUZZ_MAX_EXTENSIONS	(DRM_SIMGPU_MAX_USER_EXTENSIONS + 2)

/*
 * The extensions field of an ioctl: mostly none, else a chain built in
 * @ext (of FUZZ_MAX_EXTENSIONS entries), which may loop or end in a bad
 * pointer, or a bad pointer. No extension is defined, so the kernel
 * refuses any chain: -EINVAL, -EFAULT or -E2BIG.
 */
static uint64_t fuzz_extensions(struct thr *t,
				struct drm_simgpu_user_extension *ext)
{
	unsigned int i, len;

	if (chance(t, 90))
		return 0;
	if (chance(t, 10))
		return bad_ptr(t);
	len = 1 + rn(t, FUZZ_MAX_EXTENSIONS);
	for (i = 0; i < len; i++) {
		ext[i].next_extension = i + 1 < len ?
			(uintptr_t)&ext[i + 1] : 0;
		ext[i].name = chance(t, 50) ? rn(t, 4) : fuzz_u32(t);
		ext[i].pad = fuzz_mbz(t);
	}
	if (chance(t, 30))
		ext[len - 1].next_extension = chance(t, 50) ?
			(uintptr_t)ext : bad_ptr(t);
	return (uintptr_t)ext;
}

static void valid_engine(struct thr *t, uint16_t *class, uint16_t *inst)
{
	const struct drm_simgpu_engine_info *e;

	e = &dev.engines[rn(t, dev.num_engines)];
	*class = e->engine_class;
	*inst = chance(t, 50) ? DRM_SIMGPU_ENGINE_INSTANCE_ANY :
		e->engine_instance;
}

static void op_queue_create(struct thr *t)
{
	struct drm_simgpu_user_extension ext[FUZZ_MAX_EXTENSIONS];
	struct drm_simgpu_exec_queue_create qc = {};
	struct fctx *c = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	bool vol;
	int fd = pick_fd(t, c, &vol);

	valid_engine(t, &qc.engine_class, &qc.engine_instance);
	switch (rn(t, 6)) {
	case 0:
		qc.engine_class = fuzz_u32(t);
		break;
	case 1:
		qc.engine_instance = fuzz_u32(t);
		break;
	case 2:
		qc.flags = fuzz_mbz(t);
		qc.pad = fuzz_mbz(t);
		break;
	}
	qc.extensions = fuzz_extensions(t, ext);
	if (!fz_ioctl(t, OP_QUEUE_CREATE, fd, vol,
		      DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc))
		keep(t, c, T_QUEUE, qc.exec_queue_id, 0, gen);
}

static void op_queue_destroy(struct thr *t)
{
	struct drm_simgpu_exec_queue_destroy qd = {};
	struct fctx *c = pick_ctx(t);
	struct item it;
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (chance(t, 70) && tbl_get(t, &c->tbl[T_QUEUE], &it, true))
		qd.exec_queue_id = it.a;
	else
		qd.exec_queue_id = chance(t, 50) ? rn(t, 64) : fuzz_u32(t);
	qd.pad = fuzz_mbz(t);
	fz_ioctl(t, OP_QUEUE_DESTROY, fd, vol,
		 DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &qd);
}

/* A buffer size: mostly small, around pages, sometimes any */
static uint64_t bo_size(struct thr *t)
{
	uint64_t size;

	switch (rn(t, 20)) {
	case 0: case 1: case 2:
		size = fuzz_u64(t);
		break;
	case 3: case 4: case 5:
		size = rn(t, 1 << 20) + 1;
		break;
	case 6:
		size = rn(t, FUZZ_BO_SIZE_MAX) + 1;
		break;
	default:
		size = (rn(t, 16) + 1) * PAGE + rn(t, 3) - 1;
	}
	return size;
}

static void op_gem_create(struct thr *t)
{
	struct drm_simgpu_gem_create gc = {};
	struct fctx *c = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	bool vol;
	int fd = pick_fd(t, c, &vol);

	gc.region = chance(t, 90) ? rn(t, DRM_SIMGPU_REGION_COUNT) :
		fuzz_u32(t);
	gc.size = bo_size(t);
	gc.flags = fuzz_mbz(t);
	gc.pad = fuzz_mbz(t);
	if (!fz_ioctl(t, OP_GEM_CREATE, fd, vol, DRM_IOCTL_SIMGPU_GEM_CREATE,
		      &gc)) {
		if (gc.size > FUZZ_BO_SIZE_MAX) {
			/* Too large to touch: see FUZZ_BO_SIZE_MAX */
			close_handle(t, c, T_BO, gc.handle);
			return;
		}
		keep(t, c, T_BO, gc.handle, (gc.size + PAGE - 1) & ~(PAGE - 1),
		     gen);
	}
}

static void op_gem_mmap_offset(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_simgpu_gem_mmap_offset mo = {
		.handle = pick_handle(t, c, T_BO),
		.flags = fuzz_mbz(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	fz_ioctl(t, OP_GEM_MMAP_OFFSET, fd, vol,
		 DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo);
}

static void op_gem_madvise(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_simgpu_gem_madvise ma = {
		.handle = pick_handle(t, c, T_BO),
		.madv = chance(t, 85) ? rn(t, 2) : fuzz_u32(t),
		.pad = fuzz_mbz(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (!fz_ioctl(t, OP_GEM_MADVISE, fd, vol,
		      DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma) && !ma.retained)
		__atomic_fetch_add(&st->purged, 1, __ATOMIC_RELAXED);
	/* Mostly needed again soon: jobs write buffers */
	if (ma.madv == DRM_SIMGPU_MADV_DONTNEED && chance(t, 70)) {
		ma.madv = DRM_SIMGPU_MADV_WILLNEED;
		ma.pad = 0;
		fz_ioctl(t, OP_GEM_MADVISE, fd, vol,
			 DRM_IOCTL_SIMGPU_GEM_MADVISE, &ma);
	}
}

static void op_wait_bo(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_simgpu_wait_bo w = {
		.handle = pick_handle(t, c, T_BO),
		.pad = fuzz_mbz(t),
		.timeout_ns = fuzz_timeout(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	fz_ioctl(t, OP_WAIT_BO, fd, vol, DRM_IOCTL_SIMGPU_WAIT_BO, &w);
}

/* A perfmon id: the ids of a file are small, so mostly one that may exist */
static uint32_t perfmon_id(struct thr *t)
{
	return chance(t, 90) ? rn(t, 8) : fuzz_u32(t);
}

/* A queue of the file, created now if it has none */
static uint32_t valid_queue(struct thr *t, struct fctx *c, int fd, bool vol)
{
	struct drm_simgpu_exec_queue_create qc = {};
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	struct item it;

	if (tbl_get(t, &c->tbl[T_QUEUE], &it, false))
		return it.a;
	valid_engine(t, &qc.engine_class, &qc.engine_instance);
	if (fz_ioctl(t, OP_QUEUE_CREATE, fd, vol,
		     DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qc))
		return 0;
	keep(t, c, T_QUEUE, qc.exec_queue_id, 0, gen);
	return qc.exec_queue_id;
}

/*
 * A sync of the file: a binary syncobj, or a point of a timeline one (the
 * job's fence becomes the point; a point not there yet cannot be waited
 * for: -EINVAL)
 */
static struct drm_simgpu_sync fuzz_sync(struct thr *t, struct fctx *c)
{
	struct drm_simgpu_sync sync = {
		.handle = pick_handle(t, c, T_SYNCOBJ),
	};

	if (chance(t, 40)) {
		sync.flags = DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ;
		sync.timeline_value = 1 + rn(t, 64);
	}
	return sync;
}

/*
 * A valid job: a queue, commands writing buffers of the file, short BUSY
 * and IDLE, buffers, in-syncs and out-syncs, binary and timeline; then,
 * half of the time, one field made invalid (or another valid value).
 */
static void op_submit(struct thr *t)
{
	struct drm_simgpu_user_extension ext[FUZZ_MAX_EXTENSIONS];
	struct drm_simgpu_sync syncs[3], out[2] = {};
	struct drm_simgpu_cmd cmds[8] = {};
	uint32_t bos[4];
	struct drm_simgpu_submit s = {};
	struct fctx *c = pick_ctx(t);
	unsigned int i, n = 1 + rn(t, ARRAY_SIZE(cmds));
	bool vol, mutated = false;
	struct item it;
	int fd, ret;

	fd = chance(t, 80) ? c->fd : pick_fd(t, c, &vol);
	vol = fd != ctx[0].fd;
	s.exec_queue_id = valid_queue(t, c, fd, vol);
	for (i = 0; i < n; i++) {
		struct drm_simgpu_cmd *cmd = &cmds[i];

		unsigned int kind = rn(t, 12);

		if (kind < 5 && tbl_get(t, &c->tbl[T_BO], &it, false)) {
			cmd->op = DRM_SIMGPU_CMD_WRITE;
			cmd->handle = it.a;
			cmd->offset = rn(t, it.size / 4) * 4;
			cmd->value = (uint32_t)rnd(t);
		} else if (kind == 10 && tbl_get(t, &c->tbl[T_BO], &it, false) &&
			   it.size >= 64) {
			cmd->op = DRM_SIMGPU_CMD_SAMPLE;
			cmd->handle = it.a;
			cmd->offset = rn(t, it.size / 64) * 64;
			cmd->value = (uint32_t)rnd(t);
		} else if (kind == 11 && tbl_get(t, &c->tbl[T_BO], &it, false) &&
			   it.size >= 8) {
			/* From the first half to the second, at most 4 KiB */
			uint64_t half = it.size / 2 / 4 * 4;
			uint32_t bytes = 4 + 4 * rn(t, (half < 4096 ? half : 4096) / 4);

			cmd->op = DRM_SIMGPU_CMD_COPY;
			cmd->handle = it.a;
			cmd->offset = half + rn(t, (half - bytes) / 4 + 1) * 4;
			cmd->src_offset = rn(t, (half - bytes) / 4 + 1) * 4;
			cmd->value = bytes;
		} else if (kind < 9 || kind >= 10) {
			cmd->op = DRM_SIMGPU_CMD_BUSY;
			cmd->value = rn(t, 50000);
		} else {
			cmd->op = DRM_SIMGPU_CMD_IDLE;
			cmd->value = rn(t, 20000);
		}
	}
	/* Rarely a hang: the job times out, the queue is banned */
	if (chance(t, 1) && rn(t, 4) == 0)
		cmds[rn(t, n)] = (struct drm_simgpu_cmd){
			.op = DRM_SIMGPU_CMD_HANG };
	s.num_cmds = n;
	s.cmds = (uintptr_t)cmds;
	for (i = 0; i < ARRAY_SIZE(bos); i++)
		bos[i] = pick_handle(t, c, T_BO);
	for (i = 0; i < ARRAY_SIZE(syncs); i++)
		syncs[i] = fuzz_sync(t, c);
	s.num_bo_handles = chance(t, 40) ? rn(t, ARRAY_SIZE(bos) + 1) : 0;
	s.bo_handles = (uintptr_t)bos;
	s.num_in_syncs = chance(t, 25) ? rn(t, ARRAY_SIZE(syncs) + 1) : 0;
	s.in_syncs = (uintptr_t)syncs;
	/* Out-syncs of the file's syncobjs, binary or a timeline point */
	for (i = 0; i < ARRAY_SIZE(out) && chance(t, 60) &&
	     tbl_get(t, &c->tbl[T_SYNCOBJ], &it, false); i++) {
		out[i] = fuzz_sync(t, c);
		out[i].handle = it.a;
	}
	s.num_out_syncs = i;
	s.out_syncs = (uintptr_t)out;
	/* A perfmon that may not exist: not a job that must be accepted */
	if (chance(t, 15)) {
		s.perfmon_id = perfmon_id(t);
		mutated = true;
	}

	if (chance(t, 50)) {
		struct drm_simgpu_cmd *cmd = &cmds[rn(t, n)];

		mutated = true;
		switch (rn(t, 23)) {
		case 0:
			s.exec_queue_id = fuzz_u32(t);
			break;
		case 16:
			s.out_syncs = bad_ptr(t);
			s.num_out_syncs = 1 + rn(t, 2);
			break;
		case 17:
			s.num_out_syncs = chance(t, 50) ? fuzz_u32(t) :
				DRM_SIMGPU_MAX_OUT_SYNCS + rn(t, 3) - 1;
			break;
		case 18: {
			/* A sync's type or point */
			struct drm_simgpu_sync *sync;

			if (chance(t, 50)) {
				sync = &syncs[rn(t, ARRAY_SIZE(syncs))];
				s.num_in_syncs = ARRAY_SIZE(syncs);
			} else {
				sync = &out[rn(t, ARRAY_SIZE(out))];
				s.num_out_syncs = ARRAY_SIZE(out);
			}
			if (chance(t, 50))
				sync->flags = fuzz_u32(t);
			else
				sync->timeline_value = fuzz_u64(t);
			break;
		}
		case 19:
			s.extensions = fuzz_extensions(t, ext) ?: bad_ptr(t);
			break;
		case 20:
			s.pad = fuzz_u32(t) ?: 1;
			break;
		case 21:
			/* Only a COPY has a source; past the buffer */
			cmd->src_offset = chance(t, 50) ? fuzz_u64(t) :
				cmd->src_offset + (1ULL << 32);
			break;
		case 1:
			s.num_cmds = chance(t, 50) ? fuzz_u32(t) :
				dev.max_cmds + rn(t, 3) - 1;
			break;
		case 2:
			s.cmds = bad_ptr(t);
			break;
		case 3:
			s.bo_handles = bad_ptr(t);
			s.num_bo_handles = 1 + rn(t, 4);
			break;
		case 4:
			s.in_syncs = bad_ptr(t);
			s.num_in_syncs = 1 + rn(t, 3);
			break;
		case 5:
			s.num_bo_handles = chance(t, 50) ? fuzz_u32(t) :
				DRM_SIMGPU_MAX_BO_HANDLES + rn(t, 3) - 1;
			break;
		case 6:
			s.num_in_syncs = chance(t, 50) ? fuzz_u32(t) :
				DRM_SIMGPU_MAX_IN_SYNCS + rn(t, 3) - 1;
			break;
		case 7:
			out[0] = fuzz_sync(t, c);
			out[0].handle = fuzz_u32(t);
			s.num_out_syncs = 1;
			break;
		case 8:
			s.flags = fuzz_u32(t) ?: 1;
			break;
		case 9:
			cmd->op = fuzz_u32(t);
			break;
		case 10:
			cmd->handle = fuzz_u32(t);
			break;
		case 11:
			cmd->offset = chance(t, 50) ? fuzz_u64(t) :
				cmd->offset + rn(t, 2 * PAGE) - PAGE;
			break;
		case 12:
			/* One second is the limit of BUSY and IDLE */
			cmd->value = chance(t, 50) ? fuzz_u64(t) :
				1000000000ULL + rn(t, 3) - 1;
			break;
		case 13:
			bos[rn(t, ARRAY_SIZE(bos))] = fuzz_u32(t);
			s.num_bo_handles = ARRAY_SIZE(bos);
			break;
		case 14:
			syncs[rn(t, ARRAY_SIZE(syncs))].handle = fuzz_u32(t);
			s.num_in_syncs = ARRAY_SIZE(syncs);
			break;
		default:
			/* The commands straddle into a PROT_NONE page */
			memcpy(edge_page + PAGE - sizeof(*cmd), cmd,
			       sizeof(*cmd));
			s.cmds = (uintptr_t)edge_page + PAGE - sizeof(*cmd);
			s.num_cmds = 1 + rn(t, 2);
			break;
		}
		/* Do not keep an engine busy for long */
		if ((cmd->op == DRM_SIMGPU_CMD_BUSY ||
		     cmd->op == DRM_SIMGPU_CMD_IDLE) &&
		    cmd->value > 1000000000ULL && chance(t, 50))
			cmd->value = 0;
	}
	ret = fz_ioctl(t, OP_SUBMIT, fd, vol, DRM_IOCTL_SIMGPU_SUBMIT, &s);
	if (!ret)
		__atomic_fetch_add(mutated ? &st->submit_mutated_ok :
				   &st->submit_built_ok, 1, __ATOMIC_RELAXED);
	/* A banned queue is done with */
	if (ret == -ECANCELED && !mutated) {
		struct drm_simgpu_exec_queue_destroy qd = {
			.exec_queue_id = s.exec_queue_id,
		};

		fz_ioctl(t, OP_QUEUE_DESTROY, fd, vol,
			 DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &qd);
	}
}

/* --- the DRM core's ------------------------------------------------------- */

static void op_version(struct thr *t)
{
	char name[64], date[64], desc[128];
	struct fctx *c = pick_ctx(t);
	struct drm_version v = {};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	v.name_len = chance(t, 70) ? sizeof(name) : fuzz_u32(t);
	v.date_len = chance(t, 70) ? sizeof(date) : fuzz_u32(t);
	v.desc_len = chance(t, 70) ? sizeof(desc) : fuzz_u32(t);
	/* The kernel writes at most the string: a large length is fine */
	v.name = (char *)(uintptr_t)fuzz_ptr(t, name, 10);
	v.date = (char *)(uintptr_t)fuzz_ptr(t, date, 10);
	v.desc = (char *)(uintptr_t)fuzz_ptr(t, desc, 10);
	if (chance(t, 10))
		v.name = NULL;
	fz_ioctl(t, OP_VERSION, fd, vol, DRM_IOCTL_VERSION, &v);
}

static void op_get_cap(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_get_cap gc = {
		.capability = chance(t, 70) ? rn(t, 0x20) : fuzz_u64(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	fz_ioctl(t, OP_GET_CAP, fd, vol, DRM_IOCTL_GET_CAP, &gc);
}

static void op_gem_close(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_gem_close gc = { .pad = fuzz_mbz(t) };
	struct item it;
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (chance(t, 70) && tbl_get(t, &c->tbl[T_BO], &it, true))
		gc.handle = it.a;
	else
		gc.handle = chance(t, 50) ? rn(t, 64) : fuzz_u32(t);
	fz_ioctl(t, OP_GEM_CLOSE, fd, vol, DRM_IOCTL_GEM_CLOSE, &gc);
}

static void op_prime_handle_to_fd(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	struct drm_prime_handle p = {
		.handle = pick_handle(t, c, T_BO),
		.flags = chance(t, 80) ? DRM_CLOEXEC | (rn(t, 2) ? DRM_RDWR : 0) :
			fuzz_u32(t),
		.fd = chance(t, 90) ? -1 : (int)fuzz_u32(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (!fz_ioctl(t, OP_PRIME_HANDLE_TO_FD, fd, vol,
		      DRM_IOCTL_PRIME_HANDLE_TO_FD, &p)) {
		if (!(p.flags & DRM_CLOEXEC))
			fcntl(p.fd, F_SETFD, FD_CLOEXEC);
		keep(t, c, T_DMABUF, p.fd, 0, gen);
	}
}

/* A descriptor to import: one of the fuzzer's (taken), or a wrong one */
static int import_fd(struct thr *t, struct fctx *c, int tbl, struct item *it,
		     bool *taken)
{
	static const int bad[] = { -1, 0x7fffffff, 0, 1, 2, INT32_MIN };

	*taken = chance(t, 80) && tbl_get(t, &c->tbl[tbl], it, true);
	if (*taken)
		return it->a;
	switch (rn(t, 3)) {
	case 0:
		return c->fd;
	case 1:
		return fuzz_u32(t);
	default:
		return bad[rn(t, ARRAY_SIZE(bad))];
	}
}

static void op_prime_fd_to_handle(struct thr *t)
{
	struct fctx *c = pick_ctx(t), *from = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	struct drm_prime_handle p = { .flags = fuzz_mbz(t) };
	struct item it;
	bool vol, taken;
	int fd = pick_fd(t, c, &vol);
	off_t size;

	p.fd = import_fd(t, from, T_DMABUF, &it, &taken);
	if (!fz_ioctl(t, OP_PRIME_FD_TO_HANDLE, fd, vol,
		      DRM_IOCTL_PRIME_FD_TO_HANDLE, &p) && taken) {
		size = lseek(p.fd, 0, SEEK_END);
		if (size > 0 && (uint64_t)size <= FUZZ_BO_SIZE_MAX)
			keep(t, c, T_BO, p.handle, size, gen);
	}
	if (taken)
		keep(t, from, T_DMABUF, it.a, 0, it.gen);
}

static void op_syncobj_create(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	struct drm_syncobj_create sc = {
		.flags = chance(t, 85) ? rn(t, 2) : fuzz_u32(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (!fz_ioctl(t, OP_SYNCOBJ_CREATE, fd, vol, DRM_IOCTL_SYNCOBJ_CREATE,
		      &sc))
		keep(t, c, T_SYNCOBJ, sc.handle, 0, gen);
}

static void op_syncobj_destroy(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_syncobj_destroy sd = { .pad = fuzz_mbz(t) };
	struct item it;
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (chance(t, 70) && tbl_get(t, &c->tbl[T_SYNCOBJ], &it, true))
		sd.handle = it.a;
	else
		sd.handle = chance(t, 50) ? rn(t, 64) : fuzz_u32(t);
	fz_ioctl(t, OP_SYNCOBJ_DESTROY, fd, vol, DRM_IOCTL_SYNCOBJ_DESTROY,
		 &sd);
}

static void op_syncobj_handle_to_fd(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	struct drm_syncobj_handle h = {
		.handle = pick_handle(t, c, T_SYNCOBJ),
		.flags = chance(t, 85) ? rn(t, 2) : fuzz_u32(t),
		.fd = chance(t, 90) ? -1 : (int)fuzz_u32(t),
		.pad = fuzz_mbz(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (!fz_ioctl(t, OP_SYNCOBJ_HANDLE_TO_FD, fd, vol,
		      DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h)) {
		fcntl(h.fd, F_SETFD, FD_CLOEXEC);
		keep(t, c, T_SYNCFD, h.fd, h.flags, gen);
	}
}

static void op_syncobj_fd_to_handle(struct thr *t)
{
	struct fctx *c = pick_ctx(t), *from = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	struct drm_syncobj_handle h = {
		.pad = fuzz_mbz(t),
	};
	struct item it;
	bool vol, taken;
	int fd = pick_fd(t, c, &vol);

	h.fd = import_fd(t, from, T_SYNCFD, &it, &taken);
	/* A sync file goes into an existing syncobj, a syncobj fd is one */
	if (chance(t, 85))
		h.flags = taken ? it.size & 1 : rn(t, 2);
	else
		h.flags = fuzz_u32(t);
	if (h.flags)
		h.handle = pick_handle(t, c, T_SYNCOBJ);
	else if (chance(t, 10))
		h.handle = fuzz_u32(t);
	if (!fz_ioctl(t, OP_SYNCOBJ_FD_TO_HANDLE, fd, vol,
		      DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &h) && !h.flags)
		keep(t, c, T_SYNCOBJ, h.handle, 0, gen);
	if (taken)
		keep(t, from, T_SYNCFD, it.a, it.size, it.gen);
}

/*
 * Handles of syncobjs, and how many: sometimes an absurd count. The @max
 * entries of @h hold up to @max - 1 handles and a 0 after them, which no
 * syncobj has: the kernel stops there whatever the count says, instead of
 * taking what follows @h on the stack for handles and, if they are valid,
 * writing as many points (QUERY) past the caller's array.
 */
static uint32_t syncobj_array(struct thr *t, struct fctx *c, uint32_t *h,
			      unsigned int max, __u64 *ptr)
{
	unsigned int i, n = 1 + rn(t, max - 1);
	uint32_t count;

	for (i = 0; i < n; i++)
		h[i] = pick_handle(t, c, T_SYNCOBJ);
	h[n] = 0;
	*ptr = fuzz_ptr(t, h, 10);
	if (no_syncobj_counts || chance(t, 85))
		return n;
	count = fuzz_u32(t);
	__atomic_fetch_add(&st->syncobj_counts, 1, __ATOMIC_RELAXED);
	return count;
}

static void op_syncobj_wait(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_syncobj_wait w = {};
	uint32_t h[5];
	bool vol;
	int fd = pick_fd(t, c, &vol);

	w.count_handles = syncobj_array(t, c, h, ARRAY_SIZE(h), &w.handles);
	w.flags = chance(t, 85) ? rn(t, 16) & ~DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE :
		fuzz_u32(t);
	w.timeout_nsec = fuzz_timeout(t);
	w.deadline_nsec = chance(t, 50) ? now_ns() : fuzz_u64(t);
	w.pad = fuzz_mbz(t);
	fz_ioctl(t, OP_SYNCOBJ_WAIT, fd, vol, DRM_IOCTL_SYNCOBJ_WAIT, &w);
}

static void op_syncobj_array(struct thr *t, enum fuzz_op op, unsigned long req)
{
	struct fctx *c = pick_ctx(t);
	struct drm_syncobj_array a = { .pad = fuzz_mbz(t) };
	uint32_t h[5];
	bool vol;
	int fd = pick_fd(t, c, &vol);

	a.count_handles = syncobj_array(t, c, h, ARRAY_SIZE(h), &a.handles);
	fz_ioctl(t, op, fd, vol, req, &a);
}

static void op_syncobj_reset(struct thr *t)
{
	op_syncobj_array(t, OP_SYNCOBJ_RESET, DRM_IOCTL_SYNCOBJ_RESET);
}

static void op_syncobj_signal(struct thr *t)
{
	op_syncobj_array(t, OP_SYNCOBJ_SIGNAL, DRM_IOCTL_SYNCOBJ_SIGNAL);
}

static void op_syncobj_timeline_wait(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_syncobj_timeline_wait w = {};
	uint64_t points[4];
	uint32_t h[5], i;
	bool vol;
	int fd = pick_fd(t, c, &vol);

	w.count_handles = syncobj_array(t, c, h, ARRAY_SIZE(h), &w.handles);
	for (i = 0; i < ARRAY_SIZE(points); i++)
		points[i] = fuzz_u64(t);
	w.points = fuzz_ptr(t, points, 10);
	w.flags = chance(t, 85) ? rn(t, 16) : fuzz_u32(t);
	/* WAIT_AVAILABLE of a point nobody signals waits until the timeout */
	w.timeout_nsec = fuzz_timeout(t);
	w.pad = fuzz_mbz(t);
	fz_ioctl(t, OP_SYNCOBJ_TIMELINE_WAIT, fd, vol,
		 DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &w);
}

static void op_syncobj_timeline_array(struct thr *t, enum fuzz_op op,
				      unsigned long req)
{
	struct fctx *c = pick_ctx(t);
	struct drm_syncobj_timeline_array a = {};
	uint64_t points[4], *edge;
	uint32_t h[5], i;
	bool vol;
	int fd = pick_fd(t, c, &vol);

	a.count_handles = syncobj_array(t, c, h, ARRAY_SIZE(h), &a.handles);
	for (i = 0; i < ARRAY_SIZE(points); i++)
		points[i] = fuzz_u64(t);
	/*
	 * QUERY writes a point for each syncobj it finds, and a bad pointer
	 * for the handles (bad_ptr()'s pages, which earlier outputs may have
	 * filled with valid handles) can give more than @h holds: the points
	 * are at the end of edge_page, so that a write past these four
	 * faults instead of overwriting the stack.
	 */
	edge = (uint64_t *)(edge_page + PAGE) - ARRAY_SIZE(points);
	memcpy(edge, points, sizeof(points));
	a.points = fuzz_ptr(t, edge, 10);
	a.flags = fuzz_mbz(t);
	fz_ioctl(t, op, fd, vol, req, &a);
}

static void op_syncobj_timeline_signal(struct thr *t)
{
	op_syncobj_timeline_array(t, OP_SYNCOBJ_TIMELINE_SIGNAL,
				  DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL);
}

static void op_syncobj_query(struct thr *t)
{
	op_syncobj_timeline_array(t, OP_SYNCOBJ_QUERY,
				  DRM_IOCTL_SYNCOBJ_QUERY);
}

static void op_syncobj_transfer(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_syncobj_transfer tr = {
		.src_handle = pick_handle(t, c, T_SYNCOBJ),
		.dst_handle = pick_handle(t, c, T_SYNCOBJ),
		.src_point = chance(t, 50) ? 0 : fuzz_u64(t),
		.dst_point = chance(t, 50) ? 0 : fuzz_u64(t),
		.flags = fuzz_mbz(t),
		.pad = fuzz_mbz(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	fz_ioctl(t, OP_SYNCOBJ_TRANSFER, fd, vol, DRM_IOCTL_SYNCOBJ_TRANSFER,
		 &tr);
}

static void op_syncobj_eventfd(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_syncobj_eventfd e = {
		.handle = pick_handle(t, c, T_SYNCOBJ),
		.flags = chance(t, 80) ? rn(t, 2) * 4 : fuzz_u32(t),
		.point = chance(t, 50) ? 0 : fuzz_u64(t),
		.pad = fuzz_mbz(t),
	};
	int efd = eventfd(0, EFD_CLOEXEC);
	bool vol;
	int fd = pick_fd(t, c, &vol);

	e.fd = chance(t, 85) ? efd : (int)fuzz_u32(t);
	fz_ioctl(t, OP_SYNCOBJ_EVENTFD, fd, vol, DRM_IOCTL_SYNCOBJ_EVENTFD,
		 &e);
	close(efd);
}

/* --- mmap ------------------------------------------------------------------ */

static void op_mmap(struct thr *t)
{
	static const int prots[] = { PROT_READ | PROT_WRITE, PROT_READ,
				     PROT_WRITE, PROT_NONE,
				     PROT_READ | PROT_EXEC };
	struct fctx *c = pick_ctx(t);
	uint32_t gen = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
	struct drm_simgpu_gem_mmap_offset mo = {};
	uint64_t len, size = 0, off;
	struct item it;
	bool vol;
	int fd = pick_fd(t, c, &vol), prot, flags, err;
	void *p;

	if (tbl_get(t, &c->tbl[T_BO], &it, false)) {
		mo.handle = it.a;
		size = it.size;
	} else {
		mo.handle = rn(t, 64);
	}
	if (fz_ioctl(t, OP_GEM_MMAP_OFFSET, fd, vol,
		     DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &mo))
		mo.offset = 0;
	off = mo.offset;
	len = size ?: PAGE;
	switch (rn(t, 8)) {
	case 0:
		off = fuzz_u64(t);
		break;
	case 1:
		off += rn(t, 3) * PAGE - PAGE + (chance(t, 50) ? 0 : 1);
		break;
	case 2:
		/* Page-size edges of the length, up to a page past the end */
		len = len - PAGE + rn(t, 2 * PAGE + 2);
		break;
	case 3:
		if (!lift_caps)
			len = 0;
		else
			len = fuzz_u64(t);
		break;
	}
	prot = chance(t, 70) ? PROT_READ | PROT_WRITE :
		prots[rn(t, ARRAY_SIZE(prots))];
	flags = chance(t, 90) ? MAP_SHARED : MAP_PRIVATE;
	begin(t, OP_MMAP);
	p = mmap(NULL, len, prot, flags, fd, off);
	err = p == MAP_FAILED ? errno : 0;
	account(t, OP_MMAP, err, vol);
	if (err)
		return;
	touch(t, p, len, prot);
	it = (struct item){ .a = (uintptr_t)p, .size = len, .gen = gen,
			    .prot = prot };
	keep_item(t, c, T_MAP, it);
}

static void op_munmap(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct item it;

	if (tbl_get(t, &c->tbl[T_MAP], &it, true)) {
		if (chance(t, 50))
			touch(t, (void *)(uintptr_t)it.a, it.size, it.prot);
		drop_item(t, c, T_MAP, it);
	}
}

/* --- perfmons --------------------------------------------------------------- */

/* Up to five counter ids, mostly valid and distinct */
static void op_perfmon_create(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	uint32_t ids[5];
	struct drm_simgpu_perfmon_create pc = {
		.counters = (uintptr_t)ids,
		.num_counters = chance(t, 80) ? 1 + rn(t, 4) : fuzz_u32(t),
	};
	unsigned int i;
	bool vol;
	int fd = pick_fd(t, c, &vol);

	for (i = 0; i < ARRAY_SIZE(ids); i++)
		ids[i] = chance(t, 95) ? (i + rn(t, 2)) % 8 : fuzz_u32(t);
	if (chance(t, 5))
		pc.counters = bad_ptr(t);
	pc.flags = fuzz_mbz(t);
	pc.pad = fuzz_mbz(t);
	pc.id = fuzz_u32(t);	/* out: ignored */
	fz_ioctl(t, OP_PERFMON_CREATE, fd, vol,
		 DRM_IOCTL_SIMGPU_PERFMON_CREATE, &pc);
}

static void op_perfmon_destroy(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_simgpu_perfmon_destroy pd = {
		.id = perfmon_id(t),
		.pad = fuzz_mbz(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	fz_ioctl(t, OP_PERFMON_DESTROY, fd, vol,
		 DRM_IOCTL_SIMGPU_PERFMON_DESTROY, &pd);
}

static void op_perfmon_get_values(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	uint64_t values[8];
	struct drm_simgpu_perfmon_get_values gv = {
		.id = perfmon_id(t),
		.flags = chance(t, 50) ? DRM_SIMGPU_PERFMON_WAIT : fuzz_mbz(t),
		.values = chance(t, 95) ? (uintptr_t)values : bad_ptr(t),
		.num_values = chance(t, 90) ? 1 + rn(t, 4) : fuzz_u32(t),
		.pad = fuzz_mbz(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (gv.flags & DRM_SIMGPU_PERFMON_WAIT || chance(t, 10))
		gv.timeout_ns = fuzz_timeout(t);
	fz_ioctl(t, OP_PERFMON_GET_VALUES, fd, vol,
		 DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES, &gv);
}

static void op_perfmon_set_global(struct thr *t)
{
	struct fctx *c = pick_ctx(t);
	struct drm_simgpu_perfmon_set_global sg = {
		.flags = chance(t, 50) ? DRM_SIMGPU_PERFMON_CLEAR_GLOBAL :
					 fuzz_mbz(t),
	};
	bool vol;
	int fd = pick_fd(t, c, &vol);

	if (!(sg.flags & DRM_SIMGPU_PERFMON_CLEAR_GLOBAL) || chance(t, 10))
		sg.id = perfmon_id(t);
	fz_ioctl(t, OP_PERFMON_SET_GLOBAL, fd, vol,
		 DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL, &sg);
}

/* --- observation streams ------------------------------------------------------ */

/* A property: mostly a valid one with a plausible value */
static void fuzz_property(struct thr *t, struct fctx *c,
			  struct drm_simgpu_observation_set_property *p)
{
	p->base.name = chance(t, 95) ? DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY :
				       fuzz_u32(t);
	p->base.pad = fuzz_mbz(t);
	p->property = chance(t, 95) ?
		1 + rn(t, DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS) :
		fuzz_u32(t);
	p->pad = fuzz_mbz(t);
	switch (p->property) {
	case DRM_SIMGPU_OBSERVATION_PROP_COUNTER:
		p->value = rn(t, 9);
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT:
		p->value = 6 + rn(t, 28);
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID:
		p->value = pick_handle(t, c, T_QUEUE);
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_ENGINE:
		p->value = rn(t, 6) | (uint64_t)rn(t, 9) << 16;
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE:
		p->value = 1ULL << (11 + rn(t, 11));
		break;
	case DRM_SIMGPU_OBSERVATION_PROP_DISABLED:
		p->value = rn(t, 2);
		break;
	default:
		p->value = rn(t, 600);
		break;
	}
	if (chance(t, 5))
		p->value = fuzz_u64(t);
}

/* A few calls on an open stream, then close it */
static void fuzz_stream(struct thr *t, int sfd)
{
	static const unsigned long cmds[] = {
		DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE,
		DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE,
		DRM_SIMGPU_OBSERVATION_IOCTL_STATUS,
		DRM_SIMGPU_OBSERVATION_IOCTL_INFO,
	};
	uint8_t buf[2048];
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };
	unsigned int i, n = 1 + rn(t, 8);
	ssize_t len;
	int err;

	/* Never block on a stream of a long period */
	fcntl(sfd, F_SETFL, O_NONBLOCK);
	for (i = 0; i < n; i++) {
		switch (rn(t, 4)) {
		case 0:
			begin(t, OP_OBSERVATION_STREAM);
			len = read(sfd, chance(t, 95) ? (void *)buf :
				   (void *)(uintptr_t)bad_ptr(t),
				   chance(t, 80) ? sizeof(buf) : rn(t, 80));
			err = len < 0 ? errno : 0;
			account(t, OP_OBSERVATION_STREAM, err, false);
			break;
		case 1:
			begin(t, OP_OBSERVATION_STREAM);
			err = poll(&pfd, 1, 0) < 0 ? errno : 0;
			account(t, OP_OBSERVATION_STREAM, err, false);
			break;
		default:
			fz_ioctl(t, OP_OBSERVATION_STREAM, sfd, false,
				 chance(t, 90) ? cmds[rn(t, ARRAY_SIZE(cmds))] :
				 _IOC(rn(t, 4), 's', rn(t, 0x80), rn(t, 64)),
				 chance(t, 95) ? (void *)buf :
				 (void *)(uintptr_t)bad_ptr(t));
			break;
		}
	}
	close(sfd);
}

static void op_observation_open(struct thr *t)
{
	struct drm_simgpu_observation_set_property p[FUZZ_MAX_EXTENSIONS];
	struct drm_simgpu_observation_open o = {};
	struct fctx *c = pick_ctx(t);
	unsigned int i, n = rn(t, 6);
	bool vol;
	int fd = pick_fd(t, c, &vol), ret;

	memset(p, 0, sizeof(p));
	for (i = 0; i < n; i++) {
		fuzz_property(t, c, &p[i]);
		p[i].base.next_extension = i + 1 < n ? (uintptr_t)&p[i + 1] : 0;
	}
	if (n && chance(t, 5))
		p[n - 1].base.next_extension = chance(t, 50) ?
			(uintptr_t)p : bad_ptr(t);
	o.extensions = n ? (uintptr_t)p : chance(t, 5) ? bad_ptr(t) : 0;
	o.flags = chance(t, 50) ? DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK :
				  fuzz_mbz(t);
	o.pad = chance(t, 90) ? 0 : fuzz_mbz(t);
	ret = fz_ioctl(t, OP_OBSERVATION_OPEN, fd, vol,
		       DRM_IOCTL_SIMGPU_OBSERVATION_OPEN, &o);
	if (ret >= 0)
		fuzz_stream(t, ret);
}

/* --- raw ioctl numbers ------------------------------------------------------ */

static void op_raw(struct thr *t)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	uint64_t buf[32];
	struct fctx *c = pick_ctx(t);
	unsigned int nr = DRM_COMMAND_BASE + rn(t, 16), size;
	int fill = chance(t, 50) ? 0 : 0xff;
	unsigned long req;
	bool vol;
	int fd = pick_fd(t, c, &vol);

	/*
	 * Only 0x00 or 0xff bytes, and GEM_CREATE sees a whole size, 0 or
	 * ~0, both rejected: a random size could be accepted and populated.
	 */
	memset(buf, fill, sizeof(buf));
	size = chance(t, 50) ? rn(t, 64) : rn(t, sizeof(buf) + 1);
	if (nr == DRM_COMMAND_BASE + DRM_SIMGPU_GEM_CREATE && fill &&
	    size && size < sizeof(uint64_t))
		size = sizeof(uint64_t);
	/*
	 * Zeros open an observation stream, whose fd, not copied back, would
	 * stay open: op_observation_open() has that ioctl
	 */
	if (nr == DRM_COMMAND_BASE + DRM_SIMGPU_OBSERVATION_OPEN)
		nr = DRM_COMMAND_BASE + DRM_SIMGPU_QUERY;
	req = _IOC(dirs[rn(t, 4)], DRM_IOCTL_BASE, nr, size);
	/* Not bad_ptr(): the page before its PROT_NONE one has data */
	fz_ioctl(t, OP_RAW, fd, vol, req, chance(t, 20) ?
		 (void *)(uintptr_t)(chance(t, 50) ? 8 : ~0ULL) : buf);
}

static void (* const op_fn[NUM_OPS])(struct thr *t) = {
	[OP_QUERY] = op_query,
	[OP_QUEUE_CREATE] = op_queue_create,
	[OP_QUEUE_DESTROY] = op_queue_destroy,
	[OP_GEM_CREATE] = op_gem_create,
	[OP_GEM_MMAP_OFFSET] = op_gem_mmap_offset,
	[OP_GEM_MADVISE] = op_gem_madvise,
	[OP_SUBMIT] = op_submit,
	[OP_WAIT_BO] = op_wait_bo,
	[OP_VERSION] = op_version,
	[OP_GET_CAP] = op_get_cap,
	[OP_GEM_CLOSE] = op_gem_close,
	[OP_PRIME_HANDLE_TO_FD] = op_prime_handle_to_fd,
	[OP_PRIME_FD_TO_HANDLE] = op_prime_fd_to_handle,
	[OP_SYNCOBJ_CREATE] = op_syncobj_create,
	[OP_SYNCOBJ_DESTROY] = op_syncobj_destroy,
	[OP_SYNCOBJ_HANDLE_TO_FD] = op_syncobj_handle_to_fd,
	[OP_SYNCOBJ_FD_TO_HANDLE] = op_syncobj_fd_to_handle,
	[OP_SYNCOBJ_WAIT] = op_syncobj_wait,
	[OP_SYNCOBJ_RESET] = op_syncobj_reset,
	[OP_SYNCOBJ_SIGNAL] = op_syncobj_signal,
	[OP_SYNCOBJ_TIMELINE_WAIT] = op_syncobj_timeline_wait,
	[OP_SYNCOBJ_TIMELINE_SIGNAL] = op_syncobj_timeline_signal,
	[OP_SYNCOBJ_QUERY] = op_syncobj_query,
	[OP_SYNCOBJ_TRANSFER] = op_syncobj_transfer,
	[OP_SYNCOBJ_EVENTFD] = op_syncobj_eventfd,
	[OP_PERFMON_CREATE] = op_perfmon_create,
	[OP_PERFMON_DESTROY] = op_perfmon_destroy,
	[OP_PERFMON_GET_VALUES] = op_perfmon_get_values,
	[OP_PERFMON_SET_GLOBAL] = op_perfmon_set_global,
	[OP_OBSERVATION_OPEN] = op_observation_open,
	[OP_MMAP] = op_mmap,
	[OP_MUNMAP] = op_munmap,
	[OP_RAW] = op_raw,
};

/* --- threads ---------------------------------------------------------------- */

static void *worker(void *arg)
{
	struct thr *t = arg;
	unsigned int total = 0, i, w;

	for (i = 0; i < NUM_OPS; i++)
		total += op_desc[i].weight;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		w = rn(t, total);
		for (i = 0; w >= op_desc[i].weight; i++)
			w -= op_desc[i].weight;
		op_fn[i](t);
		/* Mappings are released too, not only replaced */
		if (chance(t, 3))
			op_munmap(t);
	}
	return NULL;
}

/* Empty a table, releasing what it holds */
static void drain(struct thr *t, struct fctx *c, int tbl, bool handles)
{
	struct item it;

	while (tbl_get(t, &c->tbl[tbl], &it, true))
		if (tbl >= T_DMABUF || handles)
			drop_item(t, c, tbl, it);
}

static int reopen(void)
{
	int fd = open_simgpu();

	if (fd < 0) {
		report("cannot open the device again: %s\n", strerror(-fd));
		exit(KSFT_FAIL);
	}
	return fd;
}

/*
 * Closes the dup()s of the main file while the workers use them, and the
 * second file with everything in it.
 */
static void *closer(void *arg)
{
	struct thr *t = arg;
	struct fctx *b = &ctx[1];
	unsigned int n = 0;
	int fd, old, i;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		usleep(rn(t, 2000));
		i = rn(t, NALIAS);
		if (chance(t, 80))
			fd = dup(ctx[0].fd);
		else
			fd = reopen();
		old = __atomic_exchange_n(&ctx[0].alias[i], fd,
					  __ATOMIC_RELAXED);
		close(old);
		if (++n % 32)
			continue;
		/* Purge DONTNEED buffers while they are used */
		if (drop_caches >= 0 && !(n % 128) &&
		    pwrite(drop_caches, "2", 1, 0) != 1)
			report("drop_caches: %s\n", strerror(errno));
		/* The second file, with its objects, from scratch */
		fd = reopen();
		old = __atomic_exchange_n(&b->fd, fd, __ATOMIC_RELAXED);
		__atomic_fetch_add(&b->gen, 1, __ATOMIC_RELEASE);
		for (i = 0; i < NUM_TABLES; i++)
			drain(t, b, i, false);
		close(old);
	}
	return NULL;
}

static void setup_ctx(struct thr *t, struct fctx *c, int fd)
{
	unsigned int i;

	c->fd = fd;
	for (i = 0; i < NALIAS; i++)
		c->alias[i] = dup(fd);
	for (i = 0; i < NUM_TABLES; i++)
		pthread_mutex_init(&c->tbl[i].lock, NULL);
}

/* Run the workers and the closer for the given time */
static void run_threads(unsigned int n, unsigned int first_id)
{
	struct thr thr[MAX_THREADS + 1];
	unsigned int i;

	for (i = 0; i <= n; i++) {
		thr[i].id = first_id + i;
		thr[i].rng = seed ^ (0x1000193ULL * (first_id + i + 1));
		splitmix(&thr[i].rng);
		st->thr[thr[i].id].pid = getpid();
		st->thr[thr[i].id].op = -1;
		if (pthread_create(&thr[i].pt, NULL, i ? worker : closer,
				   &thr[i]))
			ksft_exit_fail_msg("pthread_create\n");
	}
	for (i = 0; i <= n; i++)
		pthread_join(thr[i].pt, NULL);
}

/* --- the parent's watch and the end ------------------------------------------ */

static pid_t child;

static void check_stall(void)
{
	static uint64_t last, since;
	uint64_t p = __atomic_load_n(&st->progress, __ATOMIC_RELAXED);
	uint64_t now = now_ns();
	unsigned int i;

	if (p != last || !since) {
		last = p;
		since = now;
		return;
	}
	if (now - since < FUZZ_STALL_SECONDS * 1000000000ULL)
		return;
	printf("# HANG: no call returned for %d s (seed %llu)\n",
	       FUZZ_STALL_SECONDS, (unsigned long long)seed);
	for (i = 0; i < ARRAY_SIZE(st->thr); i++)
		if (st->thr[i].pid && st->thr[i].op >= 0)
			printf("#   pid %d thread %u in %s for %llu ms\n",
			       st->thr[i].pid, i, op_desc[st->thr[i].op].name,
			       (unsigned long long)(now - st->thr[i].since) /
			       1000000);
	fflush(stdout);
	if (child > 0)
		kill(child, SIGKILL);
	ksft_exit_fail_msg("hang\n");
}

static unsigned int threads_done;

struct run_arg {
	unsigned int n, first_id;
};

static void *run(void *arg)
{
	struct run_arg *r = arg;

	run_threads(r->n, r->first_id);
	__atomic_store_n(&threads_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The workers for the given time */
static pthread_t start(struct run_arg *r)
{
	pthread_t pt;

	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	if (pthread_create(&pt, NULL, run, r)) {
		report("pthread_create failed\n");
		exit(KSFT_FAIL);
	}
	return pt;
}

/*
 * The second process: more workers on the same file, and its own dup()s
 * and second file. Descriptors and mappings it created are its own.
 */
static void child_main(void)
{
	struct run_arg r = { nthreads > 1 ? nthreads - 1 : 1, MAX_THREADS };
	struct thr t = { .id = 2 * MAX_THREADS + 3, .rng = seed };
	uint64_t end = now_ns() + seconds * 1000000000ULL;
	pthread_t pt;
	int i;

	if (drop_caches >= 0)
		close(drop_caches);
	drop_caches = -1;
	close(ctx[1].fd);
	ctx[1].fd = reopen();
	ctx[1].gen++;
	for (i = 0; i < NUM_TABLES; i++)
		drain(&t, &ctx[1], i, false);
	pt = start(&r);
	while (now_ns() < end)
		usleep(100000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(pt, NULL);
	for (i = 0; i < NUM_TABLES; i++) {
		drain(&t, &ctx[0], i, false);
		drain(&t, &ctx[1], i, false);
	}
	fflush(stdout);
	_exit(0);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

/* The sum of the drm-total-<region> memory keys of a file's fdinfo, or -1 */
static int64_t fdinfo_total(int fd)
{
	char path[64], line[256];
	long long sum = 0, v;
	char unit[8];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, "drm-total-", 10) ||
		    !strncmp(line, "drm-total-cycles-", 17))
			continue;
		p = strchr(line, ':');
		unit[0] = '\0';
		if (p && sscanf(p + 1, "%lld %7s", &v, unit) >= 1)
			sum += v << (!strcmp(unit, "KiB") ? 10 :
				     !strcmp(unit, "MiB") ? 20 : 0);
	}
	fclose(f);
	return sum;
}

/* Close what is left, then every handle the file may still have */
static unsigned int teardown(struct thr *t)
{
	struct drm_gem_close gc = {};
	struct drm_syncobj_destroy sd = {};
	struct drm_simgpu_exec_queue_destroy qd = {};
	struct drm_simgpu_wait_bo w = {};
	unsigned int i, j, swept = 0;
	uint32_t h;
	int fd = ctx[0].fd;

	for (i = 0; i < NCTX; i++) {
		for (j = 0; j < NUM_TABLES; j++)
			drain(t, &ctx[i], j, i == 0);
		for (j = 0; j < NALIAS; j++)
			close(ctx[i].alias[j]);
	}
	close(ctx[1].fd);

	/* Objects of the child, of raw calls, of imports: all of them */
	for (h = 1; h <= st->max_handle + 64; h++) {
		w.handle = h;
		w.timeout_ns = now_ns() + 5000000000LL;
		sg_ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w);
		gc.handle = h;
		swept += !sg_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
		sd.handle = h;
		swept += !sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &sd);
	}
	for (h = 1; h <= st->max_queue + 64; h++) {
		qd.exec_queue_id = h;
		swept += !sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY,
				   &qd);
	}
	return swept;
}

static void print_coverage(void)
{
	unsigned int i, e;
	char hist[512];
	int len;

	ksft_print_msg("%-26s %9s %9s  errno histogram\n", "call", "calls",
		       "ok");
	for (i = 0; i < NUM_OPS; i++) {
		len = 0;
		hist[0] = '\0';
		for (e = 1; e < NERR; e++)
			if (st->err[i][e] && len < (int)sizeof(hist) - 32)
				len += snprintf(hist + len, sizeof(hist) - len,
						" %s:%llu",
						strerrorname_np(e) ?: "?",
						(unsigned long long)st->err[i][e]);
		ksft_print_msg("%-26s %9llu %9llu %s%s\n", op_desc[i].name,
			       (unsigned long long)st->calls[i],
			       (unsigned long long)st->ok[i],
			       !st->ok[i] && st->calls[i] ? "NEVER OK " : "",
			       hist);
	}
	ksft_print_msg("jobs: %llu built, %llu mutated; %llu purged, %llu SIGBUS\n",
		       (unsigned long long)st->submit_built_ok,
		       (unsigned long long)st->submit_mutated_ok,
		       (unsigned long long)st->purged,
		       (unsigned long long)st->sigbus);
}

static void help_exit(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--seed N|random] [--seconds S] [--threads T] [--lift-caps]\n"
		"          [--no-syncobj-counts REASON]\n"
		"  FUZZ_SEED, FUZZ_SECONDS and FUZZ_NO_SYNCOBJ_COUNTS in the environment as well\n",
		prog);
	exit(KSFT_FAIL);
}

static uint64_t parse_seed(const char *s)
{
	if (!strcmp(s, "random"))
		return now_ns() ^ ((uint64_t)getpid() << 32);
	return strtoull(s, NULL, 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "lift-caps", no_argument, NULL, 'L' },
		{ "no-syncobj-counts", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct drm_simgpu_query_config config;
	struct {
		struct drm_simgpu_query_engines e;
		struct drm_simgpu_engine_info info[64];
	} engines;
	struct {
		struct drm_simgpu_query_regions r;
		struct drm_simgpu_region_info info[4];
	} regions;
	struct drm_simgpu_query q = {};
	struct sigaction sa = { .sa_handler = sigbus_handler };
	unsigned int i, failed_cov = 0, swept;
	uint64_t calls = 0, unexpected = 0, end;
	struct thr main_thr = { .id = 2 * MAX_THREADS + 2 };
	struct run_arg run_arg = { nthreads, 0 };
	pthread_t parent;
	int fd, fds_before, status = 0, opt;
	int64_t left;
	bool child_ok;

	seed = 1;
	if (getenv("FUZZ_SEED"))
		seed = parse_seed(getenv("FUZZ_SEED"));
	if (getenv("FUZZ_SECONDS"))
		seconds = strtoul(getenv("FUZZ_SECONDS"), NULL, 0);
	no_syncobj_counts = getenv("FUZZ_NO_SYNCOBJ_COUNTS");
	while ((opt = getopt_long(argc, argv, "s:S:t:LC:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			seed = parse_seed(optarg);
			break;
		case 'S':
			seconds = strtoul(optarg, NULL, 0);
			break;
		case 't':
			nthreads = strtoul(optarg, NULL, 0);
			if (!nthreads || nthreads > MAX_THREADS)
				help_exit(argv[0]);
			break;
		case 'L':
			lift_caps = true;
			break;
		case 'C':
			no_syncobj_counts = optarg;
			break;
		default:
			help_exit(argv[0]);
		}
	}

	ksft_print_header();
	fd = open_simgpu();
	if (fd < 0)
		ksft_exit_skip(SIMGPU_NO_DEVICE "\n");
	ksft_set_plan(6);
	ksft_print_msg("%u threads and a child: simgpu_fuzz_test --seed %llu --seconds %u%s",
		       nthreads, (unsigned long long)seed, seconds,
		       lift_caps ? " --lift-caps" : "");
	if (no_syncobj_counts)
		printf(" --no-syncobj-counts '%s'", no_syncobj_counts);
	printf("\n");

	q.type = DRM_SIMGPU_QUERY_CONFIG;
	q.size = sizeof(config);
	q.data = (uintptr_t)&config;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q))
		ksft_exit_fail_msg("QUERY_CONFIG\n");
	dev.max_cmds = config.max_cmds;
	q.type = DRM_SIMGPU_QUERY_ENGINES;
	q.size = sizeof(engines);
	q.data = (uintptr_t)&engines;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q) || !engines.e.num_engines)
		ksft_exit_fail_msg("QUERY_ENGINES\n");
	dev.num_engines = engines.e.num_engines;
	memcpy(dev.engines, engines.info, sizeof(dev.engines));
	q.type = DRM_SIMGPU_QUERY_REGIONS;
	q.size = sizeof(regions);
	q.data = (uintptr_t)&regions;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q))
		ksft_exit_fail_msg("QUERY_REGIONS\n");
	dev.vram_size = regions.info[DRM_SIMGPU_REGION_VRAM0].total_size;

	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	edge_page = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED || edge_page == MAP_FAILED)
		ksft_exit_fail_msg("mmap\n");
	mprotect(edge_page + PAGE, PAGE, PROT_NONE);
	ro_page = edge_page + 2 * PAGE;
	mprotect(ro_page, PAGE, PROT_READ);
	sigaction(SIGBUS, &sa, NULL);

	/* With the device's fd, which is closed at the end */
	fds_before = count_fds() - 1;
	drop_caches = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	setup_ctx(&main_thr, &ctx[0], fd);
	setup_ctx(&main_thr, &ctx[1], reopen());
	main_thr.rng = seed;
	/* Something to start with, which the child shares */
	for (i = 0; i < 4; i++) {
		op_queue_create(&main_thr);
		op_gem_create(&main_thr);
		op_syncobj_create(&main_thr);
	}

	fflush(stdout);
	child = fork();
	if (child < 0)
		ksft_exit_fail_msg("fork\n");
	if (!child)
		child_main();
	parent = start(&run_arg);

	end = now_ns() + seconds * 1000000000ULL;
	while (now_ns() < end) {
		usleep(100000);
		check_stall();
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	/* The threads finish their calls, the child exits */
	while (child) {
		if (waitpid(child, &status, WNOHANG) == child)
			child = 0;
		else
			usleep(100000);
		check_stall();
	}
	while (!__atomic_load_n(&threads_done, __ATOMIC_ACQUIRE)) {
		usleep(100000);
		check_stall();
	}
	child_ok = WIFEXITED(status) && !WEXITSTATUS(status);
	pthread_join(parent, NULL);

	swept = teardown(&main_thr);
	left = fdinfo_total(fd);
	close(fd);
	if (drop_caches >= 0)
		close(drop_caches);

	print_coverage();
	for (i = 0; i < NUM_OPS; i++) {
		calls += st->calls[i];
		unexpected += st->unexpected[i];
	}
	ksft_print_msg("%llu calls in %u s; %u leftover handles closed at the end\n",
		       (unsigned long long)calls, seconds, swept);

	ksft_test_result(!unexpected, "no undocumented errno (%llu)\n",
			 (unsigned long long)unexpected);
	if (calls < FUZZ_MIN_CALLS) {
		ksft_test_result_skip("every simgpu ioctl succeeded: only %llu calls, %u needed\n",
				      (unsigned long long)calls,
				      FUZZ_MIN_CALLS);
	} else {
		for (i = 0; i < NUM_SIMGPU_OPS; i++)
			if (!st->ok[i]) {
				ksft_print_msg("%s never succeeded\n",
					       op_desc[i].name);
				failed_cov++;
			}
		ksft_test_result(!failed_cov,
				 "every simgpu ioctl succeeded\n");
	}
	if (!child_ok)
		ksft_print_msg("child: %s %d\n",
			       WIFSIGNALED(status) ? "signal" : "exit status",
			       WIFSIGNALED(status) ? WTERMSIG(status) :
			       WEXITSTATUS(status));
	ksft_test_result(child_ok, "child process\n");
	ksft_test_result(left == 0, "nothing left in the file (fdinfo: %lld bytes)\n",
			 (long long)left);
	ksft_test_result(count_fds() == fds_before,
			 "no descriptor leaked (%d, %d before)\n",
			 count_fds(), fds_before);
	if (no_syncobj_counts)
		ksft_test_result_skip("syncobj arrays of counts they do not have: %s\n",
				      no_syncobj_counts);
	else
		ksft_test_result(st->syncobj_counts,
				 "syncobj arrays of counts they do not have (%llu)\n",
				 (unsigned long long)st->syncobj_counts);
	ksft_finished();
}
