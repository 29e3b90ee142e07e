-- Portable SQL: the same migrations run on the embedded H2 file and on PostgreSQL.
CREATE TABLE teams (
    name VARCHAR(64) PRIMARY KEY,
    parent VARCHAR(64),
    share DOUBLE PRECISION NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE tokens (
    hash CHAR(64) PRIMARY KEY,
    role VARCHAR(16) NOT NULL,
    team VARCHAR(64),
    label VARCHAR(128),
    created_at BIGINT NOT NULL
);

CREATE TABLE jobs (
    id VARCHAR(40) PRIMARY KEY,
    name VARCHAR(256) NOT NULL,
    team VARCHAR(64) NOT NULL,
    job_class VARCHAR(32) NOT NULL,
    priority INTEGER NOT NULL,
    gpus INTEGER NOT NULL,
    min_gpus INTEGER NOT NULL,
    spec VARCHAR(8000) NOT NULL,
    state VARCHAR(16) NOT NULL,
    submitted_at BIGINT NOT NULL,
    started_at BIGINT,
    ended_at BIGINT,
    placement VARCHAR(1000),
    fill BOOLEAN NOT NULL DEFAULT FALSE,
    rule VARCHAR(32),
    reason VARCHAR(2000),
    queue_rank INTEGER,
    planned_start BIGINT,
    preemptions INTEGER NOT NULL DEFAULT 0,
    last_preemption VARCHAR(1000)
);
CREATE INDEX jobs_state ON jobs (state);
CREATE INDEX jobs_team ON jobs (team);

CREATE TABLE nodes (
    name VARCHAR(128) PRIMARY KEY,
    gpu_model VARCHAR(64) NOT NULL,
    gpu_memory_mib BIGINT NOT NULL,
    nvlink_domain VARCHAR(128) NOT NULL,
    source VARCHAR(16) NOT NULL,
    health VARCHAR(16) NOT NULL,
    last_seen BIGINT NOT NULL
);

CREATE TABLE gpus (
    node VARCHAR(128) NOT NULL,
    idx INTEGER NOT NULL,
    uuid VARCHAR(64) NOT NULL,
    model VARCHAR(64) NOT NULL,
    memory_mib BIGINT NOT NULL,
    mig_devices VARCHAR(2000) NOT NULL,
    health VARCHAR(16) NOT NULL,
    utilization DOUBLE PRECISION,
    memory_used_mib BIGINT,
    PRIMARY KEY (node, idx)
);
