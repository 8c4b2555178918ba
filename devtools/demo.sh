#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo of "make run", inside the VM: a load on simgpu, one client's
# fdinfo, and the monitor.
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
if command -v drm-fdinfo-check > /dev/null; then
	echo "== drm-fdinfo-check $pid:$fd"
	drm-fdinfo-check "$pid:$fd"
fi
[ -z "$loads" ] || kill -TERM $loads
wait
