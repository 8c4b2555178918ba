#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# docs-check.sh LOGDIR: the documentation checks of "make check" (which
# exports REPO BUILD SRC KERNEL_SRC JOBS). Each check writes its findings
# to a log of LOGDIR, empty when it passes:
#
#   docs-sphinx.log    "make htmldocs SPHINXDIRS=$DOCS_DIRS" of the overlaid
#                      tree: its failure, or each warning or error that the
#                      same build of the unmodified base tree does not give
#                      (those are listed in docs-sphinx-base.log, not counted)
#   docs-uapi.log      each struct and enum of the uAPI header missing from
#                      the rendered simgpu page
#   docs-fileref.log   documentation-file-ref-check on our files
#   docs-kerneldoc.log scripts/kernel-doc -none -Wall on every C file and
#                      header the series adds
#
# The base tree's warnings depend only on the base and on Sphinx: they are
# kept in $BUILD/docs-base and rebuilt when either changes.
set -u
LOG=$1
DOCS_DIRS=${DOCS_DIRS:-gpu translations/zh_CN}
UAPI=include/uapi/drm/simgpu_drm.h
# Sphinx shares the machine: two jobs at most.
SPHINX_JOBS=$(( ${JOBS:-2} < 2 ? ${JOBS:-2} : 2 ))
export PYTHONDONTWRITEBYTECODE=1

# htmldocs TREE OUT LOG: a fresh build of DOCS_DIRS of TREE into OUT.
# Writes nothing into TREE (O=, no Python bytecode).
htmldocs() {
	rm -rf "$2"
	mkdir -p "$2"
	make -C "$1" O="$2" htmldocs SPHINXDIRS="$DOCS_DIRS" \
		SPHINXOPTS="-j$SPHINX_JOBS" > "$3" 2>&1
}

# findings TREE LOG: the warnings and errors of a build log, one a line,
# as "file: message" without TREE's path (as given, or with its symlinks
# resolved, as Sphinx prints it) and line numbers, so that a base warning
# is recognised in a file our patches moved.
findings() {
	local real

	real=$(cd "$1" && pwd -P)
	grep -E 'WARNING|ERROR|CRITICAL|SEVERE|warning:|error:' "$2" |
		sed -E "s|$1/||g; s|$real/||g; s|:[0-9]+:|:|g" | sort -u
}

if ! command -v sphinx-build > /dev/null; then
	echo "sphinx-build not found: make deps installs python3-sphinx" \
		> "$LOG/docs-sphinx.log"
	exit 1
fi

# --- The base tree's warnings, once per base and Sphinx version.
base_dir=$BUILD/docs-base
stamp="$KERNEL_SRC $(sphinx-build --version 2>&1) $DOCS_DIRS"
if [ "$(cat "$base_dir/stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$base_dir"
	mkdir -p "$base_dir"
	if ! htmldocs "$KERNEL_SRC" "$base_dir/out" "$base_dir/build.log"; then
		{ echo "htmldocs of the base tree $KERNEL_SRC failed:"
		  tail -n 20 "$base_dir/build.log"; } > "$LOG/docs-sphinx.log"
		exit 1
	fi
	rm -rf "$base_dir/out"
	echo "$stamp" > "$base_dir/stamp"
fi
# From the kept log each time, so that a change to findings() holds for it.
findings "$KERNEL_SRC" "$base_dir/build.log" > "$base_dir/warnings"

# --- The overlaid tree: a fresh build, so that every warning is printed.
out=$BUILD/docs-check
start=$(date +%s)
htmldocs "$SRC" "$out" "$LOG/docs-htmldocs.log"
status=$?
echo "htmldocs SPHINXDIRS=\"$DOCS_DIRS\" -j$SPHINX_JOBS: $(( $(date +%s) - start )) s, exit $status" \
	> "$LOG/docs-time.log"
findings "$SRC" "$LOG/docs-htmldocs.log" > "$LOG/docs-findings"
comm -12 "$LOG/docs-findings" "$base_dir/warnings" > "$LOG/docs-sphinx-base.log"
comm -23 "$LOG/docs-findings" "$base_dir/warnings" > "$LOG/docs-sphinx.log"
rm -f "$LOG/docs-findings"
if [ $status != 0 ]; then
	{ echo "make htmldocs failed ($status):"
	  tail -n 20 "$LOG/docs-htmldocs.log"; } >> "$LOG/docs-sphinx.log"
fi

# --- Every struct and enum of the uAPI is rendered in simgpu's page.
page=$out/Documentation/output/gpu/simgpu.html
for t in $(sed -nE 's/^(struct|enum) (drm_simgpu_[a-z0-9_]+) \{.*/\2/p' \
		"$SRC/$UAPI"); do
	grep -q "id=\"c\.$t\"" "$page" 2>/dev/null ||
		echo "$UAPI: $t is not rendered in gpu/simgpu.html"
done > "$LOG/docs-uapi.log"

# --- documentation-file-ref-check, on the files the series adds (the base
# has broken references in the upstream files our patches change, such as
# MAINTAINERS). It greps the files git tracks: a hard-linked copy of the
# tree (for the paths it checks) whose git index holds our files, as
# copies. In a man page a hyphen is written "\-", which the checker
# takes for the end of a path: those copies have plain hyphens.
added=$("$REPO/devtools/stack.py" --repo "$TREE" list-files)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cp -al "$SRC/." "$tree/"
(
	cd "$tree" || exit 1
	for f in $added; do
		cp --remove-destination "$(readlink -f "$f")" "$f"
		case $f in
		*.[1-9]) sed -i 's/\\-/-/g' "$f" ;;
		esac
	done
	git init -q . && git add -f -- $added &&
		./tools/docs/documentation-file-ref-check --warn
) > "$LOG/docs-fileref.raw" 2>&1
grep -vE "^(Warning: can't check|Finding |$)" "$LOG/docs-fileref.raw" \
	> "$LOG/docs-fileref.log"

# --- kernel-doc on every C file and header the series adds.
(cd "$SRC" && ./scripts/kernel-doc -none -Wall \
	$(printf '%s\n' $added | grep -E '^(drivers|include)/.*\.[ch]$')) \
	> "$LOG/docs-kerneldoc.log" 2>&1
exit 0
