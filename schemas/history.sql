-- lastwords history: the SQLite store that `lastwords ingest` writes and
-- `lastwords history` and `lastwords export` read.
--
-- The schema is a list of steps. PRAGMA user_version is the number of steps
-- a database has; lastwords applies the steps it lacks, in one transaction,
-- whenever it opens the database (an upgrade in place). A database whose
-- user_version is higher than the last step here was written by a newer
-- lastwords and is refused. PRAGMA application_id is 0x4c57484e ("LWHN").
--
-- Times are UTC text in ISO 8601 with microseconds ("2026-11-30T00:28:04.509000Z"),
-- so they sort as text. Names (class, evidence_level, stage, outcome) are
-- the vocabulary of include/lastwords/vocab.h and schemas/report.schema.json.
-- Each ingested bundle is one transaction: a bundle is in, with all its
-- runs, or not at all.
--
-- Text is what the report's JSON says, as UTF-8 (a byte of the evidence
-- that is not UTF-8 is U+FFFD), except a NUL byte of the evidence, kept as
-- the two bytes C0 80 (NUL in modified UTF-8) so that SQLite's text does
-- not end there; export writes it as \u0000 in NDJSON.

-- version 1
CREATE TABLE bundle (
	id                INTEGER PRIMARY KEY,
	digest            TEXT NOT NULL UNIQUE, -- 16 hex digits over each file's path in the bundle and its bytes
	source            TEXT NOT NULL,        -- the path given to ingest
	ingested_at       TEXT NOT NULL,        -- UTC
	complete          INTEGER NOT NULL,     -- 0: the pull's manifest says something required is missing
	device_model      TEXT,                 -- from manifest.json (lastwords pull); NULL without one
	android_version   TEXT,
	fingerprint       TEXT,
	tz_offset_minutes INTEGER NOT NULL,     -- the device's offset used for dumpsys and logcat times
	tz_assumed        INTEGER NOT NULL,     -- 1: no offset was known; local times were taken as UTC
	runs              INTEGER NOT NULL,     -- runs in the bundle's report
	unmatched_exits   INTEGER NOT NULL      -- exit records that joined no run
);

-- One row per run (one ring, one seed events file, or from version 4 one
-- ring-less run). A run that a later
-- bundle holds again keeps the better-evidenced verdict (confirmed over
-- supported over unconfirmed over none; the newer bundle on a tie).
CREATE TABLE run (
	id               INTEGER PRIMARY KEY,
	run_key          TEXT NOT NULL UNIQUE,  -- the ring's run id (32 hex digits); "seed-" and a digest for seed runs,
						-- "ringless-" and a digest of its process, pid and time of death for ring-less runs
	bundle_id        INTEGER NOT NULL REFERENCES bundle(id),
	package          TEXT NOT NULL,         -- the process name before any ':'
	process          TEXT NOT NULL,
	pid              INTEGER NOT NULL,
	file             TEXT NOT NULL,         -- the ring's path inside the bundle
	start_time       TEXT,                  -- UTC; NULL for a seed run
	end_time         TEXT,
	app_version      INTEGER NOT NULL,
	candidate        TEXT,                  -- 16 hex digits; NULL when none was recorded
	stable_candidate TEXT,
	outcome          TEXT NOT NULL,         -- clean, died, crashed, unknown, ...
	last_stage       TEXT NOT NULL,
	open_stage       TEXT,                  -- the stage open when the run ended; NULL when none was
	budget_kb        INTEGER NOT NULL,
	peak_kb          INTEGER NOT NULL,
	peak_stage       TEXT NOT NULL,
	over_budget      INTEGER NOT NULL,
	class            TEXT,                  -- NULL: the run ended cleanly and no evidence says otherwise
	evidence_level   TEXT,                  -- confirmed, supported, unconfirmed; NULL with class
	contradiction    TEXT
);
CREATE INDEX run_bundle ON run(bundle_id);
CREATE INDEX run_start ON run(start_time);
CREATE INDEX run_candidate ON run(package, candidate);

