// SPDX-License-Identifier: GPL-2.0-only
/*
 * drmtop - per client GPU monitor for any DRM driver, based on the
 * standard fdinfo keys of Documentation/gpu/drm-usage-stats.rst
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "pmu.h"
#include "scan.h"
#include "tui.h"

enum out_mode { OUT_TUI, OUT_BATCH, OUT_JSON, OUT_PROM };

struct config {
	enum out_mode mode;
	bool batch;
	unsigned long count;	/* 0: forever */
	double delay;
	const char *proc_root;
	const char *sys_root;	/* NULL: /sys with the real /proc, else none */
	const char *output;
	char *filter;
	char *cgroup;
	char *sort;
	bool reverse;
	bool per_client;
};

static const char *progname = "drmtop";
/*
 * Set by the signal handler: a lock-free atomic object may be accessed from
 * a signal handler (C11 7.14.1.1), like a volatile sig_atomic_t.
 */
static_assert(ATOMIC_BOOL_LOCK_FREE == 2, "atomic_bool must be lock-free");
static atomic_bool stop;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, true);
}

static void sleep_s(double s)
{
	struct timespec ts = {
		.tv_sec = (time_t)s,
		.tv_nsec = (long)((s - (time_t)s) * 1e9),
	};

	while (!atomic_load(&stop) && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS]\n"
		"\n"
		"Show GPU engine utilisation and memory of every DRM client on the system,\n"
		"for any driver that implements Documentation/gpu/drm-usage-stats.rst.\n"
		"Clients are found through /proc/PID/fd (character devices with major 226)\n"
		"and read from /proc/PID/fdinfo; a client shared by several fds or\n"
		"processes (dup, fork, SCM_RIGHTS) is shown once with all its pids.\n"
		"Clients are grouped per device: drm-pdev, else the sysfs device of the\n"
		"node, else the node name (renderDN, cardN; always with --proc-root).\n"
		"\n"
		"Options:\n"
		"  -b, --batch             plain text output, also the default when stdout\n"
		"                          is not a terminal\n"
		"  -n, --iterations COUNT  stop after COUNT refreshes (default: forever)\n"
		"  -d, --delay SECONDS     time between refreshes (default 2, minimum 0.01)\n"
		"  -j, --json              JSON lines: one object per client per refresh\n"
		"  -P, --prometheus        Prometheus text exposition format\n"
		"  -o, --output FILE       with --prometheus: atomically replace FILE each\n"
		"                          refresh (node_exporter textfile collector)\n"
		"  -C, --per-client        with --prometheus: the drm_client_* series too,\n"
		"                          one per client (labels pid, client_id, ...)\n"
		"  -f, --filter FILTER     only clients matching FILTER: driver=NAME,\n"
		"                          device=PDEV|renderDN, pid=PID, comm=NAME, or a\n"
		"                          text matched against driver, device and command\n"
		"  -c, --cgroup PATH       only clients whose process is in the cgroup v2\n"
		"                          PATH or below it (/system.slice matches\n"
		"                          /system.slice/foo.service, not /system.slice2)\n"
		"  -s, --sort COLUMN       busy (default: busiest engine), pid, client, mem\n"
		"                          (total memory), resident, or an engine class name\n"
		"  -r, --reverse           reverse the sort order\n"
		"  -p, --proc-root DIR     read processes from DIR instead of /proc\n"
		"  -S, --sys-root DIR      read sysfs (device names, PMUs) from DIR instead\n"
		"                          of /sys, which is not read with --proc-root\n"
		"  -V, --version           print the version and exit\n"
		"  -h, --help              show this help\n"
		"\n"
		"Utilisation per engine class and client, between two refreshes:\n"
		"  drm-cycles and drm-total-cycles:  dcycles / dtotal-cycles\n"
		"  drm-cycles and drm-maxfreq:       dcycles / (maxfreq * dt)\n"
		"  drm-engine (ns) only:             dns / dt\n"
		"divided by drm-engine-capacity (default 1); dt is measured per client at\n"
		"the time its fdinfo was read (CLOCK_MONOTONIC). The first sample, a\n"
		"window in which a counter went backwards (the larger previous value is\n"
		"kept, as the specification requires) and a window in which the time\n"
		"base did not advance show no value ('-', null). Values above 100%% are\n"
		"shown as they are and flagged with '!'.\n"
		"\n"
		"A refresh re-reads one fdinfo file per known client, scans processes that\n"
		"appeared since the previous refresh and a share of all processes, so\n"
		"that all fds of all processes are scanned every 5 refreshes or at least\n"
		"every 5 seconds, spread evenly over the refreshes.\n"
		"Processes whose fds cannot be read are counted ('N processes not\n"
		"readable: run as root').\n"
		"\n"
		"Engines: where a DRM device has a perf PMU with the events\n"
		"engine-active-ticks and engine-total-ticks (xe, simgpu), drmtop shows\n"
		"the busyness of each engine instance, dactive / dtotal ticks between two\n"
		"refreshes, above the device's clients: named rcs, bcs, vcs, vecs, ccs for\n"
		"engine classes 0 to 4, then the instance (vcs1; vcs1/1 on gt 1). A PMU\n"
		"that cannot be read is said so in one line (in the interactive view, else\n"
		"on stderr, once), as is a device without a PMU (interactive view only).\n"
		"\n"
		"Batch output: a header line per refresh, then one line per client:\n"
		"  DEVICE DRIVER client=ID pids=P1,P2 comm=NAME CLASS=PCT%% ...\n"
		"  mem.REGION=TOTAL/res:RESIDENT ...\n"
		"and one per device whose PMU is read, before its clients:\n"
		"  DEVICE DRIVER pmu=NAME rcs0=PCT%% ...\n"
		"Names (command, driver, device, engine, region) show control characters\n"
		"and bytes of invalid UTF-8 as \\xNN and a backslash as \\\\; other bytes\n"
		"from 0x80 on too unless the locale is UTF-8 (see drmtop(1)).\n"
		"\n"
		"JSON output (one line per client per refresh): refresh, record (client),\n"
		"timestamp_ns (CLOCK_MONOTONIC of the read), realtime_ms, device, driver,\n"
		"pdev, dev, client_id, client_name, pids, fds[{pid,fd,comm}],\n"
		"engines{CLASS:{method, status, ns, cycles, total_cycles, maxfreq_hz,\n"
		"curfreq_hz, capacity, delta, delta_total, dt_ns, utilization (percent or\n"
		"null), over_100}}, memory{REGION:{total, shared, resident, purgeable,\n"
		"active, memory}} in bytes, malformed_lines, unreadable_processes, cgroup\n"
		"(path or null). Control characters in names are \\u00NN, invalid UTF-8\n"
		"bytes U+FFFD. Before the clients, one line per device with a PMU:\n"
		"refresh, record (device), timestamp_ns, realtime_ms, device, driver, pmu,\n"
		"status, message, engines[{name, class, class_id, instance, gt,\n"
		"active_ticks, total_ticks, delta_active, delta_total, busy (percent or\n"
		"null)}]. After them, one line per device and cgroup: record (cgroup),\n"
		"device, driver, cgroup, name, clients, processes, engines{CLASS:{status,\n"
		"capacity, utilization, engine_seconds}}, memory{REGION:{...}}.\n"
		"\n"
		"Prometheus metrics, sums over the clients of a device (labels driver,\n"
		"device, and engine or region/kind) or of a command name on a device\n"
		"(label comm too); label values hold the names as batch output shows them:\n"
		"  drm_clients, drm_command_clients         gauge    clients\n"
		"  drm_engine_utilization_ratio,            gauge    1.0 = 100%% of the class,\n"
		"  drm_command_engine_utilization_ratio              needs 2 refreshes\n"
		"  drm_memory_bytes, drm_command_memory_bytes gauge  kind=total|shared|resident|\n"
		"                                                    purgeable|active|memory\n"
		"Per cgroup v2 path on a device (labels driver, device, cgroup, and engine\n"
		"or region/kind), one series per cgroup and class, not per client:\n"
		"  drm_cgroup_clients, drm_cgroup_processes gauge    clients, processes\n"
		"  drm_cgroup_engine_utilization_ratio      gauge    1.0 = 100%% of the class\n"
		"  drm_cgroup_engine_seconds_total          counter  engine busy seconds of every\n"
		"                                                    client the cgroup had, each\n"
		"                                                    up to its last sample\n"
		"  drm_cgroup_memory_bytes                  gauge    kind=total|...\n"
		"  e.g. sum by (cgroup) (rate(drm_cgroup_engine_seconds_total[5m]))\n"
		"With --per-client, per client (labels driver, device, client_id, pid,\n"
		"pids, comm and engine or region/kind):\n"
		"  drm_client_engine_busy_seconds_total     counter  drm-engine-<class>\n"
		"  drm_client_engine_cycles_total           counter  drm-cycles-<class>\n"
		"  drm_client_engine_total_cycles_total     counter  drm-total-cycles-<class>\n"
		"  drm_client_engine_capacity               gauge    drm-engine-capacity-<class>\n"
		"  drm_client_engine_max_frequency_hertz    gauge    drm-maxfreq-<class>\n"
		"  drm_client_engine_frequency_hertz        gauge    drm-curfreq-<class>\n"
		"  drm_client_engine_utilization_ratio      gauge    1.0 = 100%%, needs 2 refreshes\n"
		"  drm_client_memory_bytes                  gauge    kind=total|shared|resident|\n"
		"                                                    purgeable|active|memory\n"
		"  drmtop_unreadable_processes, drmtop_malformed_lines, drmtop_clients\n"
		"Engine metrics from PMUs (labels device, driver, pmu, class, instance, gt):\n"
		"  drmtop_engine_active_ticks_total         counter  engine-active-ticks\n"
		"  drmtop_engine_total_ticks_total          counter  engine-total-ticks\n"
		"  drmtop_engine_utilization_ratio          gauge    1.0 = 100%%, needs 2 refreshes\n"
		"  drmtop_engine_pmu_up                     gauge    1 if the PMU is read, else 0\n"
		"                                                    (labels device, driver, pmu)\n"
		"Example: drmtop --prometheus -d 15 -o /var/lib/node_exporter/drm.prom\n"
		"\n"
		"Interactive keys: q quit, h or ? help, space or p pause, < > or left/right\n"
		"change the sort column, r reverse sort, f filter, C cgroup filter, c clear\n"
		"the filters, m memory per region total / resident, + - change the delay,\n"
		"Up Down (k j) move the selection bar, PgUp PgDn a page, Home End (g G)\n"
		"first and last client. Rows past the screen are shown by scrolling; the key\n"
		"line says which: rows N-M of T. v cycles the client, process, device and\n"
		"cgroup views; the device view shows the last minute of each engine class\n"
		"(and PMU engine instance) as a sparkline, the cgroup view sums clients\n"
		"per cgroup v2 path (of a client's first process, read from\n"
		"/proc/PID/cgroup at discovery; pids as in drmtop's PID namespace).\n"
		"\n"
		"Exit status: 0 success, 1 runtime error, 2 usage error.\n", progname);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", progname);
	return 2;
}

