// SPDX-License-Identifier: GPL-2.0-only
/*
 * Batch, JSON and Prometheus output, client filtering/sorting
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "output.h"
#include "pmu.h"

const struct client_engine *client_engine(const struct drm_client *c,
					  const char *name)
{
	size_t i;

	for (i = 0; i < c->neng; i++)
		if (c->eng[i].cur && !strcmp(c->eng[i].name, name))
			return &c->eng[i];
	return NULL;
}

/* Sum over regions; drm-memory-<region> counts as total and resident. */
uint64_t client_mem(const struct drm_client *c, enum fdinfo_mem_kind kind)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < c->info.n_regions; i++) {
		const struct fdinfo_region *r = &c->info.regions[i];

		if (r->present & (1u << kind))
			sum += r->bytes[kind];
		else if ((kind == FDINFO_MEM_TOTAL ||
			  kind == FDINFO_MEM_RESIDENT) &&
			 (r->present & (1u << FDINFO_MEM_LEGACY)))
			sum += r->bytes[FDINFO_MEM_LEGACY];
	}
	return sum;
}

void fmt_bytes(char *buf, size_t size, uint64_t v)
{
	unsigned __int128 t;
	static const char units[] = "BKMGTPE";
	uint64_t div = 1, q, r;
	int u = 0;

	while (u < 6 && v / div >= 1024) {
		div *= 1024;
		u++;
	}
	if (!u) {
		snprintf(buf, size, "%lluB", (unsigned long long)v);
		return;
	}
	/*
	 * Tenths of a unit in integers, rounded half to even like "%.1f" of
	 * the exact quotient: no floating point formatting per cell.
	 */
	t = (unsigned __int128)v * 10;
	q = t / div;
	r = t % div;
	if (2 * (unsigned __int128)r > div || (2 * (unsigned __int128)r == div && (q & 1)))
		q++;
	snprintf(buf, size, "%llu.%u%c", (unsigned long long)(q / 10),
		 (unsigned int)(q % 10), units[u]);
}

static bool has_pid(const struct drm_client *c, long pid)
{
	size_t i;

	for (i = 0; i < c->nfds; i++)
		if (c->fds[i].pid == pid)
			return true;
	return false;
}

static bool has_comm(const struct drm_client *c, const char *text, bool exact)
{
	size_t i;

	for (i = 0; i < c->nfds; i++) {
		const char *comm = c->fds[i].comm ? c->fds[i].comm : "";

		if (exact ? !strcmp(comm, text) : !!strstr(comm, text))
			return true;
	}
	return false;
}

bool client_match(const struct drm_client *c, const char *f)
{
	char *end;
	long pid;

	if (!f || !*f)
		return true;
	if (!strncmp(f, "driver=", 7))
		return !strcmp(c->info.driver, f + 7);
	if (!strncmp(f, "device=", 7))
		return !strcmp(c->devname, f + 7) ||
		       (c->info.pdev && !strcmp(c->info.pdev, f + 7));
	if (!strncmp(f, "comm=", 5))
		return has_comm(c, f + 5, true);
	if (!strncmp(f, "pid=", 4)) {
		pid = strtol(f + 4, &end, 10);
		return !*end && has_pid(c, pid);
	}
	pid = strtol(f, &end, 10);
	if (!*end && has_pid(c, pid))
		return true;
	return strstr(c->info.driver, f) || strstr(c->devname, f) ||
	       has_comm(c, f, false);
}

bool client_in_cgroup(const struct drm_client *c, const char *prefix)
{
	const struct drm_cgroup *cg = client_cgroup(c);

	return !prefix || (cg && cgroup_match(cg->path, prefix));
}

bool pmu_dev_match(const struct pmu_dev *d, const char *f,
		   struct drm_client *const *v, size_t n)
{
	size_t i;

	if (!f || !*f)
		return true;
	for (i = 0; i < n; i++)
		if (!strcmp(v[i]->devname, d->name))
			return true;
	if (!strncmp(f, "device=", 7))
		return !strcmp(d->name, f + 7);
	if (!strncmp(f, "driver=", 7))
		return d->driver && !strcmp(d->driver, f + 7);
	if (!strncmp(f, "pid=", 4) || !strncmp(f, "comm=", 5))
		return false;
	return strstr(d->name, f) || (d->driver && strstr(d->driver, f));
}

static double eng_key(const struct drm_client *c, const char *name)
{
	const struct client_engine *e = client_engine(c, name);

	if (!e)
		return -2;
	return e->res.status == UTIL_OK ? e->res.pct : -1;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/*
 * A double as a u64 in the same order: integer comparisons in the sort,
 * which under emulation (TCG) cost a fraction of floating point ones.
 */
static uint64_t dbl_order(double d)
{
	uint64_t bits;

	if (d == 0)
		d = 0;		/* -0 sorts with +0 */
	memcpy(&bits, &d, sizeof(bits));
	return bits & (1ull << 63) ? ~bits : bits | (1ull << 63);
}

/*
 * dbl_order() of the busiest engine's percentage, or of -1 if none has
 * one. A percentage is never negative, and the bits of a double that is
 * not negative order like it: the engines are compared as integers.
 */
static uint64_t busiest_order(const struct drm_client *c)
{
	uint64_t m = 0, bits;
	bool any = false;
	size_t i;

	for (i = 0; i < c->neng; i++) {
		if (!c->eng[i].cur || c->eng[i].res.status != UTIL_OK)
			continue;
		memcpy(&bits, &c->eng[i].res.pct, sizeof(bits));
		if (!any || bits > m)
			m = bits;
		any = true;
	}
	return any ? m | (1ull << 63) : dbl_order(-1);
}

/*
 * A client and its sort keys, computed once per sort rather than in every
 * comparison (a "busy" key walks the engines, a memory key the regions).
 */
struct sort_ent {
	uint64_t key;		/* the sort's own key, ascending */
	uint64_t id;		/* the client id */
	unsigned int dev;	/* rank of the device's name, or DEV_UNRANKED */
	bool reverse;
	struct drm_client *c;
};

/* Devices ranked by name for a sort; past that many, names are compared. */
#define DEV_RANKED	32
#define DEV_UNRANKED	UINT_MAX

enum sort_by { BY_BUSY, BY_PID, BY_CLIENT, BY_MEM, BY_RESIDENT, BY_ENGINE };

static int cmp_ent(const void *pa, const void *pb)
{
	const struct sort_ent *x = pa, *y = pb;
	int r = cmp_u64(x->key, y->key);

	if (x->reverse)
		r = -r;
	if (!r)
		r = x->dev != DEV_UNRANKED ? cmp_u64(x->dev, y->dev) :
					     strcmp(x->c->devname, y->c->devname);
	if (!r)
		r = cmp_u64(x->id, y->id);
	if (!r)
		r = strcmp(x->c->key, y->c->key);
	return r;
}

/*
 * The device is the sort's second key: rank the few devices' names once,
 * rather than comparing the same names in most comparisons.
 */
static void rank_devices(struct sort_ent *e, size_t n)
{
	const char *dev[DEV_RANKED];
	unsigned int rank[DEV_RANKED], ndev = 0, j, k;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *name = e[i].c->devname;

		for (j = 0; j < ndev && !name_eq(dev[j], name); j++)
			;
		if (j == ndev) {
			if (ndev == DEV_RANKED) {
				for (i = 0; i < n; i++)
					e[i].dev = DEV_UNRANKED;
				return;
			}
			dev[ndev++] = name;
		}
		e[i].dev = j;
	}
	for (j = 0; j < ndev; j++)
		for (rank[j] = 0, k = 0; k < ndev; k++)
			rank[j] += strcmp(dev[k], dev[j]) < 0;
	for (i = 0; i < n; i++)
		e[i].dev = rank[e[i].dev];
}

