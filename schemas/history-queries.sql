-- The queries of `lastwords history` and `lastwords export`, over the
-- tables of schemas/history.sql. lastwords runs these statements as they
-- are written here; each is also runnable in the sqlite3 shell:
--
--   sqlite3 history.db
--   sqlite> .parameter set :by candidate
--   sqlite> .parameter set :since NULL
--   sqlite> .parameter set :since "'2026-11-01'"   -- a date: quoted twice, or
--                                                  -- the shell computes 2026-11-01
--   sqlite> (paste a statement)
--
-- Parameters: :by is candidate, app_version, stage, class, process or
-- ring ("rates"), or device, sdk, delegate, runtime or a comma-separated
-- combination of those four ("matrix"); :since is a UTC date or time in ISO 8601 ('2026-11-01',
-- '2026-11-01T12:00'), or NULL for all runs. A run's time is its start, or
-- for a ring-less run (ring 'none') its death: runs without either (seed
-- runs) are left out when :since is set.
-- A group's "died" counts its runs with a verdict: the ring says the run
-- died, or evidence says it did. Stage groups are the stage open when the
-- run ended ('none' when no stage was open; 'unknown' for a ring-less run,
-- whose stages nobody knows). An app version of 0, which nothing gave, is
-- the group 'unknown'.
-- "totals", "rates", "matrix" and "regressions" count from the views
-- group_count, matrix_count and version_count of schemas/history.sql
-- (versions 9 and 11): whole days from the
-- tallies, and of the day that :since cuts, its runs one by one. Run
-- "count-from-runs" first in the same connection and they count from run
-- alone, as a warehouse without the tallies would, with the same figures.

-- name: rates
-- One row per group, class and evidence level with how many runs of the
-- group got that verdict; the row whose class is NULL counts the group's
-- runs without a verdict. runs and died repeat on each row of a group.
-- Groups come in order: app versions by number, candidates by first
-- appearance, the others by name.
WITH t AS (
	-- Whole days from the tallies; of the day :since cuts, its runs from
	-- :since on (schemas/history.sql, version 9).
	SELECT grp, class AS cls, evidence_level AS lvl, runs, seen FROM group_count
	WHERE dimension = :by AND tallied AND day >= coalesce(:since, '')
	UNION ALL
	SELECT grp, class, evidence_level, runs, seen FROM group_count
	WHERE dimension = :by AND NOT tallied AND seen >= :since AND seen < substr(:since, 1, 10) || 'U'
	  AND day < :since
), c AS (
	SELECT grp, nullif(cls, '') AS class, nullif(lvl, '') AS evidence_level, sum(runs) AS n,
	       min(seen) AS first_seen
	FROM t GROUP BY grp, cls, lvl
), g AS (
	SELECT grp, sum(n) AS runs, coalesce(sum(n) FILTER (WHERE class IS NOT NULL), 0) AS died,
	       min(first_seen) AS first_seen
	FROM c GROUP BY grp
)
SELECT g.grp, g.runs, g.died, g.first_seen, c.class, c.evidence_level, c.n
FROM g JOIN c USING (grp)
ORDER BY CASE :by WHEN 'app_version' THEN CAST(g.grp AS INTEGER) END,
	 CASE :by WHEN 'candidate' THEN g.first_seen END,
	 g.grp, c.class, c.evidence_level;

