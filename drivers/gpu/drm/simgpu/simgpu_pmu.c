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
 * - EOPNOTSUPP: a branch stack.
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
 * The PMU lives while the driver is bound to the device: it is registered
 * at probe and unregistered at unbind (a devres action of the platform
 * device), as xe's is. Unregistering it revokes the events still open:
 * perf updates their counts a last time, drops their module references
 * and calls the PMU no more. A revoked event's read() returns its count at
 * the unbind (perf breaks groups up: each event reads alone, its count of
 * the instant it was revoked, so that active ticks may pass total ones by
 * the few between two revocations), its ioctl()s fail with ENODEV and
 * poll() reports POLLERR.
 *
 * While the driver is unbound there is no ``simgpu_<N>`` PMU, so new
 * events of its former type fail with ENOENT. Binding the driver again
 * registers a new PMU of the same name, whose type may differ: read it
 * from sysfs again. perf holds a module reference per event, so rmmod fails
 * with EWOULDBLOCK (rmmod says "in use") while events of a bound device are
 * open; unbinding the device first revokes them.
 */

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/platform_device.h>

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
	u64 have;
	u64 ts[SIMGPU_MAX_ENGINES];
	u64 busy[SIMGPU_MAX_ENGINES];
};

/**
 * struct simgpu_pmu - the perf PMU of a simgpu device
 * @base: the perf PMU
 * @sdev: the device, which the driver is bound to while the PMU is
 *	registered
 * @name: the PMU's name, "simgpu_<platform device id>"
 * @txn: per-CPU group read state
 *
 * Device-managed: allocated at probe, freed after the unbind's
 * perf_pmu_unregister().
 */
struct simgpu_pmu {
	struct pmu base;
	struct simgpu_device *sdev;
	char name[24];
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
 * engine outlives the PMU: it is freed with the DRM device, after the
 * unbind.
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
 * Called with interrupts disabled.
 */
static u64 simgpu_pmu_sample(struct perf_event *event)
{
	struct simgpu_pmu *pmu = to_simgpu_pmu(event->pmu);
	struct simgpu_device *sdev = pmu->sdev;
	struct simgpu_pmu_txn *txn = this_cpu_ptr(pmu->txn);
	bool total = event->hw.event_base == SIMGPU_PMU_ENGINE_TOTAL_TICKS;
	unsigned int id = event->hw.idx;
	u64 ts, busy;

	if (!(txn->flags & PERF_PMU_TXN_READ) && !txn->disabled) {
		simgpu_pmu_latch(sdev, id, &ts, &busy);
		return total ? ts : busy;
	}

	if (!(txn->have & BIT_ULL(id))) {
		simgpu_pmu_latch(sdev, id, &txn->ts[id], &txn->busy[id]);
		txn->have |= BIT_ULL(id);
	}
	return total ? txn->ts[id] : txn->busy[id];
}

static void simgpu_pmu_event_update(struct perf_event *event)
{
	u64 prev, now;

	now = simgpu_pmu_sample(event);
	prev = local64_xchg(&event->hw.prev_count, now);
	local64_add(now - prev, &event->count);
}

static void simgpu_pmu_event_start(struct perf_event *event, int flags)
{
	local64_set(&event->hw.prev_count, simgpu_pmu_sample(event));
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
		txn->have = 0;
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
	txn->have = 0;
}

static void simgpu_pmu_enable(struct pmu *base)
{
	this_cpu_ptr(to_simgpu_pmu(base)->txn)->disabled = false;
}

static int simgpu_pmu_event_init(struct perf_event *event)
{
	struct simgpu_pmu *pmu = to_simgpu_pmu(event->pmu);
	u64 config = event->attr.config;
	unsigned int id, class, instance;
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

	/* The engine set is fixed while the device lives */
	eng = simgpu_engine_get(pmu->sdev, class, instance);
	if (!eng)
		return -ENOENT;

	event->hw.event_base = id;
	event->hw.config_base = eng->base;
	event->hw.idx = eng->hw_id;

	return 0;
}

static void simgpu_pmu_unregister(void *arg)
{
	struct simgpu_pmu *pmu = arg;

	/* Revokes the events still open: see "simgpu PMU lifetime" */
	perf_pmu_unregister(&pmu->base);
}

/**
 * simgpu_pmu_register - register the PMU of a device the driver is bound to
 * @sdev: the device, which has a platform device
 *
 * The PMU is named after the platform device, simgpu_<id>, and is
 * unregistered when the driver is unbound from it: see "simgpu PMU
 * lifetime".
 *
 * Returns: 0 or a negative error code.
 */
int simgpu_pmu_register(struct simgpu_device *sdev)
{
	struct device *dev = &sdev->platform->dev;
	struct simgpu_pmu *pmu;
	int ret;

	pmu = devm_kzalloc(dev, sizeof(*pmu), GFP_KERNEL);
	if (!pmu)
		return -ENOMEM;
	pmu->txn = devm_alloc_percpu(dev, struct simgpu_pmu_txn);
	if (!pmu->txn)
		return -ENOMEM;
	pmu->sdev = sdev;
	snprintf(pmu->name, sizeof(pmu->name), DRIVER_NAME "_%d",
		 sdev->platform->id);

	pmu->base = (struct pmu) {
		.module = THIS_MODULE,
		.parent = dev,
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
		return ret;

	return devm_add_action_or_reset(dev, simgpu_pmu_unregister, pmu);
}
