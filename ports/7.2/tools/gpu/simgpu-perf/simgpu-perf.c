// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu-perf - read the performance counters of the simgpu simulated GPU
 *
 * Copyright (c) 2026 @COPYRIGHT@
 *
 * "simgpu-perf list" prints the counters the device has
 * (DRM_SIMGPU_QUERY_COUNTERS). "simgpu-perf stat" runs a synthetic workload
 * of BUSY, COPY and WRITE commands as a number of jobs on one exec queue,
 * counts them with a perfmon and brackets each job with two in-stream
 * SAMPLE commands: the difference of the two reports is what the workload
 * counted, and the perfmon's values, read with DRM_SIMGPU_PERFMON_WAIT, are
 * the totals of the jobs that its sequence number names. With --global the
 * perfmon is made the device-wide one (DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL,
 * which needs CAP_PERFMON) and the jobs do not name it. "simgpu-perf
 * record" opens an observation stream (DRM_IOCTL_SIMGPU_OBSERVATION_OPEN) on
 * the exec queue that runs the workload, or with --global on a whole engine,
 * and prints the periodic samples as a time series.
 *
 * It is the open-source userspace of the performance counter uAPI, and
 * meant to show how a profiler uses it: every ioctl of that uAPI is called
 * here.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/compiler.h>

#include <drm/simgpu_drm.h>

#include "simgpu_tool.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC	1000000000ULL
#define PAGE		4096u
#define MAX_JOBS	100000u
#define MAX_COUNTERS	64
/* GET_VALUES with WAIT gives up after this much more than the work needs */
#define WAIT_SLACK_NS	(60 * NSEC_PER_SEC)

static const char *const class_names[DRM_SIMGPU_ENGINE_CLASS_COUNT] = {
	"rcs", "bcs", "vcs", "vecs", "ccs",
};

static const char *prog = "simgpu-perf";

static struct {
	char *events;		/* -e, as given */
	unsigned int class;
	unsigned int instance;
	unsigned int jobs;
	bool json;
	bool global;
	bool no_wait;
	/* The workload of one job */
	uint64_t busy_ns;
	uint64_t idle_ns;
	uint64_t copy_bytes;
	uint32_t writes;
	bool have_work;
	/* record */
	uint64_t period_ns;
	int exponent;
	unsigned int seconds;
	bool csv;
} opt = {
	.class = DRM_SIMGPU_ENGINE_CLASS_RENDER,
	.instance = DRM_SIMGPU_ENGINE_INSTANCE_ANY,
	.jobs = 1,
	.exponent = -1,
	.seconds = 1,
};

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: %s list [--json]\n"
		"       %s stat [-e COUNTER[,COUNTER...]] [--class rcs|bcs|vcs|vecs|ccs]\n"
		"               [--instance N] [--jobs N] [--global] [--no-wait] [--json]\n"
		"               -- WORKLOAD...\n"
		"       %s record [-e COUNTER[,COUNTER...]] [--period TIME | -E EXP]\n"
		"               [--global] [--class C] [--instance N] [--seconds N]\n"
		"               [--json | --csv] [-- WORKLOAD...]\n"
		"\n"
		"list: the performance counters of the simgpu device: id, name, category,\n"
		"unit and description, and how many a perfmon can count at once.\n"
		"\n"
		"stat: run WORKLOAD as N jobs on one exec queue, counted by a perfmon, with\n"
		"a SAMPLE command at the start and at the end of every job. Prints per job\n"
		"the difference of its two samples (what the workload counted) and the\n"
		"perfmon's totals with their sequence number (the jobs they include).\n"
		"\n"
		"  -e, --events   counters by name or id, at most the device's counter\n"
		"                 slots (default: the first counters of \"list\")\n"
		"  --class        engine class to run on (default rcs)\n"
		"  --instance     engine instance (default: any, picked by the driver)\n"
		"  --jobs         number of jobs, 1 to %u (default 1)\n"
		"  --global       make the perfmon the device-wide one (needs CAP_PERFMON\n"
		"                 or CAP_SYS_ADMIN): it counts every job of every client\n"
		"                 while the workload runs\n"
		"  --no-wait      read the totals right after submitting, without waiting:\n"
		"                 the sequence number says how many jobs they include\n"
		"  --json         print one JSON object instead of tables\n"
		"  -h, --help     this help\n"
		"\n"
		"WORKLOAD: one or more of, as separate arguments or separated by commas:\n"
		"  busy=TIME      keep the engine busy for TIME (ns, us, ms or s; no unit:\n"
		"                 ns) in commands of at most one second\n"
		"  copy=BYTES     copy BYTES (a multiple of 4, K or M suffix) between two\n"
		"                 pages of a buffer, 4096 bytes per COPY command; a COPY\n"
		"                 takes one nanosecond per byte\n"
		"  write=N        N WRITE commands of 4 bytes each\n"
		"  idle=TIME      switch the context out for TIME after the BUSY commands\n"
		"Every job is BUSY commands, then IDLE commands, then COPY commands, then\n"
		"WRITE commands, between its two SAMPLEs, and must fit in the device's\n"
		"max_cmds.\n"
		"\n"
		"record: open an observation stream and print its time series for N\n"
		"seconds: a sample every period (and at each context switch), with what\n"
		"each counter counted since the previous sample, and the reports lost or\n"
		"dropped. The stream observes the exec queue that runs WORKLOAD, job after\n"
		"job, or with --global the whole engine (--class, --instance; needs\n"
		"CAP_PERFMON unless dev.simgpu.observation_paranoid is 0), the workload\n"
		"then optional.\n"
		"  --period TIME  sample every TIME, rounded down to 2^(e+1) ticks\n"
		"  -E EXP         sample every 2^(EXP+1) reference clock ticks\n"
		"  --seconds N    how long to record (default 1)\n"
		"  --csv          print comma-separated values\n"
		"\n"
		"Example: %s stat -e busy-ticks,commands,bytes-written,copies --jobs 4 \\\n"
		"             -- busy=1ms,copy=8K,write=16\n"
		"         %s record -e busy-ticks --period 1ms -- busy=3ms,idle=7ms\n"
		"\n"
		"Exit status: 0 on success, 1 on a device or ioctl error, 2 on a usage\n"
		"error.\n",
		prog, prog, prog, MAX_JOBS, prog, prog);
}