/*
 * Sort e[n] by cmp_ent(); false when it was sorted already. The entries
 * mostly come in their order or near it: idle clients tie on the busy key
 * and are listed by id as they were found, and a view's rows are made in
 * the order of its clients, whose pids grew with their ids. An insertion
 * sort costs about a comparison an entry there, where qsort() costs a
 * dozen. Past as many moves as entries the order is no near one: qsort()
 * sorts the rest of the way.
 */
static bool sort_ents(struct sort_ent *e, size_t n)
{
	size_t i, j, moves = 0;
	bool moved = false;
	struct sort_ent t;

	for (i = 1; i < n; i++) {
		if (cmp_ent(&e[i - 1], &e[i]) <= 0)
			continue;
		if (moves > n) {
			qsort(e, n, sizeof(*e), cmp_ent);
			return true;
		}
		t = e[i];
		e[i] = e[i - 1];
		for (j = i - 1; j && cmp_ent(&e[j - 1], &t) > 0; j--)
			e[j] = e[j - 1];
		e[j] = t;
		moves += i - j;
		moved = true;
	}
	return moved;
}

/* Sort v[n] as o says; on ENOMEM leave it as it is. */
static void sort_clients(struct drm_client **v, size_t n,
			 const struct view_opts *o)
{
	const char *s = o->sort;
	struct sort_ent *e;
	enum sort_by by;
	size_t i;

	if (n < 2)
		return;
	e = malloc(n * sizeof(*e));
	if (!e)
		return;
	if (!s || !strcmp(s, "busy"))
		by = BY_BUSY;
	else if (!strcmp(s, "pid"))
		by = BY_PID;
	else if (!strcmp(s, "client"))
		by = BY_CLIENT;
	else if (!strcmp(s, "mem"))
		by = BY_MEM;
	else if (!strcmp(s, "resident"))
		by = BY_RESIDENT;
	else
		by = BY_ENGINE;
	for (i = 0; i < n; i++) {
		struct drm_client *c = v[i];

		e[i].c = c;
		e[i].key = 0;
		e[i].id = c->info.client_id;
		e[i].reverse = o->reverse;
		switch (by) {
		case BY_BUSY:	/* descending */
			e[i].key = ~busiest_order(c);
			break;
		case BY_PID:
			/* pid_t is signed: keep its order in the u64 */
			e[i].key = (uint64_t)(int64_t)c->fds[0].pid ^ (1ull << 63);
			break;
		case BY_CLIENT:
			break;
		case BY_MEM:
			e[i].key = ~client_mem(c, FDINFO_MEM_TOTAL);
			break;
		case BY_RESIDENT:
			e[i].key = ~client_mem(c, FDINFO_MEM_RESIDENT);
			break;
		case BY_ENGINE:
			e[i].key = ~dbl_order(eng_key(c, s));
			break;
		}
	}
	rank_devices(e, n);
	if (sort_ents(e, n))
		for (i = 0; i < n; i++)
			v[i] = e[i].c;
	free(e);
}

size_t view_clients(const struct drm_scan *s, const struct view_opts *o,
		    struct drm_client ***out)
{
	struct drm_client **v = calloc(s->nclients + 1, sizeof(*v));
	size_t i, n = 0;

	*out = v;
	if (!v)
		return 0;
	for (i = 0; i < s->nclients; i++)
		if (client_match(s->clients[i], o->filter) &&
		    client_in_cgroup(s->clients[i], o->cgroup))
			v[n++] = s->clients[i];
	sort_clients(v, n, o);
	return n;
}

/*
 * The rows of a view, found by device and pid through open addressing: a
 * linear search made the process view quadratic in the processes.
 */
struct agg_table {
	struct drm_client **slot;
	size_t size;		/* a power of two, more than twice the rows */
	const char *dev;	/* the device name hashed last, and its hash */
	uint64_t dev_hash;
};

static uint64_t agg_hash(const char *devname)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*devname)
		h = (h ^ (unsigned char)*devname++) * 0x100000001b3ull;
	return h;
}

static size_t agg_hash_pid(uint64_t h, uint64_t key)
{
	h ^= key ^ (key >> 29);
	h *= 0x9e3779b97f4a7c15ull;
	return h >> 17;
}

/*
 * The row of (devname, pid), or of (devname, cg) when cg is not NULL, or
 * the empty slot where it goes.
 */
static struct drm_client **agg_find(struct agg_table *t, const char *devname,
				    pid_t pid, const struct drm_cgroup *cg)
{
	uint64_t key = cg ? (uint64_t)(uintptr_t)cg : (uint64_t)(uint32_t)pid;
	size_t j;

	/* most clients are of the device of the client before them */
	if (!t->dev || !name_eq(t->dev, devname)) {
		t->dev = devname;
		t->dev_hash = agg_hash(devname);
	}
	j = agg_hash_pid(t->dev_hash, key) & (t->size - 1);

	while (t->slot[j] && (t->slot[j]->fds[0].pid != pid ||
			      (cg && t->slot[j]->fds[0].cgroup != cg) ||
			      !name_eq(t->slot[j]->devname, devname)))
		j = (j + 1) & (t->size - 1);
	return &t->slot[j];
}

/*
 * Add client c into aggregate a. a's arrays have room for the engines and
 * regions of all the clients it sums (see view_aggregate()).
 */
static void agg_add(struct drm_client *a, const struct drm_client *c)
{
	uint64_t bits;
	size_t i;

	for (i = 0; i < c->neng; i++) {
		const struct client_engine *e = &c->eng[i];
		struct client_engine *t;

		if (!e->cur)
			continue;
		t = client_engine_slot(a, e->name, i);
		if (!t) {
			t = &a->eng[a->neng++];
			memset(t, 0, sizeof(*t));
			t->name = e->name;
			t->cur = e->cur;
			t->res.status = UTIL_NO_DATA;
		}
		/* no data only when no client has data */
		if (t->res.status == UTIL_NO_DATA &&
		    e->res.status != UTIL_NO_DATA)
			t->res.status = UTIL_FIRST;
		if (e->res.capacity > t->res.capacity)
			t->res.capacity = e->res.capacity;
		if (e->res.status == UTIL_OK) {
			if (t->res.status != UTIL_OK) {
				t->res.status = UTIL_OK;
				t->res.pct = 0;
			}
			/*
			 * An idle engine adds +0 %, all of its bits zero:
			 * no floating point for it (see dbl_order()).
			 */
			memcpy(&bits, &e->res.pct, sizeof(bits));
			if (bits) {
				t->res.pct += e->res.pct;
				t->res.over = t->res.pct > 100;
			}
		}
	}
	for (i = 0; i < c->info.n_regions; i++) {
		const struct fdinfo_region *r = &c->info.regions[i];
		struct fdinfo_region *t;
		unsigned int k, bits;

		if (i < a->info.n_regions &&
		    name_eq(a->info.regions[i].name, r->name))
			t = &a->info.regions[i];
		else
			t = fdinfo_find_region(&a->info, r->name);
		if (!t) {
			t = &a->info.regions[a->info.n_regions++];
			memset(t, 0, sizeof(*t));
			t->name = r->name;
		}
		/* the kinds the file gave, mostly two or three of six */
		for (bits = r->present; bits; bits &= bits - 1) {
			k = __builtin_ctz(bits);
			t->bytes[k] += r->bytes[k];
		}
		t->present |= r->present;
	}
	a->nagg++;
}

