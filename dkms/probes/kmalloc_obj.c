// SPDX-License-Identifier: GPL-2.0-only
/* required: kzalloc_obj() and kvzalloc_objs() of <linux/slab.h> */
#include <linux/slab.h>
struct t { int a; };
static __maybe_unused void *p(void) { struct t *x = kzalloc_obj(*x); struct t *y = kvzalloc_objs(*y, 2, GFP_KERNEL); kvfree(y); return x; }
