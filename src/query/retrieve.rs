//! `retrieve(query, time_range?, tz?, limit?, explain?)`: time as a gate: the window
//! filters before BM25 ranks, and never votes in the ranking (why: docs/time-expressions.md,
//! "Why time is a gate, not a ranking term"; the rules below are that page's "How `retrieve`
//! uses the window").
//!
//! 1. An explicit `time_range` is used as is; the query text is not parsed for time.
//! 2. Otherwise `temporal::parse` runs on the query. No time intent → the same
//!    natural-language search with the time gate switched off (corrected rule 2): stop words
//!    removed, OR-scored BM25, the same ranking, over the whole archive — exactly what
//!    `RetrieveArgs { no_time: true, .. }` returns (same ids, same order). `recall` keeps the
//!    plugin's keyword semantics (AND of every term by default).
//! 3. With a window: the window's local dates become a rowid range inside the FTS5 query
//!    (`entries_fts MATCH ? AND rowid BETWEEN ? AND ?`), applied before BM25 ranks: the
//!    entries whose record date is in the window. The gate also admits the entries one of
//!    whose event windows (the time expressions of their own text, anchored at their own
//!    timestamp: [`crate::index::events`], docs/event-time.md) overlaps the window's local
//!    dates: their ids come from the index on `entry_events`
//!    ([`OVERLAP_IDS_SQL`](crate::index::events::OVERLAP_IDS_SQL)), and their matches are
//!    found through FTS5 too, in runs of nearby ids
//!    ([`admitted_sql`](crate::query::search::admitted_sql)), and counted beside the range's
//!    candidates, before BM25 ranks them all. The
//!    text left after removing the time expression is stripped of stop words
//!    (`stopwords`) and scored by BM25 in OR mode, so "我吃了什么" still finds 「晚饭吃了火锅」.
//!    When the window's boundaries are not local midnights of the configured zone (an explicit
//!    instant range, or a `tz` other than the one partitioning the files), the covering days
//!    are the rowid range and the UTC timestamps are filtered exactly as well.
//!    Conversation context (memlayers): a hit that asks a question (text ending in `?`/`？`)
//!    is followed by the next entry of its day file, its reply, with the same score.
//! 4. Nothing left to score → the window's entries (record date or event window), newest
//!    first by record time, top N.
//! 5. No hit in the window → widen once (±1 day for windows up to 7 days, ±7 days for longer;
//!    a parsed window only: an explicit `time_range` is never widened),
//!    reported in `explain`. Then, when a parsed window (widened or not; not an explicit
//!    `time_range`, which is the caller's filter) holds fewer matches than the limit, the list
//!    is filled with the best matches outside it — the same question's
//!    ranking without a window — after every match inside it; each item says which it is
//!    (`in_window`, JSON `inWindow`) and `explain` counts both (`inWindow`, `filled`). A
//!    question whose words match anything in the archive never gets an empty answer; one whose
//!    words match nothing anywhere gets its window's entries as in rule 4 (memlayers: an
//!    empty answer helps no one when the window holds the day asked about).
//! 6. Time never votes in the ranking of a window. The optional recency decay `exp(-Δt/τ)`
//!    (config `recencyTauDays`, off by default) is the implicit freshness of queries WITHOUT a
//!    time window: a small bounded term of the one score (`search` module docs);
//!    inside a window it is not applied.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use rusqlite::params;
use serde::Serialize;

use crate::files::{local_date, local_midnight};
use crate::fts5::segment::{Piece, Probe, pieces};
use crate::index::store::SyncScope;
use crate::index::sync::id_range;
use crate::layers::usage::ops::weights_on;
use crate::query::Reader;
use crate::query::search::{Mode, Query, ScoreParts, round4};
use crate::query::{Item, check_range, item_from_row};
use crate::temporal::{self, Grain, TimeWindow};
use crate::{Error, Result};

