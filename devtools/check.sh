#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# check.sh: every test and static check of the project, run by "make check"
# (which exports REPO TREE BUILD SRC UML_OUT KUNIT_OUT BIN JOBS
# KERNEL_SRC VMLINUX BZIMAGE_DEBUG and has built both kernels and the tools).
#
# Each check prints "ok - NAME" or "not ok - NAME" (with the end of its log);
# test suites count one check per test case. The last line is
# "N passed, N failed"; the exit status is non-zero if anything failed.
set -u
LOG=$BUILD/check
rm -rf "$LOG"
mkdir -p "$LOG"
pass=0
fail=0
DRV=drivers/gpu/drm/simgpu
KERNEL_REPORTS='WARNING:|BUG[: ]|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|ODEBUG:|Oops|general protection|Call Trace'

ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() {
	fail=$((fail + 1))
	echo "not ok - $1"
	[ -z "${2:-}" ] || tail -n 40 "$2" | sed 's/^/    /'
}

# run NAME CMD...: one check, passes if CMD exits 0.
run() {
	local name=$1 log="$LOG/$1.log"
	shift
	if "$@" > "$log" 2>&1; then ok "$name"; else not_ok "$name" "$log"; fi
}

# tap NAME LOG: count the TAP lines "ok N - x" / "not ok N - x" of a log.
tap() {
	local name=$1 log=$2 p f
	p=$(grep -cE '^[[:space:]]*ok [0-9]+ ' "$log")
	f=$(grep -cE '^[[:space:]]*not ok [0-9]+ ' "$log")
	pass=$((pass + p))
	fail=$((fail + f))
	echo "$name: $p passed, $f failed"
	grep -E '^[[:space:]]*not ok [0-9]+ ' "$log" | sed 's/^/    /'
	if [ $((p + f)) = 0 ]; then
		not_ok "$name: ran no test" "$log"
	fi
}

# stage WHAT: a line with the minutes and seconds since the start, so that
# the log shows where make check's time goes.
stage() {
	printf -- '-- %d:%02d %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$1"
}

# empty NAME LOG: a static check passes when its log has no finding.
empty() {
	if [ -s "$2" ]; then not_ok "$1" "$2"; else ok "$1"; fi
}

cd "$TREE" || exit 1
srcs=$(git ls-files --cached --others --exclude-standard -- \
	"$DRV/*.c" "$DRV/*.h" include/uapi/drm/simgpu_drm.h)

# The roots of Debian 13 and unstable that dkms-check builds in
# (devtools/debian-root.sh), made in the background while the first,
# single-threaded, stages run: mmdebstrap waits mostly on dpkg.
(
	for r in trixie:trixie unstable:sid; do
		"$REPO/devtools/debian-root.sh" "${r%:*}" \
			"$REPO/.base/dkms/${r#*:}" || echo "$r: exit $?"
	done
) > "$LOG/debian-roots.log" 2>&1 &
roots=$!

stage "series: stack.py check, checkpatch"
# --- The patch series: series/ is the source; the new files in the
# repository are its stack's tip, each series applies onto the base with
# the series it depends on, and the counts and sizes hold.
run "series: the repository's files are the stack's tip, each series applies, large patches say why" \
	"$REPO/devtools/stack.py" --repo "$TREE" --base "$KERNEL_SRC" check
