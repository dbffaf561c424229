-- Serves: the usage ledger (dsh-memory-layers v1.2 usage.json), live state of recall hits and
-- weights (src/usage_store.rs). One row per ledger key (sha1 of the entry content). The rowid
-- keeps the order in which keys entered the ledger, so usage.json is written back in the
-- plugin's (JavaScript insertion) order. `weights()` reads `WHERE key IN (...)` through the
-- UNIQUE index on key; record_hits upserts by key. Instants are ISO-8601 UTC with ms
-- (`2026-10-21T03:10:00.000Z`), so text order is time order. `text` is the entry content the
-- key was computed from, when this index saw it (for mem_stats's 40-character previews).
CREATE TABLE usage (
    key           TEXT    NOT NULL UNIQUE,
    hits          INTEGER NOT NULL,
    first_hit_at  TEXT,
    last_hit_at   TEXT,
    weight        REAL    NOT NULL,
    last_decay_at TEXT,
    text          TEXT
);
-- Serves: the decay pass before usage.json is written (`WHERE coalesce(last_decay_at,
-- last_hit_at, first_hit_at, '') <= ?cutoff`): a seek to the rows at least one whole day
-- past their decay anchor instead of a scan of the ledger. The expression is the anchor rule
-- of usage::Record (lastDecayAt, else lastHitAt, else firstHitAt; none → decays now).
CREATE INDEX usage_decay ON usage (coalesce(last_decay_at, last_hit_at, first_hit_at, ''));
