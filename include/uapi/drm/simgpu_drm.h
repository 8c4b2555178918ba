/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The simgpu authors
 */
#ifndef _SIMGPU_DRM_H_
#define _SIMGPU_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: simgpu uAPI
 *
 * simgpu is a simulated GPU. Its uAPI follows the usual DRM render-node
 * pattern: userspace queries the device, creates exec queues bound to an
 * engine class, allocates GEM buffer objects in a memory region and submits
 * jobs to exec queues. All structures are 64-bit aligned, every padding
 * field and every flags field without defined bits must be zero
 * (-EINVAL otherwise) and all pointers are passed as __u64.
 *
 * Error codes common to all ioctls:
 *
 * - -EINVAL: a pad field or an undefined flag is non-zero, or an argument
 *   is out of range.
 * - -EFAULT: a user pointer could not be read or written.
 * - -ENOENT: an exec queue id or GEM handle does not exist for this file.
 */

#define DRM_SIMGPU_QUERY		0x00
#define DRM_SIMGPU_EXEC_QUEUE_CREATE	0x01
#define DRM_SIMGPU_EXEC_QUEUE_DESTROY	0x02
#define DRM_SIMGPU_GEM_CREATE		0x03
#define DRM_SIMGPU_GEM_MMAP_OFFSET	0x04
#define DRM_SIMGPU_GEM_MADVISE		0x05
#define DRM_SIMGPU_SUBMIT		0x06
#define DRM_SIMGPU_WAIT_BO		0x07

#define DRM_IOCTL_SIMGPU_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_QUERY, struct drm_simgpu_query)
#define DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_EXEC_QUEUE_CREATE, \
		 struct drm_simgpu_exec_queue_create)
#define DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMGPU_EXEC_QUEUE_DESTROY, \
		struct drm_simgpu_exec_queue_destroy)
#define DRM_IOCTL_SIMGPU_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_GEM_CREATE, \
		 struct drm_simgpu_gem_create)
#define DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_GEM_MMAP_OFFSET, \
		 struct drm_simgpu_gem_mmap_offset)
#define DRM_IOCTL_SIMGPU_GEM_MADVISE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_GEM_MADVISE, \
		 struct drm_simgpu_gem_madvise)
#define DRM_IOCTL_SIMGPU_SUBMIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMGPU_SUBMIT, struct drm_simgpu_submit)
#define DRM_IOCTL_SIMGPU_WAIT_BO \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMGPU_WAIT_BO, struct drm_simgpu_wait_bo)

/**
 * enum drm_simgpu_engine_class - engine classes
 *
 * The fdinfo names of the classes are given in brackets.
 *
 * @DRM_SIMGPU_ENGINE_CLASS_RENDER: render engines ("rcs").
 * @DRM_SIMGPU_ENGINE_CLASS_COPY: blitter/copy engines ("bcs").
 * @DRM_SIMGPU_ENGINE_CLASS_VIDEO: video decode/encode engines ("vcs").
 * @DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE: video enhancement engines ("vecs").
 * @DRM_SIMGPU_ENGINE_CLASS_COMPUTE: compute engines ("ccs").
 * @DRM_SIMGPU_ENGINE_CLASS_COUNT: number of engine classes.
 */
enum drm_simgpu_engine_class {
	DRM_SIMGPU_ENGINE_CLASS_RENDER = 0,
	DRM_SIMGPU_ENGINE_CLASS_COPY = 1,
	DRM_SIMGPU_ENGINE_CLASS_VIDEO = 2,
	DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE = 3,
	DRM_SIMGPU_ENGINE_CLASS_COMPUTE = 4,
	DRM_SIMGPU_ENGINE_CLASS_COUNT,
};

/**
 * enum drm_simgpu_region - memory regions
 *
 * @DRM_SIMGPU_REGION_SYSTEM: system memory, shmem backed ("memory" in
 *	fdinfo). Buffers here can be made purgeable with
 *	&DRM_IOCTL_SIMGPU_GEM_MADVISE. What they may take in all is bounded;
 *	allocation fails with -ENOSPC past the bound.
 * @DRM_SIMGPU_REGION_VRAM0: the device's local memory ("vram0" in fdinfo).
 *	Its size is fixed by the device; allocation fails with -ENOSPC when it
 *	is full.
 * @DRM_SIMGPU_REGION_COUNT: number of memory regions.
 */
