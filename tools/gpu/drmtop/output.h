/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Batch, JSON and Prometheus output, client filtering/sorting
 */
#ifndef DRMTOP_OUTPUT_H
#define DRMTOP_OUTPUT_H

#include <stdio.h>

#include "scan.h"

struct view_opts {
	const char *filter;	/* NULL, "driver=", "device=", "pid=", "comm=" or text */
	const char *sort;	/* "pid", "client", "mem", "resident" or engine */
	bool reverse;
	bool per_client;	/* Prometheus: the drm_client_* series too */
	const char *cgroup;	/* NULL, or only clients of this cgroup or below */
};

/* Filtered and sorted client pointers; caller frees the array. */
size_t view_clients(const struct drm_scan *s, const struct view_opts *o,
		    struct drm_client ***out);
bool client_match(const struct drm_client *c, const char *filter);
/* Whether c's cgroup is prefix or below it (always when prefix is NULL). */
bool client_in_cgroup(const struct drm_client *c, const char *prefix);
uint64_t client_mem(const struct drm_client *c, enum fdinfo_mem_kind kind);
const struct client_engine *client_engine(const struct drm_client *c,
					  const char *name);
void fmt_bytes(char *buf, size_t size, uint64_t v);

/* What the interactive view shows a row for */
enum view_mode {
	VIEW_CLIENT,		/* one row per client */
	VIEW_PROCESS,		/* one row per process (and device) */
	VIEW_DEVICE,		/* one row per device */
	VIEW_CGROUP,		/* one row per cgroup (and device) */
	VIEW_MODES,
};

/*
 * The aggregate rows of a view over the clients v[n] (already filtered):
 * VIEW_PROCESS sums the clients of each pid on each device, a client held
 * by several pids counting in each; VIEW_DEVICE sums each client of a
 * device once; VIEW_CGROUP sums each client of a device once in the row
 * of its cgroup (client_cgroup()). Engine percentages (capacity-normalised
 * per client) and memory per region and kind are summed, nagg counts the
 * clients, nproc the processes holding them. The rows borrow strings from
 * the clients; a cgroup row has its cgroup in fds[0].cgroup and its name
 * in fds[0].comm. Sorted like view_clients().
 * Returns the number of rows in *out, free with view_agg_free().
 */
size_t view_aggregate(struct drm_client *const *v, size_t n,
		      enum view_mode mode, const struct view_opts *o,
		      struct drm_client ***out);
void view_agg_free(struct drm_client **a, size_t n);

struct pmu_dev;
/*
 * Whether the engine header of d is shown with filter f: without a
 * filter, when one of the shown clients v[n] is on d, or when the filter
 * names d or its driver (or a text matches them).
 */
bool pmu_dev_match(const struct pmu_dev *d, const char *f,
		   struct drm_client *const *v, size_t n);

/* The engine time of a cgroup on a device, or NULL (see scan.h). */
const struct drm_cgroup_acc *cgroup_acc_find(const struct drm_scan *s,
					     const char *devname,
					     const struct drm_cgroup *cg,
					     const char *engine);

void print_batch(FILE *f, const struct drm_scan *s, const struct view_opts *o,
		 unsigned long iter);
void print_json(FILE *f, const struct drm_scan *s, const struct view_opts *o,
		unsigned long iter);
void print_prometheus(FILE *f, const struct drm_scan *s,
		      const struct view_opts *o);

#endif