static void __noreturn __printf(1, 2) bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(%s --help for the usage)\n", prog);
	exit(2);
}

static void __noreturn __printf(1, 2) die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

/* --- options ---------------------------------------------------------------- */

static unsigned long parse_uint(const char *name, const char *s,
				unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		bad_usage("bad %s '%s' (expected an integer from %lu to %lu)",
			  name, s, min, max);
	return v;
}

/* A number with a unit out of @units (suffix, multiplier), "" first */
struct unit {
	const char *suffix;
	uint64_t mult;
};

static bool parse_scaled(const char *s, const struct unit *units,
			 uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	for (; units->suffix; units++) {
		if (strcmp(end, units->suffix))
			continue;
		if (v > UINT64_MAX / units->mult)
			return false;
		*out = v * units->mult;
		return true;
	}
	return false;
}

static const struct unit time_units[] = {
	{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	{ "s", NSEC_PER_SEC }, {}
};

static const struct unit size_units[] = {
	{ "", 1 }, { "K", 1024 }, { "k", 1024 }, { "M", 1 << 20 },
	{ "m", 1 << 20 }, {}
};

static const struct unit count_units[] = { { "", 1 }, {} };

/* One WORKLOAD argument: KEY=VALUE[,KEY=VALUE...] */
static void parse_workload(const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	uint64_t v;

	if (!copy)
		die("strdup");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		if (!val)
			bad_usage("bad workload '%s' (expected busy=TIME, copy=BYTES or write=N)",
				  tok);
		*val++ = '\0';
		if (!strcmp(tok, "busy")) {
			if (!parse_scaled(val, time_units, &v) ||
			    v > UINT64_MAX - opt.busy_ns)
				bad_usage("bad busy time '%s' (%s)", val,
					  "expected a number of ns, us, ms or s");
			opt.busy_ns += v;
		} else if (!strcmp(tok, "idle")) {
			if (!parse_scaled(val, time_units, &v) ||
			    v > UINT64_MAX - opt.idle_ns)
				bad_usage("bad idle time '%s' (%s)", val,
					  "expected a number of ns, us, ms or s");
			opt.idle_ns += v;
		} else if (!strcmp(tok, "copy")) {
			if (!parse_scaled(val, size_units, &v) || v % 4 ||
			    v > UINT32_MAX - opt.copy_bytes)
				bad_usage("bad copy size '%s' (%s)", val,
					  "expected bytes, a multiple of 4, with an optional K or M");
			opt.copy_bytes += v;
		} else if (!strcmp(tok, "write")) {
			if (!parse_scaled(val, count_units, &v) ||
			    v > UINT32_MAX - opt.writes)
				bad_usage("bad write count '%s' (%s)", val,
					  "expected a number of WRITE commands");
			opt.writes += v;
		} else {
			bad_usage("unknown workload '%s' (expected busy, idle, copy or write)",
				  tok);
		}
	}
	free(copy);
	opt.have_work = true;
}

/* The options stat and record share, and getopt_long()'s errors */
static void parse_common_opt(int c, char **argv)
{
	unsigned int i;

	switch (c) {
	case 'e':
		opt.events = optarg;
		break;
	case 'c':
		for (i = 0; i < DRM_SIMGPU_ENGINE_CLASS_COUNT; i++)
			if (!strcmp(optarg, class_names[i]))
				break;
		if (i == DRM_SIMGPU_ENGINE_CLASS_COUNT)
			bad_usage("bad --class '%s' (expected rcs, bcs, vcs, vecs or ccs)",
				  optarg);
		opt.class = i;
		break;
	case 'i':
		opt.instance = parse_uint("--instance", optarg, 0,
					  DRM_SIMGPU_ENGINE_INSTANCE_ANY - 1);
		break;
	case 'g':
		opt.global = true;
		break;
	case 'J':
		opt.json = true;
		break;
	case 'h':
		print_help(stdout);
		exit(0);
	case ':':
		bad_usage("option '%s' needs an argument", argv[optind - 1]);
	default:
		bad_usage("unknown option '%s'", argv[optind - 1]);
	}
}

static void parse_stat_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "class", required_argument, NULL, 'c' },
		{ "instance", required_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "global", no_argument, NULL, 'g' },
		{ "no-wait", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.jobs = parse_uint("--jobs", optarg, 1, MAX_JOBS);
			break;
		case 'n':
			opt.no_wait = true;
			break;
		default:
			parse_common_opt(c, argv);
		}
	}
	if (optind == argc)
		bad_usage("no workload (expected -- busy=TIME,copy=BYTES,write=N)");
	for (; optind < argc; optind++)
		parse_workload(argv[optind]);
	if (!opt.busy_ns && !opt.idle_ns && !opt.copy_bytes && !opt.writes)
		bad_usage("the workload is empty");
}

/* --- the device -------------------------------------------------------------- */

