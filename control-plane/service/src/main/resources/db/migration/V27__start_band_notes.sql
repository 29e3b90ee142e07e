-- What a start-time band's reader must know beside its times: why a waiting job has no band (no node that takes work
-- can hold it, or it had not started when the futures ended), or that its band was played on past the plan's horizon.
ALTER TABLE start_bands ADD COLUMN note VARCHAR(2000);
