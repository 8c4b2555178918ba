// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright (c) 2026 @COPYRIGHT@
 */

/**
 * DOC: simgpu PMU
 *
 * Each simgpu device has a perf PMU, ``simgpu_<N>`` for platform device
 * ``simgpu.<N>``, that counts how busy each engine is, for ``perf stat`` and
 * for monitors that take engine busyness from perf rather than from the
 * fdinfo of every client. Its events and config format are those of xe's
 * PMU, so that tools written for xe work unchanged:
 *
 * =====================  =====  ==========================================
 * event                  id     counts
 * =====================  =====  ==========================================
 * engine-active-ticks    0x02   reference clock ticks during which a
 *                               context was resident on the engine
 * engine-total-ticks     0x03   reference clock ticks elapsed
 * =====================  =====  ==========================================
 *
 * The config holds the event id in bits 0-11 (``event``), the engine
 * instance in bits 12-19 (``engine_instance``), the engine class in bits
 * 20-27 (``engine_class``: &enum drm_simgpu_engine_class, whose numbers are
 * xe's) and the GT in bits 60-63 (``gt``, always 0: simgpu has one). The
 * ratio of the two counts over an interval is the engine's busyness::
 *
 *	perf stat -a -I 1000 -e \
 *	'{simgpu_0/engine-active-ticks,engine_class=4,engine_instance=0/,'\
 *	'simgpu_0/engine-total-ticks,engine_class=4,engine_instance=0/}'
 *
 * Open the two as one group, as above or with PERF_FORMAT_GROUP, so that
 * they are sampled together: a group read latches each engine's
 * RING_TIMESTAMP and RING_BUSY_TICKS of one instant (RING_SAMPLE) once,
 * for all the group's events of that engine, so that the active ticks
 * between two reads never exceed the total.
 *
 * The counts are those of the clock and the residency behind drm-cycles and
 * drm-total-cycles in fdinfo: over any interval, the engine-active-ticks of
 * the engines of a class add up to the drm-cycles of all clients for that
 * class, to a tick per context switch.
 *
 * Events count for the whole device (the PMU's scope is system wide, its
 * ``cpumask`` names the CPU to open them on); there is no sampling.
 * perf_event_open() fails with:
 *
 * - ENOENT: an event id the PMU does not have, an engine the device does
 *   not have, or a GT other than 0;
 * - EINVAL: any other bit of the config, or config1 or config2, set; a
 *   sampling event; a per-task or per-cgroup event, or cpu < 0; an
 *   exclude_* attribute;
 * - EOPNOTSUPP: a branch stack;
 * - ENODEV: the driver is not bound to the device.
 *
 * Reading an event never sleeps, takes no sleeping lock and never waits
 * for the device: it latches and reads the engine's sample registers
 * (simgpu_engine_sample()), without a lock but when other CPUs' samples
 * keep overwriting them, then under the engine's raw sample lock.
 *
 * The PMU answers "how busy is each engine", for any process allowed to
 * open system-wide events (perf_event_paranoid); fdinfo answers "how busy
 * is each client".
 */

/**
 * DOC: simgpu PMU lifetime
 *
 * perf core's release of an event may still use per-CPU data of the PMU
 * after the event's destroy callback returned, so the PMU is not
 * unregistered while an event of it may exist. perf
 * holds a reference to the PMU's module for each event until the end of its
 * release: the PMU belongs to the platform device, registered at module
 * load and unregistered at module unload, when no event can be left.
 *
 * Binding the driver to the device attaches the &simgpu_device to the PMU,
 * unbinding detaches it. Each event holds a reference to the DRM device it
 * was created on, so what it reads (the device model) stays allocated
 * until it is destroyed, and it reads registers only inside drm_dev_enter():
 * after an unbind it keeps its last count. New events fail with ENODEV
 * while the driver is unbound, and count again once it is bound again;
 * rmmod fails with EBUSY while events are open.
 */

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <drm/drm_drv.h>

#include "simgpu_drv.h"
#include "simgpu_engine.h"
#include "simgpu_pmu.h"

#define SIMGPU_PMU_EVENT		GENMASK_ULL(11, 0)
#define SIMGPU_PMU_ENGINE_INSTANCE	GENMASK_ULL(19, 12)
#define SIMGPU_PMU_ENGINE_CLASS		GENMASK_ULL(27, 20)
#define SIMGPU_PMU_GT			GENMASK_ULL(63, 60)
#define SIMGPU_PMU_CONFIG_MASK		(SIMGPU_PMU_EVENT | \
					 SIMGPU_PMU_ENGINE_INSTANCE | \
					 SIMGPU_PMU_ENGINE_CLASS | \
					 SIMGPU_PMU_GT)

#define SIMGPU_PMU_ENGINE_ACTIVE_TICKS	0x02
#define SIMGPU_PMU_ENGINE_TOTAL_TICKS	0x03

