// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost of simgpu's fdinfo, as ratios measured in the same run:
 *
 * - reading a client's fdinfo with 1, 64, 1024 and 4096 idle exec queues,
 *   against reading the fdinfo of a pipe (target <= 3 at every size);
 * - job throughput with a reader of the client's fdinfo at 1 kHz against
 *   one of a pipe's fdinfo, which reads it as many times a tick as costs
 *   the time of one read of an idle client's fdinfo, but never enters the
 *   driver (target >= 0.98): the driver's own interference. The share of
 *   its CPU each reader spends reading is printed beside it. The ratio to no reader at all
 *   measures how the guest shares its CPUs, not the driver, and is
 *   printed without a target;
 * - where the device has a PMU (not in UML, which has no perf events): the
 *   cost of one group read of an engine's engine-active-ticks and
 *   engine-total-ticks against one fdinfo read of a busy client (target
 *   <= 1), and job throughput with a 1 kHz reader of that group against
 *   a reader of the pipe's fdinfo once a tick (target >= 0.98).
 *
 * With two CPUs or more the submitter runs on the first and the reader on
 * the second, as a monitor runs beside a GPU client on a multi-core
 * machine; the cases take turns in rounds, in an order shuffled anew each
 * round (no case always follows the same one), and each ratio is the mean
 * of the middle half of the ratios of its rounds, so that a drift of the
 * machine's speed cancels out and slow rounds (an emulator's host
 * preempting a vCPU) do not move the figure.
 *
 * Each figure is one line "bench: <name> ratio=<x> target=<op><y>".
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#define _GNU_SOURCE		/* sched_setaffinity() */
#include <dirent.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#include "simgpu_bench.h"
#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL

