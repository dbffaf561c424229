//! The scanner: finds the first (leftmost-longest) time expression that passes the boundary
//! rules.
//!
//! Linear time: for each start position the matchers read a bounded number of chars (literals,
//! numbers of at most 4 digits or 8 numeral chars, at most 3 spaces between words, a range is
//! two expressions and a connector), so the work per position is bounded by a constant and the
//! whole scan is O(n) in the text length. No backtracking, no regular expressions.

use chrono::NaiveDate;

use super::calendar::{DateSpan, add_days};
pub(crate) use super::hit::Hit;
use super::hit::{Ctx, Kind, Out};
use super::numbers::is_numeral;
use super::text::{Text, is_latin_word};
use super::{english, english_dates, glue, holiday, iso, range, since, zh_calendar, zh_relative};

/// The chars an expression may start with.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// One of these chars (after normalisation).
    Chars(&'static str),
    /// A numeral: an ASCII digit or a Chinese numeral ([`is_numeral`]).
    Numeral,
    /// An ASCII letter or digit (English words, ISO dates, `Q3`).
    Ascii,
}

impl Start {
    fn matches(self, c: char) -> bool {
        match self {
            Start::Chars(set) => set.contains(c),
            Start::Numeral => is_numeral(c),
            Start::Ascii => c.is_ascii_alphanumeric(),
        }
    }
}

/// A matcher: pushes every reading of one family of expressions starting at a position.
type Matcher = fn(&mut Out, usize, &Ctx);

/// Every single (non-range) matcher and the chars its expressions start with. The scanner runs
/// at a position only the matchers whose start set holds the char there, in this order (which
/// decides among readings of equal length).
const MATCHERS: &[(&[Start], Matcher)] = &[
    (&[Start::Chars("今昨前大明后刚")], zh_relative::day_words),
    (&[Start::Numeral], zh_relative::ago),
    (&[Start::Chars("本这上下")], zh_relative::weeks),
    (&[Start::Chars("周星礼")], zh_relative::bare_weekday),
    (&[Start::Chars("最近过这")], zh_relative::rolling),
    (&[Start::Chars("前最近")], zh_relative::fuzzy),
    (&[Start::Numeral, Start::Chars("今去前大明")], zh_calendar::years),
    (&[Start::Numeral, Start::Chars("本这上下")], zh_calendar::months),
    (&[Start::Chars("月上中下年")], zh_calendar::bare_parts),
    (&[Start::Numeral, Start::Chars("q第本这上")], zh_calendar::quarters),
    (&[Start::Numeral], zh_calendar::range_end_day),
    (&[Start::Numeral], zh_calendar::bare_day),
    (&[Start::Chars(holiday::ZH_FIRST), Start::Ascii], holiday::bare),
    (&[Start::Ascii], iso::dates),
    (&[Start::Ascii], english::days),
    (&[Start::Ascii], english::ago),
    (&[Start::Ascii], english::this_last),
    (&[Start::Ascii], english::rolling),
    (&[Start::Ascii], english::weekdays),
    (&[Start::Ascii], english::weekday_ago),
    (&[Start::Ascii], english_dates::months),
    (&[Start::Ascii], english_dates::parts),
    (&[Start::Ascii], english_dates::quarters_halves_years),
    (&[Start::Ascii], english_dates::range_end_day),
    (&[Start::Ascii], english_dates::ordinal_day),
];

/// Prefix chars of ranges and "since X" (从X到Y, 自X以来) besides the matchers' starts.
const PREFIX_STARTS: &str = "从自";

/// Bit of [`START_MASKS`] set for a char of [`PREFIX_STARTS`]; bits `0..MATCHERS.len()` are the
/// matchers'.
const PREFIX_BIT: u32 = 1 << 31;
const _: () = assert!(MATCHERS.len() < 31, "one bit per matcher in START_MASKS");

/// For every char of the Basic Multilingual Plane (normalised text, so the index is the char
/// itself): bit `k` set when matcher `k` of [`MATCHERS`] may start with it, [`PREFIX_BIT`] when
/// it is a prefix of ranges and "since X". Built once from the start sets, so the scanner's
/// per-char tests are one table read instead of a walk over every matcher's start chars (that
/// walk was half the time of [`crate::parse_all`] over an archive's entries).
static START_MASKS: std::sync::LazyLock<Box<[u32]>> =
    std::sync::LazyLock::new(|| (0u32..0x1_0000).map(|cp| char::from_u32(cp).map_or(0, start_mask_of)).collect());

/// The [`START_MASKS`] entry of `c`, computed from the start sets.
fn start_mask_of(c: char) -> u32 {
    let mut m = if PREFIX_STARTS.contains(c) { PREFIX_BIT } else { 0 };
    for (k, (starts, _)) in MATCHERS.iter().enumerate() {
        if starts.iter().any(|s| s.matches(c)) {
            m |= 1 << k;
        }
    }
    m
}

