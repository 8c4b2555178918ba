// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop-bench: cost of a drmtop refresh
 *
 * Prints one line per figure:
 *   bench: drmtop_refresh_vs_read ratio=X target=<=1
 *	CPU time of a drmtop refresh (nothing changed, the client, process
 *	and device views computed) over the CPU time of a minimal loop that
 *	opens, reads and closes the same fdinfo files.
 *   bench: drmtop_idle_refresh_vs_full_discovery ratio=Y target=<=0.3
 *	CPU time of a refresh when nothing changed over a full discovery
 *	(every fd of every process).
 *   bench: drmtop_max_refresh_vs_median ratio=Z target=<=1.5
 *	The dearest of drmtop's own refreshes (periodic discovery included)
 *	over their median.
 *   bench: drmtop_interactive_vs_batch ratio=W target=<=1.1
 *	CPU per refresh of the interactive view (drmtop run in a pseudo
 *	terminal) over batch mode's (drmtop -b to /dev/null).
 *   bench: drmtop_cgroup_view_vs_process_view ratio=V target=<=1.1
 *	CPU time of the rows of the cgroup view over those of the process
 *	view (which carries the cgroup column), over the same clients.
 *
 * --make-tree DIR builds a fake proc tree for testing (see --help).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "scan.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/*
 * The cgroup of the p-th process of a tree with ncg cgroups: services
 * under system.slice, a container scope, user sessions and apps, in turn.
 */
static void tree_cgroup(char *buf, size_t size, unsigned int p,
			unsigned int ncg)
{
	unsigned int k = p % ncg;

	switch (k % 4) {
	case 0:
		snprintf(buf, size, "0::/system.slice/svc%u.service\n", k);
		break;
	case 1:
		snprintf(buf, size,
			 "0::/system.slice/docker-%064x.scope\n", k);
		break;
	case 2:
		snprintf(buf, size,
			 "0::/user.slice/user-1000.slice/session-%u.scope\n", k);
		break;
	default:
		snprintf(buf, size,
			 "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-%u.scope\n",
			 k);
		break;
	}
}

/*
 * DIR/<pid>/{comm,fd/N,fdinfo/N}: fds 0-2 -> /dev/null, DRM fds from 3;
 * DIR/<pid>/cgroup too with ncg cgroups.
 */
static int make_tree(const char *dir, unsigned int npids, unsigned int nfds,
		     bool dup, unsigned int ncg)
{
	char path[4096], text[1024];
	unsigned int p, f, id = 1;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	for (p = 0; p < npids; p++) {
		unsigned int pid = 1000 + p;

		snprintf(path, sizeof(path), "%s/%u", dir, pid);
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		snprintf(path, sizeof(path), "%s/%u/fd", dir, pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%u/fdinfo", dir, pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%u/comm", dir, pid);
		snprintf(text, sizeof(text), "bench%u\n", pid);
		if (write_file(path, text))
			return -1;
		if (ncg) {
			snprintf(path, sizeof(path), "%s/%u/cgroup", dir, pid);
			tree_cgroup(text, sizeof(text), p, ncg);
			if (write_file(path, text))
				return -1;
		}
		for (f = 0; f < 3 + nfds; f++) {
			snprintf(path, sizeof(path), "%s/%u/fd/%u", dir, pid, f);
			unlink(path);
			if (symlink(f < 3 ? "/dev/null" : "/dev/dri/renderD128",
				    path))
				return -1;
			snprintf(path, sizeof(path), "%s/%u/fdinfo/%u", dir,
				 pid, f);
			if (f < 3) {
				snprintf(text, sizeof(text),
					 "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t5\n");
			} else {
				if (f == 3 || !dup)
					id++;
				snprintf(text, sizeof(text),
					 "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t911\n"
					 "drm-driver:\tsimgpu\ndrm-client-id:\t%u\n"
					 "drm-pdev:\t0000:00:04.0\n"
					 "drm-engine-rcs:\t%u ns\ndrm-cycles-rcs:\t%u\n"
					 "drm-total-cycles-rcs:\t99887766\n"
					 "drm-engine-ccs:\t0 ns\ndrm-cycles-ccs:\t0\n"
					 "drm-total-cycles-ccs:\t99887766\n"
					 "drm-engine-capacity-ccs:\t4\n"
					 "drm-total-memory:\t8 KiB\ndrm-shared-memory:\t0\n"
					 "drm-resident-memory:\t4 KiB\n"
					 "drm-purgeable-memory:\t0\ndrm-active-memory:\t0\n"
					 "drm-total-vram0:\t1 MiB\n", id, id * 10,
					 id * 3);
			}
			if (write_file(path, text))
				return -1;
		}
	}
	return 0;
}

