#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prepare-src.sh BASE SRC TREE
#
# Make SRC the kernel tree the series give: a hard-linked copy of the
# pristine BASE tree, the base files the series change as the tip of the
# stack has them (devtools/stack.py tip: every series of series/ applied
# with git am), and every new file symlinked in from TREE at its in-tree
# path, so that an edit there is seen by the next incremental build. TREE
# holds series/ and the new files: the repository.
set -eu
base=$1 src=$2 repo=$3
stack_py=$(dirname "$0")/stack.py

if [ ! -f "$src/.simgpu-base" ] || [ "$(cat "$src/.simgpu-base")" != "$base" ]; then
	rm -rf "$src"
	mkdir -p "$(dirname "$src")"
	cp -al "$base" "$src" 2>/dev/null || cp -a "$base" "$src"
	echo "$base" > "$src/.simgpu-base"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
"$stack_py" --repo "$repo" --base "$base" tip --out "$stage"

# The MAINTAINERS entries name the sender (make series); a build tree is
# never sent and names a marked build identity.
sed -i 's|@MAINTAINER@|simgpu build tree <build-tree@simgpu.invalid>|' \
	"$stage/MAINTAINERS" 2>/dev/null || true
# The base files the series change: replace only the files whose result
# changed, as a file rewritten with the same content would still rebuild
# everything that includes it.
# A base file the series no longer change goes back to the base's.
for f in $(cat "$src/.simgpu-changed" 2>/dev/null); do
	grep -qxF "$f" "$stage/.changed" ||
		cp -al --remove-destination "$base/$f" "$src/$f"
done
sort -u "$stage/.changed" | while read -r f; do
	cmp -s "$stage/$f" "$src/$f" ||
		cp --remove-destination "$stage/$f" "$src/$f"
done
sort -u "$stage/.changed" > "$src/.simgpu-changed"

# The new files: symlinks to the repository's (stack.py check makes sure
# they are the stack's).
for top in $("$stack_py" --repo "$repo" list-overlay-dirs); do
	find "$src/$top" -type l -lname "$repo/*" ! -exec test -e {} \; -delete
done
while read -r f; do
	if [ "$(readlink "$src/$f" 2>/dev/null)" != "$repo/$f" ]; then
		mkdir -p "$src/$(dirname "$f")"
		ln -sfn "$repo/$f" "$src/$f"
	fi
done < "$stage/.new"