-- name: matrix
-- `history --by device|sdk|delegate|runtime` and their combinations: :by
-- names one or more of the four, comma-separated ('device,delegate'). One
-- row per cell of those (the others '' on every row), class and evidence
-- level, as in "rates": runs and died repeat on each row of a cell; the
-- row whose class is NULL counts the cell's runs without a verdict. Cells
-- come by device, SDK level (by number), delegate and runtime; lastwords
-- lays them out in the order --by names them. A cell's groups are those
-- of the view run_matrix (schemas/history.sql, version 11).
WITH t AS (
	-- As in "rates", from matrix_count.
	SELECT device, sdk, delegate, runtime, class AS cls, evidence_level AS lvl, runs, seen
	FROM matrix_count
	WHERE tallied AND day >= coalesce(:since, '')
	UNION ALL
	SELECT device, sdk, delegate, runtime, class, evidence_level, runs, seen FROM matrix_count
	WHERE NOT tallied AND seen >= :since AND seen < substr(:since, 1, 10) || 'U' AND day < :since
), k AS (
	SELECT CASE WHEN instr(',' || :by || ',', ',device,') THEN device ELSE '' END AS device,
	       CASE WHEN instr(',' || :by || ',', ',sdk,') THEN sdk ELSE '' END AS sdk,
	       CASE WHEN instr(',' || :by || ',', ',delegate,') THEN delegate ELSE '' END AS delegate,
	       CASE WHEN instr(',' || :by || ',', ',runtime,') THEN runtime ELSE '' END AS runtime,
	       cls, lvl, runs, seen
	FROM t
), c AS (
	SELECT device, sdk, delegate, runtime, nullif(cls, '') AS class,
	       nullif(lvl, '') AS evidence_level, sum(runs) AS n, min(seen) AS first_seen
	FROM k GROUP BY device, sdk, delegate, runtime, cls, lvl
), g AS (
	SELECT device, sdk, delegate, runtime, sum(n) AS runs,
	       coalesce(sum(n) FILTER (WHERE class IS NOT NULL), 0) AS died, min(first_seen) AS first_seen
	FROM c GROUP BY device, sdk, delegate, runtime
)
SELECT g.device, g.sdk, g.delegate, g.runtime, g.runs, g.died, g.first_seen, c.class,
       c.evidence_level, c.n
FROM g JOIN c USING (device, sdk, delegate, runtime)
ORDER BY g.device, CAST(g.sdk AS INTEGER), g.sdk, g.delegate, g.runtime, c.class, c.evidence_level;

-- name: regressions
-- Within each package: candidates in order of first appearance, app
-- versions by number. A row for each one whose rate of confirmed
-- low_memory or native_crash verdicts rose over the one before it, with
-- the counts behind it (count of runs, against prev_count of prev_runs),
-- and the stages those confirmed deaths happened in.
-- Rates are compared as count * prev_runs > prev_count * runs. A group
-- without any such verdict counts 0, not NULL.
WITH v AS (
	-- As in "rates", from version_count.
	SELECT package, candidate AS cand, app_version, open_stage AS stage, class AS cls,
	       evidence_level AS lvl, runs, seen FROM version_count
	WHERE tallied AND day >= coalesce(:since, '')
	UNION ALL
	SELECT package, candidate, app_version, open_stage, class, evidence_level, runs, seen
	FROM version_count
	WHERE NOT tallied AND seen >= :since AND seen < substr(:since, 1, 10) || 'U' AND day < :since
), base AS (
	SELECT package, nullif(cand, '') AS candidate, app_version, min(seen) AS first_seen,
	       sum(runs) AS runs,
	       coalesce(sum(runs) FILTER (WHERE cls = 'low_memory' AND lvl = 'confirmed'), 0) AS low_memory,
	       coalesce(sum(runs) FILTER (WHERE cls = 'native_crash' AND lvl = 'confirmed'), 0) AS native_crash
	FROM v GROUP BY package, cand, app_version
), g AS (
	SELECT 'candidate' AS dimension, package, candidate AS grp, NULL AS num,
	       min(first_seen) AS first_seen, sum(runs) AS runs,
	       sum(low_memory) AS low_memory, sum(native_crash) AS native_crash
	FROM base WHERE candidate IS NOT NULL GROUP BY package, candidate
	UNION ALL
	SELECT 'app_version', package, CAST(app_version AS TEXT), app_version,
	       min(first_seen), sum(runs), sum(low_memory), sum(native_crash)
	FROM base WHERE app_version != 0 GROUP BY package, app_version
), o AS (
	SELECT g.*,
	       lag(grp) OVER w AS prev, lag(runs) OVER w AS prev_runs,
	       lag(low_memory) OVER w AS prev_low_memory, lag(native_crash) OVER w AS prev_native_crash
	FROM g
	WINDOW w AS (PARTITION BY dimension, package ORDER BY num, first_seen, grp)
), flags AS (
	SELECT dimension, package, prev, grp, num, first_seen, 'low_memory' AS class,
	       prev_low_memory AS prev_count, prev_runs, low_memory AS count, runs
	FROM o WHERE prev IS NOT NULL AND low_memory * prev_runs > prev_low_memory * runs
	UNION ALL
	SELECT dimension, package, prev, grp, num, first_seen, 'native_crash',
	       prev_native_crash, prev_runs, native_crash, runs
	FROM o WHERE prev IS NOT NULL AND native_crash * prev_runs > prev_native_crash * runs
)
SELECT dimension, package, prev, grp, class, prev_count, prev_runs, count, runs,
       (SELECT json_group_object(stage, n) FROM (
		SELECT coalesce(nullif(v.stage, ''), 'none') AS stage, sum(v.runs) AS n
		FROM v
		WHERE v.package = flags.package AND v.cls = flags.class AND v.lvl = 'confirmed'
		  AND CASE flags.dimension WHEN 'candidate' THEN v.cand
					   ELSE CAST(v.app_version AS TEXT) END = flags.grp
		GROUP BY 1 ORDER BY 2 DESC, 1)) AS stages
