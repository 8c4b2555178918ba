// SPDX-License-Identifier: GPL-2.0-only
/*
 * Discovery of DRM clients through /proc/PID/fd and fdinfo
 *
 * A file descriptor is a DRM client when stat() through /proc/PID/fd/N
 * (which follows the kernel's magic link to the open file, whatever mount
 * namespace the process lives in) gives a character device with major 226.
 * /dev/dri is never opened.
 *
 * For test trees given with --proc-root, fd entries are plain symlinks. When
 * stat() of such a link fails with ENOENT and the link text starts with
 * "/dev/dri/", the entry is treated as a DRM fd of that node (the minor is
 * taken from the name). On a real /proc, stat() only fails like that for an
 * fd that was just closed, in which case reading its fdinfo fails as well, so
 * this fallback does not change real-system behaviour. Either way, a file
 * only counts once its fdinfo carries a drm-driver key.
 *
 * Clients are deduplicated on (drm-driver, drm-pdev, drm-client-id) across
 * all fds and processes. A refresh only re-reads one fdinfo per known client
 * and scans processes that appeared since the previous refresh, and a share
 * of a sweep over every fd of every process that ends every full_every
 * refreshes or full_ns nanoseconds: a full discovery at once (the first
 * refresh) would cost several times a refresh. An fdinfo text equal to the
 * client's previous one is not parsed again.
 *
 * The fdinfo file read for each client stays open, so that a refresh costs
 * one pread() per client rather than an open(), a read() and a close(): a
 * procfs fdinfo file shows the fd's state at the time of each read, and
 * fails with ENOENT once the fd is closed or its process is gone. An fd
 * reused for another file shows that file, which the dedup key catches as
 * before. In a tree that is not procfs, a file replaced since it was opened
 * (no links left) is opened again by path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "scan.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define POISON(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)	((void)(p), (void)(n))
#define UNPOISON(p, n)	((void)(p), (void)(n))
#endif

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Room for n + 1 elements of *arr. The first allocation has four: most
 * arrays are a client's (its fds, its engines), and hold a few.
 */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static bool pid_in(const pid_t *arr, size_t n, pid_t pid)
{
	if (!n)
		return false;
	return !!bsearch(&pid, arr, n, sizeof(*arr), cmp_pid);
}

/*
 * Whether a pid of the sorted old[nold] is missing from the sorted
 * cur[ncur]: one walk through both.
 */
static bool pids_gone(const pid_t *old, size_t nold, const pid_t *cur,
		      size_t ncur)
{
	size_t i, j = 0;

	for (i = 0; i < nold; i++) {
		while (j < ncur && cur[j] < old[i])
			j++;
		if (j == ncur || cur[j] != old[i])
			return true;
	}
	return false;
}

bool drm_node_to_rdev(const char *name, dev_t *rdev)
{
	static const char *const pfx[] = { "renderD", "controlD", "card" };
	unsigned int i, minor;
	char *end;

	for (i = 0; i < ARRAY_SIZE(pfx); i++) {
		size_t l = strlen(pfx[i]);

		if (strncmp(name, pfx[i], l))
			continue;
		errno = 0;
		minor = strtoul(name + l, &end, 10);
		if (errno || end == name + l || *end)
			return false;
		*rdev = makedev(DRM_MAJOR, minor);
		return true;
	}
	return false;
}

/* ---- client table ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/*
 * Fill the hash anew, resized for s->clients. Without memory for a new
 * size, a table that is large enough is filled as it is: with clients
 * dropped, keeping theirs would leave it pointing at freed slots.
 */
static int hash_rebuild(struct drm_scan *s)
{
	struct drm_client **h = NULL;
	size_t size = 64, i;

	while (size < s->nclients * 2 + 1)
		size *= 2;
	if (size != s->hash_size)
		h = calloc(size, sizeof(*h));
	if (h) {
		free(s->hash);
		s->hash = h;
		s->hash_size = size;
	} else if (s->hash_size >= size) {
		size = s->hash_size;
		memset(s->hash, 0, size * sizeof(*s->hash));
	} else {
		return -ENOMEM;
	}
	for (i = 0; i < s->nclients; i++) {
		size_t j = hash_str(s->clients[i]->key) & (size - 1);

		while (s->hash[j])
			j = (j + 1) & (size - 1);
		s->hash[j] = s->clients[i];
	}
	return 0;
}

static struct drm_client *client_lookup(struct drm_scan *s, const char *key)
{
	size_t j;

	if (!s->hash_size)
		return NULL;
	j = hash_str(key) & (s->hash_size - 1);
	while (s->hash[j]) {
		if (!strcmp(s->hash[j]->key, key))
			return s->hash[j];
		j = (j + 1) & (s->hash_size - 1);
	}
	return NULL;
}

static void fdref_release(struct drm_scan *s, struct drm_fdref *r)
{
	if (r->info_fd >= 0) {
		close(r->info_fd);
		r->info_fd = -1;
		s->nheld--;
	}
	free(r->comm);
	r->comm = NULL;
}

/*
 * A refresh and each view walk every client. Allocated one by one, a
 * client's struct lands among its own arrays and text, a page or more
 * from the next client's: under emulation (qemu TCG) each walk then pays
 * a TLB refill per client. Clients come from blocks instead, where a
 * page holds nine of them, and a freed slot is handed out again. ASan
 * builds keep the slots not in use poisoned: a client used after it was
 * freed is caught until its slot is handed out again.
 */
#define CLIENT_BLOCK	64

struct client_block {
	struct client_block *next;
	struct drm_client c[CLIENT_BLOCK];
};

static struct drm_client *client_alloc(struct drm_scan *s)
{
	struct client_block *b;
	struct drm_client *c;

