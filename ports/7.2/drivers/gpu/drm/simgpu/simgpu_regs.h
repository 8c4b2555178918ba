/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_REGS_H_
#define _SIMGPU_REGS_H_

#include <linux/bits.h>

/*
 * Register map of the simulated GPU. All registers are 32 bits wide and
 * addressed by byte offset into the MMIO block. Reads of unknown offsets
 * return 0, writes to them are ignored.
 */

/* Global registers */
#define SIMGPU_REG_ID			0x0000	/* RO: SIMGPU_ID_MAGIC */
#define   SIMGPU_ID_MAGIC		0x53474d31	/* "SGM1" */
#define SIMGPU_REG_REFCLK_HZ		0x0004	/* RO: reference clock in Hz */
#define SIMGPU_REG_ENGINE_FUSE(class)	(0x0010 + 4 * (class))
						/* RO: bit i = instance i present */
#define SIMGPU_REG_VRAM_SIZE_LO		0x0030	/* RO: local memory size */
#define SIMGPU_REG_VRAM_SIZE_HI		0x0034
#define SIMGPU_REG_IRQ_STATUS		0x0040	/* RO: bit e = engine e pending */
#define SIMGPU_REG_IRQ_ENABLE		0x0044	/* RW: master interrupt enable */
#define SIMGPU_REG_IRQ_STATUS_HI	0x0048	/* RO: bit e - 32 = engine e pending */
#define   SIMGPU_IRQ_STATUS_HI_OBS	BIT(31)	/* observation unit pending */

/*
 * Observation unit: one per device, observing one engine at a time. See
 * "simgpu observation unit" in simgpu_hw.c for what it does. CTRL, PERFCFG,
 * CTX, BUF_* and THRESHOLD are latched when ENABLE goes from 0 to 1; writes
 * to them while the unit is enabled are ignored, except a CTRL write that
 * clears ENABLE. Enabling clears HEAD, TAIL, STATUS and the counts.
 */
#define SIMGPU_REG_OBS_CTRL		0x0100	/* RW */
#define   SIMGPU_OBS_CTRL_ENABLE	BIT(0)
#define   SIMGPU_OBS_CTRL_FILTER	BIT(1)	/* count the OBS_CTX context only */
#define   SIMGPU_OBS_CTRL_EXP_SHIFT	8	/* period: 2^(e+1) reference ticks */
#define   SIMGPU_OBS_CTRL_EXP_MASK	(0x1fu << SIMGPU_OBS_CTRL_EXP_SHIFT)
#define   SIMGPU_OBS_CTRL_ENGINE_SHIFT	16	/* SIMGPU_HW_ENGINE_ID() observed */
#define   SIMGPU_OBS_CTRL_ENGINE_MASK	(0xffu << SIMGPU_OBS_CTRL_ENGINE_SHIFT)
#define SIMGPU_REG_OBS_PERFCFG		0x0104	/* RW: slot configuration, 15:0 */
#define SIMGPU_REG_OBS_CTX		0x0108	/* RW: CTX_IMG_ID of FILTER */
#define SIMGPU_REG_OBS_BUF_LO		0x010c	/* RW: buffer address, 4 KiB aligned */
#define SIMGPU_REG_OBS_BUF_HI		0x0110
#define SIMGPU_REG_OBS_BUF_SIZE		0x0114	/* RW: power of two, 4 KiB-16 MiB */
#define SIMGPU_REG_OBS_HEAD		0x0118	/* RO: offset of the next report */
#define SIMGPU_REG_OBS_TAIL		0x011c	/* RW: offset of the oldest unread */
#define SIMGPU_REG_OBS_THRESHOLD	0x0120	/* RW: unread bytes that interrupt, 0 off */
#define SIMGPU_REG_OBS_STATUS		0x0124	/* RW1C */
#define   SIMGPU_OBS_STATUS_THRESHOLD	BIT(0)	/* the unread amount reached THRESHOLD */
#define   SIMGPU_OBS_STATUS_OVERFLOW	BIT(1)	/* a report found the buffer full */
#define   SIMGPU_OBS_STATUS_LOST	BIT(2)	/* reports were not written in time */
#define   SIMGPU_OBS_STATUS_ERROR	BIT(3)	/* enable refused: bad engine or buffer */
/*
 * The 64-bit counts of reports dropped for a full buffer and of reports not
 * written in time, since the enable; their halves are not latched: read
 * HI, LO, HI and again if HI changed, as RING_TIMESTAMP.
 */
