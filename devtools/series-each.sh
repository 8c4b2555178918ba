#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# series-each.sh: check every patch of every series on its own, cheaply
# and incrementally, in the order the stack applies them:
#
# - a patch that changes kernel code: the objects of the files it touches
#   (every object of a directory whose header or Makefile it touches)
#   built for x86_64 with W=1 and sparse (C=1: the objects rebuilt), in a
#   tree that has exactly the patches up to it; a warning that the base
#   tree's same objects do not give fails it;
# - a patch that changes a tool of tools/gpu/ (simgpu-load, simgpu-perf):
#   that tool built with the uAPI headers of its tree;
# - a patch that changes the selftests: the selftests built;
# - a patch that adds or changes KUnit tests (EACH_KUNIT=tests, the
#   default) or, with EACH_KUNIT=all, any patch that changes code KUnit
#   covers (simgpu once its suites exist, the DRM core files of the
#   series): the KUnit suites of that code that exist at it, run in UML
#   with make check's options (KASAN, lockdep, DEBUG_OBJECTS), so that a
#   patch that breaks what its tests or an earlier patch's check fails
#   there. "all" costs about 30 s a patch more on two cores, some 25
#   minutes over the series: make check runs "tests";
# - after the last patch, with EACH_TIP_KUNIT=DIR (make check sets it):
#   every suite of KUNIT_GLOBS at the tip, one boot a glob, the raw
#   output of the Nth glob in DIR/N.log and kunit.py's exit status in
#   DIR/N.status, which make check counts: the tip's KUnit run shares the
#   build of the per-patch runs instead of making its own;
# - documentation-only patches are checked by checkpatch (check.sh) and by
#   the docs build at the tip.
#
# EACH_FROM=N and EACH_TO=M check patches N to M only (make series-each
# EACH_FROM=23 EACH_TO=23: one patch, the earlier ones applied unchecked).
#
# Prints "ok N - <series>/<patch>" or "not ok N - ..." (TAP) per patch,
# the log of a failure under $BUILD/each/log/. Uses its own stack, tree
# and build directory under $BUILD/each, seeded once and incremental
# afterwards. Run by "make check" and "make series-each", which export
# REPO TREE BUILD JOBS KERNEL_SRC.
set -u
W=$BUILD/each
stack=$W/stack
tree=$W/src
out=$W/x86
hdr=$W/hdr
log=$W/log
rm -rf "$log"
mkdir -p "$log"

kunit_out=$W/kunit
# UML options as make check's (KUNIT_UML of the Makefile), a build
# directory of their own. The options of simgpu's .kunitconfig that are
# not simgpu's own (the debugging ones) are on from the first patch, so
# that the config barely changes once the file exists (a changed option
# rebuilds every object that reads it) and the DRM core's suites run
# with them before simgpu exists.
read -ra uml_opts <<< "${KUNIT_UML:?}"
KUNIT_EACH=(--arch=um --build_dir="$kunit_out" "${uml_opts[@]}")
while read -r opt; do
	case $opt in
	CONFIG_KUNIT=*|CONFIG_DRM=*|CONFIG_DRM_SIMGPU*) ;;
	CONFIG_*) KUNIT_EACH+=(--kconfig_add "$opt") ;;
	esac
done < "$TREE/drivers/gpu/drm/simgpu/.kunitconfig"
EACH_KUNIT=${EACH_KUNIT:-tests}
# kunit build|exec ARGS...: kunit.py in the tree with those options and
# the .kunitconfig files that exist at the tree's patch.
kunit() {
	local cmd=$1 kcfgs=(--kunitconfig=drivers/gpu/drm/tests/.kunitconfig)

	shift
	[ -f "$tree/drivers/gpu/drm/simgpu/.kunitconfig" ] &&
		kcfgs+=(--kunitconfig=drivers/gpu/drm/simgpu/.kunitconfig)
	(cd "$tree" && ./tools/testing/kunit/kunit.py "$cmd" \
		"${KUNIT_EACH[@]}" "${kcfgs[@]}" "$@")
}

"$REPO/devtools/stack.py" --repo "$TREE" --base "$KERNEL_SRC" \
	--stack "$stack" apply --force > "$log/apply.log" 2>&1 || {
	cat "$log/apply.log"
	echo "not ok 1 - the series apply with git am"
	exit 1
}

# The tree: a hard-linked copy of the base (git replaces a file, never
# writes into it, so the base is safe), reset to the base's state where an
# earlier run left later patches.
if [ ! -f "$tree/.simgpu-base" ] ||
   [ "$(cat "$tree/.simgpu-base")" != "$KERNEL_SRC" ]; then
	rm -rf "$tree" "$out" "$hdr"
	cp -al "$KERNEL_SRC" "$tree"
	echo "$KERNEL_SRC" > "$tree/.simgpu-base"
fi
# The tree's own index, so that a checkout rewrites only what changed.
G() {
	GIT_INDEX_FILE=$W/index git --git-dir="$stack/.git" --work-tree="$tree" "$@"
}
# Files of an earlier run's last state go back to the base's: those the
# series adds are removed, those it changes restored (only where they
# differ, so that make rebuilds only what changed).
for f in $(G diff --name-only --diff-filter=A base HEAD); do
	rm -f "$tree/$f"
