#!/usr/bin/env python3
"""The figures of `lastwords history` on fixtures with known answers
(fixtures/history/: bundles/ and expected.json, worked out by hand; its
README.md says what each bundle holds and why the answers are what they are).

First each bundle's report must give each run the verdict that
expected.json's "runs" names (so that a change in a verdict shows as such,
not only as a changed figure). Then all the bundles are ingested into a
fresh database. Then, for each case of
expected.json (all runs, and each --since value) and each --by grouping it
lists:

- `history --format json` gives the groups in order, each with its runs,
  died and first_seen, and for every class and evidence level the exact
  count (the class's total is the sum of its levels and its rate total/runs
  within 1e-9), the totals (runs, bundles), and exactly the regressions
  listed, in order, with their counts and rates;
- the text format gives the same groups and counts, and names each
  regression with its counts (or says there is none);
- the statements "totals", "rates" and "regressions" of
  schemas/history-queries.sql, run in the sqlite3 shell with
  `.parameter set :by ...` and `.parameter set :since ...` as the file
  documents, give the same rows as lastwords: the documented SQL is what
  the program runs (skipped, with a note, when there is no sqlite3 shell).

Then the same bundles are ingested again, which must add nothing and change
no figure, and into a second database in reverse order, which must give the
same figures (a run held by two bundles keeps its better verdict either way).

usage: history-figures.py LASTWORDS SOURCE_ROOT
Exit status: 0 pass, 1 fail, 77 when the binary, the fixtures or the
queries file is missing.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time

from helpers import fail, finish, run, setup, skip

FIXTURES = "fixtures/history"
QUERIES = "schemas/history-queries.sql"
CLASSES = ["low_memory", "anr", "native_crash", "java_crash", "system_reclaim", "unknown"]
LEVELS = ["confirmed", "supported", "unconfirmed"]
MATRIX = ("device", "sdk", "delegate", "runtime")
REG_KEYS = ("dimension", "package", "group", "previous", "class", "count", "runs",
            "previous_count", "previous_runs")



def history(lw, db, by, since, fmt):
    cmd = [lw, "history", "--db", db, "--by", by, "--format", fmt]
    if since is not None:
        cmd += ["--since", since]
    p = run(cmd)
    if p.returncode != 0:
        return None, "`%s` exits %d: %s" % (" ".join(cmd[1:]), p.returncode, p.stderr.strip())
    return p.stdout, None


def history_json(lw, db, by, since):
    out, err = history(lw, db, by, since, "json")
    if err:
        return None, err
    try:
        return json.loads(out), None
    except ValueError as e:
        return None, "history --format json is not JSON: %s" % e


def ingest(lw, db, bundles, where):
    p = run([lw, "ingest", "--db", db] + bundles)
    if p.returncode != 0:
        fail(where, "ingest exits %d: %s" % (p.returncode, p.stderr.strip()))
    return p.stdout


# --- lastwords against expected.json -----------------------------------------

def group_diffs(got, want):
    """Differences between one group of the JSON output and one of expected.json."""
    d = []
    for k in ("runs", "died", "first_seen"):
        if k in want and got.get(k) != want[k]:
            d.append("%s %r, expected %r" % (k, got.get(k), want[k]))
    classes = got.get("classes", {})
    for c in CLASSES:
        x = classes.get(c)
        if not isinstance(x, dict):
            d.append("no class %s" % c)
            continue
        wl = want["counts"].get(c, {})
        for lvl in LEVELS:
            if x.get(lvl) != wl.get(lvl, 0):
                d.append("%s %s %r, expected %d" % (c, lvl, x.get(lvl), wl.get(lvl, 0)))
        total = sum(wl.values())
        if x.get("total") != total:
            d.append("%s total %r, expected %d" % (c, x.get("total"), total))
        rate = total / want["runs"] if want["runs"] else 0.0
        if not isinstance(x.get("rate"), (int, float)) or abs(x["rate"] - rate) > 1e-9:
            d.append("%s rate %r, expected %d/%d = %.12g" % (c, x.get("rate"), total, want["runs"], rate))
    return d


def stages_key(stages):
    """The stages of a regression's deaths, in the order given (most first)."""
    return tuple((stages or {}).items())


def regression_key(r):
    return tuple(r.get(k) for k in REG_KEYS) + (stages_key(r.get("stages")),)


def show_reg(t):
    return ("%s %s %s (previous %s) %s: %s of %s runs, previous %s of %s, in %s" % t)


