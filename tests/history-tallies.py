#!/usr/bin/env python3
"""The tallies of schemas/history.sql (version 5) hold what run holds, and
the statements of schemas/history-queries.sql that lastwords history runs
over them (through the views of version 9) give the rows that the same
statements give counting from run alone (after "count-from-runs").

On the fixtures of fixtures/history ingested in order, and into a second
database in reverse order (where later bundles replace runs: the tallies'
triggers remove and add them):
- run_tally, version_tally and matrix_tally (version 11) equal the same
  counts made afresh from run;
- "totals", "rates" and "regressions" give the same rows both ways, for
  every --by, and so does "matrix" for the matrix's dimensions alone and
  combined, for --since unset, each day
  of the runs, each run's time and that time to the minute (a day cut
  where a run starts and just before it);
- runs deleted one by one (the earliest of a cell among them) keep the
  tallies equal to a fresh count after each delete, and updating a tallied
  column is refused.
Then a database of schema version 4 holding the same rows (written by the
steps before 5, as an older lastwords left it) is upgraded by `lastwords
history`, which gives the same JSON as on the database ingest made (the
matrix: the same runs and deaths, each run of an unknown SDK level,
delegate and runtime, its device the model alone: nothing stored before
version 11 says more), and
the same records in the view event (a row per record in version 4, one
row per run in run_event from version 6).

usage: history-tallies.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import re
import sqlite3
import sys
import tempfile

from helpers import check, finish, lastwords, setup, skip

FIXTURES = "fixtures/history/bundles"
GROUPINGS = ("candidate", "app_version", "stage", "class", "process", "ring")
MATRIX = ("device", "sdk", "delegate", "runtime", "device,delegate", "runtime,sdk",
          "delegate,device,runtime,sdk")
FRESH = {
    "run_tally": "SELECT dimension, grp, coalesce(substr(seen, 1, 10), ''), class, evidence_level, "
                 "count(*), min(seen) FROM run_group GROUP BY 1, 2, 3, 4, 5",
    "version_tally": "SELECT package, coalesce(candidate, ''), app_version, "
                     "coalesce(substr(coalesce(start_time, end_time), 1, 10), ''), "
                     "coalesce(open_stage, ''), coalesce(class, ''), coalesce(evidence_level, ''), "
                     "count(*), min(coalesce(start_time, end_time)) FROM run GROUP BY 1, 2, 3, 4, 5, 6, 7",
    "matrix_tally": "SELECT device, sdk, delegate, runtime, coalesce(substr(seen, 1, 10), ''), class, "
                    "evidence_level, count(*), min(seen) FROM run_matrix GROUP BY 1, 2, 3, 4, 5, 6, 7",
}


def statements(root):
    text = open(os.path.join(root, "schemas", "history-queries.sql")).read()
    parts = re.split(r"^-- name: (\S+)\n", text, flags=re.M)
    return dict((parts[i], "-- name: %s\n%s" % (parts[i], parts[i + 1])) for i in range(1, len(parts), 2))


def check_fresh(c, where):
    for table, sql in FRESH.items():
        kept = sorted(c.execute("SELECT * FROM %s" % table).fetchall())
        fresh = sorted(c.execute(sql).fetchall())
        check(kept == fresh, "%s: %s differs from a fresh count:\n    kept  %s\n    fresh %s"
              % (where, table, [r for r in kept if r not in fresh], [r for r in fresh if r not in kept]))


def sinces(c):
    seen = [t for (t,) in c.execute("SELECT DISTINCT coalesce(start_time, end_time) FROM run "
                                    "WHERE coalesce(start_time, end_time) IS NOT NULL")]
    out = {None}
    for t in seen:
        out.update((t[:10], t[:16], t[:19]))
    return sorted(out, key=lambda s: s or "")


def from_runs(db, stmts):
    """A second connection to db in which the statements count from run
    alone: each run a tally of its own, none of the database's tallies."""
    p = sqlite3.connect(db)
    p.executescript(stmts["count-from-runs"])
    for view in ("group_count", "version_count", "matrix_count"):
        tallies, runs = p.execute("SELECT count(*) FILTER (WHERE tallied), count(*) FILTER (WHERE NOT tallied) "
                                  "FROM %s" % view).fetchone()
        # group_count: each run in each of the 7 dimensions of run_group
        check(runs == 0 and tallies == p.execute("SELECT count(*) * %d FROM run"
                                                 % (7 if view == "group_count" else 1)).fetchone()[0],
              "%s after count-from-runs: %d tallies, %d runs" % (view, tallies, runs))
    return p


