#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make-config.sh SRC OUT ARCH BASE FRAGMENT...
#
# The one way every kernel .config of the project is made: in build
# directory OUT of tree SRC, "make ARCH=ARCH BASE" (defconfig,
# tinyconfig), the FRAGMENTs merged over it in order, olddefconfig, and a
# check that every option of the FRAGMENTs took effect. An option set in
# two FRAGMENTs takes the later one's value, in the kernel and in the
# check: a debug fragment overrides its base. CROSS_COMPILE, if set in the
# environment, is used as by any kernel make.
#
# Its callers, one per kernel: the Makefile (build/uml: uml.config;
# build/x86: x86_64.config; build/x86-debug: x86_64.config then
# x86_64-debug.config), cross-check.sh (build/cross-*: cross.config then
# cross-s390.config or cross-i386.config) and series-check.sh (uml.config,
# per patch). Only the KUnit kernel is configured elsewhere: by kunit.py,
# from the .kunitconfig files.
set -eu
src=$1 out=$2 arch=$3 base=$4
shift 4
mkdir -p "$out"
make -s -C "$src" O="$out" ARCH="$arch" "$base"
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@" \
	> /dev/null
make -s -C "$src" O="$out" ARCH="$arch" olddefconfig
# What the fragments ask for, the last value of each option winning as in
# merge_config.sh.
awk '/^CONFIG_[A-Za-z0-9_]+=/ {
	opt = $0
	sub(/=.*/, "", opt)
	if (!(opt in val))
		order[n++] = opt
	val[opt] = $0
}
END { for (i = 0; i < n; i++) print val[order[i]] }' "$@" > "$out/.config.want"
"$(dirname "$0")/config-check.sh" "$out/.config.want" "$out/.config"
