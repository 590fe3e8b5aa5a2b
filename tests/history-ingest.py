#!/usr/bin/env python3
"""`lastwords ingest` and the history database (schemas/history.sql):

- idempotent: the same bundle twice, or copied elsewhere, adds nothing;
- bad bundles are refused one by one, with the file named, and the rest go in;
- a run held by two bundles keeps its better-evidenced verdict;
- a death read once without its ring (a ring-less run) and once with it is
  one run, the ring's, whichever bundle comes first;
- atomic under SIGKILL: ingests killed at random points (60, 20 in each of
  three parts), each followed by an integrity check and consistency
  checks, then a re-ingest that must give the same export as one clean
  ingest;
- upgrades a version-1 database (the first step of schemas/history.sql) in
  place, keeping its rows; refuses a newer schema, a foreign database and a
  file that is not one;
- WAL: history and export keep working, and see consistent figures, while
  an ingest writes, and an open reader never blocks the writer.

One part per run (one meson test each): "kills-1", "kills-2" and
"kills-3", a third of the kills each (LW_KILLS, 60 in all by default),
each from its own random seed; "rest", everything else.

usage: history-ingest.py LASTWORDS SOURCE_ROOT PART
Exit status: 0 pass, 1 fail.
"""
import datetime
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from helpers import check, finish, lastwords, setup

EXIT_INPUT, EXIT_DATABASE = 4, 11


def export(lw, db):
    r = lastwords(lw, ["export", "--db", db, "--format", "ndjson"])
    check(r.returncode == 0, "export exits 0: %s" % r.stderr)
    return [json.loads(line) for line in r.stdout.splitlines()]


def table_counts(db):
    with sqlite3.connect(db) as c:
        return {t: c.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
                for t in ("bundle", "run", "run_line", "exit_record", "boot_loop", "event")}


def scenario_bundles(root):
    base = os.path.join(root, "fixtures", "scenarios")
    out = []
    for name in sorted(os.listdir(base)):
        b = os.path.join(base, name, "bundle")
        if os.path.isdir(b):
            args = os.path.join(base, name, "args")
            words = open(args).read().split() if os.path.exists(args) else []
            tz = words[words.index("--tz"):words.index("--tz") + 2] if "--tz" in words else []
            out.append((name, b, tz))
    return out