#define SIMGPU_REG_OBS_OVERFLOW_COUNT_LO 0x0128	/* RO */
#define SIMGPU_REG_OBS_LOST_COUNT_LO	0x012c	/* RO */
#define SIMGPU_REG_OBS_OVERFLOW_COUNT_HI 0x0130	/* RO */
#define SIMGPU_REG_OBS_LOST_COUNT_HI	0x0134	/* RO */
#define SIMGPU_OBS_BUF_MIN		0x1000
#define SIMGPU_OBS_BUF_MAX		0x1000000
/* The most reports the unit writes in one evaluation, see simgpu_hw.c */
#define SIMGPU_OBS_MAX_BURST		4096

/*
 * Report of the observation unit, little endian, SIMGPU_OBS_REPORT_SIZE
 * bytes at HEAD. The slots are the unit's own (OBS_PERFCFG), all captured
 * at the report's timestamp.
 */
#define SIMGPU_OBS_REPORT_REASON	0x00	/* u32: SIMGPU_OBS_REASON_* */
#define   SIMGPU_OBS_REASON_PERIODIC	1
#define   SIMGPU_OBS_REASON_CTX_IN	2	/* a context switched in */
#define   SIMGPU_OBS_REASON_CTX_OUT	3	/* a context is switching out */
#define SIMGPU_OBS_REPORT_CTX		0x04	/* u32: CTX_IMG_ID resident, 0 none */
#define SIMGPU_OBS_REPORT_TIMESTAMP	0x08	/* u64: RING_TIMESTAMP */
#define SIMGPU_OBS_REPORT_SLOT(i)	(0x10 + 8 * (i))	/* u64: slot value */
#define SIMGPU_OBS_REPORT_ENGINE	0x30	/* u32: class << 16 | instance */
#define SIMGPU_OBS_REPORT_OVERFLOWED	0x34	/* u32: dropped (full) just before */
#define SIMGPU_OBS_REPORT_LOST		0x38	/* u32: lost (late) just before */
#define SIMGPU_OBS_REPORT_SIZE		0x40	/* 0x3c-0x3f: written 0 */

#define SIMGPU_MAX_CLASSES		5
#define SIMGPU_MAX_INSTANCES		8
#define SIMGPU_MAX_ENGINES		(SIMGPU_MAX_CLASSES * SIMGPU_MAX_INSTANCES)

/* Hardware engine id of an engine, the index of its register block */
#define SIMGPU_HW_ENGINE_ID(class, inst) ((class) * SIMGPU_MAX_INSTANCES + (inst))

/* Per-engine register blocks */
#define SIMGPU_ENGINE_BASE(id)		(0x1000 + 0x100 * (id))
#define SIMGPU_MMIO_SIZE		SIMGPU_ENGINE_BASE(SIMGPU_MAX_ENGINES)

/*
 * RING_TIMESTAMP: free-running 64-bit counter at the reference clock, read
 * as two halves. The halves are not latched: the upper half can change
 * between the two reads, software must read HI, LO, HI and retry if HI
 * changed.
 */
#define RING_TIMESTAMP_LO		0x00	/* RO */
#define RING_TIMESTAMP_HI		0x04	/* RO */
/*
 * RING_CTX_TIMESTAMP: 32-bit, wrapping. Counts reference clock ticks while a
 * context is resident on the engine. Loaded from the context image on
 * switch-in, stored back on switch-out.
 */
