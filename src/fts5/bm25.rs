//! BM25 computed by memlayers: FTS5's `bm25(entries_fts, 1.0, 2.0)` (columns body, tag: the tag
//! weighs 2) with one change, Lucene's non-negative IDF ([`idf`]), so that a query pays for the
//! entries it ranks and not for every entry that contains its words, and a word found in most
//! entries of a small root still counts.
//!
//! FTS5's `bm25()` counts, on every query, every row that matches each phrase (its document
//! frequency, for the IDF): `今天` in 15 % of a million entries costs ~4 ms of doclist walking
//! even when a one-day window holds 35 matches (measured at 1M entries, the `SQL` column of
//! tools/BENCH_CALLS.md). Here the same formula takes its inputs from:
//!
//! * the row count N and the total token count from FTS5's averages record (the row of
//!   `entries_fts_data` with id 1: a varint N, then one varint per column with the column's
//!   total tokens; <https://sqlite.org/src/file?name=ext/fts5/fts5_index.c>, "averages
//!   record"), so `avgdl = total tokens / N` exactly as FTS5 computes it;
//! * each phrase's document frequency from a count, memoised per state of the FTS5 index (the
//!   structure record, id 10, which FTS5 rewrites on every change to the index): a long-lived
//!   handle counts a frequent word once, not on every query;
//! * each candidate's term frequencies and token count: for candidates found through FTS5,
//!   from FTS5 itself (`ml_collect`, [`crate::fts5::aux_fn`]: the instances in the position
//!   lists it decoded to match the row, folded by [`fold_counts`], and the row's token count
//!   from `entry_lens`, [`crate::fts5::lens`]), so no entry's text is read to score it; for candidates found
//!   by reading a window's rows (the scans of `query::search`), from their tag and content,
//!   counted ([`Counter`]) by the rules of the segmenter the index was built with
//!   (`fts5::segment`): FTS5's `unicode61` tokenizer reads the segmented text back token for
//!   token, so the counts are the ones FTS5 stores. Reading each candidate's text and counting
//!   it cost ~12 000 instructions a candidate, FTS5's counts about a third of that.
//!
//! Formula (fts5_aux.c, `fts5Bm25Function`), for each phrase `p` of the query:
//!
//! ```text
//! idf_p = ln(1 + (N − df_p + 0.5) / (df_p + 0.5))     (Lucene; FTS5's own is
//!         ln((N − df_p + 0.5) / (df_p + 0.5)), replaced by 1e-6 when ≤ 0: [`idf_fts5`])
//! f_p   = 2.0 × (instances of p in the tag) + 1.0 × (instances of p in the content)
//! bm25  = −Σ_p idf_p × f_p × (k1 + 1) / (f_p + k1 × (1 − b + b × D / avgdl)),  k1 = 0.9, b = 0.4
//!         (FTS5's own: k1 = 1.2, b = 0.75; memlayers' constants: [`K1`], [`B`])
//! ```
//!
//! where `D` is the row's token count over both columns. A probe `("meetings"* OR "meet")`
//! is two phrases, as FTS5 sees it. The test `own_bm25_equals_fts5_bm25` compares every value,
//! computed with [`idf_fts5`], with FTS5's own function on a real index: the counts, lengths
//! and averages are FTS5's; only the IDF differs.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension};

use crate::Result;
use crate::fts5::query::Query;
use crate::fts5::segment::{is_cjk, segment, stem};

/// SQLite's stock BM25 of a row of `entries_fts` with memlayers' column weights (columns body,
/// tag: the tag weighs 2): what the `sqlite` ranker and the `sqlite3` recipes order by.
pub const STOCK_BM25: &str = "bm25(entries_fts, 1.0, 2.0)";

/// The row length `D` SQLite's stock `bm25()` uses on `entries_fts`: the table keeps no column
/// sizes (`columnsize=0`, contentless), so FTS5's `xColumnSize` reports −1 for each of its two
/// columns and `D = −2` for every row, whatever its length (measured: the canary test
/// `tests/it/fts5_canary.rs` and the parity test `tests/it/fts5_parity.rs`).
pub const STOCK_LENGTH: f64 = -2.0;

/// BM25 term-frequency saturation `k1` of memlayers' ranking: 0.9, Anserini's default for
/// passage-length documents (Lin et al., "Anserini", SIGIR 2017; the BM25 defaults of its
/// MS MARCO passage runs), against FTS5's 1.2 ([`FTS5_K1`]). Measured on LongMemEval-S (one
/// entry a user turn; `tools/longmemeval.rs`): session recall_all@5 .808 → .823 with
/// [`B`], flat for b from 0.3 to 0.5 (docs/ranking.md).
pub const K1: f64 = 0.9;
/// BM25 length normalisation `b` of memlayers' ranking: 0.4, Anserini's passage default (see
/// [`K1`]); FTS5's is 0.75 ([`FTS5_B`]). Entries are short and their lengths vary more than
/// their relevance does, so a long entry is penalised less.
pub const B: f64 = 0.4;
/// `k1` of SQLite's stock `bm25()` (fts5_aux.c): what [`bm25_at`] computes with.
pub const FTS5_K1: f64 = 1.2;
/// `b` of SQLite's stock `bm25()` (fts5_aux.c): what [`bm25_at`] computes with.
pub const FTS5_B: f64 = 0.75;
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

pub use crate::fts5::record::{Totals, state_key, totals};

/// Document frequencies memoised for one index state ([`state_key`]), in this handle and in
/// the index's `fts_counts` table (migration V9), which every process shares.
///
/// Why the table: a one-call process (each CLI call) starts with an empty memo, and
/// counting a phrase's rows walks its whole doclist: the two bigrams of `博物馆` (13 512 rows
/// each at 1M entries) cost ~0.9 ms of a 4.8 ms day-window `retrieve`, more than the query.
/// FTS5 stores no document frequency (Lucene keeps one per term in its term dictionary); the
/// table keeps the counts a query needed, valid for the FTS5 state they were counted in (its
/// structure record's SHA-1 in `meta`), so only the first call after a change of the entries
/// pays. A count is only ever read for the state it was counted in; any change of the
/// entries (a write, a sync, an import) makes every row stale, and the next query that counts
/// starts the table over.
#[derive(Debug, Default)]
pub struct DfMemo {
    key: Vec<u8>,
    df: HashMap<Phrase, i64>,
    counts: HashMap<String, i64>,
    expansions: HashMap<String, Option<Vec<String>>>,
    /// Whether `fts_counts` holds counts of this state: unknown until first needed.
    shared: Option<bool>,
    /// Counts made by this handle in this state, not yet in `fts_counts`.
    fresh: Vec<(String, i64)>,
}

