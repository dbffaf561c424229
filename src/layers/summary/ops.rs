//! `mem_summarize(period?, date?, force?)` on a data root: picks the sources with the plugin's
//! fallbacks, builds the summary with [`crate::layers::summary`] (pure), writes the file atomically,
//! mirrors it, and adds the period's top 3 tags to the hot topics index.
//!
//! Sources (docs/plugin-compatibility.md, "Summaries"): a day reads its cold entries; a week reads the day
//! summary of each of its seven days, falling back to that day's cold entries; a month reads
//! the week summaries of the ISO weeks lying wholly inside it, falling back to their days, and
//! the other days of the month one by one (day summary, else cold). A day with neither is
//! skipped. All sources come from the index (cold entries and mirrored summary files), after
//! a sync, so hand edits count.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use rusqlite::params;
use serde::Serialize;

use crate::Result;
use crate::files::entry::{Entry, Source};
use crate::index::Store;
use crate::index::store::{SyncPolicy, WriteSession};
use crate::index::sync::id_range;
use crate::layers::hot::ops::add_topics_locked;
use crate::layers::summary::{self, DaySource, ParsedSummary, Period, build_day, build_month, build_week, month_plan};
use crate::layers::sync::{LayerScope, layer_body, sync, sync_layers, write_layer};

/// Result of [`Memory::summarize`](crate::Memory::summarize).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummarizeResult {
    /// day / week / month.
    pub period: Period,
    /// The period's label: `2026-10-21`, `2026-W43`, `2026-10`.
    pub label: String,
    /// The summary file, relative to the data root (`summaries/week/2026-W43.md`).
    pub file: String,
    /// True when this call (re)generated the file; false when an existing one was returned.
    pub created: bool,
    /// The whole file text.
    pub content: String,
    /// `原 N 条` of the header (`null` when a hand-edited file has none).
    pub original: Option<usize>,
    /// `保留 M 行`: item lines in the file.
    pub kept: usize,
    /// Lines omitted for the budget.
    pub omitted: usize,
    /// Most frequent tags of the period (when generated now).
    pub top_tags: Vec<String>,
    /// Topics lines added to hot.md (when generated now).
    pub topics_added: usize,
    /// Why no file was written: the period has no entries, or starts after today (an
    /// empty or future period writes no file, and says so instead of failing silently). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The cold entries of one local date from the index, in file order.
fn cold_entries(c: &rusqlite::Connection, day: NaiveDate) -> Result<Vec<Entry>> {
    let (lo, hi) = id_range(day, day);
    let mut st =
        c.prepare_cached("SELECT ts, tag, content, source FROM entries WHERE id BETWEEN ?1 AND ?2 ORDER BY id")?;
    let rows = st.query_map(params![lo, hi], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, Option<String>>(3)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (ts, tag, content, source) = row?;
        let Ok(ts) = DateTime::parse_from_rfc3339(&ts) else { continue };
        out.push(Entry {
            ts: ts.with_timezone(&Utc),
            tag,
            content,
            source: source.as_deref().and_then(Source::from_marker_body),
        });
    }
    Ok(out)
}

/// `mem_summarize(period="day", date=today, force=false)`: `period` is `day`, `week` or
/// `month`; `date` a local date `YYYY-MM-DD` inside the period. An existing summary is
/// returned as it is unless `force`. Errors: bad `period` / `date` (named), lock timeout,
/// I/O. Adding the top tags to hot.md is best effort (a failure is reported as a `log` warning).
pub fn summarize(store: &Store, period: Option<&str>, date: Option<&str>, force: bool) -> Result<SummarizeResult> {
    let period = Period::parse(period.unwrap_or("day"))?;
    let date = match date {
        Some(d) => crate::files::parse_date("date", d)?,
        None => store.today(),
    };
    summarize_period(store, period, date, force)
}

/// [`Memory::summarize`](crate::Memory::summarize) with typed arguments.
pub fn summarize_period(store: &Store, period: Period, date: NaiveDate, force: bool) -> Result<SummarizeResult> {
    sync(store, SyncPolicy::WRITER, &mut |_| {})?;
    sync_layers(store, LayerScope::All, SyncPolicy::WRITER)?;
    if !force && let Some(r) = existing_summary(store, period, date)? {
        return Ok(r);
    }
    let lock = store.lock()?;
    sync_layers(store, LayerScope::All, SyncPolicy::held(&lock))?;
    summarize_locked(&lock, period, date, force)
}

