#!/usr/bin/env python3
"""The bug report of a device in a zone with daylight saving time gives
confirmed verdicts without --tz (issue 11, "Done when"): the zone is its
persist.sys.timezone (fixtures/bugreports/dst-berlin: Europe/Berlin, two
deaths at 12:00:03 on the device's clock, one each side of the change to
summer time), read through the system's tzdata at each record's own date,
unzipped (the fixture's bundle: the rings and bundle/bugreport) and zipped,
beside the rings. The verdicts are those of the same pieces given apart
with --tz Europe/Berlin. The report says where the zone came from
(timezone.source "bugreport", and in the text). The fixture's unzipped bug
report is what tests/bugreports.py writes from its pieces.

A zone name this tzdata lacks is no zone: the offset of the day the report
was taken (dumpsys alarm's nowRTC) stands in for it, which puts the death
before the change an hour off, and the report says so.

Before, the bug report's zone was not read (times were taken as UTC: no
death joined its run), or only as its offset when it was taken (pid 4001
unconfirmed).

usage: report-bugreport-dst.py LASTWORDS SOURCE_ROOT
"""
import filecmp
import glob
import os
import shutil
import tempfile

from bugreports import from_fixture, write_fixture
from helpers import check, finish, lastwords, report_json, setup

WANT = {4001: ("low_memory", "confirmed"), 4002: ("low_memory", "confirmed"), 4003: (None, None)}


def judged(rep):
    """The ringed runs' verdicts by pid, and the ring-less runs as
    ("ring-less", pid): a death that joined no ring is one of those."""
    return {(r["pid"] if r["ring"] != "none" else ("ring-less", r["pid"])):
            (r["classification"], r["evidence_level"]) for r in rep["runs"]}


def same_tree(a, b):
    """Whether two directories hold the same files with the same bytes."""
    c = filecmp.dircmp(a, b)
    if c.left_only or c.right_only or c.funny_files:
        return False
    if any(not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)
           for f in c.common_files):
        return False
    return all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in c.common_dirs)


def main():
    lw, root = setup(__doc__)
    fixture = os.path.join(root, "fixtures", "bugreports", "dst-berlin")
    bundle = os.path.join(fixture, "bundle")
    rings = sorted(glob.glob(os.path.join(bundle, "*.jsonl")))
    with tempfile.TemporaryDirectory() as tmp:
        # the committed bug report is the one the pieces give
        copy = os.path.join(tmp, "fixture")
        shutil.copytree(fixture, copy)
        write_fixture(copy)
        check(same_tree(os.path.join(bundle, "bugreport"), os.path.join(copy, "bundle", "bugreport")),
              "fixtures/bugreports/dst-berlin/bundle/bugreport is what its pieces give "
              "(python3 tests/bugreports.py fixtures/bugreports/dst-berlin rewrites it)")

        apart = os.path.join(tmp, "apart")
        os.makedirs(apart)
        for f in rings + glob.glob(os.path.join(fixture, "pieces", "*")):
            shutil.copy(f, apart)
        want, _ = report_json(lw, ["--tz", "Europe/Berlin", apart])
        if want:
            check(judged(want) == WANT, "the pieces apart, --tz Europe/Berlin: %s" % judged(want))

        br = from_fixture(fixture)
        zipped = os.path.join(tmp, "zipped")
        os.makedirs(zipped)
        for f in rings:
            shutil.copy(f, zipped)
        br.write_zip(os.path.join(zipped, br.zip_name()))
        for what, d in (("unzipped", bundle), ("zipped", zipped)):
            rep, _ = report_json(lw, [d])
            if not rep:
                continue
            check(judged(rep) == WANT, "%s, without --tz: %s" % (what, judged(rep)))
            check(want is None or judged(rep) == judged(want),
                  "%s: the verdicts of the pieces apart" % what)
            tz = rep["timezone"]
            check(tz == {"offset_minutes": 120, "name": "Europe/Berlin", "source": "bugreport",
                         "assumed": False}, "%s: the zone is the bug report's: %s" % (what, tz))
            p = lastwords(lw, ["report", d])
            check(p.returncode == 0 and
                  "note: local times were read in Europe/Berlin, from the bug report's "
                  "persist.sys.timezone" in p.stdout,
                  "%s: the text says where the zone came from: %r" % (what, p.stdout[-400:]))

        # A name this tzdata lacks: the offset when it was taken stands in.
        br.zone = "Mars/Olympus"
        os.remove(os.path.join(zipped, br.zip_name()))
        br.write_zip(os.path.join(zipped, br.zip_name()))
        rep, _ = report_json(lw, [zipped])
        if rep:
            got = judged(rep)
            check(got.get(4002) == WANT[4002] and got.get(4001) != WANT[4001] and
                  ("ring-less", 4001) in got,
                  "at the offset of the day it was taken, only the death after the change "
                  "joins its run; the other is taken for a death no ring tells: %s" % got)
            check(rep["timezone"]["source"] == "bugreport" and rep["timezone"]["name"] is None and
                  rep["timezone"]["offset_minutes"] == 120,
                  "the stand-in offset, from the bug report: %s" % rep["timezone"])
        p = lastwords(lw, ["report", zipped])
        check("the bug report's zone 'Mars/Olympus' is not in this system's tzdata: its offset "
              "when it was taken stood in for it" in p.stdout,
              "the text says the offset stood in: %r" % p.stdout[-600:])
    return finish("a DST device's bug report, zipped and unzipped")


if __name__ == "__main__":
    raise SystemExit(main())