enum drm_simgpu_region {
	DRM_SIMGPU_REGION_SYSTEM = 0,
	DRM_SIMGPU_REGION_VRAM0 = 1,
	DRM_SIMGPU_REGION_COUNT,
};

/**
 * enum drm_simgpu_query_type - what &DRM_IOCTL_SIMGPU_QUERY returns
 *
 * @DRM_SIMGPU_QUERY_CONFIG: a &struct drm_simgpu_query_config.
 * @DRM_SIMGPU_QUERY_ENGINES: a &struct drm_simgpu_query_engines followed
 *	by its array of &struct drm_simgpu_engine_info.
 * @DRM_SIMGPU_QUERY_REGIONS: a &struct drm_simgpu_query_regions followed
 *	by its array of &struct drm_simgpu_region_info.
 */
enum drm_simgpu_query_type {
	DRM_SIMGPU_QUERY_CONFIG = 0,
	DRM_SIMGPU_QUERY_ENGINES = 1,
	DRM_SIMGPU_QUERY_REGIONS = 2,
};

/**
 * struct drm_simgpu_query - argument of &DRM_IOCTL_SIMGPU_QUERY
 *
 * Called with @size == 0, the kernel only writes the size needed into
 * @size. Called with a @size smaller than needed it fails with -EINVAL and
 * writes nothing to @data. Otherwise it fills @data and sets @size to the
 * number of bytes written.
 */
struct drm_simgpu_query {
	/** @type: one of &enum drm_simgpu_query_type. */
	__u32 type;

	/** @size: size in bytes of the buffer at @data (in/out). */
	__u32 size;

	/** @data: user pointer to the output buffer. */
	__u64 data;
};

/**
 * struct drm_simgpu_query_config - device configuration
 */
struct drm_simgpu_query_config {
	/**
	 * @refclk_hz: frequency of the reference clock that RING_TIMESTAMP
	 * and CTX_TIMESTAMP tick at, in Hz.
	 */
	__u64 refclk_hz;

	/** @num_engines: number of engines on the device. */
	__u32 num_engines;

	/** @max_cmds: maximum number of commands in one submit. */
	__u32 max_cmds;

	/**
	 * @max_bo_handles: maximum &drm_simgpu_submit.num_bo_handles,
	 * %DRM_SIMGPU_MAX_BO_HANDLES.
	 */
	__u32 max_bo_handles;

	/**
	 * @max_in_syncs: maximum &drm_simgpu_submit.num_in_syncs,
	 * %DRM_SIMGPU_MAX_IN_SYNCS.
	 */
	__u32 max_in_syncs;
};

/**
 * struct drm_simgpu_engine_info - one engine
 */
struct drm_simgpu_engine_info {
	/** @engine_class: one of &enum drm_simgpu_engine_class. */
	__u16 engine_class;

	/** @engine_instance: instance number within the class. */
	__u16 engine_instance;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_simgpu_query_engines - the engines of the device
 */
struct drm_simgpu_query_engines {
	/** @num_engines: number of entries in @engines. */
	__u32 num_engines;

	/** @pad: MBZ. */
	__u32 pad;

	/** @engines: the engines. */
	struct drm_simgpu_engine_info engines[];
};

/**
 * struct drm_simgpu_region_info - one memory region
 */
struct drm_simgpu_region_info {
	/** @region: one of &enum drm_simgpu_region. */
	__u32 region;

	/** @pad: MBZ. */
	__u32 pad;

	/**
	 * @total_size: bytes that buffers may take in the region: the size
	 * of the local memory, or for system memory the limit set by the
	 * ``sys_mem_mb`` module parameter (half of RAM by default).
	 */
	__u64 total_size;

	/** @used_size: bytes currently allocated in the region. */
	__u64 used_size;

	/**
	 * @max_bo_size: the largest buffer &DRM_IOCTL_SIMGPU_GEM_CREATE
	 * accepts in the region, at most @total_size.
	 */
	__u64 max_bo_size;
};

/**
 * struct drm_simgpu_query_regions - the memory regions of the device
 */
struct drm_simgpu_query_regions {
	/** @num_regions: number of entries in @regions. */
	__u32 num_regions;

	/** @pad: MBZ. */
	__u32 pad;

