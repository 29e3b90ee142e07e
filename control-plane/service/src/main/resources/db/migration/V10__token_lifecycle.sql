-- Tokens get a public id (what admins list and revoke by; the first 16 hex digits of the hash, never the secret), an
-- optional expiry, the last time each was used, and revocation kept as a row, so a revoked bootstrap token is never
-- inserted again. An agent token bound to a node is that node's credential; live_node repeats the node while the
-- credential is live (NULL once revoked), and its uniqueness keeps one live credential per node even when two agents
-- enroll the same name at once. created_by: the id of the admin token that made it (NULL: bootstrap or enrollment).
ALTER TABLE tokens ADD COLUMN id VARCHAR(16);
UPDATE tokens SET id = SUBSTRING(hash, 1, 16);
ALTER TABLE tokens ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX tokens_id ON tokens (id);
ALTER TABLE tokens ADD COLUMN node VARCHAR(253);
ALTER TABLE tokens ADD COLUMN live_node VARCHAR(253);
CREATE UNIQUE INDEX tokens_live_node ON tokens (live_node);
CREATE INDEX tokens_node ON tokens (node);
ALTER TABLE tokens ADD COLUMN expires_at BIGINT;
ALTER TABLE tokens ADD COLUMN last_used_at BIGINT;
ALTER TABLE tokens ADD COLUMN revoked_at BIGINT;
ALTER TABLE tokens ADD COLUMN created_by VARCHAR(16);

-- The nodes whose agents serve an inference service and so may report its demand (a JSON array of names).
ALTER TABLE inference_services ADD COLUMN served_by VARCHAR(64000);
