//! English expressions relative to today (spec: "English has the same rows, in the forms
//! people type"): `today` `yesterday` `the day before yesterday` `tomorrow` (+ `morning` …,
//! `tonight`, `last night`, `this morning`), `N days|weeks|months|years ago`, `this|last
//! week|month|year|quarter|weekend`, `the week|month|year before last`, `last|past N
//! days|weeks|months|years`, `the past week`, `last Monday`, `this Monday`, `on Monday`, `the
//! weekend`, and the fuzzy `recently` `lately` `a few days ago` `the past few days`.
//!
//! Words are matched lowercased (the text is folded), at word boundaries, separated by one to
//! three spaces; number words are `one`…`twelve` (and `a`/`an` before `ago`).

use chrono::Datelike;

use super::Grain;
use super::calendar::{DateSpan, add_days, quarter_of, shift_ym};
use super::hit::{Ctx, Head, Kind, Out, Unit};
use super::numbers::en_count;
use super::text::Text;

/// Weekday names, Monday first.
pub(crate) const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// Unit words, singular and plural.
const UNITS: [(&str, Unit); 8] = [
    ("days", Unit::Day),
    ("day", Unit::Day),
    ("weeks", Unit::Week),
    ("week", Unit::Week),
    ("months", Unit::Month),
    ("month", Unit::Month),
    ("years", Unit::Year),
    ("year", Unit::Year),
];

/// The words `words` in order, separated by spaces, starting at `i`: the index after the last.
pub(crate) fn seq(t: &Text, i: usize, words: &[&str]) -> Option<usize> {
    let mut j = i;
    for (k, w) in words.iter().enumerate() {
        if k > 0 {
            j = t.spaces(j)?;
        }
        j = t.word(j, w)?;
    }
    Some(j)
}

/// The word `w` and the spaces after it: the index of the next word.
pub(crate) fn lead(t: &Text, i: usize, w: &str) -> Option<usize> {
    t.word(i, w).and_then(|e| t.spaces(e))
}

/// A weekday name at `i`: (0 = Monday, end).
pub(crate) fn weekday(t: &Text, i: usize) -> Option<(u32, usize)> {
    WEEKDAYS.iter().enumerate().find_map(|(k, w)| t.word(i, w).map(|e| (k as u32, e)))
}

/// today, yesterday, tomorrow, the day before yesterday, the day after tomorrow (each with an
/// optional part of day), tonight, last night, this morning/afternoon/evening, just now.
pub(crate) fn days(out: &mut Out, i: usize, cx: &Ctx) {
    if !(out.t.starts_ascii(i)) {
        return;
    }
    let t = out.t;
    for (w, off) in [("today", 0), ("yesterday", -1), ("tomorrow", 1)] {
        if let Some(e) = t.word(i, w) {
            out.push_day(e, cx.day(off), Head::Latin, Kind::Relative);
        }
    }
    let phrases: [(&[&str], i64); 4] = [
        (&["the", "day", "before", "yesterday"], -2),
        (&["day", "before", "yesterday"], -2),
        (&["the", "day", "after", "tomorrow"], 2),
        (&["day", "after", "tomorrow"], 2),
    ];
    for (ws, off) in phrases {
        if let Some(e) = seq(t, i, ws) {
            out.push_day(e, cx.day(off), Head::Latin, Kind::Relative);
        }
    }
    if let Some(e) = t.word(i, "tonight") {
        out.push_day_with_pod(e, cx.day(0), (i, e), Head::Latin);
    }
    if let Some(j) = lead(t, i, "last")
        && let Some(e) = t.word(j, "night")
    {
        out.push_day_with_pod(e, cx.day(-1), (j, e), Head::Latin);
    }
    if let Some(j) = lead(t, i, "this") {
        for p in ["morning", "afternoon", "evening"] {
            if let Some(e) = t.word(j, p) {
                out.push_day_with_pod(e, cx.day(0), (j, e), Head::Latin);
            }
        }
    }
    if let Some(e) = seq(t, i, &["just", "now"]) {
        out.push(e, cx.day(0), Grain::Day, Head::Latin, Kind::Relative);
    }
}

/// `N days|weeks|months|years ago` (N: digits, one…twelve, a/an) and the fuzzy `a few days ago`.
pub(crate) fn ago(out: &mut Out, i: usize, cx: &Ctx) {
    if !(out.t.starts_ascii(i)) {
        return;
    }
    let t = out.t;
    if let Some(e) = seq(t, i, &["a", "few", "days", "ago"]) {
        out.push_fuzzy(e, DateSpan::offsets(cx.today, -7, 0), Grain::Range, Head::Latin);
    }
    let Some((n, j)) = en_count(t, i, true) else { return };
    let Some(j) = t.spaces(j) else { return };
    for (u, unit) in UNITS {
        if let Some(k) = t.word(j, u)
            && let Some(e) = t.spaces(k).and_then(|k| t.word(k, "ago"))
        {
            if unit == Unit::Day {
                out.push_day(e, cx.ago(unit, n), Head::Latin, Kind::Relative);
            } else {
                out.push(e, cx.ago(unit, n), unit.grain(), Head::Latin, Kind::Relative);
            }
        }
    }
}

