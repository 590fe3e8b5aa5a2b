-- The verdict row of `lastwords export` for PostgreSQL (see verdict-row.md),
-- and lastwords_ndjson, where the NDJSON lines land before they become rows.
-- Load NDJSON with psql, in one session:
--   psql -v ON_ERROR_STOP=1 -f schemas/verdict-row.postgresql.sql \
--     -c "\copy lastwords_ndjson FROM 'verdicts.ndjson' WITH (FORMAT csv, QUOTE e'\x01', DELIMITER e'\x02')" \
--     -c "INSERT INTO lastwords_verdicts SELECT r.* FROM lastwords_ndjson, jsonb_populate_record(NULL::lastwords_verdicts, doc) AS r"
-- COPY in CSV mode, with a quote and a delimiter byte that JSON text never
-- holds, takes each line whole, its backslashes as they are. PostgreSQL's
-- text cannot hold a NUL: a row whose evidence had one (written \u0000) is
-- refused, naming the line.
-- The statements of history-queries.postgresql.sql read lastwords_verdicts.
CREATE TABLE IF NOT EXISTS lastwords_verdicts (
    bundle           text NOT NULL,
    device_model     text,
    android_version  text,
    fingerprint      text,
    run_id           text NOT NULL,
    ring             text NOT NULL,
    package          text NOT NULL,
    process          text NOT NULL,
    pid              bigint,
    start_time       timestamptz,
    end_time         timestamptz,
    app_version      bigint,
    candidate        text,
    stable_candidate text,
    outcome          text NOT NULL,
    last_stage       text,
    open_stage       text,
    peak_kb          bigint,
    budget_kb        bigint,
    over_budget      smallint,
    class            text,
    evidence_level   text,
    contradiction    text,
    exit_reason      integer,
    exit_description text,
    rules            text[] NOT NULL,
    evidence         text[] NOT NULL,
    missing          text[] NOT NULL,
    actions          text[] NOT NULL,
    crash_signature  text,
    manufacturer     text,
    sdk              bigint,
    delegates        text,
    runtime_version  bigint,
    resident_models  bigint,
    peak_stage       text
);
CREATE TEMPORARY TABLE lastwords_ndjson (doc jsonb NOT NULL);
