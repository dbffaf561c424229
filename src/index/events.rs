//! Event windows: the days an entry's own text talks about, beside the day it was written.
//!
//! An entry has a **record time**, its timestamp, and may name **event times** in its text:
//! "下周三交报告" written on Monday 2026-11-23 is about Wednesday 2026-12-02; "cleaned my white
//! sneakers last month" written on 2026-05-10 is about April 2026. The event windows of an
//! entry are the windows [`crate::temporal::parse`] reads from its content, anchored at the
//! entry's own timestamp in the zone that partitions the day files ([`crate::index::Store::tz`]),
//! every expression of the text in order, not only the first ([`event_days`]). The parser's
//! rules apply as they do to questions: traps (本周期, 月饼), titles, recurrence (每周三) and
//! names give no window. docs/event-time.md describes the whole feature.
//!
//! Stored in `entry_events` (migration V13) as local day numbers of that zone, half-open
//! `[start_day, end_day)` (day numbers as in entry ids, `id >> 20`), written in the transaction
//! that writes the entry ([`insert`]) and deleted with its day ([`delete_ids`]). A window that
//! is exactly the entry's own record day (今天, tonight, 刚才) is not stored: the record date
//! already admits the entry for every question that window would.
//!
//! The parser runs on every entry of an import, so [`crate::temporal::may_hold_time`] runs
//! first: a text with no char that can start an expression and no English time word is
//! skipped without a parse.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use rusqlite::{Connection, params};

use crate::Result;
use crate::files::{day_number, local_date};

/// Version of the event windows an index holds, stored in `meta` as `events_version`. An index
/// holding another value (or none: written before event windows existed) is emptied and
/// rebuilt from the day files at its next open, as after a tokenizer change
/// ([`crate::index::open`]). Raise it whenever the windows an entry gets would change: the
/// parser's rules (`memlayers-temporal`) or [`event_days`].
pub const EVENTS_VERSION: i64 = 1;

/// Most event windows kept for one entry (the first ones in the text). A line naming more
/// dates is a list or a log; 8 covers a week's plan written day by day.
pub const MAX_EVENTS: usize = 8;

/// One event window: local day numbers `[start, end)` in the zone partitioning the day files
/// (days since 0001-01-01 CE, day 1 being that date: [`crate::files::day_number`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventDays {
    /// Day number of the first local date in the window.
    pub start: i64,
    /// Day number of the first local date after the window (exclusive).
    pub end: i64,
}

/// The event windows of an entry whose content is `text`, written at `ts`, in the zone `tz`
/// partitioning the day files: each time expression of `text` as [`crate::temporal::parse`]
/// reads it with `now = ts`, left to right (after a window, the text after its matched span
/// is parsed again), at most [`MAX_EVENTS`], without repeats and without a window that is
/// exactly the entry's record day. Empty when the text names no time (most entries).
pub fn event_days(text: &str, ts: DateTime<Utc>, tz: Tz) -> Vec<EventDays> {
    let mut out = Vec::new();
    if !crate::temporal::may_hold_time(text) {
        return out;
    }
    let record = day_number(local_date(ts, tz));
    let mut rest = text;
    while out.len() < MAX_EVENTS {
        let Some(w) = crate::temporal::parse(rest, ts, tz).window else { break };
        let ev = EventDays { start: day_number(w.start_date), end: day_number(w.end_date) };
        if ev != (EventDays { start: record, end: record + 1 }) && !out.contains(&ev) {
            out.push(ev);
        }
        // On after the last char the expression used (spans are char offsets into `rest`).
        let Some(end) = w.spans.iter().map(|s| s.1).max().filter(|&e| e > 0) else { break };
        let Some((at, _)) = rest.char_indices().nth(end) else { break };
        rest = &rest[at..];
        if !crate::temporal::may_hold_time(rest) {
            break;
        }
    }
    out
}

/// Inserts the event windows `events` of entry `id` (a window already stored for it is kept
/// once). Errors: SQLite's.
pub fn insert(c: &Connection, id: i64, events: &[EventDays]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let mut ins = c.prepare_cached("INSERT OR IGNORE INTO entry_events(id, start_day, end_day) VALUES(?1, ?2, ?3)")?;
    for e in events {
        ins.execute(params![id, e.start, e.end])?;
    }
    Ok(())
}

/// Deletes the event windows of the entries with ids `lo..=hi` (a day's entries, when a day
/// file is re-mirrored or gone). Errors: SQLite's.
pub fn delete_ids(c: &Connection, lo: i64, hi: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM entry_events WHERE id BETWEEN ?1 AND ?2")?.execute([lo, hi])?;
    Ok(())
}

