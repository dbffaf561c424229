//! Keyword search over the FTS5 index: query building from segmented terms, the one ranking of
//! recall and retrieve, and `recall` (dsh-memory-layers v1.2 `mem_recall`).
//!
//! ## Ranking: one documented score for `recall` and `retrieve`
//!
//! Min-max fusion, with recency as a small weighted term (time itself is a pre-filter, never a
//! ranking term: docs/time-expressions.md, "Why time is a gate, not a ranking term"):
//!
//! ```text
//! candidates = the top K = max(50, 5 × limit) entries by BM25
//!              (r = -BM25 with FTS5's formula: content weighted 1, tag 2; computed by
//!              memlayers, equal to FTS5's bm25(), see `fts5::bm25`)
//!              among the matches — or, when more than MAX_SCORED = 500 entries match,
//!              among the newest 500 matches (bounded work for frequent terms)
//! text       = (r - r_min) / (r_max - r_min) over the candidates   (min-max normalisation;
//!              1 for every candidate when r_max = r_min)
//! score      = text
//!            + W_usage   × weight / 100     weight: the plugin's usage weight 0–100 (50 never hit)
//!            + W_recent  × recent           recent: 1 if written ≤ 30 days ago, 1/3 if ≤ 90 days,
//!                                           else 0 (the plugin's +3 / +1 recency bonus)
//!            + W_recency × exp(-Δt / τ)     only with config recencyTauDays = τ, and only
//!                                           for queries without a time window
//! ties       → newest first (timestamp, then id)
//! ```
//!
//! Defaults `W_usage = 0.1`, `W_recent = 0.1`, `W_recency = 0.1` ([`RankWeights`]), picked by
//! measurement on the labelled question set (docs/ranking.md, "Measured on a labelled question
//! set"). Every term is
//! bounded, so the best candidate scores at least 1 (scores are never all zero), a memory hit
//! often outranks an equally matching one never hit, equal text goes newest first, and a text
//! match stronger by more than `W_usage + W_recent + W_recency` of the candidates' BM25 spread
//! always wins.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::fts5::bm25;
use crate::fts5::segment::Probe;
use crate::layers::usage::ops::weights_on;
use crate::query::Reader;
use crate::query::{Item, check_range};
use crate::{Error, Result};

pub(crate) use crate::fts5::query::check_query_length;
pub use crate::fts5::query::{MAX_PROBES, MAX_QUERY_CHARS, Mode, Query};

/// Ranked hits with their score parts, the number of matching entries, and the SQL that
/// found the candidates (for `explain`).
pub type Searched = (Vec<(Item, ScoreParts)>, i64, String);

/// Per-hit score parts, for `explain`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreParts {
    /// Entry id.
    pub id: i64,
    /// Raw FTS5 `bm25()` (negative; smaller is better); 0 for window-only listings.
    pub bm25: f64,
    /// BM25 min-max normalised over the candidates, 0–1.
    pub text: f64,
    /// Usage weight 0–100.
    pub weight: f64,
    /// The plugin's recency bonus as a fraction: 1 (≤ 30 days), 1/3 (≤ 90 days) or 0.
    pub recent: f64,
    /// The optional `exp(-Δt/τ)` term (`recencyTauDays`, queries without a window), else 0.
    pub recency: f64,
    /// Final score (module docs).
    pub score: f64,
}

pub use crate::config::RankWeights;

/// Options of a ranked search.
#[derive(Debug, Clone)]
pub struct RankOpts {
    /// Inclusive rowid range (a local-date window), or none.
    pub range: Option<(i64, i64)>,
    /// Exact UTC filter `[start, end)` as entry timestamps (`format_ts`), or none.
    pub ts: Option<(String, String)>,
    /// Results wanted.
    pub limit: usize,
    /// Reference instant for the recency terms.
    pub now: DateTime<Utc>,
    /// τ in days of the `exp(-Δt/τ)` term, or none.
    pub tau_days: Option<f64>,
    /// Weights of the bounded terms.
    pub weights: RankWeights,
    /// Number of entries matching (within the window): above [`MAX_SCORED`], only the newest
    /// `MAX_SCORED` are scored.
    pub matched: i64,
    /// Report each hit's BM25 exactly (`explain`). Otherwise a query of one phrase skips its
    /// document frequency: the IDF is then a common positive factor of every candidate's BM25,
    /// which neither the order nor the min-max normalised text score depends on, and counting
    /// a frequent word's rows is most of such a query's cost in a one-call process.
    pub exact_bm25: bool,
}

impl RankOpts {
    /// True when the matches are too many to score them all ([`MAX_SCORED`]).
    pub fn capped(&self) -> bool {
        self.matched > MAX_SCORED as i64
    }
}

/// Most matching entries one query scores with BM25 (memlayers; the plugin scans every file).
/// When more entries match (a frequent word such as `今天` matches 146 000 of a million), BM25
/// ranks the newest `MAX_SCORED` matches only, and `matched` stays the exact count. FTS5
/// computes `bm25()` row by row, reading each row's size record, so scoring every match cost
/// 100–260 ms at 1M entries. Measured with the `sqlite3` shell, one
/// process per query as the CLI runs, at 1M entries: a word with 3 923 matches took 6.0 ms
/// with 2 000 scored, 4.2 ms with 1 000, 2.9 ms with 500, against 1.2 ms for the shell's own
/// start. 500 is ten times the default candidate set (50) and twice the largest (250, for
/// `limit` 50); the newest matches are the ones the score's recency bonus favours, and a word
/// that matches this often barely separates entries by BM25 (its IDF is near zero).
pub const MAX_SCORED: usize = 500;

/// Size of the candidate set for `limit` results: `max(50, 5 × limit)` (module docs).
pub fn candidates(limit: usize) -> usize {
    (limit * 5).max(50)
}

/// The instant of an `entry_rows` row in ms since 1970 (migration V8: `ts_off` counts from
/// 00:00 UTC of the id's date), as SQL.
const ROW_TS_MS: &str = "(((r.id >> 20) - 719163) * 86400000 + r.ts_off)";

/// The SQL of the candidate rows: the matches, newest first, at most [`MAX_SCORED`], each
/// gathered by `ml_collect` ([`crate::fts5::aux_fn`]; the statement returns one row, a 0,
/// and the counts wait in the thread's buffer): the rowid and each phrase's instances
/// per column, from the position lists FTS5 decoded to match the row (each row's token count
/// comes from `entry_lens`, [`crate::fts5::lens`], read per day). The entries' texts are not
/// read here: only the top K by BM25 need theirs ([`ranked`]). The window (if any) is a rowid
/// constraint inside the FTS5
/// query (FTS5 walks its doclists in rowid order from the window's end and stops at the cap),
/// and an exact UTC filter (if any, in ms since 1970, on `entry_rows`' instant) applies before
/// the cap. No `bm25()`: its IDF counts every match of each phrase in the whole index;
/// memlayers memoises those counts and scores the rows itself ([`crate::fts5::bm25`]).
/// Parameters: `?1` MATCH, `?2` the cap, `?3`/`?4` rowid range, `?5`/`?6` the UTC filter's
/// bounds.
pub fn ranked_sql(windowed: bool, ts_filter: bool) -> String {
    ranked_sql_in(windowed, ts_filter, false)
}

