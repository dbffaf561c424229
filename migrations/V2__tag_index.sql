-- Serves: by_tag (`WHERE tag_key = ? ORDER BY ts DESC LIMIT ?`): an index seek plus an
-- ordered walk, never a scan. No other secondary index on entries: date windows use the rowid.
CREATE INDEX entries_tag ON entries (tag_key, ts);
