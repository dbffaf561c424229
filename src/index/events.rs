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
//! **Past-preference.** The parser reads a date without a year or week (`12月13日`, `周四`,
//! `年底`, `Dec 6`) as its latest occurrence on or before "now", because a question is about
//! the past. An entry is often about the future (a plan, a forecast): "和阿杰约定：12 月 13 日
//! 合练" written on 2026-11-21 would be read as 2025-12-13. Under the spec's 宁窄勿误 (no
//! window rather than a wrong one), such a reading is dropped when it is not the nearest
//! occurrence ([`keep`]): a window that ends more than [`YEARLESS_BACK_DAYS`] days before the
//! record day while its words name no year or distance, or a bare weekday or weekend (`周四`,
//! `on Monday`, `周末`) more than [`WEEKDAY_BACK_DAYS`] days back. The right reading (the
//! nearest occurrence, 2026-12-13) needs the parser's rules; until it has them the entry keeps
//! its record time only.
//!
//! The parser runs on every entry of an import, so [`crate::temporal::may_hold_time`] runs
//! first: a text without both a char that can start a Chinese expression and a time anchor
//! (天 日 周 月 年 号 …, a holiday name), and without a digit or an English time word, is
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
pub const EVENTS_VERSION: i64 = 10;

/// Most event windows kept for one entry (the first ones in the text). A line naming more
/// dates is a list or a log; 8 covers a week's plan written day by day.
pub const MAX_EVENTS: usize = 8;

/// Days before the record day past which a window whose words name no year or distance is
/// dropped ([`keep`]): half a year, beyond which the next occurrence of a yearly date is
/// nearer than the one the parser picked.
pub const YEARLESS_BACK_DAYS: i64 = 183;

/// Days before the record day past which a bare weekday or weekend is dropped ([`keep`]):
/// beyond 3 days back, the same weekday ahead is nearer.
pub const WEEKDAY_BACK_DAYS: i64 = 3;

/// Whether a window the parser read from an entry's text is kept (module docs,
/// "Past-preference"): `matched` is the expression as written, `[start, end)` its local days
/// and `record` the entry's record day (day numbers).
pub fn keep(matched: &str, start: i64, end: i64, record: i64) -> bool {
    if is_bare_weekday(matched) {
        return start >= record - WEEKDAY_BACK_DAYS;
    }
    end > record - YEARLESS_BACK_DAYS || names_year_or_distance(matched)
}

/// True when an expression names its year or its distance from now, so that it does not
/// depend on past-preference: a four-digit number (`2019 年`, `2026-03-05`), a year word
/// (去年 今年 明年 前年, `N年`), 前 as in 三天前 or 前天 (not 前后), `ago`, `year`, `last`.
fn names_year_or_distance(matched: &str) -> bool {
    let chars: Vec<char> = matched.chars().collect();
    let lower = matched.to_lowercase();
    let four_digits = chars.windows(4).any(|w| w.iter().all(|c| c.is_ascii_digit()));
    let year_word = chars.iter().enumerate().any(|(i, &c)| {
        c == '年'
            && i > 0
            && (chars[i - 1].is_ascii_digit() || "去今明前一二两三四五六七八九十百零〇".contains(chars[i - 1]))
    });
    let before = chars.iter().enumerate().any(|(i, &c)| c == '前' && chars.get(i + 1) != Some(&'后'));
    four_digits || year_word || before || ["ago", "year", "last"].iter().any(|w| lower.contains(w))
}

