-- Nodes an admin drained (PUT /api/v1/nodes/{name}/drain, or a drain command to its agent): the planner gives them no new
-- work and moves work off them as its contract allows, until DELETE .../drain. A table of its own, like pending_nodes, so
-- a node whose inventory changes (its row is replaced) stays drained.
CREATE TABLE drained_nodes (
    node VARCHAR(253) PRIMARY KEY,
    reason VARCHAR(1024) NOT NULL,
    since BIGINT NOT NULL
);
