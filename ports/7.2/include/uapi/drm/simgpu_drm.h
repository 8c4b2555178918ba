/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 @COPYRIGHT@
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

/**
 * DOC: simgpu uAPI extensions
 *
 * &struct drm_simgpu_exec_queue_create, &struct drm_simgpu_submit and
 * &struct drm_simgpu_observation_open start with an ``extensions`` field:
 * a user pointer to a chain of extension structures, or 0 for none. Each
 * extension begins with a
 * &struct drm_simgpu_user_extension whose &drm_simgpu_user_extension.name
 * says which structure it is and whose
 * &drm_simgpu_user_extension.next_extension points to the next one (0 ends
 * the chain). New optional arguments are added as new extensions, so that
 * the ioctl structures themselves never change size.
 *
 * The names are per ioctl: &DRM_IOCTL_SIMGPU_OBSERVATION_OPEN takes
 * %DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY, the other ioctls none yet. The
 * kernel walks the chain in order and fails the ioctl with:
 *
 * - -EFAULT: an extension could not be read.
 * - -EINVAL: an extension has a name its ioctl does not take or a
 *   non-zero &drm_simgpu_user_extension.pad.
 * - -E2BIG: the chain has more than %DRM_SIMGPU_MAX_USER_EXTENSIONS
 *   extensions, e.g. because it loops.
 */

/** DRM_SIMGPU_MAX_USER_EXTENSIONS - the longest extension chain */
#define DRM_SIMGPU_MAX_USER_EXTENSIONS	16

/**
 * struct drm_simgpu_user_extension - header of an extension structure
 *
 * The extension structure named @name embeds this as its first member.
 */
struct drm_simgpu_user_extension {
	/**
	 * @next_extension: user pointer to the next extension, or 0 at the
	 * end of the chain.
	 */
	__u64 next_extension;

	/** @name: which extension this is, a name of its ioctl. */
	__u32 name;

	/** @pad: MBZ. */
	__u32 pad;
};

#define DRM_SIMGPU_QUERY		0x00
#define DRM_SIMGPU_EXEC_QUEUE_CREATE	0x01
#define DRM_SIMGPU_EXEC_QUEUE_DESTROY	0x02
#define DRM_SIMGPU_GEM_CREATE		0x03
#define DRM_SIMGPU_GEM_MMAP_OFFSET	0x04
#define DRM_SIMGPU_GEM_MADVISE		0x05
#define DRM_SIMGPU_SUBMIT		0x06
#define DRM_SIMGPU_WAIT_BO		0x07
#define DRM_SIMGPU_PERFMON_CREATE	0x08
#define DRM_SIMGPU_PERFMON_DESTROY	0x09
#define DRM_SIMGPU_PERFMON_GET_VALUES	0x0a
#define DRM_SIMGPU_PERFMON_SET_GLOBAL	0x0b
#define DRM_SIMGPU_OBSERVATION_OPEN	0x0c

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
#define DRM_IOCTL_SIMGPU_PERFMON_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_PERFMON_CREATE, \
		 struct drm_simgpu_perfmon_create)
#define DRM_IOCTL_SIMGPU_PERFMON_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMGPU_PERFMON_DESTROY, \
		struct drm_simgpu_perfmon_destroy)
#define DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMGPU_PERFMON_GET_VALUES, \
		 struct drm_simgpu_perfmon_get_values)
#define DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMGPU_PERFMON_SET_GLOBAL, \
		struct drm_simgpu_perfmon_set_global)
#define DRM_IOCTL_SIMGPU_OBSERVATION_OPEN \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMGPU_OBSERVATION_OPEN, \
		struct drm_simgpu_observation_open)

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
 * @DRM_SIMGPU_QUERY_COUNTERS: a &struct drm_simgpu_query_counters followed
 *	by its array of &struct drm_simgpu_counter_info.
 */
enum drm_simgpu_query_type {
	DRM_SIMGPU_QUERY_CONFIG = 0,
	DRM_SIMGPU_QUERY_ENGINES = 1,
	DRM_SIMGPU_QUERY_REGIONS = 2,
	DRM_SIMGPU_QUERY_COUNTERS = 3,
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

	/**
	 * @max_out_syncs: maximum &drm_simgpu_submit.num_out_syncs,
	 * %DRM_SIMGPU_MAX_OUT_SYNCS.
	 */
	__u32 max_out_syncs;

	/** @pad: written 0. */
	__u32 pad;

	/**
	 * @max_job_ns: the longest a job may run on its engine, in
	 * nanoseconds, making progress or not (5 s unless the ``max_job_ms``
	 * module parameter says otherwise), counted from when the engine
	 * starts it: the time it waits behind other jobs is not included. A
	 * job still running at the limit is stopped: its fence fails with
	 * -ETIMEDOUT, its engine is reset and its exec queue banned, as for
	 * a hang, and the jobs queued behind it on the engine run. Work that
	 * takes longer must be split into several jobs.
	 */
	__u64 max_job_ns;
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

/** DRM_SIMGPU_COUNTER_NAME_LEN - size of &drm_simgpu_counter_info.name */
#define DRM_SIMGPU_COUNTER_NAME_LEN	32
/** DRM_SIMGPU_COUNTER_DESC_LEN - size of &drm_simgpu_counter_info.description */
#define DRM_SIMGPU_COUNTER_DESC_LEN	128

/**
 * struct drm_simgpu_counter_info - one performance counter
 *
 * Every engine counts the same counters. Strings are NUL-terminated.
 */
struct drm_simgpu_counter_info {
	/** @id: the counter's id, as &drm_simgpu_perfmon_create takes it. */
	__u32 id;