/* A refresh as drmtop pays it: the scan, then the rows of each view. */
static void view_refresh(struct drm_scan *s, enum drm_scan_mode mode)
{
	struct view_opts vo = { NULL, NULL, false, false, NULL };
	struct drm_client **v, **a;
	size_t n, na;

	drm_scan_refresh(s, mode);
	n = view_clients(s, &vo, &v);
	na = view_aggregate(v, n, VIEW_PROCESS, &vo, &a);
	view_agg_free(a, na);
	na = view_aggregate(v, n, VIEW_DEVICE, &vo, &a);
	view_agg_free(a, na);
	free(v);
}

/* n views of mode over the clients of s */
static void views(struct drm_scan *s, enum view_mode mode, unsigned int n,
		  size_t *rows)
{
	struct view_opts vo = { NULL, NULL, false, false, NULL };
	struct drm_client **v, **a;
	size_t nv, na;

	while (n--) {
		nv = view_clients(s, &vo, &v);
		na = view_aggregate(v, nv, mode, &vo, &a);
		view_agg_free(a, na);
		free(v);
		*rows = na;
	}
}

/*
 * The rows of the cgroup view over those of the process view: CPU time of
 * as many of each as take the process view 0.2 s at least (a guest may
 * count CPU time in ticks of 10 ms), the least of 3, interleaved.
 */
static double cgroup_vs_process(struct drm_scan *s)
{
	uint64_t t, best[2] = { UINT64_MAX, UINT64_MAX };
	static const enum view_mode mode[2] = { VIEW_PROCESS, VIEW_CGROUP };
	unsigned int pass, m, reps = 0, k;
	size_t rows[2] = { 0 };

	t = cpu_ns();
	for (k = 1; cpu_ns() - t < 200000000ull && reps < 100000; k *= 2) {
		views(s, VIEW_PROCESS, k, &rows[0]);
		reps += k;
	}
	for (pass = 0; pass < 3; pass++) {
		for (m = 0; m < 2; m++) {
			t = cpu_ns();
			views(s, mode[m], reps, &rows[m]);
			t = cpu_ns() - t;
			if (t < best[m])
				best[m] = t;
		}
	}
	printf("# views of %zu clients: process=%.1fus (%zu rows) ",
	       s->nclients, best[0] / 1e3 / reps, rows[0]);
	printf("cgroup=%.1fus (%zu rows), %u of each\n", best[1] / 1e3 / reps,
	       rows[1], reps);
	return best[0] ? (double)best[1] / best[0] : 0;
}

static int cmp_u64p(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The dearest of n refreshes (discovery as drmtop does it) over their
 * median. Each refresh's time is the least over three passes of n (n a
 * multiple of the sweep's period, so that refresh i of each pass does
 * the same share): noise from elsewhere is not what this measures.
 */
static double max_vs_median(struct drm_scan *s, unsigned int n)
{
	uint64_t *t = calloc(n, sizeof(*t)), start, d;
	unsigned int i, pass;
	double r;

	if (!t)
		return 0;
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < n; i++) {
			start = cpu_ns();
			view_refresh(s, DRM_SCAN_AUTO);
			d = cpu_ns() - start;
			if (!pass || d < t[i])
				t[i] = d;
		}
	}
	qsort(t, n, sizeof(*t), cmp_u64p);
	r = t[n / 2] ? (double)t[n - 1] / t[n / 2] : 0;
	printf("# refreshes=%u min=%.1fus median=%.1fus max=%.1fus (CPU, least of 3 passes)\n",
	       n, t[0] / 1e3, t[n / 2] / 1e3, t[n - 1] / 1e3);
	free(t);
	return r;
}

/*
 * Run drmtop with args, in a pseudo terminal of 200x50 (TERM=vt100) when
 * tty, else with its output to /dev/null; its CPU time in ns, 0 on error.
 */
static uint64_t run_drmtop(const char *drmtop, char *const *args, bool tty)
{
	struct winsize ws = { .ws_row = 50, .ws_col = 200 };
	struct rusage ru;
	char buf[65536];
	int master = -1, status;
	pid_t pid;

	if (tty) {
		pid = forkpty(&master, NULL, NULL, &ws);
	} else {
		pid = fork();
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
				_exit(127);
		}
	}
	if (pid < 0) {
		fprintf(stderr, "drmtop-bench: %s: %s\n",
			tty ? "forkpty" : "fork", strerror(errno));
		return 0;
	}
	if (!pid) {
		setenv("TERM", "vt100", 1);
		execv(drmtop, args);
		_exit(127);
	}
	/* drain the screen: a full pty would stop drmtop */
	while (master >= 0) {
		struct pollfd p = { master, POLLIN, 0 };

		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			break;
		if (p.revents && read(master, buf, sizeof(buf)) <= 0)
			break;
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "drmtop-bench: %s failed\n", drmtop);
		if (master >= 0)
			close(master);
		return 0;
	}
	if (master >= 0)
		close(master);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