def compare_regressions(where, got, want):
    g = [regression_key(r) for r in got]
    w = [regression_key(r) for r in want]
    if g != w:
        lines = ["regressions differ:"]
        lines += ["  missing:    " + show_reg(t) for t in w if t not in g]
        lines += ["  unexpected: " + show_reg(t) for t in g if t not in w]
        if sorted(map(repr, g)) == sorted(map(repr, w)):
            lines.append("  (the same rows in another order: got %s)" % [show_reg(t) for t in g])
        fail(where, "\n    ".join(lines))
    for r in got:
        for rate, n, of in (("rate", "count", "runs"), ("previous_rate", "previous_count", "previous_runs")):
            want_rate = r.get(n, 0) / r[of] if r.get(of) else 0.0
            if not isinstance(r.get(rate), (int, float)) or abs(r[rate] - want_rate) > 1e-9:
                fail(where, "regression %s: %s %r, expected %s/%s" % (
                    show_reg(regression_key(r)), rate, r.get(rate), r.get(n), r.get(of)))
        small = min(r.get("runs", 0), r.get("previous_runs", 0)) < 10 or r.get("count", 0) < 3
        if small and (r.get("judgement") != "not_enough_runs" or r.get("significant") is not False):
            fail(where, "regression %s: judgement %r, significant %r with too few runs to tell"
                 % (show_reg(regression_key(r)), r.get("judgement"), r.get("significant")))
        if r.get("evidence_level") != "confirmed":
            fail(where, "regression %s: evidence_level %r, expected 'confirmed'"
                 % (show_reg(regression_key(r)), r.get("evidence_level")))


def check_json(where, out, case, by, with_regressions):
    want_groups = case["groupings"][by]
    for k, want in (("by", by), ("since", case["since"]), ("runs", case["runs"]),
                    ("bundles", case["bundles"]), ("history_version", 1)):
        if out.get(k) != want:
            fail(where, "%s %r, expected %r" % (k, out.get(k), want))
    groups = out.get("groups", [])
    names = [g.get("group") for g in groups]
    want_names = [g["group"] for g in want_groups]
    if names != want_names:
        fail(where, "groups %s, expected %s" % (names, want_names))
    by_name = {g.get("group"): g for g in groups}
    for w in want_groups:
        g = by_name.get(w["group"])
        if g is None:
            continue
        d = group_diffs(g, w)
        if d:
            fail(where, "group %s: %s" % (w["group"], "; ".join(d)))
    if with_regressions:
        compare_regressions(where, out.get("regressions", []), case["regressions"])


