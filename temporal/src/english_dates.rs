//! English calendar expressions: `[in] March`, `March 2025`, `March last year`, `[on] March 5`,
//! `March 5th, 2025`, `5 March`, `the 5th of March`, `early|mid|late March`, `the end|beginning
//! of March|last month`, `early|late 2025` (年初 / 年底), `the first quarter [of 2025]`, `the
//! first half of 2025`, `in 2025`. A form without a year is past-preferring.
//!
//! `may` and `march` are also a modal and a verb (`May I ask`, `we march on`): alone they count
//! as months only after `in`/`during`/`on`/`early`/`mid`/`late`; with a day or year they also
//! count when capitalised (`May 5`, `March 2025`) or, day first, after `of` or an ordinal
//! (`5th march`).

use chrono::Datelike;

use super::Grain;
use super::calendar::{DateSpan, Third, YearPart, shift_ym};
use super::english::{lead, seq};
use super::hit::{Ctx, Head, Kind, Out};
use super::numbers::{digits, year4};
use super::text::{Text, is_cjk, is_latin_word};

/// Month names and abbreviations: (word, month, is an abbreviation).
const MONTHS: [(&str, u32, bool); 24] = [
    ("january", 1, false),
    ("february", 2, false),
    ("march", 3, false),
    ("april", 4, false),
    ("may", 5, false),
    ("june", 6, false),
    ("july", 7, false),
    ("august", 8, false),
    ("september", 9, false),
    ("october", 10, false),
    ("november", 11, false),
    ("december", 12, false),
    ("jan", 1, true),
    ("feb", 2, true),
    ("mar", 3, true),
    ("apr", 4, true),
    ("jun", 6, true),
    ("jul", 7, true),
    ("aug", 8, true),
    ("sep", 9, true),
    ("sept", 9, true),
    ("oct", 10, true),
    ("nov", 11, true),
    ("dec", 12, true),
];

/// A month name at `i`.
struct MonthName {
    month: u32,
    end: usize,
    abbrev: bool,
    /// `may` / `march`: also a modal and a verb.
    ambiguous: bool,
    /// Written with a lowercase first letter.
    lowercase: bool,
}

fn month_name(t: &Text, i: usize) -> Option<MonthName> {
    MONTHS.iter().find_map(|&(w, month, abbrev)| {
        let mut end = t.word(i, w)?;
        if abbrev && t.at(end) == Some('.') {
            end += 1;
        }
        let ambiguous = matches!(w, "may" | "march");
        let lowercase = t.orig_at(i).is_some_and(char::is_lowercase);
        Some(MonthName { month, end, abbrev, ambiguous, lowercase })
    })
}

/// A day of month at `i`: 1–2 digits, optional `st|nd|rd|th`, not followed by a letter or a
/// CJK char (`2月` is Chinese). Returns (day, end, has ordinal).
fn day_num(t: &Text, i: usize) -> Option<(u32, usize, bool)> {
    let (d, j) = digits(t, i, 2).filter(|&(d, _)| (1..=31).contains(&d))?;
    let ord = ["st", "nd", "rd", "th"].iter().find_map(|s| t.word(j, s));
    let end = ord.unwrap_or(j);
    (!t.at(end).is_some_and(|c| is_latin_word(c) || is_cjk(c))).then_some((d, end, ord.is_some()))
}

/// A four-digit Arabic year at `i`, at a word boundary.
pub(crate) fn year_at(t: &Text, i: usize) -> Option<(i32, usize)> {
    let (y, e) = year4(t, i)?;
    (t.at(i)?.is_ascii_digit() && !t.at(e).is_some_and(is_latin_word)).then_some((y, e))
}

/// A year after spaces at `i`.
fn year_after(t: &Text, i: usize) -> Option<(i32, usize)> {
    year_at(t, t.spaces(i)?)
}

/// `last year` / `this year` after spaces at `i`: (year, end).
fn relative_year_after(t: &Text, i: usize, cx: &Ctx) -> Vec<(i32, usize)> {
    let Some(j) = t.spaces(i) else { return Vec::new() };
    [("last", -1), ("this", 0)]
        .iter()
        .filter_map(|&(w, off)| seq(t, j, &[w, "year"]).map(|e| (cx.today.year() + off, e)))
        .collect()
}

