// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu-load - put a steady load on the simgpu simulated GPU
 *
 * Copyright (c) 2026 @COPYRIGHT@
 *
 * Forks one process per client, each with its own open() of the simgpu
 * render node and its own exec queues. The duty cycle is paced on the GPU's
 * own clock: every period of every queue is a BUSY command of duty * period
 * followed by an IDLE command of the rest, which switches the context out.
 * Each job covers about BATCH_NS of periods (one at least: a period may
 * not be longer than the device lets a job run, the max_job_ns of
 * DRM_SIMGPU_QUERY_CONFIG) and about AHEAD_NS of them are kept queued,
 * so the load stays exact while the submitter waits for a CPU for up to
 * that long. Once all clients are open and submitting, one line
 * "client <pid> <fd>" per client is printed on stdout, so that tools can
 * find their fdinfo.
 *
 * A client whose queue ran dry (the GPU idled because the submitter was
 * late) says so on stderr when it exits: its duty cycle was low meanwhile.
 * SIGINT or SIGTERM ends the load early: the clients let their queued jobs
 * finish and exit with status 0, as at the end of --seconds.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/compiler.h>

#include <drm/simgpu_drm.h>

#include "simgpu_tool.h"

#define MAX_QUEUES	64
#define MAX_CLIENTS	256
#define MAX_ALLOCS	32
#define MAX_PERIOD_MS	60000
/* A job covers about this much GPU time */
#define BATCH_NS	(50 * 1000000ULL)
/* GPU time kept queued on each exec queue */
#define AHEAD_NS	(250 * 1000000ULL)
/* Jobs in flight per exec queue, each with its syncobj */
#define MAX_IN_FLIGHT	8
#define NSEC_PER_SEC	1000000000ULL

static const char *const class_names[DRM_SIMGPU_ENGINE_CLASS_COUNT] = {
	"rcs", "bcs", "vcs", "vecs", "ccs",
};

struct alloc {
	uint32_t region;
	uint64_t size;
};

static struct {
	unsigned int class;
	unsigned int instance;
	double duty;
	double period_ms;
	double seconds;
	unsigned int queues;
	unsigned int clients;
	struct alloc allocs[MAX_ALLOCS];
	unsigned int num_allocs;
} opt = {
	.class = DRM_SIMGPU_ENGINE_CLASS_RENDER,
	.instance = DRM_SIMGPU_ENGINE_INSTANCE_ANY,
	.duty = 50,
	.period_ms = 10,
	.seconds = 5,
	.queues = 1,
	.clients = 1,
};

static const char *prog = "simgpu-load";

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: %s [--class rcs|bcs|vcs|vecs|ccs] [--instance N] [--duty PCT]\n"
		"       [--period-ms MS] [--seconds S] [--queues N] [--clients N]\n"
		"       [--alloc REGION:BYTES]...\n"
		"\n"
		"  --class      engine class to load (default rcs)\n"
		"  --instance   engine instance (default: any, spread by the driver)\n"
		"  --duty       busy percentage of each period, 0-100 (default 50)\n"
		"  --period-ms  period in milliseconds (default 10, at most %d and\n"
		"               at most what the device lets a job run, 5000 by default)\n"
		"  --seconds    duration in seconds (default 5)\n"
		"  --queues     exec queues per client (default 1, at most %d)\n"
		"  --clients    client processes, each with its own fd (default 1, at most %d)\n"
		"  --alloc      allocate and touch a buffer in REGION (memory or vram0)\n"
		"               of BYTES bytes, with an optional K, M or G suffix\n"
		"\n"
		"SIGINT or SIGTERM ends the load early, with status 0.\n",
		prog, MAX_PERIOD_MS, MAX_QUEUES, MAX_CLIENTS);
}

static void __noreturn __printf(1, 2) bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	print_help(stderr);
	exit(2);
}

static void __noreturn __printf(1, 2) die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s[%d]: ", prog, getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

static double parse_double(const char *name, const char *s, double min,
			   double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		bad_usage("bad --%s '%s' (expected a number from %g to %g)",
			  name, s, min, max);
	return v;
}

static unsigned long parse_uint(const char *name, const char *s,
				unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		bad_usage("bad --%s '%s' (expected an integer from %lu to %lu)",
			  name, s, min, max);
	return v;
}