# The series as sent, signed with a marked identity (a series to send
# comes from "make series"), checkpatch-clean patch by patch.
TEST_SIGNOFF='simgpu make-check test identity <make-check@simgpu.invalid>'
if "$REPO/devtools/stack.py" --repo "$TREE" --base "$KERNEL_SRC" generate \
	--version "Linux $(make -s -C "$KERNEL_SRC" kernelversion)" \
	--out "$BUILD/series" --signoff "$TEST_SIGNOFF" \
	> "$LOG/series.log" 2>&1; then
	ok "series: signed, one directory a series, git am onto the base"
	for p in "$BUILD"/series/*/0*.patch; do
		case $p in */0000-*) continue ;; esac
		n=$(basename "$(dirname "$p")")/$(basename "$p")
		l=$LOG/checkpatch-${n%%/*}-$(basename "$p").log
		# FILE_PATH_CHANGES asks whether MAINTAINERS covers new
		# files; the check after this loop answers it for every file.
		# UNKNOWN_COMMIT_ID: the base tree is no git repository, in
		# which checkpatch could look up a Fixes: commit.
		(cd "$SRC" && ./scripts/checkpatch.pl --strict --quiet \
			--show-types --ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID \
			"$p") > "$l" 2>&1
		if grep -qE '^(ERROR|WARNING|CHECK):' "$l"; then
			not_ok "checkpatch --strict $n" "$l"
		else
			ok "checkpatch --strict $n"
		fi
	done
else
	not_ok "series: signed, one directory a series, git am onto the base" \
		"$LOG/series.log"
fi

stage "series-each"
# Every patch on its own: W=1 and sparse on the objects it touches, the
# tool it changes built and unit-tested (devtools/series-each.sh).
# After the last patch it runs the KUnit suites at the tip for the KUnit
# check below, in the build directory its per-patch runs keep warm.
EACH_TIP_KUNIT=$LOG/kunit-tip "$REPO/devtools/series-each.sh" \
	> "$LOG/series-each.log" 2>&1
status=$?
tap "each patch on its own" "$LOG/series-each.log"
[ $status = 0 ] || not_ok "series-each exit status $status" "$LOG/series-each.log"

stage "MAINTAINERS, docs"
# Every new file has a maintainer in the patched MAINTAINERS.
for f in $("$REPO/devtools/stack.py" --repo "$TREE" list-files); do
	# a DRM core test belongs to the core's list, a translation to its
	# language's maintainers, the rest to the sender
	case $f in
	drivers/gpu/drm/tests/*) want=dri-devel@lists.freedesktop.org ;;
	Documentation/translations/zh_CN/*) want=alexs@kernel.org ;;
	*) want=build-tree@simgpu.invalid ;;
	esac
	(cd "$SRC" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
		--norolestats -f "$f") | grep -q "$want" ||
		echo "$f: no MAINTAINERS entry"
done > "$LOG/maintainers.log" 2>&1
empty "MAINTAINERS covers every new file" "$LOG/maintainers.log"

# Every register name and module parameter is in the driver's page.
"$REPO/devtools/docs-drift.sh" "$TREE" > "$LOG/docs-drift.log" 2>&1
empty "simgpu.rst documents every register and module parameter" \
	"$LOG/docs-drift.log"

# The documentation: the kernel's htmldocs of the directories of every page
# the series adds or changes, where a warning or error the unmodified base
# tree does not give fails (the base's are listed, not counted), the uAPI
# rendered whole, documentation-file-ref-check and kernel-doc on our files
# (devtools/docs-check.sh).
docs_build() {
	if ! "$REPO/devtools/docs-check.sh" "$LOG"; then
		not_ok "docs: htmldocs of the base tree" "$LOG/docs-sphinx.log"
		return
	fi
	echo "docs: $(cat "$LOG/docs-time.log"); $(wc -l < "$LOG/docs-sphinx-base.log") warnings of the base tree not counted (docs-sphinx-base.log)"
	empty "htmldocs SPHINXDIRS=\"gpu translations/zh_CN\": no warning the base tree has not" \
		"$LOG/docs-sphinx.log"
	empty "docs: every uAPI struct and enum rendered in gpu/simgpu.html" \
		"$LOG/docs-uapi.log"
	empty "documentation-file-ref-check on the series' files" \
		"$LOG/docs-fileref.log"
	empty "kernel-doc -none -Wall on every C file and header the series adds" \
		"$LOG/docs-kerneldoc.log"
}
docs_build

stage "kernel-doc, sparse, W=1, cross builds, coccicheck"
# --- Static checks of the driver.
(cd "$SRC" && ./scripts/kernel-doc -none -Wall $srcs) > "$LOG/kernel-doc.log" 2>&1
empty "kernel-doc -none -Wall" "$LOG/kernel-doc.log"

make -s -C "$SRC" O="$UML_OUT" ARCH=um -j"$JOBS" C=2 W=1 "$DRV/" \
	> "$LOG/sparse-w1.raw" 2>&1
status=$?
grep -E 'warning:|error:' "$LOG/sparse-w1.raw" > "$LOG/sparse-w1.log"
[ $status = 0 ] || cat "$LOG/sparse-w1.raw" >> "$LOG/sparse-w1.log"
empty "sparse (C=2) and W=1 on $DRV" "$LOG/sparse-w1.log"

# The PMU only builds where there are perf events, which UML has not: the
# same checks of it in the x86_64 debug kernel's tree.
make -s -C "$SRC" O="${BZIMAGE_DEBUG%/arch/x86/boot/bzImage}" ARCH=x86_64 \
	-j"$JOBS" C=2 W=1 "$DRV/simgpu_pmu.o" > "$LOG/sparse-w1-pmu.raw" 2>&1
status=$?
grep -E 'warning:|error:' "$LOG/sparse-w1-pmu.raw" > "$LOG/sparse-w1-pmu.log"
[ $status = 0 ] || cat "$LOG/sparse-w1-pmu.raw" >> "$LOG/sparse-w1-pmu.log"
empty "sparse (C=2) and W=1 on $DRV/simgpu_pmu.c (x86_64)" \
	"$LOG/sparse-w1-pmu.log"

# Big endian and 32-bit with highmem, with Debian's cross compilers.
run "cross builds: s390x (big endian), i386 (highmem), W=1, no warning" \
	"$REPO/devtools/cross-check.sh"

# M= must be the real directory: a relative one is taken from O=, and
# spatch does not follow the symlinks of build/src.
make -s -C "$SRC" O="$UML_OUT" ARCH=um -j"$JOBS" coccicheck MODE=report \
	M="$TREE/$DRV" > "$LOG/coccicheck.raw" 2>&1
grep -E "^$TREE/$DRV/[^:]+:[0-9]+" "$LOG/coccicheck.raw" > "$LOG/coccicheck.log"
empty "coccicheck MODE=report on $DRV" "$LOG/coccicheck.log"

stage "dkms: the out-of-tree module for stock kernels"
wait $roots
# --- simgpu as DKMS builds it (dkms/), against Debian 12's and Debian
# 13's oldest and newest 6.12 headers, Debian unstable's 7.2 headers and
# our own kernel (devtools/dkms-check.sh).
"$REPO/devtools/dkms-check.sh" > "$LOG/dkms.log" 2>&1
tap "dkms: builds against stock headers" "$LOG/dkms.log"
grep '^dkms: built for' "$LOG/dkms.log"

# The Debian packages (make deb, dkms/make-deb.sh): built from their own
# source package, no lintian error, simgpu-dkms's /usr/src/ tree is the
# one just built above, and apt installs them in Debian unstable, where
# dkms builds the module for its 7.2 (devtools/deb-install-check.sh).
deb_check() {
	local d=$BUILD/deb-check v
	v=$(cat "$REPO/dkms/VERSION")
	if ! make -s -C "$REPO" deb > "$LOG/deb.log" 2>&1; then
		not_ok "deb: simgpu-dkms and simgpu-tools build, no lintian error" \
			"$LOG/deb.log"
		return
	fi
	ok "deb: simgpu-dkms and simgpu-tools build, no lintian error"
	rm -rf "$d"
	mkdir -p "$d"
	dpkg-deb -x "$BUILD/deb/simgpu-dkms_${v}_all.deb" "$d" \
		> "$LOG/deb-tree.log" 2>&1 ||
		echo "dpkg-deb -x simgpu-dkms_${v}_all.deb failed" >> "$LOG/deb-tree.log"
	diff -r "$BUILD/dkms/src" "$d/usr/src/simgpu-$v" >> "$LOG/deb-tree.log" 2>&1
	empty "deb: simgpu-dkms installs the DKMS tree in /usr/src/simgpu-$v" \
		"$LOG/deb-tree.log"
	# As a user installs them, where the stock kernel is unstable's 7.2:
	# in the root of unstable dkms-check built in, through an overlay.
	v=$(grep '^7\.' "$BUILD/dkms/stock" 2>/dev/null | tail -n 1)
	if [ -z "$v" ]; then
		not_ok "deb: apt install in Debian unstable: dkms-check built no module for its 7.2" \
			"$LOG/dkms.log"
		return
	fi
	"$REPO/devtools/deb-install-check.sh" "$REPO/.base/dkms/sid" "$v" \
		"$BUILD/deb" > "$LOG/deb-install.log" 2>&1
	tap "deb: apt install ./simgpu-*.deb in Debian unstable" \
		"$LOG/deb-install.log"
}
deb_check

stage "KUnit at the tip"
# --- KUnit at the tip, with KASAN, lockdep and DEBUG_OBJECTS: one boot a
# glob of KUNIT_GLOBS (kunit.py takes one), which series-each ran after the
# last patch (EACH_TIP_KUNIT above); kunit.log has every boot,
# kunit-parsed.log every result.
: > "$LOG/kunit.log"
: > "$LOG/kunit-parsed.log"
if [ -f "$LOG/kunit-tip/build.log" ]; then
	cp "$LOG/kunit-tip/build.log" "$LOG/kunit-build.log"
else
	echo "series-each did not reach the tip: see series-each.log" \
		> "$LOG/kunit-build.log"
fi
i=0
set -f
for glob in $KUNIT_GLOBS; do
	i=$((i + 1))
	if [ ! -f "$LOG/kunit-tip/$i.log" ]; then
		not_ok "kunit $glob: no result (the build failed)" \
			"$LOG/kunit-build.log"
		continue
	fi
	cp "$LOG/kunit-tip/$i.log" "$LOG/kunit-boot.log"
	status=$(cat "$LOG/kunit-tip/$i.status")
	cat "$LOG/kunit-boot.log" >> "$LOG/kunit.log"
	"$SRC/tools/testing/kunit/kunit.py" parse \
		< "$LOG/kunit-boot.log" > "$LOG/kunit-boot-parsed.log" 2>&1
	cat "$LOG/kunit-boot-parsed.log" >> "$LOG/kunit-parsed.log"
	summary=$(grep -E 'Ran [0-9]+ tests' "$LOG/kunit-boot-parsed.log" |
		  tail -n 1)
	if [ -z "$summary" ]; then
		not_ok "kunit $glob: no result (boot failed, exit $status)" \
			"$LOG/kunit-boot.log"
		continue
	fi
	p=$(sed -nE 's/.*passed: ([0-9]+).*/\1/p' <<< "$summary")
	f=$(sed -nE 's/.*failed: ([0-9]+).*/\1/p' <<< "$summary")
	c=$(sed -nE 's/.*crashed: ([0-9]+).*/\1/p' <<< "$summary")
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0} + ${c:-0}))
	echo "kunit $glob: $summary"
	grep -E '\[(FAILED|CRASHED)\]' "$LOG/kunit-boot-parsed.log" |
		sed 's/^/    /'
