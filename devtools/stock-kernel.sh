#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# stock-kernel.sh VER KO CMD: boot Debian's own kernel VER (6.12.118+deb12,
# say: the image of linux-image-VER-amd64-unsigned, or 7.2.13+deb14 from
# unstable, as a user's machine runs it) in qemu with simgpu's out-of-tree module KO, built against
# VER's headers (devtools/dkms-check.sh), and run CMD there through
# vm-run.sh, whose exit status this is: the host's root, read-only, the
# stock DRM modules from the image, vgem loaded first, so that simgpu is
# the second DRM device as next to a real GPU, and any kernel report a
# failure.
#
# The stock kernel has 9p, the guests' root, as modules: a busybox-static
# initramfs loads them, mounts the root as vm-run.sh's command line says
# and hands over to vm-run's init. The image is downloaded once into
# .base/dkms/image-VER/ and unpacked there with that initramfs; the
# module directory the guest loads from, the image's modules hard-linked
# and KO among them in updates/, is made again for each run.
# Environment: REPO BUILD BIN, and vm-run.sh's.
set -eu
ver=${1:?usage: stock-kernel.sh VER KO CMD}
ko=${2:?usage: stock-kernel.sh VER KO CMD}
cmd=${3:?usage: stock-kernel.sh VER KO CMD}
rel=$ver-amd64
img=$REPO/.base/dkms/image-$ver

# The 9p client, in the order they depend on each other.
ROOT_MODULES="fs/netfs/netfs net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p"

initramfs() {
	local d=$img/initramfs m
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/lib" "$d/proc" "$d/dev" "$d/newroot"
	cp /bin/busybox "$d/bin/"
	# busybox's insmod takes no compressed module
	for m in $ROOT_MODULES; do
		xz -dc "$img/lib/modules/$rel/kernel/$m.ko.xz" \
			> "$d/lib/${m##*/}.ko"
	done
	cat > "$d/init" <<EOF
#!/bin/busybox sh
# The initramfs of devtools/stock-kernel.sh: the root over 9p, with the
# rootflags= of the command line, then init= from it.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs devtmpfs /dev
fail() { echo "initramfs: \$*"; poweroff -f; }
for m in $(for m in $ROOT_MODULES; do printf '%s ' "${m##*/}"; done); do
	insmod /lib/\$m.ko || fail "insmod \$m"
done
init= flags=
for a in \$(cat /proc/cmdline); do
	case \$a in
	rootflags=*) flags=\${a#rootflags=} ;;
	init=*) init=\${a#init=} ;;
	esac
done
mount -t 9p -o ro,\$flags /dev/root /newroot || fail "mount the root"
umount /dev
umount /proc
exec switch_root /newroot "\$init"
EOF
	chmod +x "$d/init"
	(cd "$d" && find . | cpio -o -H newc --quiet) | gzip -1 > "$img/initrd.gz"
	rm -rf "$d"
}

# download: the image's packages into $img/debs. Debian 12's kernels are
# in the machine's apt sources, one package. Unstable's 7.2 is downloaded
# with the apt of the root of unstable that dkms-check.sh made to build
# KO in (debian-root.sh), and is split in three: linux-binary (the
# image), linux-modules and linux-base (System.map, modules.builtin and
# modules.order), all under /usr/lib/modules/<release>/.
download() {
	local sid
	case $ver in
	7.*)
		sid=$REPO/.base/dkms/sid
		if [ ! -f "$sid/.done" ]; then
			echo "stock-kernel: no root of Debian unstable in $sid: make dkms-check makes it"
			return 1
		fi
		rm -rf "$sid/tmp/image"
		mkdir -p "$sid/tmp/image"
		chroot "$sid" sh -c "apt-get update -qq && cd /tmp/image &&
			apt-get download linux-binary-$rel linux-modules-$rel linux-base-$rel" &&
		mv "$sid"/tmp/image/*.deb "$img/debs/" &&
		rmdir "$sid/tmp/image"
		;;
	*)
		(cd "$img/debs" && apt-get download "linux-image-$rel-unsigned")
		;;
	esac
}

if [ ! -f "$img/.done" ]; then
	rm -rf "$img"
	mkdir -p "$img/debs"
	download > "$img/download.log" 2>&1 || {
		cat "$img/download.log" >&2
		exit 1
	}
	for d in "$img"/debs/*.deb; do
		dpkg-deb -x "$d" "$img"
	done
	if [ -d "$img/usr/lib/modules/$rel" ]; then
		mkdir -p "$img/lib/modules" "$img/boot"
		mv "$img/usr/lib/modules/$rel" "$img/lib/modules/"
		mv "$img/lib/modules/$rel/vmlinuz" "$img/boot/vmlinuz-$rel"
	fi
	rm -rf "$img/debs" "$img/usr"
	initramfs
	touch "$img/.done"
fi

mod=$BUILD/stock/$ver/mod
rm -rf "$mod"
mkdir -p "$mod/lib/modules/$rel/updates"
cp -al "$img/lib/modules/$rel/." "$mod/lib/modules/$rel/"
cp "$ko" "$mod/lib/modules/$rel/updates/"
depmod -b "$mod" "$rel"

VM_INITRD=$img/initrd.gz VM_MODDIR=$mod VM_PRELOAD=vgem \
	exec "$REPO/devtools/vm-run.sh" "$img/boot/vmlinuz-$rel" "$BIN" "$cmd"
