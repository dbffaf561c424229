//! The plugin's read-only window tools: `recent`, `by_tag`, `by_date` — indexed range queries
//! over the entries table (rowid range for dates, the `entries_tag` index for tags).

pub mod retrieve;
pub mod search;
pub mod sqlite_ranker;
pub mod stopwords;

use chrono::NaiveDate;
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;

use crate::files::entry::Source;
use crate::index::Store;
use crate::index::sync::id_range;
use crate::{Error, Result};

/// One entry as the tools return it (plugin field names).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// Index id: `(local_day_number << 20) | ordinal` (memlayers; stable while the day file's
    /// entry lines keep their order).
    pub id: i64,
    /// Local date, YYYY-MM-DD.
    pub date: String,
    /// UTC timestamp, ISO-8601 with ms.
    pub ts: String,
    /// False for a hand-written bullet without a timestamp (`- 买了新的跑鞋` in a day file): its
    /// time is unknown and `ts` is the start of its local date in the root's zone, a stand-in.
    /// Serialised only when false (`"tsKnown": false`).
    #[serde(skip_serializing_if = "is_true")]
    pub ts_known: bool,
    /// Tag (`-` when untagged).
    pub tag: String,
    /// Text without the source marker.
    pub content: String,
    /// Parsed source marker.
    pub source: Option<Source>,
    /// Ranking score (recall/retrieve only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Query terms matched (recall/retrieve only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<usize>,
    /// `retrieve` with a time window only: `true` for an entry inside the window (widened or
    /// not), `false` for one of the best matches outside it that fill the list when the window
    /// holds fewer matches than the limit (they always come after every match inside). `None`
    /// (omitted in JSON) when there is no window.
    #[serde(rename = "inWindow", skip_serializing_if = "Option::is_none")]
    pub in_window: Option<bool>,
}

impl crate::layers::usage::ops::Hit for Item {
    fn content(&self) -> &str {
        &self.content
    }
}

/// Serde's `skip_serializing_if` for a flag shown only when false.
fn is_true(b: &bool) -> bool {
    *b
}

/// Columns selected by [`item_from_row`], in order.
pub const ITEM_COLUMNS: &str = "e.id, e.day, e.ts, e.tag, e.content, e.source";

/// Builds an [`Item`] from a row of [`ITEM_COLUMNS`].
pub fn item_from_row(r: &Row) -> rusqlite::Result<Item> {
    let source: Option<String> = r.get(5)?;
    Ok(Item {
        id: r.get(0)?,
        date: r.get(1)?,
        ts: r.get(2)?,
        ts_known: source.as_deref() != Some(crate::index::sync::UNDATED_SOURCE),
        tag: r.get(3)?,
        content: r.get(4)?,
        source: source.as_deref().and_then(Source::from_marker_body),
        score: None,
        matched: None,
        in_window: None,
    })
}

/// The items of `ids` (as the `entries` view, [`ITEM_COLUMNS`], gives them), keyed by id; ids
/// with no row are absent. One rowid lookup each through one cached statement. Called inside
/// a query's read transaction (`query::search`); outside one, each lookup opens and ends its
/// own. A `json_each` list of the ids in one statement cost ~12 000 instructions a row.
///
/// The date and instant are formatted here from the id and `ts_off` (migration V8), as the
/// view's `date()` and `strftime()` would, which cost SQLite ~5 000 instructions a row.
pub fn items_by_id(c: &rusqlite::Connection, ids: &[i64]) -> Result<std::collections::HashMap<i64, Item>> {
    let mut out = std::collections::HashMap::with_capacity(ids.len());
    if ids.is_empty() {
        return Ok(out);
    }
    let mut st = c.prepare_cached(
        "SELECT r.ts_off, coalesce(r.tag, t.tag), r.content, r.source FROM entry_rows r \
         JOIN tags t ON t.id = r.tag_id WHERE r.id = ?1",
    )?;
    for &id in ids {
        let item = st
            .query_row([id], |r| {
                let day = id >> crate::index::sync::ORDINAL_BITS;
                // The instant in ms since 1970: 719 163 is 1970-01-01's day number (migration V8).
                let off: i64 = r.get(0)?;
                let ms = (day - 719_163).checked_mul(86_400_000).and_then(|d| d.checked_add(off));
                let ts = ms.and_then(chrono::DateTime::from_timestamp_millis);
                let source: Option<String> = r.get(3)?;
                Ok(item_of(id, ts, r.get(1)?, r.get(2)?, source.as_deref()))
            })
            .optional()?;
        if let Some(item) = item {
            out.insert(id, item);
        }
    }
    Ok(out)
}