	/** @regions: the regions. */
	struct drm_simgpu_region_info regions[];
};

/**
 * DRM_SIMGPU_ENGINE_INSTANCE_ANY - let the driver pick the engine instance
 */
#define DRM_SIMGPU_ENGINE_INSTANCE_ANY	0xffff

/**
 * struct drm_simgpu_exec_queue_create - argument of
 * &DRM_IOCTL_SIMGPU_EXEC_QUEUE_CREATE
 *
 * Creates an exec queue whose jobs run in order on one engine of
 * @engine_class. Returns -EINVAL for an unknown class or an instance that
 * the device does not have.
 */
struct drm_simgpu_exec_queue_create {
	/** @engine_class: one of &enum drm_simgpu_engine_class. */
	__u16 engine_class;

	/**
	 * @engine_instance: the instance to run on, or
	 * %DRM_SIMGPU_ENGINE_INSTANCE_ANY.
	 */
	__u16 engine_instance;

	/** @flags: MBZ. */
	__u32 flags;

	/** @exec_queue_id: id of the new exec queue (out). */
	__u32 exec_queue_id;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_simgpu_exec_queue_destroy - argument of
 * &DRM_IOCTL_SIMGPU_EXEC_QUEUE_DESTROY
 *
 * Destroys an exec queue. Jobs already submitted still complete; the
 * queue's engine time stays accounted to the file.
 */
struct drm_simgpu_exec_queue_destroy {
	/** @exec_queue_id: the queue to destroy. */
	__u32 exec_queue_id;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_simgpu_gem_create - argument of &DRM_IOCTL_SIMGPU_GEM_CREATE
 *
 * Returns -EINVAL for a zero size or an unknown region, -E2BIG for a size
 * above the region's &drm_simgpu_region_info.max_bo_size, -ENOSPC when the
 * region has no room left (see &drm_simgpu_region_info.total_size).
 */
struct drm_simgpu_gem_create {
	/** @size: size in bytes, rounded up to the page size. */
	__u64 size;

	/** @region: one of &enum drm_simgpu_region. */
	__u32 region;

	/** @flags: MBZ. */
	__u32 flags;

	/** @handle: GEM handle of the new buffer (out). */
	__u32 handle;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_simgpu_gem_mmap_offset - argument of
 * &DRM_IOCTL_SIMGPU_GEM_MMAP_OFFSET
 */
struct drm_simgpu_gem_mmap_offset {
	/** @handle: GEM handle. */
	__u32 handle;

	/** @flags: MBZ. */
	__u32 flags;

	/** @offset: fake offset to pass to mmap() on the DRM fd (out). */
	__u64 offset;
};

/** DRM_SIMGPU_MADV_WILLNEED - the buffer's contents are needed */
#define DRM_SIMGPU_MADV_WILLNEED	0
/** DRM_SIMGPU_MADV_DONTNEED - the kernel may discard the buffer's pages */
#define DRM_SIMGPU_MADV_DONTNEED	1

/**
 * struct drm_simgpu_gem_madvise - argument of &DRM_IOCTL_SIMGPU_GEM_MADVISE
 *
 * Only buffers in %DRM_SIMGPU_REGION_SYSTEM can be purged; for others the
 * ioctl fails with -EINVAL.
 */
struct drm_simgpu_gem_madvise {
	/** @handle: GEM handle. */
	__u32 handle;

	/**
	 * @madv: %DRM_SIMGPU_MADV_WILLNEED or %DRM_SIMGPU_MADV_DONTNEED.
	 */
	__u32 madv;

	/**
	 * @retained: 1 if the buffer still has its contents, 0 if they were
	 * purged (out).
	 */
	__u32 retained;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * enum drm_simgpu_cmd_op - commands a job is made of
 *
 * @DRM_SIMGPU_CMD_BUSY: keep the engine busy for &drm_simgpu_cmd.value
 *	nanoseconds (at most one second per command).
 * @DRM_SIMGPU_CMD_HANG: never complete; the job times out and the engine
 *	is reset.
 * @DRM_SIMGPU_CMD_WRITE: write &drm_simgpu_cmd.value, which must fit in
 *	32 bits, to the buffer &drm_simgpu_cmd.handle at byte
 *	&drm_simgpu_cmd.offset, which must be 4-byte aligned and inside the
 *	buffer.
 * @DRM_SIMGPU_CMD_IDLE: switch the job's context out for
 *	&drm_simgpu_cmd.value nanoseconds (at most one second per command),
 *	then back in and go on. The context gains no engine time meanwhile and
 *	the engine runs nothing else: jobs queued behind on it wait. With BUSY
 *	it gives a duty cycle on the GPU's own clock, which a queue of work
 *	keeps exact however late the submitter runs.
 */
enum drm_simgpu_cmd_op {
	DRM_SIMGPU_CMD_BUSY = 1,
	DRM_SIMGPU_CMD_HANG = 2,
	DRM_SIMGPU_CMD_WRITE = 3,
	DRM_SIMGPU_CMD_IDLE = 4,
};

/**
 * struct drm_simgpu_cmd - one command of a job
 */
struct drm_simgpu_cmd {
	/** @op: one of &enum drm_simgpu_cmd_op. */
	__u32 op;

