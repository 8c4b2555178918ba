#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vm-run.sh KERNEL BINDIR CMD [BOOTARGS]
#
# Boot KERNEL with the host's root filesystem, read-only: a UML kernel over
# hostfs, or an x86_64 bzImage (build/x86 for the benchmarks,
# build/x86-debug for the selftests) in qemu-system-x86_64 over 9p. Run CMD
# as root in the current directory with BINDIR first on PATH, stream its
# output and exit with its status. A kernel warning, BUG, KASAN, lockdep,
# UBSAN or kmemleak report during the run fails the run (status 124) and
# is printed; a guest that does not finish fails it with status 125.
#
# When simgpu is a module (installed in mod/ of KERNEL's build directory:
# the directory of a UML kernel, three above arch/x86/boot/bzImage), it
# is loaded before CMD, with the simgpu.* options of BOOTARGS, and
# unloaded after it; a failed load or unload fails the run (status 126).
#
# A stock kernel (Debian's vmlinuz-<version>, devtools/stock-kernel.sh)
# boots in qemu too, with VM_INITRD, the initramfs that mounts the root
# with its modules, and VM_MODDIR, the directory whose lib/modules holds
# its modules and simgpu's; VM_PRELOAD names modules loaded before simgpu
# (vgem, so that simgpu is the second DRM device).
#
# Environment: VM_TIMEOUT (seconds, 3600) bounds a run; the x86_64 guest
# takes QEMU_SMP (vCPUs, 2), QEMU_MEM (1G), QEMU_ACCEL (tcg,thread=multi:
# one host thread per vCPU; kvm where it works), QEMU_CPU (max) and QEMU
# (qemu-system-x86_64).
set -u
kernel=$1 bindir=$2 cmd=$3 bootargs=${4:-}
case $kernel in
*/arch/x86/boot/bzImage)
	moddir=$(cd "${kernel%/arch/x86/boot/bzImage}" && pwd)/mod ;;
*/vmlinuz-*) moddir= ;;
*) moddir=$(cd "$(dirname "$kernel")" && pwd)/mod ;;
esac
moddir=${VM_MODDIR:-$moddir}
[ -n "$moddir" ] && [ -d "$moddir/lib/modules" ] || moddir=
preload=${VM_PRELOAD:-}