static void parse_alloc(const char *s)
{
	const char *colon = strchr(s, ':');
	struct alloc *a;
	uint64_t mult = 1;
	unsigned long long v;
	char *end;

	if (opt.num_allocs == MAX_ALLOCS)
		bad_usage("too many --alloc (at most %d)", MAX_ALLOCS);
	a = &opt.allocs[opt.num_allocs];

	if (!colon)
		bad_usage("bad --alloc '%s' (expected REGION:BYTES)", s);
	if (colon - s == 6 && !strncmp(s, "memory", 6))
		a->region = DRM_SIMGPU_REGION_SYSTEM;
	else if (colon - s == 5 && !strncmp(s, "vram0", 5))
		a->region = DRM_SIMGPU_REGION_VRAM0;
	else
		bad_usage("bad --alloc region in '%s' (expected memory or vram0)",
			  s);

	errno = 0;
	v = strtoull(colon + 1, &end, 10);
	if (errno || end == colon + 1 || colon[1] == '-')
		bad_usage("bad --alloc size in '%s'", s);
	switch (*end) {
	case 'K': case 'k':
		mult = 1ULL << 10;
		end++;
		break;
	case 'M': case 'm':
		mult = 1ULL << 20;
		end++;
		break;
	case 'G': case 'g':
		mult = 1ULL << 30;
		end++;
		break;
	}
	if (*end || !v || v > UINT64_MAX / mult)
		bad_usage("bad --alloc size in '%s'", s);
	a->size = v * mult;
	opt.num_allocs++;
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "instance", required_argument, NULL, 'i' },
		{ "duty", required_argument, NULL, 'd' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "queues", required_argument, NULL, 'q' },
		{ "clients", required_argument, NULL, 'n' },
		{ "alloc", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	unsigned int i;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
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
			opt.instance = parse_uint("instance", optarg, 0, 7);
			break;
		case 'd':
			opt.duty = parse_double("duty", optarg, 0, 100);
			break;
		case 'p':
			opt.period_ms = parse_double("period-ms", optarg, 0.001,
						     MAX_PERIOD_MS);
			break;
		case 's':
			opt.seconds = parse_double("seconds", optarg, 0,
						   1000000);
			break;
		case 'q':
			opt.queues = parse_uint("queues", optarg, 1, MAX_QUEUES);
			break;
		case 'n':
			opt.clients = parse_uint("clients", optarg, 1,
						 MAX_CLIENTS);
			break;
		case 'a':
			parse_alloc(optarg);
			break;
		case 'h':
			print_help(stdout);
			exit(0);
		case ':':
			bad_usage("option '%s' needs an argument",
				  argv[optind - 1]);
		default:
			bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
}

/* Set by SIGINT or SIGTERM: stop submitting, let the queued jobs finish */
static atomic_bool stopping;

static void on_stop(int sig)
{
	(void)sig;
	atomic_store(&stopping, true);
}

struct queue {
	uint32_t id;
	uint32_t syncs[MAX_IN_FLIGHT];
	unsigned int next;
	bool submitted;
	unsigned long starved;
};

/* Wait for syncobj @handle; with @poll only check: false if not signalled */
static bool wait_sync(int fd, uint32_t handle, bool poll)
{
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)&handle,
		.count_handles = 1,
		.timeout_nsec = poll ? 0 : INT64_MAX,
	};

	if (!sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w))
		return true;
	if (poll && errno == ETIME)
		return false;
	die("DRM_IOCTL_SYNCOBJ_WAIT");
}

/* Append @ns of @op to @cmds, one command per second at most */
static uint32_t add_cmds(struct drm_simgpu_cmd *cmds, uint32_t n, uint32_t op,
			 uint64_t ns)
{
	while (ns) {
		uint64_t chunk = ns > NSEC_PER_SEC ? NSEC_PER_SEC : ns;

		cmds[n].op = op;
		cmds[n].value = chunk;
		n++;
		ns -= chunk;
	}
	return n;
}

/*
 * Queue a job of @periods periods on @q, once the job that used its syncobj
 * @in_flight jobs ago has completed.
 */
