// SPDX-License-Identifier: GPL-2.0-only
/*
 * Engine busyness from the perf PMU of a DRM device
 *
 * A DRM device is a device of /sys/class/drm/{card,renderD}N/device. Its
 * PMU is one of /sys/bus/event_source/devices/X with the events
 * engine-active-ticks and engine-total-ticks (xe, simgpu), matched to the
 * device by sysfs parentage (the PMU's device lies under the DRM device's,
 * as simgpu registers it) or by name, "<driver>_<device name with ':' as
 * '_'>" (xe_0000_03_00.0). The config of an event is built from the terms
 * of its events/ file and the bit fields of format/ (engine_class,
 * engine_instance and, if the PMU has it, gt): no bit layout is built in.
 *
 * Engines are found by opening each gt, class and instance up to
 * PMU_MAX_*: ENOENT means there is no such engine. Each engine is a group,
 * active ticks leading, total ticks following, read together; its
 * busyness is delta active over delta total between two refreshes. Sysfs
 * files are read like the files of a test tree: at most 255 bytes, without
 * blocking, and what they hold is escaped where it is shown.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"
#include "fdinfo.h"
#include "pmu.h"

const char *const pmu_status_name[] = {
	[PMU_NONE] = "none",
	[PMU_OK] = "ok",
	[PMU_NO_PERMISSION] = "no-permission",
	[PMU_UNBOUND] = "unbound",
	[PMU_NO_ENGINES] = "no-engines",
	[PMU_BAD_SYSFS] = "bad-sysfs",
	[PMU_ERROR] = "error",
};

static int sys_open(struct perf_event_attr *attr, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, attr, -1, cpu, group_fd,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static ssize_t sys_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : n;
}

const struct pmu_ops pmu_sys_ops = { sys_open, sys_read };

/* ---- format and event files ---- */

static int parse_bit(const char **p, const char *end, unsigned int *bit)
{
	unsigned int v = 0;
	const char *s = *p;

	while (*p < end && **p >= '0' && **p <= '9' && *p - s < 2)
		v = v * 10 + (*(*p)++ - '0');
	if (*p == s || v > 63)
		return -EINVAL;
	*bit = v;
	return 0;
}

int pmu_parse_format(const char *t, size_t len, struct pmu_field *f)
{
	static const char *const words[] = { "config:", "config1:", "config2:" };
	const char *end = t + len;
	unsigned int i, lo, hi;
	size_t l;

	while (end > t && end[-1] == '\n')
		end--;
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		l = strlen(words[i]);
		if ((size_t)(end - t) > l && !memcmp(t, words[i], l))
			break;
	}
	if (i == ARRAY_SIZE(words))
		return -EINVAL;
	f->word = i;
	f->mask = 0;
	for (t += l;; t++) {
		if (parse_bit(&t, end, &lo))
			return -EINVAL;
		hi = lo;
		if (t < end && *t == '-' && (++t, parse_bit(&t, end, &hi)))
			return -EINVAL;
		if (hi < lo)
			return -EINVAL;
		f->mask |= (~0ull >> (63 - hi)) & (~0ull << lo);
		if (t == end)
			return 0;
		if (*t != ',')
			return -EINVAL;
	}
}

unsigned int pmu_field_bits(const struct pmu_field *f)
{
	return __builtin_popcountll(f->mask);
}

int pmu_field_put(const struct pmu_field *f, uint64_t v, uint64_t cfg[3])
{
	uint64_t bits = 0;
	unsigned int b;

	for (b = 0; b < 64 && v; b++) {
		if (!(f->mask & (1ull << b)))
			continue;
		if (v & 1)
			bits |= 1ull << b;
		v >>= 1;
	}
	if (v)
		return -ERANGE;
	cfg[f->word] |= bits;
	return 0;
}

/*
 * Read a small sysfs file relative to dirfd into buf (NUL terminated,
 * trailing newline removed): at most size - 1 bytes, without blocking. A
 * NUL byte makes it -EINVAL, nothing to read -ENODATA.
 */
static ssize_t read_small(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = fdinfo_open(dirfd, path, NULL);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	if (strlen(buf) != (size_t)n)
		return -EINVAL;
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n ? n : -ENODATA;
}

/*
 * What err says of a file that is missing or unreadable (ret, text NULL)
 * or malformed (text)
 */
static void bad_file(char *err, size_t size, const char *path, ssize_t ret,
		     const char *text)
{
	if (ret == -ENOENT)
		snprintf(err, size, "no %s", path);
	else if (text || ret == -EINVAL || ret == -ENODATA)
		snprintf(err, size, "malformed %s: '%.40s'", path,
			 text ? text : "");
	else
		snprintf(err, size, "cannot read %s: %s", path, strerror(-ret));
}

