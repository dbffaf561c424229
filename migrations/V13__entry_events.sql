-- Serves: retrieve's time gate (src/query/retrieve.rs), which admits an entry when its record
-- date is in the question's window OR one of its event windows overlaps it: the ids of
-- `WHERE end_day > :window_start AND start_day < :window_end` come from the index
-- `entry_events_end`, before BM25 scores anything (docs/event-time.md). Event windows are
-- the time expressions of an entry's own text ("下周三交报告" written on Monday 2026-11-23 is
-- about 2026-12-02), read by the time parser anchored at the entry's timestamp in the zone
-- that partitions the day files (src/index/events.rs).
--
-- The rows are derived from the day files like every other entry table. An index built
-- before this table has none: its `meta` holds no `events_version`, so the next open empties
-- and rebuilds it from the files (src/index/mod.rs `prepare`), as after a tokenizer change.

-- One row per (entry, event window). Day numbers count days since 0001-01-01 CE (that date is
-- day 1), the scale of entry ids' high bits (`id >> 20`); the window is the half-open
-- interval of local dates [start_day, end_day). A window that is exactly the entry's own
-- record day (今天, tonight) is not stored: the record date admits the entry already.
CREATE TABLE entry_events (
    id        INTEGER NOT NULL,  -- entry_rows.id of the entry whose text names the window
    start_day INTEGER NOT NULL,  -- first local date in the window, as a day number
    end_day   INTEGER NOT NULL,  -- first local date after the window (exclusive)
    PRIMARY KEY (id, start_day, end_day)
) WITHOUT ROWID;

-- The overlap query walks the windows ending after the question's window starts (`end_day >
-- ?`), keeping those that start before it ends; the primary key (id first) serves deleting a
-- day's rows (`id BETWEEN ? AND ?`) when its file is re-mirrored.
CREATE INDEX entry_events_end ON entry_events (end_day, start_day);

-- The same rows with ISO dates, for people reading the index with `sqlite3`:
-- SELECT e.day, e.content, v.start_date, v.end_date FROM entry_event_dates v JOIN entries e USING (id);
CREATE VIEW entry_event_dates AS
SELECT id,
       date(start_day + 1721424.5) AS start_date,  -- first local date in the window
       date(end_day + 1721424.5) AS end_date       -- first local date after it (exclusive)
FROM entry_events;
