// SPDX-License-Identifier: GPL-2.0-only
/*
 * Interactive ncurses view of drmtop
 */
#include <limits.h>
#include <math.h>
#include <ncurses.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "output.h"
#include "pmu.h"
#include "scan.h"
#include "tui.h"

#define BAR_W 10
#define CELL_W (BAR_W + 10)	/* "[" bar "] " "100.0%" "!" */
#define COMPACT_W 8		/* " 100.0%!": no bar, where the bars do not fit */
#define NOTE_W 18		/* " (+N idle engines)" */
#define ENG_BAR_W 7
#define ENG_W (ENG_BAR_W + 19)	/* name " [" bar "] " "100.0%" "!" */
#define MEM_W 10		/* a memory column: "%9s " */

struct strv {
	char **v;
	size_t n, cap;
};

/*
 * The scrolled part of the screen, below the title and warning lines and
 * above the key line. Rows are numbered from 0 for the whole content
 * (devices, engine headers, column headers, clients); rows [scroll,
 * scroll + h) are drawn at screen lines [top, top + h).
 */
struct layout {
	int top, h;		/* first screen line and lines of the part */
	int scroll;		/* first content row shown */
	int rows;		/* content rows counted so far */
	int sel_row;		/* content row of the selected client, or -1 */
	int sel_top;		/* first row to show with it */
	const struct drm_client *sel;	/* the selected row's client */
};

/* Count the next content row; its screen line, or -1 if not shown. */
static int layout_row(struct layout *l)
{
	int r = l->rows++;

	if (r < l->scroll || r >= l->scroll + l->h)
		return -1;
	return l->top + r - l->scroll;
}

static void strv_add_unique(struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return;
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;
		char **v = realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return;
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = (char *)s;	/* borrowed */
}

/* The memory columns show resident memory, not total ('m' toggles). */
static bool mem_resident;

/* What a row is: a client, a process, a device or a cgroup ('v' cycles). */
static enum view_mode view;
static const char *const view_names[VIEW_MODES] = {
	"clients", "processes", "devices", "cgroups",
};

/*
 * A client's memory in one region, total (or legacy drm-memory-) or
 * resident; false when the client has no such key for the region.
 */
static bool region_mem(const struct drm_client *c, const char *name,
		       uint64_t *bytes)
{
	const struct fdinfo_region *r = fdinfo_find_region(&c->info, name);
	enum fdinfo_mem_kind k = mem_resident ? FDINFO_MEM_RESIDENT :
						FDINFO_MEM_TOTAL;

	if (!r)
		return false;
	if (!(r->present & (1u << k)))
		k = FDINFO_MEM_LEGACY;
	if (!(r->present & (1u << k)))
		return false;
	*bytes = r->bytes[k];
	return true;
}