static int read_field(int dirfd, const char *term, struct pmu_field *f,
		      char *err, size_t size)
{
	char path[64], buf[256];
	ssize_t n;

	snprintf(path, sizeof(path), "format/%s", term);
	n = read_small(dirfd, path, buf, sizeof(buf));
	if (n < 0 || pmu_parse_format(buf, n, f)) {
		bad_file(err, size, path, n, n < 0 ? NULL : buf);
		return n == -ENOENT ? -ENOENT : -EINVAL;
	}
	return 0;
}

/*
 * The config words of events/<event>: terms "name=value" or "name" (1),
 * separated by commas, each put into the bits of format/<name>.
 */
static int event_config(int dirfd, const char *event, uint64_t cfg[3],
			char *err, size_t size)
{
	char path[64], buf[256], term[32], *p, *q, *end;
	struct pmu_field f;
	uint64_t v;
	ssize_t n;
	size_t l;

	snprintf(path, sizeof(path), "events/%s", event);
	n = read_small(dirfd, path, buf, sizeof(buf));
	if (n < 0)
		goto bad;
	memset(cfg, 0, 3 * sizeof(*cfg));
	for (p = buf; *p; p = *q ? q + 1 : q) {
		q = p + strcspn(p, ",");
		l = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (!l || l >= sizeof(term) || (p[l] != '=' && p + l != q))
			goto bad_text;
		memcpy(term, p, l);
		term[l] = '\0';
		v = 1;
		if (p[l] == '=') {
			errno = 0;
			v = strtoull(p + l + 1, &end, 0);
			if (errno || end == p + l + 1 || end != q ||
			    p[l + 1] == '-' || p[l + 1] == '+')
				goto bad_text;
		}
		if (read_field(dirfd, term, &f, err, size))
			return -EINVAL;
		if (pmu_field_put(&f, v, cfg)) {
			snprintf(err, size, "%s: %s=%llu does not fit format/%s",
				 path, term, (unsigned long long)v, term);
			return -EINVAL;
		}
	}
	return 0;
bad_text:
	bad_file(err, size, path, -EINVAL, buf);
	return -EINVAL;
bad:
	bad_file(err, size, path, n, NULL);
	return -EINVAL;
}

/* ---- devices ---- */

static __printf(3, 4) void set_status(struct pmu_dev *d, enum pmu_status st,
				      const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	d->status = st;
	if (fmt) {
		va_start(ap, fmt);
		if (vasprintf(&msg, fmt, ap) < 0)
			msg = NULL;
		va_end(ap);
	}
	if (d->msg && msg && !strcmp(d->msg, msg)) {
		free(msg);
		return;
	}
	free(d->msg);
	d->msg = msg;
	d->reported = false;
}

static void close_engines(struct pmu_dev *d)
{
	size_t i;

	for (i = 0; i < d->neng; i++) {
		close(d->eng[i].fd_total);
		close(d->eng[i].fd);
	}
	free(d->eng);
	d->eng = NULL;
	d->neng = 0;
}

static void dev_free(struct pmu_dev *d)
{
	close_engines(d);
	free(d->name);
	free(d->driver);
	free(d->path);
	free(d->pmu);
	free(d->msg);
	free(d);
}

static void paranoid(const struct pmu_set *ps, char *buf, size_t size)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid",
		 ps->proc_root);
	if (read_small(AT_FDCWD, path, buf, size) <= 0 ||
	    strspn(buf, "-0123456789") != strlen(buf))
		snprintf(buf, size, "?");
}

static void open_failed(struct pmu_set *ps, struct pmu_dev *d, int err)
{
	char p[16];

	close_engines(d);
	if (err == -EACCES || err == -EPERM) {
		paranoid(ps, p, sizeof(p));
		set_status(d, PMU_NO_PERMISSION,
			   "PMU %s: no permission (perf_event_paranoid=%s), engine header from PMU off",
			   d->pmu, p);
	} else if (err == -ENODEV) {
		set_status(d, PMU_UNBOUND,
			   "PMU %s: device unbound (ENODEV), engine header from PMU off",
			   d->pmu);
	} else {
		set_status(d, PMU_ERROR,
			   "PMU %s: perf_event_open: %s, engine header from PMU off",
			   d->pmu, strerror(-err));
	}
}

