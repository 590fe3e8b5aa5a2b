#!/usr/bin/env python3
"""`lastwords history --by device|sdk|delegate|runtime` and their
combinations, against figures counted here from other sources:

- each bundle of fixtures/history ingested; each run's delegates and
  runtime version in the history (read through `lastwords export`) are
  those its bundle's `lastwords report --format json` gives (the ring's
  delegate and fallback marks), and its device and SDK level those of the
  bundle's manifest;
- for each --by of the four alone and combined (in both orders), with and
  without --since, the JSON's cells are exactly the cells counted in
  Python from the export's rows (device: maker and model; 'unknown' and
  'unmarked' as lastwords(1) says), in the order --by names them (SDK
  levels by number), each with its runs, deaths, classes and keys, and a
  death rate inside its interval; the text's table says the same;
- --by names that do not combine are usage errors (exit 2) naming them.

usage: history-matrix.py LASTWORDS SOURCE_ROOT
"""
import itertools
import json
import os
import re
import sys
import tempfile

from helpers import check, finish, lastwords, setup, skip

FIXTURES = "fixtures/history/bundles"
DIMS = ("device", "sdk", "delegate", "runtime")


def key_of(row, dim):
    if dim == "device":
        if row["device_model"] is None:
            return "unknown"
        return row["device_model"] if row["manufacturer"] is None else \
            "%s %s" % (row["manufacturer"], row["device_model"])
    if dim == "sdk":
        return "unknown" if row["sdk"] is None else str(row["sdk"])
    if dim == "delegate":
        return "unknown" if row["delegates"] is None else row["delegates"] or "unmarked"
    if row["runtime_version"] is not None:
        return str(row["runtime_version"])
    return "unknown" if row["delegates"] is None else "unmarked"


def sort_key(dims, keys):
    out = []
    for d, k in zip(dims, keys):
        if d == "sdk":
            out.append((0, int(k), "") if k.isdigit() else (1, 0, k))
        else:
            out.append((0, 0, k.encode()))
    return out


def expected(rows, dims, since):
    cells = {}
    for r in rows:
        seen = r["start_time"] or r["end_time"]
        if since and (seen is None or seen < since):
            continue
        keys = tuple(key_of(r, d) for d in dims)
        c = cells.setdefault(keys, {"runs": 0, "died": 0, "classes": {}})
        c["runs"] += 1
        if r["class"] is not None:
            c["died"] += 1
            lv = c["classes"].setdefault(r["class"], {})
            lv[r["evidence_level"]] = lv.get(r["evidence_level"], 0) + 1
    return [(k, cells[k]) for k in sorted(cells, key=lambda k: sort_key(dims, k))]


def got_cells(out, dims):
    cells = []
    for g in out["groups"]:
        keys = tuple(g["keys"].get(d) for d in dims)
        check(list(g["keys"]) == list(dims), "keys %s for --by %s" % (list(g["keys"]), ",".join(dims)))
        check(g["group"] == " / ".join(keys), "group %r for keys %s" % (g["group"], keys))
        lo, hi = g["died_interval"]
        check(lo <= g["died_rate"] <= hi and abs(g["died_rate"] - g["died"] / g["runs"]) < 1e-12,
              "%s: died_rate %r outside %r" % (g["group"], g["died_rate"], g["died_interval"]))
        classes = {c: {lv: x[lv] for lv in ("confirmed", "supported", "unconfirmed") if x[lv]}
                   for c, x in g["classes"].items() if x["total"]}
        cells.append((keys, {"runs": g["runs"], "died": g["died"], "classes": classes}))
    return cells


