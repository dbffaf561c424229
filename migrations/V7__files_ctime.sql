-- Serves: sync (change detection). The status-change time (ctime, ns) of each mirrored cold
-- file: the kernel sets it on every write, truncate, rename or utimes call and, unlike mtime,
-- it cannot be set back, so a same-size edit whose mtime was restored afterwards (`touch -r`,
-- `rsync -t`) no longer looks unchanged. Rows from before this migration hold 0: their file is
-- re-hashed once at the next check and the row completed (no re-mirroring when the content
-- is the same).
ALTER TABLE files ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0;
