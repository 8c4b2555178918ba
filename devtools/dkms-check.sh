#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dkms-check.sh: build simgpu's DKMS source tree (dkms/assemble.sh) with
# the probes and the make command dkms.conf gives DKMS, with W=1 and
# -Werror, against
#
# - the headers of the oldest and the newest of Debian 12's 6.12 kernels
#   in the machine's apt sources (linux-headers-<ver>-amd64, its -common
#   and linux-kbuild packages, downloaded once into .base/dkms/ and
#   unpacked there, not installed), where the probes must find what
#   conftest.sh calls required and the compat header stands in for the
#   rest;
# - the headers of Debian 13's oldest and newest 6.12 kernels, unpacked
#   in a root of trixie (devtools/debian-root.sh, made once in
#   .base/dkms/trixie/) with its compiler, gcc-14;
# - the headers of the newest 7.2 kernel of Debian's unstable suite,
#   installed in a root of unstable (.base/dkms/sid/) with its compiler
#   and kbuild tools, as a user there installs them;
# - this tree's own x86_64 debug kernel ($BUILD/x86-debug, 7.2 with the
#   series), where every probe must succeed, so that the compat header
#   adds nothing.
#
# Prints TAP ("ok N - ...") and, last, "dkms: built for <versions>". The
# modules stay in $BUILD/dkms/<ver>/simgpu.ko, and the Debian versions
# they were built for in $BUILD/dkms/stock, oldest first, for the boots
# of the stock images (devtools/stock-kernel.sh).
# Environment: REPO BUILD.
set -u
dk=$REPO/.base/dkms
work=$BUILD/dkms
rm -rf "$work"
mkdir -p "$dk" "$work"
n=0 failed=0 built=
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	[ -z "${2:-}" ] || tail -n 30 "$2" | sed 's/^/    /'
}

# headers VER: the module build directory of Debian's VER (6.12.118+deb12,
# say), unpacked under $dk/VER once; its Makefile includes the -common
# one by its installed path, which is made to point into the unpacked tree.
headers() {
	local v=$1 root=$dk/$1 d
	if [ ! -f "$root/.done" ]; then
		rm -rf "$root"
		mkdir -p "$root/debs"
		(cd "$root/debs" && apt-get download "linux-headers-$v-amd64" \
			"linux-headers-$v-common" "linux-kbuild-$v") \
			> "$root/download.log" 2>&1 || return 1
		for d in "$root"/debs/*.deb; do
			dpkg-deb -x "$d" "$root" || return 1
		done
		rm -rf "$root/debs"
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root/usr/src/linux-headers-$v-amd64/Makefile"
		touch "$root/.done"
	fi
	echo "$root/usr/src/linux-headers-$v-amd64"
}

# on_host CMD, in_root CMD: run the shell command CMD on this machine, or
# in the Debian root $root (devtools/debian-root.sh) with $work at the
# same path and /proc (objtool reads its limits there), mounted in a
# mount namespace of its own so that nothing stays mounted.
on_host() { sh -c "$1"; }
in_root() {
	unshare --mount --propagation private sh -c '
		mount -t proc proc "$1/proc" && mkdir -p "$1$2" &&
		mount --bind "$2" "$1$2" && exec chroot "$1" sh -c "$3"' \
		sh "$root" "$work" "$1"
}
run=on_host root=

# build NAME KDIR [MAKE ARGS]: conftest.sh, then the module, in a copy of
# the DKMS source tree of its own, with $run. The probes' header is left
# in it.
build() {
	local name=$1 kdir=$2 dir=$work/$1
	shift 2
	cp -R "$work/src" "$dir"
	if ! $run "cd $dir && ./conftest.sh $kdir simgpu_compat_probes.h" \
		> "$work/$name-conftest.log" 2>&1; then
		not_ok "dkms: conftest.sh for $name" "$work/$name-conftest.log"
		return 1
	fi
	if $run "make -C $kdir M=$dir W=1 KCFLAGS=-Werror $* modules" \
		> "$work/$name-build.log" 2>&1 && [ -f "$dir/simgpu.ko" ]; then
		ok "dkms: simgpu.ko for $name, W=1, no warning"
	else
		not_ok "dkms: simgpu.ko for $name, W=1, no warning" \
			"$work/$name-build.log"
		return 1
	fi
}

"$REPO/dkms/assemble.sh" "$REPO" "$work/src" > /dev/null

# Debian 12's 6.12 kernels, oldest and newest.
vers=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
	sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12\)-amd64 .*/\1/p' |
	sort -V | sed -n '1p;$p' | uniq)
[ -n "$vers" ] || not_ok "dkms: Debian 12's 6.12 headers in the apt sources"
for v in $vers; do
	if ! kdir=$(headers "$v"); then
		not_ok "dkms: download $v's headers" "$dk/$v/download.log"
		continue
	fi
	# BTF for the module needs pahole, which linux-kbuild's users have
	# and this build does not need.
	build "$v" "$kdir" CONFIG_DEBUG_INFO_BTF_MODULES= || continue
	# The stock kernel lacks the series' fdinfo helpers and 7.2's APIs:
	# the compat header must stand in for them.
	if grep -q 'SIMGPU_HAVE_DRM_PRINT_KV_U64 0' \
		"$work/$v/simgpu_compat_probes.h"; then
		ok "dkms: the probes see that $v lacks the series' helpers"
	else
		not_ok "dkms: the probes see that $v lacks the series' helpers" \
			"$work/$v/simgpu_compat_probes.h"
	fi
	built="$built${built:+, }${v%+deb12}"
	echo "$v" >> "$work/stock"
