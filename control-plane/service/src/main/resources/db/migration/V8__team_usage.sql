-- Fair share over the sliding window, kept as running aggregates instead of recomputed from every job: per team and
-- hour (hour_index: epoch seconds / 3600) the GPU-seconds its work held (from run_segments) and the GPU-seconds it was owed (Ai2's
-- entitlement on the team tree, capped at what the team asked for). Each plan books the time since the last one.
CREATE TABLE team_usage_hourly (
    team VARCHAR(64) NOT NULL,
    hour_index BIGINT NOT NULL,
    used_gpu_seconds DOUBLE PRECISION NOT NULL,
    owed_gpu_seconds DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (team, hour_index)
);

-- How far team_usage_hourly is booked, and what each team is owed from then on (JSON: team -> GPUs).
CREATE TABLE fair_share_ledger (
    name VARCHAR(32) PRIMARY KEY,
    booked_until BIGINT NOT NULL,
    owed_now VARCHAR(8000) NOT NULL
);
INSERT INTO fair_share_ledger (name, booked_until, owed_now) VALUES ('teams', -1, '{}');