	/** @handle: GEM handle for %DRM_SIMGPU_CMD_WRITE, else MBZ. */
	__u32 handle;

	/** @offset: byte offset for %DRM_SIMGPU_CMD_WRITE, else MBZ. */
	__u64 offset;

	/** @value: duration or value, see &enum drm_simgpu_cmd_op. */
	__u64 value;
};

/** DRM_SIMGPU_MAX_BO_HANDLES - the most buffers one submit can name */
#define DRM_SIMGPU_MAX_BO_HANDLES	1024
/** DRM_SIMGPU_MAX_IN_SYNCS - the most syncobjs one submit can wait for */
#define DRM_SIMGPU_MAX_IN_SYNCS		256

/**
 * struct drm_simgpu_submit - argument of &DRM_IOCTL_SIMGPU_SUBMIT
 *
 * Queues a job on an exec queue. The job waits for the syncobjs in
 * @in_syncs, then runs @cmds in order on the queue's engine. Buffers
 * written by the job, and those listed in @bo_handles, are busy (their
 * reservation object holds the job's fence) until it completes.
 *
 * Returns:
 *
 * - -EINVAL: @flags is not 0; @num_cmds is 0 or larger than
 *   &drm_simgpu_query_config.max_cmds; @num_bo_handles is larger than
 *   %DRM_SIMGPU_MAX_BO_HANDLES or @num_in_syncs larger than
 *   %DRM_SIMGPU_MAX_IN_SYNCS; a command has an unknown
 *   &drm_simgpu_cmd.op or a non-zero field its op does not use; a BUSY
 *   or IDLE lasts more than one second; a WRITE's value does not fit in 32 bits,
 *   its offset is not 4-byte aligned or not inside the buffer, or its
 *   buffer is not a simgpu buffer of this device (an imported one) or was
 *   purged.
 * - -ENOENT: the exec queue, a GEM handle or a syncobj does not exist, or
 *   the queue was destroyed meanwhile.
 * - -ECANCELED: the exec queue was banned because one of its jobs hung.
 * - -EFAULT: @cmds, @bo_handles or @in_syncs could not be read.
 *
 * A job's fence (in @out_sync) completes with an error when the job did
 * not run to its end: -ETIMEDOUT for the job that hung its engine,
 * -ECANCELED for the other jobs of its exec queue, which is banned, and
 * -EIO when the engine lost the job.
 */
struct drm_simgpu_submit {
	/** @exec_queue_id: the exec queue. */
	__u32 exec_queue_id;

	/** @num_cmds: number of entries at @cmds. */
	__u32 num_cmds;

	/** @cmds: user pointer to an array of &struct drm_simgpu_cmd. */
	__u64 cmds;

	/** @bo_handles: user pointer to an array of __u32 GEM handles. */
	__u64 bo_handles;

	/** @in_syncs: user pointer to an array of __u32 syncobj handles. */
	__u64 in_syncs;

	/** @num_bo_handles: number of entries at @bo_handles. */
	__u32 num_bo_handles;

	/** @num_in_syncs: number of entries at @in_syncs. */
	__u32 num_in_syncs;

	/**
	 * @out_sync: syncobj that gets the job's fence, or 0 for none.
	 */
	__u32 out_sync;

	/** @flags: MBZ. */
	__u32 flags;
};

/**
 * struct drm_simgpu_wait_bo - argument of &DRM_IOCTL_SIMGPU_WAIT_BO
 *
 * Waits until no job uses the buffer any more. Returns -ETIME when
 * @timeout_ns passed first.
 */
struct drm_simgpu_wait_bo {
	/** @handle: GEM handle. */
	__u32 handle;

	/** @pad: MBZ. */
	__u32 pad;

	/**
	 * @timeout_ns: absolute CLOCK_MONOTONIC time to give up at, in ns;
	 * 0 only polls.
	 */
	__s64 timeout_ns;
};

#if defined(__cplusplus)
}
#endif

#endif /* _SIMGPU_DRM_H_ */
