# SPDX-License-Identifier: GPL-2.0-only
#
# What the tests against simgpu share, sourced by each: TAP output, a skip
# of the whole test (exit status 4) when a tool or the device is missing,
# and the simgpu render node, in $node.

skip_status=4

echo "TAP version 13"

skip_all() {
	echo "1..0 # SKIP $*"
	exit $skip_status
}

# need TOOL...: skip unless every TOOL is on PATH
need() {
	for tool in "$@"; do
		command -v "$tool" > /dev/null || skip_all "$tool not on PATH"
	done
}

# The render node of the simgpu device, or skip
node=
for d in /sys/class/drm/renderD*; do
	if [ "$(basename "$(readlink -f "$d/device/driver")")" = simgpu ]; then
		node=/dev/dri/$(basename "$d")
		break
	fi
done
if [ -z "$node" ] || [ ! -e "$node" ]; then
	skip_all "no simgpu render node (simgpu not loaded)"
fi

n=0
fail=0

# t STATUS DESCRIPTION: one TAP line, "ok" if STATUS is 0
t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}
