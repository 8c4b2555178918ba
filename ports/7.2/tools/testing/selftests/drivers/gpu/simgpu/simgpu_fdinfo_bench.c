// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cost of simgpu's fdinfo, as ratios measured in the same run:
 *
 * - reading a client's fdinfo with 1, 64, 1024 and 4096 idle exec queues,
 *   against reading the fdinfo of a pipe, in alternating rounds (target
 *   <= 3 at every size);
 * - job throughput while a reader reads the client's fdinfo at 1 kHz,
 *   against while it reads a pipe's fdinfo each tick for as long as a
 *   tick's fdinfo read takes, never entering the driver (target >= 0.98):
 *   the driver's own interference. The share of its CPU the reader spends
 *   reading each is printed beside it. The ratio to no reader at all
 *   measures how the guest shares its CPUs, not the driver, and is
 *   printed without a target;
 * - where the device has a PMU (not in UML, which has no perf events): the
 *   cost of one group read of an engine's engine-active-ticks and
 *   engine-total-ticks against one fdinfo read of a busy client (target
 *   <= 1), and job throughput with a 1 kHz reader of the group of the
 *   engine the jobs run on against a reader of the pipe's fdinfo for as
 *   long a tick (target >= 0.98).
 *
 * The throughput is one stream of submissions, and one reader beside it
 * that changes what it reads every 20 ms slot. With two CPUs or more the
 * submitter runs on the first and the reader on the second, as a monitor
 * runs beside a GPU client on a multi-core machine. Each cycle of slots
 * has one of every kind of reading, in an order shuffled anew each cycle,
 * so that a drift of the emulated machine's speed, which moves a figure
 * by 10 % over seconds, weighs on every kind alike; each ratio is that of
 * the jobs done in all the slots of two kinds, over 120 s, and the
 * quartiles of the cycles' ratios are printed beside it. The pipe readers
 * keep the reader's CPU as busy as the reader they are the control of, as
 * measured during the run under the same load: what the reader itself
 * costs the guest cancels out, and only the driver's part is left.
 *
 * Each figure is one line "bench: <name> ratio=<x> target=<op><y>".
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#define _GNU_SOURCE		/* sched_setaffinity() */
#include <assert.h>
#include <dirent.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#include "simgpu_bench.h"
#include "simgpu_test.h"

#define NSEC_PER_SEC	1000000000ULL

/*
 * One read as the reader makes it: of the counts of the PMU event group
 * @pmu_fd if >= 0, else an open, read and close of the fdinfo @path.
 */
