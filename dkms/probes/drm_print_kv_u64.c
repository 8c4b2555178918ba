// SPDX-License-Identifier: GPL-2.0-only
/* shimmed: drm_print_kv_u64() (series 02) */
#include <drm/drm_print.h>
static __maybe_unused void p(struct drm_printer *d) { drm_print_kv_u64(d, "k-", "s", 1, " ns"); }
