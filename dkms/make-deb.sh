#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make-deb.sh REPO KSRC OUT: build simgpu's Debian packages in OUT:
#
#   simgpu-dkms_<version>_all.deb    the DKMS source tree (assemble.sh's)
#                                    in /usr/src/simgpu-<version>/
#   simgpu-tools_<version>_<arch>.deb  simgpu-load, simgpu-perf, drmtop,
#                                    drm-fdinfo-check and their man pages
#
# from the source package OUT/simgpu-<version>/ (and its .dsc), assembled
# here so that it builds on its own, with nothing of REPO or of the
# overlaid tree: dkms/debian/ as debian/, the DKMS tree in dkms/, the
# tools' directories in tools/gpu/, and from the base tree KSRC the uAPI
# headers that Debian 12's linux-libc-dev lacks (include/) and what the
# tools read of the kernel's tools/include (tools/include/). lintian
# checks the result; its errors fail the build.
set -eu
repo=${1:?usage: make-deb.sh REPO KSRC OUT}
ksrc=${2:?usage: make-deb.sh REPO KSRC OUT}
out=${3:?usage: make-deb.sh REPO KSRC OUT}
# Absolute: the headers are made in a directory of their own.
repo=$(cd "$repo" && pwd)
ksrc=$(cd "$ksrc" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(cat "$repo/dkms/VERSION")
src=$out/simgpu-$version

# The package's version is the DKMS one: /usr/src/simgpu-<version> and
# dkms.conf's PACKAGE_VERSION must be the same, and dh_dkms takes it from
# dkms.conf while the .deb takes it from the changelog.
chv=$(dpkg-parsechangelog -l "$repo/dkms/debian/changelog" -S Version)
if [ "$chv" != "$version" ]; then
	echo "deb: dkms/debian/changelog is at $chv, dkms/VERSION at $version: add an entry for $version (dch -c dkms/debian/changelog -v $version)" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$src/tools/gpu" "$src/tools/include" "$src/include/drm" \
	"$src/include/linux"
cp -R "$repo/dkms/debian" "$src/"
"$repo/dkms/assemble.sh" "$repo" "$src/dkms" > /dev/null

# The tools as in the repository, less what a build there left (make
# tools builds in place in drmtop/).
for d in include simgpu-load simgpu-perf drmtop; do
	cp -R "$repo/tools/gpu/$d" "$src/tools/gpu/"
done
for d in simgpu-load simgpu-perf drmtop; do
	make -s -C "$src/tools/gpu/$d" clean > /dev/null
done
# As in assemble.sh: a package names the project as the copyright holder.
grep -rl '@COPYRIGHT@' "$src/tools" | xargs -r sed -i 's/@COPYRIGHT@/the simgpu developers/'

# The uAPI headers as "make headers_install" installs them, by the base
# tree's own script (and unifdef, built for it): simgpu_drm.h, the
# drm.h it includes, the drm_mode.h that includes, and that one's
# linux/bits.h (Debian 12's linux-libc-dev has no drm/ and an older
# linux/ without bits.h).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simgpu-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts"
cp "$ksrc/scripts/headers_install.sh" "$tmp/scripts/"
${CC:-cc} -O2 -o "$tmp/scripts/unifdef" "$ksrc/scripts/unifdef.c"
hdr() {
	(cd "$tmp" && sh scripts/headers_install.sh "$1" "$src/include/$2")
}
hdr "$repo/include/uapi/drm/simgpu_drm.h" drm/simgpu_drm.h
sed -i 's/@COPYRIGHT@/the simgpu developers/' "$src/include/drm/simgpu_drm.h"
hdr "$ksrc/include/uapi/drm/drm.h" drm/drm.h
hdr "$ksrc/include/uapi/drm/drm_mode.h" drm/drm_mode.h
hdr "$ksrc/include/uapi/linux/bits.h" linux/bits.h

# Of the kernel's tools/include, the files that simgpu-load and
# simgpu-perf read when built as the top Makefile builds them (its
# linux/compiler.h, for __printf and __noreturn, and what that includes),
# as the compiler lists them.
for c in simgpu-load/simgpu-load.c simgpu-perf/simgpu-perf.c; do
	${CC:-cc} -M -std=gnu11 -isystem "$src/include" \
		-idirafter "$ksrc/tools/include" -I"$src/tools/gpu/include" \
		"$src/tools/gpu/$c"
done | tr ' \\' '\n\n' | sed -n "s|^$ksrc/tools/include/||p" | sort -u |
while read -r f; do
	mkdir -p "$src/tools/include/$(dirname "$f")"
	cp "$ksrc/tools/include/$f" "$src/tools/include/$f"
done
[ -f "$src/tools/include/linux/compiler.h" ]

# The binary packages and the source package (.dsc and .tar.xz: cheap),
# unsigned, in OUT.
(cd "$src" && dpkg-buildpackage -us -uc) > "$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log"
	echo "deb: dpkg-buildpackage failed; the whole log: $out/build.log" >&2
	exit 1
}
changes=$(ls "$out"/simgpu_"$version"_*.changes)
lintian --fail-on error --tag-display-limit 0 "$changes" \
	> "$out/lintian.log" 2>&1 || {
	cat "$out/lintian.log"
	echo "deb: lintian found errors" >&2
	exit 1
}
grep -v "root privileges" "$out/lintian.log" | sed "s/^/lintian: /" || true
for f in "$out"/*.deb; do
	echo "deb: $f"
done