/* Median ns of one read of /proc/self/fdinfo/fd, over rounds of reads. */
static __u64 read_cost(int fd)
{
	enum { ROUNDS = 15, READS = 200 };
	__u64 t[ROUNDS], tmp;
	char path[64], buf[8192];
	int r, i, j;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	for (r = 0; r < ROUNDS; r++) {
		__u64 t0 = now_ns();

		for (i = 0; i < READS; i++) {
			int f = open(path, O_RDONLY);

			if (f < 0 || read(f, buf, sizeof(buf)) <= 0) {
				perror(path);
				exit(1);
			}
			close(f);
		}
		t[r] = (now_ns() - t0) / READS;
	}
	for (i = 0; i < ROUNDS; i++)
		for (j = i + 1; j < ROUNDS; j++)
			if (t[j] < t[i]) {
				tmp = t[i];
				t[i] = t[j];
				t[j] = tmp;
			}
	return t[ROUNDS / 2];
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static __u64 median_u64(__u64 *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static void add_idle_queue(int fd)
{
	__u32 id;

	if (queue_create(fd, DRM_SIMGPU_ENGINE_CLASS_RENDER,
			 DRM_SIMGPU_ENGINE_INSTANCE_ANY, &id)) {
		perror("EXEC_QUEUE_CREATE");
		exit(1);
	}
}

/*
 * Median, over rounds that alternate the two, of the cost of reading the
 * fdinfo of @fd over that of reading the fdinfo of @pipe_fd.
 */
static double read_cost_ratio(int fd, int pipe_fd)
{
	enum { ROUNDS = 15, READS = 100 };
	double ratio[ROUNDS];
	char path[2][64], buf[8192];
	__u64 t[2];
	int r, k, i;

	snprintf(path[0], sizeof(path[0]), "/proc/self/fdinfo/%d", fd);
	snprintf(path[1], sizeof(path[1]), "/proc/self/fdinfo/%d", pipe_fd);
	for (r = 0; r < ROUNDS; r++) {
		for (k = 0; k < 2; k++) {
			__u64 t0 = now_ns();

			for (i = 0; i < READS; i++) {
				int f = open(path[k], O_RDONLY);

				if (f < 0 || read(f, buf, sizeof(buf)) <= 0) {
					perror(path[k]);
					exit(1);
				}
				close(f);
			}
			t[k] = now_ns() - t0;
		}
		ratio[r] = (double)t[0] / t[1];
	}
	return median(ratio, ROUNDS);
}

/*
 * A 1 kHz reader: of /proc/self/fdinfo/<fd>, @per_tick times a tick on
 * average, or with @pmu of the counts of the PMU event group @fd.
 */
struct reader {
	int fd;
	bool pmu;
	double per_tick;
	atomic_bool stop;
	unsigned long reads;
	__u64 read_ns;		/* spent in open, read and close */
};

static void *reader_1khz(void *arg)
{
	struct reader *r = arg;
	char path[64], buf[8192];
	struct timespec next;
	double due = 0;

	pin_to_cpu(cpus[1]);

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", r->fd);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!r->stop) {
		for (due += r->per_tick; due >= 1; due--) {
			__u64 t0 = now_ns();
			int f = r->pmu ? r->fd : open(path, O_RDONLY);

			if (f < 0)
				continue;
			if (read(f, buf, sizeof(buf)) > 0)
				r->reads++;
			if (!r->pmu)
				close(f);
			r->read_ns += now_ns() - t0;
		}
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

/* How long each case of a round submits jobs */
#define ROUND_NS	(NSEC_PER_SEC / 2)

/*
 * Jobs per second: submit short jobs to bcs0 for ROUND_NS, keeping a
 * bounded number in flight, while a thread reads the fdinfo of @read_fd at
 * 1 kHz (none if < 0), or with @pmu the PMU event group @read_fd.
 */
static double throughput(int fd, int read_fd, bool pmu, double per_tick,
			 struct reader *out)
{
	struct drm_simgpu_exec_queue_create c = {
		.engine_class = DRM_SIMGPU_ENGINE_CLASS_COPY,
		.engine_instance = 0,
	};
	struct drm_simgpu_gem_create g = { .size = 4096 };
	struct drm_simgpu_cmd cmd = { .op = DRM_SIMGPU_CMD_BUSY, .value = 1000 };
	struct drm_simgpu_submit s = { .num_cmds = 1, .cmds = (uintptr_t)&cmd };
	struct drm_simgpu_exec_queue_destroy d = {};
	struct drm_simgpu_wait_bo w = {};
	struct drm_gem_close gc = {};
	struct reader r = { .fd = read_fd, .pmu = pmu, .per_tick = per_tick };
	pthread_t th;
	__u64 t0, n = 0;
	__u32 bo;

	if (ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE, &c) ||
	    ioctl(fd, DRM_IOCTL_SIMGPU_GEM_CREATE, &g)) {
		perror("setup");
		exit(1);
	}
	pin_to_cpu(cpus[0]);
	bo = g.handle;
	gc.handle = g.handle;
	s.exec_queue_id = c.exec_queue_id;
	s.bo_handles = (uintptr_t)&bo;
	s.num_bo_handles = 1;
	w.handle = bo;

	if (read_fd >= 0)
		pthread_create(&th, NULL, reader_1khz, &r);
	t0 = now_ns();
	while (now_ns() - t0 < ROUND_NS) {
		int i;

		for (i = 0; i < 16; i++) {
			while (ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s))
				if (errno != EINTR && errno != EAGAIN) {
					perror("SUBMIT");
					exit(1);
				}
			n++;
		}
		w.timeout_ns = now_ns() + 10 * NSEC_PER_SEC;
		if (ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w)) {
			perror("WAIT_BO");
			exit(1);
		}
	}
	t0 = now_ns() - t0;
	if (read_fd >= 0) {
		r.stop = true;
		pthread_join(th, NULL);
	}
	if (out)
		*out = r;
	d.exec_queue_id = c.exec_queue_id;
	if (ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &d) ||
	    ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc)) {
		perror("teardown");
		exit(1);
	}
	return n * (double)NSEC_PER_SEC / t0;
}

/*
 * Open the group { engine-active-ticks, engine-total-ticks } of engine
 * (@class, @instance) of the first simgpu PMU, on the CPU of its cpumask.
 * Returns the leader's fd, or -1 with errno (ENOENT: no PMU).
 */
static int pmu_group_open(unsigned int class, unsigned int instance)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.read_format = PERF_FORMAT_GROUP,
	};
	char path[300], name[256] = "";
	struct dirent *de;
	unsigned int type;
	int cpu, lead, sib;
	DIR *d;
	FILE *f;

	d = opendir("/sys/bus/event_source/devices");
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "simgpu_", 7)) {
			snprintf(name, sizeof(name), "%s", de->d_name);
			break;
		}
	if (d)
		closedir(d);
	if (!name[0]) {
		errno = ENOENT;
		return -1;
	}
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &type) != 1)
		return -1;
	fclose(f);
	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/cpumask", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &cpu) != 1)
		return -1;
	fclose(f);

	/* The xe layout the PMU's format/ files give */
	attr.type = type;
	attr.config = 0x02 | instance << 12 | class << 20;
	lead = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
	if (lead < 0)
		return -1;
	attr.config = 0x03 | instance << 12 | class << 20;
	sib = syscall(__NR_perf_event_open, &attr, -1, cpu, lead, 0);
	if (sib < 0) {
		close(lead);
		return -1;
	}
	/* The sibling lives as long as the group's leader is open */
	return lead;
}

