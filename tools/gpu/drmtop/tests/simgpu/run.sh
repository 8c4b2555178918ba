#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The tests of drmtop and drm-fdinfo-check against a live simgpu device
# ("make check-simgpu"): as root, with simgpu loaded, simgpu-load on PATH,
# and drmtop and drm-fdinfo-check first on PATH. simgpu is a DRM driver
# for a simulated GPU whose load is known exactly; these tests check what
# the tools report against the counters they read themselves.
#
# Each test's TAP lines are printed as they come, under a "# <test>"
# line; a test that skips is one "ok 1 - <test> # SKIP <why>" line. Exits
# 1 if a test failed, else 0.
cd "$(dirname "$0")" || exit 2
status=0
for t in drmtop.sh cgroup.sh; do
	echo "# tests/simgpu/$t"
	out=$(mktemp)
	sh "./$t" > "$out" 2>&1
	rc=$?
	if [ $rc = 4 ]; then
		echo "ok 1 - $t # SKIP $(sed -n 's/^1\.\.0 # SKIP //p' "$out")"
	else
		cat "$out"
		if [ $rc != 0 ]; then
			echo "not ok 1 - $t: exit status $rc"
			status=1
		fi
	fi
	rm -f "$out"
done
exit $status
