-- Serves: retrieve's time gate (src/index/events.rs, OVERLAP_IDS_SQL), which needs the event
-- windows overlapping a question's window [:s, :e): `start_day < :e AND end_day > :s`.
--
-- V13's index on (end_day, start_day) walked every window ending after :s: for a question
-- about a day early in a ten-year archive, nearly all of them (250 000 rows at 1M entries,
-- 5-8 ms per query, docs/benchmarks.md). Windows are short (a day, a week, a month; a year
-- at most for nearly all), so the query is split by window length, each part a bounded range
-- seek on start_day (lengths at 1M: 227 000 rows of at most 7 days, 19 000 of 8-31, 4 600
-- of 32-366, none longer):
--   * any length: start_day in (:s - 7, :e) finds every window of at most 7 days;
--   * 8-40 days (months, "the last 30 days"): the partial index `entry_events_mid`,
--     start_day in (:s - 40, :e);
--   * 41-400 days (years, "the last N months"): the partial index `entry_events_long`,
--     start_day in (:s - 400, :e);
--   * longer ("since 2019", "the last 2 years"; rare): the partial index `entry_events_longer`,
--     every such window ending after :s.
-- The parts may name a window twice; the caller drops repeats.

DROP INDEX entry_events_end;

CREATE INDEX entry_events_start ON entry_events (start_day, end_day);

CREATE INDEX entry_events_mid ON entry_events (start_day, end_day) WHERE end_day - start_day > 7;

CREATE INDEX entry_events_long ON entry_events (start_day, end_day) WHERE end_day - start_day > 40;

CREATE INDEX entry_events_longer ON entry_events (end_day, start_day) WHERE end_day - start_day > 400;
