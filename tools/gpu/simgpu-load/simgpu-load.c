// SPDX-License-Identifier: GPL-2.0-only
/*
 * simgpu-load - put a steady load on the simgpu simulated GPU
 *
 * Copyright (c) 2026 The simgpu authors
 *
 * Forks one process per client, each with its own open() of the simgpu
 * render node and its own exec queues. Every period, each queue gets a BUSY
 * job of duty * period; at most two jobs per queue are in flight. Once all
 * clients are open and submitting, one line "client <pid> <fd>" per client
 * is printed on stdout, so that tools can find their fdinfo.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/compiler.h>

#include <drm/simgpu_drm.h>

#define MAX_QUEUES	64
#define MAX_CLIENTS	256
#define MAX_ALLOCS	32
#define IN_FLIGHT	2

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
		"  --period-ms  period in milliseconds (default 10)\n"
		"  --seconds    duration in seconds (default 5)\n"
		"  --queues     exec queues per client (default 1, at most %d)\n"
		"  --clients    client processes, each with its own fd (default 1, at most %d)\n"
		"  --alloc      allocate and touch a buffer in REGION (memory or vram0)\n"
		"               of BYTES bytes, with an optional K, M or G suffix\n",
		prog, MAX_QUEUES, MAX_CLIENTS);
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
						     1000000);
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = t / 1000000000ULL,
		.tv_nsec = t % 1000000000ULL,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret;
}

/* Open the simgpu render node: the first renderD* whose driver is simgpu */
static int open_simgpu(void)
{
	char path[64], name[32];
	int minor, fd;

	for (minor = 128; minor < 192; minor++) {
		struct drm_version v = {
			.name = name,
			.name_len = sizeof(name) - 1,
		};

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (!xioctl(fd, DRM_IOCTL_VERSION, &v) &&
		    !strcmp(name, "simgpu"))
			return fd;
		close(fd);
	}
	errno = ENODEV;
	return -1;
}

struct queue {
	uint32_t id;
	uint32_t syncs[IN_FLIGHT];
	unsigned int next;
};

static void wait_sync(int fd, uint32_t handle)
{
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)&handle,
		.count_handles = 1,
		.timeout_nsec = INT64_MAX,
	};

	if (xioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w))
		die("DRM_IOCTL_SYNCOBJ_WAIT");
}

/* Submit a BUSY job of @busy_ns on @q, waiting for the oldest job first */
static void submit_busy(int fd, struct queue *q, uint64_t busy_ns)
{
	struct drm_simgpu_cmd cmds[64];
	struct drm_simgpu_submit s = {
		.exec_queue_id = q->id,
		.cmds = (uintptr_t)cmds,
	};
	uint32_t sync = q->syncs[q->next];

	memset(cmds, 0, sizeof(cmds));
	while (busy_ns && s.num_cmds < 64) {
		uint64_t ns = busy_ns > 1000000000ULL ? 1000000000ULL : busy_ns;

		cmds[s.num_cmds].op = DRM_SIMGPU_CMD_BUSY;
		cmds[s.num_cmds].value = ns;
		s.num_cmds++;
		busy_ns -= ns;
	}
	wait_sync(fd, sync);
	s.out_sync = sync;
	if (xioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s))
		die("DRM_IOCTL_SIMGPU_SUBMIT");
	q->next = (q->next + 1) % IN_FLIGHT;
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

		if (xioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &c))
			die("allocating %llu bytes in %s",
			    (unsigned long long)c.size,
			    c.region ? "vram0" : "memory");
		m.handle = c.handle;
		if (xioctl(fd, DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET, &m))
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
	uint64_t period = opt.period_ms * 1000000.0;
	uint64_t busy = period * opt.duty / 100.0;
	struct queue queues[MAX_QUEUES] = {};
	struct ready r = { .pid = getpid() };
	uint64_t start, end, deadline;
	unsigned int i, j;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGTERM);

	fd = open_simgpu();
	if (fd < 0)
		die("no simgpu render node in /dev/dri");
	r.fd = fd;

	alloc_buffers(fd);
	for (i = 0; i < opt.queues; i++) {
		struct drm_simgpu_exec_queue_create c = {
			.engine_class = opt.class,
			.engine_instance = opt.instance,
		};

		if (xioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c))
			die("creating an exec queue on %s%s",
			    class_names[opt.class],
			    opt.instance == DRM_SIMGPU_ENGINE_INSTANCE_ANY ?
			    "" : " (no such instance?)");
		queues[i].id = c.exec_queue_id;
		for (j = 0; j < IN_FLIGHT; j++) {
			struct drm_syncobj_create sc = {
				.flags = DRM_SYNCOBJ_CREATE_SIGNALED,
			};

			if (xioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc))
				die("DRM_IOCTL_SYNCOBJ_CREATE");
			queues[i].syncs[j] = sc.handle;
		}
	}

	start = now_ns();
	end = start + (uint64_t)(opt.seconds * 1e9);
	deadline = start;
	for (;;) {
		if (busy)
			for (i = 0; i < opt.queues; i++)
				submit_busy(fd, &queues[i], busy);
		if (ready_fd >= 0) {
			/* Open and submitting: tell the parent */
			if (write(ready_fd, &r, sizeof(r)) != sizeof(r))
				die("write");
			close(ready_fd);
			ready_fd = -1;
		}
		deadline += period;
		if (deadline >= end)
			break;
		sleep_until(deadline);
	}
	sleep_until(end);

	/* Let the last jobs finish so the load stops when we say it does */
	for (i = 0; i < opt.queues; i++)
		for (j = 0; j < IN_FLIGHT; j++)
			wait_sync(fd, queues[i].syncs[j]);
	exit(0);
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_CLIENTS];
	struct ready r[MAX_CLIENTS];
	unsigned int i, n;
	int pipefd[2];
	int status, ret = 0;

	parse_args(argc, argv);

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
		if (waitpid(pids[i], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}

	return ret;
}
