#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# stock-smoke.sh PERF: in a guest of Debian's own kernel with simgpu's
# DKMS module (devtools/stock-kernel.sh), what a user's first run does:
#
# - simgpu is a DRM device beside another (vgem, loaded first), and the
#   second one;
# - a 50 % load read back by perf's DRM PMU, which reads the fdinfo
#   keys, and by simgpu's own PMU (devtools/perf-drm.sh);
# - drmtop's and drm-fdinfo-check's tests against simgpu
#   (tools/gpu/drmtop/tests/simgpu/run.sh).
#
# vm-run.sh unloads simgpu after it and fails on any kernel report.
# Prints TAP, the others' nested under a "# <script>" line; a skip is a
# failure here: the stock kernel has perf events and memory cgroups.
set -u
perf=${1:?usage: stock-smoke.sh PERF}
repo=$(cd "$(dirname "$0")/.." && pwd)
status=0

echo "# the DRM devices"
# each card's device: vgem's has no driver, simgpu's is simgpu.0
devs=
for c in /sys/class/drm/card[0-9]*; do
	d=$(readlink "$c/device")
	devs="$devs${devs:+ }${c##*/}:${d##*/}"
done
if [ "$devs" = "card0:vgem card1:simgpu.0" ]; then
	echo "ok 1 - simgpu is the second DRM device, after vgem ($devs)"
else
	echo "not ok 1 - simgpu is the second DRM device, after vgem ($devs)"
	status=1
fi

for t in "$repo/devtools/perf-drm.sh $perf" \
	 "$repo/tools/gpu/drmtop/tests/simgpu/run.sh"; do
	echo "# ${t%% *}"
	# shellcheck disable=SC2086 # a script and its argument
	sh $t || status=1
done
exit $status