/// The start mask of `c` ([`START_MASKS`]; computed for a char beyond the BMP).
fn start_mask(c: char) -> u32 {
    START_MASKS.get(c as usize).copied().unwrap_or_else(|| start_mask_of(c))
}

/// Every single (non-range) expression starting at `i`.
pub(crate) fn singles(out: &mut Out, i: usize, cx: &Ctx) {
    let Some(c) = out.t.at(i) else { return };
    let mask = start_mask(c);
    for (k, (_, matcher)) in MATCHERS.iter().enumerate() {
        if mask & (1 << k) != 0 {
            matcher(out, i, cx);
        }
    }
}

/// True if an expression can start at `i`: a matcher's start char, not inside an English word
/// and not inside a quotation.
fn may_start(t: &Text, i: usize) -> bool {
    let Some(c) = t.at(i) else { return false };
    if t.is_quoted(i) {
        return false;
    }
    if c.is_ascii_alphanumeric() {
        return !t.before(i).is_some_and(is_latin_word);
    }
    is_start(c)
}

/// True if an expression can start with the normalised char `c`: a matcher's start char or a
/// prefix of ranges and "since X" ([`may_start`] adds the word and quotation rules). Also the
/// char test of [`crate::precheck`].
pub(crate) fn is_start(c: char) -> bool {
    start_mask(c) != 0
}

/// True if the hit is followed by a range connector and another expression: then a range was
/// meant but could not be read (`3月到2月`, `昨天到周五`), and the first half alone would be a
/// wrong window.
fn dangling_range(t: &Text, h: &Hit, cx: &Ctx) -> bool {
    range::connectors(t, h.end, false).into_iter().any(|k| {
        let mut ys = Out::new(t);
        singles(&mut ys, k, cx);
        !ys.hits.is_empty()
    })
}

/// Every reading starting at `i`, longest first (the stable sort keeps matcher order among
/// equal lengths).
fn readings(t: &Text, i: usize, cx: &Ctx) -> Vec<Hit> {
    let mut out = Out::new(t);
    singles(&mut out, i, cx);
    range::ranges(&mut out, i, cx, singles);
    since::since(&mut out, i, cx, singles);
    out.hits.sort_by_key(|h| std::cmp::Reverse(h.end));
    out.hits
}

/// The first time expression in `t` starting at or after `from`: its start index and reading.
/// `cx` holds the local date the relative expressions count from.
fn find_from(t: &Text, cx: &Ctx, from: usize) -> Option<(usize, Hit)> {
    for i in from..t.len() {
        if !may_start(t, i) {
            continue;
        }
        for h in readings(t, i, cx) {
            if glue::accepts(t, i, &h) && (h.kind == Kind::Range || !dangling_range(t, &h, cx)) {
                return Some((i, h));
            }
            if glue::boundary_after(t, &h) {
                break;
            }
        }
    }
    None
}

/// One time expression found in the text.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Char index of its first char (an English preposition before it included: `in March`).
    pub(crate) start: usize,
    /// Char index just past it (a pointing filler after it included: `中秋那天`).
    pub(crate) end: usize,
    pub(crate) hit: Hit,
}

/// Expressions joined by a union connector (`上周三和上周五`, `in January and March`): the
/// window is every member's (an entry in any of them counts). Most groups have one member.
pub(crate) type Group = Vec<Found>;

/// Chinese union connectors, longest first (`还有` before `还`; `、` lists: 周一、周三和周五).
const ZH_UNION: [&str; 9] = ["还有", "以及", "或者", "和", "及", "与", "跟", "或", "、"];

/// English union connectors (after a space).
const EN_UNION: [&str; 2] = ["and", "or"];

/// Most members of one union (a bound that keeps the scan linear).
const MAX_UNION: usize = 6;

/// Where the next member of a union may start after an expression ending at `end`: after a
/// connector of [`ZH_UNION`] or [`EN_UNION`] and optional spaces.
fn union_next(t: &Text, end: usize) -> Option<usize> {
    let j = t.opt_spaces(end)?;
    if let Some(k) = ZH_UNION.iter().find_map(|c| t.lit(j, c)) {
        return t.opt_spaces(k);
    }
    let j = t.spaces(end)?;
    EN_UNION.iter().find_map(|w| super::english::lead(t, j, w))
}