done
for f in $(G diff --name-only --diff-filter=M base HEAD); do
	cmp -s "$KERNEL_SRC/$f" "$tree/$f" ||
		cp -al --remove-destination "$KERNEL_SRC/$f" "$tree/$f"
done

kmake() {
	make -s -C "$tree" O="$out" ARCH=x86_64 -j"$JOBS" "$@"
}
configure() {
	kmake tinyconfig > /dev/null &&
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$REPO/devtools/cross.config" "$REPO/devtools/each.config" \
		> /dev/null &&
	kmake olddefconfig > /dev/null
}
# warnings LOG: a build log's compiler and sparse findings, without line
# numbers, so that the base's and a patch's compare.
warnings() {
	grep -E '(warning|error):' "$1" |
		sed -E 's/^([^:]+):[0-9]+:([0-9]+:)? /\1: /' | sort -u
}

# The objects of the base's C files that the series change (the DRM
# core's, xe's and i915's fdinfo code): what the base gives for them is
# not counted against a patch.
CORE_OBJS=$("$REPO/devtools/stack.py" --repo "$TREE" list-changed |
	sed -n 's/\.c$/.o/p' | while read -r o; do
		[ -f "$KERNEL_SRC/${o%.o}.c" ] && echo "$o"
	done)
mkdir -p "$out"
frags="$REPO/devtools/cross.config $REPO/devtools/each.config"
# shellcheck disable=SC2086 # a list of files
if [ "$(cat $frags | md5sum)" != "$(cat "$out/.fragments" 2>/dev/null)" ]; then
	configure > "$log/config.log" 2>&1 || { cat "$log/config.log"; exit 1; }
	cat $frags | md5sum > "$out/.fragments"
fi
# shellcheck disable=SC2086 # a list of objects
kmake W=1 C=2 $CORE_OBJS drivers/gpu/drm/tests/ > "$log/base.log" 2>&1
warnings "$log/base.log" > "$W/base-warnings"

n=0 failed=0 at_tip=1

