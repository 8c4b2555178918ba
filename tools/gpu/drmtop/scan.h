/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Discovery of DRM clients through /proc/PID/fd and fdinfo
 */
#ifndef DRMTOP_SCAN_H
#define DRMTOP_SCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fdinfo.h"
#include "util.h"

#define DRM_MAJOR 226

struct pmu_set;

/*
 * A cgroup v2 path ("0::" line of /proc/PID/cgroup), one copy for all the
 * processes in it (see drm_scan_cgroup()); kept until drm_scan_free().
 */
struct drm_cgroup {
	char *path;		/* "" when unknown (no v2 line, unreadable) */
	char *name;		/* friendly name, see cgroup_friendly_name() */
};

struct drm_fdref {
	pid_t pid;
	int fd;
	char *comm;
	/* its process's cgroup, read at discovery; in drm_scan.cgroups */
	const struct drm_cgroup *cgroup;
	int info_fd;		/* its fdinfo file kept open, or -1 */
	unsigned long seen;	/* refresh generation it was last seen in */
};

/*
 * What the views read of every engine of every client (name, cur, and the
 * status and pct of res) is in the first 32 bytes; hist is the update's.
 */
struct client_engine {
	const char *name;	/* in drm_scan.names */
	const struct fdinfo_engine *cur;	/* into client->info */
	struct util_result res;
	struct util_hist hist;
	unsigned int acc;	/* drm_scan.acc[acc - 1] it adds to, 0: none */
};

struct drm_client {
	char *key;		/* driver, pdev and client id: dedup key */
	/* drm-pdev, sysfs device, or renderD<n>/card<n>; in drm_scan.names */
	const char *devname;
	dev_t rdev;
	struct drm_fdref *fds;	/* every (pid, fd) holding it, sorted */
	size_t nfds, cap_fds;
	struct fdinfo info;	/* latest sample */
	char *raw;		/* the text it was parsed from, or NULL */
	size_t raw_len, raw_cap;
	uint64_t ts_ns;		/* CLOCK_MONOTONIC of the latest sample */
	uint64_t nsamples;
	struct client_engine *eng;
	size_t neng, cap_eng;
	unsigned long gen;	/* refresh generation of the latest sample */
	unsigned long upd_gen;	/* ... of the latest figures in eng[] */
	bool info_moved;	/* info replaced since eng[] last followed it */
	size_t nagg;		/* a view's aggregate: clients summed, else 0 */
	size_t nproc;		/* ... and the processes holding them */
};

/*
 * The slot of client c's engine named name, or NULL: unlike
 * client_engine(), also one the latest sample does not list. hint is
 * where the caller expects it: the clients of a driver mostly list their
 * engines in one order, so the slot at hint is tried first.
 */
static inline struct client_engine *
client_engine_slot(struct drm_client *c, const char *name, size_t hint)
{
	size_t j;

	if (hint < c->neng && name_eq(c->eng[hint].name, name))
		return &c->eng[hint];
	for (j = 0; j < c->neng; j++)
		if (name_eq(c->eng[j].name, name))
			return &c->eng[j];
	return NULL;
}

struct drm_scan {
	char *proc_root;
	int rootfd;
	bool use_sysfs;		/* name pdev-less devices from sys_root/dev/char */
	char *sys_root;		/* "/sys", or --sys-root */
	struct pmu_set *pmu;	/* engines of the devices' PMUs (the caller's), or NULL */
	bool procfs;		/* proc_root is a procfs mount */
	unsigned int nheld, max_held;	/* fdinfo files kept open */

	struct drm_client **clients;
	size_t nclients, cap_clients;
	/*
	 * Where clients live: blocks of CLIENT_BLOCK, and the slots freed in
	 * them (see client_alloc()).
	 */
	struct client_block *blocks;
	size_t block_used;		/* slots of the newest block used */
	struct drm_client **spare;
	size_t nspare, cap_spare;
	struct drm_client **hash;	/* open addressing on key */
	size_t hash_size;
	/*
	 * Device and engine names, one copy of each for all clients: the
	 * views compare them for every client, and the same pointer needs no
	 * look at the bytes. They are few (drivers name them), and kept
	 * until drm_scan_free().
	 */
	char **names;
	size_t nnames, cap_names;
	/* The cgroups of the processes seen, hashed on their path. */
	struct drm_cgroup **cgroups;
	size_t ncgroups, cap_cgroups;
	struct drm_cgroup **cg_hash;
	size_t cg_hash_size;
	/*
	 * Engine time per device, cgroup and engine class, accumulated over
	 * every client ever seen in the cgroup (see cgroup_acc_add()).
	 */
	struct drm_cgroup_acc *acc;
	size_t nacc, cap_acc;

