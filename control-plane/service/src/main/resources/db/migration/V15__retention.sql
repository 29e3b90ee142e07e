-- Retention (horizon.retention.days, 30 by default): finished jobs, answered agent commands, memory violations and
-- inference demand older than that are folded into these hourly aggregates and deleted, so the store stays the size of
-- the retention window however long the cluster runs. Fair share, owed-delivered and the duration estimator read their
-- own running aggregates (team_usage_hourly, duration_stats), which deleting the rows behind them does not change.
-- The aggregates are kept for horizon.retention.aggregate-days (400). hour_index: epoch seconds / 3600.

-- Per team and hour in which its jobs finished: how many ended each way, the GPU-seconds they kept, and the seconds
-- the ones that ran waited for their first start.
CREATE TABLE job_history_hourly (
    team VARCHAR(64) NOT NULL,
    hour_index BIGINT NOT NULL,
    succeeded BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    cancelled BIGINT NOT NULL,
    gpu_seconds BIGINT NOT NULL,
    started BIGINT NOT NULL,
    wait_seconds BIGINT NOT NULL,
    PRIMARY KEY (team, hour_index)
);
CREATE INDEX job_history_hour ON job_history_hourly (hour_index);

-- Per node and hour: answered agent commands by action and outcome (kind 'command', detail 'applyMigLayout SUCCEEDED')
-- and memory violations by what the agent did (kind 'memory-violation', detail 'KILLED').
CREATE TABLE node_events_hourly (
    kind VARCHAR(32) NOT NULL,
    node VARCHAR(253) NOT NULL,
    hour_index BIGINT NOT NULL,
    detail VARCHAR(64) NOT NULL,
    events BIGINT NOT NULL,
    PRIMARY KEY (kind, node, hour_index, detail)
);
CREATE INDEX node_events_hour ON node_events_hourly (hour_index);

-- Per inference service and hour of its demand steps (step / steps per hour): the mean and the peak GPUs observed.
CREATE TABLE inference_demand_hourly (
    service VARCHAR(64) NOT NULL,
    step_hour BIGINT NOT NULL,
    steps INTEGER NOT NULL,
    mean_gpus DOUBLE PRECISION NOT NULL,
    peak_gpus DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (service, step_hour)
);

-- What retention and the fair-share window look up by time.
CREATE INDEX node_commands_finished ON node_commands (state, finished_at);
CREATE INDEX memory_violations_observed ON memory_violations (observed_at);
CREATE INDEX team_usage_hour ON team_usage_hourly (hour_index);