/* Open one engine group; 0, 1 when there is no such engine, or -errno. */
static int open_engine(struct pmu_set *ps, struct pmu_dev *d,
		       struct perf_event_attr *attr, int cpu,
		       const uint64_t act[3], const uint64_t tot[3],
		       const struct pmu_engine *tmpl)
{
	struct pmu_engine *e, *ne;
	int fd, fd2;

	attr->config = act[0];
	attr->config1 = act[1];
	attr->config2 = act[2];
	fd = ps->ops->open(attr, cpu, -1);
	if (fd == -ENOENT)
		return 1;
	if (fd < 0)
		return fd;
	attr->config = tot[0];
	attr->config1 = tot[1];
	attr->config2 = tot[2];
	fd2 = ps->ops->open(attr, cpu, fd);
	ne = fd2 < 0 ? NULL : realloc(d->eng, (d->neng + 1) * sizeof(*ne));
	if (!ne) {
		if (fd2 >= 0)
			close(fd2);
		close(fd);
		return fd2 == -ENOENT ? 1 : fd2 < 0 ? fd2 : -ENOMEM;
	}
	d->eng = ne;
	e = &d->eng[d->neng++];
	*e = *tmpl;
	e->fd = fd;
	e->fd_total = fd2;
	return 0;
}

static unsigned int field_max(const struct pmu_field *f, unsigned int max)
{
	unsigned int bits = pmu_field_bits(f);

	return bits >= 31 || (1u << bits) > max ? max : 1u << bits;
}

/* Read what sysfs says of d->pmu and open each engine it has. */
static void dev_open(struct pmu_set *ps, struct pmu_dev *d)
{
	struct pmu_field fcls, finst, fgt;
	uint64_t act[3], tot[3], ca[3], ct[3];
	struct perf_event_attr attr;
	struct pmu_engine e = { 0 };
	char path[PATH_MAX], buf[256], err[160];
	unsigned int ngt;
	unsigned long type, cpu = 0;
	ssize_t n;
	char *end;
	int dfd, ret;

	close_engines(d);
	snprintf(path, sizeof(path), "bus/event_source/devices/%s", d->pmu);
	dfd = openat(ps->sysfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		set_status(d, PMU_BAD_SYSFS, "PMU %s: %s, engine header from PMU off",
			   d->pmu, strerror(errno));
		return;
	}
	n = read_small(dfd, "type", buf, sizeof(buf));
	errno = 0;
	type = n > 0 ? strtoul(buf, &end, 10) : 0;
	if (n <= 0 || errno || *end || buf[0] < '0' || buf[0] > '9' ||
	    type > UINT32_MAX) {
		bad_file(err, sizeof(err), "type", n, n < 0 ? NULL : buf);
		goto bad;
	}
	/* a PMU of system scope names the CPU to open it on */
	n = read_small(dfd, "cpumask", buf, sizeof(buf));
	if (n != -ENOENT) {
		errno = 0;
		cpu = n > 0 ? strtoul(buf, &end, 10) : 0;
		if (n <= 0 || errno || end == buf || buf[0] == '-' ||
		    (*end && !strchr(",-", *end)) || cpu > INT_MAX) {
			bad_file(err, sizeof(err), "cpumask", n,
				 n < 0 ? NULL : buf);
			goto bad;
		}
	}
	/* gt is optional */
	ret = read_field(dfd, "gt", &fgt, err, sizeof(err));
	if (ret == -ENOENT)
		fgt.mask = 0;
	if ((ret && ret != -ENOENT) ||
	    read_field(dfd, "engine_class", &fcls, err, sizeof(err)) ||
	    read_field(dfd, "engine_instance", &finst, err, sizeof(err)) ||
	    event_config(dfd, "engine-active-ticks", act, err, sizeof(err)) ||
	    event_config(dfd, "engine-total-ticks", tot, err, sizeof(err)))
		goto bad;
	close(dfd);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.read_format = PERF_FORMAT_GROUP;
	ngt = fgt.mask ? field_max(&fgt, PMU_MAX_GT) : 1;
	for (e.gt = 0; e.gt < ngt; e.gt++) {
		for (e.cls = 0; e.cls < field_max(&fcls, PMU_MAX_CLASS); e.cls++) {
			for (e.inst = 0; e.inst < field_max(&finst, PMU_MAX_INSTANCE);
			     e.inst++) {
				memcpy(ca, act, sizeof(ca));
				memcpy(ct, tot, sizeof(ct));
				pmu_field_put(&fcls, e.cls, ca);
				pmu_field_put(&fcls, e.cls, ct);
				pmu_field_put(&finst, e.inst, ca);
				pmu_field_put(&finst, e.inst, ct);
				if (fgt.mask) {
					pmu_field_put(&fgt, e.gt, ca);
					pmu_field_put(&fgt, e.gt, ct);
				}
				ret = open_engine(ps, d, &attr, cpu, ca, ct, &e);
				if (ret < 0) {
					open_failed(ps, d, ret);
					return;
				}
			}
		}
	}
	if (!d->neng)
		set_status(d, PMU_NO_ENGINES,
			   "PMU %s: no engine instance found, engine header from PMU off",
			   d->pmu);
	else
		set_status(d, PMU_OK, NULL);
	return;
bad:
	close(dfd);
	set_status(d, PMU_BAD_SYSFS, "PMU %s: %s, engine header from PMU off",
		   d->pmu, err);
}

