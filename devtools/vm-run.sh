#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vm-run.sh KERNEL BINDIR CMD [BOOTARGS]
#
# Boot the UML kernel with the host's root filesystem (read-only hostfs),
# run CMD as root in the current directory with BINDIR first on PATH,
# stream its output and exit with its status. A kernel warning, BUG,
# KASAN, lockdep, UBSAN or kmemleak report during the run fails the run and
# is printed.
set -u
kernel=$1 bindir=$2 cmd=$3 bootargs=${4:-}

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
echo @@VM-START@@
sh $vmdir/cmd
rc=\$?
echo @@DMESG-BEGIN@@
dmesg
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
echo @@DMESG-END@@
echo "@@VM-EXIT@@ \$rc"
exec $bindir/vm-poweroff
EOI
chmod +x "$vmdir/init"

# The guest reads nothing: its console input is /dev/null.
"$kernel" mem=256M rootfstype=hostfs rootflags=/ ro init="$vmdir/init" \
	con0=fd:0,fd:1 con=null quiet $bootargs < /dev/null 2>&1 |
	awk -v dmesg="$vmdir/dmesg" -v status="$vmdir/status" '
	/^@@VM-START@@/ { on = 1; started = 1; next }
	/^@@DMESG-BEGIN@@/ { on = 0; dm = 1; next }
	/^@@DMESG-END@@/ { dm = 0; next }
	/^@@VM-EXIT@@/ { print $2 > status; next }
	dm { print > dmesg; next }
	on { print; fflush() }
	!on && !dm { pre = pre $0 "\n" }
	END { if (!started) printf "%s", pre }'

if [ ! -s "$vmdir/status" ]; then
	echo "vm-run: the guest did not finish (crash or panic?)" >&2
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
