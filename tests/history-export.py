#!/usr/bin/env python3
"""`lastwords export`: one row per run's verdict for a warehouse.

- The rows match `lastwords report --format json` of each bundle (every
  scenario of fixtures/scenarios/ with its --tz, and the demo): run id,
  process, pid, candidate, outcome, stages, memory, class, evidence level,
  rules, evidence, missing and actions, the first exit record.
- The rows have exactly the columns of schemas/verdict-row.md, in the order
  and with the types of schemas/verdict-row.bigquery.json; the ClickHouse
  table (schemas/verdict-row.clickhouse.sql) has the same columns.
- CSV is RFC 4180: a description with commas, quotes and newlines (from an
  app's exit-info JSON) comes back exactly through Python's csv reader, and
  the CSV says the same as the NDJSON, null apart from the empty string.
- -o writes FILE whole or not at all; bad command lines exit 2.

usage: history-export.py LASTWORDS SOURCE_ROOT
Exit status: 0 pass, 1 fail.
"""
import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, setup

TRICKY = 'killed, "twice": once by lmkd,\nonce by the OEM\'s "cleaner", then\r\nagain'


def bundles(root, tmp):
    """(bundle dir, extra args) for each scenario, the demo, and a bundle
    whose exit record's description needs quoting."""
    base = os.path.join(root, "fixtures", "scenarios")
    out = []
    for name in sorted(os.listdir(base)):
        b = os.path.join(base, name, "bundle")
        if not os.path.isdir(b) or name == "ring-binary-and-json":
            continue  # (that one's rings are given beside the bundle)
        args = os.path.join(base, name, "args")
        words = open(args).read().split() if os.path.exists(args) else []
        tz = words[words.index("--tz"):words.index("--tz") + 2] if "--tz" in words else []
        out.append((b, tz))
    out.append((os.path.join(root, "fixtures", "demo"), ["--tz", "+01:00"]))
    src = os.path.join(base, "memory-limiter-reason-17", "bundle")
    tricky = os.path.join(tmp, "tricky-description")
    shutil.copytree(src, tricky)
    p = os.path.join(tricky, "exit-info.json")
    doc = json.load(open(p))
    doc["records"][0]["description"] = TRICKY
    json.dump(doc, open(p, "w"), indent=2)
    for f in os.listdir(tricky):  # a run of its own, not the scenario's again
        if f.endswith(".jsonl"):
            q = os.path.join(tricky, f)
            text = re.sub(r'"run_id":"[0-9a-f]{32}"', '"run_id":"%s"' % ("7e" * 16), open(q).read())
            open(q, "w").write(text)
    out.append((tricky, []))
    return out