/* Columns taken by one character or escape from str_escape_char(). */
static int str_cols(const char *s, size_t len)
{
	wchar_t wc;
	int w;

	if ((unsigned char)s[0] < 0x80)
		return len;	/* ASCII: a character or an escape */
	if (mbtowc(&wc, s, len) <= 0)
		return len;
	w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

/*
 * Draw s, escaped for the terminal, in at most cols columns: cut before
 * the first character or escape that does not fit, then pad with blanks
 * to pad columns.
 */
static void put_str(const char *s, int cols, int pad, enum str_esc esc)
{
	size_t len = s ? strlen(s) : 0, n, on;
	char one[STR_ESC_MAX];
	int w, used = 0;

	while (len) {
		n = str_escape_char(s, len, esc, one, &on);
		w = str_cols(one, on);
		if (used + w > cols)
			break;
		addnstr(one, on);
		used += w;
		s += n;
		len -= n;
	}
	for (; used < pad; used++)
		addch(' ');
}

/* Columns left on the line of the cursor. */
static int cols_left(void)
{
	return COLS - getcurx(stdscr);
}

/* Columns put_str() takes for all of s. */
static int str_width(const char *s, enum str_esc esc)
{
	size_t len = s ? strlen(s) : 0, n, on;
	char one[STR_ESC_MAX];
	int used = 0;

	while (len) {
		n = str_escape_char(s, len, esc, one, &on);
		used += str_cols(one, on);
		s += n;
		len -= n;
	}
	return used;
}

/* The percentage of an engine cell, bold with '!' over 100 %, or why none */
static void draw_pct(const struct client_engine *e)
{
	if (e->res.status != UTIL_OK) {
		printw(e->res.status == UTIL_NO_DATA ? "    n/a " : "      - ");
		return;
	}
	if (e->res.over)
		attron(A_BOLD);
	printw(" %5.1f%%%c", e->res.pct, e->res.over ? '!' : ' ');
	if (e->res.over)
		attroff(A_BOLD);
}

/*
 * An engine cell of w columns (its blank included): "[bar] pct", or the
 * percentage alone when compact. '-' is no value yet (a first sample, a
 * counter gone backwards, no time between the samples), "n/a" no data at
 * all (the client's file has no counter for the class).
 */
static void draw_cell(int y, int x, int w, bool compact,
		      const struct client_engine *e)
{
	int i, fill;

	if (!e) {
		mvprintw(y, x, "%*s", w - 1, "");
		return;
	}
	if (compact) {
		move(y, x);
		printw("%*s", w - COMPACT_W, "");
		draw_pct(e);
		return;
	}
	mvaddch(y, x, '[');
	fill = 0;
	if (e->res.status == UTIL_OK) {
		double p = e->res.pct > 100 ? 100 : e->res.pct;

		fill = (int)(p * BAR_W / 100.0 + 0.5);
	}
	for (i = 0; i < BAR_W; i++)
		addch(i < fill ? '|' : ' ');
	addch(']');
	draw_pct(e);
	printw("%*s", w - CELL_W, "");
}

/* The engine header of a device: its PMU's engines, or why there are none. */
static void draw_engines(struct layout *l, const struct drm_scan *s,
			 const char *devname, enum str_esc esc)
{
	const struct pmu_dev *d = pmu_find_dev(s->pmu, devname);
	int i, fill, y = -1;
	int per_line = (COLS - 2) / ENG_W > 0 ? (COLS - 2) / ENG_W : 1;
	char name[32];
	size_t j;

	if (!s->pmu)
		return;
	if (!d || d->status != PMU_OK) {
		y = layout_row(l);
		if (y < 0)
			return;
		attron(A_DIM);
		move(y, 2);
		if (d && d->msg) {
			put_str(d->msg, cols_left(), 0, esc);
		} else {
			addstr("no PMU with engine-active-ticks for ");
			put_str(devname, cols_left(), 0, esc);
		}
		attroff(A_DIM);
		return;
	}
	for (j = 0; j < d->neng; j++) {
		const struct pmu_engine *e = &d->eng[j];

		if (j % per_line == 0)
			y = layout_row(l);
		if (y < 0)
			continue;
		move(y, 2 + (int)(j % per_line) * ENG_W);
		pmu_engine_name(e, name, sizeof(name));
		put_str(name, 8, 9, esc);
		addch('[');
		fill = e->ok ? (int)((e->pct > 100 ? 100 : e->pct) *
				     ENG_BAR_W / 100.0 + 0.5) : 0;
		for (i = 0; i < ENG_BAR_W; i++)
			addch(i < fill ? '|' : ' ');
		addch(']');
		if (e->ok && e->pct < 1000)
			printw(" %5.1f%%%s", e->pct, e->pct > 100 ? "!" : "");
		else
			printw(e->ok ? " >999%%!" : "      -");
	}
}

/*
 * History for the device view: a series per device and engine class (the
 * busyness of the class summed over the device's clients, as in the
 * device row) and per PMU engine instance, one point per refresh, kept
 * for HIST_NS.
 */
#define HIST_NS		60000000000ull
#define HIST_LABEL_W	10	/* "  " name, padded: the least, names are not cut */
#define HIST_VALUE_W	8	/* " 100.0%" */

/* pct is NAN where the series had no value: nothing is drawn after it */
struct hist_point {
	uint64_t t_ns;
	float pct;
};

struct hist_series {
	char *dev, *name;
	bool pmu;		/* an engine instance of the PMU */
	struct hist_point *p;	/* oldest first, from p[first] */
	size_t first, n, cap;
	double acc;		/* this refresh's sum */
	bool touched;		/* acc holds a value this refresh */
	uint64_t last_ok_ns;	/* of its latest point with a value */
};

static struct hist_series *hist;
static size_t nhist, cap_hist;

static struct hist_series *hist_get(const char *dev, const char *name,
				    bool pmu)
{
	struct hist_series *h;
	size_t i;

	for (i = 0; i < nhist; i++)
		if (hist[i].pmu == pmu && !strcmp(hist[i].name, name) &&
		    !strcmp(hist[i].dev, dev))
			return &hist[i];
	if (nhist == cap_hist) {
		size_t cap = cap_hist ? cap_hist * 2 : 8;
		void *p = realloc(hist, cap * sizeof(*hist));

		if (!p)
			return NULL;
		hist = p;
		cap_hist = cap;
	}
	h = &hist[nhist];
	memset(h, 0, sizeof(*h));
	h->dev = strdup(dev);
	h->name = strdup(name);
	h->pmu = pmu;
	if (!h->dev || !h->name) {
		free(h->dev);
		free(h->name);
		return NULL;
	}
	return &hist[nhist++];
}

static void hist_push(struct hist_series *h, uint64_t t, double pct)
{
	/* drop what is older than the window, compact when half is dropped */
	while (h->n && h->p[h->first].t_ns + HIST_NS < t) {
		h->first++;
		h->n--;
	}
	if (h->first && h->first >= h->n) {
		memmove(h->p, h->p + h->first, h->n * sizeof(*h->p));
		h->first = 0;
	}
	if (h->first + h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 32;
		void *p = realloc(h->p, cap * sizeof(*h->p));

		if (!p)
			return;
		h->p = p;
		h->cap = cap;
	}
	h->p[h->first + h->n].t_ns = t;
	h->p[h->first + h->n].pct = pct;
	h->n++;
}

/* After each refresh: a point per device and engine class and instance. */
static void hist_record(const struct drm_scan *s, uint64_t t)
{
	size_t i, j, k;

	for (k = 0; k < nhist; k++) {
		hist[k].acc = 0;
		hist[k].touched = false;
	}
	for (i = 0; i < s->nclients; i++) {
		const struct drm_client *c = s->clients[i];

		for (j = 0; j < c->neng; j++) {
			const struct client_engine *e = &c->eng[j];
			struct hist_series *h;

			if (!e->cur || e->res.status != UTIL_OK)
				continue;
			h = hist_get(c->devname, e->name, false);
			if (!h)
				continue;
			h->acc += e->res.pct;
			h->touched = true;
		}
	}
	for (i = 0; s->pmu && i < s->pmu->ndevs; i++) {
		const struct pmu_dev *d = s->pmu->devs[i];
		char name[32];

		if (d->status != PMU_OK)
			continue;
		for (j = 0; j < d->neng; j++) {
			struct hist_series *h;

			if (!d->eng[j].ok)
				continue;
			pmu_engine_name(&d->eng[j], name, sizeof(name));
			h = hist_get(d->name, name, true);
			if (!h)
				continue;
			h->acc = d->eng[j].pct;
			h->touched = true;
		}
	}
	/*
	 * A series without a value this refresh (its clients' counters
	 * stopped, or they are gone) gets a point without one: its graph
	 * stops there, and its value shows '-' as its rows do. One without
	 * a value for a whole window is forgotten.
	 */
	for (k = 0; k < nhist;) {
		struct hist_series *h = &hist[k];

		if (h->touched) {
			hist_push(h, t, h->acc);
			h->last_ok_ns = t;
		} else if (h->n && !isnan(h->p[h->first + h->n - 1].pct)) {
			hist_push(h, t, NAN);
		}
		if (h->touched || h->last_ok_ns + HIST_NS >= t) {
			k++;
			continue;
		}
		free(h->dev);
		free(h->name);
		free(h->p);
		hist[k] = hist[--nhist];
	}
}

static void hist_free(void)
{
	size_t k;

	for (k = 0; k < nhist; k++) {
		free(hist[k].dev);
		free(hist[k].name);
		free(hist[k].p);
	}
	free(hist);
	hist = NULL;
	nhist = 0;
	cap_hist = 0;
}

/*
 * One sparkline: the last minute in w columns, each column the latest
 * point at or before its end (blank before the first point); a level of
 * eight, block characters on a UTF-8 terminal, else ASCII.
 */
static void draw_spark(const struct hist_series *h, int w, uint64_t now,
		       bool utf8)
{
	static const char *const blocks[8] = {
		"\u2581", "\u2582", "\u2583", "\u2584",
		"\u2585", "\u2586", "\u2587", "\u2588",
	};
	static const char ascii[8] = { '_', '.', ',', '-', '=', '+', '*', '#' };
	const struct hist_point *p = h->p + h->first;
	uint64_t start = now > HIST_NS ? now - HIST_NS : 0;
	size_t k = 0;
	int i, lvl;
	double v;

	for (i = 0; i < w; i++) {
		uint64_t end = start + HIST_NS * (uint64_t)(i + 1) / (uint64_t)w;

		while (k < h->n && p[k].t_ns <= end)
			k++;
		if (!k) {
			addch(' ');
			continue;
		}
		v = p[k - 1].pct;
		if (isnan(v)) {
			addch(' ');
			continue;
		}
		v = v < 0 ? 0 : v > 100 ? 100 : v;
		lvl = (int)(v * 8 / 100.0);
		if (lvl > 7)
			lvl = 7;
		if (utf8)
			addstr(blocks[lvl]);
		else
			addch(ascii[lvl]);
	}
}

/* The device view: a row of history per engine class, then per instance. */
static void draw_history(struct layout *l, const char *dev, enum str_esc esc)
{
	int lw = HIST_LABEL_W, w, y, pass;
	uint64_t now = now_ns();
	float last;
	size_t k;

	/* the labels' column fits the longest name (video-enhance) */
	for (k = 0; k < nhist; k++)
		if (!strcmp(hist[k].dev, dev) && hist[k].n &&
		    str_width(hist[k].name, esc) + 3 > lw)
			lw = str_width(hist[k].name, esc) + 3;
	w = COLS - lw - HIST_VALUE_W;
	if (w < 1)
		return;
	for (pass = 0; pass < 2; pass++) {
		for (k = 0; k < nhist; k++) {
			const struct hist_series *h = &hist[k];

			if (h->pmu != pass || strcmp(h->dev, dev) || !h->n)
				continue;
			y = layout_row(l);
			if (y < 0)
				continue;
			move(y, 2);
			put_str(h->name, lw - 3, lw - 2, esc);
			draw_spark(h, w, now, esc == STR_ESC_TEXT);
			last = h->p[h->first + h->n - 1].pct;
			if (isnan(last))
				printw("      -");
			else
				printw(" %5.1f%%", last);
		}
	}
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"drmtop - per client GPU usage from DRM fdinfo",
		"",
		"  q quit   h ? this help (any key returns)   space p pause / resume",
		"  Up Down k j  move the selection bar; PgUp PgDn a page; Home End",
		"  < > arrows   previous / next sort column;  r  reverse sort order",
		"  f            set filter: driver=X device=X pid=N comm=X or text",
		"  C            cgroup filter: a cgroup v2 path, the rows in it or below",
		"  c            clear the filters",
		"  m            memory columns: total / resident",
		"  v            view: clients / processes / devices (+ last minute) /",
		"               cgroups (PR processes, CL clients; full path below)",
		"  + -          longer / shorter refresh delay",
		"",
		"Engine cells: [bar] percent, the percent alone if bars do not fit; '-' =",
		"no value yet (first sample, counter went backwards, time base stopped);",
		"'n/a' = no counter; '!' = above 100% (not clamped); ccs x4: capacity 4.",
		"A column per memory region: drm-total-<region> (or the legacy",
		"drm-memory-<region>), or with 'm' drm-resident-<region>; '-' = none.",
		"Under a device's name: the busyness of each engine instance from",
		"its perf PMU (engine-active-ticks / engine-total-ticks), or why not.",
		"Views sum clients per process, device or cgroup (CL: count).",
	};
	size_t i;

	erase();
	for (i = 0; i < ARRAY_SIZE(lines) && (int)i + 1 < LINES - 1; i++) {
		move(i + 1, 2);
		put_str(lines[i], cols_left(), 0, STR_ESC_ASCII);
	}
	if (i < ARRAY_SIZE(lines))
		mvprintw(LINES - 1, 0, "(help cut: %zu more lines) ",
			 ARRAY_SIZE(lines) - i);
	else
		mvprintw(LINES - 1, 0, "any key returns ");
	refresh();
}

