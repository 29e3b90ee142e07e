-- Node names as long as Kubernetes allows (a DNS subdomain, 253 characters), wherever a node name is kept, and room in
-- a placement for several such nodes.
ALTER TABLE nodes ALTER COLUMN name SET DATA TYPE VARCHAR(253);
ALTER TABLE nodes ALTER COLUMN nvlink_domain SET DATA TYPE VARCHAR(253);
ALTER TABLE gpus ALTER COLUMN node SET DATA TYPE VARCHAR(253);
ALTER TABLE node_commands ALTER COLUMN node SET DATA TYPE VARCHAR(253);
ALTER TABLE memory_violations ALTER COLUMN node SET DATA TYPE VARCHAR(253);
ALTER TABLE jobs ALTER COLUMN placement SET DATA TYPE VARCHAR(8000);
