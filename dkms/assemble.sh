#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# assemble.sh REPO DEST: make DEST the DKMS source tree of simgpu, as
# /usr/src/simgpu-<version>/ holds it: the driver's directory
# (drivers/gpu/drm/simgpu/) and its uAPI header (include/uapi/drm/
# simgpu_drm.h) verbatim, and this directory's Kbuild, dkms.conf,
# compat header, probes and conftest.sh. Prints the version.
set -eu
repo=${1:?usage: assemble.sh REPO DEST}
dest=${2:?usage: assemble.sh REPO DEST}
here=$repo/dkms
version=$(cat "$here/VERSION")

rm -rf "$dest"
mkdir -p "$dest/include/uapi/drm"
cp -R "$repo/drivers/gpu/drm/simgpu/." "$dest/"
# The KUnit tests need a kernel built with them; a module for a stock
# kernel has no use for their sources.
rm -rf "$dest/tests" "$dest/.kunitconfig"
cp "$repo/include/uapi/drm/simgpu_drm.h" "$dest/include/uapi/drm/"
cp "$here/Kbuild" "$here/simgpu_compat.h" "$here/conftest.sh" "$dest/"
cp -R "$here/probes" "$dest/"
sed "s/@VERSION@/$version/" "$here/dkms.conf" > "$dest/dkms.conf"
# The copyright lines name the sender of the series (make series); a
# package names the project.
grep -rl '@COPYRIGHT@' "$dest" | xargs -r sed -i 's/@COPYRIGHT@/the simgpu developers/'
echo "$version"
