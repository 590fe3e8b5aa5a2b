#!/usr/bin/env python3
"""The same run twice counts once (issue 10, item 4).

- The same ring under two names in a bundle, and two pulls of one device
  given together: before the fix each run was reported twice, so the exit
  record fitted two runs' windows and joined neither (a confirmed verdict
  became unconfirmed), the crash and its copy made a boot loop, and
  `ingest` stored the worse verdict. Now a file with the same bytes as one
  read before is left out, and the report names it and what it repeats.
- Two rings of one run that differ (the JSON lines of an earlier pull,
  with fewer records): the one with more records is kept, whichever comes
  first.
- A directory that holds two pulls (a manifest.json each) is read as one
  report that says it merged them.

usage: report-duplicates.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, setup, verdicts

RING = "com.example.demo:inference.20261130T002804.630Z.25706.lwr"


def report(lw, args):
    """The JSON report of args, with the device's zone, and its inputs."""
    return report_json(lw, ["--tz", "+01:00"] + args)


def manifest(path, pulled_at):
    with open("fixtures/history/bundles/05-pixel-v100-b-repull/manifest.json") as f:
        m = json.load(f)
    m.update(package="com.example.demo", pulled_at=pulled_at, files=[])
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(m, f)


def main():
    lw, _ = setup(__doc__)
    want, _ = report(lw, ["fixtures/demo"])
    if not want:
        return finish("duplicates")
    check(("25706", "native_crash", "confirmed") in
          [(str(p), c, l) for p, c, l in verdicts(want)], "the demo: %r" % verdicts(want))
    with tempfile.TemporaryDirectory() as d:
        # The same ring under two names.
        one = os.path.join(d, "one")
        shutil.copytree("fixtures/demo", one)
        copy = os.path.join(one, "rings", "copy-of-25706.lwr")
        shutil.copy(os.path.join(one, "rings", RING), copy)
        rep, inputs = report(lw, [one])
        if rep:
            check(verdicts(rep) == verdicts(want) and rep["boot_loops"] == [],
                  "a ring twice: runs %r, loops %r" % (verdicts(rep), rep["boot_loops"]))
            check(inputs[copy].get("duplicate_of") == os.path.join(one, "rings", RING)
                  and inputs[copy].get("skipped"), "the copy is named: %r" % inputs[copy])

        # An earlier pull's JSON lines of the same run, with fewer records,
        # named to come first: the ring with every record is kept.
        early = os.path.join(one, "rings", "0-earlier-pull.jsonl")
        p = lastwords(lw, ["dump", "--json", os.path.join(one, "rings", RING)])
        with open(early, "w") as f:
            f.write("".join(p.stdout.splitlines(True)[:4]))
        rep, inputs = report(lw, [one])
        if rep:
            run = [r for r in rep["runs"] if r["pid"] == 25706]
            check(len(run) == 1 and run[0]["file"] == os.path.join(one, "rings", RING),
                  "the run with more records is kept: %r" % [r["file"] for r in run])
            check(inputs[early].get("duplicate_of") == os.path.join(one, "rings", RING),
                  "the earlier pull is named: %r" % inputs[early])
            check(verdicts(rep) == verdicts(want), "runs %r" % verdicts(rep))
        p = lastwords(lw, ["report", "--tz", "+01:00", one])
        check("  '%s': the same run as another input (run id " % early in p.stdout and
              "'%s/rings/%s' is read\n" % (one, RING) in p.stdout,
              "the text names the duplicate: %r" % p.stdout[-900:])

        # Two pulls of one device, in one directory, a manifest each.
        pulls = os.path.join(d, "pulls")
        for name, when in (("a", "2026-11-30T01:00:00Z"), ("b", "2026-11-30T02:00:00Z")):
            shutil.copytree("fixtures/demo", os.path.join(pulls, name))
            manifest(os.path.join(pulls, name), when)
        rep, inputs = report(lw, [pulls])
        if rep:
            check(verdicts(rep) == verdicts(want) and rep["boot_loops"] == [],
                  "two pulls: runs %r, loops %r" % (verdicts(rep), rep["boot_loops"]))
            dups = [i for i in rep["inputs"] if i.get("duplicate_of")]
            check(len(dups) == 7 and all(i["file"].startswith(os.path.join(pulls, "b"))
                                         for i in dups), "b's 7 files repeat a's: %r" % dups)
            notes = rep.get("pull", {}).get("notes", [])
            check(len(rep.get("pull", {}).get("manifests", [])) == 2 and
                  any(n.startswith("the inputs hold 2 pulls") for n in notes),
                  "the report says it merged two pulls: %r" % rep.get("pull"))
        p = lastwords(lw, ["report", "--tz", "+01:00", pulls])
        check(p.stdout.startswith("note: the inputs hold 2 pulls (a manifest.json each), read "
                                  "as one report"), "the text says so: %r" % p.stdout[:300])

        # ingest stores the confirmed verdicts.
        db = os.path.join(d, "history.db")
        p = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", pulls])
        check(p.returncode == 0 and "4 runs: 4 new" in p.stdout,
              "ingest: exit %d, %r %r" % (p.returncode, p.stdout, p.stderr))
        p = lastwords(lw, ["export", "--db", db, "--format", "ndjson"])
        rows = sorted((r["pid"], r["class"], r["evidence_level"])
                      for r in map(json.loads, p.stdout.splitlines()))
        check(rows == sorted(verdicts(want)), "ingest stored %r, expected %r"
              % (rows, sorted(verdicts(want))))
    return finish("the same run twice")


if __name__ == "__main__":
    sys.exit(main())
