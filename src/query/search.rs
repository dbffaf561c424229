//! Keyword search over the FTS5 index: query building from segmented terms, BM25 ranking with
//! bounded tie-breakers, and `recall` (dsh-memory-layers v1.2 `mem_recall`).
//!
//! ## Ranking
//!
//! `r = -bm25(entries_fts, 2.0, 1.0)` (FTS5's BM25, tag column weighted 2, content 1; larger
//! is better). The plugin's signals only break near-ties:
//!
//! ```text
//! score = r × (1 + 0.04 × weight/100 + 0.04 × recent)
//!   weight = usage weight 0–100 (usage.json; 50 when never hit)
//!   recent = 1 if written ≤ 30 days ago, 1/3 if ≤ 90 days, else 0 (the plugin's +3 / +1)
//! ```
//!
//! The factor is at most 1.08, so an entry whose BM25 is more than 8 % below another's can
//! never be lifted above it. Equal scores fall back to newest first. `retrieve` may add a
//! recency term `exp(-Δt/τ)` the same bounded way (see `retrieve`).

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};
use serde::Serialize;

use crate::index::Store;
use crate::index::segment::{Piece, Probe, pieces, term_probes, text_has_probe};
use crate::query::{Item, check_range, item_from_row};
use crate::{Error, Result};

/// Largest total tie-breaker factor (`1 + 0.04 + 0.04`).
pub const MAX_BOOST: f64 = 1.08;

/// How several terms combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every term must match (default).
    And,
    /// Any term may match.
    Or,
    /// Same as `Or` (the plugin accepts both names).
    Any,
}

impl Mode {
    /// Parses `and` / `or` / `any` (case-insensitive); the error names the field `mode`.
    pub fn parse(s: Option<&str>) -> Result<Mode> {
        match s.map(str::to_ascii_lowercase).as_deref() {
            None | Some("and") => Ok(Mode::And),
            Some("or") => Ok(Mode::Or),
            Some("any") => Ok(Mode::Any),
            Some(other) => Err(Error::bad("mode", format!("{other:?} is not one of and, or, any"))),
        }
    }
}

/// Most distinct FTS5 probes one query may hold (memlayers; the plugin sets no limit). FTS5's
/// cost grows faster than the number of phrases (16 000 OR-ed words take seconds), so a longer
/// keyword is refused with a clear error; 2048 covers a whole 4000-character Chinese entry
/// used as a keyword (2000 bigrams). Repeated terms count once.
pub const MAX_PROBES: usize = 2048;

/// A keyword split into terms, each with its FTS5 probes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Whitespace-separated terms that have at least one probe.
    pub terms: Vec<String>,
    /// Probes of each term (all must match for the term to match).
    pub probes: Vec<Vec<Probe>>,
    /// How terms combine.
    pub mode: Mode,
}

impl Query {
    /// Splits `keyword` on whitespace; terms without any letter, digit or CJK character are
    /// dropped. Errors (field `keyword`) when nothing searchable is left or when it holds more
    /// than [`MAX_PROBES`] distinct probes.
    pub fn new(keyword: &str, mode: Mode) -> Result<Query> {
        let mut terms = Vec::new();
        let mut probes = Vec::new();
        for t in keyword.split_whitespace() {
            let p = term_probes(t);
            if !p.is_empty() {
                terms.push(t.to_string());
                probes.push(p);
            }
        }
        if terms.is_empty() {
            return Err(Error::bad("keyword", "has no letters, digits or CJK characters to search for"));
        }
        let q = Query { terms, probes, mode };
        q.check_size("keyword")?;
        Ok(q)
    }

    /// Errors (naming `field`) when the query holds more than [`MAX_PROBES`] distinct probes.
    pub fn check_size(&self, field: &str) -> Result<()> {
        let n = self.probes.iter().flatten().collect::<std::collections::HashSet<_>>().len();
        if n > MAX_PROBES {
            return Err(Error::bad(
                field,
                format!("has {n} distinct search probes (words and character pairs); the limit is {MAX_PROBES}"),
            ));
        }
        Ok(())
    }