static_assert(SIMGPU_MAX_ENGINES <= 64);

/**
 * struct simgpu_pmu_txn - the samples of one group read, or of one
 * rescheduling of the CPU's events
 * @flags: PERF_PMU_TXN_* of the transaction open on the CPU, 0 if none
 * @disabled: perf disabled the PMU on the CPU: it stops and starts events
 *	(of a group: one after the other) until it enables it again
 * @sdev: the device the samples are of
 * @have: bit e set if @ts[e] and @busy[e] were sampled in the transaction
 *	or since the PMU was disabled
 * @ts: RING_SAMPLE_TS by hardware engine id
 * @busy: RING_SAMPLE_BUSY by hardware engine id
 *
 * Per CPU, used by its CPU with interrupts disabled: perf calls the
 * transaction, enable, disable and read callbacks so.
 */
struct simgpu_pmu_txn {
	unsigned int flags;
	bool disabled;
	struct simgpu_device *sdev;
	u64 have;
	u64 ts[SIMGPU_MAX_ENGINES];
	u64 busy[SIMGPU_MAX_ENGINES];
};

/**
 * struct simgpu_pmu - the perf PMU of a simgpu platform device
 * @base: the perf PMU
 * @name: its name, "simgpu_<platform device id>"
 * @lock: protects @sdev
 * @sdev: the device while the driver is bound to it, else NULL; protected
 *	by @lock
 * @txn: per-CPU group read state
 */
struct simgpu_pmu {
	struct pmu base;
	char name[24];
	spinlock_t lock;		/* @sdev */
	struct simgpu_device *sdev;	/* protected by @lock */
	struct simgpu_pmu_txn __percpu *txn;
};

static struct simgpu_pmu *to_simgpu_pmu(struct pmu *pmu)
{
	return container_of(pmu, struct simgpu_pmu, base);
}

PMU_FORMAT_ATTR(event, "config:0-11");
PMU_FORMAT_ATTR(engine_instance, "config:12-19");
PMU_FORMAT_ATTR(engine_class, "config:20-27");
PMU_FORMAT_ATTR(gt, "config:60-63");

static struct attribute *simgpu_pmu_format_attrs[] = {
	&format_attr_event.attr,
	&format_attr_engine_instance.attr,
	&format_attr_engine_class.attr,
	&format_attr_gt.attr,
	NULL,
};

static const struct attribute_group simgpu_pmu_format_group = {
	.name = "format",
	.attrs = simgpu_pmu_format_attrs,
};

/* PMU_EVENT_ATTR_STRING() with a name that is a string, not a token */
#define SIMGPU_PMU_EVENT_ATTR(_var, _name, _str)			\
	static struct perf_pmu_events_attr _var = {			\
		.attr = {						\
			.attr = { .name = _name, .mode = 0444 },	\
			.show = perf_event_sysfs_show,			\
		},							\
		.event_str = _str,					\
	}

SIMGPU_PMU_EVENT_ATTR(simgpu_pmu_event_active, "engine-active-ticks",
		      "event=0x02");
SIMGPU_PMU_EVENT_ATTR(simgpu_pmu_event_total, "engine-total-ticks",
		      "event=0x03");

static struct attribute *simgpu_pmu_event_attrs[] = {
	&simgpu_pmu_event_active.attr.attr,
	&simgpu_pmu_event_total.attr.attr,
	NULL,
};

static const struct attribute_group simgpu_pmu_events_group = {
	.name = "events",
	.attrs = simgpu_pmu_event_attrs,
};

static const struct attribute_group *simgpu_pmu_attr_groups[] = {
	&simgpu_pmu_format_group,
	&simgpu_pmu_events_group,
	NULL,
};

/*
 * Latch an engine's RING_TIMESTAMP and RING_BUSY_TICKS of one instant. The
 * engine outlives the event: it is only freed when the DRM device is,
 * which the event holds.
 */
static void simgpu_pmu_latch(struct simgpu_device *sdev, unsigned int id,
			     u64 *ts, u64 *busy)
{
	struct simgpu_engine_sample s;

	simgpu_engine_sample(READ_ONCE(sdev->engine_by_hw_id[id]), &s);
	*ts = s.ts;
	*busy = s.busy;
}

/*
 * The event's count now. Inside a read transaction (a group read), each
 * engine is sampled once, so that the group's events of one engine see
 * the same instant; and so while the PMU is disabled, when perf stops the
 * events of a group one by one and starts them again (another event
 * opened on the CPU, say): each event then counts up to and again from
 * the same instant, and no event of a group gains ticks on another.
 * Called with interrupts disabled, inside drm_dev_enter().
 */