static int parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "per-client", no_argument, NULL, 'C' },
		{ "filter", required_argument, NULL, 'f' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "sort", required_argument, NULL, 's' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "proc-root", required_argument, NULL, 'p' },
		{ "sys-root", required_argument, NULL, 'S' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "bn:d:jPo:Cf:c:s:rp:S:Vh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'b':
			cfg->batch = true;
			break;
		case 'n':
			errno = 0;
			cfg->count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !cfg->count ||
			    optarg[0] == '-')
				return bad_usage("invalid count '%s' (a number >= 1)",
						 optarg);
			break;
		case 'd':
			errno = 0;
			cfg->delay = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(cfg->delay >= 0.01) || cfg->delay > 86400)
				return bad_usage("invalid delay '%s' (seconds, 0.01 to 86400)",
						 optarg);
			break;
		case 'j':
			cfg->mode = OUT_JSON;
			break;
		case 'P':
			cfg->mode = OUT_PROM;
			break;
		case 'o':
			cfg->output = optarg;
			break;
		case 'C':
			cfg->per_client = true;
			break;
		case 'f':
			free(cfg->filter);
			cfg->filter = strdup(optarg);
			break;
		case 'c':
			if (optarg[0] != '/')
				return bad_usage("invalid cgroup '%s' (a path from /)",
						 optarg);
			free(cfg->cgroup);
			cfg->cgroup = strdup(optarg);
			break;
		case 's':
			free(cfg->sort);
			cfg->sort = strdup(optarg);
			break;
		case 'r':
			cfg->reverse = true;
			break;
		case 'p':
			cfg->proc_root = optarg;
			break;
		case 'S':
			cfg->sys_root = optarg;
			break;
		case 'V':
			printf("drmtop %s\n", DRMTOP_VERSION);
			return 0;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", progname);
			return 2;
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (cfg->output && cfg->mode != OUT_PROM)
		return bad_usage("%s--output needs --prometheus", "");
	if (cfg->per_client && cfg->mode != OUT_PROM)
		return bad_usage("%s--per-client needs --prometheus", "");
	if (cfg->mode == OUT_TUI && (cfg->batch || !isatty(STDOUT_FILENO)))
		cfg->mode = OUT_BATCH;
	return -1;
}