/*
 * Median ns of one read() of the PMU group @lead, and of one pread() at 0
 * of an open /proc/self/fdinfo/<fd>, interleaved in rounds.
 */
static void group_vs_fdinfo_cost(int lead, int fd, __u64 *pmu, __u64 *fdi)
{
	enum { ROUNDS = 15, READS = 500 };
	__u64 tp[ROUNDS], tf[ROUNDS], t0;
	char path[64], buf[8192];
	int r, i, f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = open(path, O_RDONLY);
	if (f < 0) {
		perror(path);
		exit(1);
	}
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_ns();
		for (i = 0; i < READS; i++)
			if (read(lead, buf, sizeof(buf)) <= 0) {
				perror("read PMU group");
				exit(1);
			}
		tp[r] = (now_ns() - t0) / READS;
		t0 = now_ns();
		for (i = 0; i < READS; i++)
			if (pread(f, buf, sizeof(buf), 0) <= 0) {
				perror(path);
				exit(1);
			}
		tf[r] = (now_ns() - t0) / READS;
	}
	close(f);
	*pmu = median_u64(tp, ROUNDS);
	*fdi = median_u64(tf, ROUNDS);
}

/* Keeps ccs0 busy with 5 ms jobs until stopped: a busy client */
struct busy_client {
	int fd;
	atomic_bool stop;
};

static void *busy_client(void *arg)
{
	struct drm_simgpu_cmd cmd = {
		.op = DRM_SIMGPU_CMD_BUSY, .value = 5000000,
	};
	struct busy_client *b = arg;
	__u32 q, sync;

	if (queue_create(b->fd, DRM_SIMGPU_ENGINE_CLASS_COMPUTE, 0, &q) ||
	    syncobj_create(b->fd, &sync)) {
		perror("busy client");
		exit(1);
	}
	while (!b->stop) {
		if (submit_sync(b->fd, q, &cmd, 1, 0, sync) ||
		    syncobj_wait(b->fd, sync, now_ns() + 10 * NSEC_PER_SEC)) {
			perror("busy client: SUBMIT");
			exit(1);
		}
	}
	queue_destroy(b->fd, q);
	return NULL;
}

/* One group read of the PMU against one fdinfo read of a busy client */
static void pmu_read_cost(void)
{
	struct busy_client b = { .fd = client_open() };
	__u64 pmu, fdi;
	pthread_t th;
	int lead;

	lead = pmu_group_open(DRM_SIMGPU_ENGINE_CLASS_COMPUTE, 0);
	if (lead < 0) {
		printf("# pmu_read_vs_fdinfo_read: no simgpu PMU (%s)\n",
		       strerror(errno));
		close(b.fd);
		return;
	}
	pthread_create(&th, NULL, busy_client, &b);
	usleep(20000);
	group_vs_fdinfo_cost(lead, b.fd, &pmu, &fdi);
	b.stop = true;
	pthread_join(th, NULL);
	close(lead);
	close(b.fd);
	printf("bench: pmu_read_vs_fdinfo_read ratio=%.2f target=<=1",
	       (double)pmu / fdi);
	printf(" (%llu ns vs %llu ns)\n", (unsigned long long)pmu,
	       (unsigned long long)fdi);
}

