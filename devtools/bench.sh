#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "make bench", inside a VM: bench.sh LABEL. Each figure is one line
# "bench: <name>@LABEL ratio=<x> target=<op><y>", LABEL naming the VM the
# figure was measured in.
label=${1:-vm}
node=$(ls /dev/dri/renderD* | head -n 1)
tag() { sed -u "s/^bench: \([^ ]*\)/bench: \1@$label/"; }
echo "# $label: $(nproc) CPU(s), Linux $(uname -r)"

# fdinfo read cost against a pipe's at 1..4096 idle queues, and submission
# throughput with a 1 kHz fdinfo reader against none.
{ simgpu_fdinfo_bench || echo "bench: simgpu_fdinfo_bench failed with status $?"; } | tag

# Observation streams: reports delivered at the fastest unprivileged period,
# and submission throughput with a stream and its reader against none.
{ simgpu_observation_bench || echo "bench: simgpu_observation_bench failed with status $?"; } | tag

# drmtop over 1,000 processes holding two simgpu fds each. Its interactive
# view runs in a pseudo terminal: devpts, if the VM has none yet.
[ -e /dev/pts/ptmx ] || { mkdir -p /dev/pts && mount -t devpts devpts /dev/pts; }
i=0
pids=
while [ $i -lt 1000 ]; do
	sleep 600 3< "$node" 4< "$node" &
	pids="$pids $!"
	i=$((i + 1))
done
sleep 2
{ drmtop-bench -r 5 || echo "bench: drmtop-bench failed with status $?"; } | tag
kill $pids
wait