/// An explicit time range given by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeRange {
    /// Closed local-date range: `[from 00:00, to+1 00:00)` in the call's zone.
    Dates {
        /// First local date.
        from: NaiveDate,
        /// Last local date (inclusive).
        to: NaiveDate,
    },
    /// Half-open instant range `[start, end)`, UTC.
    Instants {
        /// Start instant (inclusive).
        start: DateTime<Utc>,
        /// End instant (exclusive).
        end: DateTime<Utc>,
    },
}

/// Arguments of [`Memory::retrieve`](crate::Memory::retrieve).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetrieveArgs {
    /// Natural-language query, possibly with a time expression ("上周 翻唱", "前天晚上我吃了什么").
    pub query: String,
    /// Explicit window; skips time parsing.
    pub time_range: Option<TimeRange>,
    /// Zone for time words and date ranges; default config `timezone`. Entries are still
    /// filtered by their UTC instants over the root's own day partition (`files::zone`).
    pub tz: Option<Tz>,
    /// 1–50, default 10 (as recall).
    pub limit: Option<i64>,
    /// Return the [`Explain`] block.
    pub explain: bool,
    /// Switch the time-expression parser off: the whole query is natural-language text, and
    /// there is no window unless `time_range` gives one (rule 2's "without this feature").
    pub no_time: bool,
    /// Gate on record dates only: a window admits the entries written in it and not those
    /// whose text names a time inside it (event windows, docs/event-time.md). For measuring
    /// what event time changes.
    pub record_time_only: bool,
}

/// Where the window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowSource {
    /// `time_range` given by the caller.
    Explicit,
    /// Parsed from the query text.
    Parsed,
    /// No window.
    None,
}

/// How `retrieve` got its result, for people and hosts (`explain: true`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explain {
    /// The window (UTC instants and local dates), if any.
    pub window: Option<TimeWindow>,
    /// explicit | parsed | none.
    pub window_source: WindowSource,
    /// The zone that framed the window.
    pub tz: String,
    /// Query text left after removing the time expression.
    pub rest: String,
    /// `rest` without stop words: what BM25 scored.
    pub scored_text: String,
    /// `bm25-or` (text scored by BM25 in OR mode, with or without a window), `window-only`
    /// (newest first), or `nothing-to-score` (no window and only stop words: empty result).
    pub strategy: String,
    /// The widened local-date range `[startDate, endDate)` when the window had no hit.
    pub widened: Option<Widened>,
    /// Entries inside the (final) window, before any text matching.
    pub candidates_in_window: Option<i64>,
    /// The FTS5 MATCH expression run, if any.
    pub fts_query: Option<String>,
    /// The SQL run.
    pub sql: String,
    /// The inclusive rowid range bound to the SQL (`?3`/`?4`): the window's local dates as
    /// entry ids, `(day_number << 20) | ordinal`.
    pub rowid_range: Option<(i64, i64)>,
    /// The exact UTC filter added when the window's edges are not local midnights of the zone
    /// that partitions the files.
    pub utc_filter: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// With a window: how many hits came from inside it (widened or not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_window: Option<usize>,
    /// With a window: how many hits are the best matches outside it, filling the list when the
    /// window held fewer matches than the limit (rule 5's fill-up); they come after every hit
    /// inside and are marked `inWindow: false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filled: Option<usize>,
    /// The event-time part of the gate, when there is a window and `record_time_only` is off.
    pub event_time: Option<EventTime>,
    /// Score parts of every hit, best first.
    pub hits: Vec<ScoreParts>,
}

/// What the event-time part of a window's gate did (docs/event-time.md): how many entries it
/// admitted besides those recorded in the window, and where the matches and hits came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventTime {
    /// The SQL that listed the admitted entries: `?1`/`?2` the window's local dates `[start,
    /// end)` as day numbers (days since 0001-01-01, that date being day 1), `?3`/`?4` the rowid
    /// range of the record dates, whose entries it leaves out.
    pub sql: String,
    /// Entries outside the window's own days with an event window overlapping it, before any
    /// text matching.
    pub admitted: i64,
    /// Matching entries whose record date is in the window (the rowid range).
    pub matched_by_record_date: i64,
    /// Matching entries admitted by an event window.
    pub matched_by_event_window: i64,
    /// Returned entries whose record date is in the window.
    pub hits_by_record_date: usize,
    /// Returned entries admitted by an event window.
    pub hits_by_event_window: usize,
}

