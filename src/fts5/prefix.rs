//! Prefix probes expanded into the index's own terms, so that a window applies before FTS5
//! reads any doclist.
//!
//! FTS5 answers a prefix phrase (`"after"*`) by merging the doclists of every term that starts
//! with it over the whole index, and only then applies a rowid range: `after` in a one-day
//! window cost ~1 ms at 1M entries, nearly all of it that merge. The same phrase as
//! an OR of its terms (`"after" OR "afternoon" OR …`) matches the same rows, and FTS5 seeks
//! each term's doclist to the window instead. memlayers has no prefix index (the index must
//! stay within 2× the archive), so the terms are read from FTS5's own segment b-tree:
//!
//! * `entries_fts_idx` has a row `(segid, term, pgno)` for every leaf page of a segment that
//!   holds a term: `term` is a key at most as long as that page's first term, greater than
//!   every term on earlier pages and not greater than the page's first term; `pgno` is the
//!   page number shifted left by one (the low bit flags a doclist index);
//! * a leaf page is the `entries_fts_data` row `(segid << 37) + pgno`: a 4-byte header (the
//!   second big-endian `u16` is the offset of the page index), the terms and doclists, then
//!   the page index, varints giving each term's offset (the first from the page start, the
//!   others from the previous term). The page's first term is a varint length and its bytes;
//!   each later term a varint count of bytes shared with the previous term, a varint length of
//!   the rest, and the rest. Keys of the main index start with the byte `0`.
//!
//! (SQLite's `ext/fts5/fts5_index.c`: the segment b-tree comment, `fts5WriteAppendTerm`,
//! `fts5WriteFlushBtree`, `FTS5_SEGMENT_ROWID`.) Terms starting with the prefix are on the
//! page the prefix would be sought on (the last whose key is ≤ the prefix) and on the pages
//! whose key starts with the prefix. A page that is missing (an incremental merge may have
//! trimmed the start of a segment) or does not parse gives no expansion: the prefix phrase is
//! then queried as it is. The tests compare every expansion with FTS5's `fts5vocab` table.

use rusqlite::{Connection, OptionalExtension, params};

use crate::Result;
use crate::fts5::record::varint;

/// Most terms a prefix is expanded into (memlayers): past it the prefix phrase is queried as
/// it is. FTS5's cost grows with every phrase of an OR, and a prefix shared by this many
/// terms has large doclists to merge either way.
pub const MAX_TERMS: usize = 64;

/// Most terms of a prefix listed at all (memlayers): a one-character query in a window too
/// large to read row by row is answered term by term up to this many terms
/// (`query::search`). A common Chinese character starts a few hundred bigrams (天: 380 in a
/// million generated entries); each term costs one FTS5 seek, ~10 µs.
pub const MAX_LISTED: usize = 4096;

/// Bits of an `entries_fts_data` id below the segment id (FTS5's `FTS5_DATA_PAGE_B` 31 +
/// `FTS5_DATA_HEIGHT_B` 5 + `FTS5_DATA_DLI_B` 1).
const SEGID_SHIFT: u32 = 37;

/// The terms of `entries_fts` that start with `prefix`, in byte order; `None` when there are
/// more than `max` of them or the segment b-tree cannot be read as documented (module docs).
/// Errors: SQLite errors.
pub fn expand(c: &Connection, prefix: &str, max: usize) -> Result<Option<Vec<String>>> {
    if prefix.is_empty() {
        return Ok(None);
    }
    let mut key = Vec::with_capacity(prefix.len() + 1);
    key.push(b'0');
    key.extend_from_slice(prefix.as_bytes());
    // Keys starting with `key` sort below `upper` (UTF-8 has no 0xFF byte).
    let mut upper = key.clone();
    if let Some(last) = upper.last_mut() {
        *last += 1;
    }
    let mut terms = std::collections::BTreeSet::new();
    let mut seg = i64::MIN;
    loop {
        // Segment ids, one index seek each.
        let next: Option<i64> = c
            .prepare_cached("SELECT segid FROM entries_fts_idx WHERE segid > ?1 ORDER BY segid LIMIT 1")?
            .query_row([seg], |r| r.get(0))
            .optional()?;
        let Some(s) = next else { break };
        seg = s;
        let start: i64 = c
            .prepare_cached(
                "SELECT pgno FROM entries_fts_idx WHERE segid = ?1 AND term <= ?2 ORDER BY term DESC LIMIT 1",
            )?
            .query_row(params![seg, key], |r| r.get(0))
            .optional()?
            .unwrap_or(2);
        let mut pages = vec![start >> 1];
        let mut st = c.prepare_cached(
            "SELECT pgno FROM entries_fts_idx WHERE segid = ?1 AND term >= ?2 AND term < ?3 ORDER BY term",
        )?;
        for p in st.query_map(params![seg, key, upper], |r| r.get::<_, i64>(0))? {
            let p = p? >> 1;
            if !pages.contains(&p) {
                pages.push(p);
            }
        }
        for p in pages {
            let block: Option<Vec<u8>> = c
                .prepare_cached("SELECT block FROM entries_fts_data WHERE id = ?1")?
                .query_row([(seg << SEGID_SHIFT) + p], |r| r.get(0))
                .optional()?;
            let Some(block) = block else { return Ok(None) };
            let Some(page) = page_terms(&block) else { return Ok(None) };
            for t in page.into_iter().filter(|t| t.starts_with(&key)) {
                let Ok(t) = String::from_utf8(t[1..].to_vec()) else { return Ok(None) };
                terms.insert(t);
                if terms.len() > max {
                    return Ok(None);
                }
            }
        }
    }
    Ok(Some(terms.into_iter().collect()))
}