    /// The FTS5 MATCH expression: `("a" AND "b"*) AND ("c")`, or `OR` between terms. A term
    /// whose probes repeat an earlier term's is left out (same result, and FTS5's cost grows
    /// with every phrase).
    pub fn fts(&self) -> String {
        let joiner = if self.mode == Mode::And { " AND " } else { " OR " };
        let mut seen = std::collections::HashSet::new();
        self.probes
            .iter()
            .filter(|ps| seen.insert(*ps))
            .map(|ps| format!("({})", ps.iter().map(Probe::fts).collect::<Vec<_>>().join(" AND ")))
            .collect::<Vec<_>>()
            .join(joiner)
    }

    /// How many terms match an entry's tag + content (naive check, see `segment`).
    pub fn matched(&self, tag: &str, content: &str) -> usize {
        let mut ps: Vec<Piece> = pieces(content);
        ps.extend(pieces(tag));
        self.probes.iter().filter(|t| t.iter().all(|p| text_has_probe(&ps, p))).count()
    }
}

/// Per-hit score parts, for `explain`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreParts {
    /// Entry id.
    pub id: i64,
    /// Raw FTS5 `bm25()` (negative; smaller is better).
    pub bm25: f64,
    /// Usage weight 0–100.
    pub weight: f64,
    /// The recency tie-breaker (0, 1/3 or 1).
    pub recent: f64,
    /// The optional `exp(-Δt/τ)` term (retrieve with `recencyTauDays`), else 0.
    pub recency: f64,
    /// Final score.
    pub score: f64,
}

/// Options of a ranked search.
#[derive(Debug, Clone, Copy)]
pub struct RankOpts {
    /// Inclusive rowid range (a local-date window), or none.
    pub range: Option<(i64, i64)>,
    /// Results wanted.
    pub limit: usize,
    /// Reference instant for the recency tie-breaker.
    pub now: DateTime<Utc>,
    /// τ in days for the optional `exp(-Δt/τ)` term (retrieve only).
    pub tau_days: Option<f64>,
}

/// Weight of the optional recency term `exp(-Δt/τ)` in the bounded factor.
pub const RECENCY_WEIGHT: f64 = 0.04;

/// The SQL of one ranked page: the window (if any) is a rowid constraint inside the FTS5 query.
pub fn ranked_sql(windowed: bool) -> String {
    let window = if windowed { " AND rowid BETWEEN ?3 AND ?4" } else { "" };
    format!(
        "SELECT e.id, e.day, e.ts, e.tag, e.content, e.source, s.bm25 FROM \
         (SELECT rowid AS id, bm25(entries_fts, 2.0, 1.0) AS bm25 FROM entries_fts \
          WHERE entries_fts MATCH ?1{window} ORDER BY bm25 LIMIT ?2) s \
         JOIN entries e ON e.id = s.id ORDER BY s.bm25"
    )
}

/// Counts the entries matching `fts` (within `range`).
pub fn count_matches(c: &Connection, fts: &str, range: Option<(i64, i64)>) -> Result<i64> {
    Ok(match range {
        Some((lo, hi)) => c.query_row(
            "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3",
            params![fts, lo, hi],
            |r| r.get(0),
        )?,
        None => c.query_row("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1", [fts], |r| r.get(0))?,
    })
}

fn ts_of(item: &Item) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(&item.ts).ok().map(|t| t.with_timezone(&Utc))
}

