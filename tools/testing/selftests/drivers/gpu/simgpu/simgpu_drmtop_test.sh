#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# drmtop against simgpu: two clients of simgpu-load with known duty cycles;
# drmtop --json must report each client's utilisation per class within
# 1 percentage point, and drm-fdinfo-check must pass on both clients. A
# client whose process closes its fd between refreshes must be gone from the
# next ones (drmtop re-reads fdinfo files it keeps open). TAP output;
# skipped (exit status 4, kselftest's KSFT_SKIP) when simgpu or a tool it
# needs is missing.
ksft_skip=4

echo "TAP version 13"

skip_all() {
	echo "1..0 # SKIP $*"
	exit $ksft_skip
}

for tool in simgpu-load drmtop drm-fdinfo-check python3; do
	command -v "$tool" > /dev/null || skip_all "$tool not on PATH"
done

# The render node of the simgpu device
node=
for d in /sys/class/drm/renderD*; do
	if [ "$(basename "$(readlink -f "$d/device/driver")")" = simgpu ]; then
		node=/dev/dri/$(basename "$d")
		break
	fi
done
if [ -z "$node" ] || [ ! -e "$node" ]; then
	skip_all "no simgpu render node (simgpu not loaded)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}

# wait_lines FILE N PID: wait until FILE has N lines, while process PID
# lives, for at most 60 s
wait_lines() {
	i=0
	while [ "$(wc -l < "$1")" -lt "$2" ] && kill -0 "$3" 2> /dev/null &&
	      [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(wc -l < "$1")" -ge "$2" ]
}

# rcs: one queue at 40 %; ccs: four queues at 60 % over its four engines.
# The loads run until every check that needs them is done; they are paced
# on the GPU's clock, with work queued ahead, so that drmtop's scans of
# /proc (or a busy host) delaying their submitters do not change them.
simgpu-load --class rcs --duty 40 --seconds 120 \
	> "$tmp/rcs" 2> "$tmp/rcs.err" &
rcs_load=$!
simgpu-load --class ccs --duty 60 --queues 4 --seconds 120 \
	> "$tmp/ccs" 2> "$tmp/ccs.err" &
ccs_load=$!
wait_lines "$tmp/rcs" 1 $rcs_load && wait_lines "$tmp/ccs" 1 $ccs_load
t $? "simgpu-load prints its clients once they submit"
rcs=$(head -n 1 "$tmp/rcs")
ccs=$(head -n 1 "$tmp/ccs")

# A process that holds a simgpu fd for 1.5 s and then lives on without it.
sh -c "exec 5< $node; sleep 1.5; exec 5<&-; sleep 7" &
holder=$!
i=0
while [ ! -e /proc/$holder/fd/5 ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done

drmtop -n 4 -d 2 --json > "$tmp/json"
t $? "drmtop --json exits 0"

python3 - "$tmp/json" "$holder" <<'PY'
import json, sys

refreshes = {}
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if rec.get("record") == "device":
        continue
    if int(sys.argv[2]) in rec["pids"]:
        refreshes.setdefault(rec["refresh"], 0)
        refreshes[rec["refresh"]] += 1
print(f"# refreshes listing pid {sys.argv[2]}: {sorted(refreshes)}")
sys.exit(0 if 1 in refreshes and 4 not in refreshes else 1)
PY
t $? "a client whose fd was closed is listed first, then no more"

# The last three refreshes each cover a window of two seconds.
python3 - "$tmp/json" "${rcs#client }" "${ccs#client }" <<'PY'
import json, sys

want = {sys.argv[2].split()[0]: ("rcs", 40.0), sys.argv[3].split()[0]: ("ccs", 60.0)}
seen = {}
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if rec["refresh"] < 2 or rec.get("record") == "device":
        continue
    for pid in map(str, rec["pids"]):
        if pid in want:
            cls, duty = want[pid]
            u = rec["engines"][cls]["utilization"]
            seen.setdefault(pid, []).append(u)
            if u is None or abs(u - duty) > 1.0:
                print(f"# pid {pid} {cls}: {u} %, want {duty} +- 1")
                sys.exit(1)
if sorted(seen) != sorted(want) or any(len(v) != 3 for v in seen.values()):
    print(f"# windows seen: {seen}")
    sys.exit(1)
print(f"# utilisation per window: {seen}")
PY
t $? "drmtop reports each client's duty cycle within 1 point"

# Where the kernel has perf events, drmtop's engine header comes from
# simgpu's PMU: rcs0 at 40 %, ccs0-3 at 60 % each, the others idle.
if [ -d /sys/bus/event_source/devices/simgpu_0 ]; then
	python3 - "$tmp/json" <<'PY'
import json, sys

want = {"rcs0": 40.0, "ccs0": 60.0, "ccs1": 60.0, "ccs2": 60.0,
        "ccs3": 60.0, "bcs0": 0.0, "vcs0": 0.0, "vcs1": 0.0, "vecs0": 0.0}
windows = 0
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if rec.get("record") != "device" or rec["refresh"] < 2:
        continue
    if rec["pmu"] != "simgpu_0" or rec["status"] != "ok":
        print(f"# device record: {rec}")
        sys.exit(1)
    busy = {e["name"]: e["busy"] for e in rec["engines"]}
    if sorted(busy) != sorted(want):
        print(f"# engines: {sorted(busy)}")
        sys.exit(1)
    for name, duty in want.items():
        if busy[name] is None or abs(busy[name] - duty) > 1.0:
            print(f"# {name}: {busy[name]} %, want {duty} +- 1")
            sys.exit(1)
    windows += 1
print(f"# {windows} windows of the PMU's engine header")
sys.exit(0 if windows == 3 else 1)
PY
	t $? "drmtop's engine header from the PMU reads each engine's duty"
else
	n=$((n + 1))
	echo "ok $n - drmtop's engine header from the PMU" \
		"# SKIP no perf events (CONFIG_PERF_EVENTS not set)"
fi

for c in "$rcs" "$ccs"; do
	set -- $c
	drm-fdinfo-check "$2:$3" > "$tmp/check" 2>&1
	status=$?
	sed 's/^/# /' "$tmp/check"
	t $status "drm-fdinfo-check $2:$3"
done

# Both loads were still running: end them, which they do cleanly.
kill -TERM $rcs_load $ccs_load
wait $rcs_load
rcs_status=$?
wait $ccs_load
ccs_status=$?
cat "$tmp/rcs.err" "$tmp/ccs.err" | sed 's/^/# /'
t "$([ $rcs_status = 0 ] && [ $ccs_status = 0 ]; echo $?)" \
	"simgpu-load ends with status 0 on SIGTERM"
wait
echo "1..$n"
exit $fail
