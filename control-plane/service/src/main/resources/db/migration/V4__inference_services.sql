-- Real-time inference services and the demand their agents observe, one row per planner step in order;
-- the forecast is rebuilt from these rows, so a restart forecasts as before.
CREATE TABLE inference_services (
    name VARCHAR(64) PRIMARY KEY,
    team VARCHAR(64) NOT NULL,
    weight_per_gpu_hour DOUBLE PRECISION NOT NULL,
    swap_cap_gpus INTEGER NOT NULL,
    held_gpus INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);

CREATE TABLE inference_demand (
    service VARCHAR(64) NOT NULL,
    step INTEGER NOT NULL,
    gpus DOUBLE PRECISION NOT NULL,
    reported_at BIGINT NOT NULL,
    PRIMARY KEY (service, step)
);