/// A widening applied after zero hits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Widened {
    /// "±1 day" or "±7 days".
    pub by: String,
    /// New first local date.
    pub start_date: NaiveDate,
    /// New end local date (exclusive).
    pub end_date: NaiveDate,
}

/// Result of [`Memory::retrieve`](crate::Memory::retrieve).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RetrieveResult {
    /// The query as given.
    pub query: String,
    /// True when the index is behind the files (an import or rebuild is under way in another
    /// process): the answer is from the index's last consistent state, maybe not whole.
    /// Omitted when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// Entries matching (in the window, when there is one).
    pub matched: i64,
    /// Entries returned.
    pub returned: usize,
    /// Best first (or newest first for window-only queries).
    pub items: Vec<Item>,
    /// Present when nothing matched in the window and the answer comes from the window widened
    /// once (rule 5), so a host or a person sees it without `explain`. Omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widened: Option<Widened>,
    /// Present when `explain` was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
}

/// Builds a window for an explicit range in `tz`.
fn explicit_window(r: TimeRange, tz: Tz) -> Result<TimeWindow> {
    match r {
        TimeRange::Dates { from, to } => Ok(temporal::window_for_dates(from, to, tz)?),
        TimeRange::Instants { start, end } => {
            if start >= end {
                return Err(Error::bad("time_range", format!("start {start} is not before end {end}")));
            }
            let last = local_date(end - Duration::nanoseconds(1), tz);
            Ok(TimeWindow {
                start,
                end,
                start_date: local_date(start, tz),
                end_date: last + Duration::days(1),
                grain: Grain::Range,
                fuzzy: false,
                part_of_day: None,
                spans: vec![],
                matched: String::new(),
            })
        }
    }
}