static void submit_periods(int fd, struct queue *q, unsigned int in_flight,
			   const struct drm_simgpu_cmd *period,
			   uint32_t period_cmds, unsigned int periods,
			   struct drm_simgpu_cmd *cmds)
{
	unsigned int prev = (q->next + in_flight - 1) % in_flight;
	struct drm_simgpu_sync out = { .handle = q->syncs[q->next] };
	struct drm_simgpu_submit s = {
		.exec_queue_id = q->id,
		.cmds = (uintptr_t)cmds,
		.out_syncs = (uintptr_t)&out,
		.num_out_syncs = 1,
	};
	unsigned int i;

	for (i = 0; i < periods; i++)
		memcpy(&cmds[i * period_cmds], period,
		       period_cmds * sizeof(*period));
	s.num_cmds = periods * period_cmds;

	wait_sync(fd, q->syncs[q->next], false);
	/* All queued work done before this job: the engine idled for us */
	if (q->submitted && wait_sync(fd, q->syncs[prev], true))
		q->starved++;
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s))
		die("DRM_IOCTL_SIMGPU_SUBMIT");
	q->submitted = true;
	q->next = (q->next + 1) % in_flight;
}

/* The device's limits */
static void query_config(int fd, struct drm_simgpu_query_config *config)
{
	struct drm_simgpu_query q = {
		.type = DRM_SIMGPU_QUERY_CONFIG,
		.size = sizeof(*config),
		.data = (uintptr_t)config,
	};

	memset(config, 0, sizeof(*config));
	if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_QUERY, &q))
		die("DRM_IOCTL_SIMGPU_QUERY");
}

static void alloc_buffers(int fd)
{
	unsigned int i;

	for (i = 0; i < opt.num_allocs; i++) {
		struct drm_simgpu_gem_create c = {
			.size = opt.allocs[i].size,
			.region = opt.allocs[i].region,
		};
		struct drm_simgpu_gem_mmap_offset m = {};
		void *p;

		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &c))
			die("allocating %llu bytes in %s",
			    (unsigned long long)c.size,
			    c.region ? "vram0" : "memory");
		m.handle = c.handle;
		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &m))
			die("DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET");
		p = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 m.offset);
		if (p == MAP_FAILED)
			die("mmap");
		/* Make it resident; it stays mapped until exit */
		memset(p, 0x5a, c.size);
	}
}

struct ready {
	pid_t pid;
	int fd;
	int err;
};