/// `meta` key: the SHA-1 (hex) of the FTS5 structure record ([`state_key`]) that the rows of
/// `fts_counts` were counted in.
pub const META_COUNTS_STATE: &str = "fts_counts_state";

/// Most phrases and expressions one memo keeps (memlayers): past it the memo starts over, so a
/// long-lived server asked many distinct words holds at most this many counts (a few MB).
pub const MEMO_PHRASES: usize = 50_000;

impl DfMemo {
    /// The document frequency of each phrase (rows whose tag or content holds an instance),
    /// from the memo when the index is in the state it was counted in, else counted with FTS5
    /// and remembered. Errors: SQLite errors.
    pub fn df(&mut self, c: &Connection, phrases: &[Phrase]) -> Result<Vec<i64>> {
        self.refresh(c)?;
        let mut out = Vec::with_capacity(phrases.len());
        for p in phrases {
            let n = match self.df.get(p) {
                Some(n) => *n,
                None => {
                    let n = self.counted(c, &p.fts())?;
                    self.df.insert(p.clone(), n);
                    n
                }
            };
            out.push(n);
        }
        Ok(out)
    }

    /// The rows matching `fts` over the whole index: from `fts_counts` when it holds this
    /// state's count, else counted by FTS5 (and kept for [`DfMemo::persist`]).
    fn counted(&mut self, c: &Connection, fts: &str) -> Result<i64> {
        if self.shared.is_none() {
            let stored: Option<String> = c
                .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
                .query_row([META_COUNTS_STATE], |r| r.get(0))
                .optional()?;
            self.shared = Some(stored.is_some_and(|h| h == crate::files::sha1_hex(&self.key)));
        }
        if self.shared == Some(true) {
            let n: Option<i64> = c
                .prepare_cached("SELECT n FROM fts_counts WHERE expr = ?1")?
                .query_row([fts], |r| r.get(0))
                .optional()?;
            if let Some(n) = n {
                return Ok(n);
            }
        }
        let n: i64 = c
            .prepare_cached("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1")?
            .query_row([fts], |r| r.get(0))?;
        self.fresh.push((fts.to_string(), n));
        Ok(n)
    }

    /// Writes the counts this handle made since its last call into `fts_counts`, so that
    /// other processes (and later calls) read them instead of walking doclists. Does nothing
    /// when there are none, when another connection holds SQLite's write lock (never waits:
    /// the counts are only a saving), or when the index changed state since they were
    /// counted; starts the table over when its rows belong to another state or would pass
    /// [`MEMO_PHRASES`] rows. Errors: SQLite errors, `SQLITE_BUSY` when the write lock is
    /// held (the caller may ignore them: nothing a query returns depends on this write).
    pub fn persist(&mut self, c: &Connection) -> Result<()> {
        if self.fresh.is_empty() {
            return Ok(());
        }
        let fresh = std::mem::take(&mut self.fresh);
        // The connection's own busy timeout, put back once the transaction has begun.
        let busy_ms: i64 = c.query_row("PRAGMA busy_timeout", [], |r| r.get(0))?;
        c.busy_timeout(std::time::Duration::ZERO)?;
        let tx = c.unchecked_transaction();
        c.busy_timeout(std::time::Duration::from_millis(busy_ms.max(0) as u64))?;
        let tx = tx?;
        // Under the write lock: counted in the state the index is still in?
        if state_key(&tx)? != self.key {
            return Ok(());
        }
        let state = crate::files::sha1_hex(&self.key);
        let stored: Option<String> = tx
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row([META_COUNTS_STATE], |r| r.get(0))
            .optional()?;
        let rows: i64 = tx.query_row("SELECT count(*) FROM fts_counts", [], |r| r.get(0))?;
        if stored.as_deref() != Some(state.as_str()) || rows as usize + fresh.len() > MEMO_PHRASES {
            tx.execute("DELETE FROM fts_counts", [])?;
            tx.execute(
                "INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [META_COUNTS_STATE, state.as_str()],
            )?;
        }
        let mut ins = tx.prepare_cached("INSERT OR REPLACE INTO fts_counts(expr, n) VALUES(?1, ?2)")?;
        for (expr, n) in &fresh {
            ins.execute(rusqlite::params![expr, n])?;
        }
        drop(ins);
        tx.commit()?;
        self.shared = Some(true);
        Ok(())
    }

    /// The number of rows matching the FTS5 expression `fts` over the whole index, memoised
    /// as [`DfMemo::df`]. Errors: SQLite errors.
    pub fn count(&mut self, c: &Connection, fts: &str) -> Result<i64> {
        self.refresh(c)?;
        if let Some(n) = self.counts.get(fts) {
            return Ok(*n);
        }
        let n = self.counted(c, fts)?;
        self.counts.insert(fts.to_string(), n);
        Ok(n)
    }

    /// `q`'s FTS5 expression ([`Query::fts`]) with each prefix probe written as the OR of
    /// the index's terms that start with it ([`crate::fts5::prefix::expand`], when at most
    /// [`crate::fts5::prefix::MAX_TERMS`]; listings memoised as [`DfMemo::df`]), which
    /// matches the same rows. A prefix no term starts with stays as it is (it matches nothing
    /// and costs nothing). Errors: SQLite errors.
    pub fn expanded_fts(&mut self, c: &Connection, q: &Query) -> Result<Expanded> {
        use crate::fts5::prefix::{MAX_LISTED, MAX_TERMS, expand};
        self.refresh(c)?;
        let mut left = false;
        for p in q.probes.iter().flatten().filter(|p| p.prefix) {
            if !self.expansions.contains_key(&p.token) {
                self.expansions.insert(p.token.clone(), expand(c, &p.token, MAX_LISTED)?);
            }
            left |= self.expansions[&p.token].as_ref().is_none_or(|t| t.len() > MAX_TERMS);
        }
        let listed = |p: &crate::fts5::segment::Probe| match self.expansions.get(&p.token) {
            Some(Some(terms)) if p.prefix && !terms.is_empty() && terms.len() <= MAX_TERMS => Some(terms),
            _ => None,
        };
        let fts = q.fts_with(|p| match listed(p) {
            Some(terms) => {
                let own = format!("({})", terms.iter().map(|t| quoted(t)).collect::<Vec<_>>().join(" OR "));
                match &p.alt {
                    Some(a) => format!("({own} OR \"{a}\")"),
                    None => own,
                }
            }
            None => p.fts(),
        });
        // The phrase of `phrases(q)` behind each FTS5 phrase of `fts`, in the order both list
        // them (the probes of distinct terms; each probe's own phrase, then its stem's).
        let mut phrase_of = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for p in q.probes.iter().filter(|ps| seen.insert(*ps)).flatten() {
            let own = phrase_of.last().map_or(0, |l: &usize| l + 1);
            phrase_of.extend(std::iter::repeat_n(own, listed(p).map_or(1, Vec::len)));
            if p.alt.is_some() {
                phrase_of.push(own + 1);
            }
        }
        let distinct: std::collections::HashSet<_> = q.probes.iter().collect();
        let single = match (distinct.len(), q.probes[0].as_slice()) {
            (1, [p]) if p.prefix && p.alt.is_none() => {
                self.expansions.get(&p.token).cloned().flatten().filter(|t| t.len() > MAX_TERMS)
            }
            _ => None,
        };
        Ok(Expanded { fts, left, single, phrase_of })
    }

