#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "make series-check": build the UML kernel after each patch of the series,
# so that the series is bisectable. Uses its own tree and build directory.
set -eu
states=$BUILD/series-states
tree=$BUILD/series-src
out=$BUILD/series-uml
"$REPO/devtools/series.py" states --base "$KERNEL_SRC" --out "$states" > "$BUILD/series-states.list"
rm -rf "$tree"
cp -al "$KERNEL_SRC" "$tree"
mkdir -p "$out"
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
	"$REPO/devtools/make-config.sh" "$tree" "$out" um defconfig \
		"$REPO/devtools/uml.config"
	if make -s -C "$tree" O="$out" ARCH=um -j"$JOBS" linux modules > "$out/patch-$k.log" 2>&1; then
		echo "series-check: patch $k builds"
	else
		echo "series-check: patch $k does not build:"
		tail -n 30 "$out/patch-$k.log"
		exit 1
	fi
	k=$((k + 1))
done < "$BUILD/series-states.list"
echo "series-check: all $((k - 1)) patches build"
