-- The statements "totals", "rates", "regressions" and "signatures" of
-- history-queries.sql in PostgreSQL's dialect, counting from the runs
-- alone (as there after "count-from-runs": a warehouse has no tallies),
-- over the export's rows loaded into lastwords_verdicts
-- (verdict-row.postgresql.sql). They give
-- the figures of `lastwords history` (tests/history-postgresql.py checks
-- that on the fixtures). Run one in psql with its parameters set:
--
--   psql -v by=candidate -v since=2026-11-01 -f statement.sql
--
-- :by is as in history-queries.sql; :since is a UTC date or time, or empty
-- for all runs. Where they differ from SQLite's: the times are timestamptz
-- (first_seen is written as lastwords writes times), NULLs sort first and
-- text in byte order as in SQLite, and a stage list is json_object_agg in
-- the order of its counts. A run that two loaded bundles hold has two
-- rows here: keep the one with the best evidence_level per run_id (as
-- ingest does) before running these on several workers' rows.

-- name: rates
WITH r AS (
	SELECT CASE :'by'
		WHEN 'candidate'   THEN coalesce(candidate, 'none')
		WHEN 'app_version' THEN CASE WHEN coalesce(app_version, 0) = 0 THEN 'unknown'
					     ELSE CAST(app_version AS text) END
		WHEN 'stage'       THEN CASE WHEN ring = 'none' THEN 'unknown'
					     ELSE coalesce(open_stage, 'none') END
		WHEN 'class'       THEN coalesce(class, 'clean')
		-- The matrix's dimensions alone, as the view run_matrix of
		-- history.sql names their groups (no combination here).
		WHEN 'device'      THEN CASE WHEN device_model IS NULL THEN 'unknown'
					     WHEN manufacturer IS NULL THEN device_model
					     ELSE manufacturer || ' ' || device_model END
		WHEN 'sdk'         THEN coalesce(CAST(sdk AS text), 'unknown')
		WHEN 'delegate'    THEN CASE WHEN delegates IS NULL THEN 'unknown'
					     WHEN delegates = '' THEN 'unmarked' ELSE delegates END
		WHEN 'runtime'     THEN CASE WHEN runtime_version IS NOT NULL THEN CAST(runtime_version AS text)
					     WHEN delegates IS NULL THEN 'unknown' ELSE 'unmarked' END
		WHEN 'process'     THEN process
		WHEN 'ring'        THEN ring
		END AS grp,
		coalesce(app_version, 0) AS app_version, coalesce(start_time, end_time) AS seen, class,
		evidence_level
	FROM lastwords_verdicts
	WHERE NULLIF(:'since', '') IS NULL
	   OR coalesce(start_time, end_time) >= NULLIF(:'since', '')::timestamp AT TIME ZONE 'UTC'
), c AS (
	SELECT grp, class, evidence_level, count(*) AS n, min(seen) AS first_seen,
	       min(app_version) AS version
	FROM r GROUP BY grp, class, evidence_level
), g AS (
	SELECT grp, sum(n) AS runs, coalesce(sum(n) FILTER (WHERE class IS NOT NULL), 0) AS died,
	       min(first_seen) AS first_seen, min(version) AS version
	FROM c GROUP BY grp
)
SELECT g.grp, g.runs, g.died,
       to_char(g.first_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS first_seen,
       c.class, c.evidence_level, c.n
FROM g JOIN c USING (grp)
ORDER BY CASE :'by' WHEN 'app_version' THEN g.version END NULLS FIRST,
	 CASE WHEN :'by' = 'sdk' AND g.grp != 'unknown' THEN CAST(g.grp AS integer) END NULLS LAST,
	 CASE :'by' WHEN 'candidate' THEN g.first_seen END NULLS FIRST,
	 g.grp COLLATE "C", c.class COLLATE "C" NULLS FIRST, c.evidence_level COLLATE "C" NULLS FIRST;

-- name: regressions
WITH r AS (
	SELECT package, candidate, coalesce(app_version, 0) AS app_version,
	       coalesce(start_time, end_time) AS seen, class, evidence_level,
	       nullif(open_stage, 'none') AS open_stage
	FROM lastwords_verdicts
	WHERE NULLIF(:'since', '') IS NULL
	   OR coalesce(start_time, end_time) >= NULLIF(:'since', '')::timestamp AT TIME ZONE 'UTC'
), base AS (
	SELECT package, candidate, app_version, min(seen) AS first_seen, count(*) AS runs,
	       count(*) FILTER (WHERE class = 'low_memory' AND evidence_level = 'confirmed') AS low_memory,
	       count(*) FILTER (WHERE class = 'native_crash' AND evidence_level = 'confirmed') AS native_crash
	FROM r GROUP BY package, candidate, app_version
), g AS (
	SELECT 'candidate' AS dimension, package, candidate AS grp, NULL::bigint AS num,
	       min(first_seen) AS first_seen, sum(runs) AS runs,
	       sum(low_memory) AS low_memory, sum(native_crash) AS native_crash
	FROM base WHERE candidate IS NOT NULL GROUP BY package, candidate
	UNION ALL
	SELECT 'app_version', package, CAST(app_version AS text), app_version,
	       min(first_seen), sum(runs), sum(low_memory), sum(native_crash)
	FROM base WHERE app_version != 0 GROUP BY package, app_version
), o AS (
	SELECT g.*,
	       lag(grp) OVER w AS prev, lag(runs) OVER w AS prev_runs,
	       lag(low_memory) OVER w AS prev_low_memory, lag(native_crash) OVER w AS prev_native_crash
	FROM g
	WINDOW w AS (PARTITION BY dimension, package
		     ORDER BY num NULLS FIRST, first_seen NULLS FIRST, grp COLLATE "C")
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
       (SELECT json_object_agg(stage, n ORDER BY n DESC, stage COLLATE "C") FROM (
		SELECT coalesce(r.open_stage, 'none') AS stage, count(*) AS n
		FROM r
		WHERE r.package = flags.package AND r.class = flags.class
		  AND r.evidence_level = 'confirmed'
		  AND CASE flags.dimension WHEN 'candidate' THEN r.candidate
					   ELSE CAST(r.app_version AS text) END = flags.grp
		GROUP BY 1) AS s) AS stages
FROM flags
ORDER BY dimension COLLATE "C", package COLLATE "C", num NULLS FIRST, first_seen NULLS FIRST,
	 grp COLLATE "C", class COLLATE "C";

-- name: totals
SELECT count(*) AS runs, count(DISTINCT bundle) AS bundles
FROM lastwords_verdicts
WHERE NULLIF(:'since', '') IS NULL
   OR coalesce(start_time, end_time) >= NULLIF(:'since', '')::timestamp AT TIME ZONE 'UTC';

-- name: signatures
-- `history --by signature` from the export's crash_signature: each
-- package's signatures with their runs, app versions (0, unknown, not
-- counted), first and last version and time; most runs first. The signed
-- frames are not in the export: `lastwords history` has them.
SELECT package, crash_signature, count(*) AS runs,
       count(DISTINCT NULLIF(app_version, 0)) AS versions,
       min(NULLIF(app_version, 0)) AS first_version, max(NULLIF(app_version, 0)) AS last_version,
       to_char(min(coalesce(start_time, end_time)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
	       AS first_seen,
       to_char(max(coalesce(start_time, end_time)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
	       AS last_seen
FROM lastwords_verdicts
WHERE crash_signature IS NOT NULL
  AND (NULLIF(:'since', '') IS NULL
       OR coalesce(start_time, end_time) >= NULLIF(:'since', '')::timestamp AT TIME ZONE 'UTC')
GROUP BY package, crash_signature
ORDER BY count(*) DESC, min(coalesce(start_time, end_time)) NULLS FIRST, package COLLATE "C",
	 crash_signature COLLATE "C";
