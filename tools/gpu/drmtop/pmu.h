/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Engine busyness from the perf PMU of a DRM device
 */
#ifndef DRMTOP_PMU_H
#define DRMTOP_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

/* Engines tried on each PMU: gt x class x instance, fewer if a field is smaller. */
#define PMU_MAX_GT		4
#define PMU_MAX_CLASS		8
#define PMU_MAX_INSTANCE	16

enum pmu_status {
	PMU_NONE,		/* no PMU with both events for this device */
	PMU_OK,
	PMU_NO_PERMISSION,	/* EACCES or EPERM */
	PMU_UNBOUND,		/* ENODEV: the driver is not bound */
	PMU_NO_ENGINES,		/* ENOENT for every engine */
	PMU_BAD_SYSFS,		/* a malformed type, cpumask, format or event file */
	PMU_ERROR,		/* any other error */
};

extern const char *const pmu_status_name[];

/* A bit field of config, config1 or config2 (a format/<term> file). */
struct pmu_field {
	unsigned int word;	/* 0 config, 1 config1, 2 config2 */
	uint64_t mask;
};

/*
 * Parse a format file ("config:0-11", "config1:3", "config:8-9,16-17",
 * newline optional). Returns 0 or -EINVAL.
 */
int pmu_parse_format(const char *text, size_t len, struct pmu_field *f);
/*
 * OR v into the bits of f in cfg[3], low bits of v into low bits of the
 * field. Returns 0, or -ERANGE if v does not fit.
 */
int pmu_field_put(const struct pmu_field *f, uint64_t v, uint64_t cfg[3]);
/* Number of bits of f */
unsigned int pmu_field_bits(const struct pmu_field *f);

struct pmu_engine {
	unsigned int gt, cls, inst;
	int fd;			/* group leader: engine-active-ticks */
	int fd_total;		/* engine-total-ticks */
	uint64_t active, total;		/* latest values */
	uint64_t d_active, d_total;	/* over the last refresh */
	unsigned long nsamples;
	bool ok;		/* the deltas and pct are valid */
	double pct;
};

/* A DRM device of /sys/class/drm and its PMU */
struct pmu_dev {
	char *name;		/* basename of the sysfs device: drmtop's device name */
	char *driver;		/* driver bound to it, or NULL */
	char *path;		/* realpath of the sysfs device */
	char *pmu;		/* PMU name, or NULL */
	enum pmu_status status;
	char *msg;		/* one line, unescaped, when status != PMU_OK */
	bool reported;		/* msg was printed (on stderr) */
	bool seen;
	struct pmu_engine *eng;
	size_t neng;
	uint64_t ts_ns;		/* of the latest sample */
};

/* perf_event_open() and read(), replaceable for tests */
struct pmu_ops {
	/* pid -1; returns an fd or -errno */
	int (*open)(struct perf_event_attr *attr, int cpu, int group_fd);
	ssize_t (*read)(int fd, void *buf, size_t len);
};

extern const struct pmu_ops pmu_sys_ops;

struct pmu_set {
	int sysfd;		/* the sysfs root */
	char *sys_root;
	char *proc_root;	/* for sys/kernel/perf_event_paranoid */
	const struct pmu_ops *ops;
	struct pmu_dev **devs;	/* sorted by name */
	size_t ndevs;
	bool discovered;
};

/* NULL with errno set if sys_root cannot be opened. */
struct pmu_set *pmu_set_new(const char *sys_root, const char *proc_root,
			    const struct pmu_ops *ops);
void pmu_set_free(struct pmu_set *ps);
/*
 * Find the DRM devices and their PMUs, and open the engines of each PMU
 * that is not open yet; forget devices that are gone.
 */
void pmu_discover(struct pmu_set *ps);
/* Read every open engine. */
void pmu_sample(struct pmu_set *ps);
/* pmu_discover() if rediscover or the first time, then pmu_sample(). */
void pmu_refresh(struct pmu_set *ps, bool rediscover);

struct pmu_dev *pmu_find_dev(const struct pmu_set *ps, const char *name);
/* "rcs", "bcs", "vcs", "vecs", "ccs" for classes 0-4 (xe, simgpu), else "classN" */
const char *pmu_class_name(unsigned int cls, char *buf, size_t size);
/* "rcs0", "class5.0", or "vcs1/1" on gt 1 */
void pmu_engine_name(const struct pmu_engine *e, char *buf, size_t size);

#endif
