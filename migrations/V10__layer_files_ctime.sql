-- Serves: the layer sync (change detection of hot.md, usage.json and the summaries), as V7
-- does for the cold files. The status-change time (ctime, ns) of each mirrored layer file: the
-- kernel sets it on every write, truncate, rename or utimes call and it cannot be set back, so
-- a same-size edit of hot.md or usage.json whose mtime was restored afterwards (`touch -r`,
-- `rsync -t`) no longer looks unchanged (a newcomer's test: such a hot.md edit was never seen,
-- and `check` called the root clean). Rows from before this migration hold 0: their file is
-- re-hashed once at the next check and the row completed (nothing re-mirrored when the bytes
-- are the same). 0 also where the platform has no ctime (the portable fallback).
ALTER TABLE layer_files ADD COLUMN ctime_ns INTEGER NOT NULL DEFAULT 0;