/* The simgpu render node (simgpu_tool.h); exit(1) when there is none */
static int open_device(void)
{
	int fd = open_simgpu();

	if (fd < 0)
		die("no simgpu render node in /dev/dri");
	return fd;
}

/* DRM_IOCTL_SIMGPU_QUERY of @type into a new buffer */
/*
 * The reply of a query, in a buffer of @min bytes at least: the fields
 * this tool knows of that an older kernel does not write read 0.
 */
static void *query_alloc(int fd, uint32_t type, const char *what, size_t min)
{
	struct drm_simgpu_query q = { .type = type };
	void *buf;

	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q)) {
		if (errno == EINVAL && type == DRM_SIMGPU_QUERY_COUNTERS)
			die("this simgpu driver has no performance counters (the %s query)",
			    what);
		die("DRM_IOCTL_SIMGPU_QUERY %s", what);
	}
	buf = calloc(1, q.size > min ? q.size : min);
	if (!buf)
		die("calloc");
	q.data = (uintptr_t)buf;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q))
		die("DRM_IOCTL_SIMGPU_QUERY %s", what);
	return buf;
}

static struct drm_simgpu_query_counters *query_counters(int fd)
{
	struct drm_simgpu_query_counters *qc;
	uint32_t i;

	qc = query_alloc(fd, DRM_SIMGPU_QUERY_COUNTERS, "counters",
			 sizeof(*qc));
	/* The kernel NUL-terminates them; do not trust it blindly */
	for (i = 0; i < qc->num_counters; i++) {
		struct drm_simgpu_counter_info *c = &qc->counters[i];

		c->name[sizeof(c->name) - 1] = '\0';
		c->category[sizeof(c->category) - 1] = '\0';
		c->unit[sizeof(c->unit) - 1] = '\0';
		c->description[sizeof(c->description) - 1] = '\0';
	}
	return qc;
}

/* --- JSON ---------------------------------------------------------------- */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* --- list -------------------------------------------------------------------- */

static int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct drm_simgpu_query_counters *qc;
	uint32_t i;
	int c, fd;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			opt.json = true;
			break;
		case 'h':
			print_help(stdout);
			exit(0);
		default:
			bad_usage("unknown option '%s' of list",
				  argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);

	fd = open_device();
	qc = query_counters(fd);

	if (opt.json) {
		printf("{\"num_slots\": %u, \"report_size\": %u, \"counters\": [",
		       qc->num_slots, qc->report_size);
		for (i = 0; i < qc->num_counters; i++) {
			const struct drm_simgpu_counter_info *ci =
				&qc->counters[i];

			printf("%s\n  {\"id\": %u, \"name\": ", i ? "," : "",
			       ci->id);
			json_str(ci->name);
			printf(", \"category\": ");
			json_str(ci->category);
			printf(", \"unit\": ");
			json_str(ci->unit);
			printf(", \"description\": ");
			json_str(ci->description);
			printf("}");
		}
		printf("\n]}\n");
	} else {
		printf("%u counters, a perfmon counts up to %u of them; samples are %u bytes\n\n",
		       qc->num_counters, qc->num_slots, qc->report_size);
		printf("%3s  %-20s %-10s %-9s %s\n", "id", "name", "category",
		       "unit", "description");
		for (i = 0; i < qc->num_counters; i++) {
			const struct drm_simgpu_counter_info *ci =
				&qc->counters[i];

			printf("%3u  %-20s %-10s %-9s %s\n", ci->id, ci->name,
			       ci->category, ci->unit, ci->description);
		}
	}
	free(qc);
	close(fd);
	return 0;
}

/* --- stat ---------------------------------------------------------------- */

/* The counters to count: indices into the query's array */
static unsigned int pick_counters(const struct drm_simgpu_query_counters *qc,
				  uint32_t *ids, unsigned int *idx)
{
	unsigned int n = 0, i, j;
	char *list, *save = NULL, *tok;

	if (!opt.events) {
		for (i = 0; i < qc->num_counters && n < qc->num_slots; i++) {
			idx[n] = i;
			ids[n++] = qc->counters[i].id;
		}
		return n;
	}

	list = strdup(opt.events);
	if (!list)
		die("strdup");
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long id = strtoul(tok, &end, 10);
		bool by_id = *tok >= '0' && *tok <= '9' && !*end;

		for (i = 0; i < qc->num_counters; i++)
			if (by_id ? qc->counters[i].id == id :
			    !strcmp(qc->counters[i].name, tok))
				break;
		if (i == qc->num_counters)
			bad_usage("unknown counter '%s' (%s list shows them)",
				  tok, prog);
		for (j = 0; j < n; j++)
			if (idx[j] == i)
				bad_usage("counter '%s' given twice", tok);
		if (n == qc->num_slots || n == MAX_COUNTERS)
			bad_usage("too many counters in -e '%s' (a perfmon counts at most %u)",
				  opt.events, qc->num_slots);
		idx[n] = i;
		ids[n++] = qc->counters[i].id;
	}
	free(list);
	if (!n)
		bad_usage("no counter in -e '%s'", opt.events);
	return n;
}

/* Where things are in the buffer the jobs use */
struct layout {
	uint64_t reports;	/* 2 * jobs reports */
	uint64_t src, dst;	/* a page each, for COPY */
	uint64_t writes;	/* a page, for WRITE */
	uint64_t size;
};

