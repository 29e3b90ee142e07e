-- A waiting job held (Slurm's scontrol hold, Kueue's deactivated Workload): who held it and when (epoch seconds); both
-- null for a job not held. The planner leaves a held job out of its moment until it is released.
ALTER TABLE jobs ADD COLUMN held_by VARCHAR(400);
ALTER TABLE jobs ADD COLUMN held_at BIGINT;
