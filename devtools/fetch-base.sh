#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# fetch-base.sh PKG DIR: unpack Debian's kernel source package PKG
# (linux-source-X.Y) into DIR/PKG, from the first of:
#
# - /usr/src/PKG.tar.xz, where the package is installed;
# - apt-get download PKG with the machine's own apt configuration;
# - apt-get download PKG from Debian's unstable suite, through a temporary
#   sources entry made from the machine's own Debian archive entry (its
#   URI and keyring: no mirror is named here), in a private apt state
#   under DIR/apt, so that the machine's configuration is not changed.
#
# Unstable carries one kernel series at a time: when it has moved past
# PKG, this says so and how to build on a tree of one's own instead.
set -eu
pkg=${1:?usage: fetch-base.sh PKG DIR}
dir=${2:?usage: fetch-base.sh PKG DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
cd "$dir"

unpack() {
	rm -rf deb
	dpkg-deb -x "$1" deb
	tar -xf "deb/usr/src/$pkg.tar.xz"
	rm -rf deb "$1"
}

if [ -f "/usr/src/$pkg.tar.xz" ]; then
	echo "base: unpacking /usr/src/$pkg.tar.xz"
	tar -xf "/usr/src/$pkg.tar.xz"
	exit 0
fi

rm -f ./*.deb
if apt-get download "$pkg" > /dev/null 2>&1 ||
   { apt-get update -qq > /dev/null 2>&1 &&
     apt-get download "$pkg" > /dev/null 2>&1; }; then
	echo "base: apt-get download $pkg"
	unpack "${pkg}"_*.deb
	exit 0
fi

# The machine's Debian archive, its URI and keyring.
. "$here/debian-archive.sh"
if ! debian_archive; then
	echo "base: $pkg is not in this machine's apt sources, and they name no Debian archive to take unstable from." >&2
	echo "base: install $pkg or pass KERNEL_SRC=/path/to/linux" >&2
	exit 1
fi

apt=$dir/apt
rm -rf "$apt"
mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial"
cat > "$apt/parts/unstable.sources" <<EOF
Types: deb
URIs: $uri
Suites: unstable
Components: main
Signed-By: $keyring
EOF
set -- -o Dir::Etc::SourceList=/dev/null \
	-o Dir::Etc::SourceParts="$apt/parts" \
	-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
echo "base: apt-get download $pkg from $uri unstable"
if ! apt-get "$@" update -qq > "$apt/update.log" 2>&1; then
	cat "$apt/update.log" >&2
	echo "base: apt-get update of $uri unstable failed" >&2
	exit 1
fi
if ! apt-get "$@" download "$pkg" > "$apt/download.log" 2>&1; then
	now=$(apt-cache "$@" search --names-only '^linux-source-[0-9.]*$' |
		sed 's/ .*//' | sort -V | tail -n 1)
	echo "base: Debian's unstable suite has no $pkg${now:+ any more: it has moved on to $now}." >&2
	echo "base: the series is based on Linux ${pkg#linux-source-}: unpack a ${pkg#linux-source-}.y tree (kernel.org's linux-${pkg#linux-source-}.y.tar.xz) and pass it: make KERNEL_SRC=/path/to/linux-${pkg#linux-source-}.y ..." >&2
	exit 1
fi
rm -rf "$apt"
unpack "${pkg}"_*.deb