/*
 * A column of a device's table: an engine class, with its capacity when
 * above 1 ("ccs×4", ASCII "ccs x4"), or a memory region. w is its width,
 * the blank after it included: labels are never cut.
 */
struct col {
	const char *name;
	char label[96];
	int w;
	bool busy;		/* a row of the device has it above 0 % */
	bool shown;
};

struct cols {
	struct col *v;
	size_t n, cap;
};

static struct col *cols_add(struct cols *cs, const char *name)
{
	size_t i;

	for (i = 0; i < cs->n; i++)
		if (!strcmp(cs->v[i].name, name))
			return &cs->v[i];
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 8;
		struct col *v = realloc(cs->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		cs->v = v;
		cs->cap = cap;
	}
	memset(&cs->v[cs->n], 0, sizeof(*cs->v));
	cs->v[cs->n].name = name;	/* borrowed */
	return &cs->v[cs->n++];
}

/*
 * Which columns fit in avail columns, and whether the engine cells are
 * compact: every engine with its bar and every region if they fit, else
 * compact engine cells; if those do not all fit either, the busy engines
 * first, then the regions, then the idle engines, as many as fit.
 */
static bool fit_cols(struct cols *engs, struct cols *regs, int avail,
		     enum str_esc esc)
{
	int full = 0, comp = 0, reg = 0, used = 0, lw, pass;
	bool compact;
	size_t j;