/// The [`Item`] of entry `id` (its local date from the id) from its UTC instant `ts` (`None`:
/// out of chrono's range, left blank), tag, content and source marker body (as
/// `entry_rows.source` stores it: [`crate::index::sync::UNDATED_SOURCE`] for a bullet without a
/// timestamp, which gives `ts_known: false`). `score` and `matched` unset.
pub fn item_of(
    id: i64,
    ts: Option<chrono::DateTime<chrono::Utc>>,
    tag: String,
    content: String,
    source: Option<&str>,
) -> Item {
    let date = crate::files::day_from_number(id >> crate::index::sync::ORDINAL_BITS);
    Item {
        id,
        date: date.map(|d| d.to_string()).unwrap_or_default(),
        ts: ts.map(crate::files::entry::format_ts).unwrap_or_default(),
        ts_known: source != Some(crate::index::sync::UNDATED_SOURCE),
        tag,
        content,
        source: source.and_then(Source::from_marker_body),
        score: None,
        matched: None,
        in_window: None,
    }
}

/// Result of `recent` / `by_tag` / `by_date` (plugin field names).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResult {
    /// `recent` only: the number of days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<i64>,
    /// `by_tag` only: the tag asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// First local date of the range (recent, by_date).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Last local date of the range, inclusive (recent, by_date).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Day files in range (all files for by_tag).
    pub scanned_files: i64,
    /// Entries in those files.
    pub scanned_entries: i64,
    /// Entries matching.
    pub matched: i64,
    /// Entries returned (≤ limit).
    pub returned: usize,
    /// Newest first.
    pub items: Vec<Item>,
    /// True when the index is behind the files (an import or rebuild is under way in another
    /// process): the answer is from the index's last consistent state, maybe not whole.
    /// Omitted when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

/// Checks `value` is within `lo..=hi`; the error names `field`.
pub fn check_range(field: &str, value: i64, lo: i64, hi: i64) -> Result<i64> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(Error::bad(field, format!("{value} is outside {lo}–{hi}")))
    }
}

/// Most days `by_date` accepts in one range (dsh-memory-layers v1.1 `mem_by_date`).
pub const MAX_RANGE_DAYS: i64 = 3660;