/// Months and days named with a month name.
pub(crate) fn months(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    let mut starts = vec![(i, false)];
    starts.extend(["in", "during", "on"].iter().filter_map(|w| lead(t, i, w).map(|j| (j, true))));
    for (j, led) in starts {
        let Some(mn) = month_name(t, j) else { continue };
        let (m, e) = (mn.month, mn.end);
        if mn.ambiguous && !led && mn.lowercase {
            continue;
        }
        if let Some((d, f, _)) = t.spaces(e).and_then(|k| day_num(t, k)) {
            let f2 = if t.at(f) == Some(',') { f + 1 } else { f };
            if let Some((y, g)) = year_after(t, f2) {
                out.push_day(g, DateSpan::ymd(y, m, d), Head::Latin, Kind::Date);
            }
            out.push_day(f, cx.yearless(|y| DateSpan::ymd(y, m, d)), Head::Latin, Kind::Date);
        }
        if let Some((y, g)) = year_after(t, e) {
            out.push(g, DateSpan::month(y, m), Grain::Month, Head::Latin, Kind::Month);
        }
        for (y, g) in relative_year_after(t, e, cx) {
            out.push(g, DateSpan::month(y, m), Grain::Month, Head::Latin, Kind::Month);
        }
        // After since/from/until a capitalised March or May is the month (`since March`); after
        // and/or too, where only a union member may follow (`in January and March`).
        let boundary = || {
            !mn.lowercase
                && super::glue::prev_word(t, j)
                    .is_some_and(|w| ["since", "from", "until", "till", "to", "and", "or"].contains(&w.as_str()))
        };
        if !mn.abbrev && (led || !mn.ambiguous || boundary()) {
            out.push(e, cx.yearless(|y| DateSpan::month(y, m)), Grain::Month, Head::Latin, Kind::Month);
        }
    }
    // Day first: [on] [the] 5[th] [of] March [2025].
    let mut firsts = vec![i];
    firsts.extend(lead(t, i, "on"));
    let with_the: Vec<usize> = firsts.iter().filter_map(|&k| lead(t, k, "the")).collect();
    for &k in firsts.iter().chain(&with_the) {
        let Some((d, f, ord)) = day_num(t, k) else { continue };
        let Some(g) = t.spaces(f) else { continue };
        let (g, of) = lead(t, g, "of").map_or((g, false), |g2| (g2, true));
        let Some(mn) = month_name(t, g) else { continue };
        if mn.ambiguous && mn.lowercase && !of && !ord {
            continue;
        }
        if let Some((y, h)) = year_after(t, mn.end) {
            out.push_day(h, DateSpan::ymd(y, mn.month, d), Head::Latin, Kind::Date);
        }
        out.push_day(mn.end, cx.yearless(|y| DateSpan::ymd(y, mn.month, d)), Head::Latin, Kind::Date);
    }
}

/// `early|mid|late <month> [year]`, `early|mid|late this|last month`, `the end|beginning|start
/// of …` (late / early), `early|late <year>|this year|last year` (年初 / 年底).
pub(crate) fn parts(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    let mut leads: Vec<(usize, Third)> = Vec::new();
    for (w, part) in [("early", Third::Early), ("mid", Third::Mid), ("late", Third::Late)] {
        if let Some(e) = t.word(i, w) {
            leads.extend(t.spaces(e).map(|j| (j, part)));
            if t.at(e) == Some('-') {
                leads.push((e + 1, part));
            }
        }
    }
    let phrases: [(&[&str], Third); 6] = [
        (&["the", "end", "of"], Third::Late),
        (&["end", "of"], Third::Late),
        (&["the", "beginning", "of"], Third::Early),
        (&["beginning", "of"], Third::Early),
        (&["the", "start", "of"], Third::Early),
        (&["start", "of"], Third::Early),
    ];
    for (ws, part) in phrases {
        if let Some(j) = seq(t, i, ws).and_then(|e| t.spaces(e)) {
            leads.push((j, part));
        }
    }
    for (j, part) in leads {
        if let Some(mn) = month_name(t, j) {
            let m = mn.month;
            if let Some((y, g)) = year_after(t, mn.end) {
                out.push(g, DateSpan::third(y, m, part), Grain::Range, Head::Latin, Kind::Calendar);
            }
            out.push(mn.end, cx.yearless(|y| DateSpan::third(y, m, part)), Grain::Range, Head::Latin, Kind::Calendar);
        }
        for (w, off) in [("this", 0), ("last", -1)] {
            if let Some(g) = seq(t, j, &[w, "month"])
                && let Some((y, m)) = shift_ym(cx.today.year(), cx.today.month(), off)
            {
                out.push(g, DateSpan::third(y, m, part), Grain::Range, Head::Latin, Kind::Calendar);
            }
        }
        // the end of the month (bare 月底: this month's if it started, else last month's).
        if let Some(g) = seq(t, j, &["the", "month"]) {
            out.push(
                g,
                cx.monthless(true, |y, m| DateSpan::third(y, m, part)),
                Grain::Range,
                Head::Latin,
                Kind::Calendar,
            );
        }
        let year_part = match part {
            Third::Early => YearPart::Start,
            Third::Late => YearPart::End,
            Third::Mid => continue,
        };
        // the beginning of the year (bare 年初, past-preferring).
        if let Some(g) = seq(t, j, &["the", "year"]) {
            let span = cx.yearless(|y| DateSpan::year_part(y, year_part));
            out.push(g, span, Grain::Range, Head::Latin, Kind::Calendar);
        }
        if let Some((y, g)) = year_at(t, j) {
            out.push(g, DateSpan::year_part(y, year_part), Grain::Range, Head::Latin, Kind::Calendar);
        }
        for (w, off) in [("this", 0), ("last", -1)] {
            if let Some(g) = seq(t, j, &[w, "year"]) {
                let span = DateSpan::year_part(cx.today.year() + off, year_part);
                out.push(g, span, Grain::Range, Head::Latin, Kind::Calendar);
            }
        }
    }
}