	for (j = 0; j < regs->n; j++) {
		lw = str_width(regs->v[j].name, esc) + 1;
		regs->v[j].w = lw > MEM_W ? lw : MEM_W;
		reg += regs->v[j].w;
	}
	for (j = 0; j < engs->n; j++) {
		lw = str_width(engs->v[j].label, esc) + 1;
		full += lw > CELL_W ? lw : CELL_W;
		comp += lw > COMPACT_W ? lw : COMPACT_W;
	}
	compact = full + reg > avail;
	for (j = 0; j < engs->n; j++) {
		lw = str_width(engs->v[j].label, esc) + 1;
		engs->v[j].w = compact ? (lw > COMPACT_W ? lw : COMPACT_W) :
					 (lw > CELL_W ? lw : CELL_W);
		engs->v[j].shown = !compact || comp + reg <= avail;
	}
	for (j = 0; j < regs->n; j++)
		regs->v[j].shown = !compact || comp + reg <= avail;
	if (!compact || comp + reg <= avail)
		return compact;
	avail -= NOTE_W;	/* room to say what is not shown */
	for (pass = 0; pass < 3; pass++) {
		struct cols *cs = pass == 1 ? regs : engs;

		for (j = 0; j < cs->n; j++) {
			struct col *c = &cs->v[j];

			if ((pass == 0 && !c->busy) || (pass == 2 && c->busy))
				continue;
			c->shown = used + c->w <= avail;
			if (c->shown)
				used += c->w;
		}
	}
	return compact;
}

