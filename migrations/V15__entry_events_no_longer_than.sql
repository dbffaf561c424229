-- Serves: retrieve's time gate (src/index/events.rs, OVERLAP_IDS_SQL), which now admits an
-- entry by an event window only when that window overlaps the question's [:s, :e) AND is no
-- longer than it (docs/event-time.md, "Which event windows a question admits"): "去年" in an
-- entry says its event was some time last year, not on the day a question asks about.
--
-- A window of at most L = :e - :s days that ends after :s starts after :s - L, so the one
-- index on (start_day, end_day) answers every question with a single range seek on start_day
-- in (:s - L, :e); V14's partial indexes for longer windows are not needed any more.

DROP INDEX entry_events_mid;

DROP INDEX entry_events_long;

DROP INDEX entry_events_longer;