/* The commands of job @job (0-based): BUSY..., COPY..., WRITE..., SAMPLEs */
static uint32_t build_job(struct drm_simgpu_cmd *cmds, uint32_t handle,
			  const struct layout *l, uint32_t report_size,
			  unsigned int job)
{
	uint64_t left;
	uint32_t n = 0, i;

	cmds[n++] = (struct drm_simgpu_cmd){
		.op = DRM_SIMGPU_CMD_SAMPLE, .handle = handle,
		.offset = l->reports + (2ULL * job) * report_size,
		.value = 2 * job,
	};
	for (left = opt.busy_ns; left; ) {
		uint64_t ns = left > NSEC_PER_SEC ? NSEC_PER_SEC : left;

		cmds[n++] = (struct drm_simgpu_cmd){
			.op = DRM_SIMGPU_CMD_BUSY, .value = ns,
		};
		left -= ns;
	}
	for (left = opt.idle_ns; left; ) {
		uint64_t ns = left > NSEC_PER_SEC ? NSEC_PER_SEC : left;

		cmds[n++] = (struct drm_simgpu_cmd){
			.op = DRM_SIMGPU_CMD_IDLE, .value = ns,
		};
		left -= ns;
	}
	for (left = opt.copy_bytes; left; ) {
		uint32_t bytes = left > DRM_SIMGPU_COPY_MAX_BYTES ?
				 DRM_SIMGPU_COPY_MAX_BYTES : left;

		cmds[n++] = (struct drm_simgpu_cmd){
			.op = DRM_SIMGPU_CMD_COPY, .handle = handle,
			.offset = l->dst,
			.src_offset = l->src,
			.value = bytes,
		};
		left -= bytes;
	}
	for (i = 0; i < opt.writes; i++)
		cmds[n++] = (struct drm_simgpu_cmd){
			.op = DRM_SIMGPU_CMD_WRITE, .handle = handle,
			.offset = l->writes + 4 * (i % (PAGE / 4)),
			.value = job,
		};
	cmds[n++] = (struct drm_simgpu_cmd){
		.op = DRM_SIMGPU_CMD_SAMPLE, .handle = handle,
		.offset = l->reports + (2ULL * job + 1) * report_size,
		.value = 2 * job + 1,
	};
	return n;
}

static uint64_t div_round_up(uint64_t a, uint64_t b)
{
	return a / b + !!(a % b);
}

/* The commands of a job of the workload, its two SAMPLEs included */
static uint64_t job_commands(void)
{
	return 2 + div_round_up(opt.busy_ns, NSEC_PER_SEC) +
	       div_round_up(opt.idle_ns, NSEC_PER_SEC) +
	       div_round_up(opt.copy_bytes, DRM_SIMGPU_COPY_MAX_BYTES) +
	       opt.writes;
}

static void engine_name(uint32_t engine, char *buf, size_t size)
{
	uint32_t class = engine >> 16;

	if (class < DRM_SIMGPU_ENGINE_CLASS_COUNT)
		snprintf(buf, size, "%s%u", class_names[class],
			 engine & 0xffff);
	else
		snprintf(buf, size, "engine-%#x", engine);
}

static void json_report(const char *name,
			const struct drm_simgpu_sample_report *r)
{
	unsigned int i;

	printf(", \"%s\": {\"seqno\": %u, \"tag\": %u, ", name, r->seqno,
	       r->tag);
	printf("\"gpu_timestamp\": %llu, \"ctx_timestamp\": %u, ",
	       (unsigned long long)r->gpu_timestamp, r->ctx_timestamp);
	printf("\"engine\": %u, \"counters\": [", r->engine);
	for (i = 0; i < ARRAY_SIZE(r->counters); i++)
		printf("%s%llu", i ? ", " : "",
		       (unsigned long long)r->counters[i]);
	printf("]}");
}

static void print_workload(void)
{
	printf("busy=%lluns", (unsigned long long)opt.busy_ns);
	if (opt.idle_ns)
		printf(" idle=%lluns", (unsigned long long)opt.idle_ns);
	printf(" copy=%llu write=%u",
	       (unsigned long long)opt.copy_bytes, opt.writes);
}

