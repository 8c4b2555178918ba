// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 The simgpu authors
 */

#ifndef __CHECKER__
#define CREATE_TRACE_POINTS
#include "simgpu_trace.h"
#endif
