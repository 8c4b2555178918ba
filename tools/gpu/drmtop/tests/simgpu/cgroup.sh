#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# drmtop's cgroup figures against simgpu: loads of simgpu-load at known
# duties, each started in a cgroup made for it (mkdir in the cgroup v2
# hierarchy, its pid written to cgroup.procs before it execs the load): a
# service with one load on rcs, a service with two processes on the two
# video engines (the class's capacity is 2), a container scope with four
# queues on the four compute engines. The loads are paced on the GPU's
# clock and run until they are killed. drmtop's cgroup records (--json)
# must give each cgroup the sum of its loads, within a point, per engine
# class and normalised by its capacity, and --prometheus one
# drm_cgroup_engine_seconds_total series per cgroup and class that only
# grows. TAP output; skipped (exit status 4) when simgpu, a tool it needs
# or cgroup v2 is missing.
. "$(dirname "$0")/lib.sh"
need simgpu-load drmtop python3

# The cgroup v2 hierarchy, mounted here if nothing is
cg=/sys/fs/cgroup
mounted=
if [ ! -e $cg/cgroup.procs ]; then
	mount -t cgroup2 none $cg 2> /dev/null ||
		skip_all "cannot mount cgroup2 on $cg (CONFIG_CGROUPS not set?)"
	mounted=1
fi
top=$cg/drmtop-test.$$
id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
svc_a=$top/system.slice/a.service
svc_b=$top/system.slice/b.service
ctr=$top/system.slice/docker-$id.scope
mkdir -p $svc_a $svc_b $ctr || skip_all "cannot create cgroups under $cg"

tmp=$(mktemp -d)
loads=
cleanup() {
	[ -z "$loads" ] || kill -TERM $loads 2> /dev/null
	wait
	rmdir $svc_a $svc_b $ctr $top/system.slice $top 2> /dev/null
	[ -z "$mounted" ] || umount $cg
	rm -rf "$tmp"
}
trap cleanup EXIT

# load NAME CGROUP ARGS...: simgpu-load in CGROUP (the shell moves itself
# there, then execs the load, whose client processes it forks stay there),
# until it is killed; its "client PID FD" lines in $tmp/NAME
load() {
	name=$1
	dir=$2
	shift 2
	: > "$tmp/$name"
	sh -c 'echo $$ > "$0/cgroup.procs" && exec simgpu-load "$@"' \
		"$dir" --seconds 1000000 "$@" > "$tmp/$name" 2> "$tmp/$name.err" &
	loads="$loads $!"
}

load a $svc_a --class rcs --duty 30
load b1 $svc_b --class vcs --instance 0 --duty 20
load b2 $svc_b --class vcs --instance 1 --duty 30
load c $ctr --class ccs --duty 60 --queues 4

