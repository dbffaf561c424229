//! The scanner: finds the first (leftmost-longest) time expression that passes the boundary
//! rules.
//!
//! Linear time: for each start position the matchers read a bounded number of chars (literals,
//! numbers of at most 4 digits or 8 numeral chars, at most 3 spaces between words, a range is
//! two expressions and a connector), so the work per position is bounded by a constant and the
//! whole scan is O(n) in the text length. No backtracking, no regular expressions.

use chrono::NaiveDate;

use super::hit::{Ctx, Hit, Kind, Out};
use super::numbers::is_numeral;
use super::text::{Text, is_latin_word};
use super::{english, english_dates, glue, holiday, iso, range, since, zh_calendar, zh_relative};

/// First chars of the Chinese expressions (numbers and Latin letters are handled apart).
const ZH_STARTS: &str = "今昨前大明后刚这本上最近过周星礼月年去从自中下第几两半";

/// Every single (non-range) expression starting at `i`.
pub(crate) fn singles(out: &mut Out, i: usize, cx: &Ctx) {
    zh_relative::day_words(out, i, cx);
    zh_relative::ago(out, i, cx);
    zh_relative::weeks(out, i, cx);
    zh_relative::bare_weekday(out, i, cx);
    zh_relative::rolling(out, i, cx);
    zh_relative::fuzzy(out, i, cx);
    zh_calendar::years(out, i, cx);
    zh_calendar::months(out, i, cx);
    zh_calendar::bare_parts(out, i, cx);
    zh_calendar::quarters(out, i, cx);
    zh_calendar::range_end_day(out, i, cx);
    zh_calendar::bare_day(out, i, cx);
    holiday::bare(out, i, cx);
    iso::dates(out, i, cx);
    english::days(out, i, cx);
    english::ago(out, i, cx);
    english::this_last(out, i, cx);
    english::rolling(out, i, cx);
    english::weekdays(out, i, cx);
    english_dates::months(out, i, cx);
    english_dates::parts(out, i, cx);
    english_dates::quarters_halves_years(out, i, cx);
    english_dates::range_end_day(out, i, cx);
    english_dates::ordinal_day(out, i, cx);
}

/// True if an expression can start at `i` (a cheap filter before running the matchers).
fn may_start(t: &Text, i: usize) -> bool {
    let Some(c) = t.at(i) else { return false };
    if c.is_ascii_alphanumeric() {
        return !t.before(i).is_some_and(is_latin_word);
    }
    is_numeral(c) || ZH_STARTS.contains(c) || holiday::ZH_FIRST.contains(c)
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

/// The first time expression in `t`: its start index and reading. `today` is the local date
/// the relative expressions count from.
pub(crate) fn find(t: &Text, today: NaiveDate) -> Option<(usize, Hit)> {
    let cx = Ctx::new(today);
    for i in 0..t.len() {
        if !may_start(t, i) || t.is_quoted(i) {
            continue;
        }
        let mut out = Out::new(t);
        singles(&mut out, i, &cx);
        range::ranges(&mut out, i, &cx, singles);
        since::since(&mut out, i, &cx, singles);
        // Longest first; the stable sort keeps matcher order among equal lengths.
        out.hits.sort_by_key(|h| std::cmp::Reverse(h.end));
        for h in out.hits {
            if glue::accepts(t, i, &h) && (h.kind == Kind::Range || !dangling_range(t, &h, &cx)) {
                return Some((i, h));
            }
            if glue::boundary_after(t, &h) {
                break;
            }
        }
    }
    None
}
