-- The leader's latest start-time bands, one row per waiting job with a band, replaced whole after each computation:
-- every replica shows them in the job views, the job list and the plan, not only the leader that computed them.
CREATE TABLE start_bands (
    job_id VARCHAR(64) PRIMARY KEY,
    p50_at BIGINT,
    p90_at BIGINT,
    bands_at BIGINT NOT NULL
);