/// [`ranked_sql`], walking the matches oldest first when `ascending` (same parameters; the
/// cap then takes the oldest, so the search uses it only where it can tell that every
/// match was read).
pub fn ranked_sql_in(windowed: bool, ts_filter: bool, ascending: bool) -> String {
    let order = if ascending { "ASC" } else { "DESC" };
    let window = if windowed { " AND f.rowid BETWEEN ?3 AND ?4" } else { "" };
    let (join, ts) = if ts_filter {
        (" JOIN entry_rows r ON r.id = f.rowid", format!(" AND {ROW_TS_MS} >= ?5 AND {ROW_TS_MS} < ?6"))
    } else {
        ("", String::new())
    };
    format!(
        "SELECT count(*) FROM (SELECT {}(entries_fts) AS x FROM entries_fts f{join} \
         WHERE f.entries_fts MATCH ?1{window}{ts} ORDER BY f.rowid {order} LIMIT ?2) WHERE x = 0",
        crate::fts5::aux_fn::COLLECT_FN
    )
}

/// The tag of each candidate row: `entry_rows.tag` when the row spells it otherwise, else the
/// `tags` row of its `tag_id` (migration V8), looked up once per distinct id and query. A join
/// with `tags` cost one b-tree descent per candidate row, up to [`MAX_SCORED`] per query, for
/// the few tags an archive has.
#[derive(Debug, Default)]
struct TagNames {
    /// `(tags.id, tags.tag)` seen so far: a linear search, as a query meets a few dozen tags at
    /// most (a hash of the id cost more than the search).
    names: Vec<(i64, String)>,
}

impl TagNames {
    /// The tag of a row whose `tag` column is `own` and `tag_id` column is `id`.
    fn get<'a>(&'a mut self, c: &Connection, own: Option<&'a str>, id: i64) -> Result<&'a str> {
        if let Some(t) = own {
            return Ok(t);
        }
        let at = match self.names.iter().position(|(k, _)| *k == id) {
            Some(at) => at,
            None => {
                let t: String =
                    c.prepare_cached("SELECT tag FROM tags WHERE id = ?1")?.query_row([id], |r| r.get(0))?;
                self.names.push((id, t));
                self.names.len() - 1
            }
        };
        Ok(&self.names[at].1)
    }
}

/// Column `i` of `r` as text or NULL, borrowed (SQLite's own buffer, checked to be UTF-8).
fn opt_text<'a>(r: &'a rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<&'a str>> {
    Ok(r.get_ref(i)?.as_str_or_null()?)
}

/// Most entries of a window read and matched in Rust instead of through FTS5, for a query
/// with a prefix probe the index cannot expand into a few terms ([`crate::fts5::prefix`];
/// `今` is `"今"*`, which FTS5 answers by merging the doclists of every token starting with
/// 今 over the whole index before the window applies, ~10 ms at 1M entries).
/// Reading one entry row and counting its characters ([`bm25::Counter`]) costs well under a
/// microsecond: a month at 1M entries (~9 000 rows) is then cheaper than the merge. Also the
/// most rows an unwindowed query with such a probe reads newest first to collect its
/// [`MAX_SCORED`] candidates.
pub const WINDOW_SCAN_ROWS: i64 = 12_000;

/// Counts the entries matching `fts` (within `range` and the exact UTC filter `ts`).
pub fn count_matches(
    c: &Connection,
    fts: &str,
    range: Option<(i64, i64)>,
    ts: Option<&(String, String)>,
) -> Result<i64> {
    Ok(match (range, ts) {
        (Some((lo, hi)), Some((a, b))) => c.query_row(
            &format!(
                "SELECT count(*) FROM entries_fts JOIN entries x ON x.id = entries_fts.rowid \
                 WHERE entries_fts MATCH ?1 AND entries_fts.rowid BETWEEN ?2 AND ?3{}",
                crate::query::ts_filter_sql("x", 4, 5)
            ),
            params![fts, lo, hi, a, b],
            |r| r.get(0),
        )?,
        (Some((lo, hi)), None) => c.query_row(
            "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3",
            params![fts, lo, hi],
            |r| r.get(0),
        )?,
        _ => c.query_row("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1", [fts], |r| r.get(0))?,
    })
}

/// The plugin's recency bonus as a fraction of its +3: 1 within 30 days, 1/3 within 90, else 0
/// (dsh-memory-layers v1.2 `mem_recall`: "30 天内 +3、90 天内 +1").
pub fn recent_bonus(age_days: f64) -> f64 {
    if age_days <= 30.0 {
        1.0
    } else if age_days <= 90.0 {
        1.0 / 3.0
    } else {
        0.0
    }
}

/// A top candidate before its row is read whole: what the score needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Entry id.
    pub id: i64,
    /// The entry's instant.
    pub ts: DateTime<Utc>,
    /// The entry's text (its usage key is derived from it).
    pub content: String,
    /// Weighted instance count of each phrase of the query ([`Candidate::f`]).
    pub f: PhraseCounts,
}

impl crate::layers::usage::ops::Hit for Scored {
    fn content(&self) -> &str {
        &self.content
    }
}

/// Scores candidates (`(candidate, bm25)`) with the one documented score (module docs) and
/// sorts them best first, ties newest first. `usage` holds each candidate's usage weight
/// 0–100; `range` is the lowest and highest `r = −BM25` of the whole candidate set, which the
/// text term is min-max normalised over ([`text_range`]).
pub fn score_candidates(
    rows: Vec<(Scored, f64)>,
    usage: &[f64],
    now: DateTime<Utc>,
    tau_days: Option<f64>,
    w: RankWeights,
    range: (f64, f64),
) -> Vec<(Scored, ScoreParts)> {
    let mut scored: Vec<(Scored, ScoreParts)> = rows
        .into_iter()
        .zip(usage)
        .map(|((item, bm25), &weight)| {
            let text = text_term(bm25, range);
            let age_days = (now - item.ts).num_seconds() as f64 / 86_400.0;
            let recent = recent_bonus(age_days);
            let recency = tau_days.map(|tau| (-age_days.max(0.0) / tau).exp()).unwrap_or(0.0);
            let score = text + w.usage * weight / 100.0 + w.recent * recent + w.recency * recency;
            let parts = ScoreParts { id: item.id, bm25, text, weight, recent, recency, score };
            (item, parts)
        })
        .collect();
    scored.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| b.0.ts.cmp(&a.0.ts)).then(b.0.id.cmp(&a.0.id)));
    scored
}

/// The lowest and highest `r = −BM25` of a candidate set (`bm25`: the sets' BM25 values); the
/// empty set gives `(+∞, −∞)`.
pub fn text_range(bm25: impl Iterator<Item = f64>) -> (f64, f64) {
    bm25.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), b| (l.min(-b), h.max(-b)))
}

/// The text term of a candidate with BM25 `bm25`: `(r − r_min) / (r_max − r_min)` with
/// `r = −bm25` over `range` ([`text_range`]), 1 when the range is one value.
pub fn text_term(bm25: f64, (lo, hi): (f64, f64)) -> f64 {
    if hi > lo { (-bm25 - lo) / (hi - lo) } else { 1.0 }
}

/// The most the bounded terms of the score can add to a candidate's text term: `W_usage`
/// (weight ≤ 100, [`crate::layers::usage::MAX_WEIGHT`]) + `W_recent` (bonus ≤ 1) + `W_recency`
/// (only with a recency time constant; `exp(−Δt/τ)` ≤ 1 for Δt ≥ 0). Config keeps each
/// weight in 0–10.
pub fn bonus_bound(w: RankWeights, tau_days: Option<f64>) -> f64 {
    w.usage.max(0.0) + w.recent.max(0.0) + if tau_days.is_some() { w.recency.max(0.0) } else { 0.0 }
}

