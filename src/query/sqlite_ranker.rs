//! The `sqlite` ranker (config `ranker`): the candidates of a ranked search scored with SQLite's
//! stock `bm25()`, the way back should FTS5's internal records ever change. It reads none of
//! them (no averages or structure record, no segment b-tree, no `fts_counts` memo), calls no
//! memlayers auxiliary function and no `entry_lens`: only `MATCH`, `bm25()` and the entry rows.
//! The candidates are the ones the `memlayers` ranker scores (the newest [`MAX_SCORED`]
//! matches, in the window and the exact UTC filter, and the matches among the entries the
//! time gate admits by event window, [`crate::index::events`]), and the score around BM25 is
//! the same (`rank_scored`). How the two BM25 differ: docs/ranking.md, "The `sqlite` ranker".

use rusqlite::{OptionalExtension, params_from_iter};

use crate::Result;
use crate::fts5::bm25::STOCK_BM25;
use crate::fts5::query::Query;
use crate::index::Store;
use crate::query::Item;
use crate::query::search::{
    Candidate, MAX_SCORED, PhraseCounts, RankOpts, Scored, Searched, count_matches, rank_scored, round4,
};

/// The candidates and their stock BM25: the newest [`MAX_SCORED`] matches of `?1`, within
/// rowids `?3..=?4` when `windowed`, and instants `[?5, ?6)` (entry timestamps) when
/// `ts_filter`; `?2` is the cap.
pub fn sqlite_ranked_sql(windowed: bool, ts_filter: bool) -> String {
    let window = if windowed { " AND f.rowid BETWEEN ?3 AND ?4" } else { "" };
    let (join, ts) = if ts_filter {
        (" JOIN entries e ON e.id = f.rowid", crate::query::ts_filter_sql("e", 5, 6))
    } else {
        ("", String::new())
    };
    format!(
        "SELECT f.rowid, {STOCK_BM25} FROM entries_fts f{join} WHERE f.entries_fts MATCH ?1{window}{ts} \
         ORDER BY f.rowid DESC LIMIT ?2"
    )
}

/// SQL of the stock BM25 of one entry admitted by event window (the `by_event` ids of the
/// `sqlite` ranker's search): row `?2` with its BM25 when it matches `?1`, else no row. Its
/// record time is outside the window, so neither the rowid range nor the UTC filter applies,
/// as for the `memlayers` ranker.
pub fn sqlite_admitted_sql() -> String {
    format!("SELECT f.rowid, {STOCK_BM25} FROM entries_fts f WHERE f.entries_fts MATCH ?1 AND f.rowid = ?2")
}

impl Store {
    /// [`Store::search`] with the `sqlite` ranker: same arguments, same result shape; the SQL
    /// reported for `explain` is [`sqlite_ranked_sql`]. `by_event` are the ids the time gate
    /// admits by event window (outside `range`, ascending; [`Store::search_admitting`]): those
    /// that match join the candidates, as the `memlayers` ranker's do, and the second value
    /// returned is how many of the matches they are.
    pub(crate) fn search_sqlite(
        &self,
        q: &Query,
        range: Option<(i64, i64)>,
        ts: Option<(String, String)>,
        by_event: &[i64],
        limit: usize,
        tau_days: Option<f64>,
    ) -> Result<(Searched, i64)> {
        let c = self.conn()?;
        let read = rusqlite::Transaction::new_unchecked(&c, rusqlite::TransactionBehavior::Deferred)?;
        let fts = q.fts();
        let sql = sqlite_ranked_sql(range.is_some(), ts.is_some());
        let mut args: Vec<rusqlite::types::Value> = vec![fts.clone().into(), (MAX_SCORED as i64).into()];
        let (lo, hi) = range.unwrap_or((i64::MIN, i64::MAX));
        if range.is_some() {
            args.extend([lo.into(), hi.into()]);
        }
        if let Some((a, b)) = &ts {
            if range.is_none() {
                args.extend([lo.into(), hi.into()]);
            }
            args.extend([a.clone().into(), b.clone().into()]);
        }
        let candidate = |r: &rusqlite::Row| -> rusqlite::Result<(Candidate, f64)> {
            Ok((Candidate { id: r.get(0)?, f: PhraseCounts::new(), len: 0, row: None }, r.get(1)?))
        };
        let mut scored: Vec<(Candidate, f64)> =
            c.prepare_cached(&sql)?.query_map(params_from_iter(args), candidate)?.collect::<rusqlite::Result<_>>()?;
        let mut matched =
            if scored.len() < MAX_SCORED { scored.len() as i64 } else { count_matches(&c, &fts, range, ts.as_ref())? };
        let mut admitted = Vec::new();
        let mut st = c.prepare_cached(&sqlite_admitted_sql())?;
        for &id in by_event {
            if let Some(hit) = st.query_row(rusqlite::params![fts, id], candidate).optional()? {
                admitted.push(hit);
            }
        }
        drop(st);
        let by_event_matched = admitted.len() as i64;
        if !admitted.is_empty() {
            // The newest MAX_SCORED of both, as the `memlayers` ranker keeps them.
            matched += by_event_matched;
            scored.extend(admitted);
            scored.sort_unstable_by_key(|(cand, _)| std::cmp::Reverse(cand.id));
            scored.truncate(MAX_SCORED);
        }
        let opts = RankOpts {
            range,
            ts,
            limit,
            now: self.now(),
            tau_days,
            weights: self.config().rank,
            matched,
            exact_bm25: true,
        };
        let weights = |items: &[Scored]| self.weights_on(&c, items);
        let terms = |_: &PhraseCounts, item: &Item| q.matched(&item.tag, &item.content);
        let mut hits = if scored.is_empty() { Vec::new() } else { rank_scored(&c, scored, &opts, &weights, &terms)? };
        read.commit()?;
        for (item, parts) in &mut hits {
            item.score = Some(round4(parts.score));
        }
        Ok(((hits, matched, sql), by_event_matched))
    }
}
