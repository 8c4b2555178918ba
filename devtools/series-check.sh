#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# "make series-check": after each patch of the series that changes kernel
# code, build the KUnit kernel (UML, simgpu built in with its tests, KASAN
# and lockdep as the .kunitconfig files ask) and run the KUnit suites of
# KUNIT_GLOBS that exist at that patch, so that the series is bisectable.
# Patches of tools, selftests and documentation only are skipped (make
# check's series-each builds and unit-tests them). Uses its own stack, tree
# and build directory, seeded from build/kunit so that only what each patch
# changes is rebuilt; a patch's tree is made by checking out only the files
# it changes. SERIES_FROM=k starts the builds at patch k (the earlier ones
# are only laid over the tree), SERIES_TO=k stops after patch k.
set -eu
stack=$BUILD/series-stack
tree=$BUILD/series-src
kout=$BUILD/series-kunit
from=${SERIES_FROM:-1}
to=${SERIES_TO:-1000000}
"$REPO/devtools/stack.py" --repo "$TREE" --base "$KERNEL_SRC" \
	--stack "$stack" apply --force
rm -rf "$tree" "$BUILD/series-index"
cp -al "$KERNEL_SRC" "$tree"
G() {
	GIT_INDEX_FILE=$BUILD/series-index git --git-dir="$stack/.git" \
		--work-tree="$tree" "$@"
}

# seed DIR FROM: an incremental start for DIR, a copy of FROM's build
seed() {
	[ ! -d "$1" ] && [ -f "$2/.config" ] || return 0
	cp -a "$2" "$1"
	grep -rlI --include=Makefile --include='*.cmd' "$SRC" "$1" |
		xargs -r sed -i "s|$SRC|$tree|g"
}
seed "$kout" "$KUNIT_OUT"
mkdir -p "$kout"

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

k=0 built=0 start=$(date +%s)
for c in $(G rev-list --reverse base..HEAD); do
	k=$((k + 1))
	[ $k -le "$to" ] || break
	for f in $(G diff --name-only --diff-filter=D "$c^" "$c"); do
		rm -f "$tree/$f"
	done
	# shellcheck disable=SC2046 # a list of paths
	G checkout -q "$c" -- $(G diff --name-only --diff-filter=d "$c^" "$c")
	[ $k -ge "$from" ] || continue
	subj=$(G log -1 --format=%s "$c")
	if ! G diff --name-only "$c^" "$c" | grep -qE '^(drivers|include)/'; then
		echo "series-check: patch $k ($subj): no kernel code, skipped"
		continue
	fi
	if ! kunit_patch "$k"; then
		echo "series-check: patch $k ($subj) fails"
		exit 1
	fi
	built=$((built + 1))
done
echo "series-check: $k patches, $built with kernel code built and KUnit run, in $(( $(date +%s) - start )) s: ok"
