#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# drmtop against simgpu: two clients of simgpu-load on rcs and ccs. Each
# utilisation drmtop --json reports must be what the client's counters say
# over that window: the test reads the same fdinfo itself, often, and
# checks drmtop's figures against the bounds its own reads give, so that a
# submitter running late on a busy machine does not fail it. Where there
# are perf events, drmtop's engine header (simgpu's PMU) must agree with
# the clients' drm-cycles the same way. drm-fdinfo-check must pass on both
# clients. A client whose process closes its fd between refreshes must be
# gone from the next ones (drmtop re-reads fdinfo files it keeps open). TAP
# output; skipped (exit status 4) when simgpu or a tool it needs is
# missing.
. "$(dirname "$0")/lib.sh"
need simgpu-load drmtop drm-fdinfo-check python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
# The loads run until every check that needs them is done (an hour at
# most: the end of the test stops them with SIGTERM); they are paced
# on the GPU's clock, with work queued ahead, so that drmtop's scans of
# /proc (or a busy host) delaying their submitters do not change them.
# Their output files exist before wait_lines reads them, whenever the
# background shells get to their redirections.
: > "$tmp/rcs"
: > "$tmp/ccs"
simgpu-load --class rcs --duty 40 --seconds 3600 \
	> "$tmp/rcs" 2> "$tmp/rcs.err" &
rcs_load=$!
simgpu-load --class ccs --duty 60 --queues 4 --seconds 3600 \
	> "$tmp/ccs" 2> "$tmp/ccs.err" &
ccs_load=$!
wait_lines "$tmp/rcs" 1 $rcs_load && wait_lines "$tmp/ccs" 1 $ccs_load
t $? "simgpu-load prints its clients once they submit"
rcs=$(head -n 1 "$tmp/rcs")
ccs=$(head -n 1 "$tmp/ccs")

# A process that holds a simgpu fd until drmtop has listed it once, then
# lives on without it.
sh -c "exec 5< $node; while [ ! -e $tmp/close ]; do sleep 0.05; done
	exec 5<&-; exec sleep 600" &
