#!/usr/bin/env python3
"""A bug report with no exit-info section still gives verdicts (issue 11,
part 4): the evidence of fixtures/scenarios/ringless-no-exit-info (a
tombstone, an ANR trace, a SYSTEM LOG with lmkd's kill, no exit record) in
a bug report of a device in Europe/Berlin gives that scenario's ring-less
verdicts, graded honestly: one system source is supported, and the exit
record is listed as missing. Each run names the entry or the section its
witness came from (ZIP:FS/data/tombstones/tombstone_00, ZIP:FS/data/anr/...,
ZIP:TEXT:SYSTEM LOG), and the lmkd line is cited at its line of the main
text. Log lines that write no year get the year of the header's date (the
one before, for a line after the report's month-day).

Before, the zip was "unknown kind" (exit 4) and gave no run.

usage: report-bugreport-no-exit-info.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import tempfile

from bugreports import BugReport, from_bundle
from helpers import check, finish, report_json, setup


LMKD = ("%s   612   612 I lowmemorykiller: Kill 'com.example.vision:inference' (%d), uid 10231, "
        "oom_score_adj 200 to free 262144kB rss, 18432kB swap; reason: low watermark is breached")


def main():
    lw, root = setup(__doc__)
    scenario = os.path.join(root, "fixtures", "scenarios", "ringless-no-exit-info")
    with open(os.path.join(scenario, "expected.json")) as f:
        want = {r["pid"]: r for r in json.load(f)["runs"]}
    with tempfile.TemporaryDirectory() as tmp:
        br, rest = from_bundle(lw, os.path.join(scenario, "bundle"), "Europe/Berlin", 120)
        check(not rest and not br.exit_info and br.tombstones and br.anrs and br.logcat,
              "all of it fits a bug report, with no exit-info")
        z = br.write_zip(os.path.join(tmp, br.zip_name()))
        text = br.main_name()
        rep, inputs = report_json(lw, [z])
        if not rep:
            return finish("a bug report with no exit-info")
        got = {r["pid"]: r for r in rep["runs"]}
        check(sorted(got) == sorted(want), "the runs: %s, expected %s" % (sorted(got), sorted(want)))
        for pid, w in want.items():
            r = got.get(pid)
            if not r:
                continue
            check(r["ring"] == "none" and
                  (r["classification"], r["evidence_level"]) == (w["classification"], w["evidence_level"]) and
                  r["rules"] == w["rules"],
                  "pid %d: %s %s %s, expected %s %s %s" % (pid, r["classification"], r["evidence_level"],
                                                         r["rules"], w["classification"],
                                                         w["evidence_level"], w["rules"]))
            check(not r["exit_records"] and
                  any("the exit record of this pid" in m for m in r["missing"]),
                  "pid %d: the exit record is missing, and listed: %s" % (pid, r["missing"]))
        where = {8123: z + ":FS/data/anr/", 9051: z + ":FS/data/tombstones/tombstone_00",
                 7311: z + ":" + text + ":SYSTEM LOG"}
        for pid, prefix in where.items():
            check(pid in got and got[pid]["file"].startswith(prefix),
                  "pid %d names where its witness came from: %s" % (pid, got.get(pid, {}).get("file")))
        lines = br.text().splitlines()
        lmkd = [i + 1 for i, l in enumerate(lines) if "lowmemorykiller" in l and "(7311)" in l]
        ev = got.get(7311, {}).get("evidence", [])
        check(lmkd and any("lmkd killed it (line %d)" % lmkd[0] in e for e in ev),
              "the lmkd line is cited at its line of the main text (%s): %s" % (lmkd, ev))
        check(inputs.get(z + ":FS/data/tombstones/tombstone_00", {}).get("kind") == "tombstone",
              "the tombstone's entry is an input of its own: %s" % list(inputs))
        check(rep["timezone"]["source"] == "bugreport", "the zone: %s" % rep["timezone"])

        # Only lmkd's line (its package named): logcat writes no year; the
        # header's date gives it, the year before for a line after the
        # report's month-day.
        br = BugReport("2026-01-02 00:10:00", "Europe/Berlin", 60)
        br.add("logcat", "logcat", LMKD % ("12-31 23:50:00.120", 7311) + "\n" +
               LMKD % ("01-01 23:59:00.000", 7312) + "\n")
        z = br.write_zip(os.path.join(tmp, "lmkd-only.zip"))
        rep, _ = report_json(lw, ["--package", "com.example.vision", z])
        if rep:
            ends = {r["pid"]: (r["end"], r["classification"], r["evidence_level"]) for r in rep["runs"]}
            check(ends == {7311: ("2025-12-31T22:50:00.120000Z", "low_memory", "supported"),
                           7312: ("2026-01-01T22:59:00.000000Z", "low_memory", "supported")},
                  "lmkd's kills are dated by the header, in its zone: %s" % ends)
    return finish("a bug report with no exit-info: %d ring-less verdicts" % len(want))


if __name__ == "__main__":
    raise SystemExit(main())