/* drmtop beside this program, else from PATH */
static char *find_drmtop(const char *argv0)
{
	char self[PATH_MAX], *slash, *path = NULL;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if (asprintf(&path, "%s/drmtop", self) < 0)
				return NULL;
			if (!access(path, X_OK))
				return path;
			free(path);
		}
	}
	(void)argv0;
	return NULL;
}

/* CPU per refresh of the interactive view over batch mode's, best of passes. */
static double tui_vs_batch(const char *drmtop, const char *root,
			   unsigned int rounds, unsigned int passes)
{
	char count[16], dirs[PATH_MAX];
	char *const tui[] = { (char *)drmtop, "-p", dirs, "-n", count, "-d", "0.5",
			NULL };
	char *const batch[] = { (char *)drmtop, "-b", "-p", dirs, "-n", count, "-d",
			  "0.5", NULL };
	uint64_t t, best_tui = UINT64_MAX, best_batch = UINT64_MAX;
	unsigned int i;

	snprintf(count, sizeof(count), "%u", rounds);
	snprintf(dirs, sizeof(dirs), "%s", root);
	for (i = 0; i < passes; i++) {
		t = run_drmtop(drmtop, tui, true);
		if (!t)
			return 0;
		if (t < best_tui)
			best_tui = t;
		t = run_drmtop(drmtop, batch, false);
		if (!t)
			return 0;
		if (t < best_batch)
			best_batch = t;
	}
	printf("# drmtop -n %u -d 0.5: interactive=%.1fus batch=%.1fus (per refresh, CPU)\n",
	       rounds, best_tui / 1e3 / rounds, best_batch / 1e3 / rounds);
	return (double)best_tui / best_batch;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: drmtop-bench [-p DIR] [-r ROUNDS] [--check]\n"
		"       drmtop-bench --make-tree DIR [--pids N] [--fds N] [--dup]\n"
		"                    [--cgroups N]\n"
		"\n"
		"Measure the CPU time of drmtop refreshes against the DRM clients visible in\n"
		"DIR (default /proc) and print 'bench: <name> ratio=<x> target=<op><y>':\n"
		"  drmtop_refresh_vs_read                 refresh (and its views) / open,\n"
		"                                         read, close of the same fdinfo\n"
		"                                         files (target <= 1)\n"
		"  drmtop_idle_refresh_vs_full_discovery  refresh with nothing changed /\n"
		"                                         full discovery (target <= 0.3)\n"
		"  drmtop_max_refresh_vs_median           dearest refresh, periodic\n"
		"                                         discovery included / median\n"
		"                                         (target <= 1.5)\n"
		"  drmtop_interactive_vs_batch            CPU per refresh of drmtop in a\n"
		"                                         pseudo terminal / drmtop -b\n"
		"                                         (target <= 1.1; needs drmtop\n"
		"                                         beside drmtop-bench)\n"
		"  drmtop_cgroup_view_vs_process_view     rows of the cgroup view / rows\n"
		"                                         of the process view (target\n"
		"                                         <= 1.1)\n"
		"Options:\n"
		"  -p, --proc-root DIR  proc tree to use (default /proc)\n"
		"  -r, --rounds N       repetitions of each measurement (default 20)\n"
		"      --check          exit 1 when a target is missed\n"
		"      --make-tree DIR  create a fake proc tree: N pids (default 1000) with\n"
		"                       fds 0-2 on /dev/null and N DRM fds (default 2) as\n"
		"                       symlinks to /dev/dri/renderD128; every DRM fd is its\n"
		"                       own client unless --dup makes them share one;\n"
		"                       with --cgroups N, the processes are in N cgroups\n"
		"                       (DIR/<pid>/cgroup), services, containers, sessions\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "proc-root", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "check", no_argument, NULL, 'c' },
		{ "make-tree", required_argument, NULL, 'm' },
		{ "pids", required_argument, NULL, 'P' },
		{ "fds", required_argument, NULL, 'F' },
		{ "dup", no_argument, NULL, 'D' },
		{ "cgroups", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *root = "/proc", *tree = NULL;
	unsigned int rounds = 20, npids = 1000, nfds = 2, pass, ncg = 0;
	uint64_t t, t_read = UINT64_MAX, t_idle = UINT64_MAX;
	uint64_t t_full = UINT64_MAX, nbytes = 0;
	bool check = false, dup = false;
	char **paths = NULL, *buf = NULL;
	size_t npaths = 0, i, cap = 0, nfdref = 0;
	double r1, r2, r3, r4 = -1, r5;
	char *drmtop;
	struct drm_scan *s;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "p:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			root = optarg;
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 10);
			if (!rounds) {
				fprintf(stderr, "drmtop-bench: bad --rounds\n");
				return 2;
			}
			break;
		case 'c':
			check = true;
			break;
		case 'm':
			tree = optarg;
			break;
		case 'P':
			npids = strtoul(optarg, NULL, 10);
			break;
		case 'F':
			nfds = strtoul(optarg, NULL, 10);
			break;
		case 'D':
			dup = true;
			break;
		case 'G':
			ncg = strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (tree) {
		if (make_tree(tree, npids, nfds, dup, ncg)) {
			perror(tree);
			return 1;
		}
		return 0;
	}

	s = drm_scan_new(root);
	if (!s) {
		perror(root);
		return 1;
	}
	if (drm_scan_refresh(s, DRM_SCAN_FULL)) {
		perror(root);
		drm_scan_free(s);
		return 1;
	}
	for (i = 0; i < s->nclients; i++) {
		struct drm_client *cl = s->clients[i];

		nfdref += cl->nfds;
		paths = realloc(paths, (npaths + 1) * sizeof(*paths));
		if (!paths ||
		    asprintf(&paths[npaths], "%d/fdinfo/%d",
			     (int)cl->fds[0].pid, cl->fds[0].fd) < 0) {
			fprintf(stderr, "drmtop-bench: out of memory\n");
			return 1;
		}
		npaths++;
	}
	if (!npaths) {
		fprintf(stderr, "drmtop-bench: no DRM clients under %s\n", root);
		drm_scan_free(s);
		free(paths);
		return 1;
	}

	/*
	 * Each figure is the least of 3 x rounds single rounds, the three
	 * kinds interleaved. In a guest, the CPU time of a process includes
	 * the time its vCPU's thread waited for the host's CPU (TCG has no
	 * steal clock), which only ever adds: the least is what the work
	 * costs, and interleaving gives each kind the same chances.
	 */
	for (pass = 0; pass < 3 * rounds; pass++) {
		t = cpu_ns();
		for (i = 0; i < npaths; i++) {
			int f = fdinfo_open(s->rootfd, paths[i], NULL);
			ssize_t n;

			if (f < 0)
				continue;
			n = fdinfo_read_fd(f, &buf, &cap, 0, NULL);
			close(f);
			if (n > 0)
				nbytes += n;
		}
		t = cpu_ns() - t;
		if (t < t_read)
			t_read = t;

		t = cpu_ns();
		view_refresh(s, DRM_SCAN_CHEAP);
		t = cpu_ns() - t;
		if (t < t_idle)
			t_idle = t;

		t = cpu_ns();
		view_refresh(s, DRM_SCAN_FULL);
		t = cpu_ns() - t;
		if (t < t_full)
			t_full = t;
	}
	r1 = t_read ? (double)t_idle / t_read : 0;
	r2 = t_full ? (double)t_idle / t_full : 0;
	fprintf(stdout,
		"# proc-root=%s pids=%zu clients=%zu drm-fds=%zu rounds=%u read=%.1fus refresh=%.1fus full=%.1fus (CPU, least of %u)\n",
		root, s->npids, s->nclients, nfdref, rounds, t_read / 1e3,
		t_idle / 1e3, t_full / 1e3, 3 * rounds);
	printf("bench: drmtop_refresh_vs_read ratio=%.2f target=<=1\n", r1);
	printf("bench: drmtop_idle_refresh_vs_full_discovery ratio=%.2f target=<=0.3\n",
	       r2);
	/* drmtop's own sequence: several rounds of its periodic discovery */
	r3 = max_vs_median(s, 4 * (s->full_every ? s->full_every : 5));
	printf("bench: drmtop_max_refresh_vs_median ratio=%.2f target=<=1.5\n",
	       r3);
	r5 = cgroup_vs_process(s);
	printf("bench: drmtop_cgroup_view_vs_process_view ratio=%.2f target=<=1.1\n",
	       r5);
	drmtop = find_drmtop(argv[0]);
	if (drmtop) {
		fflush(stdout);
		r4 = tui_vs_batch(drmtop, root, rounds < 10 ? 10 : rounds, 2);
		if (r4 > 0)
			printf("bench: drmtop_interactive_vs_batch ratio=%.2f target=<=1.1\n",
			       r4);
		else	/* no pseudo terminal (devpts), or drmtop failed */
			printf("# drmtop_interactive_vs_batch not measured: %s could not run\n",
			       drmtop);
		free(drmtop);
	} else {
		printf("# no drmtop beside drmtop-bench: %s not measured\n",
		       "drmtop_interactive_vs_batch");
	}
	if (check && (r1 > 1 || r2 > 0.3 || r3 > 1.5 || r4 > 1.1 || r5 > 1.1))
		ret = 1;
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(buf);
	drm_scan_free(s);
	return ret;
}
