-- Serves: layer sync (change detection of hot.md, usage.json and summaries/{day,week,month}/*.md,
-- src/layer_sync.rs) and every read of the hot layer and the summaries (hot_get, hot_set,
-- summarize, stats, export read `body` by primary key instead of the file). One row per
-- layer file as it was when this index last wrote or read it: a file whose size, mtime and
-- inode match is skipped without reading; otherwise its sha1 decides whether it changed (a
-- hand edit: the file wins and the row is replaced). `body` holds the file's bytes for hot.md
-- and the summaries; it is NULL for usage.json, whose live state is the `usage` table.
-- `chars` (code points of the body) serves mem_stats's summary figures without reading bodies.
CREATE TABLE layer_files (
    path     TEXT PRIMARY KEY,  -- relative to the data root: hot.md, usage.json, summaries/day/2026-10-21.md
    kind     TEXT    NOT NULL,  -- hot | usage | day | week | month
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode    INTEGER NOT NULL,
    hash     TEXT    NOT NULL,  -- sha1 of the file's bytes, lowercase hex
    chars    INTEGER NOT NULL,  -- Unicode code points of the (lossily decoded) bytes
    body     BLOB               -- the file's bytes; NULL for usage.json
) WITHOUT ROWID;
-- Serves: stats (`SELECT kind, count(*), sum(chars) ... GROUP BY kind`) without a table scan
-- of the bodies.
CREATE INDEX layer_files_kind ON layer_files (kind, chars);