static u64 simgpu_pmu_sample(struct simgpu_pmu *pmu, struct perf_event *event)
{
	struct simgpu_device *sdev = event->pmu_private;
	struct simgpu_pmu_txn *txn = this_cpu_ptr(pmu->txn);
	bool total = event->hw.event_base == SIMGPU_PMU_ENGINE_TOTAL_TICKS;
	unsigned int id = event->hw.idx;
	u64 ts, busy;

	if (!(txn->flags & PERF_PMU_TXN_READ) && !txn->disabled) {
		simgpu_pmu_latch(sdev, id, &ts, &busy);
		return total ? ts : busy;
	}

	/* A group may hold events made before and after a rebind */
	if (txn->sdev != sdev) {
		txn->sdev = sdev;
		txn->have = 0;
	}
	if (!(txn->have & BIT_ULL(id))) {
		simgpu_pmu_latch(sdev, id, &txn->ts[id], &txn->busy[id]);
		txn->have |= BIT_ULL(id);
	}
	return total ? txn->ts[id] : txn->busy[id];
}

static void simgpu_pmu_event_update(struct perf_event *event)
{
	struct simgpu_device *sdev = event->pmu_private;
	u64 prev, now;
	int idx;

	/* Unbound: the count stays as it was */
	if (!drm_dev_enter(&sdev->drm, &idx))
		return;
	now = simgpu_pmu_sample(to_simgpu_pmu(event->pmu), event);
	drm_dev_exit(idx);

	prev = local64_xchg(&event->hw.prev_count, now);
	local64_add(now - prev, &event->count);
}

static void simgpu_pmu_event_start(struct perf_event *event, int flags)
{
	struct simgpu_device *sdev = event->pmu_private;
	int idx;

	if (drm_dev_enter(&sdev->drm, &idx)) {
		local64_set(&event->hw.prev_count,
			    simgpu_pmu_sample(to_simgpu_pmu(event->pmu), event));
		drm_dev_exit(idx);
	}
	event->hw.state = 0;
}

static void simgpu_pmu_event_stop(struct perf_event *event, int flags)
{
	if (flags & PERF_EF_UPDATE)
		simgpu_pmu_event_update(event);
	event->hw.state = PERF_HES_STOPPED;
}

static int simgpu_pmu_event_add(struct perf_event *event, int flags)
{
	if (flags & PERF_EF_START)
		simgpu_pmu_event_start(event, flags);
	else
		event->hw.state = PERF_HES_STOPPED;
	return 0;
}

static void simgpu_pmu_event_del(struct perf_event *event, int flags)
{
	simgpu_pmu_event_stop(event, PERF_EF_UPDATE);
}

static void simgpu_pmu_event_read(struct perf_event *event)
{
	simgpu_pmu_event_update(event);
}

static void simgpu_pmu_start_txn(struct pmu *base, unsigned int flags)
{
	struct simgpu_pmu_txn *txn = this_cpu_ptr(to_simgpu_pmu(base)->txn);

	txn->flags = flags;
	/* Inside a disabled section, keep its samples */
	if (!txn->disabled)
		txn->sdev = NULL;
}

static int simgpu_pmu_commit_txn(struct pmu *base)
{
	this_cpu_ptr(to_simgpu_pmu(base)->txn)->flags = 0;
	return 0;
}

static void simgpu_pmu_cancel_txn(struct pmu *base)
{
	this_cpu_ptr(to_simgpu_pmu(base)->txn)->flags = 0;
}

static void simgpu_pmu_disable(struct pmu *base)
{
	struct simgpu_pmu_txn *txn = this_cpu_ptr(to_simgpu_pmu(base)->txn);

	txn->disabled = true;
	txn->sdev = NULL;
}

static void simgpu_pmu_enable(struct pmu *base)
{
	this_cpu_ptr(to_simgpu_pmu(base)->txn)->disabled = false;
}

static void simgpu_pmu_event_destroy(struct perf_event *event)
{
	struct simgpu_device *sdev = event->pmu_private;

	drm_dev_put(&sdev->drm);
}

