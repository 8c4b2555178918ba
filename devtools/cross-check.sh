#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# cross-check.sh: build simgpu (and its KUnit tests), and the DRM core
# files whose code the series changes (drm_print.c: 64-bit division),
# with W=1 for a big-endian machine (s390x) and a 32-bit one with highmem
# (i386), with Debian's cross compilers, each in its own build directory
# under $BUILD. Prints each compiler warning or error; fails if there is
# one.
# Run by "make check", which exports SRC BUILD JOBS REPO.
set -u
rc=0

# cross NAME ARCH CROSS_COMPILE FRAGMENT...
cross() {
	name=$1 arch=$2
	out=$BUILD/cross-$name log=$BUILD/cross-$name.log
	CROSS_COMPILE=$3
	export CROSS_COMPILE
	shift 3
	if "$REPO/devtools/make-config.sh" "$SRC" "$out" "$arch" tinyconfig \
		"$REPO/devtools/cross.config" "$@" > "$log" 2>&1 &&
	   make -s -C "$SRC" O="$out" ARCH="$arch" -j"$JOBS" W=1 \
		drivers/gpu/drm/simgpu/ drivers/gpu/drm/drm_print.o \
		drivers/gpu/drm/drm_file.o >> "$log" 2>&1; then
		if grep -E 'warning:|error:' "$log"; then
			echo "cross-check: $name: warnings"
			rc=1
		else
			echo "cross-check: $name: builds without a warning"
		fi
	else
		tail -n 30 "$log"
		echo "cross-check: $name: does not build"
		rc=1
	fi
}

cross s390x s390 s390x-linux-gnu- "$REPO/devtools/cross-s390.config"
cross i386 i386 i686-linux-gnu- "$REPO/devtools/cross-i386.config"
exit $rc
