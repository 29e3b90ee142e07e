-- What the web view draws of the day so far (issue 22). A run's placement (the job's whole placement when the run
-- began: GPUs, MIG instance or time-slicing share) and whether it began on lent GPUs (fill), so past runs are drawn
-- where they ran and runs cut short by a preemption or by inference taking its GPUs back (EVICTED) are marked.
ALTER TABLE run_segments ADD COLUMN placement VARCHAR(2000);
ALTER TABLE run_segments ADD COLUMN fill BOOLEAN DEFAULT FALSE NOT NULL;

-- Each plan's point also keeps the GPUs inference services held and what the plan reserved for them.
ALTER TABLE plan_history ADD COLUMN inference_held_gpus INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE plan_history ADD COLUMN inference_reserved_gpus INTEGER DEFAULT 0 NOT NULL;

-- What the same workload gave under other schedulers (simulator figures an admin stores, such as ./horizon demo's
-- FIFO and best-baseline runs), shown beside the live figures. One JSON document per name.
CREATE TABLE comparisons (
    name VARCHAR(64) PRIMARY KEY,
    body TEXT NOT NULL,
    stored_at BIGINT NOT NULL
);
