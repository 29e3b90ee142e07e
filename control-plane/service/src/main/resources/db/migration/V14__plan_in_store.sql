-- Every replica serves reads: the leader's last plan (JSON of the snapshot) and a bounded history of what recent plans
-- left (one point a minute at most) live in the store, so a follower answers /api/v1/plan, /api/v1/plan/history and
-- the web view as the leader does, and a new leader keeps the history from before the failover.
CREATE TABLE plan_snapshot (
    name VARCHAR(32) PRIMARY KEY,
    planned_at BIGINT NOT NULL,
    leader_epoch BIGINT NOT NULL,
    snapshot VARCHAR(1000000)
);
INSERT INTO plan_snapshot (name, planned_at, leader_epoch, snapshot) VALUES ('current', 0, 0, NULL);

CREATE TABLE plan_history (
    planned_at BIGINT PRIMARY KEY,
    total_gpus INTEGER NOT NULL,
    busy_gpus INTEGER NOT NULL,
    pending_jobs INTEGER NOT NULL,
    inference_demand_gpus INTEGER NOT NULL,
    inference_served_gpus INTEGER NOT NULL
);

-- Where the leader answers (horizon.advertise-url), so a follower can pass on the writes only the leader may do.
ALTER TABLE leader_lease ADD COLUMN holder_url VARCHAR(500);