static int simgpu_pmu_event_init(struct perf_event *event)
{
	struct simgpu_pmu *pmu = to_simgpu_pmu(event->pmu);
	u64 config = event->attr.config;
	unsigned int id, class, instance;
	struct simgpu_device *sdev;
	struct simgpu_engine *eng;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;

	if (is_sampling_event(event) || event->cpu < 0 ||
	    event->attach_state & PERF_ATTACH_TASK)
		return -EINVAL;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	if (config & ~SIMGPU_PMU_CONFIG_MASK || event->attr.config1 ||
	    event->attr.config2)
		return -EINVAL;

	id = FIELD_GET(SIMGPU_PMU_EVENT, config);
	class = FIELD_GET(SIMGPU_PMU_ENGINE_CLASS, config);
	instance = FIELD_GET(SIMGPU_PMU_ENGINE_INSTANCE, config);
	if ((id != SIMGPU_PMU_ENGINE_ACTIVE_TICKS &&
	     id != SIMGPU_PMU_ENGINE_TOTAL_TICKS) ||
	    class >= DRM_SIMGPU_ENGINE_CLASS_COUNT ||
	    instance >= SIMGPU_MAX_INSTANCES ||
	    FIELD_GET(SIMGPU_PMU_GT, config))
		return -ENOENT;

	spin_lock(&pmu->lock);
	sdev = pmu->sdev;
	if (sdev)
		drm_dev_get(&sdev->drm);
	spin_unlock(&pmu->lock);
	if (!sdev)
		return -ENODEV;

	/* The engine set is fixed while the device lives */
	eng = simgpu_engine_get(sdev, class, instance);
	if (!eng) {
		drm_dev_put(&sdev->drm);
		return -ENOENT;
	}

	event->pmu_private = sdev;
	event->hw.event_base = id;
	event->hw.config_base = eng->base;
	event->hw.idx = eng->hw_id;
	event->destroy = simgpu_pmu_event_destroy;

	return 0;
}

/**
 * simgpu_pmu_register - register the PMU of a simgpu platform device
 * @parent: the platform device, the parent of the PMU's sysfs device
 * @id: the platform device's id, which names the PMU
 *
 * The PMU counts nothing until simgpu_pmu_bind() gives it a device, and
 * must only be unregistered when the module is unloaded: see "simgpu PMU
 * lifetime".
 *
 * Returns: the PMU, or an ERR_PTR().
 */
struct simgpu_pmu *simgpu_pmu_register(struct device *parent, int id)
{
	struct simgpu_pmu *pmu;
	int ret;

	pmu = kzalloc_obj(*pmu);
	if (!pmu)
		return ERR_PTR(-ENOMEM);
	pmu->txn = alloc_percpu(struct simgpu_pmu_txn);
	if (!pmu->txn) {
		ret = -ENOMEM;
		goto err_free;
	}
	snprintf(pmu->name, sizeof(pmu->name), DRIVER_NAME "_%d", id);
	spin_lock_init(&pmu->lock);

	pmu->base = (struct pmu) {
		.module = THIS_MODULE,
		.parent = parent,
		.attr_groups = simgpu_pmu_attr_groups,
		.task_ctx_nr = perf_invalid_context,
		.scope = PERF_PMU_SCOPE_SYS_WIDE,
		.capabilities = PERF_PMU_CAP_NO_INTERRUPT |
				PERF_PMU_CAP_NO_EXCLUDE,
		.pmu_enable = simgpu_pmu_enable,
		.pmu_disable = simgpu_pmu_disable,
		.event_init = simgpu_pmu_event_init,
		.add = simgpu_pmu_event_add,
		.del = simgpu_pmu_event_del,
		.start = simgpu_pmu_event_start,
		.stop = simgpu_pmu_event_stop,
		.read = simgpu_pmu_event_read,
		.start_txn = simgpu_pmu_start_txn,
		.commit_txn = simgpu_pmu_commit_txn,
		.cancel_txn = simgpu_pmu_cancel_txn,
	};

	ret = perf_pmu_register(&pmu->base, pmu->name, -1);
	if (ret)
		goto err_percpu;

	return pmu;

err_percpu:
	free_percpu(pmu->txn);
err_free:
	kfree(pmu);
	return ERR_PTR(ret);
}

/**
 * simgpu_pmu_unregister - unregister and free a PMU
 * @pmu: the PMU, or NULL
 *
 * Only at module unload, when no event of the PMU can exist any more.
 */
void simgpu_pmu_unregister(struct simgpu_pmu *pmu)
{
	if (!pmu)
		return;
	perf_pmu_unregister(&pmu->base);
	free_percpu(pmu->txn);
	kfree(pmu);
}

/**
 * simgpu_pmu_bind - let the PMU count on a device
 * @pmu: the PMU of the device's platform device, or NULL
 * @sdev: the device the driver was bound to
 */
void simgpu_pmu_bind(struct simgpu_pmu *pmu, struct simgpu_device *sdev)
{
	if (!pmu)
		return;
	spin_lock(&pmu->lock);
	pmu->sdev = sdev;
	spin_unlock(&pmu->lock);
}

/**
 * simgpu_pmu_unbind - stop making events for the device
 * @pmu: the PMU, or NULL
 *
 * Called before the device is unplugged. Events made until then keep
 * reading it until drm_dev_unplug(), then keep their last count.
 */
void simgpu_pmu_unbind(struct simgpu_pmu *pmu)
{
	if (!pmu)
		return;
	spin_lock(&pmu->lock);
	pmu->sdev = NULL;
	spin_unlock(&pmu->lock);
}
