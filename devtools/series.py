#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The patch series this repository is, described by series/*.txt.

Each series/NN-name.txt describes one patch, series/00-cover.txt the cover
letter. A patch description is a header, a blank line and the commit
message body, without sign-off:

    Subject: drm/simgpu: add the device model
    Files:
      drivers/gpu/drm/simgpu/simgpu_hw.c
    Diffs:
      diffs/drm-kconfig-makefile.diff

    Why and what ...

Files are new files of the overlay; each lands whole in the patch that
names it. Diffs are unified diffs (-p1) kept in diffs/: a diff of an
upstream file is applied at its patch; a diff of an overlay file describes
how a later patch changes a file an earlier one added (the repository keeps
the final file, earlier states are found by reverse-applying).

The sender's identity ("Name <addr>", --signoff) signs every patch and is
their author; it also replaces @MAINTAINER@ in the diffs, so that the
MAINTAINERS entries name whoever sends the series.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

OVERLAY_DIRS = ["drivers", "include", "Documentation", "tools"]


class Patch:
    def __init__(self, path):
        self.path = path
        self.subject = None
        self.files = []
        self.diffs = []
        self.from_ = None
        with open(path) as f:
            text = f.read()
        head, _, body = text.partition("\n\n")
        key = None
        for line in head.splitlines():
            if line.startswith((" ", "\t")) and key:
                getattr(self, key).append(line.strip())
            elif line.startswith("Subject:"):
                self.subject = line[len("Subject:"):].strip()
                key = None
            elif line.startswith("From:"):
                self.from_ = line[len("From:"):].strip()
                key = None
            elif line.strip() in ("Files:", "Diffs:"):
                key = line.strip()[:-1].lower()
            else:
                die(f"{path}: bad header line: {line!r}")
        if not self.subject:
            die(f"{path}: no Subject:")
        self.body = body.strip("\n") + "\n"