/// True for a weekday or weekend named alone (`周四`, `星期天`, `礼拜六晚上`, `周末`, `Monday`,
/// `on Friday`, `the weekend`), which the parser reads as the latest one on or before now; not
/// with 上 下 本 这 or `last`/`this`/`next` in front (those name their week).
fn is_bare_weekday(matched: &str) -> bool {
    let m = matched.trim().to_lowercase();
    let m = ["on ", "over ", "at ", "during ", "the "]
        .iter()
        .fold(m.as_str(), |m, p| m.strip_prefix(p).unwrap_or(m).trim_start());
    ["周", "週", "星期", "礼拜", "禮拜", "weekend"].iter().any(|p| m.starts_with(p))
        || ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
            .iter()
            .any(|d| m.starts_with(d))
}

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
/// partitioning the day files: every time expression of `text` as
/// [`crate::temporal::parse_all`] reads it with `now = ts` (a note's every clause counts, unlike
/// a question's asides), in text order, at most [`MAX_EVENTS`], without repeats, without a
/// window that is exactly the entry's record day, without the end of a range the parser did not
/// read as one (an expression right after `到`/`至`/`~`/`-`), and without a past-preferring
/// reading that is not the nearest ([`keep`]). Empty when the text names no time (most entries).
pub fn event_days(text: &str, ts: DateTime<Utc>, tz: Tz) -> Vec<EventDays> {
    let mut out = Vec::new();
    if !crate::temporal::may_hold_time(text) {
        return out;
    }
    let record = day_number(local_date(ts, tz));
    let chars: Vec<char> = text.chars().collect();
    let quotes = quoted(&chars);
    for w in crate::temporal::parse_all(text, ts, tz) {
        if out.len() >= MAX_EVENTS {
            break;
        }
        let ev = EventDays { start: day_number(w.start_date), end: day_number(w.end_date) };
        // Right after a range connector, the expression is the end of a range the parser did
        // not read as one (`10 月 2 日到 5 日`): alone it would be a wrong window (`5 日` as
        // this month's 5th).
        let start = w.spans.first().map_or(0, |s| s.0).min(chars.len());
        let range_end = ends_with_connector(&chars[..start]);
        // A time word in quotes is a word quoted, not a time the line is about ("queries such
        // as 'last week' and “上周” now work").
        let end = w.spans.last().map_or(start, |s| s.1);
        let in_quotes =
            quotes.iter().any(|&(a, b)| a <= start && end <= b) || listed_with_quoted(&chars, start, end, &quotes);
        if !range_end
            && !in_quotes
            && ev != (EventDays { start: record, end: record + 1 })
            && keep(&w.matched, ev.start, ev.end, record)
            && !out.contains(&ev)
        {
            out.push(ev);
        }
    }
    out
}

/// The quoted stretches of `chars` as char offsets `[open + 1, close)`: between “ ”, ‘ ’, 「 」,
/// 『 』, a pair of `"`, or a pair of `'` whose first stands after no letter or digit and whose
/// second before none (so the apostrophes of "I'm" and "didn't" quote nothing).
fn quoted(chars: &[char]) -> Vec<(usize, usize)> {
    let word = |i: Option<&char>| i.is_some_and(|c| c.is_alphanumeric());
    let mut out = Vec::new();
    let mut open: Option<(usize, char)> = None;
    for (i, &c) in chars.iter().enumerate() {
        match open {
            None => {
                let opens = match c {
                    '“' | '‘' | '「' | '『' | '"' => true,
                    '\'' => !word(i.checked_sub(1).and_then(|j| chars.get(j))) && word(chars.get(i + 1)),
                    _ => false,
                };
                if opens {
                    open = Some((i, c));
                }
            }
            Some((a, o)) => {
                let closes = match (o, c) {
                    ('“', '”') | ('‘', '’') | ('「', '」') | ('『', '』') | ('"', '"') => true,
                    ('\'', '\'') => !word(chars.get(i + 1)),
                    _ => false,
                };
                if closes {
                    out.push((a + 1, i));
                    open = None;
                }
            }
        }
    }
    out
}

/// True when the expression at `[start, end)` is listed with a quoted one, a connector between
/// them ("'last week' and 上周", "上周、“昨天”"): an example given beside a quoted example.
fn listed_with_quoted(chars: &[char], start: usize, end: usize, quotes: &[(usize, usize)]) -> bool {
    const JOIN: [&str; 10] = ["and", "or", "和", "与", "或", "、", "/", ",", "，", "&"];
    let joins = |between: &[char]| {
        let t: String = between.iter().collect();
        JOIN.contains(&t.trim())
    };
    quotes.iter().any(|&(a, b)| {
        // The closing quote is at `b`, the opening one at `a - 1`.
        (b < start && joins(&chars[b + 1..start])) || (end < a && joins(&chars[end..a - 1]))
    })
}

