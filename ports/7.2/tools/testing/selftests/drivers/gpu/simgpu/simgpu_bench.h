/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What simgpu's benchmarks share: statistics robust to an emulator's noise,
 * and a submitter and a reader on CPUs of their own. Include it after
 * defining _GNU_SOURCE (sched_setaffinity()).
 *
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef SIMGPU_BENCH_H
#define SIMGPU_BENCH_H

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* The mean of the middle half of @v (sorted on return) */
static inline double mid_mean(double *v, int n)
{
	double sum = 0;
	int i;

	qsort(v, n, sizeof(*v), cmp_double);
	for (i = n / 4; i < n - n / 4; i++)
		sum += v[i];
	return sum / (n - 2 * (n / 4));
}

/*
 * Shuffle @order, the @n numbers 0 to @n - 1 (Fisher-Yates), from @seed: the
 * cases of a round, or the kinds of a cycle of slots, in an order where none
 * always follows the same one
 */
static inline void shuffle(unsigned int *order, unsigned int n,
			   unsigned int *seed)
{
	unsigned int k, j, c;

	if (!n)
		return;
	for (k = 0; k < n; k++)
		order[k] = k;
	for (k = n - 1; k > 0; k--) {
		j = rand_r(seed) % (k + 1);
		c = order[k];
		order[k] = order[j];
		order[j] = c;
	}
}

/* The first two CPUs we may run on, or -1 */
static int cpus[2] = { -1, -1 };

static inline void find_cpus(void)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	if (n < 2) {
		cpus[0] = -1;
		cpus[1] = -1;
	}
}

#define WQ_CPUMASK	"/sys/devices/virtual/workqueue/cpumask"

/* The unbound workqueues' CPU mask before wq_to_cpu(), restored at exit */
static char wq_mask[256];

static inline void wq_restore(void)
{
	FILE *f = fopen(WQ_CPUMASK, "w");

	if (f) {
		fputs(wq_mask, f);
		fclose(f);
	}
}

/*
 * Run the unbound workqueues' work (the scheduler's among it) on @cpu, the
 * submitter's, so that where the guest happens to run it does not vary from
 * round to round, and a reader on another CPU meets the submission only
 * where the driver makes them meet. Returns whether it could (root).
 */
static inline bool wq_to_cpu(int cpu)
{
	FILE *f = fopen(WQ_CPUMASK, "r");
	bool ok;

	if (cpu < 0 || cpu >= 32 || !f)
		return false;
	ok = fgets(wq_mask, sizeof(wq_mask), f);
	fclose(f);
	f = ok ? fopen(WQ_CPUMASK, "w") : NULL;
	if (!f)
		return false;
	ok = fprintf(f, "%x\n", 1u << cpu) > 0;
	ok &= !fclose(f);
	if (ok)
		atexit(wq_restore);
	return ok;
}

static inline void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

#endif /* SIMGPU_BENCH_H */