	if (s->nspare) {
		c = s->spare[--s->nspare];
	} else {
		if (!s->blocks || s->block_used == CLIENT_BLOCK) {
			/* room in spare for every slot: a free needs no memory */
			struct drm_client **spare;

			spare = realloc(s->spare, (s->cap_spare + CLIENT_BLOCK) *
					sizeof(*spare));
			if (!spare)
				return NULL;
			s->spare = spare;
			b = malloc(sizeof(*b));
			if (!b)
				return NULL;
			s->cap_spare += CLIENT_BLOCK;
			b->next = s->blocks;
			s->blocks = b;
			s->block_used = 0;
			POISON(b->c, sizeof(b->c));
		}
		c = &s->blocks->c[s->block_used++];
	}
	UNPOISON(c, sizeof(*c));
	memset(c, 0, sizeof(*c));
	return c;
}

static void client_free(struct drm_scan *s, struct drm_client *c)
{
	size_t i;

	for (i = 0; i < c->nfds; i++)
		fdref_release(s, &c->fds[i]);
	free(c->fds);
	free(c->eng);
	fdinfo_free(&c->info);
	free(c->raw);
	free(c->key);
	/* s->spare has room for every slot (client_alloc()) */
	s->spare[s->nspare++] = c;
	POISON(c, sizeof(*c));
}

/* The copy of name in s->names, or NULL without memory. */
static const char *scan_name(struct drm_scan *s, const char *name)
{
	size_t i;
	char *dup;

	for (i = 0; i < s->nnames; i++)
		if (name_eq(s->names[i], name))
			return s->names[i];
	dup = strdup(name);
	if (!dup || grow((void **)&s->names, &s->cap_names, s->nnames,
			 sizeof(*s->names))) {
		free(dup);
		return NULL;
	}
	return s->names[s->nnames++] = dup;
}

/* ---- cgroups ---- */

static bool is_hex_id(const char *s, size_t len)
{
	size_t i;

	if (len != 64)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

void cgroup_friendly_name(const char *path, char *buf, size_t size)
{
	static const char *const pfx[] = {
		"docker-", "libpod-", "cri-containerd-", "crio-",
	};
	const char *last, *id;
	size_t len, i, pl;

	if (!*path) {
		snprintf(buf, size, "-");
		return;
	}
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 1 && path[0] == '/') {
		snprintf(buf, size, "/");
		return;
	}
	for (last = path + len; last > path && last[-1] != '/'; last--)
		;
	len -= last - path;
	/* a container: docker-<id>.scope and the like, or a bare id */
	for (i = 0; i < ARRAY_SIZE(pfx); i++) {
		pl = strlen(pfx[i]);
		id = last + pl;
		if (len == pl + 64 + 6 && !strncmp(last, pfx[i], pl) &&
		    is_hex_id(id, 64) && !strncmp(id + 64, ".scope", 6)) {
			snprintf(buf, size, "%.12s", id);
			return;
		}
	}
	if (is_hex_id(last, len)) {
		snprintf(buf, size, "%.12s", last);
		return;
	}
	snprintf(buf, size, "%.*s", (int)len, last);
}

bool cgroup_match(const char *path, const char *prefix)
{
	size_t pl = strlen(prefix);

	while (pl > 1 && prefix[pl - 1] == '/')
		pl--;
	if (pl == 1 && prefix[0] == '/')
		return path[0] == '/';
	return !strncmp(path, prefix, pl) &&
	       (path[pl] == '\0' || path[pl] == '/');
}

static int cg_hash_rebuild(struct drm_scan *s)
{
	size_t size = s->cg_hash_size ? s->cg_hash_size * 2 : 64, i, j;
	struct drm_cgroup **h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (i = 0; i < s->ncgroups; i++) {
		j = hash_str(s->cgroups[i]->path) & (size - 1);
		while (h[j])
			j = (j + 1) & (size - 1);
		h[j] = s->cgroups[i];
	}
	free(s->cg_hash);
	s->cg_hash = h;
	s->cg_hash_size = size;
	return 0;
}

