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

# drmtop over 1,000 processes holding two simgpu fds each, spread over 50
# cgroups when the guest has cgroup v2 (for its cgroup view). Its
# interactive view runs in a pseudo terminal: devpts, if the VM has none yet.
[ -e /dev/pts/ptmx ] || { mkdir -p /dev/pts && mount -t devpts devpts /dev/pts; }
cg=/sys/fs/cgroup
[ -e $cg/cgroup.procs ] || mount -t cgroup2 none $cg 2>/dev/null
[ ! -e $cg/cgroup.procs ] || mkdir -p $(seq -f "$cg/bench-%g" 0 49)
# They outlive the benchmark, however slow the guest: it kills them.
i=0
pids=
while [ $i -lt 1000 ]; do
	sleep 3600 3< "$node" 4< "$node" &
	pids="$pids $!"
	[ ! -d $cg/bench-0 ] || echo $! >$cg/bench-$((i % 50))/cgroup.procs
	i=$((i + 1))
done
sleep 2
{ drmtop-bench -r 5 || echo "bench: drmtop-bench failed with status $?"; } | tag
kill $pids
wait
rmdir $cg/bench-* 2>/dev/null