static int cmd_stat(int argc, char **argv)
{
	struct drm_simgpu_query_counters *qc;
	struct drm_simgpu_query_config *config;
	uint32_t ids[MAX_COUNTERS];
	unsigned int idx[MAX_COUNTERS];
	uint64_t totals[MAX_COUNTERS] = {};
	struct drm_simgpu_perfmon_create pc = {};
	struct drm_simgpu_perfmon_get_values gv = {};
	struct drm_simgpu_exec_queue_create qcr = {};
	struct drm_simgpu_gem_create gc = {};
	struct drm_simgpu_cmd *cmds;
	struct layout l = {};
	const struct drm_simgpu_sample_report *reports;
	uint64_t job_cmds, work_ns;
	unsigned int n, i, j;
	char engine[32] = "?";
	uint8_t *map;
	int fd;

	parse_stat_args(argc, argv);

	fd = open_device();
	config = query_alloc(fd, DRM_SIMGPU_QUERY_CONFIG, "config",
			     sizeof(*config));
	qc = query_counters(fd);
	if (qc->report_size < sizeof(*reports) || qc->report_size % 8)
		die("unexpected report size %u", qc->report_size);
	n = pick_counters(qc, ids, idx);

	job_cmds = job_commands();
	if (job_cmds > config->max_cmds)
		bad_usage("a job of this workload has %llu commands, %s %u",
			  (unsigned long long)job_cmds,
			  "two SAMPLEs included; the device takes at most",
			  config->max_cmds);
	work_ns = opt.busy_ns + opt.idle_ns + opt.copy_bytes;
	if (work_ns > config->max_job_ns)
		bad_usage("a job of this workload runs for %.3f ms, %s %.3f ms",
			  work_ns / 1e6, "the device stops a job at",
			  config->max_job_ns / 1e6);

	/* Reports, then a page each for the COPY source and target and WRITE */
	l.reports = 0;
	l.src = div_round_up(2ULL * opt.jobs * qc->report_size, PAGE) * PAGE;
	l.dst = l.src + PAGE;
	l.writes = l.dst + PAGE;
	l.size = l.writes + PAGE;
	gc.size = l.size;
	gc.region = DRM_SIMGPU_REGION_SYSTEM;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc))
		die("allocating a buffer of %llu bytes",
		    (unsigned long long)gc.size);
	{
		struct drm_simgpu_gem_mmap_offset m = { .handle = gc.handle };

		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &m))
			die("DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET");
		map = mmap(NULL, l.size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, m.offset);
		if (map == MAP_FAILED)
			die("mmap");
	}
	/* Something to copy; reports that no SAMPLE wrote stay all ones */
	memset(map + l.src, 0xa5, PAGE);
	memset(map, 0xff, l.src);
	reports = (const void *)map;

	qcr.engine_class = opt.class;
	qcr.engine_instance = opt.instance;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qcr))
		die("creating an exec queue on %s%s", class_names[opt.class],
		    opt.instance == DRM_SIMGPU_ENGINE_INSTANCE_ANY ?
		    "" : " (no such instance?)");

	pc.counters = (uintptr_t)ids;
	pc.num_counters = n;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_CREATE, &pc))
		die("DRM_IOCTL_SIMGPU_PERFMON_CREATE");

	if (opt.global) {
		struct drm_simgpu_perfmon_set_global sg = { .id = pc.id };

		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL, &sg)) {
			if (errno == EACCES || errno == EPERM)
				die("--global needs CAP_PERFMON or CAP_SYS_ADMIN");
			if (errno == EBUSY)
				die("--global: %s",
				    "another device-wide perfmon is set, or jobs with perfmons are in flight");
			die("DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL");
		}
	}

	cmds = calloc(job_cmds, sizeof(*cmds));
	if (!cmds)
		die("calloc");
	for (j = 0; j < opt.jobs; j++) {
		struct drm_simgpu_submit s = {
			.exec_queue_id = qcr.exec_queue_id,
			.cmds = (uintptr_t)cmds,
			/* The device-wide perfmon counts every job */
			.perfmon_id = opt.global ? 0 : pc.id,
		};

		s.num_cmds = build_job(cmds, gc.handle, &l, qc->report_size, j);
		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s))
			die("submitting job %u", j + 1);
	}

	gv.id = pc.id;
	gv.values = (uintptr_t)totals;
	gv.num_values = n;
	if (!opt.no_wait) {
		gv.flags = DRM_SIMGPU_PERFMON_WAIT;
		gv.timeout_ns = now_ns() + WAIT_SLACK_NS +
				(work_ns > INT64_MAX / 2 / opt.jobs ?
				 INT64_MAX / 2 : work_ns * opt.jobs);
	}
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES, &gv))
		die("DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES");

	/* The reports are written when the jobs are done */
	{
		struct drm_simgpu_wait_bo w = {
			.handle = gc.handle,
			.timeout_ns = now_ns() + WAIT_SLACK_NS +
				      (work_ns > INT64_MAX / 2 / opt.jobs ?
				       INT64_MAX / 2 : work_ns * opt.jobs),
		};

		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w))
			die("waiting for the jobs");
	}

	if (opt.global) {
		struct drm_simgpu_perfmon_set_global sg = {
			.flags = DRM_SIMGPU_PERFMON_CLEAR_GLOBAL,
		};

		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL, &sg))
			die("clearing the device-wide perfmon");
	}

	for (j = 0; j < 2 * opt.jobs; j++)
		if (reports[j].seqno != UINT32_MAX) {
			engine_name(reports[j].engine, engine, sizeof(engine));
			break;
		}

	if (opt.json) {
		printf("{\"engine\": \"%s\", \"refclk_hz\": %llu, ", engine,
		       (unsigned long long)config->refclk_hz);
		printf("\"global\": %s, ", opt.global ? "true" : "false");
		printf("\"workload\": {\"busy_ns\": %llu, ",
		       (unsigned long long)opt.busy_ns);
		printf("\"copy_bytes\": %llu, \"writes\": %u},\n",
		       (unsigned long long)opt.copy_bytes, opt.writes);
		printf(" \"counters\": [");
		for (i = 0; i < n; i++) {
			printf("%s", i ? ", " : "");
			json_str(qc->counters[idx[i]].name);
		}
		printf("],\n \"jobs\": [");
		for (j = 0; j < opt.jobs; j++) {
			const struct drm_simgpu_sample_report *r =
				&reports[2 * j];

			printf("%s\n  {\"job\": %u", j ? "," : "", j + 1);
			for (i = 0; i < 2; i++)
				json_report(i ? "end" : "start", &r[i]);
			printf(", \"counts\": {");
			for (i = 0; i < n; i++) {
				printf("%s", i ? ", " : "");
				json_str(qc->counters[idx[i]].name);
				printf(": %llu", (unsigned long long)
				       (r[1].counters[i] - r[0].counters[i]));
			}
			printf("}}");
		}
		printf("\n ],\n \"total\": {\"seqno\": %llu, \"waited\": %s, \"counts\": {",
		       (unsigned long long)gv.seqno,
		       opt.no_wait ? "false" : "true");
		for (i = 0; i < n; i++) {
			printf("%s", i ? ", " : "");
			json_str(qc->counters[idx[i]].name);
			printf(": %llu", (unsigned long long)totals[i]);
		}
		printf("}}}\n");
	} else {
		printf("%u job%s of ", opt.jobs, opt.jobs == 1 ? "" : "s");
		print_workload();
		printf(" on %s, %s perfmon %u\n\n", engine,
		       opt.global ? "device-wide" : "per-job", pc.id);
		printf("%6s %11s %12s", "job", "seqnos", "gpu-ticks");
		for (i = 0; i < n; i++)
			printf(" %15s", qc->counters[idx[i]].name);
		printf("\n");
		for (j = 0; j < opt.jobs; j++) {
			const struct drm_simgpu_sample_report *r =
				&reports[2 * j];
			char seqnos[24];

			snprintf(seqnos, sizeof(seqnos), "%u-%u", r[0].seqno,
				 r[1].seqno);
			printf("%6u %11s %12llu", j + 1, seqnos,
			       (unsigned long long)(r[1].gpu_timestamp -
						    r[0].gpu_timestamp));
			for (i = 0; i < n; i++)
				printf(" %15llu", (unsigned long long)
				       (r[1].counters[i] - r[0].counters[i]));
			printf("\n");
		}
		printf("%-31s", "");
		for (i = 0; i < n; i++)
			printf(" %15s", qc->counters[idx[i]].unit);
		printf("\n\ntotal, perfmon seqno %llu: ",
		       (unsigned long long)gv.seqno);
		if (gv.seqno)
			printf("its jobs 1 to %llu", (unsigned long long)gv.seqno);
		else
			printf("no job counted yet");
		printf("%s:\n", opt.no_wait ? " (read without waiting)" :
		       opt.global ? " (every client's jobs)" : "");
		for (i = 0; i < n; i++)
			printf("  %-20s %15llu %s\n", qc->counters[idx[i]].name,
			       (unsigned long long)totals[i],
			       qc->counters[idx[i]].unit);
	}

	{
		struct drm_simgpu_perfmon_destroy d = { .id = pc.id };

		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_PERFMON_DESTROY, &d))
			die("DRM_IOCTL_SIMGPU_PERFMON_DESTROY");
	}
	free(cmds);
	free(qc);
	free(config);
	munmap(map, l.size);
	close(fd);
	return 0;
}

