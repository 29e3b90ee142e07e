-- POST /api/v1/jobs with an Idempotency-Key header: the key, per caller (token id), names the job its first request made,
-- so a client that lost the reply and retries gets that job back instead of a second one. body_sha256 is the submitted
-- job's canonical JSON, so the same key with another job is refused. The key goes when retention deletes its job.
CREATE TABLE idempotency_keys (
    caller VARCHAR(64) NOT NULL,
    idem_key VARCHAR(255) NOT NULL,
    body_sha256 VARCHAR(64) NOT NULL,
    job_id VARCHAR(40) NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (caller, idem_key)
);
CREATE INDEX idempotency_keys_job ON idempotency_keys (job_id);
