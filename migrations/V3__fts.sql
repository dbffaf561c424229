-- Serves: recall and retrieve (keyword search ranked by bm25()).
-- Contentless FTS5 over text segmented in Rust (src/segment.rs: lowercased words, CJK
-- bigrams + the run's last character), read by the stock unicode61 tokenizer, so a stock
-- sqlite3 (3.40+) can query it without loading anything. rowid = entries.id. Columns: the
-- segmented tag and the segmented content. Contentless keeps the index small (the text lives
-- once, in entries); rows are deleted with the FTS5 'delete' command, re-segmenting the
-- entries row (the tokenizer version in meta guarantees the same tokens).
CREATE VIRTUAL TABLE entries_fts USING fts5(
    tag, body,
    content = '',
    tokenize = 'unicode61 remove_diacritics 0',
    detail = full
);
