// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: perf_pmu_unregister() that revokes open events */
#include <linux/perf_event.h>
/* int since perf_pmu_unregister() detaches (revokes) the events still open */
static __maybe_unused int p(struct pmu *pmu) { return perf_pmu_unregister(pmu); }
