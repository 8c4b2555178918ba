/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interactive ncurses view of drmtop.
 */
#ifndef DRMTOP_TUI_H
#define DRMTOP_TUI_H

#include <stdbool.h>

#include "scan.h"

/* Runs until 'q'; filter and sort may be replaced (malloced strings). */
int tui_run(struct drm_scan *s, double delay, char **filter, char **sort,
	    bool *reverse, const char *proc_root);

#endif
