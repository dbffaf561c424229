-- Serves: sync (change detection) and check. One row per mirrored cold file: a file whose
-- size, mtime and inode match is skipped without reading; otherwise its content hash decides
-- whether the day is re-mirrored. malformed keeps entry-looking lines that could not be read,
-- so sync/check can report them (file:line, reason) without re-reading every file.
CREATE TABLE files (
    path     TEXT PRIMARY KEY,
    day      TEXT    NOT NULL,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode    INTEGER NOT NULL,
    hash     TEXT    NOT NULL,  -- sha1 of the file's bytes, lowercase hex
    entries  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE malformed (
    file   TEXT    NOT NULL,
    line   INTEGER NOT NULL,
    reason TEXT    NOT NULL,
    PRIMARY KEY (file, line)
) WITHOUT ROWID;

-- Key/value facts about the index: tokenizer_version (a change forces a rebuild).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