/// Runs a ranked FTS5 search: BM25 first, bounded tie-breakers after (module docs). Fetches
/// pages of BM25 candidates until no unfetched row could still enter the top `limit`.
pub fn ranked(
    c: &Connection,
    fts: &str,
    opts: RankOpts,
    weights: &dyn Fn(&[Item]) -> Vec<f64>,
) -> Result<Vec<(Item, ScoreParts)>> {
    let max_boost = MAX_BOOST + if opts.tau_days.is_some() { RECENCY_WEIGHT } else { 0.0 };
    let mut page = (opts.limit * 3).max(50);
    loop {
        let sql = ranked_sql(opts.range.is_some());
        let mut st = c.prepare_cached(&sql)?;
        let map = |r: &rusqlite::Row| Ok((item_from_row(r)?, r.get::<_, f64>(6)?));
        let rows: Vec<(Item, f64)> = match opts.range {
            Some((lo, hi)) => st.query_map(params![fts, page as i64, lo, hi], map)?.collect::<rusqlite::Result<_>>()?,
            None => st.query_map(params![fts, page as i64], map)?.collect::<rusqlite::Result<_>>()?,
        };
        let items: Vec<Item> = rows.iter().map(|(i, _)| i.clone()).collect();
        let ws = weights(&items);
        let mut scored: Vec<(Item, ScoreParts)> = rows
            .into_iter()
            .zip(ws)
            .map(|((item, bm25), weight)| {
                let age_days = ts_of(&item).map(|t| (opts.now - t).num_seconds() as f64 / 86_400.0).unwrap_or(f64::MAX);
                let recent = if age_days <= 30.0 {
                    1.0
                } else if age_days <= 90.0 {
                    1.0 / 3.0
                } else {
                    0.0
                };
                let recency = opts.tau_days.map(|tau| (-age_days.max(0.0) / tau).exp()).unwrap_or(0.0);
                let r = -bm25;
                let score = r * (1.0 + 0.04 * weight / 100.0 + 0.04 * recent + RECENCY_WEIGHT * recency);
                (item.clone(), ScoreParts { id: item.id, bm25, weight, recent, recency, score })
            })
            .collect();
        scored.sort_by(|a, b| {
            b.1.score.total_cmp(&a.1.score).then_with(|| b.0.ts.cmp(&a.0.ts)).then(b.0.id.cmp(&a.0.id))
        });
        let exhausted = scored.len() < page;
        let last_raw = scored.iter().map(|s| -s.1.bm25).fold(f64::INFINITY, f64::min);
        let kth = scored.get(opts.limit.saturating_sub(1)).map(|s| s.1.score);
        // An unfetched row has r ≤ last_raw, so its score ≤ last_raw × max_boost.
        if exhausted || kth.is_some_and(|k| last_raw * max_boost < k) {
            scored.truncate(opts.limit);
            return Ok(scored);
        }
        page *= 4;
    }
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

impl Store {
    /// `mem_recall(keyword, limit=10, mode="and")` over every month. Terms are separated by
    /// whitespace; a term matches when all its probes occur in the content or tag (see
    /// `segment::term_probes`). `limit` 1–50. Errors name `keyword`, `limit` or `mode`.
    pub fn recall(&self, keyword: &str, limit: Option<i64>, mode: Option<&str>) -> Result<RecallResult> {
        let limit = check_range("limit", limit.unwrap_or(10), 1, 50)? as usize;
        let q = Query::new(keyword, Mode::parse(mode)?)?;
        let stale = self.sync_reader(false)?.stale;
        let (items, matched) = self.search(&q, None, limit, None)?;
        let c = self.conn()?;
        let (files, entries) = index_totals(&c)?;
        let items: Vec<Item> = items.into_iter().map(|(i, _)| i).collect();
        self.record_hits(&items);
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
    /// their score parts, and the number of matching entries.
    pub(crate) fn search(
        &self,
        q: &Query,
        range: Option<(i64, i64)>,
        limit: usize,
        tau_days: Option<f64>,
    ) -> Result<(Vec<(Item, ScoreParts)>, i64)> {
        let c = self.conn()?;
        let fts = q.fts();
        let opts = RankOpts { range, limit, now: self.now(), tau_days };
        let weights = |items: &[Item]| self.weights(items);
        let mut hits = ranked(&c, &fts, opts, &weights)?;
        for (item, parts) in &mut hits {
            item.score = Some(round4(parts.score));
            item.matched = Some(q.matched(&item.tag, &item.content));
        }
        let matched = count_matches(&c, &fts, range)?;
        Ok((hits, matched))
    }
}
