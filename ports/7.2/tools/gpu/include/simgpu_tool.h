/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * simgpu_tool.h - finding and driving the simgpu device from userspace
 *
 * Copyright (c) 2026 @COPYRIGHT@
 *
 * The helpers simgpu-load, simgpu-perf and the simgpu kselftests share, as
 * static inline functions, so that each program builds from its own single
 * source file. They return 0 or a negative errno and leave errno set, which
 * suits both the tools (that print strerror(errno) and exit) and the tests
 * (that compare the return value with an expected -errno).
 */
#ifndef __SIMGPU_TOOL_H
#define __SIMGPU_TOOL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>

/**
 * sg_ioctl() - ioctl() restarted on EINTR and EAGAIN
 * @fd: the DRM file
 * @req: the ioctl number
 * @arg: its argument
 *
 * A signal (simgpu-load's SIGTERM, a test's timer) or a busy device must
 * not turn into a spurious failure.
 *
 * Return: the ioctl's value (0, or a file descriptor for an ioctl that
 * returns one), or -errno with errno set.
 */
static inline int sg_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));

	return ret < 0 ? -errno : ret;
}

/**
 * now_ns() - the CLOCK_MONOTONIC time in nanoseconds
 *
 * The clock of the absolute timeouts of DRM_IOCTL_SYNCOBJ_WAIT.
 *
 * Return: the time.
 */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* scandir() filter: the render nodes of /dev/dri */
static inline int simgpu_is_render_node(const struct dirent *d)
{
	return !strncmp(d->d_name, "renderD", 7);
}

/* scandir() order: render nodes by number */
static inline int simgpu_render_node_cmp(const struct dirent **a,
					 const struct dirent **b)
{
	unsigned long x = strtoul((*a)->d_name + 7, NULL, 10);
	unsigned long y = strtoul((*b)->d_name + 7, NULL, 10);

	return x < y ? -1 : x > y;
}

/* The render node /dev/dri/@node, open, if its driver is simgpu; else -1 */
static inline int simgpu_open_node(const char *node)
{
	char path[300], name[32] = "";
	struct drm_version v = {
		.name = name,
		.name_len = sizeof(name) - 1,
	};
	int fd;

	snprintf(path, sizeof(path), "/dev/dri/%s", node);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && (sg_ioctl(fd, DRM_IOCTL_VERSION, &v) ||
			strcmp(name, "simgpu"))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/**
 * open_simgpu() - open the simgpu render node
 *
 * Opens the render nodes of /dev/dri in the order of their numbers and
 * keeps the first one whose DRM_IOCTL_VERSION names the driver "simgpu":
 * the node numbers say nothing about the driver behind them, nor are they
 * all in 128 to 191 (the kernel takes higher ones once those are used).
 *
 * Return: the file descriptor (O_CLOEXEC), or -ENODEV with errno set when
 * no render node is simgpu's or none could be opened (not root).
 */
static inline int open_simgpu(void)
{
	struct dirent **nodes;
	int i, n, fd = -1;

	n = scandir("/dev/dri", &nodes, simgpu_is_render_node,
		    simgpu_render_node_cmp);
	for (i = 0; i < n && fd < 0; i++)
		fd = simgpu_open_node(nodes[i]->d_name);
	for (i = 0; i < n; i++)
		free(nodes[i]);
	if (n >= 0)
		free(nodes);
	if (fd >= 0)
		return fd;

	errno = ENODEV;
	return -ENODEV;
}

#endif /* __SIMGPU_TOOL_H */
