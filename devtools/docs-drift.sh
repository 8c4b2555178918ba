#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# docs-drift.sh REPO: every name simgpu_regs.h defines (registers, fields,
# bits, commands, limits; SIMGPU_REG_, SIMGPU_CMD_ or SIMGPU_ taken off)
# and every module parameter of the driver appears in
# Documentation/gpu/simgpu.rst. Prints each one that does not.
set -u
rst=$1/Documentation/gpu/simgpu.rst
drv=$1/drivers/gpu/drm/simgpu
for n in $(sed -nE 's/^#define +([A-Z][A-Z0-9_]*).*/\1/p' "$drv/simgpu_regs.h"); do
	short=${n#SIMGPU_REG_}
	short=${short#SIMGPU_CMD_}
	short=${short#SIMGPU_}
	grep -qw -- "$short" "$rst" || echo "simgpu.rst: $n is not documented"
done
for p in $(sed -nE 's/^module_param\(([a-z0-9_]+),.*/\1/p' "$drv"/*.c); do
	grep -q "\`\`$p\`\`" "$rst" ||
		echo "simgpu.rst: module parameter $p is not documented"
done