/*
 * A row of a view: its client struct, the one fdref it names and its key.
 * The rows are one allocation and their engines and regions another: a
 * malloc or three per row made the views a third of a refresh with 1,000
 * processes.
 */
struct agg_row {
	struct drm_client c;
	struct drm_fdref fd;
	char key[16];
};

static void agg_new(struct agg_row *row, const struct drm_client *c,
		    size_t fd, enum view_mode mode)
{
	struct drm_client *a = &row->c;
	char num[16], *p = num + sizeof(num);
	unsigned int v;

	memset(row, 0, sizeof(*row));
	/* the pid, or 0 for a device: snprintf() was a tenth of a view */
	v = mode == VIEW_PROCESS ? (unsigned int)c->fds[fd].pid : 0;
	a->nproc = mode == VIEW_PROCESS;
	*--p = '\0';
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	memcpy(row->key, p, num + sizeof(num) - p);
	a->key = row->key;
	a->fds = &row->fd;
	a->nfds = 1;
	a->devname = c->devname;
	a->rdev = c->rdev;
	a->info.driver = c->info.driver;
	if (mode == VIEW_PROCESS) {
		a->fds[0].pid = c->fds[fd].pid;
		a->fds[0].comm = c->fds[fd].comm;
		a->fds[0].cgroup = c->fds[fd].cgroup;
		a->info.client_id = c->fds[fd].pid;
	} else if (mode == VIEW_CGROUP) {
		const struct drm_cgroup *cg = client_cgroup(c);

		/* ties of the sort go by the path */
		a->key = cg ? cg->path : row->key;
		a->fds[0].cgroup = cg;
		a->fds[0].comm = cg ? cg->name : "-";
	} else {
		a->fds[0].comm = "(device)";
	}
	a->fds[0].fd = -1;
	a->fds[0].info_fd = -1;
}

/* a[n] and a[n + 1] hold the blocks of the rows (see view_aggregate()) */
void view_agg_free(struct drm_client **a, size_t n)
{
	if (!a)
		return;
	free(a[n]);
	free(a[n + 1]);
	free(a);
}

/*
 * Whether fds[f] of c adds c to a row of the view: a pid holding the
 * client twice counts it once, a device counts a client once.
 */
static bool agg_counts(const struct drm_client *c, size_t f,
		       enum view_mode mode)
{
	if (mode != VIEW_PROCESS)
		return !f;
	return !f || c->fds[f - 1].pid != c->fds[f].pid;
}

/*
 * The processes of each row of a device or cgroup view: the distinct pids
 * holding its clients, found with a set of (row, pid). ref[i] is the row
 * of client v[i] (these views count a client once).
 */
struct agg_pid {
	size_t row;		/* its index + 1, 0: empty */
	pid_t pid;
};

static void agg_count_procs(struct drm_client *const *v, size_t n,
			    struct agg_row *rows, const size_t *ref)
{
	size_t i, f, j, nfds = 0, size = 16;
	struct agg_pid *set;

	for (i = 0; i < n; i++)
		nfds += v[i]->nfds;
	while (size < 2 * nfds + 1)
		size *= 2;
	set = calloc(size, sizeof(*set));
	if (!set)
		return;
	for (i = 0; i < n; i++) {
		for (f = 0; f < v[i]->nfds; f++) {
			pid_t pid = v[i]->fds[f].pid;
			uint64_t h;

			if (f && v[i]->fds[f - 1].pid == pid)
				continue;
			h = (ref[i] + 1) * 0x9e3779b97f4a7c15ull ^ (uint32_t)pid;
			h *= 0xff51afd7ed558ccdull;
			for (j = (h >> 17) & (size - 1); set[j].row;
			     j = (j + 1) & (size - 1))
				if (set[j].row == ref[i] + 1 && set[j].pid == pid)
					break;
			if (set[j].row)
				continue;
			set[j].row = ref[i] + 1;
			set[j].pid = pid;
			rows[ref[i]].c.nproc++;
		}
	}
	free(set);
}

size_t view_aggregate(struct drm_client *const *v, size_t n,
		      enum view_mode mode, const struct view_opts *o,
		      struct drm_client ***out)
{
	size_t i, f, na = 0, nref = 0, r, neng = 0, nreg = 0;
	struct agg_table tab = { NULL, 16, NULL, 0 };
	struct drm_client **a, **slot, *t;
	struct client_engine *eng;
	struct fdinfo_region *reg;
	struct agg_row *rows;
	size_t *ref = NULL;

	*out = NULL;
	for (i = 0; i < n; i++)
		nref += mode == VIEW_PROCESS ? v[i]->nfds : 1;
	while (tab.size < 2 * nref + 1)
		tab.size *= 2;
	/* at most a row per reference, and the two blocks after them */
	tab.slot = calloc(tab.size, sizeof(*tab.slot));
	a = malloc((nref + 2) * sizeof(*a));
	ref = malloc((nref ? nref : 1) * sizeof(*ref));
	rows = malloc((nref ? nref : 1) * sizeof(*rows));
	if (!tab.slot || !a || !ref || !rows)
		goto fail;

	/*
	 * First the rows, the row of each reference, and the room each row
	 * needs at most: the engines and regions of all its clients.
	 */
	for (i = 0, r = 0; i < n; i++) {
		for (f = 0; f < v[i]->nfds; f++) {
			pid_t pid = mode == VIEW_PROCESS ? v[i]->fds[f].pid : 0;
			const struct drm_cgroup *cg = NULL;

			if (!agg_counts(v[i], f, mode))
				continue;
			if (mode == VIEW_CGROUP)
				cg = client_cgroup(v[i]);
			slot = agg_find(&tab, v[i]->devname, pid, cg);
			if (!*slot) {
				agg_new(&rows[na], v[i], f, mode);
				*slot = &rows[na++].c;
			}
			t = *slot;
			t->cap_eng += v[i]->neng;
			t->info.cap_regions += v[i]->info.n_regions;
			neng += v[i]->neng;
			nreg += v[i]->info.n_regions;
			/* c is the first member of a row */
			ref[r++] = (struct agg_row *)t - rows;
		}
	}

	/*
	 * Then the rows' engines and regions, in a block of their own:
	 * growing the rows' block for them copied every row.
	 */
	eng = malloc(neng * sizeof(*eng) + nreg * sizeof(*reg) + 1);
	if (!eng)
		goto fail;
	a[na + 1] = (struct drm_client *)eng;
	reg = (struct fdinfo_region *)(eng + neng);
	for (i = 0; i < na; i++) {
		t = &rows[i].c;
		t->eng = eng;
		eng += t->cap_eng;
		t->info.regions = reg;
		reg += t->info.cap_regions;
		a[i] = t;
	}

