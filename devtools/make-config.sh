#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make-config.sh SRC OUT ARCH BASE FRAGMENT...
#
# The one way every kernel .config of the project is made: in build
# directory OUT of tree SRC, "make ARCH=ARCH BASE" (defconfig,
# tinyconfig), the FRAGMENTs merged over it, olddefconfig, and a check
# that every option of the FRAGMENTs took effect. CROSS_COMPILE, if set in
# the environment, is used as by any kernel make.
set -eu
src=$1 out=$2 arch=$3 base=$4
shift 4
mkdir -p "$out"
make -s -C "$src" O="$out" ARCH="$arch" "$base"
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" \
	> /dev/null
make -s -C "$src" O="$out" ARCH="$arch" olddefconfig
for f in "$@"; do
	"$(dirname "$0")/config-check.sh" "$f" "$out/.config"
done