def check_text(where, text, case, by, with_regressions):
    """The text format: header, each group's line and class lines, each regression."""
    head = "history: %d run%s in %d bundle%s, by %s" % (
        case["runs"], "" if case["runs"] == 1 else "s", case["bundles"],
        "" if case["bundles"] == 1 else "s", by)
    if case["since"] is not None:
        head += ", since %s UTC" % case["since"].replace(" ", "T")
    lines = text.splitlines()
    if not lines or lines[0] != head:
        fail(where, "first line %r, expected %r" % (lines[0] if lines else "", head))
    # Group blocks, in order: "BY NAME: N runs, M died" then class lines.
    blocks, cur, table = [], None, None
    regs_at = len(lines)
    for i, line in enumerate(lines[1:], 1):
        if line.startswith("regressions"):
            regs_at = i
            break
        m = re.match(r"^%s (.*): (\d+) runs?, (\d+) died \(([\d.]+)%%, 95%% ([\d.]+)-([\d.]+)%%\)$"
                     % re.escape(by), line)
        if m:
            if m.group(4) != "%.1f" % (100.0 * int(m.group(3)) / int(m.group(2))):
                fail(where, "%r: the death rate is not died / runs" % line)
            if not float(m.group(5)) <= float(m.group(4)) <= float(m.group(6)):
                fail(where, "%r: the rate is outside its interval" % line)
            cur = {"group": m.group(1), "runs": int(m.group(2)), "died": int(m.group(3)), "counts": {}}
            blocks.append(cur)
            continue
        m = re.match(r"^  (\w+) +(\d+) +([\d.]+)%  (.*)$", line)
        if m and cur is not None:
            levels = dict((lv, int(n)) for lv, n in re.findall(r"(\w+) (\d+)", m.group(4)))
            cur["counts"][m.group(1)] = levels
            if sum(levels.values()) != int(m.group(2)):
                fail(where, "%r: the levels do not add up to the total" % line)
            pct = 100.0 * int(m.group(2)) / cur["runs"]
            if m.group(3) != "%.1f" % pct:
                fail(where, "%r: %s%%, expected %.1f%%" % (line, m.group(3), pct))
        elif by in MATRIX and cur is None and re.match(r"^%s +runs +died +rate +95%% interval$" % by, line):
            table = []
        elif by in MATRIX and cur is None and re.match(r"^(.*?) +(\d+) +(\d+) +[\d.]+%  [\d.]+-[\d.]+%$", line):
            m = re.match(r"^(.*?) +(\d+) +(\d+) +[\d.]+%  [\d.]+-[\d.]+%$", line)
            table.append({"group": m.group(1), "runs": int(m.group(2)), "died": int(m.group(3))})
        elif line.strip():
            fail(where, "unexpected line %r" % line)
    want = [{"group": g["group"], "runs": g["runs"], "died": g["died"], "counts": g["counts"]}
            for g in case["groupings"][by]]
    # The matrix's table, before its cells' blocks: the same cells.
    if by in MATRIX and table != [{k: g[k] for k in ("group", "runs", "died")} for g in want]:
        fail(where, "the matrix's table differs: %s" % json.dumps(table))
    if blocks != want:
        fail(where, "the text's groups differ:\n      got      %s\n      expected %s"
             % (json.dumps(blocks), json.dumps(want)))
    # The regressions end where the new crash signatures begin (their own
    # section, tests/history-signatures.py).
    ends = [i for i in range(regs_at + 1, len(lines)) if lines[i].startswith("new crash signatures")]
    if not ends:
        fail(where, "no 'new crash signatures' section after the regressions")
    regs = [line for line in lines[regs_at + 1:ends[0] if ends else len(lines)] if line.strip()]
    if not with_regressions:
        return
    # Every rise of these fixtures has fewer than 10 runs on a side:
    # none is a regression, each is "not enough runs to tell".
    if regs_at == len(lines) or not lines[regs_at].startswith("regressions: none"):
        fail(where, "no 'regressions: none' line")
    if not case["regressions"]:
        return
    if "rises that are not regressions (too few runs, or within chance):" not in regs:
        fail(where, "no section of the rises that are not regressions")
    regs = [line for line in regs if line.startswith("  ")]
    for r in case["regressions"]:
        want_text = ("%s %s %s: not enough runs to tell: confirmed %s in %d of %d vs %d of %d "
                     "with %s %s (a regression needs 10 runs on each side and 3 deaths in the "
                     "newer)" % (r["package"], r["dimension"], r["group"], r["class"], r["count"],
                                 r["runs"], r["previous_count"], r["previous_runs"],
                                 r["dimension"], r["previous"]))
        if not any(line.strip() == want_text for line in regs):
            fail(where, "no line says %r" % want_text)
    if len(regs) != len(case["regressions"]):
        fail(where, "%d regression lines, expected %d:\n      %s"
             % (len(regs), len(case["regressions"]), "\n      ".join(regs)))


# --- each bundle's report: the verdicts the figures are made of --------------

def check_reports(lw, bundles_dir, want_runs):
    """`lastwords report` gives each run the verdict of expected.json's "runs";
    a run held by two bundles has one run id, different runs different ones."""
    ids = {}
    for name in sorted({r["bundle"] for r in want_runs}):
        where = "report %s" % name
        p = run([lw, "report", "--format", "json", os.path.join(bundles_dir, name)])
        if p.returncode != 0:
            fail(where, "exits %d: %s" % (p.returncode, p.stderr.strip()))
            continue
        got = json.loads(p.stdout).get("runs", [])
        want = [r for r in want_runs if r["bundle"] == name]
        keys = [(r.get("process"), r.get("pid")) for r in got]
        if sorted(keys) != sorted((w["process"], w["pid"]) for w in want):
            fail(where, "runs %s, expected %s" % (keys, [(w["process"], w["pid"]) for w in want]))
        for w in want:
            r = next((r for r in got if (r.get("process"), r.get("pid")) == (w["process"], w["pid"])), None)
            if r is None:
                continue
            g = {"class": r.get("classification"), "evidence_level": r.get("evidence_level"),
                 "open_stage": r.get("open_stage") if r.get("stage_open") else "none",
                 "exit_records": len(r.get("exit_records", []))}
            d = ["%s %r, expected %r" % (k, g[k], w[k]) for k in g if g[k] != w[k]]
            if d:
                fail(where, "%s (%s pid %d): %s" % (w["run"], w["process"], w["pid"], "; ".join(d)))
            ids.setdefault(r.get("run_id"), set()).add(w["run"])
    for run_id, names in ids.items():
        if len(names) > 1:
            fail("reports", "runs %s share the run id %s" % (sorted(names), run_id))
    labels = [n for names in ids.values() for n in names]
    for n in sorted({r["run"] for r in want_runs}):
        if labels.count(n) > 1:
            fail("reports", "%s has %d run ids in its bundles" % (n, labels.count(n)))