	for (i = 0, r = 0; i < n; i++)
		for (f = 0; f < v[i]->nfds; f++)
			if (agg_counts(v[i], f, mode))
				agg_add(&rows[ref[r++]].c, v[i]);
	if (mode != VIEW_PROCESS)
		agg_count_procs(v, n, rows, ref);
	free(tab.slot);
	free(ref);
	a[na] = (struct drm_client *)rows;
	sort_clients(a, na, o);
	*out = a;
	return na;
fail:
	free(tab.slot);
	free(ref);
	free(rows);
	free(a);
	return 0;
}

static void print_pids(FILE *f, const struct drm_client *c, const char *sep)
{
	size_t i;

	for (i = 0; i < c->nfds; i++) {
		if (i && c->fds[i].pid == c->fds[i - 1].pid)
			continue;
		fprintf(f, "%s%d", i ? sep : "", (int)c->fds[i].pid);
	}
}

static void print_batch_client(FILE *f, const struct drm_client *c,
			       enum str_esc esc);

/* "DEVICE DRIVER pmu=NAME rcs0=12.5% bcs0=- ..." if the PMU is read */
static void print_batch_pmu(FILE *f, const struct pmu_dev *d, enum str_esc esc)
{
	char name[32];
	size_t i;

	if (!d || d->status != PMU_OK)
		return;
	str_escape_fputs(d->name, esc, f);
	fputc(' ', f);
	str_escape_fputs(d->driver ? d->driver : "?", esc, f);
	fputs(" pmu=", f);
	str_escape_fputs(d->pmu, esc, f);
	for (i = 0; i < d->neng; i++) {
		pmu_engine_name(&d->eng[i], name, sizeof(name));
		if (d->eng[i].ok)
			fprintf(f, " %s=%.1f%%%s", name, d->eng[i].pct,
				d->eng[i].pct > 100 ? "!" : "");
		else
			fprintf(f, " %s=-", name);
	}
	fputc('\n', f);
}

void print_batch(FILE *f, const struct drm_scan *s, const struct view_opts *o,
		 unsigned long iter)
{
	struct drm_client **v;
	size_t n = view_clients(s, o, &v), i, d;
	enum str_esc esc = str_esc_text();

	fprintf(f, "drmtop: refresh %lu: %zu client%s", iter, n,
		n == 1 ? "" : "s");
	if (s->nunreadable)
		fprintf(f, ", %zu processes not readable: run as root",
			s->nunreadable);
	if (s->malformed)
		fprintf(f, ", %u malformed fdinfo lines", s->malformed);
	fputc('\n', f);
	/* grouped per device, devices in order of their first client */
	for (d = 0; d < n; d++) {
		for (i = 0; i < d; i++)
			if (!strcmp(v[i]->devname, v[d]->devname))
				break;
		if (i < d)
			continue;
		print_batch_pmu(f, pmu_find_dev(s->pmu, v[d]->devname), esc);
		for (i = d; i < n; i++) {
			const struct drm_client *c = v[i];

			if (strcmp(c->devname, v[d]->devname))
				continue;
			print_batch_client(f, c, esc);
		}
	}
	/* then the devices with a PMU but no client shown */
	for (d = 0; s->pmu && d < s->pmu->ndevs; d++) {
		const struct pmu_dev *pd = s->pmu->devs[d];

		for (i = 0; i < n; i++)
			if (!strcmp(v[i]->devname, pd->name))
				break;
		if (i == n && pmu_dev_match(pd, o->filter, v, n))
			print_batch_pmu(f, pd, esc);
	}
	fflush(f);
	free(v);
}

static void print_batch_client(FILE *f, const struct drm_client *c,
			       enum str_esc esc)
{
	char b1[32], b2[32];
	size_t j, k;

	str_escape_fputs(c->devname, esc, f);
	fputc(' ', f);
	str_escape_fputs(c->info.driver, esc, f);
	fprintf(f, " client=%llu pids=", (unsigned long long)c->info.client_id);
	print_pids(f, c, ",");
	fputs(" comm=", f);
	str_escape_fputs(c->fds[0].comm, esc, f);
	for (j = 0; j < c->neng; j++) {
		const struct client_engine *e = &c->eng[j];

		if (!e->cur)
			continue;
		fputc(' ', f);
		str_escape_fputs(e->name, esc, f);
		if (e->res.status == UTIL_OK)
			fprintf(f, "=%.1f%%%s", e->res.pct,
				e->res.over ? "!" : "");
		else if (e->res.status == UTIL_NO_DATA)
			fputs("=n/a", f);
		else
			fputs("=-", f);
	}
	for (k = 0; k < c->info.n_regions; k++) {
		const struct fdinfo_region *r = &c->info.regions[k];
		enum fdinfo_mem_kind t = FDINFO_MEM_TOTAL;

		if (!(r->present & (1u << t)))
			t = FDINFO_MEM_LEGACY;
		fmt_bytes(b1, sizeof(b1), r->bytes[t]);
		fmt_bytes(b2, sizeof(b2),
			  r->bytes[FDINFO_MEM_RESIDENT]);
		fputs(" mem.", f);
		str_escape_fputs(r->name, esc, f);
		fprintf(f, "=%s", b1);
		if (r->present & (1u << FDINFO_MEM_RESIDENT))
			fprintf(f, "/res:%s", b2);
	}
	if (client_cgroup(c) && *client_cgroup(c)->path) {
		fputs(" cgroup=", f);
		str_escape_fputs(client_cgroup(c)->path, esc, f);
	}
	fputc('\n', f);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	str_escape_fputs(s, STR_ESC_JSON, f);
	fputc('"', f);
}

static void json_opt_u64(FILE *f, const char *name, bool has, uint64_t v)
{
	if (has)
		fprintf(f, ",\"%s\":%llu", name, (unsigned long long)v);
	else
		fprintf(f, ",\"%s\":null", name);
}

static void json_opt_str(FILE *f, const char *name, const char *s)
{
	fprintf(f, ",\"%s\":", name);
	if (s)
		json_str(f, s);
	else
		fputs("null", f);
}

/* One object per device with a PMU, before the clients */
static void print_json_pmu(FILE *f, const struct pmu_dev *d,
			   unsigned long iter, unsigned long long rt_ms)
{
	char name[32], cls[16];
	size_t i;

	fprintf(f, "{\"refresh\":%lu,\"record\":\"device\"", iter);
	json_opt_u64(f, "timestamp_ns", d->ts_ns, d->ts_ns);
	fprintf(f, ",\"realtime_ms\":%llu,\"device\":", rt_ms);
	json_str(f, d->name);
	json_opt_str(f, "driver", d->driver);
	json_opt_str(f, "pmu", d->pmu);
	fprintf(f, ",\"status\":\"%s\"", pmu_status_name[d->status]);
	json_opt_str(f, "message", d->status == PMU_OK ? NULL : d->msg);
	fputs(",\"engines\":[", f);
	for (i = 0; d->status == PMU_OK && i < d->neng; i++) {
		const struct pmu_engine *e = &d->eng[i];

		pmu_engine_name(e, name, sizeof(name));
		fprintf(f,
			"%s{\"name\":\"%s\",\"class\":\"%s\",\"class_id\":%u,\"instance\":%u,\"gt\":%u",
			i ? "," : "", name,
			pmu_class_name(e->cls, cls, sizeof(cls)), e->cls,
			e->inst, e->gt);
		fprintf(f, ",\"active_ticks\":%llu,\"total_ticks\":%llu",
			(unsigned long long)e->active,
			(unsigned long long)e->total);
		json_opt_u64(f, "delta_active", e->ok, e->d_active);
		json_opt_u64(f, "delta_total", e->ok, e->d_total);
		if (e->ok)
			fprintf(f, ",\"busy\":%.4f}", e->pct);
		else
			fputs(",\"busy\":null}", f);
	}
	fputs("]}\n", f);
}

