//! The FTS5 query a keyword becomes: its terms, each term's probes (the segmenter's tokens,
//! whole or as prefixes), and the MATCH expression of quoted probes, so user text is never
//! FTS5 syntax.

use serde::Serialize;

use crate::fts5::segment::{Piece, Probe, pieces, term_probes, text_has_probe};
use crate::{Error, Result};

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

impl std::str::FromStr for Mode {
    type Err = Error;

    /// [`Mode::parse`] of `Some(s)`.
    fn from_str(s: &str) -> Result<Mode> {
        Mode::parse(Some(s))
    }
}

/// Longest keyword or question, in Unicode code points (memlayers; the plugin sets no limit).
/// A query is segmented and echoed (`tokens`, `probes`, `explain`) in full, so an 8-million-
/// character keyword cost 14.5 s and an 8 MB reply on the one-at-a-time MCP server before this
/// bound. 200 000 is 50 times the longest entry `write` accepts and leaves room for the
/// repeated-term queries (150 000 code points of one term) that must still be answered.
pub const MAX_QUERY_CHARS: usize = 200_000;

/// Errors (naming `field`) when `text` is longer than [`MAX_QUERY_CHARS`] code points.
pub(crate) fn check_query_length(field: &str, text: &str) -> Result<()> {
    // Counting stops at the bound: the check itself stays O(bound) on any input.
    if text.chars().nth(MAX_QUERY_CHARS).is_some() {
        return Err(Error::bad(field, format!("is longer than the limit of {MAX_QUERY_CHARS} characters")));
    }
    Ok(())
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
        self.fts_with(Probe::fts)
    }

    /// [`Query::fts`] with each probe written by `probe`.
    pub fn fts_with(&self, probe: impl Fn(&Probe) -> String) -> String {
        let joiner = if self.mode == Mode::And { " AND " } else { " OR " };
        let mut seen = std::collections::HashSet::new();
        self.probes
            .iter()
            .filter(|ps| seen.insert(*ps))
            .map(|ps| format!("({})", ps.iter().map(&probe).collect::<Vec<_>>().join(" AND ")))
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