def die(msg):
    print(f"series: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def load(repo):
    """The cover letter and the patches; a Files: entry ending in "/"
    stands for every overlay file under that directory."""
    sdir = os.path.join(repo, "series")
    names = sorted(n for n in os.listdir(sdir) if n.endswith(".txt"))
    if not names or not names[0].startswith("00-"):
        die("series/00-cover.txt missing")
    cover = Patch(os.path.join(sdir, names[0]))
    patches = [Patch(os.path.join(sdir, n)) for n in names[1:]]
    overlay = overlay_files(repo)
    for p in patches:
        files = []
        for entry in p.files:
            if entry.endswith("/"):
                under = [f for f in overlay if f.startswith(entry)]
                if not under:
                    die(f"{p.path}: no file under {entry}")
                files += under
            else:
                files.append(entry)
        p.files = files
    return cover, patches


def overlay_files(repo):
    out = run(["git", "-C", repo, "ls-files", "--cached", "--others",
               "--exclude-standard", "--"] + OVERLAY_DIRS,
              stdout=subprocess.PIPE).stdout.split("\n")
    return sorted(f for f in out if f and os.path.isfile(os.path.join(repo, f)))


def diff_targets(repo, d):
    targets = []
    with open(os.path.join(repo, d)) as f:
        for line in f:
            m = re.match(r"^\+\+\+ b/(\S+)", line)
            if m:
                targets.append(m.group(1))
    if not targets:
        die(f"{d}: not a -p1 unified diff")
    return targets


def diff_chunks(repo, d):
    """(target, text) for each file a unified diff changes."""
    chunks = []
    with open(os.path.join(repo, d)) as f:
        lines = f.readlines()
    start = [i for i, line in enumerate(lines)
             if line.startswith("--- ") and i + 1 < len(lines) and
             lines[i + 1].startswith("+++ b/")]
    for n, i in enumerate(start):
        # a "diff --git"/"index" header before "---" belongs to its file
        while i > 0 and not lines[i - 1].startswith(("+", "-", " ", "@", "\\")):
            i -= 1
        start[n] = i
    for n, i in enumerate(start):
        end = start[n + 1] if n + 1 < len(start) else len(lines)
        text = "".join(lines[i:end])
        m = re.search(r"^\+\+\+ b/(\S+)", text, re.M)
        chunks.append((m.group(1), text))
    return chunks


def check(repo, cover, patches):
    """Every overlay file and diff belongs to exactly one patch."""
    errors = []
    owner = {}
    for p in patches:
        for item in p.files + p.diffs:
            if item in owner:
                errors.append(f"{item}: in {owner[item]} and {p.path}")
            owner[item] = p.path
            if not os.path.isfile(os.path.join(repo, item)):
                errors.append(f"{p.path}: {item} does not exist")
        if re.search(r"^Signed-off-by:", p.body, re.M):
            errors.append(f"{p.path}: has a Signed-off-by line; the "
                          "sender's is added by make series")
    for f in overlay_files(repo):
        if f not in owner:
            errors.append(f"{f}: not assigned to any patch")
    ddir = os.path.join(repo, "diffs")
    for n in sorted(os.listdir(ddir)) if os.path.isdir(ddir) else []:
        if f"diffs/{n}" not in owner:
            errors.append(f"diffs/{n}: not assigned to any patch")
    return errors


IDENT_RE = re.compile(r"^[^<>@\n]*[^<>@\s]\s+<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$")


def check_ident(who):
    if not who or not IDENT_RE.match(who):
        die(f"not an identity to sign the series with: {who!r} "
            "(want 'Your Name <you@example.org>')")
    return who


def states(repo, base, patches, workdir, ident):
    """Yield (patch index, tree dir) for the tree after each patch; 0 = base.

    Only the paths the series touches are materialised.
    """
    overlay = set(overlay_files(repo))
    introduced = {}
    for k, p in enumerate(patches, 1):
        for f in p.files:
            introduced[f] = k
    for k in range(len(patches) + 1):
        tree = os.path.join(workdir, f"state{k}")
        os.makedirs(tree)
        up_diffs = []
        for j, p in enumerate(patches, 1):
            for d in p.diffs:
                tg = diff_targets(repo, d)
                if all(t not in overlay for t in tg):
                    for t in tg:
                        dst = os.path.join(tree, t)
                        if not os.path.exists(dst):
                            os.makedirs(os.path.dirname(dst), exist_ok=True)
                            shutil.copyfile(os.path.join(base, t), dst)
                    if j <= k:
                        up_diffs.append(d)
                elif any(t not in overlay for t in tg):
                    die(f"{d}: mixes upstream and overlay files")
        for d in up_diffs:
            with open(os.path.join(repo, d)) as f:
                text = f.read().replace("@MAINTAINER@", ident)
            run(["patch", "-s", "-p1", "-d", tree, "--no-backup-if-mismatch"],
                input=text)
        for f, j in introduced.items():
            if j <= k:
                dst = os.path.join(tree, f)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(os.path.join(repo, f), dst)
                shutil.copymode(os.path.join(repo, f), dst)
        for j in range(len(patches), k, -1):
            for d in reversed(patches[j - 1].diffs):
                tg = diff_targets(repo, d)
                if not all(t in overlay for t in tg):
                    continue
                for t in tg:
                    if introduced.get(t, j) >= j:
                        die(f"{d}: changes {t} before a patch adds it")
                # Undo the changes to the files this state has.
                text = "".join(chunk for t, chunk in diff_chunks(repo, d)
                               if introduced[t] <= k)
                if text:
                    run(["patch", "-s", "-R", "-p1", "-d", tree,
                         "--no-backup-if-mismatch"], input=text)
        yield k, tree


def git(tree, *args, **kw):
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-11-22T12:00:00Z",
               GIT_COMMITTER_DATE="2026-11-22T12:00:00Z")
    return run(["git", "-C", tree] + list(args), env=env, **kw)




def set_ident(gdir, who):
    m = re.match(r"(.*?)\s*<(.+)>", who)
    git(gdir, "config", "user.name", m.group(1))
    git(gdir, "config", "user.email", m.group(2))


def sync_tree(src, dst):
    """Make dst's work tree (minus .git) equal to src."""
    for root, dirs, files in os.walk(dst):
        if ".git" in dirs:
            dirs.remove(".git")
        for f in files:
            path = os.path.join(root, f)
            if not os.path.exists(os.path.join(src, os.path.relpath(path, dst))):
                os.unlink(path)
    shutil.copytree(src, dst, dirs_exist_ok=True)