/// Files and entries mirrored for local dates `from..=to`.
fn file_counts(c: &Connection, from: NaiveDate, to: NaiveDate) -> Result<(i64, i64)> {
    let (f, t) = (from.format("%Y-%m-%d").to_string(), to.format("%Y-%m-%d").to_string());
    Ok(c.query_row("SELECT count(*), coalesce(sum(entries), 0) FROM files WHERE day BETWEEN ?1 AND ?2", [f, t], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?)
}

/// The SQL of a date-window listing's keys: each entry's id and UTC instant (ms since 1970,
/// the `entries` view's `ts_ms`), walking the rowid range backwards — the latest local date
/// first — so `newest_in_range` reads whole days only until it has its `limit`, and sorts just
/// those. Walking the primary key needs no sort in SQLite, so a year window costs what the
/// days of its `LIMIT` rows cost (an `ORDER BY ts` over the window took 258 ms for `去年` at 1M
/// entries, tools/BENCH_RESULTS.md). `?1`, `?2`: the inclusive id range.
pub const WINDOW_SQL: &str = "SELECT r.id, ((r.id >> 20) - 719163) * 86400000 + r.ts_off FROM entry_rows r \
     WHERE r.id BETWEEN ?1 AND ?2 ORDER BY r.id DESC";

/// [`WINDOW_SQL`] with an exact UTC filter: `?3 <= ts_ms < ?4` (ms since 1970).
pub const WINDOW_TS_SQL: &str = "SELECT r.id, ((r.id >> 20) - 719163) * 86400000 + r.ts_off FROM entry_rows r \
     WHERE r.id BETWEEN ?1 AND ?2 AND ((r.id >> 20) - 719163) * 86400000 + r.ts_off >= ?3 \
     AND ((r.id >> 20) - 719163) * 86400000 + r.ts_off < ?4 ORDER BY r.id DESC";

/// The `limit` newest entries with ids in `lo..=hi` (and, with `ts`, instants in the half-open
/// interval `[a, b)`, ms since 1970), in the one listing order of every tool: by UTC instant,
/// newest first; equal instants by position in the day file, the later line first — the order
/// `by_tag` walks its index in ([`TAG_SQL`]). So a line inserted by hand or by an import with an
/// earlier time in the middle of a day file is listed at its time, not at its place.
///
/// Days are read whole, newest date first, until `limit` entries are in hand, then those are
/// sorted: exact as long as each entry's instant falls on its file's local date. An entry whose
/// instant is on another date (reported by `check` as misdated) is ordered by its instant among
/// the days read, and is reached with its file's day.
pub(crate) fn newest_in_range(
    c: &Connection,
    (lo, hi): (i64, i64),
    ts: Option<(i64, i64)>,
    limit: usize,
) -> Result<Vec<Item>> {
    let mut keys: Vec<(i64, i64)> = Vec::new();
    let mut st = c.prepare_cached(if ts.is_some() { WINDOW_TS_SQL } else { WINDOW_SQL })?;
    let mut rows = match ts {
        None => st.query(params![lo, hi])?,
        Some((a, b)) => st.query(params![lo, hi, a, b])?,
    };
    let mut day = None;
    while let Some(r) = rows.next()? {
        let (id, ms): (i64, i64) = (r.get(0)?, r.get(1)?);
        let d = id >> crate::index::sync::ORDINAL_BITS;
        if keys.len() >= limit && day != Some(d) {
            break;
        }
        day = Some(d);
        keys.push((ms, id));
    }
    drop(rows);
    keys.sort_unstable_by(|a, b| b.cmp(a));
    keys.truncate(limit);
    let ids: Vec<i64> = keys.iter().map(|k| k.1).collect();
    let mut by_id = items_by_id(c, &ids)?;
    Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
}

/// SQL of an exact UTC filter `[?a, ?b)` on the `entries` view, the bounds bound as entry
/// timestamp text (`format_ts`, whole milliseconds): ` AND {alias}.ts_ms >= … AND {alias}.ts_ms
/// < …`. It compares `ts_ms` (integer arithmetic on the stored offset, migration V8) rather
/// than the `ts` text, which the view formats for every row it looks at: at 1M entries,
/// counting 432k rows of a 5-year window took 0.09 s this way against 0.59 s on `ts`. Each
/// bound becomes milliseconds once per statement, `round((julianday(t) - 2440587.5) ×
/// 86400000)` (2440587.5 is 1970-01-01's Julian day), exact for whole-millisecond instants:
/// julianday's rounding error near 2.4e6 days is under 0.05 ms.
pub fn ts_filter_sql(alias: &str, a: usize, b: usize) -> String {
    let ms = |p: usize| format!("CAST(round((julianday(?{p}) - 2440587.5) * 86400000) AS INTEGER)");
    format!(" AND {alias}.ts_ms >= {} AND {alias}.ts_ms < {}", ms(a), ms(b))
}

/// The SQL of a tag listing: the `entries_tag` index, newest first. It orders by `ts_ms`, the
/// index's key (migration V8), which orders exactly as the `ts` text; equal instants come
/// newest id first, as the index walked backwards gives them.
pub const TAG_SQL: &str = "SELECT e.id, e.day, e.ts, e.tag, e.content, e.source FROM entries e WHERE e.tag_key = ?1 ORDER BY e.ts_ms DESC LIMIT ?2";

impl Store {
    /// Entries of local dates `from..=to`, newest first ([`newest_in_range`]'s order; no sync, no
    /// usage recording).
    pub(crate) fn window_items(&self, from: NaiveDate, to: NaiveDate, limit: i64) -> Result<(Vec<Item>, i64, i64)> {
        let c = self.conn()?;
        let items = newest_in_range(&c, id_range(from, to), None, limit as usize)?;
        let (files, entries) = file_counts(&c, from, to)?;
        Ok((items, files, entries))
    }

    /// `mem_recent(days=3, limit=50)`: entries of the last `days` local dates (today included),
    /// newest first. `days` 1–365, `limit` 1–200 (errors name the field).
    pub fn recent(&self, days: Option<i64>, limit: Option<i64>) -> Result<ListResult> {
        let days = check_range("days", days.unwrap_or(3), 1, 365)?;
        let limit = check_range("limit", limit.unwrap_or(50), 1, 200)?;
        let to = self.today();
        let from = to - chrono::Duration::days(days - 1);
        let stale = self.sync_reader_scoped(false, crate::index::store::SyncScope::Days(from, to))?.stale;
        let (items, files, entries) = self.window_items(from, to, limit)?;
        self.record_hits(&items);
        Ok(ListResult {
            stale,
            days: Some(days),
            tag: None,
            from: Some(from.format("%Y-%m-%d").to_string()),
            to: Some(to.format("%Y-%m-%d").to_string()),
            scanned_files: files,
            scanned_entries: entries,
            matched: entries,
            returned: items.len(),
            items,
        })
    }

    /// `mem_by_date(from, to, limit=50)`: entries of the closed local-date range, newest first.
    /// Errors: invalid dates (field `from`/`to`), from > to, more than 3660 days, limit outside
    /// 1–200.
    pub fn by_date(&self, from: &str, to: &str, limit: Option<i64>) -> Result<ListResult> {
        let f = crate::files::parse_date("from", from)?;
        let t = crate::files::parse_date("to", to)?;
        if f > t {
            return Err(Error::bad("from", format!("{from} is after to {to}")));
        }
        let span = (t - f).num_days() + 1;
        if span > MAX_RANGE_DAYS {
            return Err(Error::bad("to", format!("range is {span} days; the limit is {MAX_RANGE_DAYS}")));
        }
        let limit = check_range("limit", limit.unwrap_or(50), 1, 200)?;
        let stale = self.sync_reader_scoped(false, crate::index::store::SyncScope::Days(f, t))?.stale;
        let (items, files, entries) = self.window_items(f, t, limit)?;
        self.record_hits(&items);
        Ok(ListResult {
            stale,
            days: None,
            tag: None,
            from: Some(from.to_string()),
            to: Some(to.to_string()),
            scanned_files: files,
            scanned_entries: entries,
            matched: entries,
            returned: items.len(),
            items,
        })
    }

    /// `mem_by_tag(tag, limit=20)`: exact, case-insensitive tag match (`-` = untagged), newest
    /// first; `limit` 1–200. The tag is normalised as `mem_write` normalises it
    /// ([`crate::layers::cold::normalize_tag`]: brackets removed, whitespace collapsed), so an
    /// empty or blank tag means untagged (`-`), the tag `write --tag ""` stores
    /// (docs/plugin-compatibility.md: "tag 缺省为 -"). Errors: `limit` out of range.
    pub fn by_tag(&self, tag: &str, limit: Option<i64>) -> Result<ListResult> {
        let key = crate::layers::cold::collapse_ws(&tag.replace(['[', ']'], "")).to_lowercase();
        let key = if key.is_empty() { "-".to_string() } else { key };
        let limit = check_range("limit", limit.unwrap_or(20), 1, 200)?;
        let ((items, matched, (files, entries)), stale) = self.read_synced(|| {
            let c = self.conn()?;
            let items = c
                .prepare_cached(TAG_SQL)?
                .query_map(params![key, limit], item_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let matched: i64 = c.query_row("SELECT count(*) FROM entries WHERE tag_key = ?1", [&key], |r| r.get(0))?;
            let totals: (i64, i64) = c.query_row("SELECT count(*), coalesce(sum(entries), 0) FROM files", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
            Ok((items, matched, totals))
        })?;
        self.record_hits(&items);
        Ok(ListResult {
            stale,
            days: None,
            tag: Some(tag.to_string()),
            from: None,
            to: None,
            scanned_files: files,
            scanned_entries: entries,
            matched,
            returned: items.len(),
            items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `items_by_id` formats the date and instant in Rust: the same strings as the `entries`
    /// view, and the values worked out by hand, for instants on either side of the UTC date.
    #[test]
    fn items_read_by_id_equal_the_entries_view() {
        let dir = tempfile::tempdir().unwrap();
        // Asia/Shanghai (UTC+8): a local date's file holds instants of the previous UTC date.
        let lines = [
            (
                "cold/2024-02/2024-02-29.md",
                "- [2024-02-28T16:00:00.000Z] [工作] 闰日零点\n- [2024-02-29T15:59:59.999Z] [Travel] 闰日最后一刻 〔src:c#1/m〕\n",
            ),
            ("cold/2000-01/2000-01-01.md", "- [1999-12-31T16:00:00.001Z] [-] 千禧年\n"),
        ];
        for (rel, text) in lines {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let config = crate::Config { timezone: chrono_tz::Asia::Shanghai, ..crate::Config::default() };
        let (store, _, _) = crate::index::Store::open(dir.path(), config, false).unwrap();
        store.sync().unwrap();
        let c = store.conn().unwrap();
        let ids: Vec<i64> = c
            .prepare("SELECT id FROM entries ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(ids.len(), 3);
        let got = items_by_id(&c, &ids).unwrap();
        let mut view = c.prepare(&format!("SELECT {ITEM_COLUMNS} FROM entries e WHERE e.id = ?1")).unwrap();
        for id in &ids {
            let want = view.query_row([id], item_from_row).unwrap();
            assert_eq!(got[id], want);
        }
        let by_text = |t: &str| got.values().find(|i| i.content == t).unwrap().clone();
        let a = by_text("闰日零点");
        assert_eq!(
            (a.date.as_str(), a.ts.as_str(), a.tag.as_str()),
            ("2024-02-29", "2024-02-28T16:00:00.000Z", "工作")
        );
        let b = by_text("闰日最后一刻");
        assert_eq!(
            (b.date.as_str(), b.ts.as_str(), b.tag.as_str()),
            ("2024-02-29", "2024-02-29T15:59:59.999Z", "Travel")
        );
        assert!(b.source.is_some());
        let k = by_text("千禧年");
        assert_eq!((k.date.as_str(), k.ts.as_str(), k.tag.as_str()), ("2000-01-01", "1999-12-31T16:00:00.001Z", "-"));
        // An id with no row is absent, not an error.
        assert!(items_by_id(&c, &[ids[0] + 7]).unwrap().is_empty());
    }
}
