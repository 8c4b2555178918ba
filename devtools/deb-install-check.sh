#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# deb-install-check.sh ROOT VER DEBDIR: install simgpu-dkms and
# simgpu-tools from DEBDIR with apt, as the README tells a user, in the
# root of Debian unstable ROOT (devtools/debian-root.sh), whose headers are
# those of Debian's kernel VER (7.2.13+deb14, say): dkms, which apt
# brings, must build and install simgpu for VER-amd64, and the tools run
# there. ROOT is not changed: the install goes to an overlay of it, in a
# mount namespace of its own, under $BUILD/deb-install/. Prints TAP.
# Environment: BUILD.
set -u
root=${1:?usage: deb-install-check.sh ROOT VER DEBDIR}
ver=${2:?usage: deb-install-check.sh ROOT VER DEBDIR}
debs=${3:?usage: deb-install-check.sh ROOT VER DEBDIR}
rel=$ver-amd64
w=$BUILD/deb-install
n=0 status=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	status=1
	echo "not ok $n - $1"
	[ -z "${2:-}" ] || tail -n 30 "$2" | sed 's/^/    /'
}

rm -rf "$w"
mkdir -p "$w/upper" "$w/work" "$w/root" "$w/debs"
cp "$debs"/simgpu-dkms_*_all.deb "$debs"/simgpu-tools_*_amd64.deb "$w/debs/"
unshare --mount --propagation private sh -c '
	w=$1 root=$2
	mount -t overlay overlay \
		-o "lowerdir=$root,upperdir=$w/upper,workdir=$w/work" "$w/root" &&
	mount -t proc proc "$w/root/proc" &&
	mkdir -p "$w/root/tmp/debs" &&
	mount --bind "$w/debs" "$w/root/tmp/debs" &&
	exec chroot "$w/root" sh -c "
		apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends /tmp/debs/*.deb"' \
	sh "$w" "$root" > "$w/install.log" 2>&1
apt=$?
ko=$w/upper/usr/lib/modules/$rel/updates/dkms/simgpu.ko
if [ $apt = 0 ] && grep -q "^Installing /lib/modules/$rel/updates/dkms/simgpu.ko" \
	"$w/install.log"; then
	ok "apt install ./simgpu-dkms_*.deb: dkms builds and installs simgpu for $rel"
else
	not_ok "apt install ./simgpu-dkms_*.deb: dkms builds and installs simgpu for $rel (apt: $apt)" \
		"$w/install.log"
fi
magic=$(modinfo -F vermagic "$ko" 2>&1)
case $magic in
"$rel "*) ok "the installed simgpu.ko is for $rel ($magic)" ;;
*) not_ok "the installed simgpu.ko is for $rel ($magic)" ;;
esac
# the tools, with unstable's libraries
unshare --mount --propagation private sh -c '
	mount -t overlay overlay \
		-o "lowerdir=$2,upperdir=$1/upper,workdir=$1/work" "$1/root" &&
	exec chroot "$1/root" sh -c "
		drmtop --version && simgpu-load --help && simgpu-perf --help &&
		drm-fdinfo-check --help"' \
	sh "$w" "$root" > "$w/tools.log" 2>&1
t=$?
if [ $t = 0 ]; then
	ok "simgpu-tools: drmtop, simgpu-load, simgpu-perf, drm-fdinfo-check run there"
else
	not_ok "simgpu-tools: drmtop, simgpu-load, simgpu-perf, drm-fdinfo-check run there (exit $t)" \
		"$w/tools.log"
fi
exit $status
