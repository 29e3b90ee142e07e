-- The most memory one of a running whole-GPU job's GPUs held at a plan, as its agent reported it: a job waiting again
-- (preempted, evicted) is offered a MIG profile or share where that memory fits (issue 19's alternatives).
ALTER TABLE jobs ADD COLUMN peak_gpu_memory_mib BIGINT NOT NULL DEFAULT 0;