int main(void)
{
	enum { NONE, FDINFO, PIPE, PIPE1, PMU, CASES, ROUNDS = 61 };
	static const int sizes[] = { 1, 64, 1024, 4096 };
	double jobs_r[CASES][ROUNDS], jobs[CASES];
	double vs_none[ROUNDS], vs_pipe[ROUNDS], pmu_vs_pipe[ROUNDS];
	double per_tick;
	__u64 read_ns[CASES] = {};
	int pipefd[2], fd, have = 0, lead;
	unsigned int i, ncases, seed = 1;
	bool wq;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}
	fd = client_open();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		__u64 cost, pipe_cost;

		while (have < sizes[i]) {
			add_idle_queue(fd);
			have++;
		}
		pipe_cost = read_cost(pipefd[0]);
		cost = read_cost(fd);
		printf("bench: fdinfo_read_%d_queues ratio=%.2f target=<=3",
		       sizes[i], (double)cost / pipe_cost);
		printf(" (%llu ns vs pipe %llu ns)\n",
		       (unsigned long long)cost, (unsigned long long)pipe_cost);
	}
	close(fd);

	pmu_read_cost();

	/*
	 * On one CPU (UML) a 1 kHz reader of any proc file takes CPU time from
	 * the submitter, and with two a busier reader's CPU serves the
	 * scheduler's work and the interrupts later. So besides the ratio to
	 * no reader, show the one to a reader of a pipe's fdinfo as many times
	 * a tick as costs one read of an idle client's fdinfo, never entering
	 * the driver: what is left is the driver's own interference. The PMU reader reads the
	 * group of the engine the jobs run on, against one pipe read a tick.
	 */
	find_cpus();
	wq = wq_to_cpu(cpus[0]);
	fd = client_open();
	pin_to_cpu(cpus[1]);
	per_tick = read_cost_ratio(fd, pipefd[0]);
	lead = pmu_group_open(DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	ncases = lead >= 0 ? CASES : PMU;
	for (i = 0; i < ROUNDS; i++) {
		int readers[CASES] = {
			[NONE] = -1, [FDINFO] = fd, [PIPE] = pipefd[0],
			[PIPE1] = pipefd[0], [PMU] = lead,
		};
		unsigned int order[CASES], k, c;

		/* From a fixed seed: runs are comparable */
		shuffle(order, ncases, &seed);
		for (k = 0; k < ncases; k++) {
			struct reader r = {};

			c = order[k];
			jobs_r[c][i] = throughput(fd, readers[c], c == PMU,
						  c == PIPE ? per_tick : 1, &r);
			read_ns[c] += r.read_ns;
		}
		vs_none[i] = jobs_r[FDINFO][i] / jobs_r[NONE][i];
		vs_pipe[i] = jobs_r[FDINFO][i] / jobs_r[PIPE][i];
		if (lead >= 0)
			pmu_vs_pipe[i] = jobs_r[PMU][i] / jobs_r[PIPE1][i];
	}
	close(fd);
	for (i = NONE; i < ncases; i++)
		jobs[i] = median(jobs_r[i], ROUNDS);
	if (cpus[0] >= 0)
		printf("# submitter%s on CPU %d, reader on CPU %d",
		       wq ? " and unbound work" : "", cpus[0], cpus[1]);
	else
		printf("# submitter and reader on one CPU");
	printf(", %d rounds of %llu ms a case;", ROUNDS, ROUND_NS / 1000000);
	printf(" ratios: means of the middle half of the rounds' ratios\n");
	/* How the guest shares its CPUs, not the driver: no target */
	printf("# submit_with_1khz_fdinfo_reader_vs_none ratio=%.3f",
	       mid_mean(vs_none, ROUNDS));
	printf(" (%.0f vs %.0f jobs/s with no reader)\n", jobs[FDINFO],
	       jobs[NONE]);
	printf("bench: submit_with_1khz_fdinfo_reader_vs_pipe_reader ratio=%.3f target=>=0.98",
	       mid_mean(vs_pipe, ROUNDS));
	printf(" (%.0f vs %.0f jobs/s;", jobs[FDINFO], jobs[PIPE]);
	printf(" readers busy %.2f vs %.2f %% of their CPU, %.1f pipe reads a tick;",
	       100.0 * read_ns[FDINFO] / (ROUNDS * ROUND_NS),
	       100.0 * read_ns[PIPE] / (ROUNDS * ROUND_NS), per_tick);
	/* The spread of the rounds: the noise the figure has to beat */
	printf(" rounds' quartiles %.3f..%.3f)\n", vs_pipe[ROUNDS / 4],
	       vs_pipe[ROUNDS - 1 - ROUNDS / 4]);
	if (lead < 0) {
		printf("# submit_with_1khz_pmu_reader: no simgpu PMU\n");
		return 0;
	}
	close(lead);
	printf("bench: submit_with_1khz_pmu_reader ratio=%.3f target=>=0.98",
	       mid_mean(pmu_vs_pipe, ROUNDS));
	printf(" (%.0f vs %.0f jobs/s with a read of a pipe's fdinfo a tick)\n",
	       jobs[PMU], jobs[PIPE1]);
	return 0;
}