def check_statements(c, db, stmts, where):
    n = 0
    p = from_runs(db, stmts)
    for since in sinces(c):
        for by, name in ([(by, name) for by in GROUPINGS for name in ("totals", "rates", "regressions")] +
                         [(by, "matrix") for by in MATRIX]):
                args = {"by": by, "since": since}
                plain = p.execute(stmts[name], args).fetchall()
                tallied = c.execute(stmts[name], args).fetchall()
                n += 1
                check(plain == tallied, "%s: %s --by %s --since %s:\n    from run alone %s\n    tallied        %s"
                      % (where, name, by, since, plain, tallied))
    p.close()
    return n


def ingest(lw, db, bundles):
    r = lastwords(lw, ["ingest", "--db", db, "--events"] + bundles)
    check(r.returncode == 0, "ingest exits %d: %s" % (r.returncode, r.stderr))


def old_copy(root, src, path):
    """A database of schema version 4 holding src's rows."""
    text = open(os.path.join(root, "schemas", "history.sql")).read()
    parts = re.split(r"^-- version (\d+)\n", text, flags=re.M)
    steps = dict((int(parts[i]), parts[i + 1]) for i in range(1, len(parts), 2))
    c = sqlite3.connect(path)
    for v in range(1, 5):
        c.executescript(steps[v])
    c.execute("ATTACH ? AS src", (src,))
    for table in ("bundle", "run", "run_line", "exit_record", "boot_loop", "event"):
        # the columns version 4 has (later versions add some)
        cols = ", ".join(r[1] for r in c.execute("PRAGMA main.table_info(%s)" % table))
        c.execute("INSERT INTO main.%s SELECT %s FROM src.%s" % (table, cols, table))
    c.commit()
    c.execute("DETACH src")
    c.execute("PRAGMA user_version = 4")
    c.execute("PRAGMA application_id = %d" % 0x4c57484e)
    c.close()


def unknown_matrix(got, want, by, models):
    """The upgraded database's matrix (got) against the fresh one's
    (want): each cell's keys as nothing before version 11 stored them (the
    model alone, the rest unknown); then both summed over all cells, which
    must agree, as the rest of the JSON must."""
    for g in got["groups"]:
        for dim, key in g["keys"].items():
            check(key in models if dim == "device" else key == "unknown",
                  "the upgraded version-4 database, --by %s: %s is %r" % (by, dim, key))

    def summed(h):
        h = dict(h)
        groups = h.pop("groups")
        h["runs_in_groups"] = sum(g["runs"] for g in groups)
        h["died_in_groups"] = sum(g["died"] for g in groups)
        return h
    return summed(got), summed(want)


