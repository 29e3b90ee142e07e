-- Enrollment tokens are bounded: max_uses nodes at most (NULL: no count, only the expiry bounds it), uses so far; one
-- that requires_approval enrolls its nodes into pending_nodes, which the planner never places on until an admin
-- approves them (POST /api/v1/nodes/{name}/approval deletes the row).
ALTER TABLE tokens ADD COLUMN max_uses INT;
ALTER TABLE tokens ADD COLUMN uses INT DEFAULT 0 NOT NULL;
ALTER TABLE tokens ADD COLUMN requires_approval BOOLEAN DEFAULT FALSE NOT NULL;
CREATE TABLE pending_nodes (
    node VARCHAR(253) PRIMARY KEY,
    enrolled_by VARCHAR(16),
    since BIGINT NOT NULL
);
-- A GPU belongs to one node: registration looks its uuid up on every other node.
CREATE INDEX gpus_uuid ON gpus (uuid);
-- What a node enrolled with, under which credential: later registrations with that credential may name no more GPUs and
-- no other models (a JSON array); a new credential (an admin's re-enrollment) sets a new bound at its first registration.
CREATE TABLE node_bounds (
    node VARCHAR(253) PRIMARY KEY,
    credential VARCHAR(16) NOT NULL,
    gpus INT NOT NULL,
    models VARCHAR(4000) NOT NULL
);