const struct drm_cgroup_acc *cgroup_acc_find(const struct drm_scan *s,
					     const char *devname,
					     const struct drm_cgroup *cg,
					     const char *engine)
{
	size_t i;

	for (i = 0; i < s->nacc; i++)
		if (s->acc[i].cgroup == cg && name_eq(s->acc[i].devname, devname) &&
		    name_eq(s->acc[i].engine, engine))
			return &s->acc[i];
	return NULL;
}

/* One object per device and cgroup, after the clients */
static void print_json_cgroups(FILE *f, const struct drm_scan *s,
			       struct drm_client *const *v, size_t n,
			       const struct view_opts *o, unsigned long iter,
			       unsigned long long rt_ms)
{
	struct drm_client **a;
	size_t na = view_aggregate(v, n, VIEW_CGROUP, o, &a), i, j, k;

	for (i = 0; i < na; i++) {
		const struct drm_client *c = a[i];
		const struct drm_cgroup *cg = c->fds[0].cgroup;

		fprintf(f,
			"{\"refresh\":%lu,\"record\":\"cgroup\",\"realtime_ms\":%llu,\"device\":",
			iter, rt_ms);
		json_str(f, c->devname);
		fprintf(f, ",\"driver\":");
		json_str(f, c->info.driver);
		json_opt_str(f, "cgroup", cg && *cg->path ? cg->path : NULL);
		fprintf(f, ",\"name\":");
		json_str(f, c->fds[0].comm);
		fprintf(f, ",\"clients\":%zu,\"processes\":%zu,\"engines\":{",
			c->nagg, c->nproc);
		for (j = 0; j < c->neng; j++) {
			const struct client_engine *ce = &c->eng[j];
			const struct drm_cgroup_acc *acc;

			fprintf(f, "%s", j ? "," : "");
			json_str(f, ce->name);
			fprintf(f, ":{\"status\":\"%s\",\"capacity\":%llu",
				util_status_name[ce->res.status],
				(unsigned long long)ce->res.capacity);
			if (ce->res.status == UTIL_OK)
				fprintf(f, ",\"utilization\":%.4f", ce->res.pct);
			else
				fprintf(f, ",\"utilization\":null");
			acc = cg ? cgroup_acc_find(s, c->devname, cg, ce->name) :
				   NULL;
			fprintf(f, ",\"engine_seconds\":%.9f}",
				acc ? acc->busy_ns / 1e9 : 0.0);
		}
		fprintf(f, "},\"memory\":{");
		for (j = 0; j < c->info.n_regions; j++) {
			const struct fdinfo_region *r = &c->info.regions[j];
			int first = 1;

			fprintf(f, "%s", j ? "," : "");
			json_str(f, r->name);
			fputs(":{", f);
			for (k = 0; k < FDINFO_MEM_KINDS; k++) {
				if (!(r->present & (1u << k)))
					continue;
				fprintf(f, "%s\"%s\":%llu", first ? "" : ",",
					fdinfo_mem_kind_name[k],
					(unsigned long long)r->bytes[k]);
				first = 0;
			}
			fputc('}', f);
		}
		fputs("}}\n", f);
	}
	view_agg_free(a, na);
}

void print_json(FILE *f, const struct drm_scan *s, const struct view_opts *o,
		unsigned long iter)
{
	struct drm_client **v;
	size_t n = view_clients(s, o, &v), i, j, k;
	unsigned long long rt_ms;
	struct timespec rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	rt_ms = (unsigned long long)rt.tv_sec * 1000 + rt.tv_nsec / 1000000;
	for (i = 0; s->pmu && i < s->pmu->ndevs; i++) {
		const struct pmu_dev *d = s->pmu->devs[i];

		if (d->status != PMU_NONE && pmu_dev_match(d, o->filter, v, n))
			print_json_pmu(f, d, iter, rt_ms);
	}
	for (i = 0; i < n; i++) {
		const struct drm_client *c = v[i];

		fprintf(f,
			"{\"refresh\":%lu,\"record\":\"client\",\"timestamp_ns\":%llu,\"realtime_ms\":%llu,\"device\":",
			iter, (unsigned long long)c->ts_ns, rt_ms);
		json_str(f, c->devname);
		fprintf(f, ",\"driver\":");
		json_str(f, c->info.driver);
		fprintf(f, ",\"pdev\":");
		if (c->info.pdev)
			json_str(f, c->info.pdev);
		else
			fprintf(f, "null");
		fprintf(f, ",\"dev\":\"%u:%u\"", major(c->rdev),
			minor(c->rdev));
		json_opt_u64(f, "client_id", c->info.has_client_id,
			     c->info.client_id);
		fprintf(f, ",\"client_name\":");
		if (c->info.client_name)
			json_str(f, c->info.client_name);
		else
			fprintf(f, "null");
		json_opt_str(f, "cgroup", client_cgroup(c) &&
			     *client_cgroup(c)->path ? client_cgroup(c)->path :
			     NULL);
		fprintf(f, ",\"pids\":[");
		print_pids(f, c, ",");
		fprintf(f, "],\"fds\":[");
		for (j = 0; j < c->nfds; j++) {
			fprintf(f, "%s{\"pid\":%d,\"fd\":%d,\"comm\":",
				j ? "," : "", (int)c->fds[j].pid, c->fds[j].fd);
			json_str(f, c->fds[j].comm);
			fputc('}', f);
		}
		fprintf(f, "],\"engines\":{");
		for (j = 0, k = 0; j < c->neng; j++) {
			const struct client_engine *ce = &c->eng[j];
			const struct fdinfo_engine *e = ce->cur;
			const struct util_result *r = &ce->res;

			if (!e)
				continue;
			fprintf(f, "%s", k++ ? "," : "");
			json_str(f, ce->name);
			fprintf(f, ":{");
			fprintf(f, "\"method\":\"%s\",\"status\":\"%s\"",
				util_method_name[r->method],
				util_status_name[r->status]);
			json_opt_u64(f, "ns", e->has_ns, e->ns);
			json_opt_u64(f, "cycles", e->has_cycles, e->cycles);
			json_opt_u64(f, "total_cycles", e->has_total_cycles,
				     e->total_cycles);
			json_opt_u64(f, "maxfreq_hz", e->has_maxfreq,
				     e->maxfreq_hz);
			json_opt_u64(f, "curfreq_hz", e->has_curfreq,
				     e->curfreq_hz);
			fprintf(f, ",\"capacity\":%llu",
				(unsigned long long)r->capacity);
			json_opt_u64(f, "delta", r->status == UTIL_OK,
				     r->delta);
			json_opt_u64(f, "delta_total", r->status == UTIL_OK,
				     r->delta_total);
			json_opt_u64(f, "dt_ns", r->status != UTIL_FIRST &&
				     r->status != UTIL_NO_DATA, r->dt_ns);
			if (r->status == UTIL_OK)
				fprintf(f, ",\"utilization\":%.4f", r->pct);
			else
				fprintf(f, ",\"utilization\":null");
			fprintf(f, ",\"over_100\":%s}",
				r->status == UTIL_OK && r->over ? "true" :
				"false");
		}
		fprintf(f, "},\"memory\":{");
		for (j = 0; j < c->info.n_regions; j++) {
			const struct fdinfo_region *r = &c->info.regions[j];
			int m, first = 1;

			fprintf(f, "%s", j ? "," : "");
			json_str(f, r->name);
			fputs(":{", f);
			for (m = 0; m < FDINFO_MEM_KINDS; m++) {
				if (!(r->present & (1u << m)))
					continue;
				fprintf(f, "%s\"%s\":%llu",
					first ? "" : ",",
					fdinfo_mem_kind_name[m],
					(unsigned long long)r->bytes[m]);
				first = 0;
			}
			fputc('}', f);
		}
		fprintf(f, "},\"malformed_lines\":%u", c->info.malformed);
		fprintf(f, ",\"unreadable_processes\":%zu}\n", s->nunreadable);
	}
	print_json_cgroups(f, s, v, n, o, iter, rt_ms);
	fflush(f);
	free(v);
}

