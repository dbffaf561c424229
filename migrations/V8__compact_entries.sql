-- Serves: every query, from an index at most 2× the archive's bytes (it was 3.27× at 1M
-- entries). Replaces V1's `entries` table, V2's `entries_tag` index and V3's `entries_fts`.
-- The index is rebuilt from the day files: the old rows are dropped, `files` and `malformed`
-- emptied and the tokenizer version forgotten, so the next open clears, compacts (VACUUM)
-- and mirrors every file (src/index/mod.rs `prepare`, the path a tokenizer change takes).
-- `usage`, `layer_files` and `meta` are kept.
--
-- Measured at 1M entries (104.3 MB archive; dbstat, MB): entries 160 → entry_rows 89,
-- entries_tag 46 → 20, entries_fts_data 118 → 84; the file 341 → 207 MB, 1.98× the archive
-- (README, "Schema").
DROP INDEX entries_tag;
DROP TABLE entries;
DROP TABLE entries_fts;
DELETE FROM files;
DELETE FROM malformed;
DELETE FROM meta WHERE key = 'tokenizer_version';

-- One row per distinct tag key (the Unicode lowercase of a tag, src/index/sync.rs `tag_key`):
-- an entry row stores the key's small id (one byte, none for ids 0 and 1) instead of the tag
-- text, in the table and in the by_tag index. `tag` is the first spelling seen with this key;
-- entry rows with another spelling keep theirs. Id 0 is the untagged `-`. Rows are never
-- deleted (a key no entry uses any more costs one row).
CREATE TABLE tags (
    id  INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,  -- lowercase tag: what by_tag matches
    tag TEXT NOT NULL          -- the spelling first seen
);
INSERT INTO tags(id, key, tag) VALUES (0, '-', '-');

-- One row per entry line. Only what cannot be derived is stored: the date and the file are
-- those of `id >> 20`; the instant is stored as milliseconds after 00:00 UTC of that date
-- (4 bytes instead of 24 of text); the line number as the count of non-entry lines above
-- the entry (line = ordinal + 1 + skipped, usually just the heading: stored in no bytes).
CREATE TABLE entry_rows (
    id      INTEGER PRIMARY KEY,  -- (local_day_number << 20) | ordinal, as in V1
    ts_off  INTEGER NOT NULL,     -- UTC instant − 00:00 UTC of the id's date, in ms (may be < 0)
    tag_id  INTEGER NOT NULL,     -- tags.id of the tag's key
    tag     TEXT,                 -- the tag when it is not tags.tag (another spelling), else NULL
    content TEXT    NOT NULL,     -- text without the source marker
    source  TEXT,                 -- marker body 'conv#seq' or 'conv#seq/msgId', NULL when absent
    skipped INTEGER NOT NULL      -- non-entry lines above this entry in its day file
);

-- The entries with every column of V1 (what readers and `sqlite3` users query), plus ts_ms.
-- day_number = julianday(date) - 1721424.5 (days since 0001-01-01, which is day 1), and
-- 1970-01-01 is day 719163, so 00:00 UTC of an id's date is ((id >> 20) - 719163) × 86400000
-- ms after the Unix epoch.
CREATE VIEW entries AS
SELECT r.id AS id,
       date((r.id >> 20) + 1721424.5) AS day,
       strftime('%Y-%m-%dT%H:%M:%fZ', (((r.id >> 20) - 719163) * 86400000 + r.ts_off) / 1000.0, 'unixepoch') AS ts,
       coalesce(r.tag, t.tag) AS tag,
       t.key AS tag_key,
       r.content AS content,
       r.source AS source,
       'cold/' || strftime('%Y-%m', (r.id >> 20) + 1721424.5) || '/' || date((r.id >> 20) + 1721424.5) || '.md' AS file,
       (r.id & 1048575) + 1 + r.skipped AS line,
       ((r.id >> 20) - 719163) * 86400000 + r.ts_off AS ts_ms  -- the UTC instant, ms since 1970
FROM entry_rows r JOIN tags t ON t.id = r.tag_id;

-- Serves: by_tag (`WHERE tag_key = ? ORDER BY ts_ms DESC LIMIT ?` through the view): one
-- lookup in `tags`, then an index seek plus an ordered walk, never a scan. Equal instants
-- come in rowid order, as with V2's (tag_key, ts).
CREATE INDEX entries_tag ON entry_rows (tag_id, ((id >> 20) - 719163) * 86400000 + ts_off);

-- Serves: recall and retrieve (keyword search ranked by bm25(entries_fts, 1.0, 2.0)). As V3
-- (contentless, detail=full, the stock unicode61 tokenizer reading text segmented in Rust),
-- with the columns swapped: body first. FTS5 marks every position list of a column other
-- than the first with two bytes (column switch and number), and nearly every token is in the
-- body: 17M body (token, entry) pairs against 1.5M tag pairs at 1M entries. bm25() takes its
-- weights in column order, so the tag keeps weight 2 as the second argument.
CREATE VIRTUAL TABLE entries_fts USING fts5(
    body, tag,
    content = '',
    tokenize = 'unicode61 remove_diacritics 0',
    detail = full
);
