#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "make bench", inside the VM: each benchmark prints
# "bench: <name> ratio=<x> target=<op><y>".
bindir=$(dirname "$(command -v vm-poweroff)")
found=0
for b in "$bindir"/simgpu_*_bench "$bindir"/drmtop-bench; do
	[ -x "$b" ] || continue
	found=1
	"$b" || echo "bench: $(basename "$b") failed with status $?"
done
[ $found = 1 ] || echo "bench: no benchmark built"