    /// Starts over when the index changed state or the memo is full ([`MEMO_PHRASES`]).
    fn refresh(&mut self, c: &Connection) -> Result<()> {
        let key = state_key(c)?;
        if key != self.key || self.df.len() + self.counts.len() + self.expansions.len() > MEMO_PHRASES {
            self.key = key;
            self.df.clear();
            self.counts.clear();
            self.expansions.clear();
            self.shared = None;
            self.fresh.clear();
        }
        Ok(())
    }
}

/// A query's FTS5 expression with its prefix probes expanded ([`DfMemo::expanded_fts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// The expression: prefix probes of at most [`crate::fts5::prefix::MAX_TERMS`] terms
    /// written as the OR of their terms, others as they are.
    pub fts: String,
    /// True when some prefix probe is left as a prefix (more terms, or an index whose
    /// b-tree could not be read).
    pub left: bool,
    /// For a query of one prefix probe (no stem) left as a prefix: its terms, when listed
    /// (at most [`crate::fts5::prefix::MAX_LISTED`]).
    pub single: Option<Vec<String>>,
    /// For each FTS5 phrase of `fts`, in the order FTS5 numbers them (left to right), the
    /// index of its phrase in [`phrases`]: an expanded prefix probe is one phrase there and one
    /// per term here. Folds `fts5::aux_fn` counts into BM25's ([`fold_counts`]).
    pub phrase_of: Vec<usize>,
}

/// A term as an FTS5 string (double quotes, inner quotes doubled).
pub fn quoted(t: &str) -> String {
    format!("\"{}\"", t.replace('"', "\"\""))
}

/// The IDF memlayers ranks with, of a phrase found in `df` of `rows` rows: Lucene's
/// non-negative BM25 IDF `ln(1 + (N − n + 0.5) / (n + 0.5))` (Lucene's `BM25Similarity`).
/// Always positive, and decreasing in `df`: a word found in most entries of a small root still
/// counts a little, where FTS5's [`idf_fts5`] floors it at 1e-6 and lets a two-word
/// question's frequent word count for nothing. See docs/evaluation.md for `sqlite3` users.
pub fn idf(rows: i64, df: i64) -> f64 {
    (1.0 + ((rows - df) as f64 + 0.5) / (df as f64 + 0.5)).ln()
}

/// FTS5's own IDF (`fts5_aux.c`, `fts5Bm25Function`): `ln((N − df + 0.5) / (df + 0.5))`, 10⁻⁶
/// when not positive: what SQLite's stock `bm25()`, hence the `sqlite` ranker, uses.
pub fn idf_fts5(rows: i64, df: i64) -> f64 {
    let idf = (((rows - df) as f64 + 0.5) / (df as f64 + 0.5)).ln();
    if idf <= 0.0 { 1e-6 } else { idf }
}

/// The BM25 of one entry (negative; smaller is better, as FTS5's `bm25()`): `tag` and
/// `content` as stored, `idf` per phrase ([`idf`]), `avgdl` from [`Totals::avgdl`].
pub fn score(phrases: &[Phrase], idf: &[f64], avgdl: f64, tag: &str, content: &str) -> f64 {
    score_tokens(phrases, idf, avgdl, &tokens(tag, content))
}

/// The tokens the index holds for an entry, per column (tag, content): the segmented text,
/// which FTS5's `unicode61` tokenizer splits on the spaces. Two strings per entry, split on
/// demand (a `Vec` per token made scoring 500 candidates allocation-bound).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    cols: [String; 2],
}

impl Tokens {
    /// The tokens of one column (0 = tag, 1 = content), in order.
    pub fn column(&self, col: usize) -> impl Iterator<Item = &str> {
        self.cols[col].split(' ').filter(|t| !t.is_empty())
    }

    /// Every token, tag first.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        self.column(0).chain(self.column(1))
    }
}

/// The [`Tokens`] of an entry's tag and content.
pub fn tokens(tag: &str, content: &str) -> Tokens {
    Tokens { cols: [segment(tag), segment(content)] }
}

/// True when an entry with these [`tokens`] matches `q` as FTS5 evaluates [`Query::fts`]: a
/// term matches when each of its probes has an instance (the probe's own phrase or its
/// stem's) in either column; `And` needs every term, `Or`/`Any` one.
pub fn matches(q: &Query, toks: &Tokens) -> bool {
    let all = || toks.all();
    let term = |ps: &Vec<crate::fts5::segment::Probe>| {
        ps.iter().all(|p| {
            let own = Phrase { token: p.token.clone(), prefix: p.prefix };
            all().any(|t| own.matches(t) || p.alt.as_deref() == Some(t))
        })
    };
    match q.mode {
        crate::fts5::query::Mode::And => q.probes.iter().all(term),
        _ => q.probes.iter().any(term),
    }
}

/// A cheap necessary condition for [`matches`] on an entry's raw text (UTF-8 bytes, not yet
/// checked), to skip most entries of a window without counting them: every probe of a term
/// needs its first character in the text (`And`: in every term, `Or`: in one of the terms).
///
/// * A CJK probe needs that character or one that folds to it (the probe is Simplified; the
///   text may hold its Traditional forms: `积` needs `积` or `積`,
///   [`unfolded`](crate::fts5::segment::unfolded)); text holding a CJK compatibility
///   ideograph always passes (NFC turns it into another character, which the index holds).
/// * A Latin probe starting with an ASCII letter or digit `x` needs `x` in either case: every
///   token it matches (a word starting with it, a word whose stem starts with it, or the
///   probe's stem) starts with `x`, since the Snowball English stemmer keeps a word's first
///   letter (its rules rewrite suffixes, and its exception list, `skies` → `sky`, `dying` →
///   `die`, … keeps it too), and the only characters that NFC or lowercasing turn into an
///   ASCII letter are `K` (U+212A KELVIN SIGN, NFC `K`) and `İ` (U+0130, lowercase `i̇`),
///   which pass for `k` and `i`.
/// * Any other probe passes.
pub fn may_match(q: &Query, tag: &[u8], content: &[u8]) -> bool {
    Prefilter::new(q).may_match(tag, content)
}