# --- the documented SQL in the sqlite3 shell ---------------------------------

def statement(queries, name):
    """The text of "-- name: NAME" up to the next "-- name:", as lastwords takes it."""
    marker = "-- name: %s\n" % name
    start = queries.find(marker)
    if start < 0:
        return None
    end = queries.find("\n-- name: ", start + len(marker))
    return queries[start:] if end < 0 else queries[start:end + 1]


def shell(sqlite3, db, queries, name, by, since):
    """Rows of one statement, run as history-queries.sql says a user runs it."""
    text = statement(queries, name)
    if text is None:
        return None, "no statement %r in %s" % (name, QUERIES)
    # The value of `.parameter set` is an SQL expression: a date must be
    # quoted as a string literal, inside the shell's own quotes.
    script = ".parameter set :by %s\n.parameter set :since %s\n%s\n" % (
        by, "NULL" if since is None else "\"'%s'\"" % since, text)
    p = run([sqlite3, "-json", db], input=script)
    if p.returncode != 0 or p.stderr.strip():
        return None, "sqlite3 on %r exits %d: %s" % (name, p.returncode, p.stderr.strip())
    return (json.loads(p.stdout) if p.stdout.strip() else []), None


def check_shell(where, sqlite3, db, queries, case, by, out):
    """The shell's "totals", "rates" and "regressions" rows against lastwords' JSON."""
    since = case["since"]
    rows, err = shell(sqlite3, db, queries, "totals", by, since)
    if err:
        return fail(where, err)
    if [(r["runs"], r["bundles"]) for r in rows] != [(out["runs"], out["bundles"])]:
        fail(where, "totals in the shell %s, lastwords %d runs in %d bundles"
             % (rows, out["runs"], out["bundles"]))
    # The matrix's dimensions (device) are the statement "matrix"'s.
    matrix = by in MATRIX
    rows, err = shell(sqlite3, db, queries, "matrix" if matrix else "rates", by, since)
    if err:
        return fail(where, err)
    groups = []
    for r in rows:
        grp = r[by] if matrix else r["grp"]
        if not groups or groups[-1]["group"] != grp:
            groups.append({"group": grp, "runs": r["runs"], "died": r["died"],
                           "first_seen": r["first_seen"], "counts": {}})
        if r["class"] is not None:
            groups[-1]["counts"].setdefault(r["class"], {})[r["evidence_level"]] = r["n"]
    mine = [{"group": g["group"], "runs": g["runs"], "died": g["died"], "first_seen": g["first_seen"],
             "counts": {c: {lv: n for lv, n in x.items() if lv in LEVELS and n}
                        for c, x in g["classes"].items() if x["total"]}}
            for g in out["groups"]]
    if groups != mine:
        fail(where, "the shell's \"rates\" rows differ from lastwords:\n      shell     %s\n"
             "      lastwords %s" % (json.dumps(groups), json.dumps(mine)))
    rows, err = shell(sqlite3, db, queries, "regressions", by, since)
    if err:
        return fail(where, err)
    sh = [(r["dimension"], r["package"], r["grp"], r["prev"], r["class"], r["count"], r["runs"],
           r["prev_count"], r["prev_runs"], stages_key(json.loads(r["stages"]))) for r in rows]
    lw = [regression_key(r) for r in out["regressions"]]
    if sh != lw:
        fail(where, "the shell's \"regressions\" rows differ from lastwords:\n      shell     %s\n"
             "      lastwords %s" % ([show_reg(t) for t in sh], [show_reg(t) for t in lw]))


# --- main ---------------------------------------------------------------------

def figures(lw, db, cases):
    """Every JSON output the cases ask for, to compare two databases."""
    snap = {}
    for case in cases:
        for by in case["groupings"]:
            out, err = history_json(lw, db, by, case["since"])
            snap[(case["name"], by)] = out if out is not None else err
    return snap


def compare_snapshots(where, a, b):
    for k in a:
        if a[k] != b.get(k):
            fail(where, "%s, --by %s: the figures changed:\n      before %s\n      after  %s"
                 % (k[0], k[1], json.dumps(a[k])[:2000], json.dumps(b.get(k))[:2000]))