/// `[the] first|second|third|fourth quarter [of 2025|of last year|of this year]`, `[the]
/// first|second half of 2025|last year|this year|the year`, `in|during 2025`.
pub(crate) fn quarters_halves_years(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    for j in [Some(i), lead(t, i, "the")].into_iter().flatten() {
        for (w, q) in [("first", 1), ("second", 2), ("third", 3), ("fourth", 4)] {
            let Some(e) = seq(t, j, &[w, "quarter"]) else { continue };
            out.push(e, cx.yearless(|y| DateSpan::quarter(y, q)), Grain::Quarter, Head::Latin, Kind::Calendar);
            if let Some(k) = t.spaces(e).and_then(|k| lead(t, k, "of")) {
                for (y, g) in of_year(t, k, cx) {
                    out.push(g, DateSpan::quarter(y, q), Grain::Quarter, Head::Latin, Kind::Calendar);
                }
            }
        }
        for (w, part) in [("first", YearPart::FirstHalf), ("second", YearPart::SecondHalf)] {
            let Some(k) = seq(t, j, &[w, "half", "of"]).and_then(|e| t.spaces(e)) else { continue };
            for (y, g) in of_year(t, k, cx) {
                out.push(g, DateSpan::year_part(y, part), Grain::Range, Head::Latin, Kind::Calendar);
            }
            if let Some(g) = seq(t, k, &["the", "year"]) {
                let span = cx.yearless(|y| DateSpan::year_part(y, part));
                out.push(g, span, Grain::Range, Head::Latin, Kind::Calendar);
            }
        }
    }
    for w in ["in", "during"] {
        if let Some((y, e)) = lead(t, i, w).and_then(|j| year_at(t, j)) {
            out.push(e, DateSpan::year(y), Grain::Year, Head::Latin, Kind::Calendar);
        }
    }
}

/// A year at `k`: `2025`, `last year`, `this year`.
fn of_year(t: &Text, k: usize, cx: &Ctx) -> Vec<(i32, usize)> {
    let mut v: Vec<(i32, usize)> = year_at(t, k).into_iter().collect();
    for (w, off) in [("last", -1), ("this", 0)] {
        v.extend(seq(t, k, &[w, "year"]).map(|e| (cx.today.year() + off, e)));
    }
    v
}

/// Only as a range end after a date: a bare day of that date's month (`March 1-7`,
/// `March 1 to 7th`).
pub(crate) fn range_end_day(out: &mut Out, i: usize, cx: &Ctx) {
    // Only after an English date (`March 1-7`): after `2026-03` a `-05` is the rest of a date.
    if !cx.after.is_some_and(|p| p.head == Head::Latin) {
        return;
    }
    if let Some((d, e, _)) = day_num(out.t, i) {
        out.push_day(e, cx.monthless(false, |y, m| DateSpan::ymd(y, m, d)), Head::Latin, Kind::Date);
    }
}

/// Words that may follow `the 21st` when it is a date (anything else, as in `the 21st century`
/// or `the 3rd floor`, makes it some other ordinal).
const AFTER_ORDINAL: [&str; 16] =
    ["and", "at", "in", "on", "when", "we", "i", "you", "they", "about", "for", "with", "or", "to", "what", "was"];

/// Spec v2: `the 21st`, `on the 3rd` (bare: the latest day N on or before today, months without
/// day N skipped, as 21号) and `the 3rd of this month` / `of last month`.
pub(crate) fn ordinal_day(out: &mut Out, i: usize, cx: &Ctx) {
    if cx.after.is_some() {
        return;
    }
    let t = out.t;
    let Some(j) = lead(t, lead(t, i, "on").unwrap_or(i), "the") else { return };
    let Some((d, e, true)) = day_num(t, j) else { return };
    for (w, off) in [("this", 0), ("last", -1)] {
        if let Some(g) = t.spaces(e).and_then(|k| seq(t, k, &["of", w, "month"]))
            && let Some((y, m)) = shift_ym(cx.today.year(), cx.today.month(), off)
        {
            out.push_day(g, DateSpan::ymd(y, m, d), Head::Latin, Kind::Date);
        }
    }
    let next_ok = match t.spaces(e) {
        Some(k) if t.at(k).is_some_and(|c| c.is_ascii_alphabetic()) => {
            AFTER_ORDINAL.iter().any(|w| t.word(k, w).is_some())
        }
        _ => !t.at(e).is_some_and(|c| c.is_ascii_alphanumeric()),
    };
    if next_ok {
        let span = (0..4).find_map(|back| {
            let (y, m) = shift_ym(cx.today.year(), cx.today.month(), -back)?;
            DateSpan::ymd(y, m, d).filter(|s| s.start <= cx.today)
        });
        out.push_day(e, span.map(DateSpan::guessed), Head::Latin, Kind::Date);
    }
}
