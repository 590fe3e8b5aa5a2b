#!/usr/bin/env python3
"""The report of a partial pull says that it is partial and what it lacks
(issue 10, item 18), from the manifest.json that `lastwords pull` writes
(device/pull.c: "complete": false, and a "missing" list of what, reason and
required): in the text, first; in the JSON's "pull" object, as
schemas/report.schema.json describes it; and in the HTML page, which shows
what the JSON says.

Before the fix the report of a pull that lacked its rings said only that
the exit records matched "no run".

usage: report-partial-pull.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, setup

MISSING = [
    {"what": "rings", "required": True,
     "reason": "no ring file in the app's files directory, nor in /sdcard/Android/data"},
    {"what": "tombstones", "required": False,
     "reason": "ls: /data/tombstones: Permission denied (readable on rooted or userdebug devices)"},
]


def main():
    lw, _ = setup(__doc__)
    with tempfile.TemporaryDirectory() as d:
        bundle = os.path.join(d, "pulled.partial")
        os.mkdir(bundle)
        for name in ("dumpsys-exit-info.txt", "logcat.txt"):
            shutil.copy(os.path.join("fixtures/demo", name), bundle)
        with open(os.path.join(bundle, "manifest.json"), "w") as f:
            json.dump({"kind": "lastwords-pull", "version": 1, "package": "com.example.demo",
                       "process": None, "pulled_at": "2026-11-30T01:00:00Z",
                       "files": [], "empty": [], "missing": MISSING,
                       "device": {"model": "Pixel 8", "android_version": "14"},
                       "tz_offset": "+0100", "complete": False}, f, indent=2)

        p = lastwords(lw, ["report", bundle])
        lines = p.stdout.splitlines()
        check(p.returncode == 0 and lines[:3] == [
            "note: the pull is partial: it lacks rings; it has no tombstones; runs and "
            "evidence that were not pulled are not in this report",
            "      missing rings (required): " + MISSING[0]["reason"],
            "      missing tombstones: " + MISSING[1]["reason"]],
            "the text starts with the partial pull: %d, %r" % (p.returncode, lines[:4]))
        # Without its rings, each exit record is a ring-less run: judged
        # from the system's evidence, with the partial pull said first.
        check(p.stdout.count("(ring-less: ") == 3 and "verdict    native_crash, confirmed" in
              p.stdout and "verdict    low_memory, confirmed" in p.stdout,
              "the records are ring-less runs: %r" % p.stdout)

        rep, _ = report_json(lw, [bundle])
        pull = (rep or {}).get("pull", {})
        check(pull.get("complete") is False and pull.get("missing") == MISSING and
              pull.get("manifests") == [os.path.join(bundle, "manifest.json")] and
              len(pull.get("notes", [])) == 1 and
              pull["notes"][0].startswith("the pull is partial: it lacks rings"),
              "the JSON's pull: %r" % pull)

        p = lastwords(lw, ["report", "--format", "html", bundle])
        check("the pull is partial: it lacks rings" in p.stdout and
              "<th>missing from the pull</th>" in p.stdout and
              "<tr><td>rings (required)</td><td>no ring file" in p.stdout,
              "the page shows the partial pull")

        # A complete pull has a pull object and no note.
        with open(os.path.join(bundle, "manifest.json")) as f:
            m = json.load(f)
        m.update(complete=True, missing=[])
        with open(os.path.join(bundle, "manifest.json"), "w") as f:
            json.dump(m, f)
        rep, _ = report_json(lw, [bundle])
        check(rep and rep.get("pull") == {"manifests": [os.path.join(bundle, "manifest.json")],
                                  "complete": True, "missing": [], "notes": []},
              "a complete pull: %r" % (rep and rep.get("pull")))
        p = lastwords(lw, ["report", bundle])
        check(not p.stdout.startswith("note: the pull"), "no note for a complete pull")
    return finish("a partial pull")


if __name__ == "__main__":
    sys.exit(main())
