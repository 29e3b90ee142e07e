-- The duration estimator's state as a running aggregate: per (team, class), and per class across teams (team '*'),
-- the last 200 successful run durations in seconds, oldest first, comma-separated. Updated in the transaction that
-- finishes a job, read whole by each plan (a few rows per team), so no plan sorts the finished jobs.
CREATE TABLE duration_stats (
    team VARCHAR(64) NOT NULL,
    job_class VARCHAR(32) NOT NULL,
    runs BIGINT NOT NULL,
    recent VARCHAR(4000) NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (team, job_class)
);

-- Indexes for what each plan and the paged job list ask: active jobs and one state's jobs in submission order, one
-- team's jobs (by state) in submission order, and the pending jobs ranked ahead of one (an explanation). They replace
-- the single-column ones, which are their prefixes.
CREATE INDEX jobs_state_submitted ON jobs (state, submitted_at, id);
CREATE INDEX jobs_team_state_submitted ON jobs (team, state, submitted_at, id);
CREATE INDEX jobs_state_rank ON jobs (state, queue_rank);
DROP INDEX jobs_state;
DROP INDEX jobs_team;
