#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# debian-root.sh SUITE DIR: make DIR, once, a root of Debian's SUITE with
# its package lists, for what the Debian 12 host cannot run: the headers
# of Debian 13's 6.12 and of Debian unstable's 7.2 are built with gcc-14
# and gcc-16, and their kbuild tools need their suite's glibc.
# dkms-check.sh builds simgpu's DKMS module in these roots,
# stock-kernel.sh downloads unstable's kernel image with its apt, and
# deb-install-check.sh installs the packages in an overlay of it:
#
# - trixie (Debian 13): make, libc6-dev, gcc-14, perl (W=1's kernel-doc)
#   and libelf; dkms-check.sh unpacks the headers of its 6.12 kernels
#   into it, as it does on the host for Debian 12's;
# - unstable: make, libc6-dev and linux-headers-amd64, what a user there
#   installs to build a module: the headers of the newest kernel, 7.2,
#   with their compiler.
#
# The root is made with mmdebstrap from the machine's own Debian archive
# entries (the main archive and, for a stable suite, its -updates and
# -security suites; their URIs and keyring, devtools/debian-archive.sh)
# and its apt options (a mirror that serves an expired Release file is
# accepted where the machine's apt accepts it). A root that exists (its
# .done) is left as it is. make check starts both at its beginning, in the
# background, and dkms-check.sh waits for them.
set -eu
suite=${1:?usage: debian-root.sh trixie|unstable DIR}
root=${2:?usage: debian-root.sh trixie|unstable DIR}
case $suite in
trixie) pkgs=make,libc6-dev,gcc-14,perl,libelf1t64 ;;
unstable) pkgs=make,libc6-dev,linux-headers-amd64 ;;
*) echo "usage: debian-root.sh trixie|unstable DIR" >&2; exit 2 ;;
esac
[ ! -f "$root/.done" ] || exit 0
here=$(cd "$(dirname "$0")" && pwd)

. "$here/debian-archive.sh"
if ! debian_archive; then
	echo "debian-root: this machine's apt sources name no Debian archive to take $suite from" >&2
	exit 1
fi
set -- "deb [signed-by=$keyring] $uri $suite main"
if [ "$suite" != unstable ]; then
	set -- "$@" "deb [signed-by=$keyring] $uri $suite-updates main"
	[ -z "$security_uri" ] ||
		set -- "$@" "deb [signed-by=$keyring] $security_uri $suite-security main"
fi
rm -rf "$root" "$root.apt.conf"
mkdir -p "$root"
for o in Acquire::Check-Valid-Until Acquire::Check-Date; do
	apt-config dump "$o" | grep "^$o " || :
done > "$root.apt.conf"

if ! mmdebstrap --quiet --variant=apt --mode=root --include="$pkgs" \
	--skip=cleanup/apt/lists --aptopt="$root.apt.conf" \
	--aptopt='Acquire::Languages "none"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	"$suite" "$root" "$@" >&2; then
	echo "debian-root: mmdebstrap of $uri $suite failed" >&2
	exit 1
fi
rm -f "$root.apt.conf"
touch "$root/.done"