done
set +f
if grep -Eq "$KERNEL_REPORTS" "$LOG/kunit.log"; then
	grep -E -A20 "$KERNEL_REPORTS" "$LOG/kunit.log" > "$LOG/kunit-reports.log"
	not_ok "kunit: no kernel warning, lockdep, KASAN report" \
		"$LOG/kunit-reports.log"
else
	ok "kunit: no kernel warning, lockdep, KASAN report"
fi

stage "drmtop from its tarball"
# --- drmtop and drm-fdinfo-check, a project of their own outside the
# series (tools/gpu/drmtop/README.md): from its own tarball, without the
# kernel tree, built, host-tested, installed into a DESTDIR and
# uninstalled from it.
drmtop_standalone() {
	local d=$BUILD/drmtop-dist v
	v=$(cat "$REPO/tools/gpu/drmtop/VERSION")
	rm -rf "$d"
	mkdir -p "$d"
	if ! make -s -C "$REPO/tools/gpu/drmtop" dist DISTDIR="$d" \
		> "$LOG/drmtop-dist.log" 2>&1 ||
	   ! tar -C "$d" -xzf "$d/drmtop-$v.tar.gz" >> "$LOG/drmtop-dist.log" 2>&1; then
		not_ok "drmtop: make dist" "$LOG/drmtop-dist.log"
		return
	fi
	make -s -C "$d/drmtop-$v" check > "$LOG/host-drmtop.log" 2>&1
	status=$?
	tap "host tests of drmtop $v, from its tarball" "$LOG/host-drmtop.log"
	[ $status = 0 ] || not_ok "host tests of drmtop exit status $status" \
		"$LOG/host-drmtop.log"
	(
		make -s -C "$d/drmtop-$v" install DESTDIR="$d/root" PREFIX=/usr &&
		for f in bin/drmtop bin/drm-fdinfo-check \
			 share/man/man1/drmtop.1 share/man/man1/drm-fdinfo-check.1; do
			test -f "$d/root/usr/$f" || { echo "$f not installed"; exit 1; }
		done &&
		grep -q "drmtop $v" "$d/root/usr/share/man/man1/drmtop.1" &&
		[ "$("$d/root/usr/bin/drmtop" --version)" = "drmtop $v" ] &&
		[ "$("$d/root/usr/bin/drm-fdinfo-check" --version)" = \
		  "drm-fdinfo-check $v" ] &&
		make -s -C "$d/drmtop-$v" uninstall DESTDIR="$d/root" PREFIX=/usr &&
		[ -z "$(find "$d/root" -type f)" ]
	) > "$LOG/drmtop-install.log" 2>&1
	if [ $? = 0 ]; then
		ok "drmtop: make install DESTDIR= PREFIX=/usr, --version, make uninstall"
	else
		not_ok "drmtop: make install DESTDIR= PREFIX=/usr, --version, make uninstall" \
			"$LOG/drmtop-install.log"
	fi
}
drmtop_standalone

