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
