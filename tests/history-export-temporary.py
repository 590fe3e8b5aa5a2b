#!/usr/bin/env python3
"""export -o FILE writes a temporary beside FILE and renames it, and the
temporary is its own: a symlink planted at FILE.tmp (the name an earlier
export used) to another file, or a dangling one, is neither followed nor
replaced, and the file it points to is left as it was. The temporary gets
the mode of a new file, and none is left behind. A FILE that is not a
regular file (here a symlink to /dev/full) is written in place, never
replaced.

usage: history-export-temporary.py LASTWORDS SOURCE_ROOT
"""
import os
import stat
import sys
import tempfile

from helpers import check, demo_history, finish, lastwords, setup


def main():
    lw, root = setup("usage: history-export-temporary.py LASTWORDS SOURCE_ROOT")
    with tempfile.TemporaryDirectory() as tmp:
        db = demo_history(lw, tmp)
        want = lastwords(lw, ["export", "--db", db, "--format", "ndjson"]).stdout

        out = os.path.join(tmp, "out")
        os.mkdir(out)
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("not to be touched\n")
        target = os.path.join(out, "rows.ndjson")
        os.symlink(victim, target + ".tmp")
        dangling = os.path.join(tmp, "created-through-a-link")
        os.symlink(dangling, os.path.join(out, "other.ndjson.tmp"))

        old = os.umask(0o022)
        try:
            p = lastwords(lw, ["export", "--db", db, "--format", "ndjson", "-o", target])
            q = lastwords(lw, ["export", "--db", db, "--format", "ndjson", "-o",
                               os.path.join(out, "other.ndjson")])
        finally:
            os.umask(old)
        check(p.returncode == 0 and q.returncode == 0, "export -o exits 0: %d %r, %d %r"
              % (p.returncode, p.stderr, q.returncode, q.stderr))
        with open(victim) as f:
            check(f.read() == "not to be touched\n", "the file a planted FILE.tmp points to is untouched")
        check(not os.path.lexists(dangling), "a dangling FILE.tmp is not followed to create its target")
        check(os.path.islink(target + ".tmp") and os.readlink(target + ".tmp") == victim,
              "the planted link stays as it was")
        for name in ("rows.ndjson", "other.ndjson"):
            path = os.path.join(out, name)
            check(os.path.isfile(path) and not os.path.islink(path), "%s is a regular file" % name)
            with open(path) as f:
                check(f.read() == want, "%s holds the rows" % name)
            mode = stat.S_IMODE(os.stat(path).st_mode)
            check(mode == 0o644, "%s has a new file's mode under umask 022: %o" % (name, mode))
        left = sorted(os.listdir(out))
        check(left == ["other.ndjson", "other.ndjson.tmp", "rows.ndjson", "rows.ndjson.tmp"],
              "no temporary is left: %s" % left)

        # Not a regular file: written in place, not renamed over.
        full = os.path.join(tmp, "full")
        os.symlink("/dev/full", full)
        p = lastwords(lw, ["export", "--db", db, "--format", "csv", "-o", full])
        check(p.returncode == 13 and "cannot write" in p.stderr,
              "-o to a device writes it, and a full one exits 13: %d %r" % (p.returncode, p.stderr))
        check(os.path.islink(full) and os.readlink(full) == "/dev/full",
              "-o to a device leaves the link to it in place")
        check(sorted(os.listdir(tmp)) == ["full", "history.db", "out", "victim"],
              "-o to a device leaves no temporary: %s" % sorted(os.listdir(tmp)))
    return finish("history-export-temporary: planted links, modes, devices")


sys.exit(main())