/// What [`may_match`] checks for one probe.
#[derive(Debug, Clone)]
enum Need {
    /// The UTF-8 bytes of a CJK character or of one of its Traditional forms (or a
    /// compatibility ideograph).
    Cjk(Vec<memchr::memmem::Finder<'static>>),
    /// An ASCII letter or digit, lowercase, in either case (or K, İ: [`may_match`]).
    Ascii(u8),
    /// Nothing.
    Pass,
}

/// [`may_match`] for one query, its searchers built once (a window scan asks it of every row).
#[derive(Debug, Clone)]
pub struct Prefilter {
    terms: Vec<Vec<Need>>,
    mode: crate::fts5::query::Mode,
    kelvin: memchr::memmem::Finder<'static>,
    dotted_i: memchr::memmem::Finder<'static>,
}

impl Prefilter {
    /// The pre-filter of `q` ([`may_match`]).
    pub fn new(q: &Query) -> Prefilter {
        let need = |p: &crate::fts5::segment::Probe| match p.token.chars().next() {
            Some(c) if is_cjk(c) => Need::Cjk(
                crate::fts5::segment::unfolded(c)
                    .into_iter()
                    .map(|f| {
                        let mut buf = [0u8; 4];
                        memchr::memmem::Finder::new(f.encode_utf8(&mut buf).as_bytes()).into_owned()
                    })
                    .collect(),
            ),
            Some(c) if c.is_ascii_alphanumeric() => Need::Ascii(c as u8),
            _ => Need::Pass,
        };
        Prefilter {
            terms: q.probes.iter().map(|ps| ps.iter().map(need).collect()).collect(),
            mode: q.mode,
            kelvin: memchr::memmem::Finder::new("\u{212A}".as_bytes()).into_owned(),
            dotted_i: memchr::memmem::Finder::new("\u{130}".as_bytes()).into_owned(),
        }
    }

    /// [`may_match`] of an entry's tag and content bytes.
    pub fn may_match(&self, tag: &[u8], content: &[u8]) -> bool {
        let has = |f: &memchr::memmem::Finder| f.find(tag).is_some() || f.find(content).is_some();
        let compat = std::cell::OnceCell::new();
        let probe = |n: &Need| match n {
            Need::Cjk(fs) => fs.iter().any(has) || *compat.get_or_init(|| has_compat(tag) || has_compat(content)),
            Need::Ascii(b) => {
                let byte = |s: &[u8]| memchr::memchr2(*b, b.to_ascii_uppercase(), s).is_some();
                byte(tag) || byte(content) || (*b == b'k' && has(&self.kelvin)) || (*b == b'i' && has(&self.dotted_i))
            }
            Need::Pass => true,
        };
        let term = |ns: &Vec<Need>| ns.iter().all(probe);
        match self.mode {
            crate::fts5::query::Mode::And => self.terms.iter().all(term),
            _ => self.terms.iter().any(term),
        }
    }
}

/// True when UTF-8 `s` holds a CJK compatibility ideograph: U+F900–U+FAFF (bytes `EF A4`–`EF
/// AB` then one more) or U+2F800–U+2FA1F (`F0 AF A0`–`F0 AF A8`, two more).
fn has_compat(s: &[u8]) -> bool {
    memchr::memchr2_iter(0xEF, 0xF0, s).any(|i| match (s[i], s.get(i + 1)) {
        (0xEF, Some(b)) => (0xA4..=0xAB).contains(b),
        (_, b) => b == Some(&0xAF),
    })
}

/// [`score`] on [`tokens`] already split: the reference [`Counter`] is checked against.
pub fn score_tokens(phrases: &[Phrase], idf: &[f64], avgdl: f64, toks: &Tokens) -> f64 {
    let mut freq = vec![0.0f64; phrases.len()];
    let mut n = 0usize;
    for (col, w) in WEIGHTS.iter().enumerate() {
        for t in toks.column(col) {
            n += crate::fts5::segment::word_tokens(t);
            for (i, p) in phrases.iter().enumerate() {
                if p.matches(t) {
                    freq[i] += w;
                }
            }
        }
    }
    score_counts(&freq, n, idf, avgdl)
}

/// Folds one row's [`crate::fts5::aux_fn`] counts (the words past its id) into BM25's
/// per-phrase frequencies `f` (one slot per phrase of [`phrases`], zeroed here): each FTS5
/// phrase's body instances count 1.0 and its tag instances 2.0 ([`WEIGHTS`]), added to the
/// phrase `phrase_of` maps it to ([`Expanded::phrase_of`]). `None` when the counts are not two
/// words for each of `phrase_of.len()` phrases.
pub fn fold_counts(counts: &[u32], phrase_of: &[usize], f: &mut [f64]) -> Option<()> {
    use crate::fts5::aux_fn::COLUMNS;
    if counts.len() != COLUMNS * phrase_of.len() {
        return None;
    }
    f.iter_mut().for_each(|x| *x = 0.0);
    let mut words = counts.iter().copied();
    for &p in phrase_of {
        let (body, tag) = (words.next()?, words.next()?);
        *f.get_mut(p)? += WEIGHTS[1] * f64::from(body) + WEIGHTS[0] * f64::from(tag);
    }
    Some(())
}

/// The BM25 formula (module docs) on counts, with memlayers' [`K1`] and [`B`]: `f` the
/// weighted instance count of each phrase, `len` the entry's token count over both columns
/// (`D`).
pub fn score_counts(f: &[f64], len: usize, idf: &[f64], avgdl: f64) -> f64 {
    bm25_with(f, len as f64, idf, avgdl, (K1, B))
}

/// SQLite's stock `bm25()` on counts ([`FTS5_K1`], [`FTS5_B`]), with the length term `d`
/// given as a number: on `entries_fts`, which keeps no column sizes (`columnsize=0`), FTS5
/// computes with [`STOCK_LENGTH`] for every row (docs/ranking.md, "The `sqlite` ranker").
pub fn bm25_at(f: &[f64], d: f64, idf: &[f64], avgdl: f64) -> f64 {
    bm25_with(f, d, idf, avgdl, (FTS5_K1, FTS5_B))
}

/// The BM25 sum (module docs) with `(k1, b)`.
fn bm25_with(f: &[f64], d: f64, idf: &[f64], avgdl: f64, (k1, b): (f64, f64)) -> f64 {
    let mut s = 0.0f64;
    for (i, f) in f.iter().enumerate() {
        s += idf[i] * ((f * (k1 + 1.0)) / (f + k1 * (1.0 - b + b * d / avgdl)));
    }
    -s
}

/// How one phrase meets the index's tokens, for counting its instances in raw text.
#[derive(Debug, Clone)]
enum Shape {
    /// A CJK bigram `ab`, exact or as a prefix (CJK tokens are at most two characters).
    Bigram(char, char),
    /// One CJK character; as a prefix (`true`) it is every occurrence in a CJK run (each one
    /// starts a bigram or is the run's last character), exact only the run's last character.
    Char(char, bool),
    /// A token without CJK characters: matched against each word and its stem.
    Word(String, bool),
    /// The empty prefix: every token.
    Every,
    /// No token can match (3+ CJK characters, CJK mixed with other characters, empty).
    Never,
}

impl Shape {
    fn of(p: &Phrase) -> Shape {
        let cjk = p.token.chars().filter(|c| is_cjk(*c)).count();
        let n = p.token.chars().count();
        let mut cs = p.token.chars();
        match (n, cjk, p.prefix) {
            (0, _, true) => Shape::Every,
            (0, _, false) => Shape::Never,
            (_, 0, _) => Shape::Word(p.token.clone(), p.prefix),
            (1, 1, prefix) => Shape::Char(cs.next().unwrap_or_default(), prefix),
            (2, 2, _) => Shape::Bigram(cs.next().unwrap_or_default(), cs.next().unwrap_or_default()),
            _ => Shape::Never,
        }
    }
}

/// Most words the stem memo of one thread keeps (memlayers): past it the memo starts over.
/// 65 536 words of a few bytes each hold well under 10 MB.
pub const STEM_MEMO: usize = 65_536;

thread_local! {
    static STEMS: std::cell::RefCell<HashMap<Box<str>, Option<Box<str>>>> = Default::default();
}

/// Calls `f` with [`stem`](crate::fts5::segment::stem)`(word)`, memoised per thread (the
/// Snowball stemmer allocates and walks its suffix tables on every call; an entry's words
/// repeat across entries).
fn with_stem<R>(word: &str, f: impl FnOnce(Option<&str>) -> R) -> R {
    // stem()'s own guard, without the memo: such words are never stemmed.
    if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return f(None);
    }
    STEMS.with_borrow_mut(|m| {
        if !m.contains_key(word) {
            if m.len() >= STEM_MEMO {
                m.clear();
            }
            m.insert(word.into(), stem(word).map(Into::into));
        }
        f(m.get(word).and_then(|s| s.as_deref()))
    })
}