FROM flags
ORDER BY dimension, package, num, first_seen, grp, class;

-- name: trends
-- Deaths over time, for `history --format html`'s charts: within each
-- package, for each candidate (in order of first appearance; 'none' for
-- the runs with no candidate, ring-less runs among them) and each app
-- version (by number; 'unknown' first, for the runs whose version is not
-- known), one row
-- per UTC day, class and evidence level with how many of its runs that
-- day got that verdict; the row whose class is NULL counts the day's runs
-- without a verdict. Each run is in one chart of each dimension, but runs
-- without a time (seed runs) are left out: "totals" counts them.
WITH r AS NOT MATERIALIZED (
	SELECT package, candidate, app_version, coalesce(start_time, end_time) AS t, class,
	       evidence_level
	FROM run
	WHERE coalesce(start_time, end_time) IS NOT NULL
	  AND (:since IS NULL OR coalesce(start_time, end_time) >= :since)
), d AS (
	SELECT 'candidate' AS dimension, package, coalesce(candidate, 'none') AS grp, NULL AS num,
	       substr(t, 1, 10) AS day, min(t) AS first_seen, class, evidence_level, count(*) AS n
	FROM r
	GROUP BY package, coalesce(candidate, 'none'), substr(t, 1, 10), class, evidence_level
	UNION ALL
	SELECT 'app_version', package, CASE WHEN coalesce(app_version, 0) = 0 THEN 'unknown'
					    ELSE CAST(app_version AS TEXT) END,
	       coalesce(app_version, 0), substr(t, 1, 10), min(t), class, evidence_level, count(*)
	FROM r
	GROUP BY package, coalesce(app_version, 0), substr(t, 1, 10), class, evidence_level
), o AS (
	SELECT d.*, min(first_seen) OVER (PARTITION BY dimension, package, grp) AS grp_first_seen
	FROM d
)
SELECT dimension, package, grp, day, class, evidence_level, n
FROM o
ORDER BY dimension DESC, package, num, grp_first_seen, grp, day, class, evidence_level;

-- name: totals
-- How many runs and bundles the other statements looked at.
WITH t AS (
	-- Whole days from the tallies; of the day :since cuts, its runs from
	-- :since on (schemas/history.sql, version 9).
	SELECT grp, runs FROM group_count
	WHERE dimension = 'bundle' AND tallied AND day >= coalesce(:since, '')
	UNION ALL
	SELECT grp, runs FROM group_count
	WHERE dimension = 'bundle' AND NOT tallied AND seen >= :since AND seen < substr(:since, 1, 10) || 'U'
	  AND day < :since
)
SELECT coalesce(sum(runs), 0) AS runs, count(DISTINCT grp) AS bundles FROM t;