/* --- record ------------------------------------------------------------------ */

static void parse_record_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "period", required_argument, NULL, 'p' },
		{ "exponent", required_argument, NULL, 'E' },
		{ "class", required_argument, NULL, 'c' },
		{ "instance", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 's' },
		{ "global", no_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:E:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!parse_scaled(optarg, time_units, &opt.period_ns) ||
			    !opt.period_ns)
				bad_usage("bad --period '%s' (%s)", optarg,
					  "expected a number of ns, us, ms or s");
			break;
		case 'E':
			opt.exponent = parse_uint("-E", optarg, 0,
						  DRM_SIMGPU_OBSERVATION_MAX_EXPONENT);
			break;
		case 's':
			opt.seconds = parse_uint("--seconds", optarg, 1, 3600);
			break;
		case 'C':
			opt.csv = true;
			break;
		default:
			parse_common_opt(c, argv);
		}
	}
	if (opt.json && opt.csv)
		bad_usage("--json and --csv exclude each other");
	if (opt.period_ns && opt.exponent >= 0)
		bad_usage("--period and -E exclude each other");
	for (; optind < argc; optind++)
		parse_workload(argv[optind]);
	if (!opt.global && !opt.have_work)
		bad_usage("no workload to observe (expected -- busy=TIME,... or --global)");
	if (opt.have_work && !opt.busy_ns && !opt.idle_ns && !opt.copy_bytes &&
	    !opt.writes)
		bad_usage("the workload is empty");
}

static const char *reason_name(uint32_t reason)
{
	switch (reason) {
	case DRM_SIMGPU_OBSERVATION_REASON_PERIODIC:
		return "periodic";
	case DRM_SIMGPU_OBSERVATION_REASON_CTX_IN:
		return "ctx-in";
	case DRM_SIMGPU_OBSERVATION_REASON_CTX_OUT:
		return "ctx-out";
	}
	return "?";
}

/* What record prints, and the state of its time series */
struct series {
	const struct drm_simgpu_query_counters *qc;
	const unsigned int *idx;
	unsigned int n;
	uint64_t refclk;
	uint64_t first_ts;
	uint64_t prev[4];
	bool started;
	unsigned long samples, records;
};

static void print_gap(struct series *se, uint32_t type, uint64_t count)
{
	const char *what = type == DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST ?
			   "lost" : "overflow";

	if (opt.json)
		printf("%s\n  {\"type\": \"%s\", \"count\": %llu}",
		       se->records++ ? "," : "", what,
		       (unsigned long long)count);
	else if (opt.csv)
		printf("%s,,,,,%llu\n", what, (unsigned long long)count);
	else
		printf("# %llu report%s %s\n", (unsigned long long)count,
		       count == 1 ? "" : "s",
		       type == DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST ?
		       "lost (the unit fell behind)" :
		       "dropped (the buffer was full)");
	/* The next sample's deltas would span the gap */
	se->started = false;
}

