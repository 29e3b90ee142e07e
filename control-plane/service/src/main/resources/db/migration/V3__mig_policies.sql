-- Admins' MIG policy per node pool, kept as the JSON the API answers with.
CREATE TABLE mig_policies (
    pool VARCHAR(64) PRIMARY KEY,
    policy VARCHAR(4000) NOT NULL,
    updated_at BIGINT NOT NULL
);
