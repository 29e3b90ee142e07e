-- When the queue as it stands would start a waiting job whose band has no P90, were no more work to arrive (issue 35):
-- its two times (null: not within the futures played) and the sentence that says so; all null where it is not told.
ALTER TABLE start_bands ADD COLUMN queue_alone_p50_at BIGINT;
ALTER TABLE start_bands ADD COLUMN queue_alone_p90_at BIGINT;
ALTER TABLE start_bands ADD COLUMN queue_alone_said VARCHAR(1000);