def generate(repo, base, out, version, ident):
    cover, patches = load(repo)
    errors = check(repo, cover, patches)
    if errors:
        die("\n  ".join(["series description is incomplete:"] + errors))
    with tempfile.TemporaryDirectory() as work:
        gdir = os.path.join(work, "git")
        os.makedirs(gdir)
        run(["git", "init", "-q", gdir])
        for k, tree in states(repo, base, patches, work, ident):
            sync_tree(tree, gdir)
            git(gdir, "add", "-A")
            if k == 0:
                set_ident(gdir, "base <base@localhost>")
                git(gdir, "commit", "-q", "-m", f"base: {version}")
                continue
            p = patches[k - 1]
            set_ident(gdir, p.from_ or ident)
            git(gdir, "commit", "-q", "--allow-empty", "-F", "-",
                input=f"{p.subject}\n\n{p.body}\n"
                      f"Signed-off-by: {ident}\n")
        shutil.rmtree(out, ignore_errors=True)
        set_ident(gdir, ident)
        git(gdir, "format-patch", "-q", "--cover-letter", "-o", out,
            f"HEAD~{len(patches)}")
        final = os.path.join(work, f"state{len(patches)}")
        fill_cover(out, cover, version)
        am_check(out, os.path.join(work, "state0"), final, work)
    names = sorted(os.listdir(out))
    print(f"series: {len(names) - 1} patches + cover letter in {out} "
          f"(base {version}), git am onto the base: ok")


def fill_cover(out, cover, version):
    path = os.path.join(out, sorted(os.listdir(out))[0])
    with open(path) as f:
        text = f.read()
    text = text.replace("*** SUBJECT HERE ***", cover.subject)
    body = cover.body.replace("@BASE@", version)
    text = text.replace("*** BLURB HERE ***", body.rstrip("\n"))
    with open(path, "w") as f:
        f.write(text)


def am_check(out, state0, final, work):
    """The series must git am onto the base and give the final tree."""
    adir = os.path.join(work, "am")
    shutil.copytree(state0, adir)
    run(["git", "init", "-q", adir])
    set_ident(adir, "base <base@localhost>")
    git(adir, "add", "-A")
    git(adir, "commit", "-q", "-m", "base")
    patches = sorted(os.path.join(out, n) for n in os.listdir(out)
                     if not n.startswith("0000-"))
    r = subprocess.run(["git", "-C", adir, "am", "-q"] + patches,
                       text=True, capture_output=True)
    if r.returncode:
        die("git am onto the base failed:\n" + r.stdout + r.stderr)
    r = subprocess.run(["diff", "-r", "-q", "-x", ".git", adir, final],
                       text=True, capture_output=True)
    if r.returncode:
        die("series does not reproduce the tree:\n" + r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list-diffs")
    sub.add_parser("list-files")
    sub.add_parser("list-overlay-dirs")
    sub.add_parser("check")
    g = sub.add_parser("generate")
    g.add_argument("--base", required=True)
    g.add_argument("--version", required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--signoff", required=True,
                   help="'Name <addr>' who signs and sends the series")
    st = sub.add_parser("states")
    st.add_argument("--base", required=True)
    st.add_argument("--out", required=True)
    st.add_argument("--signoff", default="simgpu series-check <series-check@simgpu.invalid>")
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)

    if a.cmd == "list-files":
        print("\n".join(overlay_files(repo)))
    elif a.cmd == "list-overlay-dirs":
        print("\n".join(OVERLAY_DIRS))
    elif a.cmd == "list-diffs":
        _, patches = load(repo)
        overlay = set(overlay_files(repo))
        print("\n".join(d for p in patches for d in p.diffs
                        if not all(t in overlay
                                   for t in diff_targets(repo, d))))
    elif a.cmd == "check":
        cover, patches = load(repo)
        errors = check(repo, cover, patches)
        for e in errors:
            print(f"series: {e}")
        print(f"series: {len(patches)} patches, "
              f"{'ok' if not errors else f'{len(errors)} problems'}")
        sys.exit(1 if errors else 0)
    elif a.cmd == "generate":
        generate(repo, os.path.abspath(a.base), os.path.abspath(a.out),
                 a.version, check_ident(a.signoff))
    elif a.cmd == "states":
        # Materialise every state for series-check: OUT/stateK/...
        _, patches = load(repo)
        shutil.rmtree(a.out, ignore_errors=True)
        os.makedirs(a.out)
        for k, tree in states(repo, os.path.abspath(a.base), patches, a.out,
                              check_ident(a.signoff)):
            print(tree)


if __name__ == "__main__":
    main()