/* Column headers of the table and the columns that do not fit. */
static void draw_col_heads(int y, const struct cols *engs,
			   const struct cols *regs, enum str_esc esc)
{
	size_t j, hidden = 0, hidden_busy = 0, hidden_regs = 0;
	int x, w;

	for (j = 0; j < engs->n; j++) {
		if (!engs->v[j].shown) {
			hidden++;
			hidden_busy += engs->v[j].busy;
			continue;
		}
		put_str(engs->v[j].label, engs->v[j].w - 1, engs->v[j].w, esc);
	}
	for (j = 0; j < regs->n; j++) {
		if (!regs->v[j].shown) {
			hidden_regs++;
			continue;
		}
		/* right aligned like the values */
		x = getcurx(stdscr);
		w = str_width(regs->v[j].name, esc);
		printw("%*s", regs->v[j].w - 1 - w, "");
		put_str(regs->v[j].name, regs->v[j].w - 1, 0, esc);
		addch(' ');
		move(y, x + regs->v[j].w);
	}
	if (hidden)
		printw(" (+%zu %sengines)", hidden, hidden_busy ? "" : "idle ");
	if (hidden_regs)
		printw(" (+%zu regions)", hidden_regs);
	if (!engs->n)
		printw(" (no engine data)");
}

/* The name of a row's cgroup for the cgroup column and view. */
static const char *row_cgroup_name(const struct drm_client *c)
{
	return c->fds[0].cgroup ? c->fds[0].cgroup->name : "-";
}