#define RING_CTX_TIMESTAMP		0x08	/* RO */
#define RING_CURRENT_CTX		0x0c	/* RO: CTX_IMG_ID resident, 0 = none */
/* Submission port: write the descriptor, then SUBMIT to latch it */
#define RING_SUBMIT_CTX_LO		0x10	/* context image address */
#define RING_SUBMIT_CTX_HI		0x14
#define RING_SUBMIT_BATCH_LO		0x18	/* batch buffer address */
#define RING_SUBMIT_BATCH_HI		0x1c
#define RING_SUBMIT_SEQNO		0x20	/* written to CTX_IMG_SEQNO on completion */
#define RING_SUBMIT			0x24	/* WO: write 1 to queue the descriptor */
#define RING_SUBMIT_FREE		0x28	/* RO: free slots in the submit FIFO */
#define RING_RESET			0x2c	/* WO: write 1 to reset the engine */
#define RING_STATUS			0x30	/* RO */
#define   RING_STATUS_BUSY		BIT(0)	/* a context is resident */
#define   RING_STATUS_HUNG		BIT(1)	/* executing a HANG command */
#define   RING_STATUS_ERROR		BIT(2)	/* halted on a bad command or address */
#define   RING_STATUS_IDLE_WAIT		BIT(3)	/* in an IDLE, context switched out */
#define RING_IRQ_REASON			0x34	/* RW1C */
#define   RING_IRQ_COMPLETE		BIT(0)	/* a batch completed */
#define   RING_IRQ_CTX_SWITCH		BIT(1)	/* a context was switched out */
#define   RING_IRQ_RESET_DONE		BIT(2)	/* a reset completed */
#define   RING_IRQ_ERROR		BIT(3)	/* engine halted, or submit dropped */
/*
 * RING_BUSY_TICKS: free-running 64-bit count of the reference clock ticks
 * during which a context was resident on the engine: the sum of what the
 * CTX_TIMESTAMPs of all contexts advanced by on this engine. Zero at
 * power-on, never reset (not by RING_RESET either). Read as two unlatched
 * halves with the HI, LO, HI protocol of RING_TIMESTAMP.
 */
#define RING_BUSY_TICKS_LO		0x38	/* RO */
#define RING_BUSY_TICKS_HI		0x3c	/* RO */
/*
 * RING_SAMPLE: writing 1 latches RING_TIMESTAMP, RING_BUSY_TICKS,
 * RING_CTX_TIMESTAMP and RING_CURRENT_CTX of one instant into
 * RING_SAMPLE_TS, RING_SAMPLE_BUSY, RING_SAMPLE_CTX_TS and RING_SAMPLE_CTX,
 * which keep them until the next write: a consistent set, the 64-bit ones
 * read without the HI, LO, HI protocol. The instant is the current one, as
 * for any register access, and the sample is ordered with every other
 * access to the engine: the state it latches is the state at its instant.
 * But a sample leaves the engine's interrupts to the engine: it does not
 * raise them on the sampling CPU. Reading the latches does not run the
 * engine.
 *
 * An engine has one set of latches, which a sample from another CPU may
 * overwrite while they are read. RING_SAMPLE_SEQ tells: it is even while
 * the latches hold a whole sample, odd while a sample writes them, and
 * changes whenever they do. Latches read between two equal, even reads of
 * it are of one sample; otherwise read them again. The latched instant
 * only moves forward: a sample finds there its own instant or a later one.
 */
#define RING_SAMPLE			0x40	/* WO */
#define RING_SAMPLE_TS_LO		0x44	/* RO */
#define RING_SAMPLE_TS_HI		0x48	/* RO */
#define RING_SAMPLE_BUSY_LO		0x4c	/* RO */
#define RING_SAMPLE_BUSY_HI		0x50	/* RO */
/*
 * RING_SUBMIT_PERFCFG: part of the submission descriptor, latched by
 * RING_SUBMIT with the other RING_SUBMIT_* registers. With
 * SIMGPU_PERFCFG_LOAD set, the engine loads the slot configuration in bits
 * 15:0 into the context and zeroes its counter slots when the batch starts;
 * without it, the context keeps the configuration and slot values of its
 * image. Bits 30:16 are ignored and read 0. Reset value 0: keep.
 */
