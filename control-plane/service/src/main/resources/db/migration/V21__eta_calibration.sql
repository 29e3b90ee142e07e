-- What the start-time bands' calibration has learnt, per quantile level: a restart or a new leader resumes it instead of
-- showing uncalibrated bands until outcomes come in again. writer and saved_at say which control plane saved it when.
CREATE TABLE eta_calibration (
    level_index INT PRIMARY KEY,
    log_factor DOUBLE PRECISION NOT NULL,
    outcomes INT NOT NULL,
    writer VARCHAR(64) NOT NULL,
    saved_at BIGINT NOT NULL
);