/* The scrolled part: devices, their engines and clients, in layout rows. */
static void draw_body(struct layout *l, struct drm_scan *s,
		      struct drm_client **v, size_t n, const struct strv *devs,
		      size_t sel, const struct view_opts *vo)
{
	enum str_esc esc = str_esc_text();
	struct cols engs = { 0 }, regs = { 0 };
	size_t i, j, d, shown = 0;
	int y, x, cgw = 0, lead;
	bool compact;
	uint64_t bytes;
	char b1[32];

	if (!n) {
		layout_row(l);
		y = layout_row(l);
		if (y >= 0)
			mvprintw(y, 2, "No DRM clients%s.",
				 vo->filter || vo->cgroup ? " match the filter" :
				 " found");
	}
	/*
	 * The cgroup column (client and process views), or the name column
	 * of the cgroup view: as wide as the longest name, up to a third of
	 * the screen (the selected row's full path is on its own line).
	 */
	for (i = 0; i < n; i++) {
		const struct drm_cgroup *cg = v[i]->fds[0].cgroup;
		int w;

		if (view == VIEW_DEVICE || !cg || (!*cg->path && view != VIEW_CGROUP))
			continue;
		w = str_width(cg->name, esc) + 1;
		if (w > cgw)
			cgw = w;
	}
	if (cgw) {
		int most = view == VIEW_CGROUP ? COLS / 3 : COLS / 5;

		if (cgw < 7)
			cgw = 7;
		if (cgw > most)
			cgw = most > 7 ? most : 7;
	}
	if (view == VIEW_CGROUP)
		lead = cgw + 10;	/* NAME, PR, CL */
	else
		lead = (view == VIEW_CLIENT ? 25 : 30) + cgw;
	for (d = 0; d < devs->n; d++) {
		const struct pmu_dev *pd = pmu_find_dev(s->pmu, devs->v[d]);
		const char *driver = pd && pd->driver ? pd->driver : "?";
		bool clients = false;
		int dev_row;

		engs.n = 0;
		regs.n = 0;
		for (i = 0; i < n; i++) {
			if (strcmp(v[i]->devname, devs->v[d]))
				continue;
			driver = v[i]->info.driver;
			clients = true;
			for (j = 0; j < v[i]->neng; j++) {
				const struct client_engine *e = &v[i]->eng[j];
				struct col *c;

				if (!e->cur)
					continue;
				c = cols_add(&engs, e->name);
				if (!c)
					continue;
				if (e->res.status == UTIL_OK && e->res.pct > 0)
					c->busy = true;
				if (e->res.capacity > 1 && !c->label[0])
					snprintf(c->label, sizeof(c->label),
						 "%s%s%llu", e->name,
						 esc == STR_ESC_TEXT ? "\u00d7" : " x",
						 (unsigned long long)e->res.capacity);
			}
			for (j = 0; j < v[i]->info.n_regions; j++)
				cols_add(&regs, v[i]->info.regions[j].name);
		}
		for (j = 0; j < engs.n; j++)
			if (!engs.v[j].label[0])
				snprintf(engs.v[j].label, sizeof(engs.v[j].label),
					 "%s", engs.v[j].name);
		compact = fit_cols(&engs, &regs, COLS - lead, esc);
		layout_row(l);		/* a blank line between devices */
		dev_row = l->rows;
		y = layout_row(l);
		if (y >= 0) {
			attron(A_BOLD);
			move(y, 0);
			put_str(devs->v[d], cols_left(), 0, esc);
			addstr(" (");
			put_str(driver, cols_left(), 0, esc);
			addch(')');
			attroff(A_BOLD);
		}
		draw_engines(l, s, devs->v[d], esc);
		if (view == VIEW_DEVICE)
			draw_history(l, devs->v[d], esc);
		if (!clients)
			continue;
		y = layout_row(l);
		if (y >= 0) {
			attron(A_UNDERLINE);
			move(y, 0);
			if (view == VIEW_CGROUP) {
				put_str("CGROUP", cgw - 1, cgw, esc);
				printw("%4s %4s ", "PR", "CL");
			} else {
				printw("%8s %-16s", view == VIEW_DEVICE ? "" :
				       "PID", view == VIEW_DEVICE ? "" : "COMM");
				if (view != VIEW_CLIENT)
					printw("%4s ", "CL");
				if (cgw)
					put_str("CGROUP", cgw - 1, cgw, esc);
			}
			move(y, lead);
			draw_col_heads(y, &engs, &regs, esc);
			attroff(A_UNDERLINE);
		}
		for (i = 0; i < n; i++) {
			struct drm_client *c = v[i];
			bool first = clients;

			if (strcmp(c->devname, devs->v[d]))
				continue;
			clients = false;	/* from now on: not the first */
			if (shown++ == sel) {
				l->sel_row = l->rows;
				l->sel_top = first ? dev_row : l->rows;
				l->sel = c;
			}
			y = layout_row(l);
			if (y < 0)
				continue;
			if (shown - 1 == sel)
				attron(A_REVERSE);
			move(y, 0);
			if (view == VIEW_CGROUP) {
				put_str(row_cgroup_name(c), cgw - 1, cgw, esc);
				printw("%4zu %4zu ", c->nproc, c->nagg);
			} else {
				if (view == VIEW_DEVICE)
					printw("%8s ", "all");
				else
					printw("%8d ", (int)c->fds[0].pid);
				put_str(c->fds[0].comm, 15, 16, esc);
				if (view != VIEW_CLIENT)
					printw("%4zu ", c->nagg);
				if (cgw)
					put_str(row_cgroup_name(c), cgw - 1, cgw,
						esc);
			}
			x = lead;
			for (j = 0; j < engs.n; j++) {
				if (!engs.v[j].shown)
					continue;
				draw_cell(y, x, engs.v[j].w, compact,
					  client_engine(c, engs.v[j].name));
				x += engs.v[j].w;
			}
			move(y, x);
			for (j = 0; j < regs.n; j++) {
				if (!regs.v[j].shown)
					continue;
				if (region_mem(c, regs.v[j].name, &bytes))
					fmt_bytes(b1, sizeof(b1), bytes);
				else
					snprintf(b1, sizeof(b1), "-");
				printw("%*s ", regs.v[j].w - 1, b1);
			}
			if (view != VIEW_CGROUP && c->nfds > 1 &&
			    c->fds[c->nfds - 1].pid != c->fds[0].pid)
				printw(" +pids");
			if (shown - 1 == sel) {
				/* the bar spans the line */
				while (getcurx(stdscr) < COLS - 1)
					addch(' ');
				attroff(A_REVERSE);
			}
		}
	}
	free(engs.v);
	free(regs.v);
}

/*
 * Draw a refresh. *sel is the selected client in the order shown (kept
 * within the clients), *scroll the first content row shown: moved so that
 * the selection is on screen, with its device's header when it is the
 * device's first client. *nshown gets the number of clients shown.
 */
