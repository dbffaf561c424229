//! BM25 computed by memlayers, equal to FTS5's `bm25(entries_fts, 2.0, 1.0)`, so that a query
//! pays for the entries it ranks and not for every entry that contains its words.
//!
//! FTS5's `bm25()` counts, on every query, every row that matches each phrase (its document
//! frequency, for the IDF): `今天` in 15 % of a million entries costs ~4 ms of doclist walking
//! even when a one-day window holds 35 matches (issue 15's measurement, the `SQL` column of
//! tools/BENCH_CALLS.md). Here the same formula takes its inputs from:
//!
//! * the row count N and the total token count from FTS5's averages record (the row of
//!   `entries_fts_data` with id 1: a varint N, then one varint per column with the column's
//!   total tokens; <https://sqlite.org/src/file?name=ext/fts5/fts5_index.c>, "averages
//!   record"), so `avgdl = total tokens / N` exactly as FTS5 computes it;
//! * each phrase's document frequency from a count, memoised per state of the FTS5 index (the
//!   structure record, id 10, which FTS5 rewrites on every change to the index): a long-lived
//!   handle counts a frequent word once, not on every query;
//! * each candidate's term frequencies and token count from its tag and content, segmented
//!   by the same segmenter the index was built with (`index::segment`): FTS5's `unicode61`
//!   tokenizer reads that text back token for token, so the counts are the ones FTS5 stores.
//!
//! Formula (fts5_aux.c, `fts5Bm25Function`), for each phrase `p` of the query:
//!
//! ```text
//! idf_p = ln((N − df_p + 0.5) / (df_p + 0.5)), replaced by 1e-6 when ≤ 0
//! f_p   = 2.0 × (instances of p in the tag) + 1.0 × (instances of p in the content)
//! bm25  = −Σ_p idf_p × f_p × (k1 + 1) / (f_p + k1 × (1 − b + b × D / avgdl)),  k1 = 1.2, b = 0.75
//! ```
//!
//! where `D` is the row's token count over both columns. A probe `("meetings"* OR "meet")`
//! is two phrases, as FTS5 sees it. The test `own_bm25_equals_fts5_bm25` compares every value
//! with FTS5's own function on a real index.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

use crate::Result;
use crate::index::segment::segment;
use crate::query::search::Query;

/// BM25 term-frequency saturation `k1` (FTS5's constant).
pub const K1: f64 = 1.2;
/// BM25 length normalisation `b` (FTS5's constant).
pub const B: f64 = 0.75;
/// Column weights: the tag counts twice, the content once (memlayers' ranking, module docs of
/// `query::search`).
pub const WEIGHTS: [f64; 2] = [2.0, 1.0];

/// One FTS5 phrase of a query: a token, matched whole or as a prefix.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Phrase {
    /// The token (lowercased word, CJK bigram or single CJK character, or an English stem).
    pub token: String,
    /// `"tok"*`: every token that starts with `token`.
    pub prefix: bool,
}

impl Phrase {
    /// The phrase as an FTS5 query string.
    pub fn fts(&self) -> String {
        if self.prefix { format!("\"{}\"*", self.token) } else { format!("\"{}\"", self.token) }
    }

    /// True when an index token is an instance of this phrase (byte prefix, as FTS5 matches).
    pub fn matches(&self, token: &str) -> bool {
        if self.prefix { token.starts_with(&self.token) } else { token == self.token }
    }
}

/// The phrases of `q`'s FTS5 expression ([`Query::fts`]), in its order: terms whose probes
/// repeat an earlier term's are left out as there; each probe gives its own phrase, then its
/// stem's.
pub fn phrases(q: &Query) -> Vec<Phrase> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for ps in q.probes.iter().filter(|ps| seen.insert(*ps)) {
        for p in ps {
            out.push(Phrase { token: p.token.clone(), prefix: p.prefix });
            if let Some(a) = &p.alt {
                out.push(Phrase { token: a.clone(), prefix: false });
            }
        }
    }
    out
}

/// True when `q` has one term of one probe of one phrase: its match count is that phrase's
/// document frequency.
pub fn single_phrase(q: &Query) -> bool {
    let distinct: std::collections::HashSet<_> = q.probes.iter().collect();
    distinct.len() == 1 && q.probes[0].len() == 1 && q.probes[0][0].alt.is_none()
}

/// Row count and total token count of the index (FTS5's averages record). Both 0 for an
/// empty index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Rows (entries) in the FTS5 index.
    pub rows: i64,
    /// Tokens over every column of every row.
    pub tokens: i64,
}

impl Totals {
    /// Average tokens per row (`avgdl`), as FTS5 computes it.
    pub fn avgdl(&self) -> f64 {
        self.tokens as f64 / self.rows as f64
    }
}