def main():
    lw, root = setup("usage: history-matrix.py LASTWORDS SOURCE_ROOT")
    if not os.path.isdir(FIXTURES):
        skip("no %s" % FIXTURES)
    bundles = sorted(os.path.join(FIXTURES, n) for n in os.listdir(FIXTURES))
    compared = 0
    with tempfile.TemporaryDirectory(prefix="lw-history-matrix-") as tmp:
        db = os.path.join(tmp, "h.db")
        r = lastwords(lw, ["ingest", "--db", db] + bundles)
        check(r.returncode == 0, "ingest exits %d: %s" % (r.returncode, r.stderr))
        r = lastwords(lw, ["export", "--db", db, "--format", "ndjson"])
        check(r.returncode == 0, "export exits %d: %s" % (r.returncode, r.stderr))
        rows = [json.loads(line) for line in r.stdout.splitlines()]
        by_id = {row["run_id"]: row for row in rows}

        # What each bundle's report and manifest say, as stored.
        marked = 0
        for b in bundles:
            rep = lastwords(lw, ["report", "--format", "json", b])
            man = json.load(open(os.path.join(b, "manifest.json"))) \
                if os.path.exists(os.path.join(b, "manifest.json")) else None
            for run in json.loads(rep.stdout)["runs"] if rep.stdout else []:
                row = by_id.get(run["run_id"]) if run["run_id"] else None
                if row is None:
                    continue
                want = None if run["delegates"] is None else "+".join(run["delegates"])
                marked += bool(run["delegates"])
                check(row["delegates"] == want and row["runtime_version"] == run["runtime_version"],
                      "%s: delegates %r and runtime %r stored, the report says %r and %r"
                      % (run["run_id"], row["delegates"], row["runtime_version"], want,
                         run["runtime_version"]))
                if man and row["device_model"] == man["device"].get("model"):
                    check(row["manufacturer"] == man["device"].get("manufacturer"),
                          "%s: manufacturer %r, the manifest's %r"
                          % (run["run_id"], row["manufacturer"], man["device"].get("manufacturer")))
        check(marked > 0, "no fixture run marks a delegate: the matrix's delegate is untested")

        times = sorted(t for t in ((r["start_time"] or r["end_time"]) for r in rows) if t)
        sinces = [None, times[len(times) // 2][:10], times[len(times) // 2][:16]]
        combos = [c for n in range(1, 5) for c in itertools.permutations(DIMS, n)]
        for dims in combos[:4] + [c for c in combos if len(c) > 1][::3]:
            for since in sinces:
                args = ["history", "--db", db, "--by", ",".join(dims), "--format", "json"]
                args += ["--since", since] if since else []
                r = lastwords(lw, args)
                if not check(r.returncode == 0, "%s exits %d: %s" % (" ".join(args), r.returncode, r.stderr)):
                    continue
                out = json.loads(r.stdout)
                want = expected(rows, dims, since)
                got = got_cells(out, dims)
                compared += 1
                check(got == want, "--by %s --since %s:\n    got  %s\n    want %s"
                      % (",".join(dims), since, got, want))
                # The text's table: the same cells, runs and deaths.
                t = lastwords(lw, [a for a in args if a not in ("--format", "json")])
                table = [line for line in t.stdout.splitlines()
                         if re.match(r"^.*\s(\d+)\s+(\d+)\s+[\d.]+%  [\d.]+-[\d.]+%$", line)]
                check(len(table) == len(want), "--by %s: %d table lines for %d cells"
                      % (",".join(dims), len(table), len(want)))
                for line, (keys, c) in zip(table, want):
                    nums = re.findall(r"(\d+)\s+(\d+)\s+[\d.]+%  [\d.]+-[\d.]+%$", line)[0]
                    check(line.startswith(keys[0]) and (int(nums[0]), int(nums[1])) == (c["runs"], c["died"]),
                          "--by %s: table line %r for %s %s" % (",".join(dims), line, keys, c))
        for bad in ("device,candidate", "sdk,sdk", "device,", "delegate,bogus"):
            r = lastwords(lw, ["history", "--db", db, "--by", bad])
            check(r.returncode == 2 and "--by" in r.stderr, "--by %s exits %d: %s"
                  % (bad, r.returncode, r.stderr.strip()))
    return finish("%d matrices compared with the export's rows" % compared)


if __name__ == "__main__":
    sys.exit(main())