-- The verdict's lists, in order: the rules that fired, the evidence, what
-- is missing, and the recovery actions (with why).
CREATE TABLE run_line (
	run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
	kind   TEXT NOT NULL CHECK (kind IN ('rule', 'evidence', 'missing', 'action')),
	seq    INTEGER NOT NULL,
	text   TEXT NOT NULL,
	why    TEXT,
	PRIMARY KEY (run_id, kind, seq)
) WITHOUT ROWID;

-- The ApplicationExitInfo records joined to a run.
CREATE TABLE exit_record (
	run_id      INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
	seq         INTEGER NOT NULL,
	file        TEXT NOT NULL,              -- inside the bundle
	line        INTEGER NOT NULL,
	reason      INTEGER NOT NULL,           -- ApplicationExitInfo.REASON_*
	subreason   INTEGER NOT NULL,
	status      INTEGER NOT NULL,
	importance  INTEGER NOT NULL,
	timestamp   TEXT,                       -- as the record wrote it (device local time)
	description TEXT,
	joined_by   TEXT NOT NULL,              -- "run id", or "process, pid and time"
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- Runs of one process that died in the same early stage with the same
-- candidate, one after another.
CREATE TABLE boot_loop (
	bundle_id INTEGER NOT NULL REFERENCES bundle(id),
	process   TEXT NOT NULL,
	stage     TEXT NOT NULL,
	candidate TEXT,
	count     INTEGER NOT NULL
);
CREATE INDEX boot_loop_bundle ON boot_loop(bundle_id);

-- version 2
-- The ring's records, stored when ingest is given --events.
CREATE TABLE event (
	run_id  INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
	ticket  INTEGER NOT NULL,               -- the slot's ticket: its place in the run
	t_ms    REAL NOT NULL,                  -- since the run started
	type    TEXT NOT NULL,                  -- stage_begin, stage_end, mark, crash, ...
	stage   TEXT,
	code    INTEGER NOT NULL,               -- per type: error, mark kind, signal, advice
	tid     INTEGER NOT NULL,
	rss_kb  INTEGER NOT NULL,
	a       INTEGER NOT NULL,               -- the slot's a, b, c (as signed 64-bit) and d, see schemas/ring-format.md
	b       INTEGER NOT NULL,
	c       INTEGER NOT NULL,
	d       INTEGER NOT NULL,
	PRIMARY KEY (run_id, ticket)
) WITHOUT ROWID;

-- version 3
-- The history queries (schemas/history-queries.sql) read runs through this
-- index alone, in group order, without sorting the table: about twice as
-- fast at 200k runs. It holds what run_candidate did.
CREATE INDEX run_history ON run(package, candidate, app_version, class, evidence_level, open_stage,
				start_time, process, bundle_id);
DROP INDEX run_candidate;

-- version 4
-- What each run was read from (report.schema.json's ring): the probe's
-- ring (probe), the seed's events (seed), or none: a ring-less run, a
-- death that only the system's evidence tells, with no start time, stage
-- or candidate. Rates split by it into runs with the probe and without.
-- The history queries read a run's time as its start, or a ring-less
-- run's death (its end_time): the index holds both.
-- A ring-less run's key is its death's (its process, pid and first
-- witness); a ring's run stores in death_key the key a ring-less run of
-- its death would have, from its first exit record, so that a death read
-- once without its ring and once with it is one run: the ring's.
ALTER TABLE run ADD COLUMN ring TEXT NOT NULL DEFAULT 'probe';
ALTER TABLE run ADD COLUMN death_key TEXT;
UPDATE run SET ring = 'seed' WHERE run_key LIKE 'seed-%';
CREATE INDEX run_death ON run(death_key) WHERE death_key IS NOT NULL;
DROP INDEX run_history;
CREATE INDEX run_history ON run(package, candidate, app_version, class, evidence_level, open_stage,
				start_time, end_time, process, bundle_id, ring);

-- version 5
-- Tallies, so that `lastwords history` reads a few rows per group and day
-- rather than every run: how many runs each group of each grouping of
-- `history --by` has per day, class and evidence level (run_tally), and
-- per package, candidate, app version, day, stage, class and evidence
-- level (version_tally, for the regressions). Triggers on run keep them in
-- the transaction that writes or removes the run, so they hold what run
-- holds; ingest never updates a run (it replaces it), and updating what
-- they count is refused. The statements of schemas/history-queries.sql
-- named "...-tallied" read them; the others give the same figures from
-- run alone. In the tallies, '' stands for none (no candidate, no verdict,
-- no stage open, no time: a seed run).
-- A run's time ("seen") is its start, or a ring-less run's death; its day
-- is that time's UTC date. A query --since a time of day reads the
-- tallies of the days after it and that day's runs from the index
-- run_seen.
DROP INDEX run_start;
CREATE INDEX run_seen ON run(coalesce(start_time, end_time));

-- Each run once in each grouping of `history --by`, and in "bundle" (for
-- the count of bundles).
CREATE VIEW run_group AS
SELECT run.id AS run_id, d.dimension,
       CASE d.dimension
	WHEN 'candidate'   THEN coalesce(run.candidate, 'none')
	WHEN 'app_version' THEN CAST(run.app_version AS TEXT)
	WHEN 'stage'       THEN coalesce(run.open_stage, 'none')
	WHEN 'class'       THEN coalesce(run.class, 'clean')
	WHEN 'device'      THEN coalesce(bundle.device_model, 'unknown')
	WHEN 'process'     THEN run.process
	WHEN 'ring'        THEN run.ring
	WHEN 'bundle'      THEN CAST(run.bundle_id AS TEXT)
	END AS grp,
       coalesce(run.start_time, run.end_time) AS seen,
       coalesce(run.class, '') AS class, coalesce(run.evidence_level, '') AS evidence_level
FROM run JOIN bundle ON bundle.id = run.bundle_id
CROSS JOIN (SELECT 'candidate' AS dimension UNION ALL SELECT 'app_version' UNION ALL
	    SELECT 'stage' UNION ALL SELECT 'class' UNION ALL SELECT 'device' UNION ALL
	    SELECT 'process' UNION ALL SELECT 'ring' UNION ALL SELECT 'bundle') AS d;

CREATE TABLE run_tally (
	dimension      TEXT NOT NULL,   -- a grouping of `history --by`, or bundle
	grp            TEXT NOT NULL,   -- as the statement "rates" names it
	day            TEXT NOT NULL,   -- YYYY-MM-DD
	class          TEXT NOT NULL,
	evidence_level TEXT NOT NULL,
	runs           INTEGER NOT NULL,
	first_seen     TEXT,            -- the earliest time of those runs
	PRIMARY KEY (dimension, grp, day, class, evidence_level)
) WITHOUT ROWID;

CREATE TABLE version_tally (
	package        TEXT NOT NULL,
	candidate      TEXT NOT NULL,
	app_version    INTEGER NOT NULL,
	day            TEXT NOT NULL,
	open_stage     TEXT NOT NULL,
	class          TEXT NOT NULL,
	evidence_level TEXT NOT NULL,
	runs           INTEGER NOT NULL,
	first_seen     TEXT,
	PRIMARY KEY (package, candidate, app_version, day, open_stage, class, evidence_level)
) WITHOUT ROWID;

CREATE TRIGGER run_tally_add AFTER INSERT ON run BEGIN
	INSERT INTO run_tally (dimension, grp, day, class, evidence_level, runs, first_seen)
	SELECT dimension, grp, coalesce(substr(seen, 1, 10), ''), class, evidence_level, 1, seen
	FROM run_group WHERE run_id = NEW.id
	ON CONFLICT DO UPDATE SET runs = runs + 1, first_seen = min(first_seen, excluded.first_seen);
	INSERT INTO version_tally (package, candidate, app_version, day, open_stage, class,
				   evidence_level, runs, first_seen)
	VALUES (NEW.package, coalesce(NEW.candidate, ''), NEW.app_version,
		coalesce(substr(coalesce(NEW.start_time, NEW.end_time), 1, 10), ''),
		coalesce(NEW.open_stage, ''), coalesce(NEW.class, ''), coalesce(NEW.evidence_level, ''),
		1, coalesce(NEW.start_time, NEW.end_time))
	ON CONFLICT DO UPDATE SET runs = runs + 1, first_seen = min(first_seen, excluded.first_seen);
END;

-- Before the run goes, while run_group still holds it. A cell whose
-- earliest run this was looks its new earliest up among that day's runs.
CREATE TRIGGER run_tally_drop BEFORE DELETE ON run BEGIN
	UPDATE run_tally SET runs = runs - 1, first_seen =
		CASE WHEN day = '' OR first_seen != coalesce(OLD.start_time, OLD.end_time)
		THEN first_seen
		ELSE (SELECT min(o.seen) FROM run_group o
		      WHERE o.seen >= run_tally.day AND o.seen < run_tally.day || 'U'
			AND o.dimension = run_tally.dimension AND o.grp = run_tally.grp
			AND o.class = run_tally.class AND o.evidence_level = run_tally.evidence_level
			AND o.run_id != OLD.id) END
	WHERE (dimension, grp, day, class, evidence_level) IN (
		SELECT dimension, grp, coalesce(substr(seen, 1, 10), ''), class, evidence_level
		FROM run_group WHERE run_id = OLD.id);
	DELETE FROM run_tally WHERE runs = 0 AND (dimension, grp, day, class, evidence_level) IN (
		SELECT dimension, grp, coalesce(substr(seen, 1, 10), ''), class, evidence_level
		FROM run_group WHERE run_id = OLD.id);
	UPDATE version_tally SET runs = runs - 1, first_seen =
		CASE WHEN day = '' OR first_seen != coalesce(OLD.start_time, OLD.end_time)
		THEN first_seen
		ELSE (SELECT min(coalesce(o.start_time, o.end_time)) FROM run o
		      WHERE coalesce(o.start_time, o.end_time) >= version_tally.day
			AND coalesce(o.start_time, o.end_time) < version_tally.day || 'U'
			AND o.package = version_tally.package
			AND coalesce(o.candidate, '') = version_tally.candidate
			AND o.app_version = version_tally.app_version
			AND coalesce(o.open_stage, '') = version_tally.open_stage
			AND coalesce(o.class, '') = version_tally.class
			AND coalesce(o.evidence_level, '') = version_tally.evidence_level
			AND o.id != OLD.id) END
	WHERE package = OLD.package AND candidate = coalesce(OLD.candidate, '')
	  AND app_version = OLD.app_version
	  AND day = coalesce(substr(coalesce(OLD.start_time, OLD.end_time), 1, 10), '')
	  AND open_stage = coalesce(OLD.open_stage, '') AND class = coalesce(OLD.class, '')
	  AND evidence_level = coalesce(OLD.evidence_level, '');
	DELETE FROM version_tally WHERE runs = 0 AND package = OLD.package
	  AND candidate = coalesce(OLD.candidate, '') AND app_version = OLD.app_version
	  AND day = coalesce(substr(coalesce(OLD.start_time, OLD.end_time), 1, 10), '')
	  AND open_stage = coalesce(OLD.open_stage, '') AND class = coalesce(OLD.class, '')
	  AND evidence_level = coalesce(OLD.evidence_level, '');
END;

CREATE TRIGGER run_tally_fixed BEFORE UPDATE OF bundle_id, package, process, start_time, end_time,
	app_version, candidate, open_stage, class, evidence_level, ring ON run BEGIN
	SELECT RAISE(ABORT, 'the tallies count this run: delete it and insert it again');
END;
CREATE TRIGGER bundle_device_fixed BEFORE UPDATE OF device_model ON bundle BEGIN
	SELECT RAISE(ABORT, 'the tallies count this bundle''s runs by device');
END;

-- A database of an earlier version: its runs into the tallies.
INSERT INTO run_tally (dimension, grp, day, class, evidence_level, runs, first_seen)
SELECT dimension, grp, coalesce(substr(seen, 1, 10), ''), class, evidence_level, count(*), min(seen)
FROM run_group GROUP BY 1, 2, 3, 4, 5;
INSERT INTO version_tally (package, candidate, app_version, day, open_stage, class,
			   evidence_level, runs, first_seen)
SELECT package, coalesce(candidate, ''), app_version,
       coalesce(substr(coalesce(start_time, end_time), 1, 10), ''), coalesce(open_stage, ''),
       coalesce(class, ''), coalesce(evidence_level, ''), count(*), min(coalesce(start_time, end_time))
FROM run GROUP BY 1, 2, 3, 4, 5, 6, 7;

-- version 6
-- A run's ring records (ingest --events) as one row per run, a JSON array
-- in ticket order of [ticket, t_ns, type, stage, code, tid, rss_kb, a, b,
-- c, d] (t_ns: since the run started), rather than a row per record:
-- those rows were two thirds of ingest's time (tests/bench-history.c).
-- The view event gives them as the rows of version 2, t_ms = t_ns / 1e6
-- as ingest computed it; reading one run's records looks its row up.
CREATE TABLE run_event (
	run_id  INTEGER PRIMARY KEY REFERENCES run(id) ON DELETE CASCADE,
	records TEXT NOT NULL
);
INSERT INTO run_event (run_id, records)
SELECT run_id, json_group_array(json_array(ticket, CAST(round(t_ms * 1e6) AS INTEGER), type, stage,
					   code, tid, rss_kb, a, b, c, d))
FROM (SELECT * FROM event ORDER BY run_id, ticket) GROUP BY run_id;
DROP TABLE event;
CREATE VIEW event (run_id, ticket, t_ms, type, stage, code, tid, rss_kb, a, b, c, d) AS
SELECT run_event.run_id, json_extract(r.value, '$[0]'), json_extract(r.value, '$[1]') / 1e6,
       json_extract(r.value, '$[2]'), json_extract(r.value, '$[3]'), json_extract(r.value, '$[4]'),
       json_extract(r.value, '$[5]'), json_extract(r.value, '$[6]'), json_extract(r.value, '$[7]'),
       json_extract(r.value, '$[8]'), json_extract(r.value, '$[9]'), json_extract(r.value, '$[10]')
FROM run_event, json_each(run_event.records) AS r;

-- version 7
-- The release gate's scenario the bundle ran (lastwords gate): the
-- manifest's "scenario" (pull --scenario), else its rings' scenario mark;
-- NULL when neither names one. gate --history reads the earlier deaths of
-- a candidate with it.
ALTER TABLE bundle ADD COLUMN scenario TEXT;

-- version 8
-- Nothing unknown is read as known. A ring-less run's stages, budget and
-- peak are not known: its last_stage, peak_stage ('none'), budget_kb and
-- peak_kb (0), NOT NULL since version 1, hold placeholders whenever ring
-- is 'none', and so does an app_version of 0 (nothing gave it). The
-- statements read them as NULL (export), `history --by stage` groups a
-- ring-less run as 'unknown', never as 'none' (no stage open), and
-- `history --by app_version` groups an app version of 0 as 'unknown':
-- the view run_group says so, and the stage and app_version tallies are
-- counted again with it.
DROP VIEW run_group;
CREATE VIEW run_group AS
SELECT run.id AS run_id, d.dimension,
       CASE d.dimension
	WHEN 'candidate'   THEN coalesce(run.candidate, 'none')
	WHEN 'app_version' THEN CASE WHEN run.app_version = 0 THEN 'unknown'
				     ELSE CAST(run.app_version AS TEXT) END
	WHEN 'stage'       THEN CASE WHEN run.ring = 'none' THEN 'unknown'
				     ELSE coalesce(run.open_stage, 'none') END
	WHEN 'class'       THEN coalesce(run.class, 'clean')
	WHEN 'device'      THEN coalesce(bundle.device_model, 'unknown')
	WHEN 'process'     THEN run.process
	WHEN 'ring'        THEN run.ring
	WHEN 'bundle'      THEN CAST(run.bundle_id AS TEXT)
	END AS grp,
       coalesce(run.start_time, run.end_time) AS seen,
       coalesce(run.class, '') AS class, coalesce(run.evidence_level, '') AS evidence_level
FROM run JOIN bundle ON bundle.id = run.bundle_id
CROSS JOIN (SELECT 'candidate' AS dimension UNION ALL SELECT 'app_version' UNION ALL
	    SELECT 'stage' UNION ALL SELECT 'class' UNION ALL SELECT 'device' UNION ALL
	    SELECT 'process' UNION ALL SELECT 'ring' UNION ALL SELECT 'bundle') AS d;
DELETE FROM run_tally WHERE dimension IN ('stage', 'app_version');
INSERT INTO run_tally (dimension, grp, day, class, evidence_level, runs, first_seen)
SELECT dimension, grp, coalesce(substr(seen, 1, 10), ''), class, evidence_level, count(*), min(seen)
FROM run_group WHERE dimension IN ('stage', 'app_version') GROUP BY 1, 2, 3, 4, 5;

-- version 9
-- One counting source for each tally, which the statements "totals",
-- "rates" and "regressions" of schemas/history-queries.sql read: the
-- tally's rows (tallied = 1, each a day's runs of its cell) and, below
-- them, every run as a row of its own (tallied = 0, runs = 1). A statement
-- takes whole days from the tallies and, of the day that :since cuts, the
-- runs from :since on; it never reads both for the same run. Day d holds
-- the times d || 'T...', all below d || 'U'; seen is the earliest time of
-- a tally's runs, or the run's own.
CREATE VIEW group_count AS
SELECT dimension, grp, day, first_seen AS seen, class, evidence_level, runs, 1 AS tallied
FROM run_tally
UNION ALL
SELECT dimension, grp, coalesce(substr(seen, 1, 10), ''), seen, class, evidence_level, 1, 0
FROM run_group;

CREATE VIEW version_count AS
SELECT package, candidate, app_version, day, first_seen AS seen, open_stage, class, evidence_level,
       runs, 1 AS tallied
FROM version_tally
UNION ALL
SELECT package, coalesce(candidate, ''), app_version,
       coalesce(substr(coalesce(start_time, end_time), 1, 10), ''), coalesce(start_time, end_time),
       coalesce(open_stage, ''), coalesce(class, ''), coalesce(evidence_level, ''), 1, 0
FROM run;

-- version 10
-- Each run's crash signature (report.schema.json's crash_signature and
-- crash_signed_frames, lastwords(1) CRASH SIGNATURES): the same crash
-- across runs and versions signs alike, so `history --by signature` counts
-- it once, with its runs, its app versions and when it was first and last
-- seen, and the statement "new-signatures" finds the crashes an app
-- version brought. NULL for a run without a crash with a frame to sign,
-- and for the runs an older lastwords stored (the history keeps no
-- tombstone to sign them from).
ALTER TABLE run ADD COLUMN crash_signature TEXT;
ALTER TABLE run ADD COLUMN crash_signed_frames TEXT;
CREATE INDEX run_signature ON run(package, crash_signature, app_version)
	WHERE crash_signature IS NOT NULL;