# --- Selftests in the VMs; vm-run fails on any kernel report.
# Skips that make check expects: the counter wrap test needs a 1 GHz clock
# (run on its own below); UML has no memory cgroups and no perf events,
# which the x86_64 kernel has for the memory test and the PMU test. Any
# other skip means simgpu, a tool or a kernel feature (kmemleak: both
# kernels have it) is missing, and fails.
KSFT_SKIPS_COMMON='needs simgpu\.refclk_hz='
KSFT_SKIPS_EXPECTED="$KSFT_SKIPS_COMMON|CONFIG_MEMCG not set|CONFIG_PERF_EVENTS not set"

# ksft NAME LOG: count the test cases of a kselftest runner's output: each
# program's "ok N name" lines, nested in it as "# ok N name". A program
# that fails without a failed case (a crash, a timeout, an exit status) is
# one failure more, and so is a skip not in KSFT_SKIPS_EXPECTED. The
# counts are left in ksft_pass and ksft_fail too.
ksft() {
	local name=$1 log=$2 p f s
	read -r p f s < <(tr -d '\r' < "$log" |
		awk -v expected="$KSFT_SKIPS_EXPECTED" -v out="$log.failed" '
		function bad(why) { fail++; print "    " why > out }
		/^# selftests: / { prog = $0; sub(/.*: /, "", prog); failed = 0; next }
		/^# ok [0-9]+ / {
			if (!/ # SKIP/) { pass++; next }
			why = $0
			sub(/.* # SKIP */, "", why)
			if (why ~ expected) { pass++; skip++ }
			else bad(prog ": " substr($0, 3))
			next
		}
		/^# not ok [0-9]+ / { failed = 1; bad(prog ": " substr($0, 3)); next }
		/^# 1\.\.0 # SKIP/ { bad(prog ": skipped: " substr($0, 15)); failed = 1; next }
		/^not ok [0-9]+ selftests: / { if (!failed) bad($0); next }
		END { print pass + 0, fail + 0, skip + 0 }')
	ksft_pass=$p ksft_fail=$f
	pass=$((pass + p))
	fail=$((fail + f))
	echo "$name: $p passed ($s of them skipped as expected), $f failed"
	cat "$log.failed" 2>/dev/null
	rm -f "$log.failed"
	if [ $((p + f)) = 0 ]; then
		not_ok "$name: ran no test" "$log"
	fi
}

# guest_checks STATUS LOG WHERE: from vm-run's exit status, a check that
# the guest reported no kernel warning, lockdep, KASAN, kmemleak (...)
# report, and one that vm-run loaded simgpu before the tests and unloaded
# it after them.
guest_checks() {
	if [ "$1" = 124 ] || [ "$1" = 125 ]; then
		not_ok "$3: no kernel warning, lockdep, KASAN, kmemleak report" \
			"$2"
	else
		ok "$3: no kernel warning, lockdep, KASAN, kmemleak report"
	fi
	if [ "$1" = 125 ] || [ "$1" = 126 ]; then
		not_ok "$3: simgpu module loads, and unloads after the tests" \
			"$2"
	else
		ok "$3: simgpu module loads, and unloads after the tests"
	fi
}

# vm_selftests KERNEL LOG WHERE: the selftests in a guest, through the
# kselftest runner, and the guest's checks.
vm_selftests() {
	local status
	"$REPO/devtools/vm-run.sh" "$1" "$BIN" \
		"sh $REPO/devtools/vm-selftests.sh $SRC" > "$LOG/$2" 2>&1
	status=$?
	ksft "selftests in $3" "$LOG/$2"
	guest_checks $status "$LOG/$2" "$3"
}

# drmtop_guest KERNEL LOG WHERE [SKIPS]: drmtop and drm-fdinfo-check
# against simgpu in a guest (tools/gpu/drmtop/tests/simgpu): their figures
# against the counters the tests read themselves, drmtop's engine header
# against the PMU where there are perf events, its cgroup records against
# loads in cgroups. A skip whose reason does not match the extended
# regular expression SKIPS fails (UML has no perf events, nothing else is
# missing in either guest).
drmtop_guest() {
	local status
	"$REPO/devtools/vm-run.sh" "$1" "$BIN" \
		"sh $REPO/tools/gpu/drmtop/tests/simgpu/run.sh" > "$LOG/$2" 2>&1
	status=$?
	tap "drmtop's simgpu tests in $3" "$LOG/$2"
	if grep '# SKIP' "$LOG/$2" | grep -Evq "${4:-^$}"; then
		not_ok "drmtop's simgpu tests in $3: no unexpected skip" "$LOG/$2"
	fi
	case $status in
	0) ;;
	124|125|126) not_ok "$3 (drmtop's tests): no kernel report, simgpu loads and unloads (exit $status)" "$LOG/$2" ;;
	*) not_ok "drmtop's simgpu tests in $3: exit status $status" "$LOG/$2" ;;
	esac
}