	pid_t *pids;		/* sorted listing of the previous refresh */
	size_t npids, cap_pids;
	pid_t *unreadable;	/* sorted */
	size_t nunreadable, cap_unreadable;

	/*
	 * Discovery of every fd of every process, spread over the refreshes:
	 * each scans a share of the pids, so that a sweep over all of them
	 * takes full_every refreshes, or full_ns nanoseconds if that is less.
	 */
	unsigned int full_every;
	uint64_t full_ns;
	uint64_t last_ns;		/* of the previous refresh */
	pid_t sweep_next;		/* first pid of the next share */
	unsigned long gen;
	bool last_was_full;		/* a full discovery or sweep ended */

	/* statistics of the last refresh */
	unsigned int files_read;
	unsigned int files_opened;	/* of those, opened by path */
	unsigned int malformed;		/* malformed lines over all clients */
	unsigned int vanished;		/* fds/pids that went away mid scan */

	char *buf;			/* read buffer, reused */
	size_t buf_cap;
	struct fdinfo scratch;		/* parse target, swapped with clients */
	char *keybuf;			/* dedup key of the last parse */
	size_t key_cap;
};

/*
 * The busy time of an engine class in a cgroup on a device, summed over
 * the engines of the class and over the clients of the cgroup, from their
 * first sample to their last: it only grows, whatever clients come and go.
 */
struct drm_cgroup_acc {
	const char *devname;		/* in drm_scan.names */
	const char *driver;		/* in drm_scan.names */
	const struct drm_cgroup *cgroup;
	const char *engine;		/* in drm_scan.names */
	uint64_t busy_ns;
	unsigned long gen;		/* refresh it last grew in */
};

uint64_t now_ns(void);

/*
 * The cgroup a client counts in: that of its first (lowest) pid. A client
 * shared by processes of several cgroups counts in one, so that the rows
 * of the cgroup view add up to the device's.
 */
static inline const struct drm_cgroup *
client_cgroup(const struct drm_client *c)
{
	return c->nfds ? c->fds[0].cgroup : NULL;
}

/*
 * The short name of a cgroup path: a container's id shortened to 12 hex
 * digits as docker and podman show it (docker-<id>.scope, libpod-<id>.scope,
 * cri-containerd-<id>.scope, crio-<id>.scope, or a last component of 64 hex
 * digits), else the last component (foo.service, session-3.scope); "/" for
 * the root, "-" for an unknown path.
 */
void cgroup_friendly_name(const char *path, char *buf, size_t size);
/* Whether path is prefix or below it (component-wise, "/" is every path). */
bool cgroup_match(const char *path, const char *prefix);
/* The copy of path in s->cgroups, added if new; NULL without memory. */
const struct drm_cgroup *drm_scan_cgroup(struct drm_scan *s, const char *path);

struct drm_scan *drm_scan_new(const char *proc_root);
void drm_scan_free(struct drm_scan *s);

enum drm_scan_mode {
	DRM_SCAN_AUTO,		/* a share of the sweep over all pids */
	DRM_SCAN_FULL,		/* force a full discovery at once */
	DRM_SCAN_CHEAP,		/* no sweep (bench) */
};

/* Returns 0 or -errno if the proc root cannot be listed. */
int drm_scan_refresh(struct drm_scan *s, enum drm_scan_mode mode);

/* Read sysfs from root: device names and PMUs (for tests). -ENOMEM or 0. */
int drm_scan_set_sys_root(struct drm_scan *s, const char *root);

/* Parse a /dev/dri/ node name (card0, renderD128) into a dev_t. */
bool drm_node_to_rdev(const char *name, dev_t *rdev);

#endif
