-- Serves: a query in a fresh process (each CLI call), which would otherwise count the rows of
-- each of its phrases over the whole index for BM25's IDF (the two bigrams of
-- 博物馆, 13 512 rows each at 1M entries, cost ~0.9 ms of a 4.8 ms day-window `retrieve`).
-- One row per FTS5 expression a query counted: a phrase ("博物") for its document frequency,
-- or a whole query's expression for its number of matches. Valid only for the FTS5 state
-- recorded in `meta` under 'fts_counts_state' (SHA-1 of the structure record, which FTS5
-- rewrites on every change); src/query/bm25.rs `DfMemo` reads and writes it. Derived data:
-- deleting every row is always safe.
CREATE TABLE fts_counts (
    expr TEXT PRIMARY KEY,     -- FTS5 MATCH expression, as memlayers writes it
    n    INTEGER NOT NULL      -- rows of entries_fts matching it
) WITHOUT ROWID;
