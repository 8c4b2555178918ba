#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prepare-src.sh BASE SRC REPO
#
# Make SRC the kernel tree the overlay describes: a hard-linked copy of the
# pristine BASE tree, the repository's diffs/*.diff applied to it and every
# new file of the repository symlinked in at its in-tree path, so that an
# edit in the repository is seen by the next incremental build.
set -eu
base=$1 src=$2 repo=$3

if [ ! -f "$src/.simgpu-base" ] || [ "$(cat "$src/.simgpu-base")" != "$base" ]; then
	rm -rf "$src"
	mkdir -p "$(dirname "$src")"
	cp -al "$base" "$src" 2>/dev/null || cp -a "$base" "$src"
	echo "$base" > "$src/.simgpu-base"
fi

# Upstream files changed by diffs: restore them, then apply the diffs in
# series order, only when a diff changed since the last time. The diffs of
# devtools/host-fixes/ are not part of the series: they fix the base kernel
# for the machines we test on (see the README there).
diffs="$("$repo/devtools/series.py" --repo "$repo" list-diffs)
$(cd "$repo" && ls devtools/host-fixes/*.diff)"
sum=$(cd "$repo" && cat $diffs | md5sum)
if [ "$(cat "$src/.simgpu-diffs" 2>/dev/null)" != "$sum" ]; then
	# Patch copies of the pristine files in a staging tree and replace
	# only the files whose result changed: a file rewritten with the same
	# content would still rebuild everything that includes it (the host
	# fixes touch arch/um headers that all of UML does).
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	for d in $diffs; do
		sed -n 's|^+++ b/\([^\t]*\).*|\1|p' "$repo/$d"
	done | sort -u > "$stage/.files"
	while read -r f; do
		mkdir -p "$stage/$(dirname "$f")"
		cp "$base/$f" "$stage/$f"
	done < "$stage/.files"
	# The MAINTAINERS entries name the sender (make series); a build
	# tree is never sent and names a marked build identity.
	for d in $diffs; do
		sed 's|@MAINTAINER@|simgpu build tree <build-tree@simgpu.invalid>|' \
			"$repo/$d" | patch -s -p1 -d "$stage" --no-backup-if-mismatch
	done
	while read -r f; do
		cmp -s "$stage/$f" "$src/$f" ||
			cp --remove-destination "$stage/$f" "$src/$f"
	done < "$stage/.files"
	echo "$sum" > "$src/.simgpu-diffs"
fi

cd "$repo"
for top in $("$repo/devtools/series.py" --repo "$repo" list-overlay-dirs); do
	find "$src/$top" -type l -lname "$repo/*" ! -exec test -e {} \; -delete
done
"$repo/devtools/series.py" --repo "$repo" list-files | while read -r f; do
	if [ "$(readlink "$src/$f" 2>/dev/null)" != "$repo/$f" ]; then
		mkdir -p "$src/$(dirname "$f")"
		ln -sfn "$repo/$f" "$src/$f"
	fi
done