static void draw(struct drm_scan *s, const struct view_opts *vo, double delay,
		 bool paused, size_t *sel, int *scroll, size_t *nshown)
{
	struct drm_client **v, **a = NULL;
	size_t n = view_clients(s, vo, &v), i, nclients = n, na = 0;
	struct strv devs = { 0 };
	enum str_esc esc = str_esc_text();
	struct layout l = { 0 };
	int y = 0, last, path_lines = 0, pw, i2;
	const char *path = "-";
	char title[1024];

	erase();
	if (view != VIEW_CLIENT) {
		/* the view's rows stand for the clients from here on */
		na = view_aggregate(v, n, view, vo, &a);
		free(v);
		v = a;
		n = na;
	}
	*nshown = n;
	if (*sel >= n)
		*sel = n ? n - 1 : 0;
	for (i = 0; i < n; i++)
		strv_add_unique(&devs, v[i]->devname);
	/* devices with a PMU and no client shown come last */
	for (i = 0; s->pmu && i < s->pmu->ndevs; i++)
		if (s->pmu->devs[i]->status != PMU_NONE &&
		    pmu_dev_match(s->pmu->devs[i], vo->filter, v, n))
			strv_add_unique(&devs, s->pmu->devs[i]->name);
	attron(A_REVERSE);
	/* one line, cut at the screen's width: a wrapped title hid a row */
	snprintf(title, sizeof(title),
		 "drmtop  clients %zu  devices %zu  %s%s%s%s%s%sdelay %.1fs  sort %s%s  filter %s  mem %s%s",
		 nclients, devs.n, view != VIEW_CLIENT ? "view " : "",
		 view != VIEW_CLIENT ? view_names[view] : "",
		 view != VIEW_CLIENT ? "  " : "",
		 vo->cgroup ? "cgroup " : "", vo->cgroup ? vo->cgroup : "",
		 vo->cgroup ? "  " : "", delay,
		 vo->sort ? vo->sort : "busy", vo->reverse ? " (rev)" : "",
		 vo->filter ? vo->filter : "-",
		 mem_resident ? "resident" : "total",
		 paused ? "  [PAUSED]" : "");
	move(y, 0);
	put_str(title, COLS, 0, esc);
	clrtoeol();
	attroff(A_REVERSE);
	y++;
	if (s->nunreadable || s->malformed) {
		attron(A_BOLD);
		if (s->nunreadable)
			mvprintw(y, 0, "%zu processes not readable: run as root  ",
				 s->nunreadable);
		if (s->malformed)
			printw("%u malformed fdinfo lines", s->malformed);
		attroff(A_BOLD);
		y++;
	}

	/* measure: count the rows and find the selection, draw nothing */
	l.top = y;
	l.sel_row = -1;
	draw_body(&l, s, v, n, &devs, *sel, vo);
	/*
	 * The cgroup view: the selected row's full path above the key line,
	 * on as many lines as it takes (three at most).
	 */
	if (view == VIEW_CGROUP) {
		if (l.sel && l.sel->fds[0].cgroup && *l.sel->fds[0].cgroup->path)
			path = l.sel->fds[0].cgroup->path;
		pw = str_width(path, esc) + 7;
		path_lines = COLS > 0 ? (pw + COLS - 1) / COLS : 1;
		if (path_lines > 3)
			path_lines = 3;
	}
	l.h = LINES - 1 - path_lines - y > 0 ? LINES - 1 - path_lines - y : 0;
	if (*scroll > l.rows - l.h)
		*scroll = l.rows - l.h;	/* End, PgDn: not past the last row */
	if (l.sel_row >= 0 && l.sel_row >= *scroll + l.h)
		*scroll = l.sel_row - l.h + 1;
	if (l.sel_row >= 0 && l.sel_top < *scroll)
		*scroll = l.sel_top;
	if (*scroll > l.rows - l.h)
		*scroll = l.rows - l.h;
	if (*scroll < 0)
		*scroll = 0;
	l.scroll = *scroll;
	l.rows = 0;
	draw_body(&l, s, v, n, &devs, *sel, vo);
	if (path_lines && LINES > path_lines + 1) {
		move(LINES - 1 - path_lines, 0);
		addstr("cgroup ");
		/* put_str() cuts at the end of a line: a line at a time */
		for (i2 = 0; i2 < path_lines && *path; i2++) {
			size_t len = strlen(path), nb, on, used;
			char one[STR_ESC_MAX];
			int w = 0, cw, room;

			move(LINES - 1 - path_lines + i2, i2 ? 0 : 7);
			room = cols_left();
			for (used = 0; used < len; used += nb) {
				nb = str_escape_char(path + used, len - used, esc,
						     one, &on);
				cw = str_cols(one, on);
				if (w + cw > room)
					break;
				addnstr(one, on);
				w += cw;
			}
			path += used;
			clrtoeol();
		}
	}

	mvprintw(LINES - 1, 0, "q quit  h help  v view  space pause  <> sort  f filter");
	if (l.rows) {
		last = l.scroll + l.h < l.rows ? l.scroll + l.h : l.rows;
		printw("  rows %d-%d of %d", l.scroll + 1, last, l.rows);
	}
	clrtoeol();
	refresh();
	free(devs.v);
	if (view != VIEW_CLIENT)
		view_agg_free(v, na);
	else
		free(v);
}

static void sort_columns(struct drm_scan *s, struct strv *cols)
{
	size_t i, j;

	cols->n = 0;
	strv_add_unique(cols, "busy");
	strv_add_unique(cols, "pid");
	strv_add_unique(cols, "mem");
	strv_add_unique(cols, "resident");
	for (i = 0; i < s->nclients; i++)
		for (j = 0; j < s->clients[i]->neng; j++)
			if (s->clients[i]->eng[j].cur)
				strv_add_unique(cols,
						s->clients[i]->eng[j].name);
}