static void __noreturn client(int ready_fd)
{
	uint64_t period_ns = opt.period_ms * 1e6;
	uint64_t busy = period_ns * opt.duty / 100.0;
	uint64_t total = opt.seconds * 1e9 / period_ns + 0.5;
	struct drm_simgpu_cmd period[2 * MAX_PERIOD_MS / 1000 + 2] = {};
	struct drm_simgpu_query_config config;
	struct queue queues[MAX_QUEUES] = {};
	struct ready r = { .pid = getpid() };
	unsigned int in_flight, per_job, i, j;
	uint32_t period_cmds, max_cmds;
	unsigned long starved = 0;
	struct drm_simgpu_cmd *cmds;
	uint64_t done = 0;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (!total)
		total = 1;

	fd = open_simgpu();
	if (fd < 0)
		die("no simgpu render node in /dev/dri");
	r.fd = fd;

	/* One period: BUSY for the duty, IDLE for the rest */
	period_cmds = add_cmds(period, 0, DRM_SIMGPU_CMD_BUSY, busy);
	period_cmds = add_cmds(period, period_cmds, DRM_SIMGPU_CMD_IDLE,
			       period_ns - busy);
	query_config(fd, &config);
	max_cmds = config.max_cmds;
	if (!period_cmds || period_cmds > max_cmds) {
		errno = EINVAL;
		die("a period of %g ms does not fit in a job", opt.period_ms);
	}
	/* A job runs one period or more: the device would stop a longer one */
	if (period_ns > config.max_job_ns) {
		errno = EINVAL;
		die("a period of %g ms is longer than a job may run (%g ms)",
		    opt.period_ms, config.max_job_ns / 1e6);
	}
	per_job = BATCH_NS / period_ns;
	if (per_job > max_cmds / period_cmds)
		per_job = max_cmds / period_cmds;
	if (!per_job)
		per_job = 1;
	in_flight = AHEAD_NS / (per_job * period_ns) + 2;
	if (in_flight > MAX_IN_FLIGHT)
		in_flight = MAX_IN_FLIGHT;
	cmds = calloc(per_job * period_cmds, sizeof(*cmds));
	if (!cmds)
		die("calloc");

	alloc_buffers(fd);
	for (i = 0; i < opt.queues; i++) {
		struct drm_simgpu_exec_queue_create c = {
			.engine_class = opt.class,
			.engine_instance = opt.instance,
		};

		if (sg_ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c))
			die("creating an exec queue on %s%s",
			    class_names[opt.class],
			    opt.instance == DRM_SIMGPU_ENGINE_INSTANCE_ANY ?
			    "" : " (no such instance?)");
		queues[i].id = c.exec_queue_id;
		for (j = 0; j < in_flight; j++) {
			struct drm_syncobj_create sc = {
				.flags = DRM_SYNCOBJ_CREATE_SIGNALED,
			};

			if (sg_ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
				die("DRM_IOCTL_SYNCOBJ_CREATE");
			queues[i].syncs[j] = sc.handle;
		}
	}

	/* Waiting for room in the queues paces the submitter */
	while (done < total && !atomic_load(&stopping)) {
		unsigned int n = total - done < per_job ? total - done : per_job;

		for (i = 0; i < opt.queues; i++)
			submit_periods(fd, &queues[i], in_flight, period,
				       period_cmds, n, cmds);
		done += n;
		if (ready_fd >= 0) {
			/* Open and submitting: tell the parent */
			if (write(ready_fd, &r, sizeof(r)) != sizeof(r))
				die("write");
			close(ready_fd);
			ready_fd = -1;
		}
	}

	/* Let the last jobs finish so the load stops when we say it does */
	for (i = 0; i < opt.queues; i++) {
		for (j = 0; j < in_flight; j++)
			wait_sync(fd, queues[i].syncs[j], false);
		starved += queues[i].starved;
	}
	if (starved)
		fprintf(stderr,
			"%s[%d]: the GPU ran out of queued work %lu times: the submitter ran late, the duty cycle was low meanwhile\n",
			prog, (int)getpid(), starved);
	free(cmds);
	exit(0);
}

/* Pass a SIGINT or SIGTERM of the parent on to the clients, once */
static void forward_stop(const pid_t *pids, unsigned int n)
{
	static bool forwarded;
	unsigned int i;

	if (!atomic_load(&stopping) || forwarded)
		return;
	for (i = 0; i < n; i++)
		kill(pids[i], SIGTERM);
	forwarded = true;
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_CLIENTS];
	struct ready r[MAX_CLIENTS];
	unsigned int i, n;
	int pipefd[2];
	int status, ret = 0;

	parse_args(argc, argv);

	/* No SA_RESTART: a blocked read() or waitpid() returns */
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = on_stop }, NULL);
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_stop }, NULL);

	if (pipe(pipefd))
		die("pipe");
	for (i = 0; i < opt.clients; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i]) {
			close(pipefd[0]);
			client(pipefd[1]);
		}
	}
	close(pipefd[1]);

	/* Pipe writes of this size are atomic */
	for (n = 0; n < opt.clients; n++) {
		ssize_t len = read(pipefd[0], &r[n], sizeof(r[n]));

		if (len == -1 && errno == EINTR) {
			forward_stop(pids, opt.clients);
			n--;
			continue;
		}
		if (len != sizeof(r[n]))
			break;	/* a client died, it said why */
	}
	close(pipefd[0]);
	for (i = 0; i < n; i++)
		printf("client %d %d\n", (int)r[i].pid, r[i].fd);
	fflush(stdout);

	if (n < opt.clients) {
		for (i = 0; i < opt.clients; i++)
			kill(pids[i], SIGTERM);
		ret = 1;
	}
	for (i = 0; i < opt.clients; i++) {
		pid_t pid;

		while ((pid = waitpid(pids[i], &status, 0)) < 0 &&
		       errno == EINTR)
			forward_stop(pids, opt.clients);
		if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}

	return ret;
}
