#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside the VM by "make check": every selftest binary on PATH named
# simgpu_*_test, each printing TAP lines. A binary that fails without
# saying which test failed gets a "not ok" line of its own.
bindir=$(dirname "$(command -v vm-poweroff)")
n=0
for t in "$bindir"/simgpu_*_test; do
	[ -x "$t" ] || continue
	n=$((n + 1))
	name=$(basename "$t")
	echo "# $name"
	out=/tmp/$name.out
	"$t" > "$out" 2>&1
	rc=$?
	cat "$out"
	if [ $rc != 0 ] && ! grep -q '^not ok ' "$out"; then
		echo "not ok $n - $name exited with status $rc"
	fi
done
[ $n -gt 0 ] || echo "not ok 1 - no selftest binary in $bindir"