static int write_prom_file(const char *path, const struct drm_scan *s,
			   const struct view_opts *vo)
{
	char *tmp;
	FILE *f;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -1;
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", progname, tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	print_prometheus(f, s, vo);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "%s: %s: %s\n", progname, path,
			strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* Say once on stderr why a PMU found is not read. */
static void report_pmu(const struct pmu_set *ps)
{
	size_t i;

	for (i = 0; ps && i < ps->ndevs; i++) {
		struct pmu_dev *d = ps->devs[i];

		if (d->status == PMU_OK || d->status == PMU_NONE ||
		    !d->msg || d->reported)
			continue;
		fprintf(stderr, "%s: ", progname);
		str_escape_fputs(d->msg, str_esc_text(), stderr);
		fputc('\n', stderr);
		d->reported = true;
	}
}

static int run_batch(struct config *cfg, struct drm_scan *s)
{
	struct view_opts vo = { cfg->filter, cfg->sort, cfg->reverse,
				cfg->per_client, cfg->cgroup };
	bool warned = false;
	unsigned long i;
	int ret;

	for (i = 1; !atomic_load(&stop) && (!cfg->count || i <= cfg->count); i++) {
		if (i > 1)
			sleep_s(cfg->delay);
		if (atomic_load(&stop))
			break;
		ret = drm_scan_refresh(s, DRM_SCAN_AUTO);
		if (ret) {
			fprintf(stderr, "%s: cannot list %s: %s\n", progname,
				cfg->proc_root, strerror(-ret));
			return 1;
		}
		pmu_refresh(s->pmu, s->last_was_full);
		report_pmu(s->pmu);
		if (s->nunreadable && !warned && cfg->mode != OUT_BATCH) {
			fprintf(stderr, "%s: %zu processes not readable: run as root\n",
				progname, s->nunreadable);
			warned = true;
		}
		switch (cfg->mode) {
		case OUT_JSON:
			print_json(stdout, s, &vo, i);
			break;
		case OUT_PROM:
			if (cfg->output) {
				if (write_prom_file(cfg->output, s, &vo))
					return 1;
			} else {
				print_prometheus(stdout, s, &vo);
			}
			break;
		default:
			print_batch(stdout, s, &vo, i);
			break;
		}
		if (ferror(stdout))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct config cfg = { .delay = 2.0, .proc_root = "/proc" };
	struct sigaction sa = { .sa_handler = on_signal };
	struct drm_scan *s;
	int ret;

	/* names keep their UTF-8 characters on a UTF-8 terminal only */
	setlocale(LC_CTYPE, "");
	ret = parse_args(argc, argv, &cfg);
	if (ret >= 0) {
		free(cfg.filter);
		free(cfg.cgroup);
		free(cfg.sort);
		return ret;
	}
	s = drm_scan_new(cfg.proc_root);
	if (!s) {
		fprintf(stderr, "%s: cannot open %s: %s\n", progname,
			cfg.proc_root, strerror(errno));
		free(cfg.filter);
		free(cfg.cgroup);
		free(cfg.sort);
		return 1;
	}
	/*
	 * The sysfs of this system goes with its /proc only; without /sys
	 * there is no engine header. A --sys-root must be there.
	 */
	if (cfg.sys_root || s->use_sysfs) {
		const char *root = cfg.sys_root ? cfg.sys_root : "/sys";

		s->pmu = pmu_set_new(root, cfg.proc_root, NULL);
		if (cfg.sys_root && (!s->pmu || drm_scan_set_sys_root(s, root))) {
			fprintf(stderr, "%s: cannot open %s: %s\n", progname,
				root, strerror(errno));
			pmu_set_free(s->pmu);
			drm_scan_free(s);
			free(cfg.filter);
			free(cfg.cgroup);
			free(cfg.sort);
			return 1;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (cfg.mode == OUT_TUI)
		ret = tui_run(s, cfg.delay, &cfg.filter, &cfg.cgroup, &cfg.sort,
			      &cfg.reverse, cfg.proc_root, &stop, cfg.count);
	else
		ret = run_batch(&cfg, s);
	pmu_set_free(s->pmu);
	drm_scan_free(s);
	free(cfg.filter);
	free(cfg.cgroup);
	free(cfg.sort);
	return ret;
}
