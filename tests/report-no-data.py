#!/usr/bin/env python3
"""No data is not a pass (issue 10, item 8): `report --fail-on` on inputs
that hold no run and no exit record exits 12 (documented in `lastwords
help` and lastwords(1)), and hidden files are read, so a bundle whose ring
names all start with '.' is judged like any other.

Before the fix both exited 0: the gate passed on an empty directory, and
the bundle walk skipped dot-files, so a native crash in a hidden ring went
unseen.

usage: report-no-data.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, setup


def main():
    lw, _ = setup(__doc__)
    gate = ["report", "--fail-on", "native_crash"]
    with tempfile.TemporaryDirectory() as d:
        empty = os.path.join(d, "empty")
        os.mkdir(empty)
        p = lastwords(lw, gate + [empty])
        check(p.returncode == 12 and "no data" in p.stderr,
              "a gate on an empty directory: exit %d, %r" % (p.returncode, p.stderr))
        p = lastwords(lw, ["report", empty])
        check(p.returncode == 0, "a report (no gate) on an empty directory: exit %d"
              % p.returncode)

        # Evidence, but no run and no exit record: still nothing to judge.
        logs = os.path.join(d, "logs")
        os.mkdir(logs)
        shutil.copy("fixtures/demo/logcat.txt", logs)
        p = lastwords(lw, gate + [logs])
        check(p.returncode == 12, "a gate on a logcat alone: exit %d" % p.returncode)
        # Exit records are data: with no ring, each is a ring-less run that
        # the gate judges (issue 11): the native crash fails it, an ANR
        # gate passes.
        shutil.copy("fixtures/demo/dumpsys-exit-info.txt", logs)
        p = lastwords(lw, gate + [logs])
        check(p.returncode == 3, "a gate on exit records and no ring: exit %d, %r"
              % (p.returncode, p.stderr))
        p = lastwords(lw, ["report", "--fail-on", "anr", logs])
        check(p.returncode == 0, "an ANR gate on them: exit %d, %r" % (p.returncode, p.stderr))

        # Hidden rings are read: the demo's native crash fails the gate.
        hidden = os.path.join(d, "hidden")
        shutil.copytree("fixtures/demo", hidden)
        rings = os.path.join(hidden, "rings")
        for name in os.listdir(rings):
            os.rename(os.path.join(rings, name), os.path.join(rings, "." + name))
        os.rename(rings, os.path.join(hidden, ".rings"))
        p = lastwords(lw, gate + ["--tz", "+01:00", hidden])
        check(p.returncode == 3 and "verdict    native_crash, confirmed" in p.stdout,
              "hidden rings: exit %d, %r" % (p.returncode, p.stdout[:300]))

    p = lastwords(lw, ["help"])
    check("12 report --fail-on on no data" in p.stdout, "help names status 12: %r" % p.stdout)
    with open("man/lastwords.1") as f:
        man = f.read()
    check(".It 12\n.Cm report Fl Fl fail-on :\nno data" in man, "lastwords(1) names status 12")
    return finish("no data is not a pass")


if __name__ == "__main__":
    sys.exit(main())