fn summary_of(store: &Store, period: Period, date: NaiveDate) -> Result<Option<(String, ParsedSummary)>> {
    Ok(layer_body(store, &period.rel_path(date))?.map(|b| {
        let text = String::from_utf8_lossy(&b).into_owned();
        let parsed = summary::parse(&text, period);
        (text, parsed)
    }))
}

fn existing_summary(store: &Store, period: Period, date: NaiveDate) -> Result<Option<SummarizeResult>> {
    Ok(summary_of(store, period, date)?.map(|(text, p)| SummarizeResult {
        period,
        label: period.label(date),
        file: period.rel_path(date),
        created: false,
        original: p.original,
        kept: p.lines.len(),
        omitted: p.omitted,
        content: text,
        top_tags: Vec::new(),
        topics_added: 0,
        note: None,
    }))
}

/// What one day contributes: its day summary, else its cold entries, else nothing.
fn day_source(store: &Store, c: &rusqlite::Connection, day: NaiveDate) -> Result<Option<DaySource>> {
    if let Some((_, p)) = summary_of(store, Period::Day, day)? {
        return Ok(Some(DaySource::Summary(p)));
    }
    let entries = cold_entries(c, day)?;
    Ok((!entries.is_empty()).then_some(DaySource::Cold(entries)))
}

fn day_sources(store: &Store, c: &rusqlite::Connection, days: &[NaiveDate]) -> Result<Vec<(NaiveDate, DaySource)>> {
    let mut out = Vec::new();
    for d in days {
        if let Some(s) = day_source(store, c, *d)? {
            out.push((*d, s));
        }
    }
    Ok(out)
}

/// Generates (or, without `force`, returns the existing) summary while the caller holds
/// the writer lock and has synced the layers. Used by `write` at every 20th entry of a day.
pub(crate) fn summarize_locked(
    lock: &WriteSession<'_>,
    period: Period,
    date: NaiveDate,
    force: bool,
) -> Result<SummarizeResult> {
    let store = lock.store();
    if !force && let Some(r) = existing_summary(store, period, date)? {
        return Ok(r);
    }
    let now = store.now();
    let start = match period {
        Period::Day => date,
        Period::Week => summary::week_days(date)[0],
        Period::Month => date.with_day(1).unwrap_or(date),
    };
    let today = store.today();
    if start > today {
        let why = format!("{} 在今天 {today} 之后，未生成摘要文件", period.label(date));
        return Ok(not_written(period, date, why));
    }
    let c = store.conn()?;
    let s = match period {
        Period::Day => build_day(date, &cold_entries(&c, date)?, now),
        Period::Week => build_week(date, &day_sources(store, &c, &summary::week_days(date))?, now)?,
        Period::Month => {
            let plan = month_plan(date);
            let mut weeks = Vec::new();
            let mut days: Vec<NaiveDate> = Vec::new();
            for label in &plan.full_weeks {
                let monday = summary::week_monday(label, "weeks")?;
                match summary_of(store, Period::Week, monday)? {
                    Some((_, p)) => weeks.push((label.clone(), p)),
                    None => days.extend(summary::week_days(monday)),
                }
            }
            for d in &plan.loose_days {
                days.push(crate::files::parse_date("date", d)?);
            }
            days.sort();
            build_month(date, &weeks, &day_sources(store, &c, &days)?, now)?
        }
    };
    drop(c);
    if s.original == 0 {
        let why = format!("{} 没有任何条目，未生成摘要文件", period.label(date));
        return Ok(not_written(period, date, why));
    }
    let file = period.rel_path(date);
    write_layer(lock, &file, s.text.as_bytes())?;
    let topics_added = match add_topics_locked(lock, &s.topics) {
        Ok(n) => n,
        Err(e) => {
            log::warn!("topics of {file} not added to hot.md: {e}");
            0
        }
    };
    Ok(SummarizeResult {
        period,
        label: s.label,
        file,
        created: true,
        content: s.text,
        original: Some(s.original),
        kept: s.kept,
        omitted: s.omitted,
        top_tags: s.top_tags,
        topics_added,
        note: None,
    })
}

/// The result for a period that gets no file (empty or in the future).
fn not_written(period: Period, date: NaiveDate, note: String) -> SummarizeResult {
    SummarizeResult {
        period,
        label: period.label(date),
        file: period.rel_path(date),
        created: false,
        content: String::new(),
        original: Some(0),
        kept: 0,
        omitted: 0,
        top_tags: Vec::new(),
        topics_added: 0,
        note: Some(note),
    }
}