static void print_sample(struct series *se,
			 const struct drm_simgpu_observation_sample *s)
{
	double ms;
	unsigned int i;

	if (!se->samples++)
		se->first_ts = s->timestamp;
	ms = (double)(s->timestamp - se->first_ts) * 1000 / se->refclk;
	if (opt.json) {
		printf("%s\n  {\"type\": \"sample\", \"seqno\": %u, ",
		       se->records++ ? "," : "", s->seqno);
		printf("\"timestamp\": %llu, \"reason\": \"%s\", ",
		       (unsigned long long)s->timestamp,
		       reason_name(s->reason));
		printf("\"context\": %u, \"deltas\": [", s->context);
		for (i = 0; i < se->n; i++) {
			if (se->started)
				printf("%s%llu", i ? ", " : "",
				       (unsigned long long)(s->values[i] -
							    se->prev[i]));
			else
				printf("%snull", i ? ", " : "");
		}
		printf("]}");
	} else if (opt.csv) {
		printf("sample,%u,%llu,%s,%u", s->seqno,
		       (unsigned long long)s->timestamp,
		       reason_name(s->reason), s->context);
		for (i = 0; i < se->n; i++) {
			if (se->started)
				printf(",%llu", (unsigned long long)
				       (s->values[i] - se->prev[i]));
			else
				printf(",");
		}
		printf("\n");
	} else {
		printf("%12.6f %6u %-9s %7u", ms, s->seqno,
		       reason_name(s->reason), s->context);
		for (i = 0; i < se->n; i++) {
			if (se->started)
				printf(" %15llu", (unsigned long long)
				       (s->values[i] - se->prev[i]));
			else
				printf(" %15s", "-");
		}
		printf("\n");
	}
	for (i = 0; i < se->n; i++)
		se->prev[i] = s->values[i];
	se->started = true;
}

/* Print the records read() returns now; false once the stream is done */
static bool drain_stream(int sfd, struct series *se)
{
	static uint8_t buf[64 * 1024];
	ssize_t len;
	size_t off;

	for (;;) {
		len = read(sfd, buf, sizeof(buf));
		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return true;
			if (errno == EIO)
				return false;
			die("reading the observation stream");
		}
		for (off = 0; off + sizeof(struct drm_simgpu_observation_record) <=
		     (size_t)len;) {
			struct drm_simgpu_observation_record h;
			struct drm_simgpu_observation_sample smp;
			struct drm_simgpu_observation_lost lost;

			memcpy(&h, buf + off, sizeof(h));
			if (h.size < sizeof(h) || off + h.size > (size_t)len)
				die("a bad record of %u bytes", h.size);
			if (h.type == DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE &&
			    h.size >= sizeof(h) + sizeof(smp)) {
				memcpy(&smp, buf + off + sizeof(h), sizeof(smp));
				print_sample(se, &smp);
			} else if (h.size >= sizeof(h) + sizeof(lost) &&
				   (h.type == DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST ||
				    h.type == DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW)) {
				memcpy(&lost, buf + off + sizeof(h),
				       sizeof(lost));
				print_gap(se, h.type, lost.count);
			}
			off += h.size;
		}
	}
}

