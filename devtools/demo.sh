#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo of "make run", inside the VM: a load on simgpu, one client's
# fdinfo, the monitor, and the performance counters of a workload that
# shares an engine with the load.
node=$(ls /dev/dri/renderD* 2>/dev/null | head -n 1)
echo "== simgpu in the VM: $(cat /sys/module/simgpu/parameters/refclk_hz 2>/dev/null) Hz reference clock, render node $node"
ls -l /dev/dri

# wait_client FILE PID: wait until simgpu-load PID printed its client line
# into FILE, which it does once the client submits (at most 60 s).
wait_client() {
	i=0
	while [ ! -s "$1" ] && kill -0 "$2" 2> /dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ] || { echo "demo: simgpu-load did not start" >&2; exit 1; }
}

loads=
if command -v simgpu-load > /dev/null; then
	echo "== simgpu-load --class rcs --duty 50 & simgpu-load --class ccs --duty 75 --queues 4 &"
	# They run until the demo ends them.
	simgpu-load --class rcs --duty 50 --seconds 600 > /tmp/rcs.clients &
	rcs_load=$!
	simgpu-load --class ccs --duty 75 --queues 4 --seconds 600 \
		--alloc memory:4M --alloc vram0:16M > /tmp/ccs.clients &
	ccs_load=$!
	loads="$rcs_load $ccs_load"
	wait_client /tmp/rcs.clients $rcs_load
	wait_client /tmp/ccs.clients $ccs_load
	set -- $(head -n 1 /tmp/rcs.clients)
	pid=$2 fd=$3
else
	echo "== (simgpu-load not built yet: an idle client instead)"
	exec 3< "$node"
	pid=$$ fd=3
fi

echo "== cat /proc/$pid/fdinfo/$fd"
cat /proc/"$pid"/fdinfo/"$fd"

if command -v drmtop > /dev/null; then
	echo "== drmtop -b -n 3 -d 1"
	drmtop -b -n 3 -d 1
fi
# The PMU's view of the same load, where the kernel has perf events (the
# x86_64 guest; UML has none), with Debian's perf (6.1: it reads any
# PMU's events and format from sysfs).
perf=$(command -v perf)
pmu=$(ls -d /sys/bus/event_source/devices/simgpu_* 2>/dev/null | head -n 1)
if [ -n "$pmu" ] && [ -n "$perf" ]; then
	pmu=${pmu##*/}
	events=
	for e in rcs:0:0 ccs:4:0 ccs:4:1 ccs:4:2 ccs:4:3; do
		IFS=: read -r name class inst <<-EOF
		$e
		EOF
		ev="engine_class=$class,engine_instance=$inst"
		events="$events${events:+,}{$pmu/engine-active-ticks,$ev/,$pmu/engine-total-ticks,$ev/}"
	done
	echo "== perf stat -a -I 1000 -e '{$pmu/engine-active-ticks,engine_class=0,engine_instance=0/,$pmu/engine-total-ticks,...}' ... (rcs0, ccs0-3, 3 s)"
	"$perf" stat -a -I 1000 -x ';' -e "$events" -- sleep 3 2>&1 |
		awk -F';' '
		/engine-active-ticks/ { active = $2; next }
		/engine-total-ticks/ {
			ev = $4; sub(/.*engine_class=/, "class ", ev)
			sub(/,engine_instance=/, " instance ", ev); sub(/\/.*/, "", ev)
			printf "%8.3f s  %-22s %5.1f %% busy (%s / %s ticks)\n",
			       $1, ev, $2 ? 100 * active / $2 : 0, active, $2
		}'
elif [ -z "$pmu" ]; then
	echo "== no simgpu PMU: this kernel has no perf events (UML)"
fi
if command -v drm-fdinfo-check > /dev/null; then
	echo "== drm-fdinfo-check $pid:$fd"
	drm-fdinfo-check "$pid:$fd"
fi
# A perfmon counts its own jobs only, whatever else runs on rcs0.
if command -v simgpu-perf > /dev/null; then
	echo "== simgpu-perf list"
	simgpu-perf list
	echo "== simgpu-perf stat -e busy-ticks,commands,bytes-written,copies --jobs 3 -- busy=1ms,copy=8K,write=16"
	simgpu-perf stat -e busy-ticks,commands,bytes-written,copies --jobs 3 \
		-- busy=1ms,copy=8K,write=16
	# A 30 % duty cycle seen by the observation unit: busy-ticks grow by
	# a whole period's ticks while the context runs, by none while it idles
	echo "== simgpu-perf record -e busy-ticks,commands --period 20ms --seconds 1 -- busy=30ms,idle=70ms"
	simgpu-perf record -e busy-ticks,commands --period 20ms --seconds 1 \
		-- busy=30ms,idle=70ms
fi
[ -z "$loads" ] || kill -TERM $loads
wait