static void prom_str(FILE *f, const char *s)
{
	str_escape_fputs(s, STR_ESC_PROM, f);
}

static void prom_labels(FILE *f, const struct drm_client *c)
{
	fputs("{driver=\"", f);
	prom_str(f, c->info.driver);
	fputs("\",device=\"", f);
	prom_str(f, c->devname);
	fprintf(f, "\",client_id=\"%llu\",pid=\"%d\",pids=\"",
		(unsigned long long)c->info.client_id, (int)c->fds[0].pid);
	print_pids(f, c, ",");
	fputs("\",comm=\"", f);
	prom_str(f, c->fds[0].comm);
	fputc('"', f);
}

enum prom_val {
	P_NS, P_CYCLES, P_TOTAL, P_CAP, P_MAXF, P_CURF, P_UTIL, P_MEM
};

/* A metric of the Prometheus text format: its name, TYPE and HELP */
struct prom_metric {
	const char *name, *type, *help;
};

/* The "# HELP" and "# TYPE" lines of m */
static void prom_head(FILE *f, const struct prom_metric *m)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
		m->type);
}

static const struct prom_metric prom_metrics[] = {
	[P_NS] = {
		"drm_client_engine_busy_seconds_total", "counter",
		"Time the engine class was busy with this client (drm-engine-<class>).",
	},
	[P_CYCLES] = {
		"drm_client_engine_cycles_total", "counter",
		"Busy cycles of the engine class for this client (drm-cycles-<class>).",
	},
	[P_TOTAL] = {
		"drm_client_engine_total_cycles_total", "counter",
		"Total cycles elapsed on the engine class (drm-total-cycles-<class>).",
	},
	[P_CAP] = {
		"drm_client_engine_capacity", "gauge",
		"Number of identical engines in the class (drm-engine-capacity-<class>, default 1).",
	},
	[P_MAXF] = {
		"drm_client_engine_max_frequency_hertz", "gauge",
		"Maximum engine frequency (drm-maxfreq-<class>).",
	},
	[P_CURF] = {
		"drm_client_engine_frequency_hertz", "gauge",
		"Current engine frequency (drm-curfreq-<class>).",
	},
	[P_UTIL] = {
		"drm_client_engine_utilization_ratio", "gauge",
		"Utilisation of the engine class over the last refresh interval, 1 = 100%, divided by capacity; absent when undefined.",
	},
	[P_MEM] = {
		"drm_client_memory_bytes", "gauge",
		"Memory of the client per region and kind (drm-<kind>-<region>; kind=memory is the legacy drm-memory-<region>).",
	},
};

/* Format the value of metric m for one engine; false when it has none. */
static bool prom_engine_val(char *val, size_t size, int m,
			    const struct client_engine *ce)
{
	const struct fdinfo_engine *e = ce->cur;
	uint64_t v;

	if (m == P_NS && e->has_ns) {
		snprintf(val, size, "%llu.%09llu",
			 (unsigned long long)(e->ns / 1000000000),
			 (unsigned long long)(e->ns % 1000000000));
		return true;
	}
	if (m == P_UTIL && ce->res.status == UTIL_OK) {
		snprintf(val, size, "%.6f", ce->res.pct / 100.0);
		return true;
	}
	if (m == P_CYCLES && e->has_cycles)
		v = e->cycles;
	else if (m == P_TOTAL && e->has_total_cycles)
		v = e->total_cycles;
	else if (m == P_CAP)
		v = ce->res.capacity;
	else if (m == P_MAXF && e->has_maxfreq)
		v = e->maxfreq_hz;
	else if (m == P_CURF && e->has_curfreq)
		v = e->curfreq_hz;
	else
		return false;
	snprintf(val, size, "%llu", (unsigned long long)v);
	return true;
}

static void prom_engines(FILE *f, const struct drm_client *c, int m)
{
	size_t j;

	for (j = 0; j < c->neng; j++) {
		const struct client_engine *ce = &c->eng[j];
		char val[48];

		if (!ce->cur || !prom_engine_val(val, sizeof(val), m, ce))
			continue;
		fprintf(f, "%s", prom_metrics[m].name);
		prom_labels(f, c);
		fputs(",engine=\"", f);
		prom_str(f, ce->name);
		fprintf(f, "\"} %s\n", val);
	}
}

static void prom_memory(FILE *f, const struct drm_client *c)
{
	size_t j;
	int k;

	for (j = 0; j < c->info.n_regions; j++) {
		const struct fdinfo_region *r = &c->info.regions[j];

		for (k = 0; k < FDINFO_MEM_KINDS; k++) {
			if (!(r->present & (1u << k)))
				continue;
			fprintf(f, "%s", prom_metrics[P_MEM].name);
			prom_labels(f, c);
			fputs(",region=\"", f);
			prom_str(f, r->name);
			fprintf(f, "\",kind=\"%s\"} %llu\n",
				fdinfo_mem_kind_name[k],
				(unsigned long long)r->bytes[k]);
		}
	}
}

/*
 * The default series: sums per device and engine class or memory region,
 * and per command name on a device. Their labels take a few values each,
 * where a pid or a client id takes a new one with each process.
 */
enum prom_agg {
	A_CLIENTS, A_UTIL, A_MEM, A_COMM_CLIENTS, A_COMM_UTIL, A_COMM_MEM,
	A_COUNT
};

