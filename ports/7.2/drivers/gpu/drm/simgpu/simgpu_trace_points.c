// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#define CREATE_TRACE_POINTS
#include "simgpu_trace.h"