/// The overlap query of the time gate: the ids of entries outside the rowid range `?3..=?4`
/// (the window's own days, which the record date admits already) with an event window
/// overlapping the local days `[?1, ?2)` (day numbers): `start_day < ?2 AND end_day > ?1`.
/// Walks the index `entry_events_end` from `end_day > ?1` (every window that ends after the
/// question's window starts) and keeps those that start before it ends. An entry with two
/// such windows comes twice ([`overlapping`] drops the repeat: a `DISTINCT` here made SQLite
/// scan the whole table in id order instead of walking the index).
pub const OVERLAP_IDS_SQL: &str =
    "SELECT id FROM entry_events WHERE end_day > ?1 AND start_day < ?2 AND id NOT BETWEEN ?3 AND ?4";

/// The ids [`OVERLAP_IDS_SQL`] gives for the local days `[from, to)` (day numbers) and the
/// rowid range `range`, ascending, each once. Errors: SQLite's.
pub fn overlapping(c: &Connection, (from, to): (i64, i64), range: (i64, i64)) -> Result<Vec<i64>> {
    let mut st = c.prepare_cached(OVERLAP_IDS_SQL)?;
    let mut ids =
        st.query_map(params![from, to, range.0, range.1], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn d(y: i32, m: u32, day: u32) -> i64 {
        day_number(NaiveDate::from_ymd_opt(y, m, day).unwrap())
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    const SH: Tz = chrono_tz::Asia::Shanghai;

    #[test]
    fn a_plan_names_next_wednesday() {
        // 2026-11-23 is a Monday (2026-11-22 is a Sunday: the parser's case table); 10:00 in
        // Shanghai is 02:00Z. 下周三 = Wednesday of the next Monday-week: 11-30 + 2 = 12-02.
        let ev = event_days("下周三交报告", at("2026-11-23T02:00:00Z"), SH);
        assert_eq!(ev, [EventDays { start: d(2026, 12, 2), end: d(2026, 12, 3) }]);
    }

    #[test]
    fn last_month_said_in_may_is_april() {
        let ev = event_days("cleaned my white sneakers last month", at("2026-05-10T04:00:00Z"), SH);
        assert_eq!(ev, [EventDays { start: d(2026, 4, 1), end: d(2026, 5, 1) }]);
    }

    #[test]
    fn every_expression_of_the_text_counts_in_order() {
        // Thursday 2026-11-26 (Shanghai). 昨天 = 11-25; 上周五 = Friday of the week of 11-16 =
        // 11-20; 12月2号, past-preferring = 2025-12-02 (2026-12-02 is after today).
        let ev = event_days("昨天开会，上周五的结论12月2号再议", at("2026-11-26T02:00:00Z"), SH);
        assert_eq!(
            ev,
            [
                EventDays { start: d(2026, 11, 25), end: d(2026, 11, 26) },
                EventDays { start: d(2026, 11, 20), end: d(2026, 11, 21) },
                EventDays { start: d(2025, 12, 2), end: d(2025, 12, 3) },
            ]
        );
    }

    #[test]
    fn the_record_day_itself_and_repeats_are_not_stored() {
        // 今天 is the record day (2026-11-26): the record date admits it already. 昨天 twice: once.
        let ev = event_days("今天补昨天的日记，昨天太累", at("2026-11-26T02:00:00Z"), SH);
        assert_eq!(ev, [EventDays { start: d(2026, 11, 25), end: d(2026, 11, 26) }]);
    }

    #[test]
    fn the_zone_decides_the_anchor_day() {
        // 2026-11-22T18:00Z is Monday 02:00 in Shanghai but Sunday 10:00 in Los Angeles:
        // 昨天 is Sunday 11-22 in Shanghai, Saturday 11-21 in Los Angeles.
        let t = at("2026-11-22T18:00:00Z");
        assert_eq!(event_days("昨天", t, SH), [EventDays { start: d(2026, 11, 22), end: d(2026, 11, 23) }]);
        let la = chrono_tz::America::Los_Angeles;
        assert_eq!(event_days("昨天", t, la), [EventDays { start: d(2026, 11, 21), end: d(2026, 11, 22) }]);
    }

    #[test]
    fn traps_recurrence_and_plain_text_have_none() {
        let t = at("2026-11-26T02:00:00Z");
        for s in ["本周期的报告", "买了月饼", "每周三开例会", "晚饭吃了火锅", "fixed the CI job", ""]
        {
            assert_eq!(event_days(s, t, SH), [], "{s:?}");
        }
    }

    #[test]
    fn at_most_max_events_are_kept() {
        // Ten distinct days of November 2026, all before 11-26: 11-01 … 11-10.
        let text: String = (1..=10).map(|k| format!("11月{k}号，")).collect();
        let ev = event_days(&text, at("2026-11-26T02:00:00Z"), SH);
        let want: Vec<EventDays> =
            (1..=8).map(|k| EventDays { start: d(2026, 11, k), end: d(2026, 11, k + 1) }).collect();
        assert_eq!(ev, want);
    }
}