/// The weighted instance count of each phrase of a query, in [`bm25::phrases`] order: inline
/// up to four phrases (a query rarely has more), so a candidate costs no allocation of its own
/// (the weeks of `今天` hold 433 candidates at 1M entries).
pub type PhraseCounts = smallvec::SmallVec<[f64; 4]>;

/// A candidate row: its id, what its BM25 needs, and what the rest of the score needs
/// (instant, text) when the pass that found it read the row anyway (the window scans): reading
/// the top K's rows again cost K more b-tree descents per query. Candidates from
/// FTS5's counts ([`ranked_sql`]) carry no row; [`ranked`] reads the rows it scores.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Entry id.
    pub id: i64,
    /// Weighted instance count of each phrase of the query ([`bm25::phrases`] order).
    pub f: PhraseCounts,
    /// Tokens of the entry, both columns.
    pub len: usize,
    /// The entry's UTC instant (ms since 1970) and text (without tag and source marker), when
    /// read.
    pub row: Option<(i64, String)>,
}

impl Candidate {
    /// The candidate `id` (instant `ts_ms`, text `content`) as `counter` last counted it.
    fn counted(id: i64, counter: &bm25::Counter, ts_ms: i64, content: &str) -> Candidate {
        Candidate {
            id,
            f: PhraseCounts::from_slice(&counter.f),
            len: counter.len,
            row: Some((ts_ms, content.to_string())),
        }
    }
}

/// Column `i` of `r` as bytes, borrowed (text not checked to be UTF-8).
fn bytes<'a>(r: &'a rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'a [u8]> {
    Ok(r.get_ref(i)?.as_bytes()?)
}

/// Column `i` of `r` as text, borrowed (no copy; SQLite's own buffer, checked to be UTF-8).
fn text<'a>(r: &'a rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'a str> {
    Ok(r.get_ref(i)?.as_str()?)
}

/// Runs a ranked search: the candidate rows (newest matches first, at most [`MAX_SCORED`])
/// scored with BM25 ([`crate::fts5::bm25`]), the top K = [`candidates`] of them read whole
/// and scored with the one documented score (module docs), top `limit`.
pub fn ranked(
    c: &Connection,
    q: &Query,
    counter: &bm25::Counter,
    rows: Vec<Candidate>,
    opts: &RankOpts,
    memo: &std::sync::Mutex<bm25::DfMemo>,
    weights: &dyn Fn(&[Scored]) -> Vec<f64>,
) -> Result<Vec<(Item, ScoreParts)>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let phrases = bm25::phrases(q);
    let totals = bm25::totals(c)?;
    let idf: Vec<f64> = if phrases.len() == 1 && !opts.exact_bm25 {
        vec![1.0]
    } else {
        let dfs = memo.lock().unwrap_or_else(|e| e.into_inner()).df(c, &phrases)?;
        dfs.iter().map(|&d| bm25::idf(totals.rows, d)).collect()
    };
    let avgdl = totals.avgdl();
    let scored: Vec<(Candidate, f64)> = rows
        .into_iter()
        .map(|r| {
            let b = bm25::score_counts(&r.f, r.len, &idf, avgdl);
            (r, b)
        })
        .collect();
    rank_scored(c, scored, opts, weights, &|f: &PhraseCounts, _: &Item| counter.terms_matched(f))
}

/// The rest of a ranked search, for candidates with their BM25 (negative, smaller is better,
/// whichever ranker computed it): the top K = [`candidates`] read whole and scored with the
/// one documented score (module docs), top `limit`. `terms_matched` gives each hit's
/// [`Item::matched`] from its candidate's phrase counts ([`Candidate::f`]) or its item.
pub(crate) fn rank_scored(
    c: &Connection,
    mut scored: Vec<(Candidate, f64)>,
    opts: &RankOpts,
    weights: &dyn Fn(&[Scored]) -> Vec<f64>,
    terms_matched: &dyn Fn(&PhraseCounts, &Item) -> usize,
) -> Result<Vec<(Item, ScoreParts)>> {
    // Best BM25 first; among equals the newest (a total order: ids are unique). Only the top
    // K are sorted: a selection first, as the weeks of `今天` hold 433 candidates at 1M
    // entries and sorting them all cost ~8 % of the query.
    let order = |a: &(Candidate, f64), b: &(Candidate, f64)| a.1.total_cmp(&b.1).then(b.0.id.cmp(&a.0.id));
    let k = candidates(opts.limit);
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
    }
    scored.sort_unstable_by(order);
    let range = text_range(scored.iter().map(|(_, b)| *b));
    // The score of a candidate is its text term plus at most `bonus` (bonus_bound), and the
    // list is in text order: the best `limit` are read and scored first; after them, only the
    // candidates whose text plus `bonus` reaches the `limit`-th score so far can still enter
    // the answer (Fagin's threshold algorithm), and only those are read. Same answer as
    // scoring all K: the others score below it. Usually a dozen rows are read, not K = 50
    // (each a row read and a usage lookup).
    let bonus = bonus_bound(opts.weights, opts.tau_days);
    let mut rest = scored.into_iter();
    let first: Vec<_> = rest.by_ref().take(opts.limit).collect();
    // The instant (ms), tag and source of each row read here, for the answer's items.
    let mut rest_of_row = std::collections::HashMap::new();
    let mut best = read_and_score(c, first, opts, weights, range, &mut rest_of_row)?;
    let kth = if best.len() >= opts.limit { best[opts.limit - 1].1.score } else { f64::NEG_INFINITY };
    // A margin of 1e-9 for rounding: a candidate that could tie the limit-th is read too.
    let more: Vec<_> = rest.take_while(|(_, b)| text_term(*b, range) + bonus + 1e-9 >= kth).collect();
    if !more.is_empty() {
        best.extend(read_and_score(c, more, opts, weights, range, &mut rest_of_row)?);
        best.sort_by(|a, b| {
            b.1.score.total_cmp(&a.1.score).then_with(|| b.0.ts.cmp(&a.0.ts)).then(b.0.id.cmp(&a.0.id))
        });
    }
    best.truncate(opts.limit);
    // Rows read above make their items at once; candidates a window scan found (their tag and
    // source not kept) are read whole.
    let unread: Vec<i64> = best.iter().map(|(s, _)| s.id).filter(|id| !rest_of_row.contains_key(id)).collect();
    let mut items = crate::query::items_by_id(c, &unread)?;
    // The terms each hit holds, from the counts it was scored with (`Query::matched` would
    // segment its text again).
    Ok(best
        .into_iter()
        .filter_map(|(mut s, parts)| {
            let f = std::mem::take(&mut s.f);
            let mut item = match rest_of_row.remove(&s.id) {
                Some((ts_ms, tag, source)) => {
                    let ts = DateTime::from_timestamp_millis(ts_ms);
                    crate::query::item_of(s.id, ts, tag, s.content, source.as_deref())
                }
                None => items.remove(&s.id)?,
            };
            item.matched = Some(terms_matched(&f, &item));
            Some((item, parts))
        })
        .collect())
}

/// What [`rows_by_id`] reads of an entry: its UTC instant (ms since 1970), content, tag and
/// source marker body.
struct RowRead {
    ts_ms: i64,
    content: String,
    tag: String,
    source: Option<String>,
}

