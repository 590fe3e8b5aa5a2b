#!/usr/bin/env python3
"""Outputs that claim nothing unknown (issue 20, part 3). A ring-less run
(DESIGN.md, "Runs without a ring"; fixtures/demo has one) has no stage,
budget or peak that anybody knows: each output says null (the history's
stage groups: "unknown"), never "none", false or 0, and a run with a ring
gives its real values in the same places.

- report JSON (checked against schemas/report.schema.json): last_stage,
  stage_open, open_stage, memory.budget_kb, peak_kb, peak_stage and
  over_budget are null for the ring-less run, their values for the rings;
  an app version or pid that nothing gave is null, never 0;
- the schema allows those nulls, and refuses the old claims in their
  place for a ring (stage_open "none", peak_kb 0, app_version 0);
- export NDJSON and CSV: the same nulls (empty CSV cells), and the rings'
  values equal to the report's;
- history --by app_version: a version nobody gave is "unknown", not 0;
- history --by stage: the ring-less run is in "unknown", not in "none",
  also in a database of schema version 7 upgraded in place;
- trace: the ring-less run's track says "no ring: stage and candidate
  unknown" and holds no stage.

Before the fix: "none", false and 0 in each.

usage: report-unknown-null.py LASTWORDS SOURCE_ROOT
"""
import csv
import io
import json
import os
import re
import sqlite3
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, schema_errors, setup

TZ = ["--tz", "+01:00"]
UNKNOWN = ("last_stage", "stage_open", "open_stage")
MEMORY = ("budget_kb", "peak_kb", "peak_stage", "over_budget")
COLUMNS = ("last_stage", "open_stage", "budget_kb", "peak_kb", "over_budget")


def report_runs(lw):
    rep, _ = report_json(lw, TZ + ["fixtures/demo"])
    runs = rep["runs"] if rep else []
    ringless = [r for r in runs if r["ring"] == "none"]
    rings = [r for r in runs if r["ring"] == "probe"]
    check(len(ringless) == 1 and len(rings) == 4, "the demo: 1 ring-less run and 4 rings, not %d and %d"
          % (len(ringless), len(rings)))
    for r in ringless:
        for k in UNKNOWN:
            check(r[k] is None, "ring-less pid %s: %s is %r, not null" % (r["pid"], k, r[k]))
        for k in MEMORY:
            check(r["memory"][k] is None, "ring-less pid %s: memory.%s is %r, not null"
                  % (r["pid"], k, r["memory"][k]))
        check(r["app_version"] is None or r["app_version"] > 0, "ring-less: app_version %r"
              % r["app_version"])
    for r in rings:
        where = "ring pid %s" % r["pid"]
        check(isinstance(r["stage_open"], bool) and isinstance(r["last_stage"], str) and
              isinstance(r["open_stage"], str) and (r["open_stage"] != "none") == r["stage_open"],
              "%s: stage_open %r, last_stage %r, open_stage %r" % (where, r["stage_open"],
                                                                  r["last_stage"], r["open_stage"]))
        m = r["memory"]
        check(isinstance(m["budget_kb"], int) and m["peak_kb"] > 0 and isinstance(m["peak_stage"], str)
              and isinstance(m["over_budget"], bool), "%s: memory %r" % (where, m))
        check(r["app_version"] > 0 and r["pid"] > 0, "%s: app_version %r" % (where, r["app_version"]))
    # The schema takes the nulls only where they mean unknown.
    if ringless and rings:
        bad = json.loads(json.dumps(rep))
        x = [r for r in bad["runs"] if r["ring"] == "probe"][0]
        x["stage_open"] = "none"
        x["memory"]["peak_kb"] = 0
        x["app_version"] = 0
        errs = schema_errors("schemas/report.schema.json", bad)
        check(len(errs) >= 3, "the schema takes stage_open \"none\", peak_kb 0 and app_version 0: %s"
              % errs)
    return ringless, rings


def export_rows(lw, db):
    nd = lastwords(lw, ["export", "--db", db, "--format", "ndjson"])
    cs = lastwords(lw, ["export", "--db", db, "--format", "csv"])
    check(nd.returncode == 0 and cs.returncode == 0, "export: %s %s" % (nd.stderr, cs.stderr))
    rows = [json.loads(x) for x in nd.stdout.splitlines()]
    table = list(csv.reader(io.StringIO(cs.stdout)))
    return rows, table[0] if table else [], table[1:]


