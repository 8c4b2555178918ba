#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# perf-drm.sh PERF: in the x86_64 guest, perf's own DRM PMU (PERF, built
# from the base tree: tools/perf/util/drm_pmu.c, which makes events of the
# fdinfo keys of every DRM client) reads simgpu's known load right. A
# 50 % load on rcs0 must read 50 % within one point:
#
# - drm-cycles-rcs over drm-total-cycles-rcs, in every interval of
#   "perf stat -p <client> -I 1000";
# - drm-engine-rcs (ns) over the time between the first and last interval;
# - and, beside it, simgpu's own PMU (engine-active-ticks over
#   engine-total-ticks of rcs0, "perf stat -a -I 1000"), in every interval.
#
# perf prints the DRM PMU's counts as running totals in -I mode: an
# interval's count is the difference of two lines. TAP output; exit 0 if
# every check passed.
set -u
perf=${1:?usage: perf-drm.sh PERF}
want=50
tol=1
secs=6
dir=$(mktemp -d)
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	[ -z "${2:-}" ] || sed 's/^/# /' "$2"
}

pmu=$(basename "$(ls -d /sys/bus/event_source/devices/simgpu_* 2>/dev/null |
	head -n 1)")
if [ -z "$pmu" ] || [ ! -x "$perf" ]; then
	echo "1..0 # SKIP no simgpu PMU or no perf ($perf)"
	exit 4
fi

simgpu-load --class rcs --duty $want --seconds $((secs + 30)) \
	> "$dir/clients" 2> "$dir/load.err" &
load=$!
i=0
while [ ! -s "$dir/clients" ] && kill -0 $load 2> /dev/null &&
      [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
set -- $(head -n 1 "$dir/clients")
client=${2:-}
if [ -z "$client" ]; then
	not_ok "simgpu-load started a client" "$dir/load.err"
	echo "1..$n"
	exit 1
fi
# The load's first second is not counted: it starts on an idle engine.
sleep 1

events=$("$perf" list --raw-dump drm- 2>/dev/null | tr ' ' '\n' |
	grep -E '(^|/)drm-(cycles|total-cycles|engine)-rcs/?$' | tr '\n' ' ')
echo "# perf's DRM events of rcs: $events"
ev() { echo "$events" | tr ' ' '\n' | grep -E "(^|/)$1/?\$" | head -n 1; }
cyc=$(ev drm-cycles-rcs)
tot=$(ev drm-total-cycles-rcs)
eng=$(ev drm-engine-rcs)
if [ -z "$cyc" ] || [ -z "$tot" ] || [ -z "$eng" ]; then
	echo "$events" > "$dir/events"
	not_ok "perf lists drm-cycles-rcs, drm-total-cycles-rcs, drm-engine-rcs" \
		"$dir/events"
	kill $load 2> /dev/null
	wait
	echo "1..$n"
	exit 1
fi
ok "perf lists drm-cycles-rcs, drm-total-cycles-rcs, drm-engine-rcs"

active="$pmu/engine-active-ticks,engine_class=0,engine_instance=0/"
total="$pmu/engine-total-ticks,engine_class=0,engine_instance=0/"
"$perf" stat -p "$client" -I 1000 -x ';' -e "$cyc,$tot,$eng" \
	-- sleep $secs > "$dir/drm.csv" 2>&1 &
drm=$!
"$perf" stat -a -I 1000 -x ';' -e "{$active,$total}" \
	-- sleep $secs > "$dir/pmu.csv" 2>&1
wait $drm
kill $load 2> /dev/null
# simgpu-load exits 0 on SIGTERM
wait $load

# ratios CSV A B TOTALS: per interval of at least half a second, 100 *
# (A's count) / (B's count), where A and B are running totals (TOTALS 1,
# drm: the difference from the interval before) or counts per interval
# (TOTALS 0, pmu: as printed). The interval's timestamp, as printed, is
# the key: awk would round it as a number.
ratios() {
	awk -F';' -v a="$2" -v b="$3" -v totals="$4" '
	$4 == a || $4 == b {
		t = $1; v = $2 + 0
		if (!(t in seen)) { seen[t] = 1; ts[nt++] = t }
		if ($4 == a) va[t] = v; else vb[t] = v
	}
	END {
		for (i = 0; i < nt; i++) {
			t = ts[i]
			# perf prints a last, partial interval when the
			# command ends: too short to read a duty cycle in
			if (t - (i ? ts[i - 1] : 0) < 0.5)
				continue
			if (totals) {
				if (i == 0) continue
				p = ts[i - 1]
				da = va[t] - va[p]; db = vb[t] - vb[p]
			} else {
				da = va[t]; db = vb[t]
			}
			if (db <= 0) { printf "%s no ticks\n", t; continue }
			printf "%s %.2f\n", t, 100 * da / db
		}
	}' "$1"
}

# check NAME FILE: every line's ratio within tol of want, and some lines
check() {
	if [ -s "$2" ] && awk -v w=$want -v tol=$tol '
		NF != 2 || $2 + 0 < w - tol || $2 + 0 > w + tol { bad = 1 }
		END { exit bad }' "$2"; then
		ok "$1: $(awk '{ printf "%s%s", s, $2; s = " " }' "$2") %"
	else
		not_ok "$1 (want $want +- $tol %)" "$2"
		sed 's/^/# /' "$3"
	fi
}

ratios "$dir/drm.csv" "$cyc" "$tot" 1 > "$dir/drm.ratios"
check "perf's drm-cycles-rcs / drm-total-cycles-rcs per interval" \
	"$dir/drm.ratios" "$dir/drm.csv"

# drm-engine-rcs: ns busy between the first and last interval over the
# time between them.
awk -F';' -v e="$eng" 'BEGIN { n = 0 }
	$4 == e { t[n] = $1; v[n] = $2 + 0; n++ }
	END {
		if (n < 2 || t[n - 1] <= t[0]) exit
		printf "%s-%s %.2f\n", t[0], t[n - 1],
			100 * (v[n - 1] - v[0]) / ((t[n - 1] - t[0]) * 1e9)
	}' "$dir/drm.csv" > "$dir/engine.ratio"
check "perf's drm-engine-rcs over the run" "$dir/engine.ratio" "$dir/drm.csv"

ratios "$dir/pmu.csv" "$active" "$total" 0 > "$dir/pmu.ratios"
check "$pmu engine-active-ticks / engine-total-ticks of rcs0 per interval" \
	"$dir/pmu.ratios" "$dir/pmu.csv"

rm -rf "$dir"
echo "1..$n"
[ $failed = 0 ]