#define RING_SUBMIT_PERFCFG		0x54	/* RW */
#define   SIMGPU_PERFCFG_LOAD		BIT(31)
#define RING_SAMPLE_CTX_TS		0x58	/* RO: latched RING_CTX_TIMESTAMP */
#define RING_SAMPLE_CTX			0x5c	/* RO: latched RING_CURRENT_CTX */
#define RING_SAMPLE_SEQ			0x60	/* RO: the latches' sequence */
#define RING_SUBMIT_FIFO_DEPTH		64

/*
 * Performance counters. Each engine has SIMGPU_PERF_NUM_SLOTS counter slots,
 * each of which counts one of SIMGPU_PERF_NUM_SIGNALS signals of the work of
 * the resident context. A slot configuration is four nibbles, slot i in bits
 * 4i+3:4i: 0 turns the slot off, s + 1 counts signal s. Two slots counting
 * the same signal, or a nibble above SIMGPU_PERF_NUM_SIGNALS, is a bad
 * configuration: the engine halts with RING_STATUS_ERROR when it loads it.
 *
 * The configuration and the 64-bit slot values are context state: stored
 * into the context image on switch-out and loaded from it on switch-in, so
 * a context counts its own work only. A configuration loaded from an image
 * is not checked (bits 31:16 are ignored, a nibble above
 * SIMGPU_PERF_NUM_SIGNALS counts nothing); an off slot reads and is stored
 * as 0.
 */
#define SIMGPU_PERF_NUM_SLOTS		4
#define SIMGPU_PERF_NUM_SIGNALS		8
#define SIMGPU_PERFCFG_SLOT_SHIFT(i)	(4 * (i))
#define SIMGPU_PERFCFG_SLOT_MASK(i)	(0xfu << SIMGPU_PERFCFG_SLOT_SHIFT(i))
#define SIMGPU_PERFCFG_SLOT(i, sig)	(((sig) + 1u) << SIMGPU_PERFCFG_SLOT_SHIFT(i))

/* Signals, counted while the context is resident */
#define SIMGPU_SIG_BUSY_TICKS		0	/* reference clock ticks resident */
#define SIMGPU_SIG_COMMANDS		1	/* commands executed, END excluded */
#define SIMGPU_SIG_BATCHES		2	/* batches started */
#define SIMGPU_SIG_BYTES_WRITTEN	3	/* WRITE32: 4, COPY: its length */
#define SIMGPU_SIG_BYTES_READ		4	/* COPY: its length */
#define SIMGPU_SIG_CTX_SWITCHES		5	/* switch-ins of the context */
#define SIMGPU_SIG_COPIES		6	/* COPY commands */
#define SIMGPU_SIG_SAMPLES		7	/* SAMPLE commands */

/*
 * Context image: CTX_IMG_SIZE bytes of memory owned by the driver, little
 * endian 32-bit fields. The driver initialises it (ID, TIMESTAMP = 0) before
 * the first submission and must not write it while the context is in use.
 */
#define CTX_IMG_ID			0x00	/* driver: non-zero context id */
#define CTX_IMG_TIMESTAMP		0x04	/* hw: CTX_TIMESTAMP at last switch-out */
#define CTX_IMG_STATUS			0x08	/* hw */
#define   CTX_IMG_STATUS_RESIDENT	BIT(0)	/* TIMESTAMP is stale, read the engine */
#define   CTX_IMG_STATUS_ENGINE_SHIFT	8	/* hw engine id while resident */
#define   CTX_IMG_STATUS_ENGINE_MASK	(0xff << CTX_IMG_STATUS_ENGINE_SHIFT)
#define CTX_IMG_SWITCH_COUNT		0x0c	/* hw: +1 on every switch-in and -out */
#define CTX_IMG_SEQNO			0x10	/* hw: seqno of last completed batch */
#define CTX_IMG_PERF_CFG		0x14	/* hw: slot configuration, bits 15:0 */
#define CTX_IMG_PERF_SLOT_LO(i)		(0x18 + 8 * (i))	/* hw: slot value */
#define CTX_IMG_PERF_SLOT_HI(i)		(0x1c + 8 * (i))
#define CTX_IMG_SAMPLE_SEQ		0x38	/* hw: SAMPLEs counted so far */
#define CTX_IMG_SIZE			0x40

