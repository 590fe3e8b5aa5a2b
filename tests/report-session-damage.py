#!/usr/bin/env python3
"""A damaged session table is said, never shown as sessions (issue 20,
4.6). fixtures/rings/sessions-switch.lwr, a real probe's ring of a switch
killed midway (sessions 0, 1 and 2 open, 15 closed with alloc_failed),
with impossible values written in its table:

- session 15's result 99 (no error class), session 1's opens at its
  maximum, session 2 opened after the newest record, session 3 (never
  opened) with state 7;

verify flags every one of them (exit 1, text and JSON), and the report
names each in its run (text, JSON "header_damage", HTML), builds no
session on a damaged entry (only session 0 is left, so no switch-overlap),
and its verdict lists the damage as missing. The same file untouched is
read as before: four sessions, no damage.

usage: report-session-damage.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import struct
import tempfile

from helpers import check, finish, lastwords, schema_errors, setup

RING = "fixtures/rings/sessions-switch.lwr"
TZ = ["--tz", "+00:00"]
WANT = [
    "session 1: opens field holds 4294967295, its maximum",
    "session 2: opened_mono_ns field holds",
    "after the newest record",
    "session 3: state field holds 7, not a session state",
    "session 15: result field holds 99, not an error class",
]


def entry(i):
    return 512 + 64 * i


def damaged(path):
    data = bytearray(open(RING, "rb").read())
    struct.pack_into("<I", data, entry(15) + 56, 99)           # result
    struct.pack_into("<I", data, entry(1) + 60, 0xFFFFFFFF)    # opens
    opened = struct.unpack_from("<Q", data, entry(2) + 48)[0]
    struct.pack_into("<Q", data, entry(2) + 48, opened + 10**12)  # 1000 s later
    struct.pack_into("<I", data, entry(3), 7)                  # state
    with open(path, "wb") as f:
        f.write(data)


def report(lw, fmt, path):
    return lastwords(lw, ["report", "--format", fmt] + TZ + [path])


def main():
    lw, _ = setup(__doc__)
    # untouched: as before
    rep = json.loads(report(lw, "json", RING).stdout)
    run = rep["runs"][0]
    check([s["id"] for s in run["sessions"]] == [0, 1, 2, 15] and
          run.get("header_damage") == [],
          "the untouched ring: sessions %s, damage %s"
          % ([s["id"] for s in run["sessions"]], run.get("header_damage")))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "damaged-sessions.lwr")
        damaged(path)
        p = lastwords(lw, ["verify", path])
        check(p.returncode == 1 and all(w in p.stdout for w in WANT) and "CORRUPT" in p.stdout,
              "verify flags every damaged field: exit %d, %r" % (p.returncode, p.stdout))
        p = lastwords(lw, ["verify", "--json", path])
        v = json.loads(p.stdout.splitlines()[0]) if p.stdout else {}
        check(p.returncode == 1 and not v.get("ok", True) and
              all(w in v.get("header_damage", "") for w in WANT),
              "verify --json flags every damaged field: %s" % v.get("header_damage"))

        p = report(lw, "json", path)
        check(p.returncode == 0, "report: exit %d, %r" % (p.returncode, p.stderr))
        try:
            rep = json.loads(p.stdout)
            run = rep["runs"][0]
        except (ValueError, IndexError):
            rep, run = {}, {}
        errors = schema_errors("schemas/report.schema.json", rep)
        check(not errors, "the report is valid against its schema: %s" % errors[:3])
        damage = run.get("header_damage", [])
        check(len(damage) == 4 and all(any(w in x for x in damage) for w in WANT),
              "the report's JSON names each damaged field: %s" % damage)
        ids = [s["id"] for s in run.get("sessions", [])]
        check(ids == [0], "no session is built on a damaged entry: sessions %s" % ids)
        check("switch-overlap" not in run.get("rules", []) and
              run.get("resident_candidates") == [],
              "nothing is judged of the damaged sessions: rules %s, resident %s"
              % (run.get("rules"), run.get("resident_candidates")))
        check(any("damaged fields" in m for m in run.get("missing", [])),
              "the verdict lists the damage as missing: %s" % run.get("missing"))

        text = report(lw, "text", path).stdout
        check("damaged    the ring header's fields: " in text and
              all(w in text for w in WANT) and "session 15" not in text.split("damaged")[0] and
              "closed (alloc_failed)" not in text,
              "the text names the damage and shows no damaged session: %r" % text[:1500])
        html = report(lw, "html", path).stdout
        check("Damaged header fields (not used)" in html and
              all(w in html for w in WANT),
              "the HTML names the damage")
    return finish("a damaged session table")


if __name__ == "__main__":
    raise SystemExit(main())