def check_export(lw, db, ringless, rings):
    rows, names, cells = export_rows(lw, db)
    check(len(rows) == 5 and len(cells) == 5, "5 rows, not %d (%d in CSV)" % (len(rows), len(cells)))
    for row, line in zip(rows, cells):
        csvrow = dict(zip(names, line))
        if row["ring"] == "none":
            for col in COLUMNS:
                check(row[col] is None and csvrow.get(col) == "",
                      "export of the ring-less run: %s is %r (CSV %r), not null" % (col, row[col],
                                                                                  csvrow.get(col)))
            check(row["app_version"] is None or row["app_version"] > 0, "export: app_version %r"
                  % row["app_version"])
            continue
        want = [r for r in rings if r["run_id"] == row["run_id"]]
        if not check(len(want) == 1, "export: row %s is of no ring of the report" % row["run_id"]):
            continue
        r = want[0]
        got = {c: row[c] for c in COLUMNS + ("app_version", "pid")}
        exp = {"last_stage": r["last_stage"], "open_stage": r["open_stage"],
               "budget_kb": r["memory"]["budget_kb"], "peak_kb": r["memory"]["peak_kb"],
               "over_budget": int(r["memory"]["over_budget"]), "app_version": r["app_version"],
               "pid": r["pid"]}
        check(got == exp, "export of ring %s: %s, the report says %s" % (row["run_id"], got, exp))
        for col in COLUMNS:
            check(csvrow.get(col) == str(exp[col]), "CSV of ring %s: %s is %r, not %r"
                  % (row["run_id"], col, csvrow.get(col), str(exp[col])))


def groups(lw, db, by):
    p = lastwords(lw, ["history", "--db", db, "--by", by, "--format", "json"])
    if not check(p.returncode == 0, "history --by %s: %s" % (by, p.stderr)):
        return {}
    return {g["group"]: g["runs"] for g in json.loads(p.stdout)["groups"]}


def check_history(lw, db, ringless, rings, where):
    # An app version nobody gave is "unknown", never version 0.
    got = groups(lw, db, "app_version")
    want = {}
    for r in ringless + rings:
        v = "unknown" if r["app_version"] is None else str(r["app_version"])
        want[v] = want.get(v, 0) + 1
    check(got == want, "%s: history --by app_version %s, expected %s" % (where, got, want))
    p = lastwords(lw, ["history", "--db", db, "--by", "app_version"])
    check("app_version 0" not in p.stdout and "app_version unknown:" in p.stdout,
          "%s: the text names an app version 0, or none unknown: %r" % (where, p.stdout))
    got = groups(lw, db, "stage")
    want = {}
    for r in rings:
        want[r["open_stage"]] = want.get(r["open_stage"], 0) + 1
    want["unknown"] = len(ringless)
    check(got == want, "%s: history --by stage %s, expected %s" % (where, got, want))
    p = lastwords(lw, ["history", "--db", db, "--by", "stage"])
    check("stage unknown: %d run" % len(ringless) in p.stdout,
          "%s: the text names no stage unknown: %r" % (where, p.stdout))


def version7_copy(root, src, path):
    """A database of schema version 7 (before this fix) holding src's rows:
    its tallies counted the ring-less run as in stage "none"."""
    text = open(os.path.join(root, "schemas", "history.sql")).read()
    parts = re.split(r"^-- version (\d+)\n", text, flags=re.M)
    steps = dict((int(parts[i]), parts[i + 1]) for i in range(1, len(parts), 2))
    c = sqlite3.connect(path)
    for v in range(1, 8):
        c.executescript(steps[v])
    c.execute("ATTACH ? AS src", (src,))
    for table in ("bundle", "run", "run_line", "exit_record", "boot_loop", "run_event"):
        cols = ", ".join(r[1] for r in c.execute("PRAGMA main.table_info(%s)" % table))
        c.execute("INSERT INTO main.%s SELECT %s FROM src.%s" % (table, cols, table))
    c.commit()
    c.execute("DETACH src")
    stale = c.execute("SELECT runs FROM run_tally WHERE dimension = 'stage' AND grp = 'none'").fetchall()
    c.execute("PRAGMA user_version = 7")
    c.execute("PRAGMA application_id = %d" % 0x4c57484e)
    c.commit()
    c.close()
    return sum(r[0] for r in stale)


def check_trace(lw, tmp):
    out = os.path.join(tmp, "demo.pftrace")
    p = lastwords(lw, ["trace"] + TZ + ["-o", out, "fixtures/demo"])
    if not check(p.returncode == 0, "trace: %s" % p.stderr):
        return
    data = open(out, "rb").read()
    check(b"no ring: stage and candidate unknown" in data,
          "the trace's ring-less track does not say its stage is unknown")


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    ringless, rings = report_runs(lw)
    with tempfile.TemporaryDirectory(prefix="lw-null-") as tmp:
        db = os.path.join(tmp, "h.db")
        p = lastwords(lw, ["ingest", "--db", db] + TZ + ["fixtures/demo"])
        check(p.returncode == 0, "ingest: %s" % p.stderr)
        check_export(lw, db, ringless, rings)
        check_history(lw, db, ringless, rings, "a new database")
        old = os.path.join(tmp, "v7.db")
        stale = version7_copy(root, db, old)
        check(stale == sum(1 for r in rings if r["open_stage"] == "none") + len(ringless),
              "version 7 counted the ring-less run as stage none (%d)" % stale)
        check_history(lw, old, ringless, rings, "a version 7 database upgraded")
        c = sqlite3.connect(old)
        check(c.execute("PRAGMA user_version").fetchone()[0] >= 8, "the version-7 database is upgraded")
        c.close()
        check_trace(lw, tmp)
    return finish("a ring-less run's unknowns are null in JSON, export, history and trace")


if __name__ == "__main__":
    sys.exit(main())