prev=base
for s in $(cd "$TREE/series" && ls -d [0-9]*/ | tr -d /); do
	for c in $(G rev-list --reverse "$prev..s/$s"); do
		n=$((n + 1))
		subj=$(G log -1 --format=%s "$c")
		name="$s: $subj"
		l="$log/$n.log"
		: > "$l"
		ok=1
		files=$(G diff --name-only "$c^" "$c")
		for f in $(G diff --name-only --diff-filter=D "$c^" "$c"); do
			rm -f "$tree/$f"
		done
		# shellcheck disable=SC2046 # a list of paths
		G checkout -q "$c" -- $(G diff --name-only --diff-filter=d \
			"$c^" "$c") 2>> "$l" || ok=0
		# EACH_FROM and EACH_TO (patch numbers, as printed) check a
		# range: earlier patches are applied unchecked, later ones not.
		[ "$n" -lt "${EACH_FROM:-1}" ] && continue
		if [ -n "${EACH_TO:-}" ] && [ "$n" -gt "$EACH_TO" ]; then
			n=$((n - 1))
			at_tip=
			break 2
		fi
		objs= dirs= tools= ksft= kconfig= uapi= checked= ku_simgpu= ku_core=
		ku_tests=
		if [ "$n" = "${EACH_FROM:-1}" ] && [ "$n" != 1 ]; then
			# what the unchecked patches changed: config, headers
			kconfig=1 uapi=1
		fi
		for f in $files; do
			case $f in
			*/Kconfig|*/Kconfig.*) kconfig=1 ;;
			esac
			case $f in
			include/uapi/*) uapi=1 ;;
			esac
			case $f in
			drivers/gpu/drm/simgpu/*.[ch]|drivers/gpu/drm/simgpu/*/*.[ch]|\
			drivers/gpu/drm/simgpu/Kconfig|drivers/gpu/drm/simgpu/.kunitconfig|\
			include/uapi/drm/simgpu_drm.h)
				ku_simgpu=1 ;;
			drivers/gpu/drm/drm_*.c|drivers/gpu/drm/tests/*|include/drm/*.h|\
			include/uapi/drm/drm.h)
				ku_core=1 ;;
			esac
			case $f in
			drivers/gpu/drm/tests/*|drivers/gpu/drm/simgpu/tests/*|\
			*/.kunitconfig)
				ku_tests=1 ;;
			esac
			case $f in
			tools/gpu/include/*)
				tools="$tools tools/gpu/simgpu-load tools/gpu/simgpu-perf" ;;
			tools/gpu/*)
				d=${f#tools/gpu/}
				tools="$tools tools/gpu/${d%%/*}" ;;
			tools/testing/selftests/drivers/gpu/simgpu/*)
				ksft=1 ;;
			drivers/*.c)
				objs="$objs ${f%.c}.o" ;;
			drivers/gpu/drm/simgpu/*|include/uapi/drm/simgpu_drm.h)
				dirs="$dirs drivers/gpu/drm/simgpu/" ;;
			drivers/gpu/drm/tests/*)
				dirs="$dirs drivers/gpu/drm/tests/" ;;
			include/drm/*.h|include/uapi/drm/*.h)
				# the base's objects the series changes, and simgpu
				objs="$objs $CORE_OBJS"
				dirs="$dirs drivers/gpu/drm/simgpu/" ;;
			esac
		done
		if [ -n "$kconfig" ]; then
			configure >> "$l" 2>&1 || ok=0
		fi
		if [ -n "$objs$dirs" ]; then
			checked="$checked W=1+sparse"
			# only what the config builds: a directory or object of
			# a driver not yet in Kconfig is skipped
			targets=
			for t in $objs $dirs; do
				case $t in
				drivers/gpu/drm/simgpu/*)
					grep -q '^CONFIG_DRM_SIMGPU=' "$out/.config" ||
						continue ;;
				esac
				case $t in
				*/tests/*.o|*/tests/)
					# built through their directory
					t=${t%/*.o}/; t=${t%//}/ ;;
				esac
				targets="$targets $t"
			done
			targets=$(echo $targets | tr ' ' '\n' | sort -u)
			# shellcheck disable=SC2086 # a list of targets
			if [ -n "$targets" ]; then
				kmake W=1 C=1 $targets >> "$l" 2>&1 || ok=0
				warnings "$l" | comm -23 - "$W/base-warnings" \
					> "$l.new"
				[ -s "$l.new" ] && ok=0
			fi
		fi
		if [ -n "$uapi$tools$ksft" ]; then
			kmake headers_install INSTALL_HDR_PATH="$hdr" >> "$l" 2>&1 ||
				ok=0
		fi
		for t in $(echo $tools | tr ' ' '\n' | sort -u); do
			[ -f "$tree/$t/Makefile" ] || continue
			checked="$checked $(basename "$t")"
			rm -rf "$W/tool"
			mkdir -p "$W/tool"
			make -s -C "$tree/$t" OUTPUT="$W/tool/" \
				MANDIR="$W/tool/man" \
				KHDR_INCLUDES="-isystem $hdr/include" \
				>> "$l" 2>&1 || ok=0
		done
		if [ -n "$ksft" ]; then
			checked="$checked selftests"
			make -s -C "$tree/tools/testing/selftests" \
				TARGETS=drivers/gpu/simgpu OUTPUT="$W/ksft" \
				KHDR_INCLUDES="-isystem $hdr/include" >> "$l" 2>&1 ||
				ok=0
		fi
		# KUnit: the suites of what the patch changes that exist at it
		globs=
		if [ "$EACH_KUNIT" != all ] && [ -z "$ku_tests" ]; then
			ku_simgpu= ku_core=
		fi
		if [ -n "$ku_simgpu" ] &&
		   [ -f "$tree/drivers/gpu/drm/simgpu/.kunitconfig" ]; then
			globs="simgpu*"
		fi
		if [ -n "$ku_core" ]; then
			for g in drm_syncobj drm_print drm_memory_stats; do
				grep -qs "\.name = \"$g\"" \
					"$tree"/drivers/gpu/drm/tests/*.c &&
					globs="$globs $g"
			done
		fi
		if [ -n "$globs" ]; then
			if kunit build --jobs="$JOBS" >> "$l" 2>&1; then
				ran=0
				for g in $globs; do
					kunit exec "$g" > "$l.kunit" 2>&1 || ok=0
					cat "$l.kunit" >> "$l"
					r=$(sed -nE 's/.*Ran ([0-9]+) tests.*/\1/p' \
						"$l.kunit" | tail -n 1)
					[ -n "$r" ] || ok=0
					ran=$((ran + ${r:-0}))
				done
				checked="$checked KUnit($ran cases:$globs)"
			else
				ok=0
				checked="$checked KUnit(build failed)"
			fi
		fi
		[ -n "$checked" ] || checked=" docs and checkpatch only"
		if [ $ok = 1 ]; then
			echo "ok $n - $name ($(echo $checked))"
		else
			failed=$((failed + 1))
			echo "not ok $n - $name ($(echo $checked))"
			[ -s "$l.new" ] && sed 's/^/    new: /' "$l.new"
			tail -n 30 "$l" | sed 's/^/    /'
		fi
	done
	prev=s/$s
done

# The tip's KUnit run for make check: every suite of KUNIT_GLOBS, in the
# build directory the per-patch runs keep warm.
if [ -n "${EACH_TIP_KUNIT:-}" ] && [ -n "$at_tip" ]; then
	rm -rf "$EACH_TIP_KUNIT"
	mkdir -p "$EACH_TIP_KUNIT"
	if kunit build --jobs="$JOBS" > "$EACH_TIP_KUNIT/build.log" 2>&1; then
		i=0
		set -f
		for g in $KUNIT_GLOBS; do
			i=$((i + 1))
			kunit exec --raw_output=all "$g" \
				> "$EACH_TIP_KUNIT/$i.log" 2>&1
			echo $? > "$EACH_TIP_KUNIT/$i.status"
		done
		set +f
	fi
fi
echo "series-each: $n patches, $failed failed"
[ $failed = 0 ]
