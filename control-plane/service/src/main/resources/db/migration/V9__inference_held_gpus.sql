-- Which GPUs each inference service's replicas hold now (JSON list of GPU uuids, as their agents report them): the plan
-- keeps batch work off them, and a running job found on one has lost it to the service.
ALTER TABLE inference_services ADD COLUMN held_gpu_uuids VARCHAR(8000) NOT NULL DEFAULT '[]';