/// Reads an SQLite/FTS5 varint (big-endian groups of 7 bits, a 9th byte of 8 bits) at `at`;
/// returns the value and the bytes read, or `None` past the end.
fn varint(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..9 {
        let byte = *b.get(at + i)?;
        if i == 8 {
            return Some(((v << 8) | u64::from(byte), 9));
        }
        v = (v << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// The index's [`Totals`] from FTS5's averages record (`entries_fts_data` id 1: N, then the
/// tag and content columns' token totals). An index that never held a row has none: zeros.
/// Errors: SQLite errors.
pub fn totals(c: &Connection) -> Result<Totals> {
    let block: Option<Vec<u8>> =
        c.prepare_cached("SELECT block FROM entries_fts_data WHERE id = 1")?.query_row([], |r| r.get(0)).optional()?;
    // As FTS5 reads it (fts5_index.c, sqlite3Fts5IndexGetAverages): an empty record is all
    // zeros (an index that never held a row, or one emptied), and a value missing from a short
    // record counts 0.
    let b = block.unwrap_or_default();
    let mut at = 0;
    let mut next = || match varint(&b, at) {
        Some((v, n)) => {
            at += n;
            v
        }
        None => 0,
    };
    let rows = next();
    let tokens: u64 = (0..WEIGHTS.len()).map(|_| next()).sum();
    Ok(Totals { rows: rows as i64, tokens: tokens as i64 })
}

/// The state of the FTS5 index: its structure record (`entries_fts_data` id 10), which FTS5
/// rewrites whenever the index changes (a new segment, a merge, a delete). Equal keys mean
/// equal document frequencies.
pub fn state_key(c: &Connection) -> Result<Vec<u8>> {
    Ok(c.prepare_cached("SELECT block FROM entries_fts_data WHERE id = 10")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or_default())
}

/// Document frequencies memoised for one index state ([`state_key`]).
#[derive(Debug, Default)]
pub struct DfMemo {
    key: Vec<u8>,
    df: HashMap<Phrase, i64>,
}

/// Most phrases one memo keeps (memlayers): past it the memo starts over, so a long-lived
/// server asked many distinct words holds at most this many counts (a few MB).
pub const MEMO_PHRASES: usize = 50_000;

impl DfMemo {
    /// The document frequency of each phrase (rows whose tag or content holds an instance),
    /// from the memo when the index is in the state it was counted in, else counted with FTS5
    /// and remembered. Errors: SQLite errors.
    pub fn df(&mut self, c: &Connection, phrases: &[Phrase]) -> Result<Vec<i64>> {
        let key = state_key(c)?;
        if key != self.key || self.df.len() > MEMO_PHRASES {
            self.key = key;
            self.df.clear();
        }
        let mut out = Vec::with_capacity(phrases.len());
        for p in phrases {
            let n = match self.df.get(p) {
                Some(n) => *n,
                None => {
                    let n: i64 = c
                        .prepare_cached("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1")?
                        .query_row([p.fts()], |r| r.get(0))?;
                    self.df.insert(p.clone(), n);
                    n
                }
            };
            out.push(n);
        }
        Ok(out)
    }
}

/// FTS5's IDF of a phrase found in `df` of `rows` rows (module docs).
pub fn idf(rows: i64, df: i64) -> f64 {
    let idf = (((rows - df) as f64 + 0.5) / (df as f64 + 0.5)).ln();
    if idf <= 0.0 { 1e-6 } else { idf }
}

/// The BM25 of one entry (negative; smaller is better, as FTS5's `bm25()`): `tag` and
/// `content` as stored, `idf` per phrase ([`idf`]), `avgdl` from [`Totals::avgdl`].
pub fn score(phrases: &[Phrase], idf: &[f64], avgdl: f64, tag: &str, content: &str) -> f64 {
    score_tokens(phrases, idf, avgdl, &tokens(tag, content))
}

/// The tokens the index holds for an entry, per column (tag, content): the segmented text
/// split on spaces, as FTS5's `unicode61` tokenizer reads it.
pub fn tokens(tag: &str, content: &str) -> [Vec<String>; 2] {
    let split = |s: &str| segment(s).split(' ').filter(|t| !t.is_empty()).map(str::to_string).collect::<Vec<_>>();
    [split(tag), split(content)]
}

/// True when an entry with these [`tokens`] matches `q` as FTS5 evaluates [`Query::fts`]: a
/// term matches when each of its probes has an instance (the probe's own phrase or its
/// stem's) in either column; `And` needs every term, `Or`/`Any` one.
pub fn matches(q: &Query, toks: &[Vec<String>; 2]) -> bool {
    let all = || toks[0].iter().chain(toks[1].iter());
    let term = |ps: &Vec<crate::index::segment::Probe>| {
        ps.iter().all(|p| {
            let own = Phrase { token: p.token.clone(), prefix: p.prefix };
            all().any(|t| own.matches(t) || p.alt.as_deref() == Some(t.as_str()))
        })
    };
    match q.mode {
        crate::query::search::Mode::And => q.probes.iter().all(term),
        _ => q.probes.iter().any(term),
    }
}

/// A cheap necessary condition for [`matches`] on an entry's raw text, to skip most entries
/// of a window without segmenting them: every term with a CJK probe needs that probe's first
/// character in the text (in `And` mode all such terms, in `Or` mode one of the terms, unless
/// some term has no CJK probe). Text holding a CJK compatibility ideograph always passes (NFC
/// turns it into another character, which the index holds).
pub fn may_match(q: &Query, tag: &str, content: &str) -> bool {
    let compat = |s: &str| s.chars().any(|c| matches!(c as u32, 0xF900..=0xFAFF | 0x2F800..=0x2FA1F));
    if compat(tag) || compat(content) {
        return true;
    }
    let need = |ps: &Vec<crate::index::segment::Probe>| -> Option<char> {
        ps.iter().filter_map(|p| p.token.chars().next()).find(|c| crate::index::segment::is_cjk(*c))
    };
    let has = |c: char| tag.contains(c) || content.contains(c);
    match q.mode {
        crate::query::search::Mode::And => q.probes.iter().all(|ps| need(ps).is_none_or(has)),
        _ => q.probes.iter().any(|ps| need(ps).is_none_or(has)),
    }
}

/// [`score`] on [`tokens`] already split.
pub fn score_tokens(phrases: &[Phrase], idf: &[f64], avgdl: f64, toks: &[Vec<String>; 2]) -> f64 {
    let mut freq = vec![0.0f64; phrases.len()];
    for (col, ts) in toks.iter().enumerate() {
        for t in ts {
            for (i, p) in phrases.iter().enumerate() {
                if p.matches(t) {
                    freq[i] += WEIGHTS[col];
                }
            }
        }
    }
    let d = (toks[0].len() + toks[1].len()) as f64;
    let mut s = 0.0f64;
    for (i, f) in freq.iter().enumerate() {
        s += idf[i] * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / avgdl)));
    }
    -s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_decode_as_sqlite_writes_them() {
        // 0x7f is one byte; 0x81 0x00 = 128; 0x83 0x60 = 3 × 128 + 0x60 = 480.
        assert_eq!(varint(&[0x7f], 0), Some((127, 1)));
        assert_eq!(varint(&[0x81, 0x00], 0), Some((128, 2)));
        assert_eq!(varint(&[0x00, 0x83, 0x60], 1), Some((480, 2)));
        assert_eq!(varint(&[0x81], 0), None);
    }

    #[test]
    fn totals_come_from_fts5s_averages_record() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE VIRTUAL TABLE entries_fts USING fts5(body, tag, content = '', \
             tokenize = 'unicode61 remove_diacritics 0', detail = full)",
        )
        .unwrap();
        assert_eq!(totals(&c).unwrap(), Totals { rows: 0, tokens: 0 });
        // 3 + 1 tokens, then 200 tokens (the total needs a two-byte varint: 204 > 127).
        c.execute("INSERT INTO entries_fts(rowid, body, tag) VALUES (1, 'a b c', 'x')", []).unwrap();
        let long = vec!["w"; 200].join(" ");
        c.execute("INSERT INTO entries_fts(rowid, body, tag) VALUES (2, ?1, '')", [&long]).unwrap();
        assert_eq!(totals(&c).unwrap(), Totals { rows: 2, tokens: 204 });
        c.execute("INSERT INTO entries_fts(entries_fts, rowid, body, tag) VALUES ('delete', 1, 'a b c', 'x')", [])
            .unwrap();
        assert_eq!(totals(&c).unwrap(), Totals { rows: 1, tokens: 200 });
    }

    #[test]
    fn idf_follows_fts5() {
        // ln((10 − 1 + 0.5) / (1 + 0.5)) = ln(6.333…) = 1.8458…
        assert!((idf(10, 1) - (9.5f64 / 1.5).ln()).abs() < 1e-15);
        // A phrase in more than half the rows: the log is negative, FTS5 uses 1e-6.
        assert_eq!(idf(10, 8), 1e-6);
    }

    #[test]
    fn one_row_scores_by_hand() {
        // Tag 周报 → tokens 周报 报 (2); content "周报 写完" → 周报 报 写完 完 (4): D = 6.
        // Phrase "周报": f = 2 × 1 (tag) + 1 × 1 (content) = 3. With idf 1 and avgdl 6:
        // 3 × 2.2 / (3 + 1.2 × (0.25 + 0.75 × 1)) = 6.6 / 4.2 = 1.571428…
        let p = [Phrase { token: "周报".into(), prefix: false }];
        let s = score(&p, &[1.0], 6.0, "周报", "周报 写完");
        assert!((s + 6.6 / 4.2).abs() < 1e-12, "{s}");
        // A prefix phrase counts every token that starts with it: 周* matches 周报 twice.
        let p = [Phrase { token: "周".into(), prefix: true }];
        assert!((score(&p, &[1.0], 6.0, "周报", "周报 写完") + 6.6 / 4.2).abs() < 1e-12);
    }
}