/// Scores `batch` (candidates with their BM25) with the one documented score over the
/// candidate set's `range`: each candidate's instant and text kept from its row when a scan
/// read it, else read now ([`rows_by_id`], whose instant, tag and source go to `rest_of_row`
/// by id),
/// and its usage weight. A row deleted since it matched drops out. Best first.
fn read_and_score(
    c: &Connection,
    batch: Vec<(Candidate, f64)>,
    opts: &RankOpts,
    weights: &dyn Fn(&[Scored]) -> Vec<f64>,
    range: (f64, f64),
    rest_of_row: &mut std::collections::HashMap<i64, (i64, String, Option<String>)>,
) -> Result<Vec<(Scored, ScoreParts)>> {
    let unread: Vec<i64> = batch.iter().filter(|(r, _)| r.row.is_none()).map(|(r, _)| r.id).collect();
    let mut read = rows_by_id(c, &unread)?;
    let (mut top, mut bm) = (Vec::with_capacity(batch.len()), Vec::with_capacity(batch.len()));
    for (r, b) in batch {
        let row = r.row.or_else(|| {
            let row = read.remove(&r.id)?;
            rest_of_row.insert(r.id, (row.ts_ms, row.tag, row.source));
            Some((row.ts_ms, row.content))
        });
        let Some((ts_ms, content)) = row else { continue };
        // Out of chrono's range (never written by memlayers): as old as can be, no bonus.
        let ts = DateTime::from_timestamp_millis(ts_ms).unwrap_or(DateTime::<Utc>::MIN_UTC);
        top.push(Scored { id: r.id, ts, content, f: r.f });
        bm.push(b);
    }
    let usage = weights(&top);
    Ok(score_candidates(top.into_iter().zip(bm).collect(), &usage, opts.now, opts.tau_days, opts.weights, range))
}

/// The instant, text, tag and source of the entries `ids`, by id; ids with no row are left
/// out. One rowid lookup each through one cached statement: cheaper than one statement over a
/// `json_each` list of the ids (~5 000 instructions a row at K = 50). The tag and
/// source make the answer's items without reading the rows again (`items_by_id`, ~10 000
/// instructions an answer).
fn rows_by_id(c: &Connection, ids: &[i64]) -> Result<std::collections::HashMap<i64, RowRead>> {
    let mut out = std::collections::HashMap::with_capacity(ids.len());
    if ids.is_empty() {
        return Ok(out);
    }
    let mut st = c.prepare_cached(&format!(
        "SELECT {ROW_TS_MS}, r.content, coalesce(r.tag, t.tag), r.source FROM entry_rows r \
         JOIN tags t ON t.id = r.tag_id WHERE r.id = ?1"
    ))?;
    for &id in ids {
        let row = st
            .query_row([id], |r| {
                Ok(RowRead { ts_ms: r.get(0)?, content: r.get(1)?, tag: r.get(2)?, source: r.get(3)? })
            })
            .optional()?;
        if let Some(row) = row {
            out.insert(id, row);
        }
    }
    Ok(out)
}

/// Windows of fewer local dates than this (a day, a week) are walked oldest first wherever
/// they lie ([`ranked_sql_in`] with `ascending`), falling back to newest first only when the
/// cap is reached. FTS5 steps backwards through a doclist index by scanning each of its pages
/// again from the start (fts5_index.c, `fts5DlidxLvlPrev`) and sets up a reversed leaf page
/// per page read (`fts5SegIterReverseInitPage`): ~190 000 instructions to reach a week of
/// `今天` (146 000 matches at 1M entries) from the newest end, where the forward steps from the
/// oldest end cost ~90 instructions a leaf page. A day or a week rarely holds
/// [`MAX_SCORED`] matches (a week of `今天`: at most 433), so the second walk is rare; a longer
/// window often does, and is walked from the nearer end.
pub const ASCENDING_DAYS: i64 = 8;

/// The candidate rows through FTS5 ([`ranked_sql`]), with the BM25 counts FTS5 gives for each
/// (`phrase_of`: [`bm25::Expanded::phrase_of`] of `fts`; `phrases`: how many phrases
/// [`bm25::phrases`] has).
fn fts_candidates(
    c: &Connection,
    (fts, phrase_of): (&str, &[usize]),
    phrases: usize,
    range: Option<(i64, i64)>,
    ts_ms: Option<(i64, i64)>,
) -> Result<(Vec<Candidate>, String)> {
    // FTS5 finds a rowid bound by stepping its doclist index one leaf page at a time from the
    // doclist's end in the direction of the walk (fts5_index.c, `fts5SegIterNextFrom`): a day
    // five years back cost `今天` ~200 000 instructions of that stepping from the newest end.
    // A window in the older half of the index is walked oldest first, from the other end; the
    // cap (the newest MAX_SCORED) then needs every match read: when the cap is reached, the
    // window is walked again newest first.
    if let Some((lo, hi)) = range
        && ((hi >> 20) - (lo >> 20) < ASCENDING_DAYS || older_half(c, lo, hi)?)
    {
        let sql = ranked_sql_in(true, ts_ms.is_some(), true);
        let rows = candidates_by(c, &sql, (fts, phrase_of), phrases, range, ts_ms)?;
        if rows.len() < MAX_SCORED {
            return Ok((rows, sql));
        }
    }
    let sql = ranked_sql(range.is_some(), ts_ms.is_some());
    Ok((candidates_by(c, &sql, (fts, phrase_of), phrases, range, ts_ms)?, sql))
}

/// True when the rowid window `lo..=hi` starts nearer the index's oldest entry than it ends
/// before its newest (entry ids order by local date, so this compares the days an oldest-first
/// and a newest-first walk must skip to reach the window).
fn older_half(c: &Connection, lo: i64, hi: i64) -> Result<bool> {
    let (first, last): (Option<i64>, Option<i64>) = c
        .prepare_cached("SELECT (SELECT min(id) FROM entry_rows), (SELECT max(id) FROM entry_rows)")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(match (first, last) {
        (Some(first), Some(last)) => lo.saturating_sub(first) < last.saturating_sub(hi),
        _ => false,
    })
}

/// The candidates `sql` ([`ranked_sql_in`]) gives, with the BM25 counts FTS5 gives for each.
fn candidates_by(
    c: &Connection,
    sql: &str,
    (fts, phrase_of): (&str, &[usize]),
    phrases: usize,
    range: Option<(i64, i64)>,
    ts_ms: Option<(i64, i64)>,
) -> Result<Vec<Candidate>> {
    let mut st = c.prepare_cached(sql)?;
    let cap = MAX_SCORED as i64;
    let (lo, hi) = range.map_or((None, None), |(a, b)| (Some(a), Some(b)));
    let (a, b) = ts_ms.map_or((None, None), |(a, b)| (Some(a), Some(b)));
    // Every statement numbers its parameters ?1..?6 in this order; a statement binds the first
    // ones up to the highest it names (unused ones in between are NULL).
    let all: [&dyn rusqlite::ToSql; 6] = [&fts, &cap, &lo, &hi, &a, &b];
    let n = st.parameter_count();
    crate::fts5::aux_fn::clear_collected();
    // The function returns 1 for every match, so the outer `x = 0` passes none: one step,
    // no aggregate step per match; the counts are in this thread's buffer.
    let none: i64 = st.query_row(&all[..n], |r| r.get(0))?;
    collected_candidates(c, (fts, phrase_of), phrases, none)
}