const struct drm_cgroup *drm_scan_cgroup(struct drm_scan *s, const char *path)
{
	struct drm_cgroup *cg;
	char name[256];
	size_t j;

	if (s->cg_hash_size) {
		j = hash_str(path) & (s->cg_hash_size - 1);
		for (; s->cg_hash[j]; j = (j + 1) & (s->cg_hash_size - 1))
			if (!strcmp(s->cg_hash[j]->path, path))
				return s->cg_hash[j];
	}
	if ((s->ncgroups + 1) * 2 > s->cg_hash_size && cg_hash_rebuild(s))
		return NULL;
	if (grow((void **)&s->cgroups, &s->cap_cgroups, s->ncgroups,
		 sizeof(*s->cgroups)))
		return NULL;
	cg = calloc(1, sizeof(*cg));
	if (!cg)
		return NULL;
	cgroup_friendly_name(path, name, sizeof(name));
	cg->path = strdup(path);
	cg->name = strdup(name);
	if (!cg->path || !cg->name) {
		free(cg->path);
		free(cg->name);
		free(cg);
		return NULL;
	}
	s->cgroups[s->ncgroups++] = cg;
	j = hash_str(path) & (s->cg_hash_size - 1);
	while (s->cg_hash[j])
		j = (j + 1) & (s->cg_hash_size - 1);
	s->cg_hash[j] = cg;
	return cg;
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "<n>/<what>/<m>" or "<n>/<what>" (m < 0) for openat(rootfd, ...) */
static void proc_path(char *buf, pid_t pid, const char *what, int fd)
{
	char *p = put_u64(buf, (uint64_t)pid);
	size_t l = strlen(what);

	*p++ = '/';
	memcpy(p, what, l);
	p += l;
	if (fd >= 0) {
		*p++ = '/';
		p = put_u64(p, (uint64_t)fd);
	}
	*p = '\0';
}

/*
 * Dedup key: driver, pdev and client id. Without drm-client-id a client
 * cannot be matched across fds, so the key is made unique per (pid, fd).
 * Built in s->keybuf; returns NULL on allocation failure.
 */
static const char *make_key(struct drm_scan *s, const struct fdinfo *fi,
			    pid_t pid, int fd)
{
	size_t dl = strlen(fi->driver), pl = fi->pdev ? strlen(fi->pdev) : 0;
	size_t need = dl + pl + 48;
	char *p;

	if (need > s->key_cap) {
		p = realloc(s->keybuf, need);
		if (!p)
			return NULL;
		s->keybuf = p;
		s->key_cap = need;
	}
	p = s->keybuf;
	memcpy(p, fi->driver, dl);
	p += dl;
	*p++ = '\x1f';
	if (pl)
		memcpy(p, fi->pdev, pl);
	p += pl;
	*p++ = '\x1f';
	if (fi->has_client_id) {
		p = put_u64(p, fi->client_id);
	} else {
		*p++ = '-';
		p = put_u64(p, (uint64_t)pid);
		*p++ = ':';
		p = put_u64(p, (uint64_t)fd);
	}
	*p = '\0';
	return s->keybuf;
}

/*
 * Without drm-pdev, name the device after its sysfs parent (for example
 * "simgpu.0" or "fd4400000.gpu") so that card and render nodes of the same
 * device group together. NULL when sysfs does not know the node.
 */
static char *sysfs_devname(const struct drm_scan *s, dev_t rdev)
{
	char path[4096], link[512], *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/dev/char/%u:%u/device", s->sys_root,
		 major(rdev), minor(rdev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	return *base ? strdup(base) : NULL;
}

static struct drm_client *client_new(struct drm_scan *s, char *key,
				     const struct fdinfo *fi, dev_t rdev)
{
	char *name = NULL, node[32];
	struct drm_client *c;
	const char *dev;

	c = client_alloc(s);
	if (!c)
		return NULL;
	c->key = key;
	c->rdev = rdev;
	if (!fi->pdev && s->use_sysfs)
		name = sysfs_devname(s, rdev);
	dev = fi->pdev ? fi->pdev : name;
	if (!dev) {
		snprintf(node, sizeof(node), "%s%u",
			 minor(rdev) >= 128 ? "renderD" : "card", minor(rdev));
		dev = node;
	}
	c->devname = scan_name(s, dev);
	free(name);
	if (!c->devname ||
	    grow((void **)&s->clients, &s->cap_clients, s->nclients,
		 sizeof(*s->clients))) {
		c->key = NULL;
		client_free(s, c);
		return NULL;
	}
	s->clients[s->nclients++] = c;
	if (s->nclients * 2 + 1 > s->hash_size) {
		if (hash_rebuild(s)) {
			s->nclients--;
			c->key = NULL;
			client_free(s, c);
			return NULL;
		}
	} else {
		size_t j = hash_str(key) & (s->hash_size - 1);

		while (s->hash[j])
			j = (j + 1) & (s->hash_size - 1);
		s->hash[j] = c;
	}
	return c;
}

/* The index of (pid, fd) in c->fds, or -1. */
static ssize_t client_find_fd(const struct drm_client *c, pid_t pid, int fd)
{
	size_t i;

	for (i = 0; i < c->nfds; i++)
		if (c->fds[i].pid == pid && c->fds[i].fd == fd)
			return i;
	return -1;
}

static void drop_held(struct drm_scan *s, int *info_fd)
{
	struct drm_fdref tmp = { .info_fd = *info_fd };

	fdref_release(s, &tmp);
	*info_fd = -1;
}

/* Takes *info_fd (the fdinfo file kept open) and sets it to -1. */
static void client_add_fd(struct drm_scan *s, struct drm_client *c, pid_t pid,
			  int fd, const char *comm,
			  const struct drm_cgroup *cgroup, int *info_fd)
{
	ssize_t i = client_find_fd(c, pid, fd);
	struct drm_fdref *r;

	if (i >= 0) {
		c->fds[i].seen = s->gen;
		if (cgroup)
			c->fds[i].cgroup = cgroup;
	}
	if (i >= 0 ||
	    grow((void **)&c->fds, &c->cap_fds, c->nfds, sizeof(*c->fds))) {
		drop_held(s, info_fd);
		return;
	}
	r = &c->fds[c->nfds++];
	r->pid = pid;
	r->fd = fd;
	r->comm = strdup(comm ? comm : "?");
	r->cgroup = cgroup;
	r->info_fd = *info_fd;
	r->seen = s->gen;
	*info_fd = -1;
}

static void client_del_fd(struct drm_scan *s, struct drm_client *c, size_t i)
{
	fdref_release(s, &c->fds[i]);
	memmove(&c->fds[i], &c->fds[i + 1],
		(c->nfds - i - 1) * sizeof(*c->fds));
	c->nfds--;
}

/* The client takes s->scratch; its old sample becomes the scratch. */
static void client_take_sample(struct drm_scan *s, struct drm_client *c,
			       uint64_t ts)
{
	struct fdinfo tmp = c->info;

	c->info = s->scratch;
	s->scratch = tmp;
	c->info_moved = true;
	c->ts_ns = ts;
	c->gen = s->gen;
	c->nsamples++;
}

/*
 * Keep the text of the client's latest sample (len bytes of s->buf), to
 * parse only what changes in the next one; len 0 (or no memory) forgets
 * it.
 */
static void client_keep_raw(struct drm_scan *s, struct drm_client *c,
			    size_t len)
{
	if (len > c->raw_cap) {
		char *p = realloc(c->raw, len);

		if (!p) {
			len = 0;
		} else {
			c->raw = p;
			c->raw_cap = len;
		}
	}
	if (len)
		memcpy(c->raw, s->buf, len);
	c->raw_len = len;
	if (!len) {
		free(c->raw);
		c->raw = NULL;
		c->raw_cap = 0;
	}
}

/* ---- pid bookkeeping ---- */

static void add_unreadable(struct drm_scan *s, pid_t pid)
{
	size_t i;

	if (pid_in(s->unreadable, s->nunreadable, pid))
		return;
	if (grow((void **)&s->unreadable, &s->cap_unreadable, s->nunreadable,
		 sizeof(pid_t)))
		return;
	i = s->nunreadable;
	while (i && s->unreadable[i - 1] > pid) {
		s->unreadable[i] = s->unreadable[i - 1];
		i--;
	}
	s->unreadable[i] = pid;
	s->nunreadable++;
}

static int list_pids(struct drm_scan *s, pid_t **out, size_t *n, size_t *cap)
{
	bool sorted = true;
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(s->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	*n = 0;
	while ((de = readdir(d))) {
		const char *p = de->d_name;
		long pid = 0;

		if (*p < '1' || *p > '9')
			continue;
		for (; *p >= '0' && *p <= '9' && pid < 0x7fffffff; p++)
			pid = pid * 10 + (*p - '0');
		if (*p)
			continue;
		if (grow((void **)out, cap, *n, sizeof(pid_t)))
			break;
		if (*n && pid < (*out)[*n - 1])
			sorted = false;
		(*out)[(*n)++] = pid;
	}
	closedir(d);
	/* procfs lists the pids in order; another tree may not */
	if (!sorted)
		qsort(*out, *n, sizeof(pid_t), cmp_pid);
	return 0;
}

/* The command name, which may hold any byte but NUL (even a newline). */
static char *read_comm(struct drm_scan *s, pid_t pid)
{
	char path[64];
	ssize_t n;

	proc_path(path, pid, "comm", -1);
	n = fdinfo_read_file(s->rootfd, path, &s->buf, &s->buf_cap, NULL);
	if (n <= 0)
		return strdup("?");
	if (s->buf[n - 1] == '\n')
		n--;
	return strndup(s->buf, n);
}

/*
 * The cgroup v2 path of pid: the "0::" line of /proc/PID/cgroup. Read when
 * a process's DRM fds are discovered, not at every refresh. The pids are
 * those of drmtop's PID namespace, as in the rest of /proc: a process in
 * a container shows the pid its host sees (its own is on the NSpid line
 * of /proc/PID/status, which drmtop does not read). "" (shown as "-")
 * without a v2 line or a readable file.
 */
static const struct drm_cgroup *read_cgroup(struct drm_scan *s, pid_t pid)
{
	const char *p, *end, *nl;
	char path[64];
	ssize_t n;

	proc_path(path, pid, "cgroup", -1);
	n = fdinfo_read_file(s->rootfd, path, &s->buf, &s->buf_cap, NULL);
	for (p = s->buf, end = s->buf + (n > 0 ? n : 0); p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (nl - p > 3 && !memcmp(p, "0::", 3)) {
			char *cg = strndup(p + 3, nl - p - 3);
			const struct drm_cgroup *r;

			if (!cg || strlen(cg) != (size_t)(nl - p - 3)) {
				free(cg);
				break;
			}
			r = drm_scan_cgroup(s, cg);
			free(cg);
			return r;
		}
	}
	return drm_scan_cgroup(s, "");
}

/* Outside procfs: was the file replaced (renamed over) since it was opened? */
static bool held_is_stale(const struct drm_scan *s, int info_fd)
{
	struct stat st;

	return !s->procfs && (fstat(info_fd, &st) || st.st_nlink == 0);
}

/*
 * Read /proc/PID/fdinfo/FD into s->buf: again through *info_fd when it is
 * open, else by path, then keeping the file open in *info_fd while the
 * limit on files kept open allows. In a tree that is not procfs, only
 * regular files and FIFOs are read: a FIFO is waited for a while, and
 * anything else counts as empty.
 */
static ssize_t read_fdinfo_file(struct drm_scan *s, pid_t pid, int fd,
				int *info_fd, bool *truncated)
{
	unsigned int flags;
	char path[64];
	struct stat st;
	bool keep;
	ssize_t n;
	int f;

	*truncated = false;	/* set on every path, failures included */
	if (*info_fd >= 0) {
		n = fdinfo_read_fd(*info_fd, &s->buf, &s->buf_cap,
				   FDINFO_READ_REWIND | FDINFO_READ_SHORT_EOF,
				   truncated);
		if (n < 0 || !held_is_stale(s, *info_fd))
			return n;
		drop_held(s, info_fd);
	}
	proc_path(path, pid, "fdinfo", fd);
	s->files_opened++;
	f = fdinfo_open(s->rootfd, path, s->procfs ? NULL : &st);
	if (f < 0)
		return f;
	/* a test tree may sequence its samples through FIFOs: read those */
	if (!s->procfs && !S_ISREG(st.st_mode)) {
		n = S_ISFIFO(st.st_mode) ?
		    fdinfo_read_fd(f, &s->buf, &s->buf_cap, FDINFO_READ_WAIT,
				   truncated) : 0;
		close(f);
		return n;
	}
	keep = s->nheld < s->max_held;
	flags = FDINFO_READ_SHORT_EOF | (keep ? FDINFO_READ_REWIND : 0);
	n = fdinfo_read_fd(f, &s->buf, &s->buf_cap, flags, truncated);
	if (n < 0 || !keep) {
		close(f);
		return n;
	}
	*info_fd = f;
	s->nheld++;
	return n;
}

/*
 * Parse the n bytes read into s->buf into s->scratch. Returns 1 when they
 * are a DRM client's, 0 when not (or without memory). A text cut at
 * FDINFO_READ_MAX counts one malformed line more.
 */
static int parse_fdinfo(struct drm_scan *s, ssize_t n, bool truncated)
{
	fdinfo_reset(&s->scratch);
	if (fdinfo_parse(&s->scratch, s->buf, n))
		return 0;
	if (truncated)
		s->scratch.malformed++;
	return !!s->scratch.driver;
}

static void note_read_error(struct drm_scan *s, pid_t pid, int err)
{
	if (err == -EACCES || err == -EPERM)
		add_unreadable(s, pid);
	else
		s->vanished++;
}

/*
 * An fd of a known client, for a full discovery or the sweep: (pid, fd)
 * sorted.
 */
struct known_fd {
	pid_t pid;
	int fd;
	struct drm_client *c;
};

static int cmp_known(const void *a, const void *b)
{
	const struct known_fd *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

struct known_set {
	struct known_fd *v;
	size_t n, cap;
};

/* The client that held pid's fd before this discovery, or NULL. */
static struct drm_client *known_client(const struct known_set *k, pid_t pid,
				       int fd)
{
	struct known_fd key = { pid, fd, NULL }, *e;

	if (!k || !k->n)
		return NULL;
	e = bsearch(&key, k->v, k->n, sizeof(*k->v), cmp_known);
	return e ? e->c : NULL;
}

/*
 * The fds of pids lo to hi known to k, sorted; on ENOMEM, fewer (a file
 * of a client not in k is parsed, as a new one would be).
 */
static void known_collect(const struct drm_scan *s, struct known_set *k,
			  pid_t lo, pid_t hi)
{
	size_t i, j;

	for (i = 0; i < s->nclients; i++) {
		struct drm_client *c = s->clients[i];

		for (j = 0; j < c->nfds; j++) {
			if (c->fds[j].pid < lo || c->fds[j].pid > hi)
				continue;
			if (grow((void **)&k->v, &k->cap, k->n, sizeof(*k->v)))
				goto sort;
			k->v[k->n].pid = c->fds[j].pid;
			k->v[k->n].fd = c->fds[j].fd;
			k->v[k->n].c = c;
			k->n++;
		}
	}
sort:
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), cmp_known);
}

/*
 * Sample known client c from the text in s->buf (n bytes, read at ts) if
 * only its counters changed since its last sample: c->info is updated in
 * place, and keeps what the refreshes to come reuse (the engines' slots,
 * the memo of the lines that change). False when the text must be parsed.
 */
static bool client_update_sample(struct drm_scan *s, struct drm_client *c,
				 ssize_t n, bool truncated, uint64_t ts)
{
	if (n < 0 || truncated || !c->raw ||
	    fdinfo_update(&c->info, c->raw, c->raw_len, s->buf, n) != 1)
		return false;
	c->ts_ns = ts;
	c->gen = s->gen;
	c->nsamples++;
	client_keep_raw(s, c, n);
	return true;
}

/*
 * A DRM fd found by a discovery. known, if not NULL, is the client that
 * held it before: a file that is still that client's, with only counters
 * changed, is not parsed again (a full discovery would otherwise replace
 * every client's sample, and the refresh after it pay for what the
 * replaced one had learnt).
 */
static void handle_drm_fd(struct drm_scan *s, pid_t pid, int fd, dev_t rdev,
			  char **comm, const struct drm_cgroup **cgroup,
			  struct drm_client *known)
{
	struct drm_client *c;
	const char *key;
	int ret, info_fd = -1;
	bool truncated;
	uint64_t ts;
	ssize_t n;
	char *dup;

	n = read_fdinfo_file(s, pid, fd, &info_fd, &truncated);
	s->files_read++;
	if (n < 0) {
		note_read_error(s, pid, n);
		goto out;
	}
	ts = now_ns();
	c = known;
	if (c && c->gen != s->gen &&
	    client_update_sample(s, c, n, truncated, ts))
		goto add;
	ret = parse_fdinfo(s, n, truncated);
	if (ret <= 0)
		goto out;
	key = make_key(s, &s->scratch, pid, fd);
	if (!key)
		goto out;
	c = client_lookup(s, key);
	if (!c) {
		dup = strdup(key);
		if (!dup)
			goto out;
		c = client_new(s, dup, &s->scratch, rdev);
		if (!c) {
			free(dup);
			goto out;
		}
	}
	/* the text, for the next refresh to parse only what changed */
	if (c->gen != s->gen) {
		client_take_sample(s, c, ts);
		client_keep_raw(s, c, truncated ? 0 : n);
	}
add:
	if (!*comm)
		*comm = read_comm(s, pid);	/* into s->buf */
	if (!*cgroup)
		*cgroup = read_cgroup(s, pid);	/* into s->buf */
	client_add_fd(s, c, pid, fd, *comm, *cgroup, &info_fd);
out:
	drop_held(s, &info_fd);
}

/*
 * In a sweep, an fd that is the first of client c (which held it before
 * the sweep, or NULL) sampled in this very refresh needs no second read:
 * mark it seen and keep its command name current. True when that was the
 * case.
 */
static bool sweep_known(struct drm_scan *s, struct drm_client *c, pid_t pid,
			int fd, char **comm, const struct drm_cgroup **cgroup)
{
	struct drm_fdref *r;

	if (!c || c->gen != s->gen || !c->nfds || c->fds[0].pid != pid ||
	    c->fds[0].fd != fd)
		return false;
	r = &c->fds[0];
	r->seen = s->gen;
	if (!*comm)
		*comm = read_comm(s, pid);
	if (*comm && (!r->comm || strcmp(r->comm, *comm))) {
		char *dup = strdup(*comm);

		if (dup) {
			free(r->comm);
			r->comm = dup;
		}
	}
	/* a process may have moved to another cgroup */
	if (!*cgroup)
		*cgroup = read_cgroup(s, pid);
	if (*cgroup)
		r->cgroup = *cgroup;
	return true;
}

static void scan_pid(struct drm_scan *s, pid_t pid, const struct known_set *k)
{
	char path[64], link[64], *comm = NULL;
	const struct drm_cgroup *cgroup = NULL;
	struct drm_client *known;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd;

	proc_path(path, pid, "fd", -1);
	dfd = openat(s->rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ENOENT || errno == ESRCH)
			s->vanished++;
		else	/* EACCES, or anything else that hides the fds */
			add_unreadable(s, pid);
		return;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		dev_t rdev;
		char *end;
		long fd;
		ssize_t n;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = strtol(de->d_name, &end, 10);
		if (*end || fd < 0 || fd > 0x7fffffff)
			continue;
		if (!fstatat(dfd, de->d_name, &st, 0)) {
			if (!S_ISCHR(st.st_mode) ||
			    major(st.st_rdev) != DRM_MAJOR)
				continue;
			rdev = st.st_rdev;
		} else {
			if (errno != ENOENT)
				continue;
			n = readlinkat(dfd, de->d_name, link, sizeof(link) - 1);
			if (n <= 9)
				continue;
			link[n] = '\0';
			if (strncmp(link, "/dev/dri/", 9) ||
			    !drm_node_to_rdev(link + 9, &rdev))
				continue;
		}
		known = known_client(k, pid, fd);
		if (!sweep_known(s, known, pid, fd, &comm, &cgroup))
			handle_drm_fd(s, pid, fd, rdev, &comm, &cgroup, known);
	}
	closedir(d);
	free(comm);
}

/* Point the client's engines at those of its info, adding new ones. */
static void map_engines(struct drm_scan *s, struct drm_client *c)
{
	size_t i, j;

	for (j = 0; j < c->neng; j++)
		c->eng[j].cur = NULL;
	for (i = 0; i < c->info.n_engines; i++) {
		struct fdinfo_engine *e = &c->info.engines[i];
		struct client_engine *ce;

		/* the engines of the previous sample, mostly in its order */
		ce = client_engine_slot(c, e->name, i);
		if (!ce) {
			const char *name = scan_name(s, e->name);

			if (!name || grow((void **)&c->eng, &c->cap_eng,
					  c->neng, sizeof(*c->eng)))
				continue;
			ce = &c->eng[c->neng++];
			memset(ce, 0, sizeof(*ce));
			ce->name = name;
		}
		ce->cur = e;
	}
}

/*
 * The accumulator of client engine ce of c: the one it added to before,
 * while its device, cgroup and name are the same, else found or added.
 */
static struct drm_cgroup_acc *cgroup_acc(struct drm_scan *s,
					 const struct drm_client *c,
					 struct client_engine *ce)
{
	const struct drm_cgroup *cg = client_cgroup(c);
	struct drm_cgroup_acc *a;
	const char *driver;
	size_t i;

	if (!cg)
		return NULL;
	if (ce->acc) {
		a = &s->acc[ce->acc - 1];
		if (a->cgroup == cg && a->devname == c->devname &&
		    a->engine == ce->name)
			return a;
	}
	for (i = 0; i < s->nacc; i++) {
		a = &s->acc[i];
		if (a->cgroup == cg && a->devname == c->devname &&
		    a->engine == ce->name && name_eq(a->driver, c->info.driver)) {
			ce->acc = i + 1;
			return a;
		}
	}
	driver = scan_name(s, c->info.driver);
	if (!driver || grow((void **)&s->acc, &s->cap_acc, s->nacc,
			    sizeof(*s->acc)))
		return NULL;
	a = &s->acc[s->nacc++];
	a->devname = c->devname;
	a->driver = driver;
	a->cgroup = cg;
	a->engine = ce->name;
	a->busy_ns = 0;
	a->gen = 0;
	ce->acc = s->nacc;
	return a;
}

/*
 * Add the busy time of the window that ends at the client's latest sample
 * to its cgroup's: the utilisation times the capacity times the window,
 * the time of the class's engines summed (what drm-engine-<class> counts
 * when it is the method). A first sample, a counter gone backwards, a
 * window without time add nothing: what is added was seen, and only grows.
 */
static void cgroup_acc_add(struct drm_scan *s, struct drm_client *c,
			   struct client_engine *ce)
{
	struct drm_cgroup_acc *a;
	uint64_t bits;
	double ns;

	if (ce->res.status != UTIL_OK)
		return;
	/* idle: +0 %, no floating point (see dbl_order() in output.c) */
	memcpy(&bits, &ce->res.pct, sizeof(bits));
	if (!bits && ce->acc)
		return;
	a = cgroup_acc(s, c, ce);
	if (!a || !bits)
		return;
	ns = ce->res.pct / 100.0 * (double)ce->res.capacity *
	     (double)ce->res.dt_ns;
	if (ns > 0) {
		a->busy_ns += (uint64_t)(ns + 0.5);
		a->gen = s->gen;
	}
}

/* The figures of the client's latest sample, once per refresh. */
static void update_engines(struct drm_scan *s, struct drm_client *c)
{
	size_t j;

	if (c->upd_gen == s->gen)
		return;
	c->upd_gen = s->gen;

	/* info updated in place keeps its engines where they were */
	if (c->info_moved) {
		c->info_moved = false;
		map_engines(s, c);
	}
	for (j = 0; j < c->neng; j++) {
		struct client_engine *ce = &c->eng[j];

		if (ce->cur) {
			util_update(&ce->hist, ce->cur, c->ts_ns, &ce->res);
			cgroup_acc_add(s, c, ce);
		} else {
			memset(&ce->res, 0, sizeof(ce->res));
			ce->res.status = UTIL_NO_DATA;
		}
	}
}

/* Re-read one fdinfo of a known client (cheap refresh). */
static void sample_client(struct drm_scan *s, struct drm_client *c,
			  pid_t **rescan, size_t *nrescan, size_t *caprescan)
{
	const char *key;
	uint64_t ts;
	int ret;

	while (c->nfds) {
		struct drm_fdref *r = &c->fds[0];
		bool truncated;
		ssize_t n;

		n = read_fdinfo_file(s, r->pid, r->fd, &r->info_fd, &truncated);
		s->files_read++;
		ts = now_ns();
		/*
		 * The text of the previous sample with some counters moved
		 * (the usual case) or none: parse the lines that changed.
		 */
		if (client_update_sample(s, c, n, truncated, ts)) {
			/* while the sample's engines are at hand */
			update_engines(s, c);
			return;
		}
		ret = n < 0 ? (int)n : parse_fdinfo(s, n, truncated);
		if (ret < 0)
			note_read_error(s, r->pid, ret);
		if (ret == 1) {
			key = make_key(s, &s->scratch, r->pid, r->fd);
			if (key && !strcmp(key, c->key)) {
				client_take_sample(s, c, ts);
				client_keep_raw(s, c, truncated ? 0 : n);
				return;
			}
		}
		/*
		 * fd closed or reused for something else, or the file kept
		 * open belonged to a process whose pid was reused: look at
		 * the pid again.
		 */
		if ((ret >= 0 || ret == -ENOENT || ret == -ESRCH) &&
		    !grow((void **)rescan, caprescan, *nrescan, sizeof(pid_t)))
			(*rescan)[(*nrescan)++] = r->pid;
		client_del_fd(s, c, 0);
	}
}

static int cmp_fdref(const void *a, const void *b)
{
	const struct drm_fdref *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

/*
 * The next share of the sweep over all pids cur[ncur] (sorted): every fd
 * of those processes is looked at again, as a full discovery would, the
 * fds that are gone or were reused are forgotten, and the files kept open
 * for them are closed so that the next refresh opens them again (and the
 * kernel checks drmtop's access again). A share is the pids' count over
 * full_every, or what full_ns asks for since the previous refresh.
 */
static void sweep_share(struct drm_scan *s, const pid_t *cur, size_t ncur,
			uint64_t t)
{
	struct known_set k = { 0 };
	size_t share = 0, i0, i1, i, j, m;
	pid_t lo, hi;

	if (s->full_every)
		share = (ncur + s->full_every - 1) / s->full_every;
	if (s->full_ns && s->last_ns && t > s->last_ns) {
		double by_time = (double)ncur * (t - s->last_ns) / s->full_ns;

		if (by_time > share)
			share = by_time < ncur ? (size_t)by_time : ncur;
	}
	if (!share && ncur)
		return;
	for (i0 = 0; i0 < ncur && cur[i0] < s->sweep_next; i0++)
		;
	i1 = i0 + share < ncur ? i0 + share : ncur;
	if (i1 == ncur) {
		s->sweep_next = 0;
		s->last_was_full = true;	/* a sweep ended */
	} else {
		s->sweep_next = cur[i1];
	}
	if (i0 == i1)
		return;
	lo = cur[i0];
	hi = cur[i1 - 1];

	/* the fds of the share that are known, to find them in the listing */
	known_collect(s, &k, lo, hi);
	/* the share is looked at again: so is its readability */
	for (i = 0, m = 0; i < s->nunreadable; i++)
		if (s->unreadable[i] < lo || s->unreadable[i] > hi)
			s->unreadable[m++] = s->unreadable[i];
	s->nunreadable = m;
	/* new pids were scanned already */
	for (i = i0; i < i1; i++)
		if (pid_in(s->pids, s->npids, cur[i]))
			scan_pid(s, cur[i], &k);
	free(k.v);

	for (i = 0; i < s->nclients; i++) {
		struct drm_client *c = s->clients[i];

		for (j = 0; j < c->nfds;) {
			struct drm_fdref *r = &c->fds[j];

			if (r->pid < lo || r->pid > hi) {
				j++;
			} else if (r->seen != s->gen) {
				client_del_fd(s, c, j);
			} else {
				drop_held(s, &r->info_fd);
				j++;
			}
		}
	}
}

int drm_scan_refresh(struct drm_scan *s, enum drm_scan_mode mode)
{
	pid_t *cur = NULL, *rescan = NULL;
	size_t ncur = 0, capcur = 0, nrescan = 0, caprescan = 0, i, j, k;
	uint64_t t = now_ns();
	bool full, dropped = false;
	int ret;

	ret = list_pids(s, &cur, &ncur, &capcur);
	if (ret) {
		free(cur);
		return ret;
	}
	s->gen++;
	s->files_read = 0;
	s->files_opened = 0;
	s->vanished = 0;
	full = mode == DRM_SCAN_FULL || s->gen == 1;
	s->last_was_full = full;

	if (full) {
		struct known_set known = { 0 };

		s->sweep_next = 0;
		s->nunreadable = 0;
		known_collect(s, &known, INT_MIN, INT_MAX);
		for (i = 0; i < s->nclients; i++) {
			struct drm_client *c = s->clients[i];

			for (j = 0; j < c->nfds; j++)
				fdref_release(s, &c->fds[j]);
			c->nfds = 0;
		}
		for (i = 0; i < ncur; i++)
			scan_pid(s, cur[i], &known);
		free(known.v);
	} else {
		/*
		 * Forget pids that exited. The fds are of pids of the
		 * previous listing: when all of those are still listed, so
		 * are the fds'.
		 */
		bool gone = pids_gone(s->pids, s->npids, cur, ncur);

		for (i = 0, k = 0; i < s->nunreadable; i++)
			if (pid_in(cur, ncur, s->unreadable[i]))
				s->unreadable[k++] = s->unreadable[i];
		s->nunreadable = k;
		for (i = 0; i < s->nclients; i++) {
			struct drm_client *c = s->clients[i];

			for (j = 0; gone && j < c->nfds;) {
				if (pid_in(cur, ncur, c->fds[j].pid))
					j++;
				else
					client_del_fd(s, c, j);
			}
			sample_client(s, c, &rescan, &nrescan, &caprescan);
		}
		/* processes that appeared since the previous refresh */
		for (i = 0, j = 0; i < ncur; i++) {
			while (j < s->npids && s->pids[j] < cur[i])
				j++;
			if (j < s->npids && s->pids[j] == cur[i])
				continue;
			scan_pid(s, cur[i], NULL);
		}
		if (nrescan)
			qsort(rescan, nrescan, sizeof(pid_t), cmp_pid);
		for (i = 0; i < nrescan; i++)
			if ((!i || rescan[i] != rescan[i - 1]) &&
			    pid_in(cur, ncur, rescan[i]) &&
			    pid_in(s->pids, s->npids, rescan[i]))
				scan_pid(s, rescan[i], NULL);
		if (mode == DRM_SCAN_AUTO)
			sweep_share(s, cur, ncur, t);
	}
	free(rescan);

	s->malformed = 0;
	for (i = 0, k = 0; i < s->nclients; i++) {
		struct drm_client *c = s->clients[i];

		if (!c->nfds || c->gen != s->gen) {
			client_free(s, c);
			dropped = true;
			continue;
		}
		if (c->nfds > 1)
			qsort(c->fds, c->nfds, sizeof(*c->fds), cmp_fdref);
		/* only fds[0] is read: each file kept open holds a page */
		for (j = 1; j < c->nfds; j++)
			drop_held(s, &c->fds[j].info_fd);
		update_engines(s, c);
		s->malformed += c->info.malformed;
		s->clients[k++] = c;
	}
	s->nclients = k;
	if (dropped)
		hash_rebuild(s);

	s->last_ns = t;
	free(s->pids);
	s->pids = cur;
	s->npids = ncur;
	s->cap_pids = capcur;
	return 0;
}

/* Descriptors left for other uses, and most fdinfo files kept open. */
#define HELD_RESERVE	128
#define HELD_MAX	16384u

struct drm_scan *drm_scan_new(const char *proc_root)
{
	struct drm_scan *s = calloc(1, sizeof(*s));
	struct statfs sfs;
	struct rlimit rl;

	if (!s)
		return NULL;
	s->proc_root = strdup(proc_root);
	s->rootfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!s->proc_root || s->rootfd < 0) {
		int err = errno;

		drm_scan_free(s);
		errno = err;
		return NULL;
	}
	/* device numbers of a fake tree mean nothing to this system's sysfs */
	s->use_sysfs = !strcmp(proc_root, "/proc") || !strcmp(proc_root, "/proc/");
	if (s->use_sysfs && drm_scan_set_sys_root(s, "/sys")) {
		drm_scan_free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->procfs = !fstatfs(s->rootfd, &sfs) && sfs.f_type == PROC_SUPER_MAGIC;
	/*
	 * Every fdinfo file kept open is a descriptor: take what the hard
	 * limit allows and leave some for everything else.
	 */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl))
				getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur > HELD_MAX + HELD_RESERVE)
			s->max_held = HELD_MAX;
		else if (rl.rlim_cur > HELD_RESERVE)
			s->max_held = rl.rlim_cur - HELD_RESERVE;
	}
	s->full_every = 5;
	s->full_ns = 5000000000ull;
	if (hash_rebuild(s)) {
		drm_scan_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

int drm_scan_set_sys_root(struct drm_scan *s, const char *root)
{
	char *r = strdup(root);

	if (!r)
		return -ENOMEM;
	free(s->sys_root);
	s->sys_root = r;
	s->use_sysfs = true;
	return 0;
}

void drm_scan_free(struct drm_scan *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nclients; i++)
		client_free(s, s->clients[i]);
	while (s->blocks) {
		struct client_block *b = s->blocks;

		s->blocks = b->next;
		UNPOISON(b->c, sizeof(b->c));
		free(b);
	}
	free(s->spare);
	free(s->clients);
	free(s->hash);
	for (i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	for (i = 0; i < s->ncgroups; i++) {
		free(s->cgroups[i]->path);
		free(s->cgroups[i]->name);
		free(s->cgroups[i]);
	}
	free(s->cgroups);
	free(s->cg_hash);
	free(s->acc);
	free(s->pids);
	free(s->unreadable);
	free(s->buf);
	free(s->keybuf);
	fdinfo_free(&s->scratch);
	if (s->rootfd >= 0)
		close(s->rootfd);
	free(s->proc_root);
	free(s->sys_root);
	free(s);
}