def schema(root):
    bq = json.load(open(os.path.join(root, "schemas", "verdict-row.bigquery.json")))
    ddl = open(os.path.join(root, "schemas", "verdict-row.clickhouse.sql")).read()
    body = ddl[ddl.index("(\n", ddl.index("CREATE TABLE")) + 2:ddl.index("\n)")]
    ch = [line.split()[0] for line in body.splitlines() if line.strip() and not line.strip().startswith("--")]
    md = [m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", open(os.path.join(root, "schemas", "verdict-row.md")).read(), re.M)]
    return bq, ch, md


def type_ok(field, v):
    if v is None:
        return field["mode"] == "NULLABLE"
    if field["mode"] == "REPEATED":
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    if field["type"] == "INT64":
        return isinstance(v, int) and not isinstance(v, bool)
    if field["type"] == "TIMESTAMP":
        return isinstance(v, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", v) is not None
    return isinstance(v, str)


def compare(row, run, where):
    """A row against the report's run."""
    def same(col, want):
        check(row[col] == want, "%s: %s is %r, the report says %r" % (where, col, row[col], want))

    for col, key in (("process", "process"), ("pid", "pid"), ("start_time", "start"), ("end_time", "end"),
                     ("app_version", "app_version"), ("candidate", "candidate"),
                     ("stable_candidate", "stable_candidate"), ("outcome", "outcome"),
                     ("last_stage", "last_stage"), ("class", "classification"),
                     ("evidence_level", "evidence_level"), ("contradiction", "contradiction"),
                     ("rules", "rules"), ("evidence", "evidence"), ("missing", "missing")):
        same(col, run[key])
    same("open_stage", run["open_stage"])
    same("peak_kb", run["memory"]["peak_kb"])
    same("budget_kb", run["memory"]["budget_kb"])
    over = run["memory"]["over_budget"]
    same("over_budget", None if over is None else int(over))
    # What nobody knows is null in the row as in the report, and known
    # values are themselves (issue 20, part 3).
    ringless = run["ring"] == "none"
    for col in ("last_stage", "open_stage", "budget_kb", "over_budget", "peak_kb"):
        check((row[col] is None) == ringless or (col == "peak_kb" and row[col] is None and
                                                 run["memory"]["peak_kb"] is None),
              "%s: %s is %r for a run %s" % (where, col, row[col],
                                             "without a ring" if ringless else "with a ring"))
    if ringless:
        check(row["app_version"] is None or row["app_version"] > 0,
              "%s: a ring-less run's app_version %r" % (where, row["app_version"]))
    same("actions", [a["action"] for a in run["recovery"]["actions"]])
    same("crash_signature", run["crash_signature"])
    first = run["exit_records"][0] if run["exit_records"] else None
    same("exit_reason", first["reason"] if first else None)
    same("exit_description", first["description"] if first else None)
    same("ring", run["ring"])
    if run["ring"] == "none":
        check(re.fullmatch(r"ringless-[0-9a-f]{16}", row["run_id"]) is not None,
              "%s: a ring-less run's id: %r" % (where, row["run_id"]))
    elif run["run_id"]:
        same("run_id", run["run_id"])
    else:
        check(re.fullmatch(r"seed-[0-9a-f]{16}", row["run_id"]) is not None,
              "%s: a seed run's id: %r" % (where, row["run_id"]))
    same("package", run["process"].split(":")[0])


def main():
    lw, root = setup(__doc__)
    bq, ch, md = schema(root)
    names = [f["name"] for f in bq]
    check(names == ch, "the ClickHouse table's columns are the BigQuery schema's: %s vs %s" % (ch, names))
    check(names == md, "verdict-row.md documents the same columns in the same order: %s" % md)
    with tempfile.TemporaryDirectory(prefix="lw-export-") as tmp:
        db = os.path.join(tmp, "h.db")
        reports = []
        for b, tz in bundles(root, tmp):
            r = lastwords(lw, ["ingest", "--db", db] + tz + [b])
            check(r.returncode == 0, "ingest %s: %s" % (b, r.stderr))
            rep = lastwords(lw, ["report", "--format", "json"] + tz + [b])
            check(rep.returncode in (0, 4), "report %s: %s" % (b, rep.stderr))
            reports.append((b, json.loads(rep.stdout)))
        nd = lastwords(lw, ["export", "--db", db, "--format", "ndjson"])
        check(nd.returncode == 0, "export ndjson exits 0: %s" % nd.stderr)
        rows = [json.loads(line) for line in nd.stdout.splitlines()]

        # The row: columns, order, types.
        for i, row in enumerate(rows):
            check(list(row) == names, "row %d has the schema's columns in order: %s" % (i, list(row)))
            for f in bq:
                if f["name"] in row:
                    check(type_ok(f, row[f["name"]]), "row %d: %s = %r is not %s %s"
                          % (i, f["name"], row[f["name"]], f["type"], f["mode"]))

        # Each report's runs are rows, with the same verdict.
        by_id = {}
        for row in rows:
            by_id.setdefault(row["run_id"], []).append(row)
        check(all(len(v) == 1 for v in by_id.values()), "one row per run")
        seen = set()
        for b, rep in reports:
            for run_ in rep["runs"]:
                if run_["ring"] == "none":
                    # Its key is a digest of its process, pid and death.
                    first = run_["exit_records"][0]["reason"] if run_["exit_records"] else None
                    cand = [r for r in rows if r["ring"] == "none" and r["process"] == run_["process"]
                            and r["pid"] == run_["pid"] and r["end_time"] == run_["end"]
                            and r["exit_reason"] == first]
                elif run_["run_id"]:
                    cand = by_id.get(run_["run_id"], [])
                else:
                    cand = [r for r in rows if r["process"] == run_["process"] and r["run_id"].startswith("seed-")]
                if run_["ring"] == "none" and not cand and any(
                        r["ring"] == "probe" and r["process"] == run_["process"] and
                        r["pid"] == run_["pid"] and r["exit_reason"] is not None for r in rows):
                    continue  # its death is stored with its ring, from another bundle
                if not check(len(cand) == 1, "%s: the run %s (pid %s) has one row"
                             % (b, run_["run_id"], run_["pid"])):
                    continue
                if cand[0]["run_id"] in seen:
                    continue  # the same ring in two bundles: the history keeps one verdict
                seen.add(cand[0]["run_id"])
                compare(cand[0], run_, "%s pid %s" % (os.path.basename(os.path.dirname(b)) or b, run_["pid"]))
        check(len(seen) == len(rows), "every row comes from a report: %d rows, %d runs" % (len(rows), len(seen)))
        check(any(r["ring"] == "none" for r in rows) and any(r["ring"] == "probe" for r in rows),
              "the export holds runs with the probe and without it")
        judged = sum(1 for r in rows if r["class"])
        check(judged >= 25, "the export holds the scenarios' verdicts (%d)" % judged)

        # CSV: the same rows, quoted so that they survive.
        cs = lastwords(lw, ["export", "--db", db, "--format", "csv"])
        check(cs.returncode == 0, "export csv exits 0: %s" % cs.stderr)
        raw = lastwords(lw, ["export", "--db", db, "--format", "csv"], text=False).stdout
        check(raw.count(b"\r\n") >= len(rows) + 1, "CSV lines end in CRLF")
        table = list(csv.reader(io.StringIO(raw.decode(), newline="")))
        check(table[0] == names, "the CSV header names the columns: %s" % table[0])
        check(len(table) == len(rows) + 1, "one CSV line per row: %d vs %d" % (len(table) - 1, len(rows)))
        for i, (cells, row) in enumerate(zip(table[1:], rows)):
            want = []
            for f in bq:
                v = row[f["name"]]
                want.append("" if v is None else json.dumps(v, separators=(",", ":"), ensure_ascii=False)
                            if isinstance(v, list) else str(v))
            check(cells == want, "CSV row %d equals the NDJSON row:\n  %s\n  %s" % (i, cells, want))
        # A ring-less run's unknowns are empty (null) cells, never 0 or none.
        for cells, row in zip(table[1:], rows):
            for col in ("last_stage", "open_stage", "budget_kb", "over_budget", "peak_kb"):
                cell = cells[names.index(col)]
                check((cell == "") == (row["ring"] == "none") or (col == "peak_kb" and cell == ""),
                      "CSV %s %s: %s is %r" % (row["ring"], row["run_id"], col, cell))
        tricky = [r for r in rows if r["exit_description"] == TRICKY]
        check(len(tricky) == 1, "the description with commas, quotes and newlines is exported as it was")
        quoted = '"' + TRICKY.replace('"', '""') + '"'
        check(quoted.encode() in raw, "the CSV cell is quoted with its quotes doubled")
        # null is an empty field: a clean run's class.
        demo_clean = [c for c in table[1:] if c[names.index("class")] == ""]
        check(demo_clean, "clean runs have an empty class field")

        # -o: whole or nothing.
        out = os.path.join(tmp, "rows.csv")
        r = lastwords(lw, ["export", "--db", db, "--format", "csv", "-o", out])
        check(r.returncode == 0 and open(out, "rb").read() == raw and not os.path.exists(out + ".tmp"),
              "-o writes the same bytes, and no .tmp is left")
        bad = os.path.join(tmp, "no-such-dir", "rows.csv")
        r = lastwords(lw, ["export", "--db", db, "--format", "csv", "-o", bad])
        check(r.returncode == 13 and "no-such-dir" in r.stderr and not os.path.exists(bad),
              "-o into a missing directory: exit 13 naming it: %d %s" % (r.returncode, r.stderr))
        for args, what in ((["--db", db], "--format"), (["--db", db, "--format", "xml"], "xml"),
                           (["--format", "csv"], "--db"), (["--db", db, "--format", "csv", "extra"], "extra")):
            r = lastwords(lw, ["export"] + args)
            check(r.returncode == 2 and what in r.stderr, "export %s: usage error naming %s: %d %s"
                  % (args, what, r.returncode, r.stderr))
    return finish("history-export: %d rows checked against their reports, the schemas and the CSV"
                  % len(rows))


sys.exit(main())