stage "selftests and drmtop in the UML VM"
vm_selftests "$VMLINUX" vm-selftests.log "the VM"
drmtop_guest "$VMLINUX" vm-drmtop.log "the VM" 'CONFIG_PERF_EVENTS not set'

stage "selftests and drmtop in the x86_64 debug guest"
# The same selftests on two CPUs: the x86_64 guest with the same debugging
# options (but UBSAN), which has memory cgroups and perf events. Each test
# runs in a process of its own, in an order shuffled with a new seed each
# run (SHUFFLE_SEED=n repeats one): a test that leaves work behind it, or
# needs another to have run first, fails where the runner's fixed order
# (the VM's run above) hides it. The seed is in the log.
KSFT_SKIPS_EXPECTED=$KSFT_SKIPS_COMMON
seed=${SHUFFLE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
"$REPO/devtools/vm-run.sh" "$BZIMAGE_DEBUG" "$BIN" \
	"sh $REPO/devtools/vm-shuffled.sh $seed '$KSFT_SKIPS_COMMON'" \
	> "$LOG/smp-selftests.log" 2>&1
status=$?
tap "selftests in the x86_64 debug guest with 2 CPUs, in a shuffled order (seed $seed)" \
	"$LOG/smp-selftests.log"
guest_checks $status "$LOG/smp-selftests.log" \
	"the x86_64 debug guest with 2 CPUs"
case $status in
0|124|125|126) ;;
*) not_ok "shuffled selftests in the x86_64 debug guest: exit status $status" \
	"$LOG/smp-selftests.log" ;;