/// True when `c` keeps text made only of such characters certainly NFC, a test cheaper than
/// the quick check: `c` is ASCII, a CJK unified ideograph (U+4E00–U+9FFF), CJK punctuation
/// U+3000–U+3029 or a fullwidth ASCII form (U+FF01–U+FF5E), all of canonical combining class
/// 0 and NFC quick check Yes (Unicode's tables; the test `fast_nfc_ranges_are_nfc` checks
/// every one against the `unicode-normalization` crate the segmenter uses).
fn surely_nfc_char(c: char) -> bool {
    matches!(c as u32, 0..=0x7F | 0x4E00..=0x9FFF | 0x3000..=0x3029 | 0xFF01..=0xFF5E)
}

/// True for punctuation common in Chinese text, none of it a letter or digit (checked against
/// `char::is_alphanumeric` by `punctuation_ranges_hold_no_letter_or_digit`): general
/// punctuation U+2000–U+206F, CJK punctuation U+3000–U+3004 and U+3008–U+3020, fullwidth
/// punctuation U+FF01–U+FF0F, U+FF1A–U+FF20, U+FF3B–U+FF40, U+FF5B–U+FF65. Spares the
/// Unicode table lookup of `is_alphanumeric` for them.
fn surely_punctuation(c: char) -> bool {
    matches!(c as u32,
        0x2000..=0x206F | 0x3000..=0x3004 | 0x3008..=0x3020 | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40
        | 0xFF5B..=0xFF65)
}

/// Counts, in an entry's raw tag and content, the instances of a query's phrases and the
/// entry's tokens, without segmenting it: the rules of `fts5::segment` applied on the fly
/// (NFC; a CJK run of n characters is n tokens, its overlapping bigrams and its last
/// character; a word is its lowercase form plus its English stem when that differs), so the
/// counts are the ones [`tokens`] gives (the tests compare them on crafted and random text,
/// and with FTS5's `bm25()`). One counter serves every entry of a query without allocating
/// (a word's letters go to a reused buffer).
#[derive(Debug, Clone)]
pub struct Counter {
    phrases: Vec<Phrase>,
    shapes: Vec<Shape>,
    /// Per distinct term of the query: (own phrase, stem phrase) of each probe.
    terms: Vec<Vec<(usize, Option<usize>)>>,
    /// For each term of the query, repeats included, its entry in `terms`.
    term_of: Vec<usize>,
    mode: crate::fts5::query::Mode,
    word: String,
    /// `f` before the column being counted (to undo it).
    saved: Vec<f64>,
    /// Weighted instance count `f_p` of each phrase in the entry last counted (module docs).
    pub f: Vec<f64>,
    /// Tokens of the entry last counted, both columns (`D`).
    pub len: usize,
}

impl Counter {
    /// A counter for the phrases of `q` ([`phrases`], in that order).
    pub fn new(q: &Query) -> Counter {
        let mut seen = std::collections::HashMap::new();
        let (mut phrases, mut terms) = (Vec::new(), Vec::new());
        // Each term of `q` (repeats included) as the index of its first occurrence's entry in
        // `terms`.
        let mut term_of = Vec::with_capacity(q.probes.len());
        for ps in &q.probes {
            let next = seen.len();
            let at = *seen.entry(ps).or_insert(next);
            term_of.push(at);
            if at < next {
                continue;
            }
            let mut t = Vec::new();
            for p in ps {
                phrases.push(Phrase { token: p.token.clone(), prefix: p.prefix });
                let own = phrases.len() - 1;
                let alt = p.alt.as_ref().map(|a| {
                    phrases.push(Phrase { token: a.clone(), prefix: false });
                    phrases.len() - 1
                });
                t.push((own, alt));
            }
            terms.push(t);
        }
        let shapes = phrases.iter().map(Shape::of).collect();
        let f = vec![0.0; phrases.len()];
        Counter { phrases, shapes, terms, term_of, mode: q.mode, word: String::new(), saved: Vec::new(), f, len: 0 }
    }