-- name: export
-- One row per run: its verdict (class NULL for a run that ended cleanly),
-- the device and the run's facts. What nobody knows is NULL, never 0 or
-- 'none': a ring-less run's stages, budget and over_budget (its row holds
-- placeholders: schemas/history.sql, version 8), a peak without samples,
-- an app version or pid nothing gave. open_stage is 'none' when the ring
-- says no stage was open. The row is documented, with BigQuery and
-- ClickHouse types, in schemas/verdict-row.md. A column whose name ends in
-- [] holds a JSON array; the export writes it as an array in NDJSON and as
-- the array's JSON text in CSV.
SELECT bundle.digest AS bundle,
       bundle.device_model AS device_model,
       bundle.android_version AS android_version,
       bundle.fingerprint AS fingerprint,
       run.run_key AS run_id,
       run.ring AS ring,
       run.package AS package,
       run.process AS process,
       nullif(run.pid, 0) AS pid,
       run.start_time AS start_time,
       run.end_time AS end_time,
       nullif(run.app_version, 0) AS app_version,
       run.candidate AS candidate,
       run.stable_candidate AS stable_candidate,
       run.outcome AS outcome,
       CASE WHEN run.ring = 'none' THEN NULL ELSE run.last_stage END AS last_stage,
       CASE WHEN run.ring = 'none' THEN NULL ELSE coalesce(run.open_stage, 'none') END AS open_stage,
       nullif(run.peak_kb, 0) AS peak_kb,
       CASE WHEN run.ring = 'none' THEN NULL ELSE run.budget_kb END AS budget_kb,
       CASE WHEN run.ring = 'none' THEN NULL ELSE run.over_budget END AS over_budget,
       run.class AS class,
       run.evidence_level AS evidence_level,
       run.contradiction AS contradiction,
       (SELECT reason FROM exit_record WHERE run_id = run.id ORDER BY seq LIMIT 1) AS exit_reason,
       (SELECT description FROM exit_record WHERE run_id = run.id ORDER BY seq LIMIT 1) AS exit_description,
       (SELECT json_group_array(text) FROM (SELECT text FROM run_line
		WHERE run_id = run.id AND kind = 'rule' ORDER BY seq)) AS "rules[]",
       (SELECT json_group_array(text) FROM (SELECT text FROM run_line
		WHERE run_id = run.id AND kind = 'evidence' ORDER BY seq)) AS "evidence[]",
       (SELECT json_group_array(text) FROM (SELECT text FROM run_line
		WHERE run_id = run.id AND kind = 'missing' ORDER BY seq)) AS "missing[]",
       (SELECT json_group_array(text) FROM (SELECT text FROM run_line
		WHERE run_id = run.id AND kind = 'action' ORDER BY seq)) AS "actions[]",
       run.crash_signature AS crash_signature,
       bundle.manufacturer AS manufacturer,
       bundle.sdk AS sdk,
       run.delegates AS delegates,
       run.runtime_version AS runtime_version,
       run.resident_models AS resident_models,
       CASE WHEN run.peak_kb = 0 THEN NULL ELSE run.peak_stage END AS peak_stage
FROM run JOIN bundle ON bundle.id = run.bundle_id
ORDER BY coalesce(run.start_time, run.end_time), run.run_key;

-- name: signatures
-- `history --by signature`: one row per package and crash signature
-- (schemas/history.sql, version 10), the same crash across runs and app
-- versions counted as one: its runs, the app versions it was seen in (an
-- unknown version, 0, not counted), its first and last time, the frames it
-- signs (as the newest run wrote them) and its classes as a JSON object
-- {class: runs}. Most runs first. Runs without a signature are left out;
-- "totals" counts them.
WITH r AS (
	SELECT package, crash_signature AS sig, app_version, class,
	       coalesce(start_time, end_time) AS seen, crash_signed_frames AS frames
	FROM run
	WHERE crash_signature IS NOT NULL
	  AND (:since IS NULL OR coalesce(start_time, end_time) >= :since)
)
SELECT package, sig, count(*) AS runs,
       count(DISTINCT nullif(app_version, 0)) AS versions,
       min(seen) AS first_seen, max(seen) AS last_seen,
       (SELECT frames FROM r AS n WHERE n.package = r.package AND n.sig = r.sig
	ORDER BY n.seen DESC LIMIT 1) AS frames,
       (SELECT json_group_object(cls, k) FROM (
		SELECT coalesce(c.class, 'clean') AS cls, count(*) AS k FROM r AS c
		WHERE c.package = r.package AND c.sig = r.sig GROUP BY 1 ORDER BY 2 DESC, 1)) AS classes,
       min(nullif(app_version, 0)) AS first_version, max(nullif(app_version, 0)) AS last_version