def shifted(text, n):
    """Evidence text with every time in it n ms later: dump and toString
    timestamps, the app's JSON ms, tombstone and ANR trace times, logcat
    line times (read in a leap year, as logcat's own calendar does)."""
    def later(stamp, fmt):
        whole, frac = stamp.rsplit(".", 1)
        t = datetime.datetime.strptime(whole, fmt) + \
            datetime.timedelta(milliseconds=int(frac[:3].ljust(3, "0")) + n)
        return t.strftime(fmt) + ".%03d" % (t.microsecond // 1000) + frac[3:]

    full = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+"
    for before in ("timestamp=", "Timestamp: ", r"----- pid \d+ at "):
        text = re.sub("(%s)(%s)" % (before, full),
                      lambda m: m.group(1) + later(m.group(2), "%Y-%m-%d %H:%M:%S"), text)
    text = re.sub(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d+",
                  lambda m: later("2024-" + m.group(0), "%Y-%m-%d %H:%M:%S")[5:], text, flags=re.M)
    return re.sub(r'("timestamp": )(\d+)', lambda m: m.group(1) + str(int(m.group(2)) + n), text)


def variant(src, dst, n):
    """A copy of a bundle whose rings have new run ids, and whose evidence is
    n ms later (well within the clock tolerance): a distinct bundle with
    distinct runs, ring-less ones included (the evidence joins by process,
    pid and time; a ring-less run's key is its process, pid and time of
    death), even where two scenarios share evidence."""
    shutil.copytree(src, dst)
    for dirpath, _, files in os.walk(dst):
        for f in files:
            p = os.path.join(dirpath, f)
            text = open(p, encoding="utf-8", errors="surrogateescape").read()
            if f.endswith(".jsonl"):
                text = re.sub(r'"run_id":"([0-9a-f]{24})[0-9a-f]{8}"',
                              lambda m: '"run_id":"%s%08x"' % (m.group(1), n), text)
            else:
                text = shifted(text, n)
            open(p, "w", encoding="utf-8", errors="surrogateescape").write(text)


def test_idempotent(lw, root, tmp):
    db = os.path.join(tmp, "idem.db")
    demo = os.path.join(root, "fixtures", "demo")
    r = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", "--events", demo])
    check(r.returncode == 0, "ingest of the demo exits 0: %s" % r.stderr)
    check("5 runs: 5 new" in r.stdout, "ingest says what it stored: %r" % r.stdout)
    first, counts = export(lw, db), table_counts(db)
    check(len(first) == 5 and counts["event"] > 0, "5 runs and their events stored: %s" % counts)
    check(sorted(x["ring"] for x in first) == ["none"] + ["probe"] * 4,
          "the demo's four rings and its ring-less run: %s" % [x["ring"] for x in first])
    copy = os.path.join(tmp, "elsewhere", "demo-copy")
    shutil.copytree(demo, copy)
    for path in (demo, copy):
        r = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", "--events", path])
        check(r.returncode == 0 and "already in the history" in r.stdout,
              "the same bundle again (%s) is recognized: %r" % (path, r.stdout))
    check(table_counts(db) == counts, "a second ingest adds no row: %s vs %s" % (table_counts(db), counts))
    check(export(lw, db) == first, "a second ingest changes no exported row")


def test_refused(lw, root, tmp):
    db = os.path.join(tmp, "refused.db")
    sc = dict((n, b) for n, b, _ in scenario_bundles(root))
    bad = os.path.join(tmp, "bad-bundle")
    shutil.copytree(sc["lmk-confirmed"], bad)
    with open(os.path.join(bad, "exit-info.txt"), "w") as f:
        f.write("this is not evidence of anything\n")
    broken_ring = os.path.join(tmp, "broken-ring")
    shutil.copytree(sc["java-crash"], broken_ring)
    ring = [p for p in os.listdir(broken_ring) if p.endswith(".jsonl")][0]
    with open(os.path.join(broken_ring, ring), "a") as f:
        f.write('{"type":"stage_begin","ticket":\n')
    empty = os.path.join(tmp, "empty-bundle")
    os.mkdir(empty)
    missing = os.path.join(tmp, "no-such-bundle")
    good = [sc["anr-with-trace"], sc["native-crash-gpu-delegate"]]
    r = lastwords(lw, ["ingest", "--db", db, good[0], bad, broken_ring, empty, missing, good[1]])
    check(r.returncode == EXIT_INPUT, "refused bundles: exit %d, got %d" % (EXIT_INPUT, r.returncode))
    for path, what in ((bad, "exit-info.txt': unknown kind"), (broken_ring, ring + "': line "),
                       (empty, "no run to store"), (missing, "no-such-bundle")):
        check(("refused '%s'" % path) in r.stderr and what in r.stderr,
              "the refusal of %s names the file and why (%r): %s" % (path, what, r.stderr))
    check("2 stored, 0 already in, 4 refused" in r.stdout, "summary line: %r" % r.stdout)
    with sqlite3.connect(db) as c:
        sources = sorted(s for (s,) in c.execute("SELECT source FROM bundle"))
    check(sources == sorted(good), "only the good bundles are stored: %s" % sources)
    r = lastwords(lw, ["ingest", "--db", db, "--bogus", good[0]])
    check(r.returncode == 2, "an unknown option is a usage error (2): %d" % r.returncode)
    r = lastwords(lw, ["ingest", good[0]])
    check(r.returncode == 2 and "--db" in r.stderr, "ingest without --db: usage error naming --db")


def test_better_evidence(lw, root, tmp):
    sc = dict((n, b) for n, b, _ in scenario_bundles(root))
    full = sc["lmk-confirmed"]
    ring_only = os.path.join(tmp, "ring-only")
    os.mkdir(ring_only)
    for f in os.listdir(full):
        if f.endswith(".jsonl"):
            shutil.copy(os.path.join(full, f), ring_only)
    for order in ((ring_only, full), (full, ring_only)):
        db = os.path.join(tmp, "better-%d.db" % (order[0] == full))
        for b in order:
            r = lastwords(lw, ["ingest", "--db", db, b])
            check(r.returncode == 0, "ingest %s: %s" % (b, r.stderr))
        rows = export(lw, db)
        check(len(rows) == 1, "one run for the ring held by two bundles: %d" % len(rows))
        check(rows and (rows[0]["class"], rows[0]["evidence_level"]) == ("low_memory", "confirmed"),
              "the confirmed verdict stays whatever the order (%s first): %s"
              % (os.path.basename(order[0]), rows and (rows[0]["class"], rows[0]["evidence_level"])))
        check(r.stdout.count("1 kept") + r.stdout.count("1 replaced") == 1,
              "the second ingest says it kept or replaced the run: %r" % r.stdout)


def test_ringless_then_ring(lw, root, tmp):
    """A pull without the rings, then one with them, of the same device: each
    death is stored once, as the ring's run, in either order."""
    demo = os.path.join(root, "fixtures", "demo")
    bare = os.path.join(tmp, "demo-no-rings")
    shutil.copytree(demo, bare, ignore=shutil.ignore_patterns("rings"))
    alone = os.path.join(tmp, "demo-alone.db")
    lastwords(lw, ["ingest", "--db", alone, "--tz", "+01:00", demo])
    want = sorted((r["run_id"], r["ring"], r["class"], r["evidence_level"]) for r in export(lw, alone))
    for order in ((bare, demo), (demo, bare)):
        db = os.path.join(tmp, "ringless-%d.db" % (order[0] == demo))
        r = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00"] + list(order))
        check(r.returncode == 0, "ingest without, then with, the rings: %s" % r.stderr)
        got = sorted((x["run_id"], x["ring"], x["class"], x["evidence_level"]) for x in export(lw, db))
        check(got == want, "%s first: each death once, the rings' verdicts: %s"
              % (os.path.basename(order[0]), got))
    check(sum(1 for x in want if x[1] == "none") == 1, "the stale record stays ring-less: %s" % want)


def test_history_usage(lw, root, tmp):
    """history's command line: each mistake is a usage error naming it."""
    db = os.path.join(tmp, "idem.db")
    for args, what in ((["--since", "2026-13-01"], "2026-13-01"), (["--since", "2026-12-32"], "2026-12-32"),
                       (["--since", "2026-12-01T24:00"], "T24:00"), (["--since", "yesterday"], "yesterday"),
                       (["--by", "color"], "color"), (["--format", "xml"], "xml"), (["extra"], "extra")):
        r = lastwords(lw, ["history", "--db", db] + args)
        check(r.returncode == 2 and what in r.stderr, "history %s: usage error naming %r: %d %s"
              % (args, what, r.returncode, r.stderr))
    r = lastwords(lw, ["history", "--by", "class"])
    check(r.returncode == 2 and "--db" in r.stderr, "history without --db: usage error naming --db")
    for since in ("2026-11-30", "2026-11-30T00:28", "2026-11-30 00:28:04Z"):
        r = lastwords(lw, ["history", "--db", db, "--since", since, "--format", "json"])
        check(r.returncode == 0 and json.loads(r.stdout)["runs"] == 4,
              "history --since %r keeps the demo's 4 runs: %s" % (since, r.stdout[:200] + r.stderr))
    # A ring-less run has no start: --since reads its death (2026-11-27).
    r = lastwords(lw, ["history", "--db", db, "--since", "2026-11-27", "--format", "json"])
    check(r.returncode == 0 and json.loads(r.stdout)["runs"] == 5,
          "history --since 2026-11-27 keeps the ring-less run too: %s" % r.stdout[:200])
    r = lastwords(lw, ["history", "--db", db, "--by", "ring", "--format", "json"])
    if r.returncode == 0:
        history_validator(root)(json.loads(r.stdout))
    groups = sorted((g["group"], g["runs"], g["died"]) for g in json.loads(r.stdout)["groups"]) \
        if r.returncode == 0 else r.stderr
    check(groups == [("none", 1, 1), ("probe", 4, 2)], "history --by ring: %s" % (groups,))
    regressions = json.loads(r.stdout)["regressions"] if r.returncode == 0 else []
    check(not any(x.get("previous") == "0" for x in regressions),
          "app version 0 (unknown) is compared with none: %s" % regressions)
    r = lastwords(lw, ["history", "--db", db, "--since", "2026-11-30T00:28:05", "--format", "json"])
    check(r.returncode == 0 and json.loads(r.stdout)["runs"] == 0,
          "history --since after the demo's runs keeps none: %s" % r.stdout[:200])


def consistent(db):
    """The database after a kill: integrity, foreign keys, and every bundle
    whole (its runs, each with its lines and events)."""
    c = sqlite3.connect(db)
    try:
        tables = [t for (t,) in c.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")]
        if "bundle" not in tables:
            # Killed before the schema's transaction committed: nothing at all.
            check(not tables, "a half-made schema after a kill: %s" % tables)
            return 0
        ok = c.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        check(ok, "integrity_check after a kill")
        fk = c.execute("PRAGMA foreign_key_check").fetchall()
        check(not fk, "foreign_key_check after a kill: %s" % fk[:3])
        half = c.execute("SELECT b.source, b.runs, (SELECT count(*) FROM run WHERE bundle_id = b.id) "
                         "FROM bundle b WHERE b.runs != (SELECT count(*) FROM run WHERE bundle_id = b.id)"
                         ).fetchall()
        check(not half, "a bundle without all its runs after a kill: %s" % half[:3])
        bare = c.execute("SELECT count(*) FROM run WHERE class IS NOT NULL AND NOT EXISTS "
                         "(SELECT 1 FROM run_line WHERE run_id = run.id AND kind = 'rule')").fetchone()[0]
        check(bare == 0, "a verdict without its rules after a kill: %d" % bare)
        no_events = c.execute("SELECT count(*) FROM run WHERE ring = 'probe' AND NOT EXISTS "
                              "(SELECT 1 FROM event WHERE run_id = run.id)").fetchone()[0]
        check(no_events == 0, "a run without its events after a kill: %d" % no_events)
        return c.execute("SELECT count(*) FROM bundle").fetchone()[0]
    finally:
        c.close()


def test_kills(lw, root, tmp, kills, seed):
    src = os.path.join(tmp, "kill-bundles")
    os.mkdir(src)
    bundles = []
    for k in range(5):
        for name, b, _ in scenario_bundles(root):
            if name in ("seed-ring-less", "ring-binary-and-json"):
                continue  # no ring id to vary / rings outside the bundle
            dst = os.path.join(src, "%s-%d" % (name, k))
            variant(b, dst, len(bundles) + 1)
            bundles.append(dst)
    cmd = ["ingest", "--events"] + bundles

    clean = os.path.join(tmp, "clean.db")
    t0 = time.monotonic()
    r = lastwords(lw, cmd[:1] + ["--db", clean] + cmd[1:])
    full = time.monotonic() - t0
    check(r.returncode == 0, "clean ingest exits 0: %s" % r.stderr[-500:])
    want = export(lw, clean)
    check(len(want) >= len(bundles), "every variant stored: %d rows for %d bundles" % (len(want), len(bundles)))

    db = os.path.join(tmp, "killed.db")
    rng = random.Random(seed)
    stored, mid, done = 0, 0, 0
    # At least `kills` kills, and more (up to three times as many) until a
    # third of them landed mid-ingest: on a loaded machine the process may
    # start too slowly for a kill timed on a clean ingest to catch it.
    for i in range(3 * kills):
        if done >= kills and mid >= kills // 3:
            break
        done += 1
        if i % 10 == 0 or stored == len(bundles):
            for ext in ("", "-wal", "-shm"):
                if os.path.exists(db + ext):
                    os.remove(db + ext)  # start over when all are in, and now and then
            stored = 0
        p = subprocess.Popen([lw] + cmd[:1] + ["--db", db] + cmd[1:],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, full))
        p.kill()
        p.wait()
        if os.path.exists(db):
            n = consistent(db)
            check(n >= stored, "bundles lost after a kill: %d < %d" % (n, stored))
            mid += stored < n < len(bundles)
            stored = n
    r = lastwords(lw, cmd[:1] + ["--db", db] + cmd[1:])
    check(r.returncode == 0, "the re-ingest after the kills exits 0: %s" % r.stderr[-500:])
    consistent(db)
    got = export(lw, db)
    key = lambda r: r["run_id"]
    check(sorted(got, key=key) == sorted(want, key=key),
          "after %d kills and a re-ingest, the export equals a clean ingest's (%d vs %d rows)"
          % (done, len(got), len(want)))
    # The test's own power: many kills must land while bundles are going in.
    check(mid >= kills // 3, "only %d of %d kills landed mid-ingest" % (mid, done))
    print("kills: %d SIGKILLs (%d mid-ingest) over a %.2f s ingest of %d bundles; every state consistent"
          % (done, mid, full, len(bundles)))


def schema_steps(root):
    """The steps of schemas/history.sql: {version: SQL}."""
    text = open(os.path.join(root, "schemas", "history.sql")).read()
    parts = re.split(r"^-- version (\d+)\n", text, flags=re.M)
    return dict((int(parts[i]), parts[i + 1]) for i in range(1, len(parts), 2))


def old_database(path, steps, version):
    """A database as a lastwords of that schema version left it, with a run."""
    with sqlite3.connect(path) as c:
        for v in range(1, version + 1):
            c.executescript(steps[v])
        c.execute("INSERT INTO bundle (digest, source, ingested_at, complete, tz_offset_minutes, tz_assumed, "
                  "runs, unmatched_exits) VALUES ('00000000000000aa', 'old', '2026-01-01T00:00:00.000000Z', "
                  "1, 0, 0, 1, 0)")
        c.execute("INSERT INTO run (run_key, bundle_id, package, process, pid, file, start_time, app_version, "
                  "candidate, outcome, last_stage, open_stage, budget_kb, peak_kb, peak_stage, over_budget, "
                  "class, evidence_level) VALUES ('ffffffffffffffffffffffffffffff01', 1, 'com.old', "
                  "'com.old:inference', 77, 'old.lwr', '2026-01-01T00:00:00.000000Z', 7, 'aaaaaaaaaaaaaaaa', "
                  "'died', 'load', 'load', 0, 0, 'load', 0, 'low_memory', 'confirmed')")
        c.execute("INSERT INTO run_line VALUES (1, 'rule', 0, 'aei-low-memory', NULL)")
        # A seed run: from version 4 its ring is 'seed' (the upgrade to 4
        # sets it; a lastwords of version 4 or later stored it so).
        ring = (", ring", ", 'seed'") if version >= 4 else ("", "")
        c.execute("INSERT INTO run (run_key, bundle_id, package, process, pid, file, app_version, "
                  "outcome, last_stage, budget_kb, peak_kb, peak_stage, over_budget%s) VALUES "
                  "('seed-00000000000000bb', 1, 'events.json', 'events.json', 0, 'events.json', 0, "
                  "'died', 'inference', 0, 0, 'inference', 0%s)" % ring)
        c.execute("PRAGMA user_version = %d" % version)
        c.execute("PRAGMA application_id = %d" % 0x4c57484e)


def test_migration(lw, root, tmp):
    steps = schema_steps(root)
    latest = max(steps)
    demo = os.path.join(root, "fixtures", "demo")
    check(latest >= 2, "schemas/history.sql has steps to upgrade through")
    # From every earlier version, the previous one included.
    for version in range(1, latest):
        db = os.path.join(tmp, "v%d.db" % version)
        old_database(db, steps, version)
        r = lastwords(lw, ["history", "--db", db, "--format", "json"])
        check(r.returncode == 0 and json.loads(r.stdout)["runs"] == 2,
              "history upgrades a version-%d database and reads its runs: %s" % (version, r.stderr))
        r = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", "--events", demo])
        check(r.returncode == 0 and "upgraded" not in r.stderr,
              "ingest into the upgraded database: %s" % r.stderr)
        with sqlite3.connect(db) as c:
            v = c.execute("PRAGMA user_version").fetchone()[0]
            events = c.execute("SELECT count(*) FROM event").fetchone()[0]
            indexes = set(n for (n,) in c.execute("SELECT name FROM sqlite_schema WHERE type = 'index'"))
            ok = c.execute("PRAGMA integrity_check").fetchone()[0]
        check(v == latest and ok == "ok", "from version %d: user_version %d (want %d), %s" % (version, v, latest, ok))
        check(events > 0, "from version %d: the event table is used after the upgrade" % version)
        check("run_history" in indexes and "run_candidate" not in indexes,
              "from version %d: the indexes of the last step: %s" % (version, sorted(indexes)))
        rows = export(lw, db)
        old = [x for x in rows if x["process"] == "com.old:inference"]
        seed = [x for x in rows if x["run_id"] == "seed-00000000000000bb"]
        check(len(rows) == 7 and old and old[0]["rules"] == ["aei-low-memory"] and
              old[0]["ring"] == "probe" and seed and seed[0]["ring"] == "seed",
              "from version %d: the old rows survive the upgrade: %d rows, %s" % (version, len(rows), old))
        # From version 10 each run has its crash signature; an older run
        # has none (nothing stored could sign it), the demo's native crash
        # ingested after the upgrade has one.
        check(old[0]["crash_signature"] is None,
              "from version %d: an old run has no crash signature: %r" % (version, old[0]["crash_signature"]))
        signed = [x for x in rows if x["crash_signature"]]
        check(version >= 10 or (signed and all(re.fullmatch(r"[0-9a-f]{16}", x["crash_signature"])
                                                for x in signed)),
              "from version %d: the runs ingested after the upgrade are signed: %s" %
              (version, [(x["process"], x["class"], x["crash_signature"]) for x in rows]))
        # ingest says it upgraded, once.
        again = os.path.join(tmp, "v%d-again.db" % version)
        old_database(again, steps, version)
        r = lastwords(lw, ["ingest", "--db", again, "--tz", "+01:00", demo])
        check("upgraded the schema from version %d to %d" % (version, latest) in r.stderr,
              "ingest says it upgraded: %r" % r.stderr)
        r = lastwords(lw, ["ingest", "--db", again, "--tz", "+01:00", demo])
        check("upgraded" not in r.stderr, "no upgrade the second time")

    newer = os.path.join(tmp, "newer.db")
    with sqlite3.connect(newer) as c:
        c.execute("CREATE TABLE future (x)")
        c.execute("PRAGMA user_version = %d" % (latest + 1))
        c.execute("PRAGMA application_id = %d" % 0x4c57484e)
    foreign = os.path.join(tmp, "foreign.db")
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE customers (name)")
    text = os.path.join(tmp, "text.db")
    with open(text, "w") as f:
        f.write("not a database at all, just some text that is long enough" * 20)
    for path, what in ((newer, "written by a newer lastwords"), (foreign, "not a lastwords history"),
                       (text, "not a database"), (os.path.join(tmp, "absent.db"), "No such file")):
        before = open(path, "rb").read() if os.path.exists(path) else None
        for cmd in (["ingest", "--db", path, demo], ["history", "--db", path],
                    ["export", "--db", path, "--format", "csv"]):
            if cmd[0] == "ingest" and before is None:
                continue  # ingest creates a missing database
            r = lastwords(lw, cmd)
            check(r.returncode == EXIT_DATABASE and path in r.stderr and what in r.stderr,
                  "%s on %s: exit %d naming it (%r), got %d: %s"
                  % (cmd[0], os.path.basename(path), EXIT_DATABASE, what, r.returncode, r.stderr))
        after = open(path, "rb").read() if os.path.exists(path) else None
        check(before == after, "a refused database is left as it was: %s" % path)


def history_validator(root):
    """history --format json against schemas/history.schema.json. Without
    python3-jsonschema this check fails: .ci/install-deps --tests installs it."""
    try:
        import jsonschema
    except ImportError:
        check(False, "python3-jsonschema is needed to check history JSON against its schema")
        return lambda doc: None
    schema = json.load(open(os.path.join(root, "schemas", "history.schema.json")))
    v = jsonschema.Draft202012Validator(schema)

    def validate(doc):
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
        check(not errs, "history JSON against its schema: %s" % "; ".join(
            "%s: %s" % (list(e.path), e.message) for e in errs[:3]))
    return validate


def test_concurrent(lw, root, tmp):
    src = os.path.join(tmp, "conc-bundles")
    os.mkdir(src)
    bundles = []
    for k in range(int(os.environ.get("LW_CONCURRENT_COPIES", "80"))):
        for name, b, tz in scenario_bundles(root):
            if tz or name in ("seed-ring-less", "ring-binary-and-json"):
                continue
            dst = os.path.join(src, "%s-%d" % (name, k))
            variant(b, dst, 100 + k)
            bundles.append(dst)
    db = os.path.join(tmp, "conc.db")
    r = lastwords(lw, ["ingest", "--db", db, bundles[0]])  # create it first
    check(r.returncode == 0, "first ingest: %s" % r.stderr)
    # A reader that holds a read transaction open for the whole ingest.
    validate = history_validator(root)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN")
    held = holder.execute("SELECT count(*) FROM run").fetchone()[0]
    p = subprocess.Popen([lw, "ingest", "--db", db, "--events"] + bundles[1:],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    reads, last = 0, 0
    groupings = ["candidate", "app_version", "stage", "class", "device", "process"]
    while p.poll() is None:
        r = lastwords(lw, ["history", "--db", db, "--by", groupings[reads % 6], "--format", "json"])
        if not check(r.returncode == 0, "history during an ingest exits 0: %s" % r.stderr):
            break
        h = json.loads(r.stdout)
        validate(h)
        check(sum(g["runs"] for g in h["groups"]) == h["runs"],
              "history during an ingest is consistent: groups sum to the total")
        check(h["runs"] >= last, "history never goes back: %d after %d" % (h["runs"], last))
        last = h["runs"]
        e = lastwords(lw, ["export", "--db", db, "--format", "csv"])
        check(e.returncode == 0, "export during an ingest exits 0: %s" % e.stderr)
        reads += 1
    err = p.communicate()[1]
    check(p.returncode == 0, "the ingest finishes while a reader holds a transaction: %d %s"
          % (p.returncode, err))
    check(holder.execute("SELECT count(*) FROM run").fetchone()[0] == held,
          "the open reader still sees its snapshot")
    holder.execute("COMMIT")
    holder.close()
    check(reads >= 3, "history ran during the ingest (%d times)" % reads)
    with sqlite3.connect(db) as c:
        mode = c.execute("PRAGMA journal_mode").fetchone()[0]
    check(mode == "wal", "the database is in WAL mode: %s" % mode)
    # Two ingests at once into a new database: the second waits for the
    # first's schema and transactions instead of failing.
    two = os.path.join(tmp, "two-writers.db")
    half = len(bundles) // 2
    ps = [subprocess.Popen([lw, "ingest", "--db", two, "--events"] + part, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True) for part in (bundles[:half], bundles[half:])]
    for p in ps:
        err = p.communicate()[1]
        check(p.returncode == 0, "two ingests at once: each exits 0: %d %s" % (p.returncode, err[-300:]))
    check(len(export(lw, two)) == len(export(lw, db)), "two ingests at once store every run")
    print("concurrent: %d history + export reads while ingesting %d bundles" % (reads, len(bundles) - 1))


def main():
    lw, root, part = setup(__doc__, extra=1)
    kills = int(os.environ.get("LW_KILLS", "60")) // 3
    seeds = {"kills-1": 1234, "kills-2": 4321, "kills-3": 2718}
    with tempfile.TemporaryDirectory(prefix="lw-history-") as tmp:
        if part == "rest":
            for t in (test_idempotent, test_history_usage, test_refused, test_better_evidence,
                      test_ringless_then_ring, test_migration, test_concurrent):
                t(lw, root, tmp)
            return finish("history-ingest: idempotence, refusals, upgrades, WAL readers")
        if part in seeds:
            test_kills(lw, root, tmp, kills, seeds[part])
            return finish("history-ingest: %d kills (seed %d)" % (kills, seeds[part]))
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main())
