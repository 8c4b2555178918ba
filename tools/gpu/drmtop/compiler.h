/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compiler attributes drmtop uses, so that it builds with nothing but
 * a C library and the Linux UAPI headers (linux-libc-dev).
 */
#ifndef DRMTOP_COMPILER_H
#define DRMTOP_COMPILER_H

/* printf-like: the format is argument a, its arguments start at b */
#define __printf(a, b) __attribute__((format(printf, a, b)))

#endif
