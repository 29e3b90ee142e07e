-- What agents report beyond the declared inventory, and the commands queued for them.
ALTER TABLE nodes ADD COLUMN health_reason VARCHAR(1000);
ALTER TABLE gpus ADD COLUMN mig_mode VARCHAR(16);
ALTER TABLE gpus ADD COLUMN processes VARCHAR(8000);
ALTER TABLE gpus ADD COLUMN last_event VARCHAR(1000);

CREATE TABLE node_commands (
    id VARCHAR(40) PRIMARY KEY,
    node VARCHAR(128) NOT NULL,
    action VARCHAR(4000) NOT NULL,
    state VARCHAR(16) NOT NULL,
    created_at BIGINT NOT NULL,
    sent_at BIGINT,
    finished_at BIGINT,
    error VARCHAR(4000)
);
CREATE INDEX node_commands_node ON node_commands (node, created_at);