    /// How many terms of the query (repeats counted, as [`Query::matched`] counts them) an
    /// entry with per-phrase frequencies `f` ([`phrases`] order, as counted here or folded from
    /// FTS5's counts by [`fold_counts`]) holds: every probe of the term, or its stem.
    pub fn terms_matched(&self, f: &[f64]) -> usize {
        let has = |i: usize| f.get(i).is_some_and(|x| *x > 0.0);
        let whole = |t: &Vec<(usize, Option<usize>)>| t.iter().all(|&(own, alt)| has(own) || alt.is_some_and(has));
        self.term_of.iter().filter(|&&t| whole(&self.terms[t])).count()
    }

    /// The query's phrases, as [`phrases`] gives them.
    pub fn phrases(&self) -> &[Phrase] {
        &self.phrases
    }

    /// Counts one entry: fills [`Counter::f`] and [`Counter::len`].
    pub fn count(&mut self, tag: &str, content: &str) {
        self.f.iter_mut().for_each(|f| *f = 0.0);
        self.len = 0;
        for (text, w) in [tag, content].into_iter().zip(WEIGHTS) {
            // Counted as it is; when it holds a character outside surely_nfc_char's ranges and is
            // not NFC after all, the column's counts are undone and its NFC form counted.
            self.saved.clone_from(&self.f);
            let (mut n, surely) = self.column(text.chars(), w);
            if !surely && unicode_normalization::is_nfc_quick(text.chars()) != unicode_normalization::IsNormalized::Yes
            {
                self.f.clone_from(&self.saved);
                let nfc: String = unicode_normalization::UnicodeNormalization::nfc(text).collect();
                n = self.column(nfc.chars(), w).0;
            }
            self.len += n;
            for (i, s) in self.shapes.iter().enumerate() {
                if matches!(s, Shape::Every) {
                    self.f[i] += w * n as f64;
                }
            }
        }
    }

    /// True when the entry last counted matches the query as FTS5 evaluates [`Query::fts`]
    /// (as [`matches`]).
    pub fn matches(&self) -> bool {
        let term = |t: &Vec<(usize, Option<usize>)>| {
            t.iter().all(|&(own, alt)| self.f[own] > 0.0 || alt.is_some_and(|a| self.f[a] > 0.0))
        };
        match self.mode {
            crate::fts5::query::Mode::And => self.terms.iter().all(term),
            _ => self.terms.iter().any(term),
        }
    }

    /// The entry last counted's BM25 (as [`score`]).
    pub fn score(&self, idf: &[f64], avgdl: f64) -> f64 {
        score_counts(&self.f, self.len, idf, avgdl)
    }

    /// Counts one column (weight `w`) of NFC text; returns its token count and whether every
    /// character was in [`surely_nfc_char`]'s ranges.
    fn column(&mut self, chars: impl Iterator<Item = char>, w: f64) -> (usize, bool) {
        let Counter { shapes, word, f, .. } = self;
        let mut n = 0usize;
        let mut surely = true;
        // Length of the current CJK run and its last character.
        let (mut run, mut prev) = (0usize, '\0');
        word.clear();
        for c in chars {
            surely &= surely_nfc_char(c);
            if is_cjk(c) {
                // Traditional characters count as their Simplified forms, as the segmenter
                // indexes them.
                let c = crate::fts5::segment::fold_han(c);
                if !word.is_empty() {
                    n += end_word(shapes, f, word, w);
                }
                for (i, s) in shapes.iter().enumerate() {
                    match *s {
                        Shape::Char(x, true) if x == c => f[i] += w,
                        Shape::Bigram(a, b) if run > 0 && prev == a && c == b => f[i] += w,
                        _ => {}
                    }
                }
                run += 1;
                prev = c;
                n += 1;
                continue;
            }
            if run > 0 {
                end_run(shapes, f, prev, w);
                run = 0;
            }
            if c.is_ascii() {
                if c.is_ascii_alphanumeric() {
                    word.push(c.to_ascii_lowercase());
                } else if !word.is_empty() {
                    n += end_word(shapes, f, word, w);
                }
            } else if !surely_punctuation(c) && c.is_alphanumeric() {
                word.extend(c.to_lowercase());
            } else if !word.is_empty() {
                n += end_word(shapes, f, word, w);
            }
        }
        if run > 0 {
            end_run(shapes, f, prev, w);
        }
        if !word.is_empty() {
            n += end_word(shapes, f, word, w);
        }
        (n, surely)
    }
}

/// A CJK run ended on `last`: its unigram token.
fn end_run(shapes: &[Shape], f: &mut [f64], last: char, w: f64) {
    for (i, s) in shapes.iter().enumerate() {
        if matches!(*s, Shape::Char(x, false) if x == last) {
            f[i] += w;
        }
    }
}