holder=$!
i=0
while [ ! -e /proc/$holder/fd/5 ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done

# drmtop samples four times, two seconds apart. Meanwhile the test reads
# the two loads' fdinfo itself, every 20 ms and whenever drmtop writes, from before its first read
# to after its last, so that each of drmtop's windows can be checked against
# the counters, not against the nominal duty, which a submitter late on a
# busy machine misses. The holder lets go of its fd once drmtop's first
# refresh is out.
python3 - "$tmp" "$holder" "${rcs#client }" "${ccs#client }" <<'PY'
import json, os, select, subprocess, sys, time

tmp, holder = sys.argv[1], sys.argv[2]
clients = [c.split() for c in sys.argv[3:]]

def read_fdinfo(pid, fd):
    keys = {}
    with open(f"/proc/{pid}/fdinfo/{fd}") as f:
        for line in f:
            k, _, v = line.partition(":")
            v = v.split()
            if k.startswith(("drm-cycles-", "drm-total-cycles-")) and v:
                keys[k] = int(v[0])
    return keys

samples = {pid: [] for pid, fd in clients}
shown = {}

def sample():
    for pid, fd in clients:
        m0 = time.monotonic_ns()
        keys = read_fdinfo(pid, fd)
        samples[pid].append((m0, time.monotonic_ns(), keys))

# When each refresh was first seen in drmtop's output: it had read the
# clients and the PMU by then. The test wakes as soon as drmtop writes.
def seen(data, partial, out):
    out.write(data)
    partial += data
    *lines, partial = partial.split(b"\n")
    for line in lines:
        shown.setdefault(json.loads(line)["refresh"], time.monotonic_ns())
    return partial

sample()
top = subprocess.Popen(["drmtop", "-n", "4", "-d", "2", "--json"],
                       stdout=subprocess.PIPE)
with open(f"{tmp}/json", "wb") as out:
    partial = b""
    while True:
        if select.select([top.stdout], [], [], 0.02)[0]:
            data = os.read(top.stdout.fileno(), 1 << 16)
            if not data:
                break
            partial = seen(data, partial, out)
        sample()
        if shown:
            open(f"{tmp}/close", "w").close()
top.wait()
json.dump({"samples": samples, "shown": shown}, open(f"{tmp}/samples", "w"))
print(f"# {len(samples[clients[0][0]])} reads of each load's fdinfo")
sys.exit(top.returncode)
PY
t $? "drmtop --json exits 0"

python3 - "$tmp/json" "$holder" <<'PY'
import json, sys

refreshes = {}
for line in open(sys.argv[1]):
    rec = json.loads(line)
    if rec.get("record") != "client":
        continue
    if int(sys.argv[2]) in rec["pids"]:
        refreshes.setdefault(rec["refresh"], 0)
        refreshes[rec["refresh"]] += 1
print(f"# refreshes listing pid {sys.argv[2]}: {sorted(refreshes)}")
sys.exit(0 if 1 in refreshes and 4 not in refreshes else 1)
PY
t $? "a client whose fd was closed is listed first, then no more"

# Shared by the next two checks: the test's own reads of a load's counters,
# and the bounds they put on how much a counter grew between two instants,
# of the GPU clock or of CLOCK_MONOTONIC. fdinfo reads of one client are
# serialised and its counters never go back, so a counter at an instant
# lies between the test's reads just before and just after it.
cat > "$tmp/bounds.py" <<'PY'
import bisect, json

def load(tmp):
    d = json.load(open(f"{tmp}/samples"))
    return d["samples"], {int(k): v for k, v in d["shown"].items()}

def by_ticks(samples, pid, cls):
    s = sorted((r[f"drm-total-cycles-{cls}"], r[f"drm-cycles-{cls}"])
               for m0, m1, r in samples[pid])
    return [t for t, c in s], [c for t, c in s]

def tick_bounds(ts, cs, t_a, t_b):
    """Least and most the counter grew from GPU tick t_a to t_b."""
    i = bisect.bisect_right(ts, t_a) - 1    # last read at or before t_a
    j = bisect.bisect_left(ts, t_a)         # first read at or after t_a
    k = bisect.bisect_right(ts, t_b) - 1
    m = bisect.bisect_left(ts, t_b)
    if i < 0 or m >= len(ts):
        return None
    return cs[k] - cs[j], cs[m] - cs[i]

def time_bounds(samples, pid, cls, a, b, more=()):
    """Least and most the counter grew from an instant in [a[0], a[1]] to
    one in [b[0], b[1]], in ns of CLOCK_MONOTONIC; @more: other reads of
    the counter, (start, end, value)."""
    reads = [(m0, m1, r[f"drm-cycles-{cls}"]) for m0, m1, r in samples[pid]]
    reads += more
    before = lambda t: [c for m0, m1, c in reads if m1 <= t]
    after = lambda t: [c for m0, m1, c in reads if m0 >= t]
    if not before(a[0]) or not after(b[1]):
        return None
    ends, starts = before(b[0]), after(a[1])
    lo = max(ends) - min(starts) if ends and starts else 0
    return max(lo, 0), min(after(b[1])) - max(before(a[0]))
PY

# Each of drmtop's last three windows, for each load: the utilisation is
# the growth of the counters drmtop read, divided by the capacity, and that
# growth lies within what the test's own reads allow. A load paced on the
# GPU clock never exceeds its duty cycle; it can fall short of it.
python3 - "$tmp" "${rcs#client }" "${ccs#client }" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from bounds import load, by_ticks, tick_bounds

samples, shown = load(sys.argv[1])
want = {sys.argv[2].split()[0]: ("rcs", 40.0),
        sys.argv[3].split()[0]: ("ccs", 60.0)}
recs = {}
for line in open(f"{sys.argv[1]}/json"):
    rec = json.loads(line)
    if rec.get("record") != "client":
        continue
    for pid in map(str, rec["pids"]):
        if pid in want:
            recs.setdefault(pid, {})[rec["refresh"]] = rec
ok = sorted(recs) == sorted(want)
for pid, (cls, duty) in want.items():
    ts, cs = by_ticks(samples, pid, cls)
    for n in (2, 3, 4):
        try:
            prev = recs[pid][n - 1]["engines"][cls]
            e = recs[pid][n]["engines"][cls]
        except KeyError:
            print(f"# pid {pid}: no {cls} figure at refresh {n}")
            ok = False
            continue
        d = e["cycles"] - prev["cycles"]
        dt = e["total_cycles"] - prev["total_cycles"]
        u = e["utilization"]
        b = tick_bounds(ts, cs, prev["total_cycles"], e["total_cycles"])
        if u is None or dt <= 0 or b is None:
            print(f"# pid {pid} {cls} window {n}: {e}, bounds {b}")
            ok = False
            continue
        lo, hi = (100.0 * x / dt / e["capacity"] for x in b)
        print(f"# pid {pid} {cls} window {n}: drmtop {u:.2f} %, "
              f"counters {lo:.2f}-{hi:.2f} %, load {duty:.0f} %")
        if (e["delta"], e["delta_total"]) != (d, dt) or \
           abs(u - 100.0 * d / dt / e["capacity"]) > 1e-3 or \
           not b[0] <= d <= b[1] or not 0 < u <= duty + 1:
            print(f"# wrong: delta {e['delta']}/{e['delta_total']}, "
                  f"drmtop's reads grew {d}/{dt}, bounds {b}")
            ok = False
sys.exit(0 if ok else 1)
PY
t $? "drmtop's utilisation of each load is what its counters say"

# Where the kernel has perf events, drmtop's engine header comes from
# simgpu's PMU. Its count of active ticks of rcs0, and the sum of ccs0-3's,
# over each window must be what the loads' drm-cycles grew by between the
# instants drmtop read the PMU, to a tick per context switch (a 10 ms period
# has one per queue). drmtop read the PMU after the device record's
# timestamp (and after its own read of the clients' fdinfo) and before the
# test saw the record. The other engines are idle.
if [ -d /sys/bus/event_source/devices/simgpu_0 ]; then
	python3 - "$tmp" "${rcs#client }" "${ccs#client }" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
from bounds import load, time_bounds

samples, shown = load(sys.argv[1])
loads = {"rcs": (sys.argv[2].split()[0], 1), "ccs": (sys.argv[3].split()[0], 4)}
idle = {"bcs0", "vcs0", "vcs1", "vecs0"}
names = idle | {"rcs0", "ccs0", "ccs1", "ccs2", "ccs3"}
devs = {}
# drmtop's reads of the loads' fdinfo, done by its record's timestamp: the
# one of refresh n came before it read the PMU for that refresh
mine_read = {pid: [] for pid, q in loads.values()}
for line in open(f"{sys.argv[1]}/json"):
    rec = json.loads(line)
    for pid, q in loads.values():
        if rec.get("record") == "client" and int(pid) in rec["pids"]:
            cls = [c for c, (p, q) in loads.items() if p == pid][0]
            mine_read[pid].append((0, rec["timestamp_ns"],
                                   rec["engines"][cls]["cycles"]))
    if rec.get("record") == "device":
        if rec["pmu"] != "simgpu_0" or rec["status"] != "ok":
            print(f"# device record: {rec}")
            sys.exit(1)
        devs[rec["refresh"]] = rec
if sorted(devs) != [1, 2, 3, 4] or any(
        sorted(e["name"] for e in d["engines"]) != sorted(names)
        for d in devs.values()):
    print(f"# device records: {list(devs.values())}")
    sys.exit(1)
# When drmtop read the PMU for each refresh, at the earliest and the latest
when = {n: (d["timestamp_ns"], shown[n]) for n, d in devs.items()}
engs = {n: {e["name"]: e for e in d["engines"]} for n, d in devs.items()}
# The GPU clock's ticks in a load's 10 ms period
period = int(open("/sys/module/simgpu/parameters/refclk_hz").read()) // 100
ok = True
for n in (2, 3, 4):
    for x in sorted(names):
        a, b = engs[n - 1][x], engs[n][x]
        da = b["active_ticks"] - a["active_ticks"]
        dt = b["total_ticks"] - a["total_ticks"]
        if (b["delta_active"], b["delta_total"]) != (da, dt) or \
           not 0 <= da <= dt or abs(b["busy"] - 100.0 * da / dt) > 1e-3:
            print(f"# {x} window {n}: {a} then {b}")
            ok = False
        if x in idle and da:
            print(f"# {x} window {n}: {da} active ticks, want 0")
            ok = False
    for cls, (pid, queues) in loads.items():
        mine = [x for x in sorted(names) if x.startswith(cls)]
        act = sum(engs[n][x]["active_ticks"] - engs[n - 1][x]["active_ticks"]
                  for x in mine)
        dt = max(engs[n][x]["total_ticks"] - engs[n - 1][x]["total_ticks"]
                 for x in mine)
        b = time_bounds(samples, pid, cls, when[n - 1], when[n], mine_read[pid])
        if b is None:
            print(f"# {cls} window {n}: the test's reads do not cover it")
            ok = False
            continue
        # a tick per context switch: one per queue and period, and the ends
        slack = queues * (dt // period + 2)
        lo, hi = b[0] - slack, b[1] + slack
        busy = [round(engs[n][x]["busy"], 2) for x in mine]
        print(f"# {cls} window {n}: PMU {busy} %, active ticks "
              f"{100.0 * act / dt / len(mine):.2f} % of the class, "
              f"drm-cycles {100.0 * lo / dt / len(mine):.2f}-"
              f"{100.0 * hi / dt / len(mine):.2f} %")
        if not lo <= act <= hi or not act:
            ok = False
sys.exit(0 if ok else 1)
PY
	t $? "drmtop's engine header from the PMU agrees with the loads' fdinfo"
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
kill $holder
wait
echo "1..$n"
exit $fail