/// The candidates [`crate::fts5::aux_fn::COLLECT_FN`] gathered on this thread for a statement
/// over `fts` that has just run and counted `none` rows without counts (its `x = 0` rows:
/// none expected), with each row's token count ([`crate::fts5::lens`]). Errors: rows without
/// counts, or counts that do not fit `fts`'s phrases.
fn collected_candidates(
    c: &Connection,
    (fts, phrase_of): (&str, &[usize]),
    phrases: usize,
    none: i64,
) -> Result<Vec<Candidate>> {
    let misfit = |what: String| {
        let why = format!("{}: {what} do not fit {fts:?}", crate::fts5::aux_fn::COLLECT_FN);
        Error::from(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_MISMATCH),
            Some(why),
        ))
    };
    if none != 0 {
        crate::fts5::aux_fn::clear_collected();
        return Err(misfit(format!("{none} rows without counts")));
    }
    crate::fts5::aux_fn::collected(|words| {
        let rows = crate::fts5::aux_fn::rows(words, phrase_of.len())
            .ok_or_else(|| misfit(format!("{} words", words.len())))?;
        let mut out = Vec::with_capacity(MAX_SCORED.min(words.len()));
        let mut f = vec![0.0; phrases];
        let mut lens = crate::fts5::lens::DayLens::default();
        for (id, counts) in rows {
            bm25::fold_counts(counts, phrase_of, &mut f).ok_or_else(|| misfit(format!("the counts of entry {id}")))?;
            let len = match lens.get(c, id)? {
                Some(n) => n,
                None => tokens_in_text(c, id)?,
            };
            out.push(Candidate { id, f: PhraseCounts::from_slice(&f), len, row: None });
        }
        Ok(out)
    })
}

/// The token count of entry `id` counted from its text (tag and content, as FTS5 stores them),
/// for an entry whose count `entry_lens` does not hold ([`crate::fts5::lens::at`]); 0 when
/// the row is gone.
fn tokens_in_text(c: &Connection, id: i64) -> Result<usize> {
    let row: Option<(String, String)> = c
        .prepare_cached("SELECT tag, content FROM entries WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(row.map_or(0, |(tag, content)| {
        let seg = crate::fts5::segment::segment;
        crate::fts5::lens::tokens_of(&seg(&tag), &seg(&content))
    }))
}

/// The statement a one-character query of many terms in a large window runs once per term
/// (`?1` the term, `?2`/`?3` the rowid window); each match's row is then read by id and counted
/// in Rust. `explain` shows it.
pub const TERM_UNION_SQL: &str = "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3";

/// The matches of the terms `terms` (the expansion of a query's one prefix probe) in the
/// rowid range `lo..=hi`, as [`fts_candidates`] gives them (the newest [`MAX_SCORED`],
/// counted), and their number: each term's rowids in the window (an FTS5 seek each), merged.
fn term_union(
    c: &Connection,
    counter: &mut bm25::Counter,
    terms: &[String],
    (lo, hi): (i64, i64),
) -> Result<(Vec<Candidate>, i64)> {
    let mut ids: Vec<i64> = Vec::new();
    let mut st = c.prepare_cached(TERM_UNION_SQL)?;
    for t in terms {
        for id in st.query_map(params![bm25::quoted(t), lo, hi], |r| r.get(0))? {
            ids.push(id?);
        }
    }
    ids.sort_unstable();
    ids.dedup();
    let mut row =
        c.prepare_cached(&format!("SELECT r.tag, r.tag_id, r.content, {ROW_TS_MS} FROM entry_rows r WHERE r.id = ?1"))?;
    let mut out = Vec::with_capacity(ids.len().min(MAX_SCORED));
    let mut tags = TagNames::default();
    for &id in ids.iter().rev().take(MAX_SCORED) {
        let mut rows = row.query([id])?;
        if let Some(r) = rows.next()? {
            let content = text(r, 2)?;
            counter.count(tags.get(c, opt_text(r, 0)?, r.get(1)?)?, content);
            out.push(Candidate::counted(id, counter, r.get(3)?, content));
        }
    }
    Ok((out, ids.len() as i64))
}

/// The statement that finds, through FTS5, the matches among a run of entries admitted by
/// their event windows (`admitted_by_runs`), gathering each one's counts as
/// [`ranked_sql`] does: `?1` MATCH, `?2`/`?3` the run's lowest and highest id, `?4` its ids as
/// a JSON array. FTS5 walks the query's matches between `?2` and `?3` (one seek, then its
/// doclists in rowid order); the `IN` keeps those among the run's ids, whose counts
/// `ml_collect` gathers. The `+` keeps the `IN` from FTS5, which would run the whole query
/// once per id (a seek each: 2.9–5.9 ms for a week's ids at 1M entries, against 0.1–0.4 ms
/// for the walk); `LIMIT -1` keeps SQLite from flattening the subquery into the count, so
/// `ml_collect` runs on the admitted rows only.
pub fn admitted_sql() -> String {
    format!(
        "SELECT count(*) FROM (SELECT {}(entries_fts) AS x FROM entries_fts f \
         WHERE f.entries_fts MATCH ?1 AND f.rowid BETWEEN ?2 AND ?3 AND +f.rowid IN (SELECT value FROM json_each(?4)) \
         ORDER BY f.rowid LIMIT -1) WHERE x = 0",
        crate::fts5::aux_fn::COLLECT_FN
    )
}

/// What starting one more statement of [`admitted_sql`] costs (FTS5 parses the expression and
/// seeks each phrase's doclist to the run's first id), in matches walked: a run's statement
/// costs this plus the matches it walks. Measured with `lib-loop` at 1M entries
/// (docs/benchmarks.md): ~15–20 µs a statement, ~0.1 µs a match walked (the `IN` test
/// included).
const RUN_START_MATCHES: f64 = 160.0;

/// What reading an admitted entry by id and matching it in Rust ([`admitted_candidates`])
/// costs, in matches walked by [`admitted_sql`]: ~2.4 µs an entry at 1M entries (a b-tree
/// descent to a row of its own page, the byte pre-filter, the count of a match's text),
/// measured as [`RUN_START_MATCHES`].
const READ_MATCHES: f64 = 24.0;

/// The matches of the query among the entries `ids` (ascending: those a time gate admits by
/// their event windows), as [`fts_candidates`] gives a window's, and their number; ids without
/// a row (deleted since) match nothing. `per_day` is how many entries a day the query matches
/// around them (estimated from the window's own matches). The ids are cut into runs where the
/// days between two of them hold more matches than a statement's start costs
/// ([`RUN_START_MATCHES`]); a run whose walk costs less than reading its entries by id
/// ([`READ_MATCHES`] each) is found through FTS5 ([`admitted_sql`]), the others are read and
/// counted in Rust ([`admitted_candidates`]), which count the same (docs/ranking.md): the
/// entries a window admits by event window were mostly written within two weeks of it (昨天,
/// 上周, 下周三), a walk over those days of a frequent word (`今天`, 40 matches a day at 1M
/// entries) costs a tenth of reading them, and an entry far from the others (an absolute date
/// written months apart) is cheaper read alone.
fn admitted_by_runs(
    c: &Connection,
    q: &Query,
    counter: &mut bm25::Counter,
    (fts, phrase_of): (&str, &[usize]),
    ids: &[i64],
    per_day: f64,
) -> Result<(Vec<Candidate>, i64)> {
    let day = |id: i64| id >> crate::files::ORDINAL_BITS;
    let mut out = Vec::new();
    let mut by_id = Vec::new();
    for run in ids.chunk_by(|a, b| (day(*b) - day(*a) - 1) as f64 * per_day <= RUN_START_MATCHES) {
        let walk = (day(run[run.len() - 1]) - day(run[0]) + 1) as f64 * per_day;
        if RUN_START_MATCHES + walk > READ_MATCHES * run.len() as f64 {
            by_id.extend_from_slice(run);
            continue;
        }
        out.extend(admitted_through_fts(c, (fts, phrase_of), counter.phrases().len(), run)?);
    }
    if !by_id.is_empty() {
        out.extend(admitted_candidates(c, q, counter, &by_id)?.0);
    }
    let n = out.len() as i64;
    Ok((out, n))
}

