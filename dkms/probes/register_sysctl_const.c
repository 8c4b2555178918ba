// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: register_sysctl() of a const table */
#include <linux/sysctl.h>
static const struct ctl_table t[] = { { .procname = "x" } };
static __maybe_unused struct ctl_table_header *p(void) { return register_sysctl("x", t); }
