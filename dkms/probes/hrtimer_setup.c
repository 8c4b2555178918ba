// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: hrtimer_setup() */
#include <linux/hrtimer.h>
static enum hrtimer_restart fn(struct hrtimer *t) { return HRTIMER_NORESTART; }
static __maybe_unused void p(struct hrtimer *t) { hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS); }