-- version 11
-- The fleet's dimensions: what a team asks of many devices ("which
-- device, delegate or runtime combination dies?"). Each bundle's device
-- maker and SDK level, each run's delegates, runtime version and the
-- models resident at its end (report.schema.json's delegates,
-- runtime_version and resident_candidates). Old rows hold NULL: nobody
-- knows them (the history keeps no ring to read them from).
ALTER TABLE bundle ADD COLUMN manufacturer TEXT;   -- ro.product.manufacturer (manifest, bug report)
ALTER TABLE bundle ADD COLUMN sdk INTEGER;         -- the SDK level the verdicts used (--sdk, the
						   -- manifest, a bug report, the app's exit-info JSON)
ALTER TABLE run ADD COLUMN delegates TEXT;         -- the delegates its delegate and fallback marks
						   -- name, joined by '+' in the vocabulary's order
						   -- ("xnnpack+gpu"); '' when it marks none; NULL
						   -- for a ring-less run: exactly when nobody knows
ALTER TABLE run ADD COLUMN runtime_version INTEGER; -- its last runtime_version mark's value
ALTER TABLE run ADD COLUMN resident_models INTEGER; -- models resident at its end (at death, for a
						    -- run that died); NULL for a ring-less run

-- The matrix of `history --by device|sdk|delegate|runtime` and their
-- combinations (--by device,delegate): each run's four groups. A device
-- is its maker and model ("Google Pixel 8"), or the model alone; what
-- nobody knows is 'unknown' (a bundle without a manifest or bug report, a
-- ring-less run, a run an older lastwords stored), and a ring that marks
-- no delegate or runtime version is 'unmarked': the app did not say.
CREATE VIEW run_matrix AS
SELECT run.id AS run_id,
       CASE WHEN bundle.device_model IS NULL THEN 'unknown'
	    WHEN bundle.manufacturer IS NULL THEN bundle.device_model
	    ELSE bundle.manufacturer || ' ' || bundle.device_model END AS device,
       coalesce(CAST(bundle.sdk AS TEXT), 'unknown') AS sdk,
       CASE WHEN run.delegates IS NULL THEN 'unknown' WHEN run.delegates = '' THEN 'unmarked'
	    ELSE run.delegates END AS delegate,
       CASE WHEN run.runtime_version IS NOT NULL THEN CAST(run.runtime_version AS TEXT)
	    WHEN run.delegates IS NULL THEN 'unknown' ELSE 'unmarked' END AS runtime,
       coalesce(run.start_time, run.end_time) AS seen,
       coalesce(run.class, '') AS class, coalesce(run.evidence_level, '') AS evidence_level
FROM run JOIN bundle ON bundle.id = run.bundle_id;

-- One tally for the whole matrix, as run_tally is for the other
-- groupings: how many runs each cell of the four has per day, class and
-- evidence level. Any combination of the four sums its rows (a few
-- thousand for a fleet of devices over months), so that no combination
-- needs a tally of its own. The device moves here from run_tally.
CREATE TABLE matrix_tally (
	device         TEXT NOT NULL,
	sdk            TEXT NOT NULL,
	delegate       TEXT NOT NULL,
	runtime        TEXT NOT NULL,
	day            TEXT NOT NULL,
	class          TEXT NOT NULL,
	evidence_level TEXT NOT NULL,
	runs           INTEGER NOT NULL,
	first_seen     TEXT,
	PRIMARY KEY (device, sdk, delegate, runtime, day, class, evidence_level)
) WITHOUT ROWID;

CREATE TRIGGER run_matrix_add AFTER INSERT ON run BEGIN
	INSERT INTO matrix_tally (device, sdk, delegate, runtime, day, class, evidence_level, runs,
				  first_seen)
	SELECT device, sdk, delegate, runtime, coalesce(substr(seen, 1, 10), ''), class,
	       evidence_level, 1, seen
	FROM run_matrix WHERE run_id = NEW.id
	ON CONFLICT DO UPDATE SET runs = runs + 1, first_seen = min(first_seen, excluded.first_seen);
END;

CREATE TRIGGER run_matrix_drop BEFORE DELETE ON run BEGIN
	UPDATE matrix_tally SET runs = runs - 1, first_seen =
		CASE WHEN day = '' OR first_seen != coalesce(OLD.start_time, OLD.end_time)
		THEN first_seen
		ELSE (SELECT min(o.seen) FROM run_matrix o
		      WHERE o.seen >= matrix_tally.day AND o.seen < matrix_tally.day || 'U'
			AND o.device = matrix_tally.device AND o.sdk = matrix_tally.sdk
			AND o.delegate = matrix_tally.delegate AND o.runtime = matrix_tally.runtime
			AND o.class = matrix_tally.class AND o.evidence_level = matrix_tally.evidence_level
			AND o.run_id != OLD.id) END
	WHERE (device, sdk, delegate, runtime, day, class, evidence_level) IN (
		SELECT device, sdk, delegate, runtime, coalesce(substr(seen, 1, 10), ''), class,
		       evidence_level
		FROM run_matrix WHERE run_id = OLD.id);
	DELETE FROM matrix_tally WHERE runs = 0
	  AND (device, sdk, delegate, runtime, day, class, evidence_level) IN (
		SELECT device, sdk, delegate, runtime, coalesce(substr(seen, 1, 10), ''), class,
		       evidence_level
		FROM run_matrix WHERE run_id = OLD.id);
END;

DROP TRIGGER run_tally_fixed;
CREATE TRIGGER run_tally_fixed BEFORE UPDATE OF bundle_id, package, process, start_time, end_time,
	app_version, candidate, open_stage, class, evidence_level, ring, delegates, runtime_version
	ON run BEGIN
	SELECT RAISE(ABORT, 'the tallies count this run: delete it and insert it again');
END;
DROP TRIGGER bundle_device_fixed;
CREATE TRIGGER bundle_device_fixed BEFORE UPDATE OF device_model, manufacturer, sdk ON bundle BEGIN
	SELECT RAISE(ABORT, 'the tallies count this bundle''s runs by device');
END;

DROP VIEW run_group;
CREATE VIEW run_group AS
SELECT run.id AS run_id, d.dimension,
       CASE d.dimension
	WHEN 'candidate'   THEN coalesce(run.candidate, 'none')
	WHEN 'app_version' THEN CASE WHEN run.app_version = 0 THEN 'unknown'
				     ELSE CAST(run.app_version AS TEXT) END
	WHEN 'stage'       THEN CASE WHEN run.ring = 'none' THEN 'unknown'
				     ELSE coalesce(run.open_stage, 'none') END
	WHEN 'class'       THEN coalesce(run.class, 'clean')
	WHEN 'process'     THEN run.process
	WHEN 'ring'        THEN run.ring
	WHEN 'bundle'      THEN CAST(run.bundle_id AS TEXT)
	END AS grp,
       coalesce(run.start_time, run.end_time) AS seen,
       coalesce(run.class, '') AS class, coalesce(run.evidence_level, '') AS evidence_level
FROM run
CROSS JOIN (SELECT 'candidate' AS dimension UNION ALL SELECT 'app_version' UNION ALL
	    SELECT 'stage' UNION ALL SELECT 'class' UNION ALL SELECT 'process' UNION ALL
	    SELECT 'ring' UNION ALL SELECT 'bundle') AS d;
DELETE FROM run_tally WHERE dimension = 'device';

-- As group_count (version 9), for the matrix.
CREATE VIEW matrix_count AS
SELECT device, sdk, delegate, runtime, day, first_seen AS seen, class, evidence_level, runs,
       1 AS tallied
FROM matrix_tally
UNION ALL
SELECT device, sdk, delegate, runtime, coalesce(substr(seen, 1, 10), ''), seen, class,
       evidence_level, 1, 0
FROM run_matrix;

-- A database of an earlier version: its runs into the matrix.
INSERT INTO matrix_tally (device, sdk, delegate, runtime, day, class, evidence_level, runs,
			  first_seen)
SELECT device, sdk, delegate, runtime, coalesce(substr(seen, 1, 10), ''), class, evidence_level,
       count(*), min(seen)
FROM run_matrix GROUP BY 1, 2, 3, 4, 5, 6, 7;
