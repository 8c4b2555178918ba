#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Fake proc trees for drmtop's tests, and what drmtop must show of them.
#
#   proc-tree.py engines DIR  a tree of what users of other drivers see:
#                             an i915 client with five engine classes
#                             (video-enhance 40 % busy, video 50 % of its
#                             capacity 2) and the stolen-system0 region,
#                             and a panfrost client with profiling off
#                             (drm-maxfreq- keys only)
#   proc-tree.py make DIR     processes in nested cgroups, for the cgroup
#                             view, and DIR/expected.json: per cgroup its
#                             name, processes, clients, rcs percent and
#                             vram0 bytes, summed from the tree
#   proc-tree.py feed DIR     advance every client's counters by its duty
#                             each 0.1 s, until DIR/stop exists (60 s at
#                             most): a client is DUTY % busy in any window
#                             drmtop reads it over, however loaded the host;
#                             DIR/step is the number of the last sample
#   proc-tree.py check PANE DIR VIEW
#                             whether a tmux capture of the cgroup view
#                             (VIEW "cgroups") shows each cgroup of the
#                             tree with its sums, or the process view
#                             ("processes") each process with its cgroup
import json
import os
import re
import sys
import time


def put(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


# i915's engines, with cycles keys so that every window is exact
ENGINES = [("render", 0, 1), ("copy", 0, 1), ("video", 50, 2),
           ("video-enhance", 40, 1), ("compute", 0, 1)]


def i915(step):
    t = "drm-driver:\ti915\ndrm-client-id:\t7\ndrm-pdev:\t0000:00:02.0\n"
    t += "drm-total-system0:\t36 MiB\ndrm-total-stolen-system0:\t0\n"
    for name, duty, cap in ENGINES:
        t += "drm-cycles-%s:\t%d\n" % (name, step * duty * 10 * cap)
        t += "drm-total-cycles-%s:\t%d\n" % (name, 1000000 + step * 1000)
        if cap > 1:
            t += "drm-engine-capacity-%s:\t%d\n" % (name, cap)
    return t


PANFROST = ("drm-driver:\tpanfrost\ndrm-client-id:\t14\n"
            "drm-maxfreq-fragment:\t799999987 Hz\n"
            "drm-curfreq-fragment:\t799999987 Hz\n"
            "drm-maxfreq-vertex-tiler:\t799999987 Hz\n"
            "drm-curfreq-vertex-tiler:\t400000000 Hz\n"
            "drm-total-memory:\t290 MiB\n")


def make_engines(d):
    for pid, comm, node in ((4000, "media", "renderD128"),
                            (4001, "glmark2", "renderD129")):
        os.makedirs("%s/%d/fd" % (d, pid))
        os.makedirs("%s/%d/fdinfo" % (d, pid))
        put("%s/%d/comm" % (d, pid), comm + "\n")
        os.symlink("/dev/dri/" + node, "%s/%d/fd/3" % (d, pid))
    put(d + "/4001/fdinfo/3", PANFROST)
    put(d + "/kind", "engines\n")
    write_all(d, 0)


CID = "4f1c2d3e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d"
USER = "/user.slice/user-1000.slice"
# (pid, comm, cgroup path, [(client id, rcs duty %, vram0 MiB)])
PROCS = [
    (3000, "postgres", "/system.slice/db.service", [(1, 10, 1)]),
    (3001, "postgres", "/system.slice/db.service", [(2, 15, 2)]),
    (3002, "nginx", "/system.slice/web.service", [(3, 5, 1), (4, 5, 1)]),
    (3003, "infer", "/system.slice/docker-%s.scope" % CID, [(5, 20, 4)]),
    (3004, "infer", "/system.slice/docker-%s.scope" % CID, [(6, 20, 4)]),
    (3005, "gnome-shell", USER + "/session-3.scope", [(7, 7, 2)]),
    (3006, "game", USER + "/user@1000.service/app.slice/app-game.scope",
     [(8, 3, 8)]),
    # holds the game's client too (SCM_RIGHTS): counted in the game's
    # cgroup, the one of its first process
    (3007, "helper", USER + "/session-3.scope", [(8, 3, 8), (9, 1, 1)]),
]


def name_of(path):
    last = path.rstrip("/").rsplit("/", 1)[-1]
    m = re.fullmatch(r"(?:docker|libpod)-([0-9a-f]{64})\.scope", last)
    return m.group(1)[:12] if m else last


def fdinfo(cid, busy, total, mib):
    return ("pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t911\n"
            "drm-driver:\tsimgpu\ndrm-client-id:\t%d\n"
            "drm-pdev:\t0000:00:04.0\n"
            "drm-engine-rcs:\t0 ns\ndrm-cycles-rcs:\t%d\n"
            "drm-total-cycles-rcs:\t%d\n"
            "drm-total-vram0:\t%d MiB\n" % (cid, busy, total, mib))


def make(d):
    exp = {}
    owner = {}
    for pid, comm, cg, clients in PROCS:
        os.makedirs("%s/%d/fd" % (d, pid))
        os.makedirs("%s/%d/fdinfo" % (d, pid))
        put("%s/%d/comm" % (d, pid), comm + "\n")
        put("%s/%d/cgroup" % (d, pid), "0::%s\n" % cg)
        for i, (cid, duty, mib) in enumerate(clients):
            os.symlink("/dev/dri/renderD128", "%s/%d/fd/%d" % (d, pid, 3 + i))
            owner.setdefault(cid, (pid, cg, duty, mib))
    # a client counts in the cgroup of its lowest pid, once; a process
    # counts in each cgroup row whose clients it holds
    for cid, (pid, cg, duty, mib) in owner.items():
        e = exp.setdefault(cg, {"name": name_of(cg), "clients": 0,
                                "pids": set(), "rcs": 0, "vram0": 0})
        e["clients"] += 1
        e["rcs"] += duty
        e["vram0"] += mib
        for p2, _, _, cl in PROCS:
            if any(c[0] == cid for c in cl):
                e["pids"].add(p2)
    for e in exp.values():
        e["processes"] = len(e.pop("pids"))
    procs = {str(pid): {"comm": comm, "cgroup": name_of(cg)}
             for pid, comm, cg, _ in PROCS}
    with open(d + "/expected.json", "w") as f:
        json.dump({"cgroups": exp, "procs": procs}, f, indent=1)
    write_all(d, 0)


def size(mib):
    return "%.1fM" % mib if mib < 1024 else "%.1fG" % (mib / 1024)


def check(pane, d, view):
    exp = json.load(open(d + "/expected.json"))
    lines = open(pane, encoding="utf-8").read().split("\n")
    bad = []
    if view == "cgroups":
        for path, e in exp["cgroups"].items():
            pat = (r"^%s +(\d+) +(\d+) +\[[| ]*\] +([0-9.]+)%% .* ([0-9.]+M) *$"
                   % re.escape(e["name"]))
            rows = [re.match(pat, l) for l in lines]
            rows = [m for m in rows if m]
            want = (e["processes"], e["clients"], "%.1f" % e["rcs"],
                    size(e["vram0"]))
            got = [(int(m[1]), int(m[2]), m[3], m[4]) for m in rows]
            if got != [want]:
                bad.append("%s: want %s, got %s" % (e["name"], want, got))
    else:
        for pid, p in exp["procs"].items():
            pat = r"^ +%s %s +(\d+ +)?%s " % (pid, re.escape(p["comm"]),
                                               re.escape(p["cgroup"]))
            if not any(re.match(pat, l) for l in lines):
                bad.append("pid %s: no row with cgroup %s" % (pid, p["cgroup"]))
    for b in bad:
        print("# " + b)
    return not bad


def write_all(d, step):
    if os.path.exists(d + "/kind"):
        put(d + "/4000/fdinfo/3", i915(step))
        return
    for pid, comm, cg, clients in PROCS:
        for i, (cid, duty, mib) in enumerate(clients):
            put("%s/%d/fdinfo/%d" % (d, pid, 3 + i),
                fdinfo(cid, step * duty * 10, 1000000 + step * 1000, mib))


def feed(d):
    end = time.time() + 60
    step = 1
    while not os.path.exists(d + "/stop") and time.time() < end:
        write_all(d, step)
        put(d + "/step", "%d\n" % step)
        step += 1
        time.sleep(0.1)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "engines":
        make_engines(sys.argv[2])
    elif sys.argv[1] == "feed":
        feed(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3], sys.argv[4]) else 1)