/// The member of a union at `k` after `x`: like the end of a range, a member that leaves out
/// what it shares with `x` takes it from `x` (`上周三和周五` is last week's Friday, `3月5号和8号`
/// March 8); one that can stand alone otherwise is read alone (`春节和中秋`).
fn union_member(t: &Text, k: usize, x: &Hit, cx: &Ctx) -> Option<Hit> {
    let mut tied = Out::new(t);
    singles(&mut tied, k, &cx.after(x));
    tied.hits.sort_by_key(|h| std::cmp::Reverse(h.end));
    let free = readings(t, k, cx);
    tied.hits.into_iter().chain(free).find(|y| glue::accepts_member(t, k, y))
}

/// The time expressions in `t`, left to right, as groups of union members, at most `max`
/// groups. After an expression the scan resumes at its end, so expressions never overlap.
pub(crate) fn all(t: &Text, today: NaiveDate, max: usize) -> Vec<Group> {
    let cx = Ctx::new(today);
    let mut groups = Vec::new();
    let mut from = 0;
    while groups.len() < max
        && let Some((start, hit)) = find_from(t, &cx, from)
    {
        let hit = since_clause(t, start, &hit, &cx).unwrap_or(hit);
        let mut group = vec![found(t, start, hit)];
        while group.len() < MAX_UNION {
            let x = &group[group.len() - 1].hit;
            let Some(k) = union_next(t, x.end) else { break };
            let Some(y) = union_member(t, k, x, &cx) else { break };
            // The member before a connector ends where its reading ends (no filler).
            let n = group.len();
            group[n - 1].end = group[n - 1].hit.end;
            group.push(found(t, k, y));
        }
        from = group[group.len() - 1].end.max(start + 1);
        groups.push(group);
    }
    groups
}

/// Words that end a "since" clause looking back from an expression: a new clause starts
/// after them (`since I finished the book when I went to the fair last week`: the week is
/// the fair's).
const SINCE_CLAUSE_STOPS: [&str; 9] = ["when", "while", "before", "after", "until", "and", "but", "because", "if"];

/// Most words between `since` and the expression it scopes (`since I started writing again
/// three weeks ago`: four).
const SINCE_CLAUSE_WORDS: usize = 8;

/// Most chars between `自从` and the expression it scopes (`自从我三周前…`).
const SINCE_CLAUSE_CHARS: usize = 12;

/// "Since" scoping a clause whose time expression comes later: `since I started writing again
/// three weeks ago`, `ever since we moved here last year`, `自从我三周前开始写作`: the clause's
/// expression X at `start` gives the window `[start(X), D+1)`, as `since X` does (the
/// "since X" row of the time-expression table: the clause says when the counted period
/// began). Only the expression is removed from the scored text; the clause's words stay.
/// `None` when no `since`/`ever since`/`自从` precedes X in its clause (no clause punctuation
/// or [`SINCE_CLAUSE_STOPS`] word between them, at most [`SINCE_CLAUSE_WORDS`] words or
/// [`SINCE_CLAUSE_CHARS`] chars), when X is not a plain day/week/month/year expression, or
/// when X starts after today.
fn since_clause(t: &Text, start: usize, hit: &Hit, cx: &Ctx) -> Option<Hit> {
    if !hit.rangeable() || hit.span.start > cx.today {
        return None;
    }
    let mut j = start;
    let mut words = 0;
    let mut zh_chars = 0;
    let mut found_since = false;
    while j > 0 {
        let c = t.at(j - 1)?;
        if ",.;:!?，。；：！？、\n()（）\"“”".contains(c) || t.is_quoted(j - 1) {
            return None;
        }
        if c.is_ascii_alphabetic() {
            let mut k = j;
            while k > 0 && t.at(k - 1).is_some_and(|c| c.is_ascii_alphabetic()) {
                k -= 1;
            }
            let w = t.slice(k, j).to_ascii_lowercase();
            if w == "since" {
                found_since = true;
                break;
            }
            if SINCE_CLAUSE_STOPS.contains(&w.as_str()) || words == SINCE_CLAUSE_WORDS {
                return None;
            }
            words += 1;
            j = k;
            continue;
        }
        if super::text::is_cjk(c) {
            if j >= 2 && t.has(j - 2, "自从") {
                found_since = true;
                break;
            }
            zh_chars += 1;
            if zh_chars > SINCE_CLAUSE_CHARS {
                return None;
            }
        }
        j -= 1;
    }
    if !found_since || words + zh_chars == 0 {
        // No `since` found, or it stands right before X (read by `since::since`).
        return None;
    }
    let span = DateSpan::new(hit.span.start, add_days(cx.today, 1)?)?;
    Some(Hit { span, grain: super::Grain::Range, fuzzy: false, kind: Kind::Range, ..hit.clone() })
}

/// A reading at `start`, with the preposition before it and the filler after it.
fn found(t: &Text, start: usize, hit: Hit) -> Found {
    Found { start: glue::with_preposition(t, start), end: glue::with_filler(t, hit.end), hit }
}