/// True when `before` ends with a range connector (到 至 ~ - — 〜), spaces after it allowed.
fn ends_with_connector(before: &[char]) -> bool {
    let mut it = before.iter().rev().skip_while(|c| c.is_whitespace());
    matches!(it.next(), Some('到' | '至' | '~' | '～' | '-' | '—' | '–' | '〜'))
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
/// (the window's own days, which the record date admits already) with an event window that
/// overlaps the local days `[?1, ?2)` (day numbers), `start_day < ?2 AND end_day > ?1`, and is
/// no longer than they are, `end_day - start_day <= ?2 - ?1`, with at least half its days
/// inside them (docs/event-time.md, "Which event windows a question admits": "去年" in an
/// entry does not place its event on the day a question asks about, nor does "last week" said
/// on a Monday place it in the month that ended the day before).
///
/// "At least half inside", `2 * (min(end_day, ?2) - max(start_day, ?1)) >= end_day - start_day`,
/// is written as "its middle is inside", `start_day + end_day BETWEEN 2 * ?1 AND 2 * ?2`: for a
/// window no longer than the question's, at most one end sticks out of it, and half the window
/// is inside exactly when the middle is (a window `[s, e)` sticking out before `?1` has
/// `e - ?1` days inside, at least half of `e - s` when `s + e >= 2 * ?1`; after `?2` likewise).
/// The same rows, without two function calls a row: 160 → 97 µs for a week at 1M entries in
/// the `sqlite3` shell (docs/benchmarks.md). Such a window starts at `?1 - (?2 - ?1) / 2` or
/// later (its middle is inside and it is no longer than the question), so the statement is
/// one range seek on `entry_events_start` (migration V15), over a quarter fewer rows than a
/// start after `?1 - (?2 - ?1)`. An entry with two such windows comes twice: [`overlapping`]
/// drops the repeats (a `DISTINCT` here would make SQLite sort).
pub const OVERLAP_IDS_SQL: &str = "\
SELECT id FROM entry_events INDEXED BY entry_events_start \
WHERE start_day >= ?1 - (?2 - ?1) / 2 AND start_day < ?2 AND end_day > ?1 AND end_day - start_day <= ?2 - ?1 \
AND start_day + end_day BETWEEN 2 * ?1 AND 2 * ?2 AND id NOT BETWEEN ?3 AND ?4";

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

    #[test]
    fn the_overlap_query_finds_every_overlapping_window_no_longer_than_the_question() {
        // entry_events as migrations V13, V14 and V15 make it, in memory.
        let c = Connection::open_in_memory().unwrap();
        for m in [
            include_str!("../../migrations/V13__entry_events.sql"),
            include_str!("../../migrations/V14__entry_events_by_start.sql"),
            include_str!("../../migrations/V15__entry_events_no_longer_than.sql"),
        ] {
            c.execute_batch(m).unwrap();
        }
        // Windows of 1 day to 5 000 days, starting every 7th day over 20 years; id = row number.
        let lens = [1, 2, 7, 8, 30, 31, 40, 41, 100, 365, 366, 400, 401, 1000, 5000];
        let mut rows = Vec::new();
        for (k, start) in (730_000..737_300).step_by(7).enumerate() {
            let len = lens[k % lens.len()];
            rows.push((k as i64 + 1, start, start + len));
        }
        for &(id, s, e) in &rows {
            insert(&c, id, &[EventDays { start: s, end: e }]).unwrap();
        }
        // Questions: a day, a week, a month, a year, 10 years, at several places; the rowid
        // range excludes ids 1..=10. Expected: the plain test over every row — overlapping and
        // at most the question's length.
        for (from, len) in [(729_990, 1), (731_000, 7), (733_333, 30), (735_000, 365), (730_500, 3650), (737_400, 1)] {
            let to = from + len;
            let want: Vec<i64> = rows
                .iter()
                .filter(|&&(id, s, e)| {
                    s < to
                        && e > from
                        && e - s <= len
                        && 2 * (e.min(to) - s.max(from)) >= e - s
                        && !(1..=10).contains(&id)
                })
                .map(|r| r.0)
                .collect();
            assert_eq!(overlapping(&c, (from, to), (1, 10)).unwrap(), want, "[{from}, {to})");
        }
        // Every window of 1 to 20 days starting on each of 40 days around questions of 1 to 9
        // days (odd and even lengths, where the lowest start a middle inside allows rounds):
        // the statement's middle-inside form admits what the plain test does.
        let dense = Connection::open_in_memory().unwrap();
        for m in [
            include_str!("../../migrations/V13__entry_events.sql"),
            include_str!("../../migrations/V14__entry_events_by_start.sql"),
            include_str!("../../migrations/V15__entry_events_no_longer_than.sql"),
        ] {
            dense.execute_batch(m).unwrap();
        }
        let mut grid = Vec::new();
        for s in 700_000..700_040 {
            for len in 1..=20 {
                grid.push((grid.len() as i64 + 1, s, s + len));
            }
        }
        for &(id, s, e) in &grid {
            insert(&dense, id, &[EventDays { start: s, end: e }]).unwrap();
        }
        for len in 1..=9 {
            for from in [700_010, 700_015, 700_020] {
                let to = from + len;
                let want: Vec<i64> = grid
                    .iter()
                    .filter(|&&(_, s, e)| s < to && e > from && e - s <= len && 2 * (e.min(to) - s.max(from)) >= e - s)
                    .map(|r| r.0)
                    .collect();
                assert!(!want.is_empty());
                assert_eq!(overlapping(&dense, (from, to), (0, 0)).unwrap(), want, "[{from}, {to})");
            }
        }
        // Worked by hand: three entries, a 1-day window on day 735 001 (id 100), a 2-day window
        // [735 000, 735 002) (id 200), a 365-day one [734 900, 735 265) (id 300); all three
        // overlap day 735 001. A question about that one day admits 100 only (200 and 300 are
        // longer than a day); about the week [735 000, 735 007): 100 and 200; about the 365
        // days [734 900, 735 265): all three.
        let c2 = Connection::open_in_memory().unwrap();
        c2.execute_batch(include_str!("../../migrations/V13__entry_events.sql")).unwrap();
        insert(&c2, 100, &[EventDays { start: 735_001, end: 735_002 }]).unwrap();
        insert(&c2, 200, &[EventDays { start: 735_000, end: 735_002 }]).unwrap();
        insert(&c2, 300, &[EventDays { start: 734_900, end: 735_265 }]).unwrap();
        c2.execute_batch(include_str!("../../migrations/V14__entry_events_by_start.sql")).unwrap();
        c2.execute_batch(include_str!("../../migrations/V15__entry_events_no_longer_than.sql")).unwrap();
        assert_eq!(overlapping(&c2, (735_001, 735_002), (0, 0)).unwrap(), [100]);
        assert_eq!(overlapping(&c2, (735_000, 735_007), (0, 0)).unwrap(), [100, 200]);
        assert_eq!(overlapping(&c2, (734_900, 735_265), (0, 0)).unwrap(), [100, 200, 300]);
        // Half inside: the 2-day window [735 000, 735 002) has 1 of its 2 days in [735 001,
        // 735 008) (admitted), a 7-day one [734 995, 735 002) only 1 of 7 (not).
        insert(&c2, 400, &[EventDays { start: 734_995, end: 735_002 }]).unwrap();
        assert_eq!(overlapping(&c2, (735_001, 735_008), (0, 0)).unwrap(), [100, 200]);
        assert_eq!(overlapping(&c2, (734_998, 735_005), (0, 0)).unwrap(), [100, 200, 400]);
    }

    fn d(y: i32, m: u32, day: u32) -> i64 {
        day_number(NaiveDate::from_ymd_opt(y, m, day).unwrap())
    }

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    const SH: Tz = chrono_tz::Asia::Shanghai;

    #[test]
    fn a_time_word_in_quotes_is_no_event_time() {
        // Sunday 2026-11-08 10:00 in Shanghai. Quoted, 'last week' and “上周” are words quoted;
        // unquoted, last week = the Monday-week before this one, 10-26 … 11-01.
        let at8 = at("2026-11-08T02:00:00Z");
        assert_eq!(event_days("queries such as 'last week' and “上周” now work", at8, SH), []);
        assert_eq!(event_days("他说「上周」很忙", at8, SH), []);
        // Listed beside a quoted example (the example archive's release note of 11-08).
        let note = "tidemark v0.2.0 released on crates.io: time-window queries such as 'last week' and 上周 now work.";
        assert_eq!(event_days(note, at8, SH), []);
        assert_eq!(event_days("上周、“昨天”这样的说法都能用", at8, SH), []);
        let last_week = [EventDays { start: d(2026, 10, 26), end: d(2026, 11, 2) }];
        assert_eq!(event_days("I didn't finish it last week", at8, SH), last_week);
        assert_eq!(event_days("the 'demo' went well last week", at8, SH), last_week);
    }

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
        // 11-20; 下周一 = Monday of the next week = 11-30.
        let ev = event_days("昨天开会，上周五的结论下周一再议", at("2026-11-26T02:00:00Z"), SH);
        assert_eq!(
            ev,
            [
                EventDays { start: d(2026, 11, 25), end: d(2026, 11, 26) },
                EventDays { start: d(2026, 11, 20), end: d(2026, 11, 21) },
                EventDays { start: d(2026, 11, 30), end: d(2026, 12, 1) },
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
    fn a_yearless_date_read_as_last_year_and_a_past_bare_weekday_are_dropped() {
        // Saturday 2026-11-21: 12 月 13 日 is read past-preferring as 2025-12-13 (343 days
        // back: a plan, not a memory): dropped. With （周日） after it the parser reads the
        // date whose weekday it is: 2025-12-13 was a Saturday, 2026-12-13 is a Sunday (three
        // weeks after Sunday 2026-11-22), so the plan's date, kept.
        // Tuesday 2026-09-01 about 六月 (2026-06, 62 days back) and 去年 (2025, named): kept.
        let t = at("2026-11-21T02:00:00Z");
        assert_eq!(event_days("和阿杰约定：12 月 13 日下午合练", t, SH), []);
        assert_eq!(
            event_days("和阿杰约定：12 月 13 日（周日）下午合练", t, SH),
            [EventDays { start: d(2026, 12, 13), end: d(2026, 12, 14) }]
        );
        assert_eq!(event_days("周四有雨", at("2026-11-16T02:00:00Z"), SH), []);
        assert_eq!(
            event_days("比六月重了 2 斤，去年这时候更重", at("2026-09-01T02:00:00Z"), SH),
            [
                EventDays { start: d(2026, 6, 1), end: d(2026, 7, 1) },
                EventDays { start: d(2025, 1, 1), end: d(2026, 1, 1) }
            ]
        );
        // Friday 11-20 about 周三 (11-18, 2 days back): kept; 2019 年以来 names its year.
        assert_eq!(
            event_days("周三去了医院", at("2026-11-20T02:00:00Z"), SH),
            [EventDays { start: d(2026, 11, 18), end: d(2026, 11, 19) }]
        );
        assert!(keep("2019 年以来", d(2019, 1, 1), d(2026, 8, 6), d(2026, 8, 5)));
        assert!(keep("八个月前", d(2026, 3, 1), d(2026, 4, 1), d(2026, 11, 20)));
        assert!(!keep("年底", d(2025, 12, 1), d(2026, 1, 1), d(2026, 8, 5)));
        assert!(!keep("Dec 6", d(2025, 12, 6), d(2025, 12, 7), d(2026, 11, 28)));
        assert!(!keep("on Monday", d(2026, 11, 16), d(2026, 11, 17), d(2026, 11, 20)));
        assert!(keep("last Monday", d(2026, 11, 16), d(2026, 11, 17), d(2026, 11, 20)));
    }

    #[test]
    fn the_end_of_an_unread_range_is_not_read_alone() {
        // After a window the text is parsed again from the end of its span; when that rest
        // starts with a range connector, what follows is the end of a range the parser did not
        // read as one (`10 月 2 日到 5 日`), and 5 日 alone (September 5th, 2026-09-24 being
        // the anchor) would be a wrong window.
        assert_eq!(event_days("到 5 日三晚", at("2026-09-24T02:00:00Z"), SH), []);
        // Without the connector it is this month's 5th (19 days back: kept).
        assert_eq!(
            event_days("5 日三晚", at("2026-09-24T02:00:00Z"), SH),
            [EventDays { start: d(2026, 9, 5), end: d(2026, 9, 6) }]
        );
        let cs = |s: &str| s.chars().collect::<Vec<_>>();
        assert!(ends_with_connector(&cs("10 月 2 日到 ")));
        assert!(ends_with_connector(&cs("周一 — ")));
        assert!(!ends_with_connector(&cs("周一 ")));
        assert!(!ends_with_connector(&[]));
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