/// The matches among the entries `run` (ascending) through FTS5 ([`admitted_sql`]),
/// with the counts FTS5 gives for each, as [`fts_candidates`] gives a window's (`phrase_of`
/// and `phrases` as there). Errors: SQLite's, or counts that do not fit `fts`.
fn admitted_through_fts(
    c: &Connection,
    (fts, phrase_of): (&str, &[usize]),
    phrases: usize,
    run: &[i64],
) -> Result<Vec<Candidate>> {
    let (Some(&first), Some(&last)) = (run.first(), run.last()) else { return Ok(Vec::new()) };
    let mut json = String::with_capacity(16 * run.len() + 2);
    json.push('[');
    for (i, id) in run.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&id.to_string());
    }
    json.push(']');
    let mut st = c.prepare_cached(&admitted_sql())?;
    crate::fts5::aux_fn::clear_collected();
    let none: i64 = st.query_row(params![fts, first, last, json], |r| r.get(0))?;
    collected_candidates(c, (fts, phrase_of), phrases, none)
}

/// The statement that reads an entry admitted by its event windows (`admitted_candidates`),
/// once per id: its tag, tag id, text and instant (ms since 1970).
pub const ADMITTED_ROW_SQL: &str = "SELECT r.tag, r.tag_id, r.content, \
     (((r.id >> 20) - 719163) * 86400000 + r.ts_off) FROM entry_rows r WHERE r.id = ?1";

/// The matches of `q` among the entries `ids` (those a time gate admits by their event
/// windows, [`crate::index::events`]), newest first, each row read by id and matched and
/// counted in Rust as a window scan does ([`scan_candidates`]: the byte pre-filter, then
/// [`bm25::Counter`], which counts what FTS5 would), and their number. Ids without a row
/// (deleted since) are skipped.
fn admitted_candidates(
    c: &Connection,
    q: &Query,
    counter: &mut bm25::Counter,
    ids: &[i64],
) -> Result<(Vec<Candidate>, i64)> {
    let mut st = c.prepare_cached(ADMITTED_ROW_SQL)?;
    let pre = bm25::Prefilter::new(q);
    let mut tags = TagNames::default();
    let mut out = Vec::new();
    for &id in ids.iter().rev() {
        let mut rows = st.query([id])?;
        let Some(r) = rows.next()? else { continue };
        let tag = tags.get(c, opt_text(r, 0)?, r.get(1)?)?;
        if !pre.may_match(tag.as_bytes(), bytes(r, 2)?) {
            continue;
        }
        let content = text(r, 2)?;
        counter.count(tag, content);
        if counter.matches() {
            out.push(Candidate::counted(id, counter, r.get(3)?, content));
        }
    }
    let n = out.len() as i64;
    Ok((out, n))
}

/// The SQL of a scan ([`WINDOW_SCAN_ROWS`]): entry rows newest first as `id, tag, content, ts_ms`,
/// each then matched and scored in Rust. Parameters: `?1`/`?2` rowid range, `?3`/`?4` the
/// UTC filter's bounds (ms since 1970).
pub fn scan_sql(ts_filter: bool) -> String {
    let ts = if ts_filter { format!(" AND {ROW_TS_MS} >= ?3 AND {ROW_TS_MS} < ?4") } else { String::new() };
    format!(
        "SELECT r.id, r.tag, r.tag_id, r.content, {ROW_TS_MS} FROM entry_rows r \
         WHERE r.id BETWEEN ?1 AND ?2{ts} ORDER BY r.id DESC"
    )
}

/// The matches of `q` among the entry rows of `lo..=hi`, read newest first and matched in
/// Rust (see [`WINDOW_SCAN_ROWS`]), with the number of rows read. Stops after `want` matches
/// or `budget` rows, whichever comes first.
fn scan_candidates(
    c: &Connection,
    q: &Query,
    counter: &mut bm25::Counter,
    (lo, hi): (i64, i64),
    ts_ms: Option<(i64, i64)>,
    want: usize,
    budget: i64,
) -> Result<(Vec<Candidate>, i64)> {
    let mut out = Vec::new();
    let mut st = c.prepare_cached(&scan_sql(ts_ms.is_some()))?;
    let (a, b) = ts_ms.map_or((None, None), |(a, b)| (Some(a), Some(b)));
    let all: [&dyn rusqlite::ToSql; 4] = [&lo, &hi, &a, &b];
    let n = st.parameter_count();
    let mut rows = st.query(&all[..n])?;
    let pre = bm25::Prefilter::new(q);
    let mut read = 0i64;
    let mut tags = TagNames::default();
    while let Some(r) = rows.next()? {
        if out.len() >= want || read >= budget {
            break;
        }
        read += 1;
        // The pre-filter on the bytes; the text is checked to be UTF-8 only when it passes.
        let tag_id: i64 = r.get(2)?;
        let own = opt_text(r, 1)?;
        let tag = tags.get(c, own, tag_id)?;
        let content = bytes(r, 3)?;
        if !pre.may_match(tag.as_bytes(), content) {
            continue;
        }
        let content = text(r, 3)?;
        counter.count(tag, content);
        if counter.matches() {
            out.push(Candidate::counted(r.get(0)?, counter, r.get(4)?, content));
        }
    }
    Ok((out, read))
}

/// Result of `recall` (plugin field names).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallResult {
    /// and / or / any.
    pub mode: Mode,
    /// The terms searched.
    pub tokens: Vec<String>,
    /// The FTS5 probes of all terms (`"翻唱"`, `"rust"*`).
    pub probes: Vec<String>,
    /// Day files in the index.
    pub scanned_files: i64,
    /// Entries in the index.
    pub scanned_entries: i64,
    /// Entries matching.
    pub matched: i64,
    /// Entries returned.
    pub returned: usize,
    /// Best first.
    pub items: Vec<Item>,
    /// True when the index is behind the files (an import or rebuild is under way in another
    /// process): the answer is from the index's last consistent state, maybe not whole.
    /// Omitted when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