static const struct prom_metric prom_agg_metrics[] = {
	[A_CLIENTS] = {
		"drm_clients", "gauge",
		"DRM clients (open DRM files) on the device.",
	},
	[A_UTIL] = {
		"drm_engine_utilization_ratio", "gauge",
		"Sum over the device's clients of their utilisation of the engine class over the last refresh interval, divided by capacity, 1 = 100%; absent until a client has two samples.",
	},
	[A_MEM] = {
		"drm_memory_bytes", "gauge",
		"Sum over the device's clients of their memory per region and kind (drm-<kind>-<region>; kind=memory is the legacy drm-memory-<region>).",
	},
	[A_COMM_CLIENTS] = {
		"drm_command_clients", "gauge",
		"DRM clients on the device whose first process has this command name.",
	},
	[A_COMM_UTIL] = {
		"drm_command_engine_utilization_ratio", "gauge",
		"drm_engine_utilization_ratio summed over the clients of one command name.",
	},
	[A_COMM_MEM] = {
		"drm_command_memory_bytes", "gauge",
		"drm_memory_bytes summed over the clients of one command name.",
	},
};

static const char *client_comm(const struct drm_client *c)
{
	return c->fds[0].comm ? c->fds[0].comm : "";
}

/* Whether a and b fall into the same series of m (comm: same command). */
static bool agg_same(const struct drm_client *a, const struct drm_client *b,
		     bool comm)
{
	return !strcmp(a->devname, b->devname) &&
	       !strcmp(a->info.driver, b->info.driver) &&
	       (!comm || !strcmp(client_comm(a), client_comm(b)));
}

static void agg_labels(FILE *f, const struct drm_client *c, bool comm)
{
	fputs("{driver=\"", f);
	prom_str(f, c->info.driver);
	fputs("\",device=\"", f);
	prom_str(f, c->devname);
	if (comm) {
		fputs("\",comm=\"", f);
		prom_str(f, client_comm(c));
	}
	fputc('"', f);
}

/* Whether an earlier client than v[i] has engine or region name. */
static bool agg_seen(struct drm_client *const *v, size_t i, bool comm,
		     bool mem, const char *name, int kind)
{
	const struct fdinfo_region *r;
	size_t j;

	for (j = 0; j < i; j++) {
		if (!agg_same(v[j], v[i], comm))
			continue;
		if (!name)
			return true;
		if (!mem && client_engine(v[j], name))
			return true;
		r = mem ? fdinfo_find_region(&v[j]->info, name) : NULL;
		if (r && (r->present & (1u << kind)))
			return true;
	}
	return false;
}

static void prom_agg_util(FILE *f, struct drm_client *const *v, size_t n,
			  size_t i, bool comm)
{
	const char *name = prom_agg_metrics[comm ? A_COMM_UTIL : A_UTIL].name;
	size_t e, j;

	for (e = 0; e < v[i]->neng; e++) {
		const char *eng = v[i]->eng[e].name;
		double sum = 0;
		bool any = false;

		if (!v[i]->eng[e].cur || agg_seen(v, i, comm, false, eng, 0))
			continue;
		for (j = i; j < n; j++) {
			const struct client_engine *ce;

			if (!agg_same(v[j], v[i], comm))
				continue;
			ce = client_engine(v[j], eng);
			if (ce && ce->res.status == UTIL_OK) {
				sum += ce->res.pct / 100.0;
				any = true;
			}
		}
		if (!any)
			continue;
		fputs(name, f);
		agg_labels(f, v[i], comm);
		fputs(",engine=\"", f);
		prom_str(f, eng);
		fprintf(f, "\"} %.6f\n", sum);
	}
}

static void prom_agg_mem(FILE *f, struct drm_client *const *v, size_t n,
			 size_t i, bool comm)
{
	const char *name = prom_agg_metrics[comm ? A_COMM_MEM : A_MEM].name;
	size_t r, j;
	int k;

	for (r = 0; r < v[i]->info.n_regions; r++) {
		const struct fdinfo_region *reg = &v[i]->info.regions[r];

		for (k = 0; k < FDINFO_MEM_KINDS; k++) {
			uint64_t sum = 0;

			if (!(reg->present & (1u << k)) ||
			    agg_seen(v, i, comm, true, reg->name, k))
				continue;
			for (j = i; j < n; j++) {
				const struct fdinfo_region *o;

				if (!agg_same(v[j], v[i], comm))
					continue;
				o = fdinfo_find_region(&v[j]->info, reg->name);
				if (o && (o->present & (1u << k)))
					sum += o->bytes[k];
			}
			fputs(name, f);
			agg_labels(f, v[i], comm);
			fputs(",region=\"", f);
			prom_str(f, reg->name);
			fprintf(f, "\",kind=\"%s\"} %llu\n",
				fdinfo_mem_kind_name[k],
				(unsigned long long)sum);
		}
	}
}

static void prom_agg(FILE *f, struct drm_client *const *v, size_t n,
		     enum prom_agg m)
{
	bool comm = m >= A_COMM_CLIENTS;
	size_t i, j, count;

	for (i = 0; i < n; i++) {
		switch (m) {
		case A_CLIENTS:
		case A_COMM_CLIENTS:
			if (agg_seen(v, i, comm, false, NULL, 0))
				break;
			for (j = i, count = 0; j < n; j++)
				count += agg_same(v[j], v[i], comm);
			fputs(prom_agg_metrics[m].name, f);
			agg_labels(f, v[i], comm);
			fprintf(f, "} %zu\n", count);
			break;
		case A_UTIL:
		case A_COMM_UTIL:
			prom_agg_util(f, v, n, i, comm);
			break;
		default:
			prom_agg_mem(f, v, n, i, comm);
			break;
		}
	}
}

static const struct prom_metric prom_pmu_metrics[] = {
	{
		"drmtop_engine_pmu_up", "gauge",
		"1 if the engine metrics of the device's PMU are read, 0 if not (no permission, driver unbound, ...).",
	}, {
		"drmtop_engine_active_ticks_total", "counter",
		"Ticks of the device's reference clock during which the engine instance was busy (PMU event engine-active-ticks).",
	}, {
		"drmtop_engine_total_ticks_total", "counter",
		"Ticks of the device's reference clock elapsed (PMU event engine-total-ticks).",
	}, {
		"drmtop_engine_utilization_ratio", "gauge",
		"Busyness of the engine instance over the last refresh interval from its PMU, 1 = 100%; absent when undefined.",
	},
};

static void prom_pmu(FILE *f, const struct pmu_dev *d, unsigned int m)
{
	char cls[16];
	size_t i;

	if (m == 0) {
		fprintf(f, "%s{device=\"", prom_pmu_metrics[m].name);
		prom_str(f, d->name);
		fputs("\",driver=\"", f);
		prom_str(f, d->driver ? d->driver : "");
		fputs("\",pmu=\"", f);
		prom_str(f, d->pmu);
		fprintf(f, "\"} %d\n", d->status == PMU_OK);
		return;
	}
	for (i = 0; d->status == PMU_OK && i < d->neng; i++) {
		const struct pmu_engine *e = &d->eng[i];

		if (m == 3 && !e->ok)
			continue;
		fprintf(f, "%s{device=\"", prom_pmu_metrics[m].name);
		prom_str(f, d->name);
		fputs("\",driver=\"", f);
		prom_str(f, d->driver ? d->driver : "");
		fputs("\",pmu=\"", f);
		prom_str(f, d->pmu);
		fprintf(f, "\",class=\"%s\",instance=\"%u\",gt=\"%u\"} ",
			pmu_class_name(e->cls, cls, sizeof(cls)), e->inst,
			e->gt);
		if (m == 3)
			fprintf(f, "%.6f\n", e->pct / 100.0);
		else
			fprintf(f, "%llu\n", (unsigned long long)
				(m == 1 ? e->active : e->total));
	}
}

