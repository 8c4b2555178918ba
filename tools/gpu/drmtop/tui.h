/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interactive ncurses view of drmtop.
 */
#ifndef DRMTOP_TUI_H
#define DRMTOP_TUI_H

#include <stdatomic.h>
#include <stdbool.h>

#include "scan.h"

/*
 * Runs until 'q', until *stop is set (by a signal) or, if count is not 0,
 * for count refreshes; filter, cgroup and sort may be replaced (malloced
 * strings).
 */
int tui_run(struct drm_scan *s, double delay, char **filter, char **cgroup,
	    char **sort, bool *reverse, const char *proc_root, atomic_bool *stop,
	    unsigned long count);

#endif
