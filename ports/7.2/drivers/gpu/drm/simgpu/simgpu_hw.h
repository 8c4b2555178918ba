/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */
#ifndef _SIMGPU_HW_H_
#define _SIMGPU_HW_H_

#include <linux/types.h>

#include "simgpu_regs.h"

/*
 * The device model: the simulated silicon. This header is its whole
 * interface. The driver reaches the device only through simgpu_hw_read32()/
 * simgpu_hw_write32() (its MMIO block), through memory the device reads and
 * writes by physical address (context images, batches, buffers), and through
 * the interrupt handler it registers.
 *
 * Memory: the device is a cache coherent DMA master without IOMMU. The
 * addresses it is given are CPU physical addresses of lowmem RAM, e.g.
 * virt_to_phys() of kmalloc() memory or page_to_phys() of a page; the model
 * accesses them through phys_to_virt() (simgpu platforms have no highmem).
 * A batch must be physically contiguous. vmalloc() addresses do not work.
 * The memory must stay allocated while the device may access it, that is
 * until the work using it completed or the engine was reset, or until
 * simgpu_hw_destroy().
 *
 * simgpu_hw_read32() and simgpu_hw_write32() do not sleep and can be called
 * from any context, including under spinlocks, under raw spinlocks (also
 * on PREEMPT_RT: the model's locks are raw) and from the interrupt handler.
 * simgpu_hw_create() returns an ERR_PTR() on failure.
 */

struct simgpu_hw;

/**
 * struct simgpu_hw_config - how the device is fused and clocked
 * @refclk_hz: reference clock frequency
 * @instances: number of engine instances of each class
 * @vram_size: size of the local memory in bytes
 * @ts_offset: value of RING_TIMESTAMP at creation, to test carries
 * @now_ns: clock source override for tests, NULL for ktime_get_raw_ns().
 *	Called with interrupts disabled under a raw spinlock of the model:
 *	must not sleep, must take no spinlock_t and must not go backwards.
 * @clock_data: argument to @now_ns
 */
struct simgpu_hw_config {
	u32 refclk_hz;
	u8 instances[SIMGPU_MAX_CLASSES];
	u64 vram_size;
	u64 ts_offset;
	u64 (*now_ns)(void *clock_data);
	void *clock_data;
};

/**
 * typedef simgpu_irq_handler_t - the device's interrupt line
 * @data: cookie given to simgpu_hw_create()
 *
 * Called from hard interrupt context (an hrtimer callback of the model),
 * never from inside simgpu_hw_read32()/simgpu_hw_write32(), and with no
 * lock of the model held. The handler reads SIMGPU_REG_IRQ_STATUS and
 * acknowledges each pending engine's RING_IRQ_REASON by writing the bits
 * back; the line stays asserted (is called again) while any is pending.
 */
typedef void (*simgpu_irq_handler_t)(void *data);

struct simgpu_hw *simgpu_hw_create(const struct simgpu_hw_config *cfg,
				   simgpu_irq_handler_t irq, void *irq_data);
void simgpu_hw_destroy(struct simgpu_hw *hw);
u32 simgpu_hw_read32(struct simgpu_hw *hw, u32 offset);
void simgpu_hw_write32(struct simgpu_hw *hw, u32 offset, u32 val);

#endif /* _SIMGPU_HW_H_ */