/// Rounds a score for output (4 decimals).
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Totals of the whole index: (files, entries).
pub fn index_totals(c: &Connection) -> Result<(i64, i64)> {
    Ok(c.query_row("SELECT count(*), coalesce(sum(entries), 0) FROM files", [], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

impl Reader<'_> {
    /// `mem_recall(keyword, limit=10, mode="and")` over every month. Terms are separated by
    /// whitespace; a term matches when all its probes occur in the content or tag (see
    /// `segment::term_probes`). `limit` 1–50; `mode` defaults to [`Mode::And`]. Errors name
    /// `keyword` (nothing to search, more than [`MAX_QUERY_CHARS`] code points or
    /// [`MAX_PROBES`] probes) or `limit`.
    pub fn recall(&self, keyword: &str, limit: Option<i64>, mode: Option<Mode>) -> Result<RecallResult> {
        let limit = check_range("limit", limit.unwrap_or(10), 1, 50)? as usize;
        self.recall_checked(keyword, limit, mode.unwrap_or(Mode::And))
    }

    /// [`Reader::recall`] with the mode as a name (`and` / `or` / `any`, [`Mode::parse`]),
    /// checked after the limit: the order of the plugin's errors. Errors name `keyword`,
    /// `limit` or `mode`.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the CLI
    pub(crate) fn recall_named(&self, keyword: &str, limit: Option<i64>, mode: Option<&str>) -> Result<RecallResult> {
        let limit = check_range("limit", limit.unwrap_or(10), 1, 50)? as usize;
        self.recall_checked(keyword, limit, Mode::parse(mode)?)
    }

    fn recall_checked(&self, keyword: &str, limit: usize, mode: Mode) -> Result<RecallResult> {
        check_query_length("keyword", keyword)?;
        let q = Query::new(keyword, mode)?;
        let tau = self.config().recency_tau_days;
        let ((items, matched, (files, entries)), stale) = self.read_synced(|| {
            let (items, matched, _) = self.search(&q, None, None, limit, tau, false)?;
            Ok((items, matched, index_totals(&*self.conn()?)?))
        })?;
        let items: Vec<Item> = items.into_iter().map(|(i, _)| i).collect();
        Ok(RecallResult {
            stale,
            mode: q.mode,
            tokens: q.terms.clone(),
            probes: q.probes.iter().flatten().map(Probe::fts).collect(),
            scanned_files: files,
            scanned_entries: entries,
            matched,
            returned: items.len(),
            items,
        })
    }

    /// Ranked search shared by recall and retrieve: items with `score` and `matched` filled,
    /// their score parts, the number of matching entries, and the SQL that found the
    /// candidates (for `explain`). `exact_bm25`: see [`RankOpts::exact_bm25`].
    pub(crate) fn search(
        &self,
        q: &Query,
        range: Option<(i64, i64)>,
        ts: Option<(String, String)>,
        limit: usize,
        tau_days: Option<f64>,
        exact_bm25: bool,
    ) -> Result<Searched> {
        Ok(self.search_admitting(q, range, ts, &[], limit, tau_days, exact_bm25)?.0)
    }

    /// [`Reader::search`] of a time gate that also admits the entries `by_event` (ids outside
    /// `range`, ascending: those with an event window overlapping the window,
    /// [`crate::index::events`]): their matches are found through FTS5 in runs of nearby ids
    /// ([`admitted_by_runs`], [`admitted_sql`]), or, for ids far from the others and for a
    /// query with a prefix probe left as a prefix, read by id and counted in Rust as a window
    /// scan's are ([`admitted_candidates`]); the same candidates either way. They join the
    /// range's candidates before BM25 ranks them (the newest [`MAX_SCORED`] of both). Also
    /// returns how many of the matches are such entries.
    #[allow(clippy::too_many_arguments)] // the gate's parts, as `search` takes them, plus one
    pub(crate) fn search_admitting(
        &self,
        q: &Query,
        range: Option<(i64, i64)>,
        ts: Option<(String, String)>,
        by_event: &[i64],
        limit: usize,
        tau_days: Option<f64>,
        exact_bm25: bool,
    ) -> Result<(Searched, i64)> {
        if self.config().ranker == crate::config::Ranker::Sqlite {
            // The same candidates, the entries admitted by event window among them.
            return self.search_sqlite(q, range, ts, by_event, limit, tau_days);
        }
        let c = self.conn()?;
        // One read transaction for the whole query: every statement outside one opens and
        // ends its own (a shared-memory lock taken and released, the WAL index read again),
        // nine of them per windowed query. The same snapshot for all of them, too.
        let read = rusqlite::Transaction::new_unchecked(&c, rusqlite::TransactionBehavior::Deferred)?;
        // Prefix probes as the OR of their terms where the index can list them
        // (`fts5::prefix`); `short` when some prefix probe is left as a prefix.
        let bm25::Expanded { fts, left: short, single, phrase_of } =
            self.df_memo().lock().unwrap_or_else(|e| e.into_inner()).expanded_fts(&c, q)?;
        let ts_ms = match &ts {
            None => None,
            Some((a, b)) => Some((ms_of(a)?, ms_of(b)?)),
        };
        let mut counter = bm25::Counter::new(q);
        let mut scanned = false;
        // The SQL that found the candidates through FTS5, when it did (`explain` shows it).
        let mut ran = None;
        let (mut rows, mut matched) = match range {
            // A prefix probe in a small window: read the window's rows (see
            // WINDOW_SCAN_ROWS), every match counted.
            Some(r) if short && window_rows_at_most(&c, r.0, r.1, WINDOW_SCAN_ROWS)? => {
                scanned = true;
                let (mut rows, _) = scan_candidates(&c, q, &mut counter, r, ts_ms, usize::MAX, i64::MAX)?;
                let matched = rows.len() as i64;
                rows.truncate(MAX_SCORED);
                (rows, matched)
            }
            // One prefix probe of many terms in a larger window: each term's matches in the
            // window, merged here (FTS5's OR of many phrases steps every phrase for every row).
            Some(r) if ts.is_none() && single.is_some() => {
                let terms = single.as_deref().unwrap_or_default();
                ran = Some(TERM_UNION_SQL.to_string());
                term_union(&c, &mut counter, terms, r)?
            }
            None if ts.is_none() => {
                // No window: the count is memoised while the index is unchanged (one phrase:
                // its document frequency, shared with the IDF).
                let matched = {
                    let mut memo = self.df_memo().lock().unwrap_or_else(|e| e.into_inner());
                    if bm25::single_phrase(q) { memo.df(&c, &bm25::phrases(q))?[0] } else { memo.count(&c, &fts)? }
                };
                let total = bm25::totals(&c)?.rows;
                let rows = if matched == 0 {
                    Vec::new()
                } else if short && (MAX_SCORED as i64).saturating_mul(total) / matched <= WINDOW_SCAN_ROWS {
                    // Unwindowed, a one-character prefix matching often: the newest rows hold
                    // the newest MAX_SCORED matches within WINDOW_SCAN_ROWS rows (expected);
                    // when they do not, FTS5 finds them.
                    let (rows, read) = scan_candidates(
                        &c,
                        q,
                        &mut counter,
                        (i64::MIN, i64::MAX),
                        ts_ms,
                        MAX_SCORED,
                        WINDOW_SCAN_ROWS,
                    )?;
                    if rows.len() < MAX_SCORED.min(matched as usize) && read >= WINDOW_SCAN_ROWS {
                        let (rows, sql) =
                            fts_candidates(&c, (&fts, &phrase_of), counter.phrases().len(), range, ts_ms)?;
                        ran = Some(sql);
                        rows
                    } else {
                        scanned = true;
                        rows
                    }
                } else {
                    let (rows, sql) = fts_candidates(&c, (&fts, &phrase_of), counter.phrases().len(), range, ts_ms)?;
                    ran = Some(sql);
                    rows
                };
                (rows, matched)
            }
            _ => {
                // A window: the candidates first; fewer than the cap are every match, and
                // only a capped answer needs the count.
                let (rows, sql) = fts_candidates(&c, (&fts, &phrase_of), counter.phrases().len(), range, ts_ms)?;
                ran = Some(sql);
                let matched = if rows.len() < MAX_SCORED {
                    rows.len() as i64
                } else {
                    count_matches(&c, &fts, range, ts.as_ref())?
                };
                (rows, matched)
            }
        };
        let mut matched_by_event = 0;
        if !by_event.is_empty() {
            let (admitted, n) = match range {
                // A prefix probe left as a prefix: FTS5 would merge the doclists of every term
                // it starts (the window's scan reads rows in Rust for the same reason).
                Some((lo, hi)) if !short => {
                    let days = (hi >> crate::files::ORDINAL_BITS) - (lo >> crate::files::ORDINAL_BITS) + 1;
                    let per_day = (matched + 1) as f64 / days.max(1) as f64;
                    admitted_by_runs(&c, q, &mut counter, (&fts, &phrase_of), by_event, per_day)?
                }
                _ => admitted_candidates(&c, q, &mut counter, by_event)?,
            };
            if n > 0 {
                matched_by_event = n;
                matched += n;
                rows.extend(admitted);
                rows.sort_unstable_by_key(|r| std::cmp::Reverse(r.id));
                rows.truncate(MAX_SCORED);
            }
        }
        let ts_filter = ts.is_some();
        let opts =
            RankOpts { range, ts, limit, now: self.now(), tau_days, weights: self.config().rank, matched, exact_bm25 };
        let weights = |items: &[Scored]| weights_on(self, &c, items);
        let mut hits = ranked(&c, q, &counter, rows, &opts, self.df_memo(), &weights)?;
        read.commit()?;
        // Counts this query made go to the index for the next process (bm25::DfMemo); a
        // failure (another writer holds SQLite's lock) only costs the next call a recount.
        if !self.read_only()
            && let Err(e) = self.df_memo().lock().unwrap_or_else(|e| e.into_inner()).persist(&c)
        {
            log::debug!("fts_counts not written: {e}");
        }
        for (item, parts) in &mut hits {
            item.score = Some(round4(parts.score));
        }
        let sql = match ran {
            Some(sql) => sql,
            None if scanned => scan_sql(ts_filter),
            None => ranked_sql(range.is_some(), ts_filter),
        };
        Ok(((hits, matched, sql), matched_by_event))
    }
}

/// Milliseconds since 1970 of an entry timestamp (`format_ts`). Errors: not RFC 3339.
fn ms_of(ts: &str) -> Result<i64> {
    DateTime::parse_from_rfc3339(ts)
        .map(|t| t.timestamp_millis())
        .map_err(|e| Error::bad("time_range", format!("{ts:?} is not an RFC 3339 instant ({e})")))
}

/// True when the rowid range `lo..=hi` holds at most `n` entries, by the per-day entry counts
/// sync keeps (`files.entries`, one row per day file of the range, instead of a walk over
/// the window's rows: half a millisecond for a month at 1M entries). Only the choice
/// between reading the rows and asking FTS5 depends on it, never an answer.
fn window_rows_at_most(c: &Connection, lo: i64, hi: i64, n: i64) -> Result<bool> {
    let day = |id: i64| crate::files::day_from_number(id >> 20).map(crate::files::cold_rel);
    let (Some(a), Some(b)) = (day(lo), day(hi)) else { return Ok(false) };
    let k: i64 = c
        .prepare_cached("SELECT coalesce(sum(entries), 0) FROM files WHERE path BETWEEN ?1 AND ?2")?
        .query_row(params![a, b], |r| r.get(0))?;
    Ok(k <= n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two ways of matching the entries a gate admits by event window give the same
    /// candidates: FTS5 over a run of ids ([`admitted_through_fts`]) and each row read and
    /// counted in Rust ([`admitted_candidates`]), on real SQLite over real day files, for
    /// queries of one word, two words, a stemmed English word and a Traditional spelling.
    #[test]
    fn admitted_entries_count_the_same_through_fts5_and_in_rust() {
        let dir = tempfile::tempdir().unwrap();
        // Asia/Shanghai (UTC+8): every instant below is on its file's local date.
        let files = [
            (
                "cold/2026-11/2026-11-09.md",
                "- [2026-11-09T01:00:00.000Z] [-] 明天交报告\n\
                 - [2026-11-09T02:00:00.000Z] [报告] 交报告\n\
                 - [2026-11-09T03:00:00.000Z] [-] 报告报告写完了，明天开会\n\
                 - [2026-11-09T04:00:00.000Z] [-] 明天去跑步\n\
                 - [2026-11-09T05:00:00.000Z] [-] 明天：報告和 meetings 都要准备\n",
            ),
            (
                "cold/2026-11/2026-11-12.md",
                "- [2026-11-12T01:00:00.000Z] [Work] Two meetings about the report, then a meeting\n\
                 - [2026-11-12T02:00:00.000Z] [-] 跑步五公里，写报告\n",
            ),
            ("cold/2026-11/2026-11-20.md", "- [2026-11-20T01:00:00.000Z] [-] 没有要找的词\n"),
        ];
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("# {}\n{text}", &rel[13..23])).unwrap();
        }
        let config = crate::Config { timezone: chrono_tz::Asia::Shanghai, ..crate::Config::default() };
        let (store, _, _) = crate::index::Store::open(dir.path(), config, false).unwrap();
        crate::layers::sync::sync(&store, crate::index::store::SyncPolicy::WRITER, &mut |_| {}).unwrap();
        let c = store.conn().unwrap();
        let ids: Vec<i64> = c
            .prepare("SELECT id FROM entries ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(ids.len(), 8);
        let mut memo = bm25::DfMemo::default();
        let key = |r: &Candidate| (r.id, r.f.to_vec(), r.len);
        for (text, mode, want) in [
            ("报告", Mode::And, 5),
            ("報告", Mode::And, 5),
            ("报告 跑步", Mode::And, 1),
            ("报告 跑步", Mode::Or, 6),
            ("meetings", Mode::And, 2),
        ] {
            let q = Query::new(text, mode).unwrap();
            let e = memo.expanded_fts(&c, &q).unwrap();
            let mut counter = bm25::Counter::new(&q);
            let (read, n) = admitted_candidates(&c, &q, &mut counter, &ids).unwrap();
            let fts = admitted_through_fts(&c, (&e.fts, &e.phrase_of), counter.phrases().len(), &ids).unwrap();
            assert_eq!(n, want, "{text}");
            let mut a: Vec<_> = read.iter().map(key).collect();
            let mut b: Vec<_> = fts.iter().map(key).collect();
            a.sort_by_key(|k| k.0);
            b.sort_by_key(|k| k.0);
            assert_eq!(a, b, "{text}");
        }
        // Worked by hand for 报告: `[报告] 交报告` holds it once in the tag (weight 2) and once
        // in the text (1): 3; its tokens are 报告 告 and 交报 报告 告: 5. `报告报告写完了，明天开会`
        // holds it twice in the text: 2.
        let q = Query::new("报告", Mode::And).unwrap();
        let e = memo.expanded_fts(&c, &q).unwrap();
        let fts = admitted_through_fts(&c, (&e.fts, &e.phrase_of), 1, &ids).unwrap();
        let got: Vec<(Vec<f64>, usize)> = fts.iter().map(|r| (r.f.to_vec(), r.len)).collect();
        assert!(got.contains(&(vec![3.0], 5)), "{got:?}");
        assert!(got.iter().any(|(f, _)| f == &[2.0]), "{got:?}");
        // A run without the matching entries finds nothing, and an empty run nothing.
        assert!(admitted_through_fts(&c, (&e.fts, &e.phrase_of), 1, &ids[7..]).unwrap().is_empty());
        assert!(admitted_through_fts(&c, (&e.fts, &e.phrase_of), 1, &[]).unwrap().is_empty());
    }
}
