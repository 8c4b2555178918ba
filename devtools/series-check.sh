#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "make series-check": build the UML kernel after each patch of the series,
# so that the series is bisectable, and run the KUnit suites that exist at
# each patch (SERIES_KUNIT=0 skips them). Uses its own tree and build
# directories; a first run seeds them from build/uml and build/kunit, so
# that only what the series changes is rebuilt. SERIES_FROM=k starts the
# builds at patch k (the earlier states are only laid over the tree),
# SERIES_TO=k stops them after patch k.
set -eu
states=$BUILD/series-states
tree=$BUILD/series-src
out=$BUILD/series-uml
kout=$BUILD/series-kunit
kunit=${SERIES_KUNIT:-1}
from=${SERIES_FROM:-1}
to=${SERIES_TO:-1000000}
"$REPO/devtools/series.py" states --base "$KERNEL_SRC" --out "$states" > "$BUILD/series-states.list"
rm -rf "$tree"
cp -al "$KERNEL_SRC" "$tree"
# The fixes the base needs on the machines we test on (not in the series).
for d in "$REPO"/devtools/host-fixes/*.diff; do
	patch -s -p1 -d "$tree" --no-backup-if-mismatch < "$d"
done

# seed DIR FROM: an incremental start for DIR, a copy of FROM's build
seed() {
	[ ! -d "$1" ] && [ -f "$2/.config" ] || return 0
	cp -a "$2" "$1"
	grep -rlI --include=Makefile --include='*.cmd' "$SRC" "$1" |
		xargs -r sed -i "s|$SRC|$tree|g"
}
seed "$out" "$UML_OUT"
seed "$kout" "$KUNIT_OUT"
mkdir -p "$out" "$kout"

# kunit_patch K: the KUnit suites of KUNIT_GLOBS that the tree has at patch
# K, built once and booted once per glob; fails on a failed, crashed or
# missing result or a kernel report.
kunit_patch() {
	flags= globs=
	for f in $KUNIT_FLAGS; do
		case $f in
		--kunitconfig=*) [ -f "$tree/${f#--kunitconfig=}" ] || continue ;;
		--build_dir=*) continue ;;
		esac
		flags="$flags $f"
	done
	set -f
	for g in $KUNIT_GLOBS; do
		# a suite named like the glob exists at this patch
		grep -rqsE "\.name = \"${g%\*}" "$tree/drivers/gpu/drm/simgpu" \
			"$tree/drivers/gpu/drm/tests" && globs="$globs $g"
	done
	[ -n "$globs" ] || { set +f; return 0; }
	log=$kout/patch-$1.log
	# shellcheck disable=SC2086 # lists of options and globs
	if ! (cd "$tree" && ./tools/testing/kunit/kunit.py build $flags \
		--build_dir="$kout" --jobs="$JOBS") > "$log" 2>&1; then
		echo "series-check: patch $1: KUnit build failed:"
		tail -n 30 "$log"
		set +f
		return 1
	fi
	for g in $globs; do
		# shellcheck disable=SC2086
		(cd "$tree" && ./tools/testing/kunit/kunit.py exec $flags \
			--build_dir="$kout" "$g") > "$log.$g" 2>&1
		summary=$(grep -E 'Ran [0-9]+ tests' "$log.$g" | tail -n 1)
		case $summary in
		*"passed: "*) ;;
		*) echo "series-check: patch $1: KUnit $g did not run:"
		   tail -n 30 "$log.$g"; set +f; return 1 ;;
		esac
		if echo "$summary" | grep -qE 'failed: [1-9]|crashed: [1-9]' ||
		   grep -qE 'WARNING:|BUG[: ]|KASAN|possible circular locking' "$log.$g"; then
			echo "series-check: patch $1: KUnit $g: $summary"
			set +f
			return 1
		fi
		echo "series-check: patch $1: KUnit $g: $summary"
	done
	set +f
}

k=0
prev=
while read -r state; do
	# Undo the previous state's files, then lay this one's over the base.
	if [ -n "$prev" ]; then
		(cd "$prev" && find . -type f) | while read -r f; do
			rm -f "$tree/$f"
			[ ! -f "$KERNEL_SRC/$f" ] || cp -l "$KERNEL_SRC/$f" "$tree/$f"
		done
	fi
	(cd "$state" && find . -type f) | while read -r f; do
		mkdir -p "$(dirname "$tree/$f")"
		cp --remove-destination "$state/$f" "$tree/$f"
	done
	prev=$state
	if [ $k = 0 ]; then k=1; continue; fi
	if [ $k -lt "$from" ]; then k=$((k + 1)); continue; fi
	[ $k -le "$to" ] || break
	# Before the driver's first patch, its options cannot take effect.
	frag=$REPO/devtools/uml.config
	if [ ! -f "$tree/drivers/gpu/drm/simgpu/Kconfig" ]; then
		grep -v '^CONFIG_DRM_SIMGPU' "$frag" > "$out/uml-nosimgpu.config"
		frag=$out/uml-nosimgpu.config
	fi
	"$REPO/devtools/make-config.sh" "$tree" "$out" um defconfig "$frag"
	if make -s -C "$tree" O="$out" ARCH=um -j"$JOBS" linux modules > "$out/patch-$k.log" 2>&1; then
		echo "series-check: patch $k builds"
	else
		echo "series-check: patch $k does not build:"
		tail -n 30 "$out/patch-$k.log"
		exit 1
	fi
	if [ "$kunit" = 1 ]; then
		kunit_patch $k || exit 1
	fi
	k=$((k + 1))
done < "$BUILD/series-states.list"
echo "series-check: patches $from to $((k - 1)) build"