FROM r
GROUP BY package, sig
ORDER BY count(*) DESC, min(seen), package, sig;

-- name: new-signatures
-- The regression check's new crashes: within each package, a crash
-- signature first seen in an app version that is not the package's first
-- (that release brought it: no run of an earlier version crashed so),
-- with that version, the one before it, its runs (in that version and
-- later ones) and its frames. Runs of an unknown version (0) are no
-- version's.
WITH r AS (
	SELECT package, crash_signature AS sig, app_version,
	       coalesce(start_time, end_time) AS seen, crash_signed_frames AS frames
	FROM run
	WHERE (:since IS NULL OR coalesce(start_time, end_time) >= :since) AND app_version != 0
), versions AS (
	SELECT package, app_version, lag(app_version) OVER (PARTITION BY package ORDER BY app_version) AS prev
	FROM (SELECT DISTINCT package, app_version FROM r)
), s AS (
	SELECT package, sig, min(app_version) AS app_version, count(*) AS runs, min(seen) AS first_seen
	FROM r WHERE sig IS NOT NULL GROUP BY package, sig
)
SELECT s.package, s.sig, s.app_version, versions.prev, s.runs, s.first_seen,
       (SELECT frames FROM r WHERE r.package = s.package AND r.sig = s.sig
	ORDER BY r.seen DESC LIMIT 1) AS frames
FROM s JOIN versions USING (package, app_version)
WHERE versions.prev IS NOT NULL
ORDER BY s.package, s.app_version, s.runs DESC, s.first_seen, s.sig;

-- name: candidate-deaths
-- The deaths of one candidate (:candidate, 16 hex digits), oldest first,
-- with the device and scenario of their bundles: the earlier deaths that
-- lastwords gate --history wants re-verified.
SELECT bundle.device_model, bundle.scenario, run.open_stage, coalesce(run.start_time, run.end_time),
       run.process, run.pid, run.class, run.evidence_level, bundle.source
FROM run JOIN bundle ON bundle.id = run.bundle_id
WHERE run.candidate = :candidate AND run.class IS NOT NULL
ORDER BY coalesce(run.start_time, run.end_time), run.run_key;

-- name: count-from-runs
-- Not a query: run it first (sqlite3's .read, or executescript), and
-- "totals", "rates", "matrix" and "regressions" in the same connection count from run
-- alone rather than from the tallies. Each run is then a tally of its own
-- whose day is its time, which :since compares exactly. The temporary views
-- hide the database's own for that connection and change nothing in the
-- file. tests/history-tallies.py checks that both give the same rows;
-- tests/bench-history.c times both.
CREATE TEMP VIEW group_count AS
SELECT dimension, grp, coalesce(seen, '') AS day, seen, class, evidence_level, 1 AS runs,
       1 AS tallied
FROM run_group;
CREATE TEMP VIEW matrix_count AS
SELECT device, sdk, delegate, runtime, coalesce(seen, '') AS day, seen, class, evidence_level,
       1 AS runs, 1 AS tallied
FROM run_matrix;
CREATE TEMP VIEW version_count AS
SELECT package, coalesce(candidate, '') AS candidate, app_version,
       coalesce(start_time, end_time, '') AS day, coalesce(start_time, end_time) AS seen,
       coalesce(open_stage, '') AS open_stage, coalesce(class, '') AS class,
       coalesce(evidence_level, '') AS evidence_level, 1 AS runs, 1 AS tallied
FROM run;