static void read_once(const char *path, int pmu_fd)
{
	char buf[8192];
	int f = pmu_fd >= 0 ? pmu_fd : open(path, O_RDONLY);

	if (f < 0 || read(f, buf, sizeof(buf)) <= 0) {
		perror(pmu_fd >= 0 ? "read PMU group" : path);
		exit(1);
	}
	if (pmu_fd < 0)
		close(f);
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
 * The cost of one read of /proc/self/fdinfo/@fd over that of @pipe_fd:
 * the median of the ratios of rounds that read each in turn, so that the
 * guest's speed, which drifts, is the same for both. @ns and @pipe_ns get
 * the median ns of a read of each.
 */
static double read_cost_ratio(int fd, int pipe_fd, __u64 *ns, __u64 *pipe_ns)
{
	enum { ROUNDS = 15, READS = 100 };
	__u64 t[2][ROUNDS];
	double ratio[ROUNDS];
	char path[2][64];
	int r, k, i;

	snprintf(path[0], sizeof(path[0]), "/proc/self/fdinfo/%d", fd);
	snprintf(path[1], sizeof(path[1]), "/proc/self/fdinfo/%d", pipe_fd);
	for (r = 0; r < ROUNDS; r++) {
		for (k = 0; k < 2; k++) {
			__u64 t0 = now_ns();

			for (i = 0; i < READS; i++)
				read_once(path[k], -1);
			t[k][r] = (now_ns() - t0) / READS;
		}
		ratio[r] = (double)t[0][r] / t[1][r];
	}
	*ns = median_u64(t[0], ROUNDS);
	*pipe_ns = median_u64(t[1], ROUNDS);
	return median(ratio, ROUNDS);
}

/*
 * What the reader reads in a slot: nothing; the submitting client's
 * fdinfo; a pipe's fdinfo for as long as a tick's read of that fdinfo
 * takes; the PMU group of the engine the jobs run on; a pipe's fdinfo for
 * as long as a tick's read of that group takes.
 */
enum reader_kind { NONE, FDINFO, PIPE, PMU, PIPE_PMU, KINDS };

/* The reader whose reading time a pipe reader matches, or NONE */
static const enum reader_kind matched[KINDS] = {
	[PIPE] = FDINFO,
	[PIPE_PMU] = PMU,
};

/* The reader's tick, and how many of them a slot of one kind lasts */
#define TICK_NS		1000000
#define SLOT_MS		20
/*
 * 120 s of slots, whole cycles of three kinds (no PMU) or of five: the
 * figure then stays within 1 % of its mean from run to run in the x86_64
 * guest
 */
#define SLOTS		6000
/* Jobs the submitter submits before it waits for them */
#define BATCH		16

/*
 * One stream of submissions and one 1 kHz reader beside it, which reads
 * in slot s what kind[s] says: the reader publishes the slot it is in,
 * and the submitter counts each batch of jobs in the slot current when
 * the batch completes.
 */
struct slot_run {
	int fd;			/* the submitting client */
	int pipe_fd;
	int pmu_fd;		/* the group leader, or -1 */
	unsigned char kind[SLOTS];
	atomic_int slot;	/* -1 before the first, SLOTS after the last */
	unsigned int jobs[SLOTS];	/* written by the submitter */
	/* Written by the reader: time spent reading, and reads */
	__u64 read_ns[SLOTS];
	unsigned int reads[SLOTS];
};

/*
 * Tick at 1 kHz on the second CPU through the SLOTS slots of @arg, a
 * struct slot_run, reading what the current slot's kind says, and add the
 * time each tick spends reading to its slot.
 *
 * A pipe reader reads each tick for as long as a tick of the reader it
 * matches takes, on average over that reader's last 64 ticks or so (the
 * guest's speed drifts). What one tick reads past that, or short of it,
 * the next one reads less or more: over the run the two spend the same
 * time reading.
 */
static void *slot_reader(void *arg)
{
	struct slot_run *run = arg;
	double avg_ns[KINDS] = {}, owed[KINDS] = {};
	char fdinfo[64], pipe_fdinfo[64];
	struct timespec next;
	unsigned int tick;

	pin_to_cpu(cpus[1]);
	snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", run->fd);
	snprintf(pipe_fdinfo, sizeof(pipe_fdinfo), "/proc/self/fdinfo/%d",
		 run->pipe_fd);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (tick = 0; tick < SLOTS * SLOT_MS; tick++) {
		unsigned int s = tick / SLOT_MS, k = run->kind[s];
		unsigned int m = matched[k];
		__u64 t0, t;

		if (tick % SLOT_MS == 0)
			atomic_store(&run->slot, s);
		t0 = now_ns();
		t = t0;
		if (k == FDINFO || k == PMU) {
			read_once(fdinfo, k == PMU ? run->pmu_fd : -1);
			t = now_ns();
			avg_ns[k] += avg_ns[k] ? (t - t0 - avg_ns[k]) / 64 :
						 t - t0;
			run->reads[s]++;
		} else if (m != NONE) {
			owed[k] += avg_ns[m];
			while (t - t0 < owed[k]) {
				read_once(pipe_fdinfo, -1);
				t = now_ns();
				run->reads[s]++;
			}
			owed[k] -= t - t0;
		}
		run->read_ns[s] += t - t0;
		/* Absolute: a late tick does not shift the slots after it */
		next.tv_nsec += TICK_NS;
		if (next.tv_nsec >= NSEC_PER_SEC) {
			next.tv_nsec -= NSEC_PER_SEC;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	atomic_store(&run->slot, SLOTS);
	return NULL;
}

/*
 * Submit short jobs to bcs0 in batches of BATCH, waiting for each, while
 * slot_reader() runs through the slots of @run, and count the jobs of
 * each slot.
 */
static void submit_slots(struct slot_run *run)
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
	int fd = run->fd, slot;
	pthread_t th;
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

	atomic_init(&run->slot, -1);
	errno = pthread_create(&th, NULL, slot_reader, run);
	if (errno) {
		perror("pthread_create");
		exit(1);
	}
	/* Jobs done before the first slot or after the last count nowhere */
	while (atomic_load(&run->slot) < SLOTS) {
		int i;

		for (i = 0; i < BATCH; i++)
			while (ioctl(fd, DRM_IOCTL_SIMGPU_SUBMIT, &s))
				if (errno != EINTR && errno != EAGAIN) {
					perror("SUBMIT");
					exit(1);
				}
		w.timeout_ns = now_ns() + 10 * NSEC_PER_SEC;
		if (ioctl(fd, DRM_IOCTL_SIMGPU_WAIT_BO, &w)) {
			perror("WAIT_BO");
			exit(1);
		}
		slot = atomic_load(&run->slot);
		if (slot >= 0 && slot < SLOTS)
			run->jobs[slot] += BATCH;
	}
	pthread_join(th, NULL);
	d.exec_queue_id = c.exec_queue_id;
	if (ioctl(fd, DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY, &d) ||
	    ioctl(fd, DRM_IOCTL_GEM_CLOSE, &gc)) {
		perror("teardown");
		exit(1);
	}
}

/*
 * What the slots of each kind give, but those of the first cycle (the
 * reader's and the submitter's start): jobs per second and the share of
 * the reader's CPU spent reading.
 */
struct kind_sum {
	double jobs_s[KINDS];
	double busy[KINDS];	/* % */
	double reads[KINDS];	/* a tick */
};

static void sum_kinds(const struct slot_run *run, unsigned int nkinds,
		      struct kind_sum *sum)
{
	double jobs[KINDS] = {}, read_ns[KINDS] = {}, reads[KINDS] = {};
	unsigned int s, k, n = (SLOTS - nkinds) / nkinds;

	for (s = nkinds; s < SLOTS; s++) {
		jobs[run->kind[s]] += run->jobs[s];
		read_ns[run->kind[s]] += run->read_ns[s];
		reads[run->kind[s]] += run->reads[s];
	}
	for (k = 0; k < nkinds; k++) {
		sum->jobs_s[k] = jobs[k] * 1000 / ((double)n * SLOT_MS);
		sum->busy[k] = 100 * read_ns[k] / (n * SLOT_MS * 1e6);
		sum->reads[k] = reads[k] / ((double)n * SLOT_MS);
	}
}

/*
 * The quartiles of the ratios of the jobs of kind @a to those of kind @b
 * of each cycle but the first: the noise the ratio of their sums beats.
 */
static void cycle_quartiles(const struct slot_run *run, unsigned int nkinds,
			    unsigned int a, unsigned int b,
			    double *q1, double *q3)
{
	double ratio[SLOTS];
	unsigned int c, k, n = 0;

	for (c = 1; c < SLOTS / nkinds; c++) {
		unsigned int ja = 0, jb = 0;

		for (k = c * nkinds; k < (c + 1) * nkinds; k++) {
			if (run->kind[k] == a)
				ja = run->jobs[k];
			if (run->kind[k] == b)
				jb = run->jobs[k];
		}
		/* A slot no batch completed in (a stalled guest) has no ratio */
		if (jb)
			ratio[n++] = (double)ja / jb;
	}
	*q1 = *q3 = 0;
	if (!n)
		return;
	qsort(ratio, n, sizeof(*ratio), cmp_double);
	*q1 = ratio[n / 4];
	*q3 = ratio[n - 1 - n / 4];
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
	static const int sizes[] = { 1, 64, 1024, 4096 };
	static struct slot_run run;
	unsigned int i, k, nkinds, seed = 1, order[KINDS];
	int pipefd[2], fd, have = 0;
	struct kind_sum sum = {};
	double q1, q3;
	bool wq;

	static_assert(SLOTS % PMU == 0 && SLOTS % KINDS == 0,
		      "SLOTS must be whole cycles, with or without a PMU");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(pipefd)) {
		perror("pipe");
		return 1;
	}
	fd = client_open();
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		__u64 cost, pipe_cost;
		double ratio;

		while (have < sizes[i]) {
			add_idle_queue(fd);
			have++;
		}
		ratio = read_cost_ratio(fd, pipefd[0], &cost, &pipe_cost);
		printf("bench: fdinfo_read_%d_queues ratio=%.2f target=<=3",
		       sizes[i], ratio);
		printf(" (%llu ns vs pipe %llu ns)\n",
		       (unsigned long long)cost, (unsigned long long)pipe_cost);
	}
	close(fd);

	pmu_read_cost();

	/*
	 * On one CPU (UML) a 1 kHz reader of any proc file takes CPU time from
	 * the submitter, and with two a busier reader's CPU serves the
	 * scheduler's work and the interrupts differently. So besides the
	 * ratio to no reader, show the one to a reader of a pipe's fdinfo that
	 * reads as long a tick as the fdinfo reader, never entering the
	 * driver: what is left is the driver's own interference. The PMU
	 * reader reads the group of the engine the jobs run on, against a
	 * reader of the pipe's fdinfo for as long.
	 */
	find_cpus();
	wq = wq_to_cpu(cpus[0]);
	fd = client_open();
	run.fd = fd;
	run.pipe_fd = pipefd[0];
	run.pmu_fd = pmu_group_open(DRM_SIMGPU_ENGINE_CLASS_COPY, 0);
	nkinds = run.pmu_fd >= 0 ? KINDS : PMU;

	/*
	 * The emulated guest's speed drifts by 10 % and more over seconds:
	 * slots of every kind in turn, each cycle of them in an order of its
	 * own (no kind always follows the same one) from a fixed seed (runs
	 * are comparable), make a drift weigh on every kind alike.
	 */
	for (i = 0; i < SLOTS / nkinds; i++) {
		shuffle(order, nkinds, &seed);
		for (k = 0; k < nkinds; k++)
			run.kind[i * nkinds + k] = order[k];
	}
	submit_slots(&run);
	close(fd);
	if (run.pmu_fd >= 0)
		close(run.pmu_fd);
	close(pipefd[0]);
	close(pipefd[1]);

	sum_kinds(&run, nkinds, &sum);
	if (cpus[0] >= 0)
		printf("# submitter%s on CPU %d, reader on CPU %d",
		       wq ? " and unbound work" : "", cpus[0], cpus[1]);
	else
		printf("# submitter and reader on one CPU");
	printf(", %d slots of %d ms in shuffled cycles;", SLOTS, SLOT_MS);
	printf(" ratios of the jobs of all slots of a kind, the first cycle left out\n");
	/* How the guest shares its CPUs, not the driver: no target */
	printf("# submit_with_1khz_fdinfo_reader_vs_none ratio=%.3f",
	       sum.jobs_s[FDINFO] / sum.jobs_s[NONE]);
	printf(" (%.0f vs %.0f jobs/s with no reader)\n", sum.jobs_s[FDINFO],
	       sum.jobs_s[NONE]);
	cycle_quartiles(&run, nkinds, FDINFO, PIPE, &q1, &q3);
	printf("bench: submit_with_1khz_fdinfo_reader_vs_pipe_reader ratio=%.3f target=>=0.98",
	       sum.jobs_s[FDINFO] / sum.jobs_s[PIPE]);
	printf(" (%.0f vs %.0f jobs/s;", sum.jobs_s[FDINFO], sum.jobs_s[PIPE]);
	printf(" readers busy %.2f vs %.2f %% of their CPU, %.2f pipe reads a tick;",
	       sum.busy[FDINFO], sum.busy[PIPE], sum.reads[PIPE]);
	printf(" cycles' quartiles %.3f..%.3f)\n", q1, q3);
	if (run.pmu_fd < 0) {
		printf("# submit_with_1khz_pmu_reader: no simgpu PMU\n");
		return 0;
	}
	cycle_quartiles(&run, nkinds, PMU, PIPE_PMU, &q1, &q3);
	printf("bench: submit_with_1khz_pmu_reader ratio=%.3f target=>=0.98",
	       sum.jobs_s[PMU] / sum.jobs_s[PIPE_PMU]);
	printf(" (%.0f vs %.0f jobs/s with pipe fdinfo reads as long as the PMU's,",
	       sum.jobs_s[PMU], sum.jobs_s[PIPE_PMU]);
	printf(" %.2f a tick; readers busy %.2f vs %.2f %% of their CPU;",
	       sum.reads[PIPE_PMU], sum.busy[PMU], sum.busy[PIPE_PMU]);
	printf(" cycles' quartiles %.3f..%.3f)\n", q1, q3);
	return 0;
}
