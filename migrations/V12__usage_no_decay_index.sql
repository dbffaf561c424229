-- Serves: recording usage hits, on every query that returns something (recall, retrieve and
-- the listings). V6's `usage_decay` expression index, on the decay anchor of each record
-- (`coalesce(last_decay_at, last_hit_at, first_hit_at, '')`), moved on every hit: a hit
-- decays the record to now, which changes the anchor, so each updated row also deleted and
-- inserted an index entry on pages of their own (a commit of ten hits took 0.47 ms
-- with the index against 0.25 ms without it, SQLite 3.40, synchronous = NORMAL, a 1 896-row
-- ledger). The index served only the decay pass before usage.json is written, which now
-- scans the ledger: that write serialises every record anyway, so the pass stays in the
-- same order of work, and it runs at most once per `usageThrottleMs`.
DROP INDEX IF EXISTS usage_decay;
