#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vm-selftests.sh SRC: run inside a VM by "make check", the simgpu
# kselftests of the kernel tree SRC, through the kselftest runner:
#
#   make -C SRC/tools/testing/selftests TARGETS=drivers/gpu/simgpu run_tests
#
# "make tools" built them in SRC on the host; the VM's root is the host's,
# read-only, so make finds them up to date and only runs them. The output is
# the runner's TAP, each program's own TAP nested in it as "# " lines.
src=${1:?usage: vm-selftests.sh SRC}

# The runner writes to /dev/stdout, which the VM's bare devtmpfs lacks.
for fd in 0:stdin 1:stdout 2:stderr; do
	[ -e "/dev/${fd#*:}" ] || ln -s "/proc/self/fd/${fd%%:*}" "/dev/${fd#*:}"
done
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
exec make -s -C "$src/tools/testing/selftests" TARGETS=drivers/gpu/simgpu \
	run_tests
