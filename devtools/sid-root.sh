#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# sid-root.sh DIR: make DIR, once, a root of Debian's unstable suite with
# what a user there installs to build simgpu's DKMS module: make,
# libc6-dev and linux-headers-amd64, whose headers are for the newest 7.2
# kernel (linux-headers-7.2.Z+debN-amd64) and bring its compiler (gcc-16)
# and kbuild tools. Those need unstable's glibc, so they run in that root
# and not on the Debian 12 host. Prints the headers' Debian version
# (7.2.13+deb14, say: the kernel release less its -amd64).
#
# dkms-check.sh builds the module there, and stock-kernel.sh downloads
# the 7.2 kernel image with the root's apt. The root is made with
# mmdebstrap from the machine's own Debian archive entry (its URI and
# keyring, devtools/debian-archive.sh) and apt options (a mirror that
# serves an expired Release file is accepted where the machine's apt
# accepts it). When unstable has moved past 7.2, this says so.
set -eu
root=${1:?usage: sid-root.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)

# ver: the Debian version of the 7.2 headers in the root, or nothing
ver() {
	ls "$root/usr/src" 2>/dev/null |
		sed -n 's/^linux-headers-\(7\.2\.[0-9]*+deb[0-9]*\)-amd64$/\1/p' |
		sort -V | tail -n 1
}

if [ -f "$root/.done" ]; then
	ver
	exit 0
fi

. "$here/debian-archive.sh"
if ! debian_archive; then
	echo "sid-root: this machine's apt sources name no Debian archive to take unstable from" >&2
	exit 1
fi
set --
for o in Acquire::Check-Valid-Until Acquire::Check-Date; do
	v=$(apt-config dump "$o" | sed -n "s/^$o \"\(.*\)\";$/\1/p")
	[ -z "$v" ] || set -- "$@" --aptopt="$o \"$v\""
done

rm -rf "$root"
mkdir -p "$root"
if ! mmdebstrap --quiet --variant=apt --mode=root \
	--include=make,libc6-dev,linux-headers-amd64 \
	--aptopt='Acquire::Languages "none"' "$@" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	unstable "$root" "deb [signed-by=$keyring] $uri unstable main" >&2; then
	echo "sid-root: mmdebstrap of $uri unstable failed" >&2
	exit 1
fi
v=$(ver)
if [ -z "$v" ]; then
	echo "sid-root: Debian's unstable suite has moved past 7.2: its linux-headers-amd64 brought $(ls "$root/usr/src" | grep -- '-amd64$' | tr '\n' ' ')" >&2
	exit 1
fi
touch "$root/.done"
echo "$v"
