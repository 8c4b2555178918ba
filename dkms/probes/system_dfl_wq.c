// SPDX-License-Identifier: GPL-2.0-only
/* required: system_dfl_wq of <linux/workqueue.h> */
#include <linux/workqueue.h>
static __maybe_unused struct workqueue_struct *p(void) { return system_dfl_wq; }