def main():
    t0 = time.monotonic()
    lw, root = setup("usage: history-figures.py LASTWORDS SOURCE_ROOT")
    if not os.access(lw, os.X_OK):
        skip("no lastwords binary at %s" % lw)
    for need in (os.path.join(FIXTURES, "expected.json"), os.path.join(FIXTURES, "bundles"), QUERIES):
        if not os.path.exists(need):
            skip("%s is missing" % need)
    with open(os.path.join(FIXTURES, "expected.json")) as f:
        expected = json.load(f)
    with open(QUERIES) as f:
        queries = f.read()
    bundles_dir = os.path.join(FIXTURES, "bundles")
    bundles = sorted(os.path.join(bundles_dir, n) for n in os.listdir(bundles_dir)
                     if os.path.isdir(os.path.join(bundles_dir, n)))
    sqlite3 = shutil.which("sqlite3")
    if sqlite3 is None:
        print("note: no sqlite3 shell on PATH: the statements of %s are not run in it "
              "(apt-get install sqlite3)" % QUERIES)
    else:
        # -json needs 3.33, .parameter 3.24.
        v = run([sqlite3, "-version"]).stdout.split()
        if not v or tuple(int(x) for x in re.findall(r"\d+", v[0])[:2]) < (3, 33):
            print("note: the sqlite3 shell (%s) is older than 3.33 (no -json): the statements "
                  "of %s are not run in it" % (v[0] if v else "?", QUERIES))
            sqlite3 = None
    cases = expected["cases"]
    check_reports(lw, bundles_dir, expected["runs"])
    with tempfile.TemporaryDirectory(prefix="lw-history-figures-") as tmp:
        db = os.path.join(tmp, "history.db")
        out = ingest(lw, db, bundles, "ingest")
        ing = expected["ingest"]
        counts = [tuple(map(int, m)) for m in re.findall(
            r": (\d+) runs?: (\d+) new, (\d+) replaced, (\d+) kept", out)]
        got = (len(counts), sum(c[0] for c in counts), sum(c[1] for c in counts))
        if got != (ing["bundles"], ing["runs"], ing["stored_runs"]):
            fail("ingest", "%d bundles, %d runs in them, %d stored; expected %d, %d, %d:\n%s"
                 % (got + (ing["bundles"], ing["runs"], ing["stored_runs"], out)))
        if "%d stored, 0 already in, 0 refused" % ing["bundles"] not in out:
            fail("ingest", "no '%d stored, 0 already in, 0 refused' line:\n%s" % (ing["bundles"], out))
        for case in cases:
            regs = regs_text = None
            for by in case["groupings"]:
                where = "%s, --by %s" % (case["name"], by)
                o, err = history_json(lw, db, by, case["since"])
                if err:
                    fail(where, err)
                    continue
                # The regressions do not depend on --by: checked in full
                # once per case, then only for being the same.
                first = by == next(iter(case["groupings"]))
                if first:
                    regs = o.get("regressions")
                elif o.get("regressions") != regs:
                    fail(where, "the regressions depend on --by:\n      %s\n      %s"
                         % (json.dumps(regs), json.dumps(o.get("regressions"))))
                check_json(where + " (json)", o, case, by, first)
                text, err = history(lw, db, by, case["since"], "text")
                if err:
                    fail(where, err)
                else:
                    if first:
                        regs_text = text[text.find("\nregressions"):]
                    elif text[text.find("\nregressions"):] != regs_text:
                        fail(where, "the text's regressions depend on --by")
                    check_text(where + " (text)", text, case, by, first)
                if sqlite3:
                    check_shell(where + " (sqlite3 shell)", sqlite3, db, queries, case, by, o)
        before = figures(lw, db, cases)
        out = ingest(lw, db, bundles, "second ingest")
        if "0 stored, %d already in, 0 refused" % len(bundles) not in out:
            fail("second ingest", "expected every bundle already in:\n%s" % out)
        compare_snapshots("second ingest", before, figures(lw, db, cases))
        db2 = os.path.join(tmp, "reverse.db")
        ingest(lw, db2, bundles[::-1], "ingest in reverse order")
        compare_snapshots("ingest in reverse order", before, figures(lw, db2, cases))
    nchecks = sum(len(c["groupings"]) for c in cases)
    return finish("%d bundles, %d cases x groupings%s in %.2f s"
                  % (len(bundles), nchecks, "" if sqlite3 else " (no sqlite3 shell)",
                     time.monotonic() - t0))


if __name__ == "__main__":
    sys.exit(main())
