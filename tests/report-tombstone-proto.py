#!/usr/bin/env python3
"""A tombstone in protobuf (tombstone_NN.pb, or the trace of a native crash
that an app exported with getTraceInputStream()) in a bundle is read: the
demo's crash of pid 25706 with only the protobuf of its tombstone is a
native_crash with the tombstone among its rules; with the text tombstone
and its protobuf twin both, the crash counts once (the same five runs, no
ring-less one), the protobuf the witness kept. Bytes that only begin like a
protobuf, or a protobuf without a build fingerprint, are still an unknown
kind. The same in a bug report (tests/bugreports.py), its
FS/data/tombstones/tombstone_00 with its .pb twin, then the .pb alone.

usage: report-tombstone-proto.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import sys
import tempfile

from bugreports import from_bundle
from helpers import check, finish, lastwords, report_json, setup
from tombstone_pb import demo_twin, field, tombstone


def crash_run(rep):
    """The demo's native crash run (pid 25706), or {}."""
    return next((r for r in rep["runs"] if r["pid"] == 25706 and r.get("ring")), {})


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    tmp = tempfile.mkdtemp(prefix="lw-tomb-pb-")
    try:
        bundle = os.path.join(tmp, "bundle")
        shutil.copytree(os.path.join(root, "fixtures", "demo"), bundle)
        pb = os.path.join(bundle, "traces", "tombstone.25706.1764458884675.pb")
        os.makedirs(os.path.dirname(pb))
        with open(pb, "wb") as f:
            f.write(demo_twin())

        # the protobuf twin and the text: one crash
        rep, inputs = report_json(lw, ["--tz", "+01:00", bundle])
        if rep:
            x = inputs.get(pb, {})
            check(x.get("kind") == "tombstone" and "skipped" not in x,
                  "the protobuf is read as a tombstone: %r" % x)
            check(len(rep["runs"]) == 5, "the demo's five runs, no ring-less tombstone run: %r"
                  % [(r["pid"], r["classification"]) for r in rep["runs"]])
            r = crash_run(rep)
            check(r.get("classification") == "native_crash" and "tombstone" in r.get("rules", []),
                  "the crash run: native_crash from the tombstone: %r %r"
                  % (r.get("classification"), r.get("rules")))
            tombs = [e for e in r.get("evidence", []) if e.startswith("tombstone:")]
            check(len(tombs) == 1 and "SEGV_MAPERR" in tombs[0] and "gles" in tombs[0],
                  "one tombstone in its evidence: %r" % tombs)
            # the witness kept is the protobuf, which has every thread
            files = [e.get("file") for e in (r.get("timeline") or {}).get("evidence", [])
                     if e.get("kind") == "tombstone"]
            check(pb in files and os.path.join(bundle, "tombstone_00") not in files,
                  "the timeline's tombstone is the protobuf: %r" % files)
        p = lastwords(lw, ["report", "--tz", "+01:00", bundle])
        check(p.returncode == 0 and "not read" not in p.stdout and
              "native_crash" in p.stdout,
              "the text report: %d %s" % (p.returncode, p.stderr))

        # in a bug report (zip): FS/data/tombstones/tombstone_00 and its .pb
        # twin, one crash; then the .pb alone, still the crash's tombstone
        for twins in (True, False):
            br, beside = from_bundle(lw, os.path.join(root, "fixtures", "demo"), "Europe/Paris",
                                     60, taken="2026-11-30 09:00:00")
            if not twins:
                br.tombstones = []
                br.add("tombstone-pb", "", demo_twin())
            wd = os.path.join(tmp, "br-%d" % twins)
            os.makedirs(wd)
            for f in beside:
                shutil.copy(f, wd)
            for ring in os.listdir(os.path.join(root, "fixtures", "demo", "rings")):
                shutil.copy(os.path.join(root, "fixtures", "demo", "rings", ring), wd)
            z = br.write_zip(os.path.join(wd, br.zip_name()))
            rep, inputs = report_json(lw, ["--tz", "+01:00", wd])
            if not rep:
                continue
            what = "the bug report with %s" % ("both" if twins else "the .pb alone")
            x = inputs.get(z + ":FS/data/tombstones/tombstone_00.pb", {})
            check(x.get("kind") == "tombstone", "%s: its .pb read: %r" % (what, x))
            r = crash_run(rep)
            check(r.get("classification") == "native_crash" and "tombstone" in r.get("rules", []),
                  "%s: native_crash from the tombstone: %r %r"
                  % (what, r.get("classification"), r.get("rules")))
            check(not [q for q in rep["runs"] if not q.get("ring") and q["pid"] == 25706],
                  "%s: no ring-less run of the crash: %r" % (what, [(q["pid"], q["classification"])
                                                                   for q in rep["runs"]]))

        # the protobuf alone: still the crash's tombstone
        os.unlink(os.path.join(bundle, "tombstone_00"))
        rep, inputs = report_json(lw, ["--tz", "+01:00", bundle])
        if rep:
            r = crash_run(rep)
            check(r.get("classification") == "native_crash" and "tombstone" in r.get("rules", []),
                  "the protobuf alone: native_crash from its tombstone: %r %r"
                  % (r.get("classification"), r.get("rules")))
            check(len(rep["runs"]) == 5, "five runs: %d" % len(rep["runs"]))

        for name, data in (("noise.bin", bytes(range(256)) * 8),
                           ("no-fingerprint.pb", field(1, 1) + field(2, "not one") + field(5, 7)),
                           ("out-of-order.pb", field(5, 7) + field(2, tombstone(1, "x")[2:80]))):
            other = os.path.join(tmp, name)
            with open(other, "wb") as f:
                f.write(data)
            p = lastwords(lw, ["report", "--tz", "+01:00", bundle, other])
            check(p.returncode == 4 and "unknown kind" in p.stderr,
                  "%s is still an unknown kind: %d %s" % (name, p.returncode, p.stderr))
    finally:
        shutil.rmtree(tmp)
    return finish("a tombstone protobuf is read, once with its text twin; other bytes are "
                  "still unknown")


if __name__ == "__main__":
    sys.exit(main())
