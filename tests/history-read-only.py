#!/usr/bin/env python3
"""history and export only read: they work on a database its caller
cannot write, and change nothing. As a user who is not the database's
owner (nobody, through setpriv, when the test runs as root), with the
database 0444:
- in WAL mode (as ingest leaves it) in a directory 0555, where no -shm
  file can be made;
- the same in a directory the user can write;
- in rollback-journal mode, in a directory 0555.
Each time history (text and JSON) and export (NDJSON and CSV) print what
they print for the owner, and the database's bytes stay the same.

usage: history-read-only.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import sqlite3
import sys
import tempfile

from helpers import check, demo_history, finish, lastwords, run, setup, skip

READS = (["history"], ["history", "--format", "json", "--by", "process"],
         ["export", "--format", "ndjson"], ["export", "--format", "csv"])


def as_other_user():
    """The command prefix that runs a program as a user who does not own
    the files this test makes."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        skip("running as root without setpriv: cannot read as another user")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def main():
    lw, root = setup("usage: history-read-only.py LASTWORDS SOURCE_ROOT")
    other = as_other_user()
    if other and run(other + [lw, "--version"]).returncode != 0:
        skip("lastwords cannot be run as nobody (a directory above it is not open to others)")
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        wal_dir = os.path.join(tmp, "wal")
        os.mkdir(wal_dir)
        db = demo_history(lw, wal_dir)
        want = {}
        for args in READS:
            p = lastwords(lw, [args[0], "--db", db] + args[1:])
            check(p.returncode == 0 and p.stdout, "%s as the owner: %d %s" % (args, p.returncode, p.stderr))
            want[tuple(args)] = p.stdout
        journal_dir = os.path.join(tmp, "journal")
        os.mkdir(journal_dir)
        journal = os.path.join(journal_dir, "history.db")
        shutil.copy(db, journal)
        for path, want_mode in ((journal, "delete"), (db, "wal")):
            c = sqlite3.connect(path)
            mode = c.execute("PRAGMA journal_mode" + (" = DELETE" if path == journal else "")).fetchone()[0]
            c.close()  # the last connection: the -wal and -shm files go
            check(mode == want_mode, "%s is in %s mode: %s" % (path, want_mode, mode))

        cases = ((db, wal_dir, 0o555, "WAL, read-only directory"),
                 (db, wal_dir, 0o777, "WAL, writable directory"),
                 (journal, journal_dir, 0o555, "rollback journal, read-only directory"))
        for path, folder, dir_mode, what in cases:
            check(not os.path.exists(path + "-wal") and not os.path.exists(path + "-shm"),
                  "%s: no -wal or -shm file before" % what)
            with open(path, "rb") as f:
                before = f.read()
            os.chmod(path, 0o444)
            os.chmod(folder, dir_mode)
            try:
                for args in READS:
                    p = run(other + [lw, args[0], "--db", path] + args[1:])
                    check(p.returncode == 0, "%s: %s exits %d: %s" % (what, " ".join(args), p.returncode,
                                                                   p.stderr.strip()))
                    check(p.stdout == want[tuple(args)], "%s: %s prints what it prints for the owner"
                          % (what, " ".join(args)))
            finally:
                os.chmod(folder, 0o755)
                os.chmod(path, 0o644)
            with open(path, "rb") as f:
                check(f.read() == before, "%s: the database is unchanged" % what)
            for extra in ("-wal", "-shm"):
                if os.path.exists(path + extra):
                    os.unlink(path + extra)  # a reader's, where it could make them
    return finish("history-read-only: %d cases as %s" % (len(cases), "nobody" if other else "this user"))


sys.exit(main())
