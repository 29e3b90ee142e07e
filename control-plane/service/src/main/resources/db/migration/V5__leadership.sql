-- High availability: one lease row elects the replica that plans and dispatches. Its epoch grows on every takeover;
-- what the leader writes for agents and adapters carries the epoch it held, so they can refuse a deposed leader.
-- plan_requested: a follower that took a submission, cancel or agent report asks the leader for a plan.
CREATE TABLE leader_lease (
    name VARCHAR(32) PRIMARY KEY,
    holder VARCHAR(200),
    epoch BIGINT NOT NULL,
    expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
    plan_requested BOOLEAN NOT NULL DEFAULT FALSE
);
INSERT INTO leader_lease (name, holder, epoch, expires_at) VALUES ('planner', NULL, 0, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00');

ALTER TABLE jobs ADD COLUMN leader_epoch BIGINT NOT NULL DEFAULT 0;
ALTER TABLE node_commands ADD COLUMN leader_epoch BIGINT NOT NULL DEFAULT 0;