static char *prompt(const char *what)
{
	char buf[256];

	mvprintw(LINES - 1, 0, "%s", what);
	clrtoeol();
	echo();
	curs_set(1);
	timeout(-1);
	if (getnstr(buf, sizeof(buf) - 1) == ERR)
		buf[0] = '\0';
	noecho();
	curs_set(0);
	return buf[0] ? strdup(buf) : NULL;
}

int tui_run(struct drm_scan *s, double delay, char **filter, char **cgroup,
	    char **sort, bool *reverse, const char *proc_root, atomic_bool *stop,
	    unsigned long count)
{
	struct strv cols = { 0 };
	bool paused = false, help = false, quit = false, dirty = true;
	unsigned long refreshes = 0;
	size_t sel = 0, nshown = 0;
	uint64_t next = 0;
	int ret = 0, scroll = 0, page;

	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);

	while (!quit && !atomic_load(stop)) {
		struct view_opts vo = { *filter, *sort, *reverse, false,
					*cgroup };
		uint64_t t = now_ns();
		int ch;

		if (!paused && t >= next) {
			/* The last refresh stays on screen for one delay. */
			if (count && refreshes == count)
				break;
			refreshes++;
			int err = drm_scan_refresh(s, DRM_SCAN_AUTO);

			if (err) {
				endwin();
				fprintf(stderr, "drmtop: cannot list %s: %s\n",
					proc_root, strerror(-err));
				free(cols.v);
				hist_free();
				return 1;
			}
			pmu_refresh(s->pmu, s->last_was_full);
			hist_record(s, now_ns());
			next = t + (uint64_t)(delay * 1e9);
			dirty = true;
		}
		/*
		 * Draw after a refresh or a key only: between refreshes the
		 * screen stays as it is, at no cost.
		 */
		if (dirty) {
			if (help)
				draw_help();
			else
				draw(s, &vo, delay, paused, &sel, &scroll,
				     &nshown);
			dirty = false;
		}
		timeout(100);
		ch = getch();
		if (ch != ERR)
			dirty = true;
		if (ch == ERR) {
			/* No input at all (EOF) returns at once: don't spin. */
			uint64_t waited = now_ns() - t;

			if (waited < 100000000)
				usleep((100000000 - waited) / 1000);
			continue;
		}
		if (help) {
			help = false;
			continue;
		}
		page = LINES > 4 ? LINES - 4 : 1;
		switch (ch) {
		case 'q':
		case 'Q':
			quit = true;
			break;
		case KEY_UP:
		case 'k':
			sel = sel ? sel - 1 : 0;
			break;
		case KEY_DOWN:
		case 'j':
			sel++;		/* draw() keeps it within the clients */
			break;
		case KEY_PPAGE:
			sel = sel > (size_t)page ? sel - page : 0;
			scroll = scroll > page ? scroll - page : 0;
			break;
		case KEY_NPAGE:
			sel += page;
			scroll += page;
			break;
		case KEY_HOME:
		case 'g':
			sel = 0;
			scroll = 0;
			break;
		case KEY_END:
		case 'G':
			sel = nshown ? nshown - 1 : 0;
			scroll = INT_MAX;
			break;
		case 'm':
			mem_resident = !mem_resident;
			break;
		case 'v':
			view = (view + 1) % VIEW_MODES;
			sel = 0;
			scroll = 0;
			break;
		case KEY_RESIZE:
			break;		/* LINES and COLS are new: redraw */
		case 'h':
		case '?':
		case KEY_F(1):
			help = true;
			break;
		case ' ':
		case 'p':
			paused = !paused;
			break;
		case 'r':
			*reverse = !*reverse;
			break;
		case '<':
		case '>':
		case KEY_LEFT:
		case KEY_RIGHT: {
			size_t i, cur = 0;
			int dir = (ch == '>' || ch == KEY_RIGHT) ? 1 : -1;

			sort_columns(s, &cols);
			for (i = 0; i < cols.n; i++)
				if (*sort && !strcmp(cols.v[i], *sort))
					cur = i;
			cur = (cur + cols.n + dir) % cols.n;
			free(*sort);
			*sort = strdup(cols.v[cur]);
			break;
		}
		case 'f':
			free(*filter);
			*filter = prompt("filter (driver=, device=, pid=, comm= or text): ");
			break;
		case 'c':
			free(*filter);
			*filter = NULL;
			free(*cgroup);
			*cgroup = NULL;
			break;
		case 'C':
			free(*cgroup);
			*cgroup = prompt("cgroup (a path from /, empty for all): ");
			if (*cgroup && **cgroup != '/') {
				free(*cgroup);
				*cgroup = NULL;
			}
			sel = 0;
			scroll = 0;
			break;
		case '+':
			delay = delay * 2 > 3600 ? 3600 : delay * 2;
			break;
		case '-':
			delay = delay / 2 < 0.1 ? 0.1 : delay / 2;
			break;
		default:
			break;
		}
	}
	endwin();
	free(cols.v);
	hist_free();
	return ret;
}