i=0
for f in a b1 b2 c; do
	while [ ! -s "$tmp/$f" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
done
[ $i -lt 600 ]
t $? "simgpu-load prints its clients once they submit"

# each load's client process is in its cgroup
ok=0
for f in a:$svc_a b1:$svc_b b2:$svc_b c:$ctr; do
	set -- $(head -n 1 "$tmp/${f%%:*}")
	want="0::${f#*:$cg}"
	got=$(grep '^0::' /proc/$2/cgroup)
	if [ "$got" != "$want" ]; then
		echo "# ${f%%:*}: pid $2 in '$got', want '$want'"
		ok=1
	fi
done
t $ok "each load runs in its cgroup"

drmtop -n 4 -d 2 --json > "$tmp/json" 2> "$tmp/json.err"
t $? "drmtop --json exits 0"
sed 's/^/# /' "$tmp/json.err"

# The cgroup records of refreshes 2 to 4: each cgroup's class at the sum
# of its loads' duties over the class's capacity, within a point; the
# other classes idle. A cgroup's processes and clients as started.
python3 - "$tmp/json" "${top#$cg}" "$id" <<'PY'
import json, sys

top, cid = sys.argv[2], sys.argv[3]
want = {
    top + "/system.slice/a.service": ("a.service", 1, {"rcs": 30.0}),
    top + "/system.slice/b.service": ("b.service", 2, {"vcs": 25.0}),
    top + "/system.slice/docker-%s.scope" % cid: (cid[:12], 1, {"ccs": 60.0}),
}
recs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") == "cgroup" and r["cgroup"] in want:
        recs[(r["refresh"], r["cgroup"])] = r
ok = True
for path, (name, procs, classes) in want.items():
    for n in (2, 3, 4):
        r = recs.get((n, path))
        if not r:
            print(f"# no record of {path} at refresh {n}")
            ok = False
            continue
        figs = {c: e["utilization"] for c, e in r["engines"].items()}
        print(f"# {r['name']} refresh {n}: {figs}, {r['processes']} "
              f"processes, {r['clients']} clients")
        if r["name"] != name or r["processes"] != procs or \
           r["clients"] != procs:
            ok = False
        for c, e in r["engines"].items():
            u = e["utilization"]
            if u is None or abs(u - classes.get(c, 0.0)) > 1.0:
                print(f"# {name} {c}: {u}, want {classes.get(c, 0.0)}")
                ok = False
            if c in classes and e["engine_seconds"] <= 0:
                ok = False
sys.exit(0 if ok else 1)
PY
t $? "drmtop's cgroup figures are the sums of the loads' duties, within a point"

drmtop -n 3 -d 1 --prometheus > "$tmp/prom" 2> "$tmp/prom.err"
t $? "drmtop --prometheus exits 0"

# Each refresh's exposition: one engine seconds series per cgroup and
# class, never smaller than in the exposition before, growing with the
# cgroup's engine time
python3 - "$tmp/prom" "${top#$cg}" <<'PY'
import re, sys

top = sys.argv[2]
exps = open(sys.argv[1]).read().split("# HELP drm_clients ")[1:]
series = []
for e in exps:
    s = {}
    for m in re.finditer(r'^drm_cgroup_engine_seconds_total\{(.*)\} (\S+)$',
                         e, re.M):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m[1]))
        if labels["cgroup"].startswith(top + "/"):
            key = (labels["cgroup"], labels["engine"])
            if key in s:
                print(f"# two series for {key}")
                sys.exit(1)
            s[key] = float(m[2])
    series.append(s)
busy = {"a.service": "rcs", "b.service": "vcs", "docker": "ccs"}
ok = len(series) == 3
for key in series[-1] if ok else ():
    vals = [s.get(key) for s in series]
    name = key[0].rsplit("/", 1)[1]
    print(f"# {name} {key[1]}: {vals}")
    if any(v is None for v in vals[1:]) or vals[1:] != sorted(vals[1:]):
        ok = False
    if busy.get(name.split("-")[0]) == key[1] and not vals[2] > 0:
        ok = False
for name, cls in busy.items():
    if ok and not any(k[0].rsplit("/", 1)[1].startswith(name) and
                      k[1] == cls for k in series[-1]):
        print(f"# no series for {name} {cls}")
        ok = False
# Over the same window, engine seconds grow as duty x engines busy: 0.3
# (rcs at 30 %), 0.5 (two vcs at 20 and 30 %), 2.4 (four ccs at 60 %)
# a second: in the ratios 5/3 and 8, whatever the window's length
if ok:
    grew = {}
    for k in series[-1]:
        name = k[0].rsplit("/", 1)[1].split("-")[0]
        if busy.get(name) == k[1]:
            grew[name] = series[2][k] - series[1][k]
    r_b = grew["b.service"] / grew["a.service"]
    r_c = grew["docker"] / grew["a.service"]
    print(f"# growth over the last window: {grew}, ratios {r_b:.3f} "
          f"(5/3), {r_c:.3f} (8)")
    if abs(r_b - 5 / 3) > 0.05 * 5 / 3 or abs(r_c - 8) > 0.05 * 8:
        ok = False
sys.exit(0 if ok else 1)
PY
t $? "drm_cgroup_engine_seconds_total: a series per cgroup and class, only growing"

kill -TERM $loads
status=0
for p in $loads; do
	wait $p || status=1
done
loads=
cat "$tmp"/*.err | sed 's/^/# /'
t $status "simgpu-load ends with status 0 on SIGTERM"
echo "1..$n"
exit $fail
