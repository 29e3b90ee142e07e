-- A GPU belongs to one node, held by the schema: two registrations racing with one uuid cannot both pass the check in
-- the write (NodeStore.refuseClaimed); the loser hits this index and is answered as the check answers (the holder named).
-- A store from before V24 may hold a uuid on several nodes (or twice on one): the store cannot tell the real holder, so
-- those rows go; the first node to register the GPU again holds it, and any other is refused naming it.
DELETE FROM gpus WHERE uuid IN (SELECT uuid FROM gpus GROUP BY uuid HAVING COUNT(*) > 1);
DROP INDEX gpus_uuid;
CREATE UNIQUE INDEX gpus_uuid_unique ON gpus (uuid);