def history_json(lw, db, by, since):
    args = ["history", "--db", db, "--by", by, "--format", "json"] + (["--since", since] if since else [])
    r = lastwords(lw, args)
    check(r.returncode == 0, "%s exits %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return json.loads(r.stdout) if r.returncode == 0 else None


def main():
    lw, root = setup("usage: history-tallies.py LASTWORDS SOURCE_ROOT")
    if not os.path.isdir(FIXTURES):
        skip("no %s" % FIXTURES)
    stmts = statements(root)
    bundles = sorted(os.path.join(FIXTURES, n) for n in os.listdir(FIXTURES))
    compared = 0
    with tempfile.TemporaryDirectory(prefix="lw-history-tallies-") as tmp:
        dbs = {"in order": os.path.join(tmp, "a.db"), "in reverse": os.path.join(tmp, "b.db")}
        ingest(lw, dbs["in order"], bundles)
        ingest(lw, dbs["in reverse"], bundles[::-1])
        ingest(lw, dbs["in order"], bundles)  # again: nothing changes
        for where, db in dbs.items():
            c = sqlite3.connect(db)
            check(c.execute("SELECT count(*) FROM run_tally").fetchone()[0] > 0, "%s: no tallies" % where)
            check_fresh(c, where)
            compared += check_statements(c, db, stmts, where)
            c.close()

        # The earliest runs first: each delete makes a cell look its
        # earliest run up again.
        scratch = os.path.join(tmp, "delete.db")
        ingest(lw, scratch, bundles)
        c = sqlite3.connect(scratch)
        ids = [i for (i,) in c.execute("SELECT id FROM run ORDER BY coalesce(start_time, end_time), id")]
        for k, i in enumerate(ids):
            c.execute("DELETE FROM run WHERE id = ?", (i,))
            check_fresh(c, "after %d deletes" % (k + 1))
            if k % 4 == 0:
                c.commit()
                compared += check_statements(c, scratch, stmts, "after %d deletes" % (k + 1))
        check(c.execute("SELECT count(*) FROM run_tally").fetchone()[0] == 0 and
              c.execute("SELECT count(*) FROM version_tally").fetchone()[0] == 0 and
              c.execute("SELECT count(*) FROM matrix_tally").fetchone()[0] == 0,
              "no tallies left when no run is")
        c.close()
        c = sqlite3.connect(dbs["in order"])
        try:
            c.execute("UPDATE run SET class = 'anr'")
            check(False, "updating run's class is refused")
        except sqlite3.IntegrityError as e:
            check("tallies" in str(e), "the refusal says why: %s" % e)
        c.rollback()
        c.close()

        old = os.path.join(tmp, "v4.db")
        old_copy(root, dbs["in order"], old)
        with sqlite3.connect(old) as c:
            since_values = [None] + [s for s in sinces(c) if s and len(s) in (10, 16)][::5]
        upgraded = 0
        with sqlite3.connect(dbs["in order"]) as c:
            models = set(m for (m,) in c.execute("SELECT coalesce(device_model, 'unknown') FROM bundle"))
        for since in since_values:
            for by in GROUPINGS + MATRIX:
                got, want = history_json(lw, old, by, since), history_json(lw, dbs["in order"], by, since)
                if got and want and by in MATRIX:
                    got, want = unknown_matrix(got, want, by, models)
                upgraded += 1
                # A run stored before version 10 has no crash signature
                # (nothing stored could sign it): no new crash there; the
                # rest agrees.
                if got and want:
                    check(got.pop("new_crash_signatures") == [],
                          "the upgraded version-4 database has no crash signatures")
                    want.pop("new_crash_signatures")
                check(got == want, "the upgraded version-4 database, --by %s --since %s:\n    %s\n    %s"
                      % (by, since, json.dumps(got)[:1500], json.dumps(want)[:1500]))
        c = sqlite3.connect(old)
        check(c.execute("PRAGMA user_version").fetchone()[0] >= 5, "the version-4 database is upgraded")
        check_fresh(c, "the upgraded version-4 database")
        # Its records, a row each in version 4, one row per run from 6.
        c.execute("ATTACH ? AS src", (dbs["in order"],))
        got = c.execute("SELECT * FROM main.event ORDER BY run_id, ticket").fetchall()
        want = c.execute("SELECT * FROM src.event ORDER BY run_id, ticket").fetchall()
        check(got == want and len(want) > 100, "the upgraded database's events: %d rows, %d before; "
              "first differing %s" % (len(got), len(want), next((g for g, w in zip(got, want) if g != w), None)))
        c.close()
    return finish("%d statement pairs compared, %d history outputs of an upgraded database"
                  % (compared, upgraded))


if __name__ == "__main__":
    sys.exit(main())
