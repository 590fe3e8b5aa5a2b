-- The verdict row of `lastwords export` for ClickHouse (see verdict-row.md).
-- Load NDJSON with: INSERT INTO lastwords_verdicts FORMAT JSONEachRow
-- and the setting date_time_input_format = 'best_effort' (the times end in Z).
CREATE TABLE IF NOT EXISTS lastwords_verdicts
(
    bundle           String,
    device_model     Nullable(String),
    android_version  Nullable(String),
    fingerprint      Nullable(String),
    run_id           String,
    ring             LowCardinality(String),
    package          LowCardinality(String),
    process          LowCardinality(String),
    pid              Nullable(UInt32),
    start_time       Nullable(DateTime64(6, 'UTC')),
    end_time         Nullable(DateTime64(6, 'UTC')),
    app_version      Nullable(Int64),
    candidate        Nullable(String),
    stable_candidate Nullable(String),
    outcome          LowCardinality(String),
    last_stage       LowCardinality(Nullable(String)),
    open_stage       LowCardinality(Nullable(String)),
    peak_kb          Nullable(UInt64),
    budget_kb        Nullable(UInt64),
    over_budget      Nullable(UInt8),
    class            LowCardinality(Nullable(String)),
    evidence_level   LowCardinality(Nullable(String)),
    contradiction    Nullable(String),
    exit_reason      Nullable(Int32),
    exit_description Nullable(String),
    rules            Array(String),
    evidence         Array(String),
    missing          Array(String),
    actions          Array(String),
    crash_signature  Nullable(String),
    manufacturer     Nullable(String),
    sdk              Nullable(UInt16),
    delegates        Nullable(String),
    runtime_version  Nullable(UInt64),
    resident_models  Nullable(UInt32),
    peak_stage       LowCardinality(Nullable(String))
)
ENGINE = MergeTree
ORDER BY (package, run_id);