/// The OR query over what is left of `rest` after stop words: bigrams of each CJK run, a
/// prefix probe for one-character runs, a prefix probe per Latin word. `None` when nothing is
/// left.
pub fn or_query(rest: &str) -> Option<(Query, String)> {
    let scored = crate::query::stopwords::strip(rest);
    let mut probes: Vec<Vec<Probe>> = Vec::new();
    let mut terms = Vec::new();
    for p in pieces(&scored) {
        match p {
            Piece::Word(w) => {
                terms.push(w.clone());
                probes.push(vec![Probe::word(w)]);
            }
            Piece::Cjk(run) => {
                let chars: Vec<char> = run.chars().collect();
                if chars.len() == 1 {
                    terms.push(run.clone());
                    probes.push(vec![Probe { token: run, prefix: true, alt: None }]);
                }
                for pair in chars.windows(2) {
                    let t: String = pair.iter().collect();
                    terms.push(t.clone());
                    probes.push(vec![Probe { token: t, prefix: false, alt: None }]);
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let keep: Vec<bool> = terms.iter().map(|t| seen.insert(t.clone())).collect();
    let mut k = keep.iter();
    terms.retain(|_| *k.next().unwrap());
    let mut k = keep.iter();
    probes.retain(|_| *k.next().unwrap());
    (!terms.is_empty()).then_some((Query { terms, probes, mode: Mode::Or }, scored))
}

/// The gate of one search: a rowid range (the record dates) and, when needed, an exact UTC
/// filter; and, unless the call gates on record time only, the entries outside the range
/// that an event window admits.
#[derive(Debug, Clone)]
struct Gate {
    range: (i64, i64),
    ts: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// Whether event windows admit entries too.
    events: bool,
    /// The entries outside `range` with an event window overlapping the range's local dates,
    /// ascending ids ([`Reader::admit_by_event`]); empty until then.
    by_event: Vec<i64>,
}

impl Gate {
    /// The local dates (of the zone partitioning the files) whose day files the gate's rowid
    /// range reads.
    fn days(&self) -> SyncScope {
        let day = |id: i64| crate::files::day_from_number(id >> crate::index::sync::ORDINAL_BITS);
        match (day(self.range.0), day(self.range.1)) {
            (Some(a), Some(b)) => SyncScope::Days(a, b),
            _ => SyncScope::All,
        }
    }

    /// The day files a windowed query checks for changes before it answers (a per-call handle
    /// stats them; a watching one reads its inotify queue, which covers every file anyway):
    /// the range's, and with event windows on, also the [`NEAR_DAYS`] + L days on either side
    /// of a window of L days, where a line naming the window in relative words was written
    /// (昨天, 上周, last month, 下周三 in a plan). A hand edit in a day file farther away that
    /// names the window (an absolute date written years apart) reaches the gate at the next
    /// check of every file: an unwindowed query, `sync`, any write (docs/event-time.md,
    /// "Freshness"). Checking all 3 445 files of a 1M archive before every windowed call cost
    /// 15–37 ms there, where ripgrep reads a day's file in 3.5–5.4 ms (docs/benchmarks.md).
    fn sync_scope(&self) -> SyncScope {
        match self.days() {
            SyncScope::Days(a, b) if self.events => {
                let pad = Duration::days((b - a).num_days() + 1 + NEAR_DAYS);
                match (a.checked_sub_signed(pad), b.checked_add_signed(pad)) {
                    (Some(a), Some(b)) => SyncScope::Days(a, b),
                    _ => SyncScope::All,
                }
            }
            s => s,
        }
    }

    /// The local dates `[start, end)` of the rowid range as day numbers: what an event window
    /// must overlap.
    fn day_numbers(&self) -> (i64, i64) {
        let bits = crate::index::sync::ORDINAL_BITS;
        (self.range.0 >> bits, (self.range.1 >> bits) + 1)
    }

    /// True when the gate admits entry `id` by an event window (not by its record date).
    fn by_event(&self, id: i64) -> bool {
        self.by_event.binary_search(&id).is_ok()
    }

    /// The explain block of the event-time part (`None` when it is off): `matched` matches
    /// of which `matched_by_event` came by event window, and the hits.
    fn explain(&self, matched: i64, matched_by_event: i64, hits: &[(Item, ScoreParts)]) -> Option<EventTime> {
        self.events.then(|| {
            let by_event = hits.iter().filter(|(i, _)| self.by_event(i.id)).count();
            let by_record = hits.iter().filter(|(i, _)| (self.range.0..=self.range.1).contains(&i.id)).count();
            EventTime {
                sql: crate::index::events::OVERLAP_IDS_SQL.to_string(),
                admitted: self.by_event.len() as i64,
                matched_by_record_date: matched - matched_by_event,
                matched_by_event_window: matched_by_event,
                hits_by_record_date: by_record,
                hits_by_event_window: by_event,
            }
        })
    }
}

impl Reader<'_> {
    /// The gate for instants `[start, end)` covering local dates `[from, to_excl)` in `tz`:
    /// a pure rowid range when those are local midnights of the zone partitioning the files,
    /// else the covering days' rowid range plus an exact UTC filter. With `events`, event
    /// windows admit entries too ([`Reader::admit_by_event`] lists them), by the covering days.
    fn gate(
        &self,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        from: NaiveDate,
        to_excl: NaiveDate,
        events: bool,
    ) -> Gate {
        let cfg = self.tz();
        if local_midnight(from, cfg) == start && local_midnight(to_excl, cfg) == end {
            return Gate { range: id_range(from, to_excl - Duration::days(1)), ts: None, events, by_event: Vec::new() };
        }
        let (a, b) = (local_date(start, cfg), local_date(end - Duration::nanoseconds(1), cfg));
        Gate { range: id_range(a, b), ts: Some((start, end)), events, by_event: Vec::new() }
    }

    /// Lists the entries the gate admits by an event window ([`Gate::by_event`]): those
    /// outside its rowid range with an event window overlapping its local dates, through the
    /// index on `entry_events` ([`crate::index::events::overlapping`]). A no-op when event
    /// windows are off for the call.
    fn admit_by_event(&self, g: &mut Gate) -> Result<()> {
        if g.events {
            g.by_event = crate::index::events::overlapping(&*self.conn()?, g.day_numbers(), g.range)?;
        }
        Ok(())
    }

    /// Time-gated retrieval (module docs). Errors: `limit` outside 1–50, `query` longer than
    /// [`MAX_QUERY_CHARS`](crate::query::search::MAX_QUERY_CHARS) code points, an invalid explicit
    /// range (field `time_range`), or a blank query without an explicit range (field
    /// `query`). A query left with nothing to search after its time expression and stop words
    /// are removed is not an error: it lists the window, or returns nothing without one.
    pub fn retrieve(&self, args: &RetrieveArgs) -> Result<RetrieveResult> {
        if args.query.trim().is_empty() && args.time_range.is_none() {
            return Err(crate::Error::bad(
                "query",
                "is empty: ask a question, e.g. \"上周 火锅\", or give from/to to list a window",
            ));
        }
        let limit = check_range("limit", args.limit.unwrap_or(10), 1, 50)? as usize;
        crate::query::search::check_query_length("query", &args.query)?;
        let tz = args.tz.unwrap_or(self.frame_tz());
        let (window, source, rest) = match args.time_range {
            Some(r) => (Some(explicit_window(r, tz)?), WindowSource::Explicit, args.query.clone()),
            None if args.no_time => (None, WindowSource::None, args.query.clone()),
            None => {
                let p = temporal::parse(&args.query, self.now(), tz);
                match p.window {
                    Some(w) => (Some(w), WindowSource::Parsed, p.rest),
                    None => (None, WindowSource::None, args.query.clone()),
                }
            }
        };
        let Some(w) = window else {
            // Rule 2 (corrected): no time intent → the same natural-language search without the
            // gate; implicit freshness (recencyTauDays) applies here only.
            let oq = or_query(&rest);
            if let Some((q, _)) = &oq {
                q.check_size("query")?;
            } else {
                // Not an error (the answer is empty, exit 0), but not silent either: the caller
                // learns why nothing came back (docs/time-expressions.md, point 4).
                log::warn!(
                    "no content word remained in the question {:?} after removing stop words: nothing to search \
                     (ask with a content word, or give from/to to list a window)",
                    args.query
                );
            }
            let ((hits, matched, sql), stale) = self.read_synced(|| {
                let (hits, matched, sql) = match &oq {
                    Some((q, _)) => self.search(q, None, None, limit, self.config().recency_tau_days, args.explain)?,
                    None => (vec![], 0, crate::query::search::ranked_sql(false, false)),
                };
                Ok((self.with_replies(hits, limit)?, matched, sql))
            })?;
            let strategy = if oq.is_some() { "bm25-or" } else { "nothing-to-score" };
            return Ok(self.finish(args, stale, hits, matched, None, || Explain {
                window: None,
                window_source: WindowSource::None,
                tz: tz.to_string(),
                rest: rest.clone(),
                scored_text: oq.as_ref().map(|(_, s)| s.clone()).unwrap_or_default(),
                strategy: strategy.into(),
                widened: None,
                candidates_in_window: None,
                fts_query: oq.as_ref().map(|(q, _)| q.fts()),
                sql,
                rowid_range: None,
                utc_filter: None,
                in_window: None,
                filled: None,
                event_time: None,
                hits: vec![],
            }));
        };
        let mut stale = false;
        let oq = or_query(&rest);
        if let Some((q, _)) = &oq {
            q.check_size("query")?;
        }
        let mut from = w.start_date;
        let mut to_excl = w.end_date;
        let mut widened = None;
        let events = !args.record_time_only;
        loop {
            let mut gate = match widened {
                None => self.gate(w.start, w.end, from, to_excl, events),
                Some(_) => self.gate(local_midnight(from, tz), local_midnight(to_excl, tz), from, to_excl, events),
            };
            // Only the day files the gate reads can change this answer: check those (a
            // per-call store stats just them; a watching store checks its inotify queue).
            stale |= self.sync_days(gate.sync_scope())?;
            self.admit_by_event(&mut gate)?;
            // The window's size is reported by `explain` and is the count of a window-only
            // listing; a scored query does not need it (one statement less per call).
            let candidates = if oq.is_none() || args.explain { Some(self.count_in_gate(&gate)?) } else { None };
            let (hits, matched, by_event, fts, sql, strategy) = match &oq {
                Some((q, _)) => {
                    let ((hits, matched, sql), by_event) = self.search_gated(q, &gate, limit, args.explain)?;
                    (hits, matched, by_event, Some(q.fts()), sql, "bm25-or")
                }
                None => {
                    let hits = self.window_newest(&gate, limit)?;
                    (
                        hits,
                        candidates.unwrap_or_default(),
                        gate.by_event.len() as i64,
                        None,
                        window_sql(gate.ts.is_some()).to_string(),
                        "window-only",
                    )
                }
            };
            let span = (w.end_date - w.start_date).num_days();
            // An explicit `time_range` is used as is (rule 1): never widened.
            if hits.is_empty() && widened.is_none() && source == WindowSource::Parsed {
                let by = if span <= 7 { 1 } else { 7 };
                from = w.start_date - Duration::days(by);
                to_excl = w.end_date + Duration::days(by);
                widened = Some(Widened {
                    by: if by == 1 { "±1 day".into() } else { "±7 days".into() },
                    start_date: from,
                    end_date: to_excl,
                });
                continue;
            }
            let scored_text = oq.as_ref().map(|(_, s)| s.clone()).unwrap_or_default();
            // An explicit `time_range` is the caller's filter, used as is: no fill-up from
            // outside it. A parsed window is the engine's reading of a question: filled.
            let (mut hits, filled) = match &oq {
                Some((q, _)) if source == WindowSource::Parsed => {
                    let (hits, filled, fill_stale) = self.fill_up(q, hits, &gate, limit, args.explain)?;
                    stale |= fill_stale;
                    (hits, filled)
                }
                _ => (mark(hits, true), 0),
            };
            // The question's words match nothing anywhere, but its window holds entries: those,
            // newest first, as if nothing were left to score (rule 4), rather than an empty
            // answer ("what did I eat yesterday" when yesterday says "Ate ramen").
            let mut strategy = strategy;
            if hits.is_empty() && oq.is_some() && source == WindowSource::Parsed {
                hits = mark(self.window_newest(&gate, limit)?, true);
                strategy = "window-only";
            }
            let in_window = hits.len() - filled;
            let event_time = if args.explain { gate.explain(matched, by_event, &hits) } else { None };
            return Ok(self.finish(args, stale, hits, matched, widened.clone(), || Explain {
                window: Some(w.clone()),
                window_source: source,
                tz: tz.to_string(),
                rest: rest.clone(),
                scored_text,
                strategy: strategy.into(),
                widened: widened.clone(),
                candidates_in_window: candidates,
                fts_query: fts,
                sql,
                rowid_range: Some(gate.range),
                utc_filter: gate.ts,
                in_window: Some(in_window),
                filled: Some(filled),
                event_time,
                hits: vec![],
            }));
        }
    }

    /// Rule 5's fill-up: the window's matches (`inside`, best first) marked inside, then, when
    /// they are fewer than `limit`, the best matches of the whole archive outside the window's
    /// rowid range (the same question's ranking without a window, rule 2) marked outside, up to
    /// `limit`; then conversation replies ([`Reader::with_replies`]), which take their
    /// question's mark. Returns the list, how many items are outside the window, and whether
    /// the index was behind the files for the search over every day.
    fn fill_up(
        &self,
        q: &Query,
        inside: Vec<(Item, ScoreParts)>,
        gate: &Gate,
        limit: usize,
        explain: bool,
    ) -> Result<Filled> {
        let mut list = mark(inside, true);
        let mut stale = false;
        if list.len() < limit {
            // Up to `list.len()` of the best overall may be inside the window already: ask for
            // that many more, so the list can still reach `limit`.
            let want = limit + list.len();
            let (outside, s) = self.read_synced(|| {
                let (hits, _, _) = self.search(q, None, None, want, self.config().recency_tau_days, explain)?;
                Ok(hits)
            })?;
            stale = s;
            // Entries of the window's rowid range, and those its event windows admit, are the
            // window's: found by its own search.
            let in_range =
                |id: i64| (gate.range.0 <= id && id <= gate.range.1) || gate.by_event.binary_search(&id).is_ok();
            let room = limit - list.len();
            list.extend(mark(outside.into_iter().filter(|(i, _)| !in_range(i.id)).take(room).collect(), false));
        }
        let list = self.with_replies(list, limit)?;
        let filled = list.iter().filter(|(i, _)| i.in_window == Some(false)).count();
        Ok((list, filled, stale))
    }

    fn finish(
        &self,
        args: &RetrieveArgs,
        stale: bool,
        hits: Vec<(Item, ScoreParts)>,
        matched: i64,
        widened: Option<Widened>,
        explain: impl FnOnce() -> Explain,
    ) -> RetrieveResult {
        let explain =
            args.explain.then(|| Explain { hits: hits.iter().map(|(_, p)| p.clone()).collect(), ..explain() });
        let items: Vec<Item> = hits.into_iter().map(|(i, _)| i).collect();
        RetrieveResult { query: args.query.clone(), stale, matched, returned: items.len(), items, widened, explain }
    }

    /// Conversation context: a hit that asks a question (its text ends with `?` or `？`) is
    /// followed by the next entry of its day file — the reply — taking the question's score:
    /// read from the index when it is not a hit, moved up from its own rank when it is a hit
    /// ranked below the question (so the first k of a list never depend on the `limit` asked
    /// for). A reply ranked above its question stays there. The list is cut back to `limit`.
    fn with_replies(&self, hits: Vec<(Item, ScoreParts)>, limit: usize) -> Result<Vec<(Item, ScoreParts)>> {
        if !hits.iter().any(|(i, _)| asks(&i.content)) {
            return Ok(hits);
        }
        let c = self.conn()?;
        let mut st =
            c.prepare_cached(&format!("SELECT {} FROM entries e WHERE e.id = ?1", crate::query::ITEM_COLUMNS))?;
        let mut rest: Vec<Option<(Item, ScoreParts)>> = hits.into_iter().map(Some).collect();
        let mut out: Vec<(Item, ScoreParts)> = Vec::with_capacity(rest.len() + 2);
        for k in 0..rest.len() {
            let Some((item, parts)) = rest[k].take() else { continue };
            let next = asks(&item.content).then_some(item.id + 1);
            let (score, in_window) = (parts.score, item.in_window);
            out.push((item, parts));
            let Some(next) = next.filter(|n| !out.iter().any(|(i, _)| i.id == *n)) else { continue };
            // A hit ranked below: moved up behind its question.
            if let Some(j) = rest[k + 1..].iter().position(|h| h.as_ref().is_some_and(|(i, _)| i.id == next)) {
                if let Some((mut reply, mut p)) = rest[k + 1 + j].take() {
                    reply.score = Some(round4(score));
                    p.score = score;
                    out.push((reply, p));
                }
                continue;
            }
            if let Some(mut reply) = st.query_map([next], item_from_row)?.next().transpose()? {
                reply.score = Some(round4(score));
                reply.in_window = in_window;
                let weight = weights_on(self, &c, std::slice::from_ref(&reply))[0];
                let p = ScoreParts { id: reply.id, bm25: 0.0, text: 0.0, weight, recent: 0.0, recency: 0.0, score };
                out.push((reply, p));
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    /// The entries a gate admits: those recorded in its range (and UTC filter) and those its
    /// event windows admit.
    fn count_in_gate(&self, g: &Gate) -> Result<i64> {
        let c = self.conn()?;
        let recorded: i64 = match (g.ts, g.days()) {
            // Whole days: the per-file entry counts sync keeps (`files.entries` is the number of
            // ids the day holds), one row per day instead of a walk over every entry row of
            // the window (26 % of a `去年` call at 1M entries).
            (None, SyncScope::Days(a, b)) => c
                .prepare_cached("SELECT coalesce(sum(entries), 0) FROM files WHERE path BETWEEN ?1 AND ?2")?
                .query_row(params![crate::files::cold_rel(a), crate::files::cold_rel(b)], |r| r.get(0))?,
            (None, SyncScope::All) => c.query_row(
                "SELECT count(*) FROM entries WHERE id BETWEEN ?1 AND ?2",
                params![g.range.0, g.range.1],
                |r| r.get(0),
            )?,
            (Some((a, b)), _) => c.query_row(
                &format!(
                    "SELECT count(*) FROM entries e WHERE e.id BETWEEN ?1 AND ?2{}",
                    crate::query::ts_filter_sql("e", 3, 4)
                ),
                params![g.range.0, g.range.1, crate::files::entry::format_ts(a), crate::files::entry::format_ts(b)],
                |r| r.get(0),
            )?,
        };
        Ok(recorded + g.by_event.len() as i64)
    }

    /// The newest `limit` entries a gate admits, newest first by record time (entry id): the
    /// range's newest and the newest of those its event windows admit, merged.
    fn window_newest(&self, g: &Gate, limit: usize) -> Result<Vec<(Item, ScoreParts)>> {
        let c = self.conn()?;
        let ms = g.ts.map(|(a, b)| (a.timestamp_millis(), b.timestamp_millis()));
        let mut rows = crate::query::newest_in_range(&c, g.range, ms, limit)?;
        if !g.by_event.is_empty() {
            // The newest admitted by event window are the highest ids (the list is ascending).
            let newest = &g.by_event[g.by_event.len().saturating_sub(limit)..];
            rows.extend(crate::query::items_by_id(&c, newest)?.into_values());
            rows.sort_unstable_by_key(|r| std::cmp::Reverse(r.id));
            rows.truncate(limit);
        }
        let ws = weights_on(self, &c, &rows);
        Ok(rows
            .into_iter()
            .zip(ws)
            .map(|(i, weight)| {
                let p = ScoreParts { id: i.id, bm25: 0.0, text: 0.0, weight, recent: 0.0, recency: 0.0, score: 0.0 };
                (i, p)
            })
            .collect())
    }

    /// The ranked search of a gate: its range's matches and those of the entries it admits by
    /// event window, and how many of the matches are the latter.
    fn search_gated(
        &self,
        q: &Query,
        g: &Gate,
        limit: usize,
        explain: bool,
    ) -> Result<(crate::query::search::Searched, i64)> {
        // Inside a window time never votes: no recency decay (rule 6).
        let ts = g.ts.map(|(a, b)| (crate::files::entry::format_ts(a), crate::files::entry::format_ts(b)));
        self.search_admitting(q, Some(g.range), ts, &g.by_event, limit, None, explain)
    }
}

/// Days beyond a window's own length on either side whose day files a windowed query checks
/// for lines naming the window (`Gate::sync_scope`): a month, the reach of the relative
/// words a note uses for its neighbourhood (上个月, last month, 下周三).
pub const NEAR_DAYS: i64 = 31;

/// What [`Reader::fill_up`] returns: the hits, how many are outside the window, and whether the
/// index was behind the files.
type Filled = (Vec<(Item, ScoreParts)>, usize, bool);

/// Marks every hit as inside (`true`) or outside the window.
fn mark(hits: Vec<(Item, ScoreParts)>, inside: bool) -> Vec<(Item, ScoreParts)> {
    hits.into_iter()
        .map(|(mut i, p)| {
            i.in_window = Some(inside);
            (i, p)
        })
        .collect()
}

/// True when an entry's text asks a question (ends with `?` or `？`).
fn asks(content: &str) -> bool {
    content.trim_end().ends_with(['?', '？'])
}

/// SQL of a window-only listing's keys (rowid range, optional exact UTC filter), read newest
/// date first and ordered by `crate::query::newest_in_range`.
pub fn window_sql(ts_filter: bool) -> &'static str {
    if ts_filter { crate::query::WINDOW_TS_SQL } else { crate::query::WINDOW_SQL }
}