/* ---- discovery ---- */

static char *real_path(const struct pmu_set *ps, const char *rel)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", ps->sys_root, rel) >=
	    (int)sizeof(path))
		return NULL;
	return realpath(path, NULL);
}

static bool drm_node(const char *name)
{
	const char *p = !strncmp(name, "card", 4) ? name + 4 :
			!strncmp(name, "renderD", 7) ? name + 7 : NULL;

	return p && *p && strspn(p, "0123456789") == strlen(p);
}

static struct pmu_dev *add_dev(struct pmu_set *ps, char *path)
{
	char link[PATH_MAX], target[PATH_MAX], *base = strrchr(path, '/');
	struct pmu_dev *d, **nv;
	size_t i;
	ssize_t n;

	for (i = 0; i < ps->ndevs; i++) {
		if (!strcmp(ps->devs[i]->path, path)) {
			free(path);
			return ps->devs[i];
		}
	}
	nv = realloc(ps->devs, (ps->ndevs + 1) * sizeof(*nv));
	if (nv)
		ps->devs = nv;
	d = nv ? calloc(1, sizeof(*d)) : NULL;
	if (d)
		d->name = strdup(base && base[1] ? base + 1 : path);
	if (!d || !d->name) {
		free(d);
		free(path);
		return NULL;
	}
	d->path = path;
	snprintf(link, sizeof(link), "%s/driver", path);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		base = strrchr(target, '/');
		d->driver = strdup(base ? base + 1 : target);
	}
	/* sorted by name */
	for (i = ps->ndevs; i && strcmp(ps->devs[i - 1]->name, d->name) > 0; i--)
		ps->devs[i] = ps->devs[i - 1];
	ps->devs[i] = d;
	ps->ndevs++;
	set_status(d, PMU_NONE, "no PMU with engine-active-ticks for %s",
		   d->name);
	return d;
}

static void list_drm_devices(struct pmu_set *ps)
{
	char rel[PATH_MAX];
	struct dirent *de;
	struct pmu_dev *d;
	char *path;
	DIR *dir;
	int fd;

	fd = openat(ps->sysfd, "class/drm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		if (!drm_node(de->d_name))
			continue;
		snprintf(rel, sizeof(rel), "class/drm/%s/device", de->d_name);
		path = real_path(ps, rel);
		d = path ? add_dev(ps, path) : NULL;
		if (d)
			d->seen = true;
	}
	closedir(dir);
}

/* Whose PMU is X: a device it lies under, or "<driver>_<name>" */
static struct pmu_dev *pmu_owner(struct pmu_set *ps, const char *x)
{
	char rel[PATH_MAX], want[PATH_MAX], *path, *p;
	struct pmu_dev *d, *owner = NULL;
	size_t i, l;

	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s", x);
	path = real_path(ps, rel);
	for (i = 0; i < ps->ndevs && !owner; i++) {
		d = ps->devs[i];
		l = strlen(d->path);
		if (!d->seen)
			continue;
		if (path && !strncmp(path, d->path, l) && path[l] == '/')
			owner = d;
		if (!d->driver)
			continue;
		snprintf(want, sizeof(want), "%s_%s", d->driver, d->name);
		for (p = want; *p; p++)
			if (*p == ':')
				*p = '_';
		if (!strcmp(want, x))
			owner = d;
	}
	free(path);
	return owner;
}