/// `this|last week|month|year|quarter|weekend`, `this|last <weekday>` (that weekday of this or
/// last week), `the week|month|year before last`.
pub(crate) fn this_last(out: &mut Out, i: usize, cx: &Ctx) {
    if !(out.t.starts_ascii(i)) {
        return;
    }
    let t = out.t;
    for (w, back) in [("this", 0i64), ("last", 1)] {
        let Some(j) = lead(t, i, w) else { continue };
        let Some(mon) = add_days(cx.mon, -7 * back) else { continue };
        if let Some(e) = t.word(j, "week") {
            out.push(e, DateSpan::offsets(mon, 0, 7), Grain::Week, Head::Latin, Kind::Relative);
        }
        if let Some(e) = t.word(j, "month") {
            let span = shift_ym(cx.today.year(), cx.today.month(), -back).and_then(|(y, m)| DateSpan::month(y, m));
            out.push(e, span, Grain::Month, Head::Latin, Kind::Relative);
        }
        if let Some(e) = t.word(j, "year") {
            out.push(e, DateSpan::year(cx.today.year() - back as i32), Grain::Year, Head::Latin, Kind::Relative);
        }
        if let Some(e) = t.word(j, "quarter") {
            let first = quarter_of(cx.today) * 3 - 2;
            let span = shift_ym(cx.today.year(), first, -3 * back).and_then(|(y, m)| DateSpan::months(y, m, 3));
            out.push(e, span, Grain::Quarter, Head::Latin, Kind::Relative);
        }
        if let Some(e) = t.word(j, "weekend") {
            let from = if back == 0 { 5 } else { -2 };
            out.push(e, DateSpan::offsets(cx.mon, from, from + 2), Grain::Range, Head::Latin, Kind::Relative);
        }
        if let Some((wd, e)) = weekday(t, j) {
            let span = DateSpan::offsets(mon, i64::from(wd), i64::from(wd) + 1);
            out.push_day(e, span, Head::Latin, Kind::Weekday);
        }
    }
    let j = lead(t, i, "the");
    for k in [Some(i), j].into_iter().flatten() {
        if let Some(e) = seq(t, k, &["week", "before", "last"]) {
            out.push(e, DateSpan::offsets(cx.mon, -14, -7), Grain::Week, Head::Latin, Kind::Relative);
        }
        if let Some(e) = seq(t, k, &["month", "before", "last"]) {
            let span = shift_ym(cx.today.year(), cx.today.month(), -2).and_then(|(y, m)| DateSpan::month(y, m));
            out.push(e, span, Grain::Month, Head::Latin, Kind::Relative);
        }
        if let Some(e) = seq(t, k, &["year", "before", "last"]) {
            out.push(e, DateSpan::year(cx.today.year() - 2), Grain::Year, Head::Latin, Kind::Relative);
        }
    }
}

/// `[in|over|during|for|within] [the] last|past N days|weeks|months|years` (rolling, ending
/// today), `[the] past week|month|year` (N = 1), `the last|past few days` (fuzzy, as 这几天),
/// `recently` `lately` (fuzzy, as 最近).
pub(crate) fn rolling(out: &mut Out, i: usize, cx: &Ctx) {
    if !(out.t.starts_ascii(i)) {
        return;
    }
    let t = out.t;
    let mut starts = vec![i];
    starts.extend(["in", "over", "during", "for", "within"].iter().filter_map(|w| lead(t, i, w)));
    let with_the: Vec<usize> = starts.iter().filter_map(|&j| lead(t, j, "the")).collect();
    for &k in starts.iter().chain(&with_the) {
        for w in ["last", "past"] {
            let Some(m) = lead(t, k, w) else { continue };
            if let Some((n, p)) = en_count(t, m, false)
                && let Some(q) = t.spaces(p)
            {
                for (u, unit) in UNITS {
                    if let Some(e) = t.word(q, u) {
                        out.push(e, cx.last_n(unit, n), Grain::Rolling, Head::Latin, Kind::Relative);
                    }
                }
            }
            if let Some(e) = seq(t, m, &["few", "days"]) {
                out.push_fuzzy(e, DateSpan::offsets(cx.today, -2, 1), Grain::Rolling, Head::Latin);
            }
            if w == "past" {
                for (u, unit) in [("week", Unit::Week), ("month", Unit::Month), ("year", Unit::Year)] {
                    if let Some(e) = t.word(m, u) {
                        out.push(e, cx.last_n(unit, 1), Grain::Rolling, Head::Latin, Kind::Relative);
                    }
                }
            }
        }
    }
    for w in ["recently", "lately"] {
        if let Some(e) = t.word(i, w) {
            out.push_fuzzy(e, DateSpan::offsets(cx.today, -6, 1), Grain::Rolling, Head::Latin);
        }
    }
}

/// `[on] Monday` (bare: the latest Monday on or before today) and `[over|on|at|during] the
/// weekend` (bare: as 周末).
pub(crate) fn weekdays(out: &mut Out, i: usize, cx: &Ctx) {
    if !(out.t.starts_ascii(i)) {
        return;
    }
    let t = out.t;
    for j in [Some(i), lead(t, i, "on")].into_iter().flatten() {
        if let Some((wd, e)) = weekday(t, j) {
            out.push_day(e, cx.bare_weekday(wd), Head::Latin, Kind::Weekday);
        }
    }
    if cx.after.is_some() {
        return;
    }
    let leads = ["over", "on", "at", "during"].iter().filter_map(|w| lead(t, i, w));
    for j in std::iter::once(i).chain(leads) {
        if let Some(e) = seq(t, j, &["the", "weekend"]) {
            let from = if cx.today.weekday().num_days_from_monday() >= 5 { 5 } else { -2 };
            out.push(e, DateSpan::offsets(cx.mon, from, from + 2), Grain::Range, Head::Latin, Kind::Relative);
        }
    }
}
