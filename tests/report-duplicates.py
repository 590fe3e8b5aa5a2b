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
- Two pulls an hour apart, whose files differ: a record both hold (an exit
  record, a log line) is one witness, counted once, and the report says
  how many were.

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

        # Two pulls taken an hour apart: the second's dumpsys holds the
        # first's records and a newer one, and its logcat one more line, so
        # the files differ and are both read. Each record both hold counts
        # once: one exit record per run, the stale one a ring-less run
        # once, and the newer one (of a pid no ring has) a ring-less run.
        later = os.path.join(d, "later")
        for name in ("a", "b"):
            shutil.copytree("fixtures/demo", os.path.join(later, name))
        dump = os.path.join(later, "b", "dumpsys-exit-info.txt")
        with open(dump) as f:
            text = f.read()
        at = text.index("        ApplicationExitInfo #0:")
        with open(dump, "w") as f:
            f.write(text[:at] +
                    "        ApplicationExitInfo #0:\n"
                    "          timestamp=2026-11-30 02:28:04.873 pid=26711 realUid=10187 "
                    "packageUid=10187 definingUid=10187 user=0\n"
                    "          process=com.example.demo:inference reason=3 (LOW_MEMORY) "
                    "subreason=0 (UNKNOWN) status=0\n"
                    "          importance=125 pss=104MB rss=118MB description=null "
                    "state=empty trace=null\n" + text[at:])
        with open(os.path.join(later, "b", "logcat.txt"), "a") as f:
            f.write("11-30 02:28:05.000  1580  1612 I ActivityManager: Start proc 26800\n")
        rep, _ = report(lw, [later])
        if rep:
            check(verdicts(rep) == verdicts(want) + [(26711, "unknown", "unconfirmed")],
                  "two later pulls: runs %r" % verdicts(rep))
            joined = {r["pid"]: len(r["exit_records"]) for r in rep["runs"] if r["exit_records"]}
            check(joined == {25706: 1, 25711: 1, 25495: 1, 26711: 1},
                  "each exit record joins once: %r" % joined)
            one = lastwords(lw, ["report", "--format", "json", "--tz", "+01:00",
                                 "fixtures/demo"]).stdout
            ev = {r["pid"]: r["evidence"] for r in json.loads(one)["runs"]}
            check(all(r["evidence"] == ev[r["pid"]] for r in rep["runs"] if r["pid"] in ev),
                  "the evidence lines are the demo's, none twice")
            check(rep["unmatched_exit_records"] == [],
                  "every record is in a run: %r" % rep["unmatched_exit_records"])
            check(any(n.endswith("held by more than one input counted once")
                      for n in rep["device"]["notes"]), "the report says so: %r" % rep["device"])

        # ingest stores the confirmed verdicts.
        db = os.path.join(d, "history.db")
        p = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", pulls])
        check(p.returncode == 0 and "5 runs: 5 new" in p.stdout,
              "ingest: exit %d, %r %r" % (p.returncode, p.stdout, p.stderr))
        p = lastwords(lw, ["export", "--db", db, "--format", "ndjson"])
        rows = sorted((r["pid"], r["class"], r["evidence_level"])
                      for r in map(json.loads, p.stdout.splitlines()))
        check(rows == sorted(verdicts(want)), "ingest stored %r, expected %r"
              % (rows, sorted(verdicts(want))))
    return finish("the same run twice")


if __name__ == "__main__":
    sys.exit(main())