done

# lacks_helpers VER: the probes of VER's build see no more missing than
# the series' two fdinfo helpers (7.2), or at least those (6.12).
lacks_helpers() {
	sed -n 's/^#define SIMGPU_HAVE_\(.*\) 0$/\1/p' \
		"$work/$1/simgpu_compat_probes.h" | tr '\n' ' '
}

# Debian 13's 6.12 kernels, oldest and newest of trixie and its -updates
# and -security suites, in a root of trixie: their headers are built with
# gcc-14 and their kbuild tools need trixie's glibc. The headers are
# unpacked into the root, as for Debian 12's on this machine.
root=$dk/trixie
if ! "$REPO/devtools/debian-root.sh" trixie "$root" \
	2> "$work/trixie-root.log"; then
	not_ok "dkms: a root of Debian 13" "$work/trixie-root.log"
else
	run=in_root
	for v in $(chroot "$root" apt-cache search --names-only \
		'^linux-headers-6\.12\.[0-9]+\+deb13-amd64$' |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb13\)-amd64 .*/\1/p' |
		sort -V | sed -n '1p;$p' | uniq); do
		if [ ! -f "$root/.headers-$v" ]; then
			rm -rf "$root/tmp/debs"
			mkdir -p "$root/tmp/debs"
			if ! chroot "$root" sh -c "cd /tmp/debs && apt-get download linux-headers-$v-amd64 linux-headers-$v-common linux-kbuild-$v" \
				> "$work/$v-download.log" 2>&1; then
				not_ok "dkms: download $v's headers" "$work/$v-download.log"
				continue
			fi
			for d in "$root"/tmp/debs/*.deb; do
				dpkg-deb -x "$d" "$root"
			done
			rm -rf "$root/tmp/debs"
			touch "$root/.headers-$v"
		fi
		build "$v" "/usr/src/linux-headers-$v-amd64" \
			CONFIG_DEBUG_INFO_BTF_MODULES= || continue
		case $(lacks_helpers "$v") in
		*"DRM_MEMORY_STATS_ADD DRM_PRINT_KV_U64 "*)
			ok "dkms: the probes see that $v lacks the series' helpers"
			built="$built${built:+, }$v" ;;
		*)
			not_ok "dkms: the probes see that $v lacks the series' helpers" \
				"$work/$v/simgpu_compat_probes.h" ;;
		esac
	done
	run=on_host
fi

# Debian unstable's 7.2 (the kernel release 7.2.Z+debN-amd64), in a root
# of unstable with what a user there installs to build the module:
# linux-headers-amd64 brings the headers and their compiler, gcc-16. 7.2
# has every API simgpu uses but the series' own fdinfo helpers. The 7.2
# image is booted with this module (stock-kernel.sh, which downloads it
# with the root's apt).
root=$dk/sid
if ! "$REPO/devtools/debian-root.sh" unstable "$root" \
	2> "$work/sid-root.log"; then
	not_ok "dkms: a root of Debian unstable" "$work/sid-root.log"
elif v=$(ls "$root/usr/src" |
	sed -n 's/^linux-headers-\(7\.2\.[0-9]*+deb[0-9]*\)-amd64$/\1/p' |
	sort -V | tail -n 1); [ -z "$v" ]; then
	not_ok "dkms: Debian unstable's linux-headers-amd64 is 7.2's: it has moved on to $(ls "$root/usr/src" | grep -- '-amd64$' | tr '\n' ' ')"
else
	run=in_root
	if build "$v" "/usr/src/linux-headers-$v-amd64"; then
		if [ "$(lacks_helpers "$v")" = "DRM_MEMORY_STATS_ADD DRM_PRINT_KV_U64 " ]; then
			ok "dkms: the probes see that $v has 7.2's APIs, not the series' helpers"
			built="$built${built:+, }${v%+deb*}"
			echo "$v" >> "$work/stock"
		else
			not_ok "dkms: the probes see that $v has 7.2's APIs, not the series' helpers" \
				"$work/$v/simgpu_compat_probes.h"
		fi
	fi
	run=on_host
fi

# This tree's kernel: every probe finds its API.
if build patched "$BUILD/x86-debug"; then
	if grep -q ' 0$' "$work/patched/simgpu_compat_probes.h"; then
		not_ok "dkms: every probe succeeds on the patched kernel" \
			"$work/patched/simgpu_compat_probes.h"
	else
		ok "dkms: every probe succeeds on the patched kernel"
		built="$built${built:+, }$(cat "$BUILD/x86-debug/include/config/kernel.release") (patched)"
	fi
fi
echo "dkms: built for $built"
[ "$failed" = 0 ]
