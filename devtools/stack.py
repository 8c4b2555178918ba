#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The patch series of this repository, kept as git format-patch output.

series/NN-name/ holds one series as `git format-patch --cover-letter`
writes it: 0000-cover-letter.patch and the patches, in order. Series apply
in the order of their directory names; series/NN-name/depends names the
series (directory names, one a line) it needs below it, and each series
`git am`s onto the base with those and nothing else; series/NN-name/
subject-prefix, if there is one, is its subject prefix instead of PATCH
("PATCH RFC" for a series sent for comments, as b4 writes it).

The stack is a git repository (build/stack by default) made by `git am`
of every series onto a base commit that holds the base tree's files the
series change (nothing else is needed to apply them). A branch
s/NN-name marks the last commit of each series; `git rebase
--update-refs` keeps the branches right. Changing a patch is ordinary git
in the stack, then `export` writes the series back, and the new files at
the stack's tip back into the repository at their in-tree paths.

  apply    (re)make the stack from series/ (refuses to drop work that was
           not exported, unless --force)
  export   write the stack's series to series/ and its new files to the
           repository
  absorb   take the repository's edits of new files into the patches
           they belong to (git-absorb, git rebase --autosquash), export
  squash   fold the stack's fixup! commits into their patches (git rebase
           --autosquash), export
  check    the repository's new files are the stack's tip, every series
           applies with its dependencies alone, and every patch over
           1,500 lines says in series/large-patches why it is one step
  generate the series to send: signed, one directory a series, checked
  tip      the base files the series change, as the stack's tip has them,
           and the lists of those and of the files the series add
  list-files  the new files, in the repository (check: they are the tip's)
  list-changed  the base files the series change
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

OVERLAY_DIRS = ["drivers", "include", "Documentation", "tools"]
# Projects of their own inside the overlay directories, never in a
# series: drmtop and drm-fdinfo-check are userspace for any DRM driver,
# built and tested on their own (tools/gpu/drmtop/README.md).
OUTSIDE_SERIES = ["tools/gpu/drmtop/"]
MAX_PATCH_LINES = 1500
# The identity the repository's patches carry; "make series" replaces it
# (and @MAINTAINER@ in MAINTAINERS entries) with the sender's, and
# @COPYRIGHT@ in the new files' copyright lines with the holder's (the
# sender's unless named).
DEV_IDENT = "Simgpu Developer <dev@simgpu.invalid>"
DATE = "2026-11-22T12:00:00Z"
FP_OPTS = ["--zero-commit", "--no-signature", "--no-numbered-files",
           "--cover-letter", "--no-binary", "--stat=72"]


def die(msg):
    print(f"stack: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    kw.setdefault("text", True)
    return subprocess.run(cmd, check=True, **kw)


def git(gdir, *args, env=None, check=True, capture=True, **kw):
    e = dict(os.environ, GIT_AUTHOR_DATE=os.environ.get("GIT_AUTHOR_DATE",
             DATE), GIT_COMMITTER_DATE=DATE, LC_ALL="C")
    e.update(env or {})
    r = subprocess.run(["git", "-C", gdir] + list(args), env=e, text=True,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.PIPE if capture else None, **kw)
    if check and r.returncode:
        die(f"git {' '.join(args)} in {gdir} failed:\n{r.stdout or ''}"
            f"{r.stderr or ''}")
    return r


class Series:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        names = sorted(n for n in os.listdir(path) if n.endswith(".patch"))
        if not names or not names[0].startswith("0000-"):
            die(f"{path}: no 0000-cover-letter.patch")
        self.cover = os.path.join(path, names[0])
        self.patches = [os.path.join(path, n) for n in names[1:]]
        dep = os.path.join(path, "depends")
        self.depends = []
        if os.path.exists(dep):
            with open(dep) as f:
                self.depends = [l.strip() for l in f
                                if l.strip() and not l.startswith("#")]
        self.prefix = "PATCH"
        pre = os.path.join(path, "subject-prefix")
        if os.path.exists(pre):
            with open(pre) as f:
                self.prefix = f.read().strip() or "PATCH"

    @property
    def branch(self):
        return f"s/{self.name}"

    def cover_parts(self):
        """(subject, blurb) of the cover letter."""
        with open(self.cover) as f:
            text = f.read()
        m = re.search(r"^Subject: \[[^\]]*\] (.*(?:\n [^\n]*)*)", text, re.M)
        if not m:
            die(f"{self.cover}: no Subject")
        subject = re.sub(r"\n ", "", m.group(1))
        body = text.split("\n\n", 1)[1]
        # The blurb ends where format-patch's shortlog starts.
        m = re.search(r"^\S.* \(\d+\):\n", body, re.M)
        blurb = body[:m.start()] if m else body
        return subject, blurb.rstrip("\n") + "\n"


def load(repo):
    sdir = os.path.join(repo, "series")
    out = [Series(os.path.join(sdir, n)) for n in sorted(os.listdir(sdir))
           if os.path.isdir(os.path.join(sdir, n))]
    names = {s.name for s in out}
    for k, s in enumerate(out):
        for d in s.depends:
            if d not in names or d not in [t.name for t in out[:k]]:
                die(f"{s.path}/depends: {d} is not an earlier series")
    if not out:
        die(f"no series in {sdir}")
    return out


def changed_base_files(series):
    """The base files the patches change (not the ones they add)."""
    files = set()
    for s in series:
        for p in s.patches:
            with open(p) as f:
                for line in f:
                    m = re.match(r"^--- a/(\S+)", line)
                    if m:
                        files.add(m.group(1))
    return sorted(files)


def make_base(gdir, base, files):
    """A git repository at gdir whose first commit, tag "base", holds
    the given files of the base tree."""
    shutil.rmtree(gdir, ignore_errors=True)
    os.makedirs(gdir)
    git(gdir, "init", "-q", "-b", "stack")
    git(gdir, "config", "user.name", "Simgpu Developer")
    git(gdir, "config", "user.email", "dev@simgpu.invalid")
    git(gdir, "config", "am.keepcr", "false")
    git(gdir, "config", "rebase.updateRefs", "true")
    git(gdir, "config", "absorb.maxStack", "200")
    for f in files:
        src = os.path.join(base, f)
        if not os.path.isfile(src):
            continue        # a file an earlier patch adds
        dst = os.path.join(gdir, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        shutil.copymode(src, dst)
    git(gdir, "add", "-A")
    git(gdir, "commit", "-q", "--allow-empty", "-m",
        "base: the files of the base tree that the series change",
        env={"GIT_AUTHOR_NAME": "base", "GIT_AUTHOR_EMAIL": "base@localhost",
             "GIT_COMMITTER_NAME": "base",
             "GIT_COMMITTER_EMAIL": "base@localhost",
             "GIT_AUTHOR_DATE": DATE})
    git(gdir, "tag", "-f", "base")


def am(gdir, s):
    """git am one series; dies naming the patch and file that fail."""
    if not s.patches:
        return
    r = git(gdir, "am", "-q", "--keep-cr", *s.patches, check=False)
    if r.returncode:
        cur = git(gdir, "am", "--show-current-patch=raw", check=False).stdout
        subj = re.search(r"^Subject: (.*)", cur or "", re.M)
        # git am prints "error: patch failed: FILE:LINE"
        files = sorted(set(re.findall(r"patch failed: (\S+?):\d+",
                                      r.stderr + r.stdout)))
        files += sorted(set(re.findall(r"error: (\S+): does not exist",
                                       r.stderr + r.stdout)))
        git(gdir, "am", "--abort", check=False)
        which = next((p for p in s.patches if subj and
                      subj.group(1).split("] ")[-1][:30] in open(p).read()),
                     None)
        die(f"series {s.name}: {os.path.relpath(which) if which else '?'} "
            f"({subj.group(1) if subj else '?'}) does not apply: "
            f"{', '.join(files) or (r.stderr + r.stdout).strip()}")


def apply(repo, base, gdir, series):
    make_base(gdir, base, changed_base_files(series))
    for s in series:
        am(gdir, s)
        git(gdir, "branch", "-f", s.branch)
    git(gdir, "tag", "-f", "exported")


def unexported(gdir):
    """What the stack has that series/ does not: commits since the last
    apply or export, or uncommitted changes."""
    if not os.path.isdir(os.path.join(gdir, ".git")):
        return None
    why = []
    if git(gdir, "status", "--porcelain", "--untracked-files=no").stdout:
        why.append("uncommitted changes")
    if os.path.isdir(os.path.join(gdir, ".git", "rebase-merge")) or \
       os.path.isdir(os.path.join(gdir, ".git", "rebase-apply")):
        why.append("a rebase or am in progress")
    r = git(gdir, "rev-parse", "HEAD", "exported", check=False)
    heads = r.stdout.split()
    if r.returncode or len(heads) != 2 or heads[0] != heads[1]:
        why.append("commits that were not exported (make series-export)")
    return why


def series_ranges(gdir, series):
    """(series, first exclusive, last) commits of each series' branch."""
    out = []
    prev = "base"
    for s in series:
        if git(gdir, "rev-parse", "--verify", "-q", s.branch,
               check=False).returncode:
            die(f"the stack has no branch {s.branch}")
        out.append((s, prev, s.branch))
        prev = s.branch
    # the last series ends at HEAD: commits added after it are its own
    top = git(gdir, "rev-parse", "HEAD").stdout.strip()
    last = git(gdir, "rev-parse", series[-1].branch).stdout.strip()
    if top != last:
        r = git(gdir, "merge-base", "--is-ancestor", last, top, check=False)
        if r.returncode:
            die(f"HEAD is not on top of {series[-1].branch}")
        git(gdir, "branch", "-f", series[-1].branch, top)
    return out


def format_series(gdir, s, lo, hi, outdir, extra=()):
    """git format-patch of lo..hi into outdir with s's cover letter."""
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    n = int(git(gdir, "rev-list", "--count", f"{lo}..{hi}").stdout)
    if n == 0:
        die(f"series {s.name} has no patch")
    git(gdir, "format-patch", "-q", *FP_OPTS, *extra,
        f"--subject-prefix={s.prefix}", "-o", outdir, f"{lo}..{hi}")
    subject, blurb = s.cover_parts()
    cover = os.path.join(outdir, sorted(os.listdir(outdir))[0])
    with open(cover) as f:
        text = f.read()
    text = text.replace("*** SUBJECT HERE ***", subject)
    text = text.replace("*** BLURB HERE ***\n", blurb)
    with open(cover, "w") as f:
        f.write(text)


def new_files(gdir, rev="HEAD"):
    """{path: (mode, blob)} of the files the series adds, at rev."""
    out = {}
    added = git(gdir, "diff", "--name-only", "--diff-filter=A", "base",
                rev).stdout.split()
    for line in git(gdir, "ls-tree", "-r", rev, "--", *added).stdout \
            .splitlines() if added else []:
        meta, path = line.split("\t", 1)
        mode, _, blob = meta.split()
        out[path] = (mode, blob)
    return out


def repo_overlay(repo):
    out = git(repo, "ls-files", "--cached", "--others", "--exclude-standard",
              "--", *OVERLAY_DIRS).stdout.split("\n")
    return sorted(f for f in out if f and os.path.isfile(os.path.join(repo, f))
                  and not f.startswith(tuple(OUTSIDE_SERIES)))


def blob(gdir, b):
    return subprocess.run(["git", "-C", gdir, "cat-file", "blob", b],
                          check=True, stdout=subprocess.PIPE).stdout


def write_tree_files(repo, gdir):
    """Make the repository's new files the stack's tip's."""
    tip = new_files(gdir)
    for path, (mode, b) in tip.items():
        dst = os.path.join(repo, path)
        data = blob(gdir, b)
        old = open(dst, "rb").read() if os.path.exists(dst) else None
        if old != data:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(data)
        os.chmod(dst, 0o755 if mode == "100755" else 0o644)
    for path in repo_overlay(repo):
        if path not in tip:
            os.unlink(os.path.join(repo, path))
            print(f"stack: removed {path}: no patch adds it")


def squash(repo, gdir, series):
    """Fold the stack's fixup! and squash! commits into their patches,
    then export."""
    why = unexported(gdir)
    if why is None:
        die(f"no stack in {gdir}: make stack first")
    if git(gdir, "status", "--porcelain", "--untracked-files=no").stdout:
        die(f"{gdir} has uncommitted changes: commit them first")
    rebase(gdir, series, drop=False)
    export(repo, gdir, series)


def export(repo, gdir, series):
    why = unexported(gdir)
    if why is None:
        die(f"no stack in {gdir}: make stack first")
    if "uncommitted changes" in why or any("progress" in w for w in why):
        die(f"{gdir} has {', '.join(why)}: commit or abort first")
    for s, lo, hi in series_ranges(gdir, series):
        with tempfile.TemporaryDirectory() as tmp:
            format_series(gdir, s, lo, hi, tmp)
            for p in s.patches + [s.cover]:
                os.unlink(p)
            for n in sorted(os.listdir(tmp)):
                shutil.copyfile(os.path.join(tmp, n), os.path.join(s.path, n))
    write_tree_files(repo, gdir)
    git(gdir, "tag", "-f", "exported")
    print(f"stack: exported {len(series)} series to series/ and the tip's "
          "new files to the repository")


def absorb(repo, gdir, series):
    why = unexported(gdir)
    if why is None:
        die(f"no stack in {gdir}: make stack first")
    if why:
        die(f"{gdir} has {', '.join(why)}: finish that first")
    tip = new_files(gdir)
    missing = [f for f in repo_overlay(repo) if f not in tip]
    if missing:
        die("new files that no patch adds (add each to the patch it belongs "
            "to in the stack: git add, git commit --fixup=<commit>, then "
            "make series-export):\n  " + "\n  ".join(missing))
    changed = []
    for path, (mode, b) in tip.items():
        src = os.path.join(repo, path)
        if not os.path.exists(src):
            die(f"{path} is gone from the repository: remove it in the "
                "stack by hand (git rm, git commit --fixup=<commit>)")
        data = open(src, "rb").read()
        if data != blob(gdir, b):
            with open(os.path.join(gdir, path), "wb") as f:
                f.write(data)
            changed.append(path)
    if not changed:
        print("stack: the repository's files are the stack's: nothing to "
              "absorb")
        return
    git(gdir, "add", "--", *changed)
    r = git(gdir, "absorb", "--base", "base", check=False)
    if r.returncode:
        die(f"git absorb failed:\n{r.stderr}")
    left = git(gdir, "diff", "--cached", "--stat").stdout
    if left:
        git(gdir, "reset", "-q", "--hard", "exported")
        die("git absorb could not tell which patch these changes belong to "
            "(new lines beside lines of several patches?):\n" + left +
            "Commit them in the stack by hand: git commit --fixup=<commit>, "
            "then git rebase -i --autosquash base, make series-export.")
    rebase(gdir, series)
    export(repo, gdir, series)


def rebase(gdir, series, drop=True):
    """git rebase --autosquash; on a conflict, name the patch and files,
    abort, and with drop, go back to the exported stack."""
    r = git(gdir, "rebase", "-q", "-i", "--autosquash", "--update-refs",
            "base", check=False, env={"GIT_SEQUENCE_EDITOR": "true",
                                      "GIT_EDITOR": "true"})
    if r.returncode == 0:
        return
    stopped = git(gdir, "log", "-1", "--format=%s",
                  "REBASE_HEAD", check=False).stdout.strip()
    files = git(gdir, "diff", "--name-only", "--diff-filter=U").stdout.split()
    target = re.sub(r"^(fixup|squash|amend)! ", "", stopped)
    where = patch_file_of(gdir, series, target)
    what = (f"the fixup of {where} does not apply to it"
            if target != stopped else f"{where} does not apply once the "
            "fixup is in")
    print(f"stack: {what}: conflict in {', '.join(files) or '?'}"
          + (" (later patches changed the lines around the change: it "
             "belongs to one of them, or has to be carried through them)"
             if target != stopped else ""), file=sys.stderr)
    git(gdir, "rebase", "--abort", check=False)
    if drop:
        git(gdir, "reset", "-q", "--hard", "exported")
    die(""
        + ("Nothing was changed. Make the change in the stack by hand "
           "(git -C build/stack commit --fixup=<commit>), then "
           if drop else "The stack is as it was, fixups included: ")
        + "git -C build/stack rebase -i --autosquash base, resolve the "
        "conflict in that patch as git says, then make series-export.")


def patch_file_of(gdir, series, subject):
    """The patch file (and subject) of the stack's commit with that
    subject, as the series' branches have it."""
    lo = "base"
    for s in series:
        subj = git(gdir, "log", "--reverse", "--format=%s",
                   f"{lo}..{s.branch}", check=False).stdout.splitlines()
        lo = s.branch
        if subject in subj:
            p = s.patches[subj.index(subject)]
            return f"{os.path.relpath(p)} (\"{subject}\")"
    return f"\"{subject}\""


def patch_lines(path):
    with open(path) as f:
        return sum(1 for _ in f)


def check(repo, base, series, large):
    errors = []
    with tempfile.TemporaryDirectory() as work:
        gdir = os.path.join(work, "stack")
        apply(repo, base, gdir, series)
        tip = new_files(gdir)
        have = set(repo_overlay(repo))
        for path, (mode, b) in sorted(tip.items()):
            if path not in have:
                errors.append(f"{path}: in the stack, not in the repository")
            elif open(os.path.join(repo, path), "rb").read() != blob(gdir, b):
                errors.append(f"{path}: the repository's file differs from "
                              "the stack's tip (make series-absorb)")
        for path in sorted(have - set(tip)):
            errors.append(f"{path}: in the repository, added by no patch")
        # each series applies with its dependencies alone
        for s in series:
            err = applies_alone(work, base, series, s)
            if err:
                errors.append(err)
    for s in series:
        for p in s.patches:
            with open(p) as f:
                for path in re.findall(r"^diff --git a/(\S+)", f.read(), re.M):
                    if path.startswith(tuple(OUTSIDE_SERIES)):
                        errors.append(f"{os.path.relpath(p, repo)}: changes "
                                      f"{path}, a project outside the "
                                      "series")
                        break
    # The size is a symptom, not a rule: a large patch may be one step,
    # but says why
    big = set()
    for s in series:
        for p in s.patches:
            n = patch_lines(p)
            if n <= MAX_PATCH_LINES:
                continue
            key = f"{s.name}/{os.path.basename(p)[:4]}"
            big.add(key)
            if not large.get(key):
                errors.append(f"{os.path.relpath(p, repo)}: {n} lines, over "
                              f"{MAX_PATCH_LINES}: several steps? If it is "
                              f"one, say why in series/large-patches "
                              f"(\"{key} <why>\")")
    for key in sorted(set(large) - big):
        errors.append(f"series/large-patches: {key} is no longer over "
                      f"{MAX_PATCH_LINES} lines (or no such patch): drop "
                      "its line")
    return errors


def read_large(repo):
    """series/large-patches: "<series>/<NNNN> <why it is one step>" for
    each patch over MAX_PATCH_LINES lines; # starts a comment."""
    large = {}
    path = os.path.join(repo, "series", "large-patches")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#")[0].split(None, 1)
                if line:
                    large[line[0]] = line[1].strip() if len(line) > 1 else ""
    return large


IDENT_RE = re.compile(r"^[^<>@\n]*[^<>@\s]\s+<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$")


def generate(repo, base, out, ident, base_commit, version, holder=""):
    """The series to send: authored and signed by ident, one directory a
    series under out, each checked to git am with its dependencies."""
    if not ident or not IDENT_RE.match(ident):
        die(f"not an identity to sign the series with: {ident!r} "
            "(want 'Your Name <you@example.org>')")
    series = load(repo)
    name, addr = re.match(r"(.*?)\s*<(.+)>", ident).groups()
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with tempfile.TemporaryDirectory() as work:
        gdir = os.path.join(work, "stack")
        apply(repo, base, gdir, series)
        # Author and sign every patch as the sender.
        env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": addr,
               "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": addr}
        git(gdir, "config", "user.name", name)
        git(gdir, "config", "user.email", addr)
        git(gdir, "rebase", "-q", "--update-refs", "--exec",
            "git commit -q --amend --no-edit --reset-author -s", "base",
            env=env)
        for s, lo, hi in series_ranges(gdir, series):
            d = os.path.join(out, s.name)
            format_series(gdir, s, lo, hi, d, extra=["--base=base"])
            for n in sorted(os.listdir(d)):
                p = os.path.join(d, n)
                with open(p) as f:
                    text = f.read()
                text = text.replace("@MAINTAINER@", ident)
                text = text.replace("@COPYRIGHT@", holder or ident)
                text = text.replace("@BASE@", version)
                # The stack's base commit is ours alone: name the
                # sender's upstream commit, or none.
                text = re.sub(r"^base-commit: \S+\n",
                              f"base-commit: {base_commit}\n" if base_commit
                              else "", text, flags=re.M)
                with open(p, "w") as f:
                    f.write(text)
            for meta in ("depends", "subject-prefix"):
                if os.path.exists(os.path.join(s.path, meta)):
                    shutil.copyfile(os.path.join(s.path, meta),
                                    os.path.join(d, meta))
    # Each series as sent applies onto the base with its dependencies.
    sent = load_dir(out)
    with tempfile.TemporaryDirectory() as work:
        errors = [e for e in (applies_alone(work, base, sent, s)
                              for s in sent) if e]
    if errors:
        die("git am onto the base failed:\n  " + "\n  ".join(errors))
    n = sum(len(s.patches) for s in sent)
    print(f"series: {len(sent)} series, {n} patches in {out} (base "
          f"{version}), each git am onto the base with its dependencies: ok")
    for s in sent:
        print(f"  {s.name}: {len(s.patches)} patches"
              + (f", needs {', '.join(s.depends)}" if s.depends else ""))


def tip(repo, base, series, out):
    """Write the base files the series change, as the stack's tip has
    them, under out, their paths to out/.changed and the paths of the
    files the series adds to out/.new."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with tempfile.TemporaryDirectory() as work:
        gdir = os.path.join(work, "stack")
        apply(repo, base, gdir, series)
        changed = git(gdir, "diff", "--name-only", "--diff-filter=M",
                      "base", "HEAD").stdout.split()
        for path in changed:
            dst = os.path.join(out, path)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(subprocess.run(["git", "-C", gdir, "show",
                                        f"HEAD:{path}"], check=True,
                                       stdout=subprocess.PIPE).stdout)
        with open(os.path.join(out, ".changed"), "w") as f:
            f.write("".join(p + "\n" for p in changed))
        with open(os.path.join(out, ".new"), "w") as f:
            f.write("".join(p + "\n" for p in sorted(new_files(gdir))))


def load_dir(d):
    return [Series(os.path.join(d, n)) for n in sorted(os.listdir(d))
            if os.path.isdir(os.path.join(d, n))]


def applies_alone(work, base, series, s):
    """Why s does not git am onto the base with the series it depends on
    and nothing else, or None."""
    by = {t.name: t for t in series}
    need = closure(by, s)
    chain = [t for t in series if t.name in need] + [s]
    gdir = os.path.join(work, f"am-{s.name}")
    make_base(gdir, base, changed_base_files(chain))
    for t in chain:
        r = git(gdir, "am", "-q", "--keep-cr", *t.patches, check=False)
        if r.returncode:
            return (f"series {s.name} does not apply with "
                    f"{', '.join(need) or 'no other series'}: {t.name}: "
                    f"{r.stderr.strip()[:300]}")
    return None


def closure(by, s):
    need, todo = [], list(s.depends)
    while todo:
        d = todo.pop()
        if d not in need:
            need.append(d)
            todo += by[d].depends
    return need


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--base", help="the base kernel tree")
    ap.add_argument("--stack", help="the stack's git directory")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a_ = sub.add_parser("apply")
    a_.add_argument("--force", action="store_true")
    sub.add_parser("export")
    sub.add_parser("absorb")
    sub.add_parser("squash")
    sub.add_parser("check")
    sub.add_parser("list-changed")
    sub.add_parser("list-overlay-dirs")
    sub.add_parser("list-files")
    tp = sub.add_parser("tip")
    tp.add_argument("--out", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", required=True)
    g.add_argument("--signoff", required=True)
    g.add_argument("--version", required=True)
    g.add_argument("--base-commit", default="")
    g.add_argument("--copyright", default="",
                   help="the copyright holder (default: the sender)")
    a = ap.parse_args()
    repo = os.path.abspath(a.repo)
    stack = os.path.abspath(a.stack or os.path.join(repo, "build", "stack"))

    def need_base():
        if not a.base or not os.path.isfile(os.path.join(a.base, "Makefile")):
            die("--base: the base kernel tree is needed")
        return os.path.abspath(a.base)

    if a.cmd == "list-overlay-dirs":
        print("\n".join(OVERLAY_DIRS))
        return
    if a.cmd == "list-files":
        print("\n".join(repo_overlay(repo)))
        return
    series = load(repo)
    if a.cmd == "apply":
        why = unexported(stack)
        if why and not a.force:
            die(f"{stack} has {', '.join(why)}: export them (make "
                "series-export) or drop them (make stack FORCE=1)")
        apply(repo, need_base(), stack, series)
        n = sum(len(s.patches) for s in series)
        print(f"stack: {stack}: {len(series)} series, {n} patches applied")
    elif a.cmd == "export":
        export(repo, stack, series)
    elif a.cmd == "absorb":
        absorb(repo, stack, series)
    elif a.cmd == "squash":
        squash(repo, stack, series)
    elif a.cmd == "check":
        errors = check(repo, need_base(), series, read_large(repo))
        for e in errors:
            print(f"stack: {e}")
        n = sum(len(s.patches) for s in series)
        print(f"stack: {len(series)} series, {n} patches, "
              f"{'ok' if not errors else f'{len(errors)} problems'}")
        sys.exit(1 if errors else 0)
    elif a.cmd == "tip":
        tip(repo, need_base(), series, os.path.abspath(a.out))
    elif a.cmd == "list-changed":
        print("\n".join(changed_base_files(series)))
    elif a.cmd == "generate":
        generate(repo, need_base(), os.path.abspath(a.out), a.signoff,
                 a.base_commit, a.version, a.copyright)


if __name__ == "__main__":
    main()