/// The terms (index keys, with their leading index byte) on one leaf page, in order; `None`
/// when the page does not parse (module docs).
fn page_terms(page: &[u8]) -> Option<Vec<Vec<u8>>> {
    let sz_leaf = usize::from(u16::from_be_bytes([*page.get(2)?, *page.get(3)?]));
    let mut out: Vec<Vec<u8>> = Vec::new();
    if sz_leaf >= page.len() {
        return Some(out);
    }
    let (mut at, mut off) = (sz_leaf, 0usize);
    while at < page.len() {
        let (delta, n) = varint(page, at)?;
        at += n;
        off = off.checked_add(usize::try_from(delta).ok()?)?;
        if off >= sz_leaf {
            return None;
        }
        let mut i = off;
        let shared = if out.is_empty() {
            0
        } else {
            let (v, n) = varint(page, i)?;
            i += n;
            usize::try_from(v).ok()?
        };
        let (len, n) = varint(page, i)?;
        i += n;
        let rest = page.get(i..i.checked_add(usize::try_from(len).ok()?)?)?;
        let mut term = match out.last() {
            Some(prev) => prev.get(..shared)?.to_vec(),
            None => Vec::new(),
        };
        term.extend_from_slice(rest);
        out.push(term);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `entries_fts` as the index creates it (migration V8), filled in `batches`
    /// transactions (each a new segment) with `rows` rows whose tokens share prefixes and
    /// repeat enough for doclists to span pages.
    fn index(rows: i64, batches: i64) -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE VIRTUAL TABLE entries_fts USING fts5(body, tag, content = '', \
             tokenize = 'unicode61 remove_diacritics 0', detail = full); \
             CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, entries_fts, 'row');",
        )
        .unwrap();
        let words = ["after", "afternoon", "aftermath", "afterwards", "aft", "rust", "rustfmt", "rusty", "ru"];
        let cjk = ["今天", "今年", "今", "天", "今晚", "金"];
        for b in 0..batches {
            c.execute_batch("BEGIN").unwrap();
            for i in (b * rows / batches)..((b + 1) * rows / batches) {
                // Many distinct terms too (w{i % 997}), so that the segment has many pages.
                let body = format!(
                    "{} {} w{} x{}y {}",
                    words[(i % 9) as usize],
                    cjk[(i % 6) as usize],
                    i % 997,
                    i % 13,
                    if i % 50 == 0 { format!("after{i}") } else { String::new() }
                );
                c.execute("INSERT INTO entries_fts(rowid, body, tag) VALUES (?1, ?2, 'aftx')", params![i + 1, body])
                    .unwrap();
            }
            c.execute_batch("COMMIT").unwrap();
        }
        c
    }

    fn vocab(c: &Connection, prefix: &str) -> Vec<String> {
        c.prepare("SELECT term FROM temp.v WHERE substr(term, 1, length(?1)) = ?1 ORDER BY term")
            .unwrap()
            .query_map([prefix], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn expansions_are_fts5s_terms() {
        for (rows, batches) in [(40, 1), (30_000, 1), (30_000, 7)] {
            let c = index(rows, batches);
            let pages: i64 = c.query_row("SELECT count(*) FROM entries_fts_data", [], |r| r.get(0)).unwrap();
            if rows > 1000 {
                assert!(pages > 50, "{pages}");
            }
            for p in ["after", "aft", "afternoon", "rust", "r", "ru", "今", "今天", "w99", "w1", "x1", "zzz", "金"]
            {
                let want = vocab(&c, p);
                let got = expand(&c, p, 100_000).unwrap();
                assert_eq!(got.as_deref(), Some(&want[..]), "{p:?} in {rows} rows / {batches} segments");
            }
            // Past the bound: none.
            assert_eq!(expand(&c, "w", 10).unwrap(), None);
        }
        // Hand-counted: 40 rows hold after, after0, aftermath, afternoon, afterwards.
        let c = index(40, 1);
        let got = expand(&c, "after", MAX_TERMS).unwrap().unwrap();
        assert_eq!(got, ["after", "after0", "aftermath", "afternoon", "afterwards"]);
    }

    #[test]
    fn a_merged_index_expands_exactly_or_not_at_all() {
        let c = index(20_000, 5);
        // Part of an incremental merge: input segments trimmed at their start. An expansion is
        // exact or, where a page it needs is gone, none (the prefix is queried as it is).
        c.execute("INSERT INTO entries_fts(entries_fts, rank) VALUES ('merge', 4)", []).unwrap();
        for p in ["after", "rust", "今", "w5"] {
            let got = expand(&c, p, 100_000).unwrap();
            assert!(got.is_none() || got.as_deref() == Some(&vocab(&c, p)[..]), "{p}");
        }
        c.execute("INSERT INTO entries_fts(entries_fts) VALUES ('optimize')", []).unwrap();
        for p in ["after", "rust", "今", "w5"] {
            assert_eq!(expand(&c, p, 100_000).unwrap().as_deref(), Some(&vocab(&c, p)[..]), "{p}");
        }
    }
}