/*
 * Per cgroup and device: one series per cgroup and engine class or memory
 * region, whatever the number of clients and processes in it.
 */
enum prom_cg { G_CLIENTS, G_PROCS, G_UTIL, G_SECONDS, G_MEM, G_COUNT };

static const struct prom_metric prom_cg_metrics[] = {
	[G_CLIENTS] = {
		"drm_cgroup_clients", "gauge",
		"DRM clients on the device whose first process is in the cgroup (cgroup v2 path).",
	},
	[G_PROCS] = {
		"drm_cgroup_processes", "gauge",
		"Processes holding the DRM clients of the cgroup on the device.",
	},
	[G_UTIL] = {
		"drm_cgroup_engine_utilization_ratio", "gauge",
		"Sum over the cgroup's clients of their utilisation of the engine class over the last refresh interval, divided by capacity, 1 = 100%; absent until a client has two samples.",
	},
	[G_SECONDS] = {
		"drm_cgroup_engine_seconds_total", "counter",
		"Busy time of the engine class (its engines summed: utilisation x capacity x time) of every client the cgroup had since drmtop started, each up to its last sample.",
	},
	[G_MEM] = {
		"drm_cgroup_memory_bytes", "gauge",
		"Sum over the cgroup's clients of their memory per region and kind.",
	},
};

static void cg_labels(FILE *f, const char *driver, const char *devname,
		      const struct drm_cgroup *cg)
{
	fputs("{driver=\"", f);
	prom_str(f, driver);
	fputs("\",device=\"", f);
	prom_str(f, devname);
	fputs("\",cgroup=\"", f);
	prom_str(f, cg ? cg->path : "");
	fputc('"', f);
}

/* Whether accumulator a is shown with o: --cgroup, and driver= or device=. */
static bool acc_match(const struct drm_cgroup_acc *a, const struct view_opts *o)
{
	const char *f = o->filter;

	if (o->cgroup && !cgroup_match(a->cgroup->path, o->cgroup))
		return false;
	if (f && !strncmp(f, "driver=", 7))
		return !strcmp(a->driver, f + 7);
	if (f && !strncmp(f, "device=", 7))
		return !strcmp(a->devname, f + 7);
	return true;
}

static void prom_cgroups(FILE *f, const struct drm_scan *s,
			 struct drm_client *const *a, size_t na,
			 const struct view_opts *o, enum prom_cg m)
{
	size_t i, j;
	int k;

	if (m == G_SECONDS) {
		for (i = 0; i < s->nacc; i++) {
			const struct drm_cgroup_acc *acc = &s->acc[i];

			if (!acc_match(acc, o))
				continue;
			fputs(prom_cg_metrics[m].name, f);
			cg_labels(f, acc->driver, acc->devname, acc->cgroup);
			fputs(",engine=\"", f);
			prom_str(f, acc->engine);
			fprintf(f, "\"} %llu.%09llu\n",
				(unsigned long long)(acc->busy_ns / 1000000000),
				(unsigned long long)(acc->busy_ns % 1000000000));
		}
		return;
	}
	for (i = 0; i < na; i++) {
		const struct drm_client *c = a[i];

		switch (m) {
		case G_CLIENTS:
		case G_PROCS:
			fputs(prom_cg_metrics[m].name, f);
			cg_labels(f, c->info.driver, c->devname, c->fds[0].cgroup);
			fprintf(f, "} %zu\n", m == G_CLIENTS ? c->nagg : c->nproc);
			break;
		case G_UTIL:
			for (j = 0; j < c->neng; j++) {
				if (c->eng[j].res.status != UTIL_OK)
					continue;
				fputs(prom_cg_metrics[m].name, f);
				cg_labels(f, c->info.driver, c->devname,
					  c->fds[0].cgroup);
				fputs(",engine=\"", f);
				prom_str(f, c->eng[j].name);
				fprintf(f, "\"} %.6f\n", c->eng[j].res.pct / 100.0);
			}
			break;
		default:
			for (j = 0; j < c->info.n_regions; j++) {
				const struct fdinfo_region *r = &c->info.regions[j];

				for (k = 0; k < FDINFO_MEM_KINDS; k++) {
					if (!(r->present & (1u << k)))
						continue;
					fputs(prom_cg_metrics[m].name, f);
					cg_labels(f, c->info.driver, c->devname,
						  c->fds[0].cgroup);
					fputs(",region=\"", f);
					prom_str(f, r->name);
					fprintf(f, "\",kind=\"%s\"} %llu\n",
						fdinfo_mem_kind_name[k],
						(unsigned long long)r->bytes[k]);
				}
			}
			break;
		}
	}
}

/* What the scan found, after the series */
enum prom_scan { S_UNREADABLE, S_MALFORMED, S_CLIENTS, S_COUNT };

static const struct prom_metric prom_scan_metrics[] = {
	[S_UNREADABLE] = {
		"drmtop_unreadable_processes", "gauge",
		"Processes whose file descriptors could not be read (run as root to see them).",
	},
	[S_MALFORMED] = {
		"drmtop_malformed_lines", "gauge",
		"fdinfo lines of the listed clients that could not be parsed.",
	},
	[S_CLIENTS] = {
		"drmtop_clients", "gauge",
		"DRM clients found.",
	},
};

void print_prometheus(FILE *f, const struct drm_scan *s,
		      const struct view_opts *o)
{
	struct drm_client **v, **a;
	size_t n = view_clients(s, o, &v), i, na;
	const size_t scan_val[S_COUNT] = {
		[S_UNREADABLE] = s->nunreadable,
		[S_MALFORMED] = s->malformed,
		[S_CLIENTS] = n,
	};
	unsigned int pm;
	int m;

	for (m = 0; m < A_COUNT; m++) {
		prom_head(f, &prom_agg_metrics[m]);
		prom_agg(f, v, n, m);
	}
	na = view_aggregate(v, n, VIEW_CGROUP, o, &a);
	for (m = 0; m < G_COUNT; m++) {
		prom_head(f, &prom_cg_metrics[m]);
		prom_cgroups(f, s, a, na, o, m);
	}
	view_agg_free(a, na);
	for (m = P_NS; o->per_client && m <= P_MEM; m++) {
		prom_head(f, &prom_metrics[m]);
		for (i = 0; i < n; i++) {
			if (m == P_MEM)
				prom_memory(f, v[i]);
			else
				prom_engines(f, v[i], m);
		}
	}
	for (pm = 0; pm < ARRAY_SIZE(prom_pmu_metrics); pm++) {
		prom_head(f, &prom_pmu_metrics[pm]);
		for (i = 0; s->pmu && i < s->pmu->ndevs; i++) {
			const struct pmu_dev *d = s->pmu->devs[i];

			if (d->status != PMU_NONE &&
			    pmu_dev_match(d, o->filter, v, n))
				prom_pmu(f, d, pm);
		}
	}
	for (m = 0; m < S_COUNT; m++) {
		prom_head(f, &prom_scan_metrics[m]);
		fprintf(f, "%s %zu\n", prom_scan_metrics[m].name, scan_val[m]);
	}
	fflush(f);
	free(v);
}