# Not under /tmp: the guest mounts a tmpfs there.
mkdir -p "$bindir/../vm"
vmdir=$(mktemp -d "$(cd "$bindir/../vm" && pwd)/run.XXXXXX")
repo=$(cd "$bindir/../.." && pwd)
trap 'rm -rf "$vmdir"' EXIT INT TERM
printf '%s\n' "$cmd" > "$vmdir/cmd"
cat > "$vmdir/init" <<EOI
#!/bin/sh
export PATH=$bindir:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /run
# A writable /tmp, but the repository and the working directory may live
# under the host's /tmp (a CI clone does): keep those visible.
mkdir /run/host-tmp
mount --bind /tmp /run/host-tmp
mount -t tmpfs tmpfs /tmp
for d in "$repo" "$(pwd)"; do
	case \$d in
	/tmp/*)
		mkdir -p "\$d"
		mount --bind "/run/host-tmp/\${d#/tmp/}" "\$d"
		;;
	esac
done
cd "$(pwd)"
# Every modprobe of the guest, a test's that loads simgpu again included,
# finds the modules in moddir (the root has no /lib/modules of the guest's
# kernel, and is read-only).
[ -z "$moddir" ] || export MODPROBE_OPTIONS="-d $moddir"
# modprobe takes the module's options from the kernel command line. A
# failed load skips the command, not the kernel report below.
rc=126
loaded=1
for m in $preload; do
	modprobe -d "$moddir" \$m || loaded=
done
if [ -n "\$loaded" ] && { [ -z "$moddir" ] || modprobe -d "$moddir" simgpu; }; then
	echo @@VM-START@@
	sh $vmdir/cmd
	rc=\$?
fi
if [ -n "$moddir" ] && grep -q '^simgpu ' /proc/modules; then
	# Processes the command left behind may still hold a simgpu fd.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmmod simgpu 2>/dev/null && break
		sleep 1
	done
	if grep -q '^simgpu ' /proc/modules; then
		echo "vm-run: rmmod simgpu failed"
		rmmod simgpu
		rc=126
	fi
fi
echo @@DMESG-BEGIN@@
dmesg
if [ -w /sys/kernel/debug/kmemleak ]; then
	# kmemleak only reports objects older than 5 s: the unload's too.
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
echo @@DMESG-END@@
echo "@@VM-EXIT@@ \$rc"
exec $bindir/vm-poweroff
EOI
chmod +x "$vmdir/init"

# The boot command, as the positional parameters.
case $kernel in
*bzImage|*/vmlinuz-*)
	# The root is the host's /; remap keeps the inode numbers of its
	# several filesystems apart. cache=loose: the guest may cache it
	# all, the host does not change it during a run. The guest powers
	# off by ACPI; if it panics it reboots at once, and -no-reboot makes
	# that an exit too.
	fsdev=local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose
	# acpi=noirq: PCI interrupts routed by the BIOS's $PIR table. The
	# ACPI route, the DSDT's _PRT method, is a loop that in the KASAN
	# and kmemleak kernel under TCG runs longer than the 30 s ACPICA
	# allows a loop (AE_AML_LOOP_TIMEOUT), which left virtio-9p, the
	# root, without an interrupt.
	# no5lvl: four-level paging, although qemu's "-cpu max" offers
	# five. identify_cpu() clears boot_cpu_data's capabilities before it
	# reads them again, and generic KASAN takes the bounds of its shadow
	# from the LA57 capability: an interrupt in that window that takes
	# a lock in the five-level direct map is reported as a
	# wild-memory-access (BUG in do_raw_spin_lock, under identify_cpu,
	# at 0.005 s). Known upstream since 7.1-rc5 ("kasan: Fix
	# false-positive wild-memory-access on x86 under 5-level paging"),
	# still in 7.2.13; one debug-guest boot in a few dozen.
	append="root=/dev/root rootfstype=9p rootflags=$rootflags ro"
	append="$append console=ttyS0 panic=-1 acpi=noirq init=$vmdir/init"
	append="$append no5lvl quiet $bootargs"
	set -- "${QEMU:-qemu-system-x86_64}" -nographic -nodefaults \
		-serial stdio -no-reboot \
		-accel "${QEMU_ACCEL:-tcg,thread=multi}" \
		-cpu "${QEMU_CPU:-max}" -smp "${QEMU_SMP:-2}" \
		-m "${QEMU_MEM:-1G}" -fsdev "$fsdev" \
		-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
		-kernel "$kernel" -append "$append"
	[ -z "${VM_INITRD:-}" ] || set -- "$@" -initrd "$VM_INITRD"
	;;
*)
	set -- "$kernel" mem=256M rootfstype=hostfs rootflags=/ ro \
		init="$vmdir/init" con0=fd:0,fd:1 con=null quiet $bootargs
	;;
esac

# The guest reads nothing: its console input is /dev/null. The consoles end
# lines with \r\n; qemu's firmware ends its output with escape sequences and
# no newline, so the start marker need not begin its line.
# A hung guest (an unload that never ends, say) is killed after VM_TIMEOUT
# seconds, 3600 by default, and reported as not finished.
timeout -s KILL "${VM_TIMEOUT:-3600}" "$@" < /dev/null 2>&1 |
	awk -v dmesg="$vmdir/dmesg" -v status="$vmdir/status" '
	/@@VM-START@@/ { on = 1; started = 1; next }
	/^@@DMESG-BEGIN@@/ { on = 0; dm = 1; next }
	/^@@DMESG-END@@/ { dm = 0; next }
	/^@@VM-EXIT@@/ { sub(/\r$/, ""); print $2 > status; next }
	dm { print > dmesg; next }
	on { print; fflush() }
	!on && !dm { pre = pre $0 "\n" }
	END { if (!started) printf "%s", pre }'

if [ ! -s "$vmdir/status" ]; then
	echo "vm-run: the guest did not finish (crash, panic or VM_TIMEOUT?)" >&2
	[ -f "$vmdir/dmesg" ] && cat "$vmdir/dmesg" >&2
	exit 125
fi
rc=$(cat "$vmdir/status")

pattern='WARNING:|BUG[: ]|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|unreferenced object|ODEBUG:|Oops|general protection|INFO: task .* blocked|Call Trace'
if grep -Eq "$pattern" "$vmdir/dmesg" 2>/dev/null; then
	echo "vm-run: kernel reported a problem during the run:" >&2
	grep -E -A25 "$pattern" "$vmdir/dmesg" | head -200 >&2
	exit 124
fi
exit "$rc"