	/** @pad: MBZ. */
	__u32 pad;

	/** @name: short name, e.g. "bytes-written". */
	char name[DRM_SIMGPU_COUNTER_NAME_LEN];

	/** @category: group the counter belongs to, e.g. "memory". */
	char category[DRM_SIMGPU_COUNTER_NAME_LEN];

	/** @unit: what one count is, e.g. "bytes", "ticks". */
	char unit[DRM_SIMGPU_COUNTER_NAME_LEN];

	/** @description: one sentence on what is counted and when. */
	char description[DRM_SIMGPU_COUNTER_DESC_LEN];
};

/**
 * struct drm_simgpu_query_counters - the performance counters
 */
struct drm_simgpu_query_counters {
	/** @num_counters: number of entries in @counters. */
	__u32 num_counters;

	/**
	 * @num_slots: the most counters one perfmon can count, the engines'
	 * counter slots.
	 */
	__u32 num_slots;

	/**
	 * @report_size: size in bytes of a &struct drm_simgpu_sample_report,
	 * the alignment %DRM_SIMGPU_CMD_SAMPLE needs.
	 */
	__u32 report_size;

	/** @pad: MBZ. */
	__u32 pad;

	/** @counters: the counters. */
	struct drm_simgpu_counter_info counters[];
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
 * @engine_class.
 *
 * Returns:
 *
 * - -EINVAL: an unknown class, an instance that the device does not have,
 *   or @flags or @pad is not 0.
 * - -EINVAL, -EFAULT, -E2BIG: @extensions is not a valid chain, see
 *   "simgpu uAPI extensions".
 */
struct drm_simgpu_exec_queue_create {
	/**
	 * @extensions: user pointer to the first
	 * &struct drm_simgpu_user_extension, or 0.
	 */
	__u64 extensions;

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
 * Destroys an exec queue: its id is freed at once and later submits to it
 * fail with -ENOENT. Jobs already submitted still run and complete, and
 * the queue's engine time stays accounted to the file.
 *
 * The call blocks until every job submitted to the queue has been handed
 * to the hardware, that is until the in-syncs and implicit dependencies of
 * the last one have signalled and the scheduler has taken it off the
 * queue. It does not wait for the jobs to complete: their fences signal
 * later, as they would have without the destroy. So a destroy behind a job
 * whose in-sync is never signalled blocks until that happens; a fatal
 * signal ends the wait, and the jobs not yet handed to the hardware are
 * then dropped, their fences completing with -ESRCH. Closing the file
 * destroys its queues the same way, except that a process exiting waits
 * one second at most.
 *
 * Why it blocks: submitted jobs keep their promise to run, so the queue's
 * scheduler entity must go on feeding them to the hardware after the id is
 * gone, and the destroy drains it in the caller's context. A driver may
 * instead tear a queue down asynchronously and cancel what it had not run
 * (xe does); simgpu does not cancel, and draining in a kernel worker would
 * let a queue behind a never-signalled in-sync hold its context and
 * memory with nobody to wait for it or to kill. A caller that must not
 * block destroys the queue once the in-syncs of its last job signalled.
 *
 * Returns -ENOENT for an unknown queue, -EINVAL if @pad is not 0.
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
 * Returns -EINVAL for a zero size, a size above the region's
 * &drm_simgpu_region_info.max_bo_size (a fixed limit, known from
 * %DRM_SIMGPU_QUERY_REGIONS, so a request above it is a bad argument) or an
 * unknown region, and -ENOSPC when the region has no room left for the
 * buffer now (see &drm_simgpu_region_info.total_size and
 * &drm_simgpu_region_info.used_size), which freeing other buffers cures.
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
 * ioctl fails with -EINVAL. A buffer is not purged while it is mapped, used
 * by a job or exported. A purged buffer can no longer be used: mmap() of it
 * fails with -EINVAL, and so does a submission that writes it.
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
 *	nanoseconds (at most one second per command; a whole job runs for
 *	&drm_simgpu_query_config.max_job_ns at most).
 * @DRM_SIMGPU_CMD_HANG: never complete; the job times out and the engine
 *	is reset.
 * @DRM_SIMGPU_CMD_WRITE: write &drm_simgpu_cmd.value, which must fit in
 *	32 bits, to the buffer &drm_simgpu_cmd.handle at byte
 *	&drm_simgpu_cmd.offset, which must be 4-byte aligned and inside the
 *	buffer.
 * @DRM_SIMGPU_CMD_IDLE: switch the job's context out for
 *	&drm_simgpu_cmd.value nanoseconds (at most one second per command,
 *	counted in the job's run time), then back in and go on. The context
 *	gains no engine time meanwhile and the engine runs nothing else: jobs
 *	queued behind on it wait. With BUSY
 *	it gives a duty cycle on the GPU's own clock, which a queue of work
 *	keeps exact however late the submitter runs.
 * @DRM_SIMGPU_CMD_COPY: copy &drm_simgpu_cmd.value bytes within the buffer
 *	&drm_simgpu_cmd.handle, to byte &drm_simgpu_cmd.offset, from byte
 *	&drm_simgpu_cmd.src_offset. Offsets and length are multiples of 4,
 *	the length is 4 to
 *	%DRM_SIMGPU_COPY_MAX_BYTES, both ranges lie inside the buffer and do
 *	not overlap. It takes one nanosecond per byte of engine time. The
 *	engine runs it as one copy per piece between the 4 KiB boundaries of
 *	the source and of the destination (up to three): the "commands" and
 *	"copies" counters count each piece.
 * @DRM_SIMGPU_CMD_SAMPLE: write a &struct drm_simgpu_sample_report into
 *	the buffer &drm_simgpu_cmd.handle at byte &drm_simgpu_cmd.offset,
 *	which is a multiple of &drm_simgpu_query_counters.report_size; the
 *	report lies inside the buffer. &drm_simgpu_cmd.value is the report's
 *	tag and must fit in 32 bits.
 */
enum drm_simgpu_cmd_op {
	DRM_SIMGPU_CMD_BUSY = 1,
	DRM_SIMGPU_CMD_HANG = 2,
	DRM_SIMGPU_CMD_WRITE = 3,
	DRM_SIMGPU_CMD_IDLE = 4,
	DRM_SIMGPU_CMD_COPY = 5,
	DRM_SIMGPU_CMD_SAMPLE = 6,
};

/** DRM_SIMGPU_COPY_MAX_BYTES - the most bytes one COPY command copies */
#define DRM_SIMGPU_COPY_MAX_BYTES	4096

/**
 * struct drm_simgpu_sample_report - what a %DRM_SIMGPU_CMD_SAMPLE writes
 *
 * Written when the engine reaches the command in the job's stream, little
 * endian. The job's earlier commands are done, its later ones not begun.
 */
struct drm_simgpu_sample_report {
	/**
	 * @seqno: 1 for the first SAMPLE of the exec queue, then one more
	 * for each, in command-stream order; wraps at 2^32.
	 */
	__u32 seqno;

	/** @tag: &drm_simgpu_cmd.value of the SAMPLE. */
	__u32 tag;

	/**
	 * @gpu_timestamp: the engine's RING_TIMESTAMP, in ticks of
	 * &drm_simgpu_query_config.refclk_hz.
	 */
	__u64 gpu_timestamp;

	/** @ctx_timestamp: the queue's context timestamp; wraps at 2^32. */
	__u32 ctx_timestamp;

	/** @engine: the engine, as (class << 16) | instance. */
	__u32 engine;

	/**
	 * @counters: the counters of the job's perfmon (or of the
	 * device-wide one) since the job started, in the order
	 * &drm_simgpu_perfmon_create.counters gave them; 0 past its
	 * counters, and all 0 without a perfmon.
	 */
	__u64 counters[4];

	/** @reserved: written 0. */
	__u64 reserved;
};

/**
 * struct drm_simgpu_cmd - one command of a job
 */
struct drm_simgpu_cmd {
	/** @op: one of &enum drm_simgpu_cmd_op. */
	__u32 op;

	/**
	 * @handle: GEM handle for %DRM_SIMGPU_CMD_WRITE,
	 * %DRM_SIMGPU_CMD_COPY and %DRM_SIMGPU_CMD_SAMPLE, else MBZ.
	 */
	__u32 handle;

	/**
	 * @offset: byte offset for %DRM_SIMGPU_CMD_WRITE,
	 * %DRM_SIMGPU_CMD_COPY (the destination) and %DRM_SIMGPU_CMD_SAMPLE,
	 * else MBZ.
	 */
	__u64 offset;

	/**
	 * @value: duration, value or length, see &enum drm_simgpu_cmd_op.
	 */
	__u64 value;

	/**
	 * @src_offset: byte offset of the source of %DRM_SIMGPU_CMD_COPY,
	 * else MBZ.
	 */
	__u64 src_offset;
};

/** DRM_SIMGPU_MAX_BO_HANDLES - the most buffers one submit can name */
#define DRM_SIMGPU_MAX_BO_HANDLES	1024
/** DRM_SIMGPU_MAX_IN_SYNCS - the most syncs one submit can wait for */
#define DRM_SIMGPU_MAX_IN_SYNCS		256
/** DRM_SIMGPU_MAX_OUT_SYNCS - the most syncs one submit can signal */
#define DRM_SIMGPU_MAX_OUT_SYNCS	64

/**
 * DRM_SIMGPU_SYNC_TYPE_MASK - the bits of &drm_simgpu_sync.flags that give
 * the sync's type
 */
#define DRM_SIMGPU_SYNC_TYPE_MASK		0xffu
/**
 * DRM_SIMGPU_SYNC_TYPE_SYNCOBJ - a binary syncobj;
 * &drm_simgpu_sync.timeline_value MBZ
 */
#define DRM_SIMGPU_SYNC_TYPE_SYNCOBJ		0x0u
/**
 * DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ - a point of a timeline syncobj;
 * &drm_simgpu_sync.timeline_value is the point, not 0
 */
#define DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ	0x1u

/**
 * struct drm_simgpu_sync - a syncobj a job waits for or signals
 *
 * An in-sync makes the job wait for the fence the syncobj holds, or for a
 * timeline syncobj for the fence of point @timeline_value; such a fence
 * must exist when the job is submitted (the kernel does not wait for it to
 * be submitted), else the submit fails with -EINVAL, as
 * %DRM_IOCTL_SYNCOBJ_WAIT does without
 * %DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT. A point that has signalled and
 * been garbage collected counts as signalled.
 *
 * An out-sync gets the job's fence: a binary syncobj has its fence
 * replaced, a timeline syncobj gets it as the new point @timeline_value,
 * which should be above the syncobj's last point (the DRM timeline
 * ioctls, %DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT and %DRM_IOCTL_SYNCOBJ_QUERY,
 * see it then).
 */
struct drm_simgpu_sync {
	/**
	 * @flags: the type, one of %DRM_SIMGPU_SYNC_TYPE_SYNCOBJ and
	 * %DRM_SIMGPU_SYNC_TYPE_TIMELINE_SYNCOBJ; other bits MBZ.
	 */
	__u32 flags;

	/** @handle: the syncobj's handle. */
	__u32 handle;

	/**
	 * @timeline_value: the point of a timeline syncobj, not 0; MBZ for
	 * a binary syncobj.
	 */
	__u64 timeline_value;
};

/**
 * struct drm_simgpu_submit - argument of &DRM_IOCTL_SIMGPU_SUBMIT
 *
 * Queues a job on an exec queue. The job waits for the syncs in
 * @in_syncs, then runs @cmds in order on the queue's engine, and its fence
 * goes into every sync of @out_syncs. Buffers written by the job, and those
 * listed in @bo_handles, are busy (their reservation object holds the
 * job's fence) until it completes. Once the job is queued nothing can
 * fail: a submit that returns an error has neither queued the job nor
 * touched an out-sync.
 *
 * Returns:
 *
 * - -EINVAL: @flags or @pad is not 0; @num_cmds is 0 or larger than
 *   &drm_simgpu_query_config.max_cmds; @num_bo_handles is larger than
 *   %DRM_SIMGPU_MAX_BO_HANDLES, @num_in_syncs larger than
 *   %DRM_SIMGPU_MAX_IN_SYNCS or @num_out_syncs larger than
 *   %DRM_SIMGPU_MAX_OUT_SYNCS; a &struct drm_simgpu_sync has an unknown
 *   type or undefined flags, a binary syncobj a non-zero
 *   &drm_simgpu_sync.timeline_value or a timeline syncobj a zero one; an
 *   in-sync's syncobj has no fence (binary) or no point
 *   &drm_simgpu_sync.timeline_value yet (timeline); a command has an
 *   unknown &drm_simgpu_cmd.op or a non-zero field its op does not use; a
 *   BUSY or IDLE lasts more than one second; a WRITE's value does not fit
 *   in 32 bits, its offset is not 4-byte aligned or not inside the buffer,
 *   or its buffer is not a simgpu buffer of this device (an imported one)
 *   or was purged; a COPY or SAMPLE breaks the rules of
 *   &enum drm_simgpu_cmd_op.
 * - -EINVAL, -EFAULT, -E2BIG: @extensions is not a valid chain, see
 *   "simgpu uAPI extensions".
 * - -ENOENT: the exec queue, a GEM handle, a syncobj or @perfmon_id does
 *   not exist, or the queue was destroyed meanwhile.
 * - -EBUSY: @perfmon_id is not 0 while a device-wide perfmon is set (see
 *   &drm_simgpu_perfmon_set_global).
 * - -ECANCELED: the exec queue was banned because one of its jobs hung.
 * - -EFAULT: @cmds, @bo_handles, @in_syncs or @out_syncs could not be
 *   read.
 * - -ENOMEM: the kernel could not allocate the job.
 * - -EINTR: a fatal signal came while the job's pages were being
 *   allocated.
 *
 * A job's fence (in @out_syncs) completes with an error when the job did
 * not run to its end: -ETIMEDOUT for the job that hung its engine or ran
 * longer than &drm_simgpu_query_config.max_job_ns, -ECANCELED for the
 * other jobs of its exec queue, which is banned, -EIO when the engine lost
 * the job, and -ESRCH when its queue was destroyed (or its file closed)
 * and the wait for it was killed before the job reached the hardware.
 */
struct drm_simgpu_submit {
	/**
	 * @extensions: user pointer to the first
	 * &struct drm_simgpu_user_extension, or 0.
	 */
	__u64 extensions;

	/** @exec_queue_id: the exec queue. */
	__u32 exec_queue_id;

	/** @num_cmds: number of entries at @cmds. */
	__u32 num_cmds;

	/** @cmds: user pointer to an array of &struct drm_simgpu_cmd. */
	__u64 cmds;

	/** @bo_handles: user pointer to an array of __u32 GEM handles. */
	__u64 bo_handles;

	/**
	 * @in_syncs: user pointer to an array of &struct drm_simgpu_sync the
	 * job waits for.
	 */
	__u64 in_syncs;

	/**
	 * @out_syncs: user pointer to an array of &struct drm_simgpu_sync
	 * that get the job's fence.
	 */
	__u64 out_syncs;

	/** @num_bo_handles: number of entries at @bo_handles. */
	__u32 num_bo_handles;

	/** @num_in_syncs: number of entries at @in_syncs. */
	__u32 num_in_syncs;

	/** @num_out_syncs: number of entries at @out_syncs. */
	__u32 num_out_syncs;

	/**
	 * @perfmon_id: perfmon of this file that counts the job, or 0 for
	 * none. The job's counts are added to it when the job retires.
	 */
	__u32 perfmon_id;

	/** @flags: MBZ. */
	__u32 flags;

	/** @pad: MBZ. */
	__u32 pad;
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

/**
 * DOC: simgpu performance counters
 *
 * Every engine has a counter unit: %DRM_SIMGPU_QUERY_COUNTERS lists its
 * counters, of which a perfmon counts up to
 * &drm_simgpu_query_counters.num_slots. A perfmon belongs to the file that
 * created it. A job names it in &drm_simgpu_submit.perfmon_id; the engine
 * counts the job's work only (the counters are part of the job's context),
 * and the job's counts are added to the perfmon when it retires.
 *
 * The n-th job submitted with a perfmon is its job n. Jobs are added in
 * that order, even when they run on several exec queues and retire out of
 * order, so the values that %DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES returns
 * with a sequence number n count exactly jobs 1 to n. A job that did not
 * run to its end (it hung, its queue was banned) counts 0 but takes its
 * place in the sequence.
 *
 * A device-wide perfmon (%DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL) counts the
 * jobs of every file, and needs perfmon_capable() unless the sysctl
 * dev.simgpu.observation_paranoid is 0, as a device-wide observation
 * stream does.
 */

/** DRM_SIMGPU_MAX_PERFMONS - the most perfmons a file can have */
#define DRM_SIMGPU_MAX_PERFMONS		64

/**
 * struct drm_simgpu_perfmon_create - argument of
 * &DRM_IOCTL_SIMGPU_PERFMON_CREATE
 *
 * Returns:
 *
 * - -EINVAL: @flags or @pad is not 0, @num_counters is 0 or more than
 *   &drm_simgpu_query_counters.num_slots, a counter id is unknown or given
 *   twice.
 * - -ENOSPC: the file has %DRM_SIMGPU_MAX_PERFMONS perfmons.
 * - -EFAULT: @counters could not be read.
 */
struct drm_simgpu_perfmon_create {
	/** @counters: user pointer to an array of __u32 counter ids. */
	__u64 counters;

	/** @num_counters: number of entries at @counters. */
	__u32 num_counters;

	/** @flags: MBZ. */
	__u32 flags;

	/** @id: the new perfmon's id, never 0 (out). */
	__u32 id;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * struct drm_simgpu_perfmon_destroy - argument of
 * &DRM_IOCTL_SIMGPU_PERFMON_DESTROY
 *
 * The id is freed at once; jobs in flight that use the perfmon still run
 * and count into it. Destroying the device-wide perfmon turns the
 * device-wide mode off. Returns -ENOENT if the file has no such perfmon.
 */
struct drm_simgpu_perfmon_destroy {
	/** @id: the perfmon. */
	__u32 id;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * DRM_SIMGPU_PERFMON_WAIT - wait until every job submitted with the
 * perfmon before the call has been added
 */
#define DRM_SIMGPU_PERFMON_WAIT		(1 << 0)

/**
 * struct drm_simgpu_perfmon_get_values - argument of
 * &DRM_IOCTL_SIMGPU_PERFMON_GET_VALUES
 *
 * Returns:
 *
 * - -EINVAL: @num_values is not the perfmon's number of counters, @flags
 *   has an undefined bit, @pad is not 0, or @timeout_ns is not 0 without
 *   %DRM_SIMGPU_PERFMON_WAIT.
 * - -ENOENT: the file has no such perfmon.
 * - -ETIME: with %DRM_SIMGPU_PERFMON_WAIT, @timeout_ns passed first; the
 *   values are not written.
 * - -EINTR: a signal came while waiting, and its handler was installed
 *   without SA_RESTART (with it, the call restarts; the timeout is absolute).
 * - -EFAULT: @values could not be written.
 */
struct drm_simgpu_perfmon_get_values {
	/** @id: the perfmon. */
	__u32 id;

	/** @flags: 0 or %DRM_SIMGPU_PERFMON_WAIT. */
	__u32 flags;

	/**
	 * @timeout_ns: with %DRM_SIMGPU_PERFMON_WAIT, absolute
	 * CLOCK_MONOTONIC time to give up at, in ns; else MBZ.
	 */
	__s64 timeout_ns;

	/**
	 * @values: user pointer to an array of __u64 that gets the counts,
	 * in the order of &drm_simgpu_perfmon_create.counters.
	 */
	__u64 values;

	/** @num_values: number of entries at @values. */
	__u32 num_values;

	/** @pad: MBZ. */
	__u32 pad;

	/**
	 * @seqno: the values count exactly the perfmon's jobs 1 to @seqno
	 * (out).
	 */
	__u64 seqno;
};

/**
 * DRM_SIMGPU_PERFMON_CLEAR_GLOBAL - turn the device-wide perfmon off
 */
#define DRM_SIMGPU_PERFMON_CLEAR_GLOBAL	(1 << 0)

/**
 * struct drm_simgpu_perfmon_set_global - argument of
 * &DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL
 *
 * Makes @id count every job of every file on the device, until it is
 * cleared, destroyed or its file closed. Meanwhile submits that name a
 * perfmon fail with -EBUSY.
 *
 * Returns:
 *
 * - -EACCES: the caller is not perfmon_capable() while the sysctl
 *   dev.simgpu.observation_paranoid is 1 (the rule of device-wide
 *   observation streams).
 * - -EBUSY: jobs with a per-job perfmon are in flight, or another perfmon
 *   is the device-wide one; clearing: this file's perfmon is not.
 * - -ENOENT: the file has no perfmon @id.
 * - -EINVAL: @flags has an undefined bit, or @id is not 0 when clearing.
 */
struct drm_simgpu_perfmon_set_global {
	/** @flags: 0 to set, %DRM_SIMGPU_PERFMON_CLEAR_GLOBAL to clear. */
	__u32 flags;

	/** @id: the perfmon to set; 0 when clearing. */
	__u32 id;
};

/**
 * DOC: simgpu observation streams
 *
 * An observation stream delivers the periodic reports of the device's
 * observation unit: every 2^(e+1) reference clock ticks (e the period
 * exponent) the unit captures, at one instant, the timestamp, the context
 * resident on the observed engine and up to four counters of
 * &DRM_SIMGPU_QUERY_COUNTERS, counted from the stream's enable on; it
 * also reports each switch of a context in and out. &struct
 * drm_simgpu_observation_open opens a stream from a chain of
 * &struct drm_simgpu_observation_set_property extensions and returns a
 * file descriptor (close-on-exec), the ioctl's return value, whose read()
 * returns records: each a
 * &struct drm_simgpu_observation_record header and a payload,
 * %DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE with a
 * &struct drm_simgpu_observation_sample,
 * %DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST and
 * %DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW with a
 * &struct drm_simgpu_observation_lost, at the place in the series where
 * reports are missing (for those missing after the last report written:
 * at the end, once the stream is disabled). read() returns whole records
 * only, as many as fit;
 * it first collects what the unit has written, so that a reader gets
 * everything up to the call. While the stream is enabled, poll() reports
 * EPOLLIN once %DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS reports are
 * unread (waking at the unit's threshold interrupt or within 5 ms), and a
 * blocking read() waits for as much; with O_NONBLOCK, read() returns what
 * there is. While it is disabled, poll() reports EPOLLIN as long as
 * records are left to read, then EPOLLHUP (as for a stream opened disabled
 * and never enabled): read() then fails with -EIO until it is enabled
 * again. Whenever poll() reports an event, a blocking read() returns at
 * once.
 *
 * read() fails with -ENOSPC if the buffer cannot take the next record,
 * -EAGAIN with O_NONBLOCK and nothing to read, -EIO when the stream is
 * disabled and all it wrote was read, -EINTR on a signal, -EFAULT, and
 * -ENODEV once the device is unbound (poll() then returns EPOLLERR |
 * EPOLLHUP). The stream fd's ioctls are
 * %DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE, %DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE,
 * %DRM_SIMGPU_OBSERVATION_IOCTL_STATUS and
 * %DRM_SIMGPU_OBSERVATION_IOCTL_INFO; they return -ENODEV once the device
 * is unbound and -ENOTTY for another command.
 *
 * Two kinds of stream: a stream of one of the caller's exec queues
 * (%DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID) counts only while that
 * queue's context is resident, reports only its context switches and shows
 * no other context: it needs no privilege. A device-wide stream (no exec
 * queue) counts the work of every client on one engine: it needs
 * perfmon_capable(), unless the sysctl dev.simgpu.observation_paranoid is
 * 0 (default 1), the rule of a device-wide perfmon too. A period shorter
 * than %DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS (a rate above 100 kHz) needs
 * perfmon_capable() whatever the sysctl: it costs the interrupt latency of
 * the whole machine.
 *
 * The device has one observation unit: one stream at a time, -EBUSY for
 * another, from the open of the first to its close, whether it is enabled
 * or not and whoever opened either (first come, first served, as for
 * xe's OA units); debugfs's simgpu_observation names the holder. The unit
 * has its own counters, separate from the contexts' ones the perfmons
 * use: a stream and perfmons, device-wide
 * (%DRM_IOCTL_SIMGPU_PERFMON_SET_GLOBAL) or per job, work at the same time
 * and do not see each other.
 */

/**
 * DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS - the shortest period without
 * privilege, 10 us (100 kHz)
 */
#define DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS	10000

/** DRM_SIMGPU_OBSERVATION_MAX_EXPONENT - the largest period exponent */
#define DRM_SIMGPU_OBSERVATION_MAX_EXPONENT	31

/**
 * DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY - the name of
 * &struct drm_simgpu_observation_set_property
 */
#define DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY	0

/**
 * enum drm_simgpu_observation_property - properties of a stream
 *
 * Each may be given once, but %DRM_SIMGPU_OBSERVATION_PROP_COUNTER.
 */
enum drm_simgpu_observation_property {
	/**
	 * @DRM_SIMGPU_OBSERVATION_PROP_COUNTER: a counter id of
	 * &DRM_SIMGPU_QUERY_COUNTERS; given once per counter, up to
	 * &drm_simgpu_query_counters.num_slots times, in the order of
	 * &drm_simgpu_observation_sample.values. None: reports without
	 * counters.
	 */
	DRM_SIMGPU_OBSERVATION_PROP_COUNTER = 1,

	/**
	 * @DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT: e, 0 to
	 * %DRM_SIMGPU_OBSERVATION_MAX_EXPONENT: a report every 2^(e+1)
	 * reference clock ticks. Default: the shortest period of at least one
	 * millisecond.
	 */
	DRM_SIMGPU_OBSERVATION_PROP_PERIOD_EXPONENT,

	/**
	 * @DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID: observe this exec
	 * queue of the file only, on its engine. Default: device-wide.
	 */
	DRM_SIMGPU_OBSERVATION_PROP_EXEC_QUEUE_ID,

	/**
	 * @DRM_SIMGPU_OBSERVATION_PROP_ENGINE: the engine observed,
	 * engine_class | engine_instance << 16. Default: the exec queue's
	 * engine, or the first engine of &DRM_SIMGPU_QUERY_ENGINES for a
	 * device-wide stream. With an exec queue, it must be the queue's.
	 */
	DRM_SIMGPU_OBSERVATION_PROP_ENGINE,

	/**
	 * @DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE: bytes of the buffer the
	 * unit writes into, a power of two from 4 KiB to 1 MiB, each report
	 * 64 bytes. Default 64 KiB.
	 */
	DRM_SIMGPU_OBSERVATION_PROP_BUFFER_SIZE,

	/**
	 * @DRM_SIMGPU_OBSERVATION_PROP_DISABLED: non-zero to open the
	 * stream disabled, for %DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE to start.
	 * Default 0: enabled.
	 */
	DRM_SIMGPU_OBSERVATION_PROP_DISABLED,

	/**
	 * @DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS: unread reports that
	 * make poll() report EPOLLIN and raise the unit's interrupt, 1 to
	 * half the buffer's reports. Default 1.
	 */
	DRM_SIMGPU_OBSERVATION_PROP_WAIT_NUM_REPORTS,
};

/**
 * struct drm_simgpu_observation_set_property - one property of a stream
 */
struct drm_simgpu_observation_set_property {
	/**
	 * @base: the extension header, name
	 * %DRM_SIMGPU_OBSERVATION_EXT_SET_PROPERTY.
	 */
	struct drm_simgpu_user_extension base;

	/** @property: one of &enum drm_simgpu_observation_property. */
	__u32 property;

	/** @pad: MBZ. */
	__u32 pad;

	/** @value: the property's value. */
	__u64 value;
};

/**
 * DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK - open the stream fd with O_NONBLOCK
 */
#define DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK	(1 << 0)

/**
 * struct drm_simgpu_observation_open - argument of
 * &DRM_IOCTL_SIMGPU_OBSERVATION_OPEN
 *
 * Opens an observation stream, see "simgpu observation streams".
 *
 * Returns: the stream's file descriptor, as the ioctl's return value (as
 * i915's and xe's stream ioctls do: nothing is copied back, so that a
 * stream is never left open in the caller's file table when the ioctl
 * fails), or
 *
 * - -EINVAL: @flags has an undefined bit, @pad is not 0, an unknown
 *   property, a property given twice, a bad value (an unknown counter or
 *   one given twice, an exponent above
 *   %DRM_SIMGPU_OBSERVATION_MAX_EXPONENT, an engine the device does not
 *   have or not the queue's, a buffer size out of range or not a power of
 *   two, a report count out of range), or @extensions is not a valid
 *   chain (with -EFAULT, -E2BIG, see "simgpu uAPI extensions").
 * - -E2BIG: more counters than &drm_simgpu_query_counters.num_slots.
 * - -ENOENT: the exec queue is not one of the file's.
 * - -EACCES: a period shorter than %DRM_SIMGPU_OBSERVATION_MIN_PERIOD_NS
 *   without perfmon_capable(), or a device-wide stream without it while
 *   dev.simgpu.observation_paranoid is 1.
 * - -EBUSY: a stream is open on the device (see "simgpu observation
 *   streams").
 * - -ENODEV: the device is being unbound.
 * - -ENOMEM, -EMFILE, -ENFILE: no memory for the buffer, no fd.
 */
struct drm_simgpu_observation_open {
	/**
	 * @extensions: user pointer to the first
	 * &struct drm_simgpu_observation_set_property, or 0.
	 */
	__u64 extensions;

	/** @flags: 0 or %DRM_SIMGPU_OBSERVATION_OPEN_NONBLOCK. */
	__u32 flags;

	/** @pad: MBZ. */
	__u32 pad;
};

/**
 * enum drm_simgpu_observation_record_type - &drm_simgpu_observation_record.type
 */
enum drm_simgpu_observation_record_type {
	/**
	 * @DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE: a report of the unit, a
	 * &struct drm_simgpu_observation_sample.
	 */
	DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE = 1,

	/**
	 * @DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST: the unit could not
	 * write that many periodic reports in time (at periods under a
	 * quarter of a microsecond, or when the host runs the device model
	 * late); a &struct drm_simgpu_observation_lost.
	 */
	DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST,

	/**
	 * @DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW: that many reports
	 * were dropped because the reader let the buffer fill up; a
	 * &struct drm_simgpu_observation_lost.
	 */
	DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW,
};

/**
 * struct drm_simgpu_observation_record - header of a record of read()
 */
struct drm_simgpu_observation_record {
	/** @type: an &enum drm_simgpu_observation_record_type. */
	__u32 type;

	/** @size: bytes of the record, this header included. */
	__u32 size;
};

/**
 * enum drm_simgpu_observation_reason - why a report was written
 */
enum drm_simgpu_observation_reason {
	/** @DRM_SIMGPU_OBSERVATION_REASON_PERIODIC: the period came. */
	DRM_SIMGPU_OBSERVATION_REASON_PERIODIC = 1,

	/**
	 * @DRM_SIMGPU_OBSERVATION_REASON_CTX_IN: a context was switched in,
	 * before its batch start and the switch were counted.
	 */
	DRM_SIMGPU_OBSERVATION_REASON_CTX_IN,

	/**
	 * @DRM_SIMGPU_OBSERVATION_REASON_CTX_OUT: a context is being switched
	 * out, everything it did counted.
	 */
	DRM_SIMGPU_OBSERVATION_REASON_CTX_OUT,
};

/**
 * struct drm_simgpu_observation_sample - payload of
 * %DRM_SIMGPU_OBSERVATION_RECORD_SAMPLE
 *
 * Everything in it is of one instant, @timestamp: a report at tick T
 * counts what happened before T. Periodic reports are at the ticks that
 * are multiples of the period.
 */
struct drm_simgpu_observation_sample {
	/**
	 * @seqno: +1 from one sample to the next of the stream, 0 for the
	 * first one and after each lost or overflow record: a gap in the
	 * series never goes unseen.
	 */
	__u32 seqno;

	/** @reason: an &enum drm_simgpu_observation_reason. */
	__u32 reason;

	/** @timestamp: the engine's reference clock ticks (RING_TIMESTAMP). */
	__u64 timestamp;

	/**
	 * @context: the resident context, 0 when none. In an exec queue's
	 * stream: the exec queue id while its context is resident, else 0. In
	 * a device-wide stream: the device's id of the context, an opaque
	 * number unique among the live contexts.
	 */
	__u32 context;

	/** @pad: 0. */
	__u32 pad;

	/**
	 * @values: the counters in the order of the
	 * %DRM_SIMGPU_OBSERVATION_PROP_COUNTER properties, counted since the
	 * enable (in an exec queue's stream: while its context was resident);
	 * unused ones 0.
	 */
	__u64 values[4];
};

/**
 * struct drm_simgpu_observation_lost - payload of
 * %DRM_SIMGPU_OBSERVATION_RECORD_REPORT_LOST and
 * %DRM_SIMGPU_OBSERVATION_RECORD_BUFFER_OVERFLOW
 */
struct drm_simgpu_observation_lost {
	/** @count: reports missing at this place of the series. */
	__u64 count;
};

/**
 * DRM_SIMGPU_OBSERVATION_STATUS_ENABLED - &drm_simgpu_observation_status.flags:
 * the stream is enabled
 */
#define DRM_SIMGPU_OBSERVATION_STATUS_ENABLED	(1 << 0)

/**
 * struct drm_simgpu_observation_status - argument of
 * %DRM_SIMGPU_OBSERVATION_IOCTL_STATUS
 *
 * The counts include reports missing after the last one read, which no
 * record has reported yet. Once the stream is disabled and read until
 * read() fails with -EIO, the counts of the records read since the open
 * add up to these, unless an enable dropped reports left unread.
 */
struct drm_simgpu_observation_status {
	/** @lost: reports the unit lost since the stream was opened (out). */
	__u64 lost;

	/**
	 * @overflow: reports dropped for a full buffer since the stream was
	 * opened (out).
	 */
	__u64 overflow;

	/** @flags: %DRM_SIMGPU_OBSERVATION_STATUS_ENABLED (out). */
	__u32 flags;

	/** @pad: 0 (out). */
	__u32 pad;
};

/**
 * struct drm_simgpu_observation_info - argument of
 * %DRM_SIMGPU_OBSERVATION_IOCTL_INFO
 */
struct drm_simgpu_observation_info {
	/** @record_size: bytes of a SAMPLE record, header included (out). */
	__u32 record_size;

	/** @buffer_size: bytes of the unit's buffer (out). */
	__u32 buffer_size;

	/** @period_ticks: reference clock ticks between reports (out). */
	__u64 period_ticks;

	/** @refclk_hz: the reference clock (out). */
	__u32 refclk_hz;

	/** @engine: engine_class | engine_instance << 16 (out). */
	__u32 engine;

	/** @exec_queue_id: the stream's exec queue, 0 if device-wide (out). */
	__u32 exec_queue_id;

	/** @num_counters: number of counters (out). */
	__u32 num_counters;

	/** @counters: their counter ids (out). */
	__u32 counters[4];
};

/**
 * DRM_SIMGPU_OBSERVATION_IOCTL_BASE - the ioctl code of the stream fd's
 * ioctls, 'J' 0x40-0x4f (Documentation/userspace-api/ioctl/ioctl-number.rst)
 */
#define DRM_SIMGPU_OBSERVATION_IOCTL_BASE	'J'

/**
 * DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE - start a stream; the counters start
 * at 0, reports left unread from before are dropped. No-op when enabled.
 * -EIO if the unit refused the buffer.
 */
#define DRM_SIMGPU_OBSERVATION_IOCTL_ENABLE \
	_IO(DRM_SIMGPU_OBSERVATION_IOCTL_BASE, 0x40)
/**
 * DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE - stop a stream; the reports due
 * until the call stay readable, followed by the gap records of those
 * missing after the last one written. No-op when disabled.
 */
#define DRM_SIMGPU_OBSERVATION_IOCTL_DISABLE \
	_IO(DRM_SIMGPU_OBSERVATION_IOCTL_BASE, 0x41)
/** DRM_SIMGPU_OBSERVATION_IOCTL_STATUS - &struct drm_simgpu_observation_status */
#define DRM_SIMGPU_OBSERVATION_IOCTL_STATUS \
	_IOR(DRM_SIMGPU_OBSERVATION_IOCTL_BASE, 0x42, struct drm_simgpu_observation_status)
/** DRM_SIMGPU_OBSERVATION_IOCTL_INFO - &struct drm_simgpu_observation_info */
#define DRM_SIMGPU_OBSERVATION_IOCTL_INFO \
	_IOR(DRM_SIMGPU_OBSERVATION_IOCTL_BASE, 0x43, struct drm_simgpu_observation_info)

#if defined(__cplusplus)
}
#endif

#endif /* _SIMGPU_DRM_H_ */
