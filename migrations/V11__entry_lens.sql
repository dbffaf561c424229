-- Serves: recall and retrieve, which score every match of a window with BM25 and need each
-- match's token count (its document length). FTS5 kept them in its docsize table, one row per
-- entry: one b-tree descent per match (~2 100 instructions at 1M entries, a quarter of a
-- week-window query of `今天` with 433 matches), 14.1 MB at 1M entries. Here one
-- row per local date holds the counts of all its entries (src/index/lens.rs): a week's
-- matches cost 7 row reads, and FTS5 keeps no docsize table (`columnsize = 0`; memlayers
-- never calls FTS5's bm25() or xColumnSize on this table).
--
-- The FTS5 table is created anew, so the index is rebuilt from the day files as after V8:
-- `files` and `malformed` emptied, memoised counts dropped and the tokenizer version
-- forgotten, so the next open clears, compacts (VACUUM) and mirrors every file
-- (src/index/mod.rs `prepare`). `usage`, `layer_files`, `tags` and `meta` are kept.
DROP TABLE entries_fts;
DELETE FROM entry_rows;
DELETE FROM files;
DELETE FROM malformed;
DELETE FROM fts_counts;
DELETE FROM meta WHERE key IN ('tokenizer_version', 'fts_counts_state');

-- As V8, without the docsize table.
CREATE VIRTUAL TABLE entries_fts USING fts5(
    body, tag,
    content = '',
    tokenize = 'unicode61 remove_diacritics 0',
    detail = full,
    columnsize = 0
);

-- One row per local date that holds entries: `day` is the date's day number (days since
-- 0001-01-01 CE, the id's high bits: id >> 20); `lens` a little-endian u16 per entry, at its
-- ordinal (id & 1048575): tag and content tokens together as FTS5 stores them; 65535 means
-- "65 535 or more: count the entry's text".
CREATE TABLE entry_lens (
    day  INTEGER PRIMARY KEY,
    lens BLOB NOT NULL
);
