#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The demo of "make run", inside the VM: a load on simgpu, one client's
# fdinfo, and the monitor.
node=$(ls /dev/dri/renderD* 2>/dev/null | head -n 1)
echo "== simgpu in the VM: $(cat /sys/module/simgpu/parameters/refclk_hz 2>/dev/null) Hz reference clock, render node $node"
ls -l /dev/dri

if command -v simgpu-load > /dev/null; then
	echo "== simgpu-load --class rcs --duty 50 & simgpu-load --class ccs --duty 75 --queues 4 &"
	simgpu-load --class rcs --duty 50 --seconds 8 > /tmp/rcs.clients &
	simgpu-load --class ccs --duty 75 --queues 4 --seconds 8 \
		--alloc memory:4M --alloc vram0:16M > /tmp/ccs.clients &
	sleep 2
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
wait