void pmu_discover(struct pmu_set *ps)
{
	char path[PATH_MAX];
	struct pmu_dev *d;
	struct dirent *de;
	struct stat st;
	size_t i, k;
	DIR *dir;
	int fd;

	for (i = 0; i < ps->ndevs; i++) {
		ps->devs[i]->seen = false;
		free(ps->devs[i]->pmu);
		ps->devs[i]->pmu = NULL;
	}
	list_drm_devices(ps);
	fd = openat(ps->sysfd, "bus/event_source/devices",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/engine-active-ticks",
			 de->d_name);
		if (fstatat(fd, path, &st, 0))
			continue;
		snprintf(path, sizeof(path), "%s/events/engine-total-ticks",
			 de->d_name);
		if (fstatat(fd, path, &st, 0))
			continue;
		d = pmu_owner(ps, de->d_name);
		if (d && !d->pmu)
			d->pmu = strdup(de->d_name);
	}
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);

	for (i = 0, k = 0; i < ps->ndevs; i++) {
		d = ps->devs[i];
		if (!d->seen) {
			dev_free(d);
			continue;
		}
		ps->devs[k++] = d;
		if (!d->pmu) {
			close_engines(d);
			set_status(d, PMU_NONE,
				   "no PMU with engine-active-ticks for %s",
				   d->name);
		} else if (d->status != PMU_OK) {
			dev_open(ps, d);
		}
	}
	ps->ndevs = k;
}

/* ---- sampling ---- */

void pmu_sample(struct pmu_set *ps)
{
	struct timespec ts;
	uint64_t v[3];
	size_t i, j;
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (i = 0; i < ps->ndevs; i++) {
		struct pmu_dev *d = ps->devs[i];

		if (d->status != PMU_OK)
			continue;
		d->ts_ns = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
		for (j = 0; j < d->neng; j++) {
			struct pmu_engine *e = &d->eng[j];

			n = ps->ops->read(e->fd, v, sizeof(v));
			if (n != sizeof(v) || v[0] != 2) {
				close_engines(d);
				set_status(d, PMU_ERROR,
					   "PMU %s: read: %s, engine header from PMU off",
					   d->pmu, n < 0 ? strerror(-n) :
					   "not a group of two");
				break;
			}
			e->ok = e->nsamples && v[1] >= e->active &&
				v[2] > e->total;
			e->d_active = v[1] - e->active;
			e->d_total = v[2] - e->total;
			e->pct = e->ok ? 100.0 * e->d_active / e->d_total : 0;
			e->active = v[1];
			e->total = v[2];
			e->nsamples++;
		}
	}
}

void pmu_refresh(struct pmu_set *ps, bool rediscover)
{
	if (!ps)
		return;
	if (rediscover || !ps->discovered)
		pmu_discover(ps);
	ps->discovered = true;
	pmu_sample(ps);
}

struct pmu_dev *pmu_find_dev(const struct pmu_set *ps, const char *name)
{
	size_t i;

	for (i = 0; ps && i < ps->ndevs; i++)
		if (!strcmp(ps->devs[i]->name, name))
			return ps->devs[i];
	return NULL;
}

const char *pmu_class_name(unsigned int cls, char *buf, size_t size)
{
	static const char *const names[] = { "rcs", "bcs", "vcs", "vecs", "ccs" };

	if (cls < ARRAY_SIZE(names))
		return names[cls];
	snprintf(buf, size, "class%u", cls);
	return buf;
}

void pmu_engine_name(const struct pmu_engine *e, char *buf, size_t size)
{
	char tmp[16];
	const char *c = pmu_class_name(e->cls, tmp, sizeof(tmp));
	int n = snprintf(buf, size, "%s%s%u", c, e->cls > 4 ? "." : "", e->inst);

	if (e->gt && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - n, "/%u", e->gt);
}

struct pmu_set *pmu_set_new(const char *sys_root, const char *proc_root,
			    const struct pmu_ops *ops)
{
	struct pmu_set *ps = calloc(1, sizeof(*ps));
	int err;

	if (!ps)
		return NULL;
	ps->ops = ops ? ops : &pmu_sys_ops;
	ps->sys_root = strdup(sys_root);
	ps->proc_root = strdup(proc_root);
	ps->sysfd = open(sys_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!ps->sys_root || !ps->proc_root || ps->sysfd < 0) {
		err = ps->sysfd < 0 ? errno : ENOMEM;
		pmu_set_free(ps);
		errno = err;
		return NULL;
	}
	return ps;
}

void pmu_set_free(struct pmu_set *ps)
{
	size_t i;

	if (!ps)
		return;
	for (i = 0; i < ps->ndevs; i++)
		dev_free(ps->devs[i]);
	free(ps->devs);
	if (ps->sysfd >= 0)
		close(ps->sysfd);
	free(ps->sys_root);
	free(ps->proc_root);
	free(ps);
}