static int cmd_record(int argc, char **argv)
{
	struct drm_simgpu_observation_set_property props[8] = {};
	struct drm_simgpu_observation_open oo = {
		.flags = DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK,
	};
	struct drm_simgpu_observation_status st;
	struct drm_simgpu_observation_info info;
	struct drm_simgpu_query_counters *qc;
	struct drm_simgpu_query_config *config;
	struct drm_simgpu_exec_queue_create qcr = {};
	struct drm_simgpu_gem_create gc = {};
	struct drm_simgpu_cmd *cmds = NULL;
	struct series se = {};
	uint32_t ids[MAX_COUNTERS], sync = 0, num_cmds = 0;
	unsigned int idx[MAX_COUNTERS], n, np = 0, i;
	uint64_t deadline, jobs = 0;
	struct layout l = {};
	bool in_flight = false;
	char engine[32];
	int fd, sfd;

	parse_record_args(argc, argv);

	fd = open_device();
	config = query_alloc(fd, DRM_SIMGPU_QUERY_CONFIG, "config",
			     sizeof(*config));
	qc = query_counters(fd);
	n = pick_counters(qc, ids, idx);

	if (opt.have_work) {
		struct drm_simgpu_gem_mmap_offset m = {};
		struct drm_syncobj_create sc = {};
		uint8_t *map;

		if (job_commands() > config->max_cmds)
			bad_usage("a job of this workload has %llu commands, %s %u",
				  (unsigned long long)job_commands(),
				  "the device takes at most",
				  config->max_cmds);
		l.src = PAGE;
		l.dst = 2 * PAGE;
		l.writes = 3 * PAGE;
		l.size = 4 * PAGE;
		gc.size = l.size;
		gc.region = DRM_SIMGPU_REGION_SYSTEM;
		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &gc))
			die("allocating a buffer");
		m.handle = gc.handle;
		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &m))
			die("DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET");
		map = mmap(NULL, l.size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, m.offset);
		if (map == MAP_FAILED)
			die("mmap");
		memset(map + l.src, 0xa5, PAGE);
		munmap(map, l.size);

		qcr.engine_class = opt.class;
		qcr.engine_instance = opt.global &&
			opt.instance == DRM_SIMGPU_ENGINE_INSTANCE_ANY ?
			0 : opt.instance;
		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &qcr))
			die("creating an exec queue on %s",
			    class_names[opt.class]);
		if (sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
			die("DRM_IOCTL_SYNCOBJ_CREATE");
		sync = sc.handle;
		cmds = calloc(job_commands(), sizeof(*cmds));
		if (!cmds)
			die("calloc");
		num_cmds = build_job(cmds, gc.handle, &l, qc->report_size, 0);
	}

	for (i = 0; i < n; i++) {
		props[np].property = DRM_SIMGPU_OBSERVATION_PROP_COUNTER;
		props[np++].value = ids[i];
	}
	if (opt.period_ns) {
		uint32_t e = 0;

		/* The longest period not longer than asked, or the shortest */
		while (e < DRM_SIMGPU_OBSERVATION_MAX_EXPONENT &&
		       (__uint128_t)(4ULL << e) * NSEC_PER_SEC <=
		       (__uint128_t)opt.period_ns * config->refclk_hz)
			e++;
		opt.exponent = e;
	}
	if (opt.exponent >= 0) {
		props[np].property = DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT;
		props[np++].value = opt.exponent;
	}
	if (opt.global) {
		props[np].property = DRM_SIMGPU_OBSERVATION_PROP_ENGINE;
		props[np++].value = opt.class |
			(opt.instance == DRM_SIMGPU_ENGINE_INSTANCE_ANY ?
			 0 : opt.instance) << 16;
	} else {
		props[np].property = DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID;
		props[np++].value = qcr.exec_queue_id;
	}
	props[np].property = DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE;
	props[np++].value = 1 << 20;
	for (i = 0; i < np; i++) {
		props[i].base.name = DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY;
		props[i].base.next_extension =
			i + 1 < np ? (uintptr_t)&props[i + 1] : 0;
	}
	oo.extensions = (uintptr_t)props;
	sfd = sg_ioctl(fd, DRM_IOCTL_SIMGPU_OBSERVATION_OPEN, &oo);
	if (sfd < 0) {
		if (errno == EACCES)
			die("a device-wide stream or a period under %u ns %s",
			    DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS,
			    "needs CAP_PERFMON (or dev.simgpu.observation_paranoid = 0)");
		if (errno == EBUSY)
			die("another observation stream is open");
		die("DRM_IOCTL_SIMGPU_OBSERVATION_OPEN");
	}
	if (ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_INFO, &info))
		die("DRM_SIMGPU_OBSERVATION_IOCTL_INFO");
	snprintf(engine, sizeof(engine), "%s%u",
		 (info.engine & 0xffff) < DRM_SIMGPU_ENGINE_CLASS_COUNT ?
		 class_names[info.engine & 0xffff] : "engine",
		 info.engine >> 16);

	se.qc = qc;
	se.idx = idx;
	se.n = n;
	se.refclk = info.refclk_hz;

	if (opt.json) {
		printf("{\"engine\": \"%s\", \"refclk_hz\": %u, ", engine,
		       info.refclk_hz);
		printf("\"period_ticks\": %llu, \"exec_queue\": %u,\n",
		       (unsigned long long)info.period_ticks,
		       info.exec_queue_id);
		printf(" \"counters\": [");
		for (i = 0; i < n; i++) {
			printf("%s", i ? ", " : "");
			json_str(qc->counters[idx[i]].name);
		}
		printf("],\n \"records\": [");
	} else if (opt.csv) {
		printf("record,seqno,timestamp,reason,context");
		for (i = 0; i < n; i++)
			printf(",%s", qc->counters[idx[i]].name);
		printf("\n");
	} else {
		printf("# %s, a sample every %llu ticks (%.3f us), %s for %u s\n",
		       engine, (unsigned long long)info.period_ticks,
		       info.period_ticks * 1e6 / info.refclk_hz,
		       opt.global ? "every context" :
		       "exec queue of the workload", opt.seconds);
		printf("%12s %6s %-9s %7s", "ms", "seqno", "reason", "context");
		for (i = 0; i < n; i++)
			printf(" %15s", qc->counters[idx[i]].name);
		printf("\n");
	}

	deadline = now_ns() + opt.seconds * NSEC_PER_SEC;
	while (now_ns() < deadline) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };

		if (cmds && in_flight) {
			struct drm_syncobj_wait w = {
				.handles = (uintptr_t)&sync,
				.count_handles = 1,
			};

			if (!sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w))
				in_flight = false;
		}
		if (cmds && !in_flight) {
			struct drm_simgpu_sync out = { .handle = sync };
			struct drm_simgpu_submit s = {
				.exec_queue_id = qcr.exec_queue_id,
				.cmds = (uintptr_t)cmds,
				.num_cmds = num_cmds,
				.out_syncs = (uintptr_t)&out,
				.num_out_syncs = 1,
			};

			if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s))
				die("submitting job %llu",
				    (unsigned long long)jobs + 1);
			jobs++;
			in_flight = true;
		}
		poll(&pfd, 1, 10);
		drain_stream(sfd, &se);
	}

	if (ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE))
		die("DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE");
	while (drain_stream(sfd, &se))
		;
	if (ioctl(sfd, DRM_SIMGPU_OBSERVATION_IOCTL_STATUS, &st))
		die("DRM_SIMGPU_OBSERVATION_IOCTL_STATUS");

	if (opt.json)
		printf("\n ],\n \"samples\": %lu, \"jobs\": %llu, %s %llu, %s %llu}\n",
		       se.samples, (unsigned long long)jobs, "\"lost\":",
		       (unsigned long long)st.lost, "\"overflow\":",
		       (unsigned long long)st.overflow);
	else if (!opt.csv)
		printf("# %lu samples, %llu jobs, %llu reports lost, %llu %s\n",
		       se.samples, (unsigned long long)jobs,
		       (unsigned long long)st.lost,
		       (unsigned long long)st.overflow,
		       "dropped for a full buffer");

	close(sfd);
	free(cmds);
	free(qc);
	free(config);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		bad_usage("no command (expected list, stat or record)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		print_help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	bad_usage("unknown command '%s' (expected list, stat or record)",
		  argv[1]);
}