/*
 * Batch buffer: a stream of 32-bit words in memory. Each command is one
 * opcode word followed by its operands.
 */
#define SIMGPU_CMD_END			0x00	/* end of batch */
#define SIMGPU_CMD_BUSY			0x01	/* +2 words: ns lo, hi */
#define SIMGPU_CMD_HANG			0x02	/* never completes */
#define SIMGPU_CMD_WRITE32		0x03	/* +3 words: addr lo, hi, value */
#define SIMGPU_CMD_IDLE			0x04	/* +2 words: ns lo, hi */
/*
 * COPY: +5 words: src lo, hi, dst lo, hi, bytes. Copies bytes (a multiple of
 * 4, 4 to 4096) from src to dst; neither range may cross a 4 KiB boundary,
 * nor may they overlap. Takes one nanosecond per byte, during which the
 * context is resident.
 */
#define SIMGPU_CMD_COPY			0x05
#define   SIMGPU_COPY_MAX_BYTES		4096
/*
 * SAMPLE: +3 words: addr lo, hi, tag. Increments the context's
 * CTX_IMG_SAMPLE_SEQ, then writes a SIMGPU_REPORT_SIZE report at addr, which
 * must be SIMGPU_REPORT_SIZE aligned. SIMGPU_SAMPLE_NO_SEQ in the opcode word
 * leaves the sequence number alone (and writes 0 as the report's).
 */
#define SIMGPU_CMD_SAMPLE		0x06
#define   SIMGPU_SAMPLE_NO_SEQ		BIT(8)
#define SIMGPU_BATCH_MAX_WORDS		8192

/*
 * Report of a SAMPLE command, little endian. The slots are the resident
 * context's at the instant the engine reaches the SAMPLE, which the report
 * does not count itself in.
 */
#define SIMGPU_REPORT_SEQ		0x00	/* u32: CTX_IMG_SAMPLE_SEQ, wraps */
#define SIMGPU_REPORT_TAG		0x04	/* u32: the command's tag */
#define SIMGPU_REPORT_TIMESTAMP		0x08	/* u64: RING_TIMESTAMP */
#define SIMGPU_REPORT_CTX_TIMESTAMP	0x10	/* u32: RING_CTX_TIMESTAMP */
#define SIMGPU_REPORT_ENGINE		0x14	/* u32: class << 16 | instance */
#define SIMGPU_REPORT_SLOT(i)		(0x18 + 8 * (i))	/* u64: slot value */
#define SIMGPU_REPORT_SIZE		0x40	/* 0x38-0x3f: written 0 */

/*
 * Addresses in descriptors and commands are CPU physical addresses of RAM,
 * 4-byte aligned. A descriptor with a bad context image address, or sent
 * while the submit FIFO is full, is dropped with RING_IRQ_ERROR. A batch at
 * a bad address, an unknown opcode (an opcode word with flags its command
 * does not have is one), a WRITE32 to a bad address, a COPY with bad
 * operands (length, alignment, a range crossing 4 KiB, overlapping ranges, a
 * bad address), a SAMPLE to a bad or not SIMGPU_REPORT_SIZE aligned address,
 * a descriptor with SIMGPU_PERFCFG_LOAD and a bad slot configuration, or a
 * batch running past SIMGPU_BATCH_MAX_WORDS halt the engine like HANG, with
 * RING_STATUS_ERROR and RING_IRQ_ERROR: the context stays resident, the
 * seqno is not written, RING_RESET recovers. The failing command has no
 * effect: it writes no memory and counts no signal.
 */

#endif /* _SIMGPU_REGS_H_ */