esac
drmtop_guest "$BZIMAGE_DEBUG" smp-drmtop.log \
	"the x86_64 debug guest with 2 CPUs"

stage "perf's DRM PMU in the x86_64 debug guest"
# perf from the base tree reads every client's fdinfo with its own DRM
# PMU: a consumer of our keys that we did not write.
"$REPO/devtools/vm-run.sh" "$BZIMAGE_DEBUG" "$BIN" \
	"sh $REPO/devtools/perf-drm.sh $PERF" > "$LOG/perf-drm.log" 2>&1
status=$?
tap "perf's DRM PMU reads simgpu's load" "$LOG/perf-drm.log"
case $status in
0) ;;
124|125|126) not_ok "perf's DRM PMU run: no kernel report, simgpu loads and unloads (exit $status)" "$LOG/perf-drm.log" ;;
*) not_ok "perf's DRM PMU run: exit status $status" "$LOG/perf-drm.log" ;;
esac

stage "Debian's own kernels with simgpu's DKMS module"
# --- simgpu as a user gets it: Debian's own kernel images (Debian 12's
# 6.12, unstable's 7.2), booted in qemu (devtools/stock-kernel.sh) with
# the module dkms-check built for them, vgem loaded first. On the newest
# 6.12, every selftest through the kselftest runner, as in the UML guest;
# on the others, a user's first run (devtools/stock-smoke.sh). What a
# stock 6.12 kernel lacks changes three things: the fuzzer keeps syncobj
# counts true (a count the array does not have WARNs without series 01),
# each job fence holds the module until its release (6.12 calls a
# signalled fence's ops), and the driver has no sysfs unbind (6.12's
# perf_pmu_unregister() does not revoke open events, so the PMU must live
# as long as the module). Debian's kernels have no kmemleak either.
STOCK_WHY='the kernel lacks drm/syncobj: bound the handle counts of the array ioctls'
stock_kernels() {
	local vers v newest where log status report
	local skips=$KSFT_SKIPS_EXPECTED
	vers=$(cat "$BUILD/dkms/stock" 2>/dev/null)
	if [ -z "$vers" ]; then
		not_ok "stock kernels: dkms-check built no module for one" \
			"$LOG/dkms.log"
		return
	fi
	newest=$(echo "$vers" | grep '^6\.12\.' | tail -n 1)
	for v in $vers; do
		where="Debian's kernel ${v%%+*}"
		log=$LOG/stock-$v.log
		if [ "$v" != "$newest" ]; then
			"$REPO/devtools/stock-kernel.sh" "$v" \
				"$BUILD/dkms/$v/simgpu.ko" \
				"sh $REPO/devtools/stock-smoke.sh $PERF" \
				> "$log" 2>&1
			status=$?
			tap "a first run in $where" "$log"
			if grep -q '# SKIP' "$log"; then
				not_ok "a first run in $where: no skip" "$log"
			fi
			guest_checks $status "$log" "$where"
			continue
		fi
		"$REPO/devtools/stock-kernel.sh" "$v" "$BUILD/dkms/$v/simgpu.ko" \
			"FUZZ_NO_SYNCOBJ_COUNTS='$STOCK_WHY' SIMGPU_FENCES_HOLD_MODULE=1 sh $REPO/devtools/vm-selftests.sh $SRC" \
			> "$log" 2>&1
		status=$?
		KSFT_SKIPS_EXPECTED="$KSFT_SKIPS_COMMON|$STOCK_WHY|no /sys/bus/platform/drivers/simgpu/unbind|no /sys/kernel/debug/kmemleak"
		ksft "selftests in $where" "$log"
		KSFT_SKIPS_EXPECTED=$skips
		guest_checks $status "$log" "$where"
		case $status in
		124|125) report="a kernel report or no end" ;;
		*) report="no kernel report" ;;
		esac
		echo "stock kernel ${v%%+*}: $ksft_pass selftests passed, $ksft_fail failed, $report"
	done
}
stock_kernels

stage "the wrap test in the VM"
# The 32-bit CTX_TIMESTAMP wraps every 4.3 s at a 1 GHz reference clock:
# the harness runs the one test, which must not skip.
"$REPO/devtools/vm-run.sh" "$VMLINUX" "$BIN" "simgpu_fdinfo_test -t wrap" \
	"simgpu.refclk_hz=1000000000" > "$LOG/vm-wrap.log" 2>&1
status=$?
tap "fdinfo wrap test in the VM at 1 GHz" "$LOG/vm-wrap.log"
if grep -q '^ok [0-9]* .* # SKIP' "$LOG/vm-wrap.log"; then
	not_ok "fdinfo wrap test in the VM at 1 GHz was skipped" \
		"$LOG/vm-wrap.log"
fi
if [ $status = 124 ] || [ $status = 125 ] || [ $status = 126 ]; then
	not_ok "VM at 1 GHz: no kernel report, module unloads" "$LOG/vm-wrap.log"
elif [ $status != 0 ]; then
	not_ok "fdinfo wrap test in the VM at 1 GHz exit status $status" \
		"$LOG/vm-wrap.log"
fi

stage "done"
echo "logs in $LOG"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