/// A word ended: its tokens (the word, and its stem when that differs) counted against the
/// word phrases; the buffer is emptied. Returns the tokens (1 or 2).
fn end_word(shapes: &[Shape], f: &mut [f64], word: &mut String, w: f64) -> usize {
    let n = with_stem(word, |st| {
        for (i, s) in shapes.iter().enumerate() {
            if let Shape::Word(t, prefix) = s {
                let hit = |tok: &str| if *prefix { tok.starts_with(t.as_str()) } else { tok == t };
                if hit(word) {
                    f[i] += w;
                }
                if st.is_some_and(hit) {
                    f[i] += w;
                }
            }
        }
        // FTS5's count of the word (more than one when it holds combining marks), plus its
        // stem (ASCII letters only: one token).
        crate::fts5::segment::word_tokens(word) + usize::from(st.is_some())
    });
    word.clear();
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An FTS5 table as V8 makes it, `meta` and V9's `fts_counts`, in memory.
    fn counts_db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE VIRTUAL TABLE entries_fts USING fts5(body, tag, content = '', \
             tokenize = 'unicode61 remove_diacritics 0', detail = full); \
             CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;",
        )
        .unwrap();
        c.execute_batch(include_str!("../../migrations/V9__fts_counts.sql")).unwrap();
        c
    }

    fn stored(c: &Connection) -> Vec<(String, i64)> {
        let mut st = c.prepare("SELECT expr, n FROM fts_counts ORDER BY expr").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(|r| r.unwrap()).collect()
    }

    #[test]
    fn shared_counts_are_kept_for_their_state_only() {
        let c = counts_db();
        for (id, body) in [(1, "博物 物馆"), (2, "博物"), (3, "考古")] {
            c.execute("INSERT INTO entries_fts(rowid, body, tag) VALUES (?1, ?2, '')", rusqlite::params![id, body])
                .unwrap();
        }
        let (bo, wu) = (Phrase { token: "博物".into(), prefix: false }, Phrase { token: "物馆".into(), prefix: false });
        let mut m = DfMemo::default();
        assert_eq!(m.df(&c, &[bo.clone(), wu.clone()]).unwrap(), vec![2, 1]);
        m.persist(&c).unwrap();
        assert_eq!(stored(&c), vec![("\"博物\"".to_string(), 2), ("\"物馆\"".to_string(), 1)]);
        // A new handle in the same state reads them (a row changed by hand shows it).
        c.execute("UPDATE fts_counts SET n = 9 WHERE expr = '\"博物\"'", []).unwrap();
        assert_eq!(DfMemo::default().df(&c, std::slice::from_ref(&bo)).unwrap(), vec![9]);
        // Counted, then the index changed before the write: nothing is written, and the
        // stale rows are never read (a fresh handle counts 博物 in rows 1, 2 and 4).
        let mut m = DfMemo::default();
        m.df(&c, std::slice::from_ref(&wu)).unwrap();
        c.execute("INSERT INTO entries_fts(rowid, body, tag) VALUES (4, '博物', '')", []).unwrap();
        m.persist(&c).unwrap();
        assert_eq!(stored(&c), vec![("\"博物\"".to_string(), 9), ("\"物馆\"".to_string(), 1)]);
        let mut m = DfMemo::default();
        assert_eq!(m.df(&c, &[bo, wu]).unwrap(), vec![3, 1]);
        // Written for the new state, the old rows go.
        m.persist(&c).unwrap();
        assert_eq!(stored(&c), vec![("\"博物\"".to_string(), 3), ("\"物馆\"".to_string(), 1)]);
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
    fn idf_fts5_follows_fts5() {
        // ln((10 − 1 + 0.5) / (1 + 0.5)) = ln(6.333…) = 1.8458…
        assert!((idf_fts5(10, 1) - (9.5f64 / 1.5).ln()).abs() < 1e-15);
        // A phrase in more than half the rows: the log is negative, FTS5 uses 1e-6.
        assert_eq!(idf_fts5(10, 8), 1e-6);
    }

    /// Lucene's IDF in a root of N = 8 entries, worked by hand: ln(1 + (8 − n + 0.5) / (n + 0.5)).
    #[test]
    fn idf_is_lucenes_and_never_zero_at_n8() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // n = 1: ln(1 + 7.5 / 1.5) = ln 6 = 1.791759469228055 (FTS5: ln 5 = 1.6094379124341003)
        assert!(close(idf(8, 1), 1.791_759_469_228_055));
        assert!(close(idf_fts5(8, 1), 1.609_437_912_434_100_3));
        // n = 4: ln(1 + 4.5 / 4.5) = ln 2 = 0.6931471805599453 (FTS5: ln 1 = 0, floored to 1e-6)
        assert!(close(idf(8, 4), std::f64::consts::LN_2));
        assert_eq!(idf_fts5(8, 4), 1e-6);
        // n = 6: ln(1 + 2.5 / 6.5) = ln(18 / 13) = 0.32542240043462795 (FTS5: 1e-6)
        assert!(close(idf(8, 6), 0.325_422_400_434_627_95));
        assert_eq!(idf_fts5(8, 6), 1e-6);
        // n = 8, a word in every entry: ln(1 + 0.5 / 8.5) = ln(18 / 17) = 0.05715841383994862
        assert!(close(idf(8, 8), 0.057_158_413_839_948_62));
    }

    /// Whole BM25 values at N = 8 (k1 = 0.9, b = 0.4), worked by hand: an entry of the average
    /// length holding a word once has the term-frequency part 1 × 1.9 / (1 + 0.9 × 1) = 1, so its
    /// score is −idf.
    #[test]
    fn bm25_at_n8_counts_a_word_found_in_most_entries() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let (frequent, rare) = (idf(8, 6), idf(8, 1));
        // The frequent word (6 of 8) once, D = avgdl = 5: −0.32542240043462795, not FTS5's −1e-6.
        assert!(close(score_counts(&[1.0], 5, &[frequent], 5.0), -0.325_422_400_434_627_95));
        // Three times, same length: 3 × 1.9 / (3 + 0.9) = 1.4615384615… → −0.4756173544813793.
        assert!(close(score_counts(&[3.0], 5, &[frequent], 5.0), -0.475_617_354_481_379_3));
        // The rare word (1 of 8, idf ln 6) once in an entry twice as long (D = 10): 1.9 / (1 +
        // 0.9 × (0.6 + 0.4 × 2)) = 1.9 / 2.26 = 0.8407079646… → −1.506346456430666.
        assert!(close(score_counts(&[1.0], 10, &[rare], 5.0), -1.506_346_456_430_666));
        // A two-word question, one of each, both once at the average length: −(0.32542… +
        // 1.79175…) = −2.1171818696626827; the entry with only the frequent word still scores
        // above one with neither (0), where FTS5's IDF made both words' entries tie at ~0.
        let both = score_counts(&[1.0, 1.0], 5, &[frequent, rare], 5.0);
        assert!(close(both, -2.117_181_869_662_682_7));
        assert!(score_counts(&[1.0, 0.0], 5, &[frequent, rare], 5.0) < -0.3);
    }

    #[test]
    fn fast_nfc_ranges_are_nfc() {
        // Every character surely_nfc_char accepts has combining class 0 and NFC quick check Yes, so
        // skipping the quick check cannot change what the segmenter does.
        let ranges = [0..=0x7Fu32, 0x4E00..=0x9FFF, 0x3000..=0x3029, 0xFF01..=0xFF5E];
        let mut checked = 0;
        for c in ranges.into_iter().flatten().filter_map(char::from_u32) {
            assert_eq!(unicode_normalization::char::canonical_combining_class(c), 0, "{c:?}");
            let yes = unicode_normalization::is_nfc_quick(std::iter::once(c));
            assert_eq!(yes, unicode_normalization::IsNormalized::Yes, "{c:?}");
            assert!(surely_nfc_char(c));
            checked += 1;
        }
        // 128 + 20 992 + 42 + 94 characters.
        assert_eq!(checked, 21_256);
        assert!(!surely_nfc_char('\u{301}'));
        assert!(!surely_nfc_char('\u{F902}'));
    }

    #[test]
    fn punctuation_ranges_hold_no_letter_or_digit() {
        let n = (0..=0x10FFFF).filter_map(char::from_u32).filter(|c| surely_punctuation(*c)).count();
        // 112 + 5 + 25 + 15 + 7 + 6 + 11 characters.
        assert_eq!(n, 181);
        for c in (0..=0x10FFFF).filter_map(char::from_u32).filter(|c| surely_punctuation(*c)) {
            assert!(!c.is_alphanumeric() && !is_cjk(c), "{c:?}");
        }
    }

    #[test]
    fn counter_counts_by_hand() {
        use crate::fts5::query::{Mode, Query};
        // 哈哈哈 → 哈哈 哈哈 哈 (3 tokens): "哈哈" twice, "哈"* three times.
        let q = Query::new("哈哈 哈", Mode::And).unwrap();
        let mut c = Counter::new(&q);
        c.count("", "哈哈哈");
        assert_eq!((c.f.clone(), c.len), (vec![2.0, 3.0], 3));
        assert!(c.matches());
        // Tag 哈 (1 token, weight 2) + content "a 哈, 哈哈": a 哈 哈哈 哈 → D = 5;
        // "哈哈": content 1; "哈"*: tag 2 + content 3.
        c.count("哈", "a 哈, 哈哈");
        assert_eq!((c.f.clone(), c.len), (vec![1.0, 5.0], 5));
        // Meetings → meetings meet (2 tokens); the probe "meeting"* matches "meetings", its stem
        // phrase "meet" the stem; Painted → painted paint.
        let q = Query::new("meeting", Mode::And).unwrap();
        let mut c = Counter::new(&q);
        assert_eq!(c.phrases().iter().map(|p| p.fts()).collect::<Vec<_>>(), ["\"meeting\"*", "\"meet\""]);
        c.count("Painted", "Meetings 开会");
        assert_eq!((c.f.clone(), c.len), (vec![1.0, 1.0], 2 + 2 + 2));
        c.count("", "painted");
        assert!(!c.matches());
    }

    /// The reference counts: [`tokens`] (the segmenter's output, split) matched phrase by
    /// phrase, as [`score_tokens`] counts them.
    fn reference(phrases: &[Phrase], tag: &str, content: &str) -> (Vec<f64>, usize) {
        let toks = tokens(tag, content);
        let mut f = vec![0.0; phrases.len()];
        for (col, w) in WEIGHTS.iter().enumerate() {
            for t in toks.column(col) {
                for (i, p) in phrases.iter().enumerate() {
                    if p.matches(t) {
                        f[i] += w;
                    }
                }
            }
        }
        (f, toks.all().map(crate::fts5::segment::word_tokens).sum())
    }

    /// Text drawn from pieces where the counter could part from the segmenter: repeated
    /// characters (哈哈哈), one-character runs, kana, CJK compatibility ideographs (車 U+F902
    /// becomes 車 U+8ECA under NFC), decomposed accents, İ (lowercased to two characters),
    /// fullwidth letters, digits, words with stems, separators.
    fn text_strategy() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let parts = [
            "哈",
            "哈哈",
            "今",
            "今天",
            "天",
            "車",
            "\u{F902}",
            "车",
            "猫",
            "ひら",
            "カ",
            "〇",
            "a",
            "A",
            "İ",
            "e\u{301}",
            "é",
            "Ｒ",
            "ｕ",
            "7",
            "x2",
            "meetings",
            "Meeting",
            "painted",
            "paints",
            "running",
            "run",
            "cafe",
            "dying",
            "skies",
            "\u{212A}",
            "\u{2F800}",
            "Kk",
            "ki",
            "I",
            " ",
            ",",
            "，",
            "-",
            "\u{301}",
            "\u{3099}",
            "ﾊﾞ",
        ];
        proptest::collection::vec(proptest::sample::select(parts.to_vec()), 0..24).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]
        #[test]
        fn counter_equals_the_segmenter(tag in text_strategy(), content in text_strategy()) {
            use crate::fts5::query::{Mode, Query};
            let keywords = ["哈哈 哈", "今天 天 猫", "車 车", "meetings paint run", "cafe café é", "ひら カ",
                "x2 7 a", "ｒｕ Ｒ", "i\u{307} İ", "dying die sky", "〇 ﾊﾞ", "k", "丽", "kelvin", "i", "di", "sk", "ski"];
            for kw in keywords {
                for mode in [Mode::And, Mode::Or] {
                    let q = Query::new(kw, mode).unwrap();
                    let mut c = Counter::new(&q);
                    proptest::prop_assert_eq!(c.phrases(), &phrases(&q)[..]);
                    c.count(&tag, &content);
                    let (f, len) = reference(c.phrases(), &tag, &content);
                    proptest::prop_assert_eq!((&c.f, c.len), (&f, len), "{} in {:?} / {:?}", kw, tag, content);
                    proptest::prop_assert_eq!(c.matches(), matches(&q, &tokens(&tag, &content)));
                    // The pre-filter never drops a match.
                    proptest::prop_assert!(!c.matches() || may_match(&q, tag.as_bytes(), content.as_bytes()), "{} in {:?} / {:?}", kw, tag, content);
                }
            }
        }
    }

    #[test]
    fn one_row_scores_by_hand() {
        // Tag 周报 → tokens 周报 报 (2); content "周报 写完" → 周报 报 写完 完 (4): D = 6.
        // Phrase "周报": f = 2 × 1 (tag) + 1 × 1 (content) = 3. With idf 1 and avgdl 6:
        // 3 × 1.9 / (3 + 0.9 × (0.6 + 0.4 × 1)) = 5.7 / 3.9 = 1.461538…
        let p = [Phrase { token: "周报".into(), prefix: false }];
        let s = score(&p, &[1.0], 6.0, "周报", "周报 写完");
        assert!((s + 5.7 / 3.9).abs() < 1e-12, "{s}");
        // A prefix phrase counts every token that starts with it: 周* matches 周报 twice.
        let p = [Phrase { token: "周".into(), prefix: true }];
        assert!((score(&p, &[1.0], 6.0, "周报", "周报 写完") + 5.7 / 3.9).abs() < 1e-12);
    }
}
