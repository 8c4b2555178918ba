/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

#if !defined(_SIMGPU_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _SIMGPU_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

#include "simgpu_ctx.h"
#include "simgpu_engine.h"
#include "simgpu_job.h"
#include "simgpu_perfmon.h"
#include "simgpu_queue.h"

#undef TRACE_SYSTEM
#define TRACE_SYSTEM simgpu
#define TRACE_INCLUDE_FILE simgpu_trace

/*
 * A job is named by its hardware context and seqno ("ctx=3 seqno=7"): the
 * same pair in the submit, run and complete events of one job.
 */

TRACE_DEFINE_ENUM(SIMGPU_RESET_TIMEOUT);
TRACE_DEFINE_ENUM(SIMGPU_RESET_ERROR);

TRACE_DEFINE_ENUM(DRM_SIMGPU_ENGINE_CLASS_RENDER);
TRACE_DEFINE_ENUM(DRM_SIMGPU_ENGINE_CLASS_COPY);
TRACE_DEFINE_ENUM(DRM_SIMGPU_ENGINE_CLASS_VIDEO);
TRACE_DEFINE_ENUM(DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE);
TRACE_DEFINE_ENUM(DRM_SIMGPU_ENGINE_CLASS_COMPUTE);

#define simgpu_trace_class_name(class)					\
	__print_symbolic(class,						\
			 { DRM_SIMGPU_ENGINE_CLASS_RENDER, "rcs" },	\
			 { DRM_SIMGPU_ENGINE_CLASS_COPY, "bcs" },	\
			 { DRM_SIMGPU_ENGINE_CLASS_VIDEO, "vcs" },	\
			 { DRM_SIMGPU_ENGINE_CLASS_VIDEO_ENHANCE, "vecs" }, \
			 { DRM_SIMGPU_ENGINE_CLASS_COMPUTE, "ccs" })

TRACE_EVENT(simgpu_job_submit,
	    TP_PROTO(const struct simgpu_job *job, u64 client_id),
	    TP_ARGS(job, client_id),

	    TP_STRUCT__entry(__string(engine, job->queue->engine->name)
			     __field(u64, client)
			     __field(u32, ctx)
			     __field(u32, seqno)),

	    TP_fast_assign(__assign_str(engine);
			   __entry->client = client_id;
			   __entry->ctx = job->queue->ctx->id;
			   __entry->seqno = job->seqno;),

	    TP_printk("engine=%s client=%llu ctx=%u seqno=%u",
		      __get_str(engine), __entry->client, __entry->ctx,
		      __entry->seqno)
);

TRACE_EVENT(simgpu_job_run,
	    TP_PROTO(const struct simgpu_job *job),
	    TP_ARGS(job),

	    TP_STRUCT__entry(__string(engine, job->queue->engine->name)
			     __field(u32, ctx)
			     __field(u32, seqno)),

	    TP_fast_assign(__assign_str(engine);
			   __entry->ctx = job->queue->ctx->id;
			   __entry->seqno = job->seqno;),

	    TP_printk("engine=%s ctx=%u seqno=%u", __get_str(engine),
		      __entry->ctx, __entry->seqno)
);

TRACE_EVENT(simgpu_job_complete,
	    TP_PROTO(const struct simgpu_job *job, int error),
	    TP_ARGS(job, error),

	    TP_STRUCT__entry(__string(engine, job->queue->engine->name)
			     __field(u32, ctx)
			     __field(u32, seqno)
			     __field(int, error)),

	    TP_fast_assign(__assign_str(engine);
			   __entry->ctx = job->queue->ctx->id;
			   __entry->seqno = job->seqno;
			   __entry->error = error;),

	    TP_printk("engine=%s ctx=%u seqno=%u error=%d", __get_str(engine),
		      __entry->ctx, __entry->seqno, __entry->error)
);

TRACE_EVENT(simgpu_ctx_switch,
	    TP_PROTO(const struct simgpu_engine *eng, u32 out, u32 in),
	    TP_ARGS(eng, out, in),

	    TP_STRUCT__entry(__string(engine, eng->name)
			     __field(u32, out)
			     __field(u32, in)),

	    TP_fast_assign(__assign_str(engine);
			   __entry->out = out;
			   __entry->in = in;),

	    TP_printk("engine=%s out=%u in=%u", __get_str(engine),
		      __entry->out, __entry->in)
);

TRACE_EVENT(simgpu_reset,
	    TP_PROTO(const struct simgpu_engine *eng,
		     enum simgpu_reset_cause cause, u32 ctx, u32 seqno),
	    TP_ARGS(eng, cause, ctx, seqno),

	    TP_STRUCT__entry(__string(engine, eng->name)
			     __field(unsigned int, cause)
			     __field(u32, ctx)
			     __field(u32, seqno)),

	    TP_fast_assign(__assign_str(engine);
			   __entry->cause = cause;
			   __entry->ctx = ctx;
			   __entry->seqno = seqno;),

	    TP_printk("engine=%s cause=%s ctx=%u seqno=%u", __get_str(engine),
		      __print_symbolic(__entry->cause,
				       { SIMGPU_RESET_TIMEOUT, "timeout" },
				       { SIMGPU_RESET_ERROR, "error" }),
		      __entry->ctx, __entry->seqno)
);

TRACE_EVENT(simgpu_ctx_fold,
	    TP_PROTO(const struct simgpu_ctx *ctx, u64 cycles, u64 total),
	    TP_ARGS(ctx, cycles, total),

	    TP_STRUCT__entry(__field(u32, ctx)
			     __field(u8, class)
			     __field(u64, cycles)
			     __field(u64, total)),

	    TP_fast_assign(__entry->ctx = ctx->id;
			   __entry->class = ctx->engine_class;
			   __entry->cycles = cycles;
			   __entry->total = total;),

	    TP_printk("ctx=%u class=%s cycles=%llu total=%llu", __entry->ctx,
		      simgpu_trace_class_name(__entry->class), __entry->cycles,
		      __entry->total)
);

/*
 * A job's counts added to its perfmon: the perfmon's id in its file (ids
 * of different files collide) and the job's number in the perfmon.
 */
TRACE_EVENT(simgpu_perfmon_add,
	    TP_PROTO(const struct simgpu_perfmon *pm,
		     const struct simgpu_perfmon_entry *e),
	    TP_ARGS(pm, e),

	    TP_STRUCT__entry(__field(u32, id)
			     __field(u64, seqno)
			     __array(u64, counts, SIMGPU_PERF_NUM_SLOTS)),

	    TP_fast_assign(__entry->id = pm->id;
			   __entry->seqno = e->seqno;
			   memcpy(__entry->counts, e->counts,
				  sizeof(__entry->counts));),

	    TP_printk("perfmon=%u seqno=%llu counts=%llu,%llu,%llu,%llu",
		      __entry->id, __entry->seqno, __entry->counts[0],
		      __entry->counts[1], __entry->counts[2],
		      __entry->counts[3])
);

#endif /* _SIMGPU_TRACE_H_ */

/* This part must be outside protection */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#include <trace/define_trace.h>
