/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_OBSERVATION_H_
#define _SIMGPU_OBSERVATION_H_

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

struct drm_device;
struct drm_file;
struct simgpu_device;
struct simgpu_obs_stream;

/**
 * struct simgpu_observation - the driver side of the observation unit
 * @lock: serialises the stream's open, enable, disable, read, status and
 *	release and the device's unbind; protects @stream and @gone. Taken
 *	before the model's locks (through MMIO), never under a spinlock.
 * @stream: the open stream, NULL if none; protected by @lock
 * @gone: the device is being unbound, no new stream; protected by @lock
 * @poll_wq: the stream's readers and pollers wait here; woken by the
 *	unit's interrupt, the stream's timer, disable and unbind
 * @pollin: the stream had enough unread reports when the interrupt or the
 *	timer last looked: wakes a blocking read(). Set there, cleared by
 *	read() before it checks the stream (READ_ONCE()/WRITE_ONCE(), no
 *	lock). A hint: poll() and read() decide from HEAD and the stream's
 *	own position
 *
 * Embedded in &struct simgpu_device, so that the interrupt handler, which
 * may run until the device model is destroyed, can always reach it.
 */
struct simgpu_observation {
	struct mutex lock;	/* @stream, @gone */
	struct simgpu_obs_stream *stream;	/* protected by @lock */
	bool gone;		/* protected by @lock */
	wait_queue_head_t poll_wq;
	bool pollin;
};

int simgpu_observation_init(struct simgpu_device *sdev);
bool simgpu_observation_device_wide_allowed(void);
void simgpu_observation_unplug(struct simgpu_device *sdev);
void simgpu_observation_irq(struct simgpu_device *sdev);
int simgpu_ioctl_observation_open(struct drm_device *drm, void *data,
				  struct drm_file *file);
int simgpu_observation_module_init(void);
void simgpu_observation_module_exit(void);

#endif /* _SIMGPU_OBSERVATION_H_ */
