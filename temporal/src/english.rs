//! English expressions relative to today (the same rows as the Chinese ones, in the forms
//! people type): `today` `yesterday` `the day before yesterday` `tomorrow` (+ `morning` …,
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
    if let Some(e) = seq(t, i, &["just", "now"]).or_else(|| seq(t, i, &["earlier", "today"])) {
        out.push(e, cx.day(0), Grain::Day, Head::Latin, Kind::Relative);
    }
    // Spec v2: the other day, a couple of days ago → as 前几天 [D-7, D), fuzzy.
    let fuzzy: [&[&str]; 4] = [
        &["the", "other", "day"],
        &["a", "couple", "of", "days", "ago"],
        &["a", "couple", "days", "ago"],
        &["the", "other", "night"],
    ];
    for ws in fuzzy {
        if let Some(e) = seq(t, i, ws) {
            out.push_fuzzy(e, DateSpan::offsets(cx.today, -7, 0), Grain::Range, Head::Latin);
        }
    }
    // Spec v2: earlier this week / month / year → [mon, D+1) / [1st, D+1) / [Jan 1, D+1).
    if let Some(j) = lead(t, i, "earlier").and_then(|j| lead(t, j, "this")) {
        let starts = [
            ("week", Some(cx.mon)),
            ("month", cx.today.with_day(1)),
            ("year", cx.today.with_day(1).and_then(|d| d.with_month(1))),
        ];
        for (w, start) in starts {
            if let Some(e) = t.word(j, w) {
                let span = start.zip(add_days(cx.today, 1)).and_then(|(a, b)| DateSpan::new(a, b));
                out.push(e, span, Grain::Range, Head::Latin, Kind::Relative);
            }
        }
    }
    // Spec v2: this day last year, on this day last year, a year ago today (and week / month).
    for j in [Some(i), lead(t, i, "on")].into_iter().flatten() {
        if let Some(k) = seq(t, j, &["this", "day", "last"]).and_then(|e| t.spaces(e)) {
            for (w, unit) in [("week", Unit::Week), ("month", Unit::Month), ("year", Unit::Year)] {
                if let Some(e) = t.word(k, w) {
                    out.push_day(e, same_day_back(cx, unit), Head::Latin, Kind::Relative);
                }
            }
        }
    }
    if let Some((1, j)) = en_count(t, i, true)
        && let Some(j) = t.spaces(j)
    {
        for (w, unit) in [("week", Unit::Week), ("month", Unit::Month), ("year", Unit::Year)] {
            if let Some(e) = seq(t, j, &[w, "ago", "today"]) {
                out.push_day(e, same_day_back(cx, unit), Head::Latin, Kind::Relative);
            }
        }
    }
}

/// The same day one week, month or year back (month and year clamped: Mar 31 → Feb 28).
fn same_day_back(cx: &Ctx, unit: Unit) -> Option<DateSpan> {
    match unit {
        Unit::Day => cx.day(-1),
        Unit::Week => cx.day(-7),
        Unit::Month => super::calendar::shift_months(cx.today, -1).and_then(DateSpan::day),
        Unit::Year => super::calendar::shift_months(cx.today, -12).and_then(DateSpan::day),
    }
}

/// `N days|weeks|months|years ago` (or `back`; N: digits, one…twelve, a/an) and the fuzzy `a few
/// days ago`.
pub(crate) fn ago(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    if let Some(e) = seq(t, i, &["a", "few", "days", "ago"]) {
        out.push_fuzzy(e, DateSpan::offsets(cx.today, -7, 0), Grain::Range, Head::Latin);
    }
    let Some((n, j)) = en_count(t, i, true) else { return };
    let Some(j) = t.spaces(j) else { return };
    for (u, unit) in UNITS {
        if let Some(k) = t.word(j, u)
            && let Some(e) = t.spaces(k).and_then(|k| t.word(k, "ago").or_else(|| t.word(k, "back")))
        {
            if unit == Unit::Day {
                out.push_day(e, cx.ago(unit, n), Head::Latin, Kind::Relative);
            } else {
                out.push(e, cx.ago(unit, n), unit.grain(), Head::Latin, Kind::Relative);
                // two weeks ago in the evening: the window of two weeks ago, with the part of day.
                if let Some((a, b)) = pod_phrase(t, e) {
                    let n0 = out.hits.len();
                    out.push(b, cx.ago(unit, n), unit.grain(), Head::Latin, Kind::Relative);
                    out.hits[n0..].iter_mut().for_each(|h| h.pod = Some((a, b)));
                }
            }
            // two weeks ago on Thursday, two weeks ago Thursday: that weekday in that week.
            if unit == Unit::Week
                && let Some(k) = t.spaces(e)
                && let Some((wd, f)) = weekday(t, lead(t, k, "on").unwrap_or(k))
                && let Some(week) = cx.ago(unit, n)
            {
                out.push_day(
                    f,
                    DateSpan::offsets(week.start, i64::from(wd), i64::from(wd) + 1),
                    Head::Latin,
                    Kind::Weekday,
                );
            }
        }
    }
}

/// A part of day after `e` (`in the evening`, `at night`, `during the morning`): its span.
fn pod_phrase(t: &Text, e: usize) -> Option<(usize, usize)> {
    let k = t.spaces(e)?;
    let leads: [&[&str]; 4] = [&["in", "the"], &["during", "the"], &["at"], &[]];
    leads.iter().find_map(|ws| {
        let j = if ws.is_empty() { k } else { seq(t, k, ws).and_then(|j| t.spaces(j))? };
        ["morning", "afternoon", "evening", "night"].iter().find_map(|p| t.word(j, p).map(|b| (j, b)))
    })
}

/// `[the] <weekday> N months ago` (the weekday of the Monday-week holding shift(D, -N months),
/// fuzzy ±3 days: a month back is not a week), `[the] weekend N months ago` (its Saturday and
/// Sunday, fuzzy ±3 days), and with weeks the exact weekday or weekend of the week of `N weeks
/// ago` (as `N周前的周二`).
pub(crate) fn weekday_ago(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    let j = lead(t, i, "the").unwrap_or(i);
    let (day, e) = if let Some((wd, e)) = weekday(t, j) {
        (Some(wd), e)
    } else if let Some(e) = t.word(j, "weekend") {
        (None, e)
    } else {
        return;
    };
    let Some((n, k)) = t.spaces(e).and_then(|k| en_count(t, k, true)) else { return };
    let Some(k) = t.spaces(k) else { return };
    for (u, unit) in [("weeks", Unit::Week), ("week", Unit::Week), ("months", Unit::Month), ("month", Unit::Month)] {
        let Some(end) = t.word(k, u).and_then(|k| t.spaces(k)).and_then(|k| t.word(k, "ago")) else { continue };
        let (a, b) = match day {
            Some(wd) => (i64::from(wd), i64::from(wd) + 1),
            None => (5, 7),
        };
        if unit == Unit::Week {
            let span = cx.ago(unit, n).and_then(|w| DateSpan::offsets(w.start, a, b));
            out.push(end, span, if day.is_some() { Grain::Day } else { Grain::Range }, Head::Latin, Kind::Relative);
        } else {
            let mon = super::calendar::shift_months(cx.today, -i64::from(n)).map(crate::days::monday_of);
            let span = mon.and_then(|m| DateSpan::offsets(m, a - 3, b + 3));
            out.push_fuzzy(end, span, Grain::Range, Head::Latin);
        }
    }
}

/// `this|last week|month|year|quarter|weekend`, `this|last <weekday>` (that weekday of this or
/// last week), `the week|month|year before last`.
pub(crate) fn this_last(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    // `next …` are plans (next week, next month, next year, next Monday); `the next
    // week` is a span after some other moment, not a window.
    let after_the = super::glue::prev_word(t, i).is_some_and(|w| w == "the");
    for (w, back) in [("this", 0i64), ("last", 1), ("next", -1)] {
        let Some(j) = lead(t, i, w) else { continue };
        if back < 0 && after_the {
            continue;
        }
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
        // `the last weekend of October`, `the last Friday of the month`: an ordinal within a
        // month, not last week's: no reading here (the month reads alone).
        if let Some(e) = t.word(j, "weekend")
            && !of_follows(t, e)
        {
            out.push(e, DateSpan::offsets(mon, 5, 7), Grain::Range, Head::Latin, Kind::Relative);
        }
        if let Some((wd, e)) = weekday(t, j)
            && !of_follows(t, e)
        {
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
        if let Some(e) = seq(t, k, &["weekend", "before", "last"]) {
            out.push(e, DateSpan::offsets(cx.mon, -9, -7), Grain::Range, Head::Latin, Kind::Relative);
        }
        // the Wednesday before last: Wednesday of the week before last week.
        if let Some((wd, e)) = weekday(t, k)
            && let Some(e) = t.spaces(e).and_then(|s| seq(t, s, &["before", "last"]))
        {
            out.push_day(
                e,
                DateSpan::offsets(cx.mon, i64::from(wd) - 14, i64::from(wd) - 13),
                Head::Latin,
                Kind::Weekday,
            );
        }
    }
}

/// `[in|over|during|for|within] [the] last|past N days|weeks|months|years` (rolling, ending
/// today), `[the] past week|month|year` (N = 1), `the last|past few days` (fuzzy, as 这几天),
/// `recently` `lately` (fuzzy, as 最近; not after `most`/`more`/`least`).
pub(crate) fn rolling(out: &mut Out, i: usize, cx: &Ctx) {
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
    // `most recently` / `more recently` / `least recently` compare occurrences (the latest one,
    // however long ago): no window.
    let comparative = super::glue::prev_word(t, i).is_some_and(|p| matches!(p.as_str(), "most" | "more" | "least"));
    for w in ["recently", "lately"] {
        if let Some(e) = t.word(i, w)
            && !comparative
        {
            out.push_fuzzy(e, DateSpan::offsets(cx.today, -6, 1), Grain::Rolling, Head::Latin);
        }
    }
}

/// True if the word `of` follows the expression ending at `e` (`the last weekend of October`).
fn of_follows(t: &Text, e: usize) -> bool {
    t.spaces(e).is_some_and(|k| t.word(k, "of").is_some())
}

/// True if an opening parenthesis follows the expression ending at `e` (`Saturday (Nov 21)`):
/// the date in it says which Saturday, so the bare weekday is no reading.
fn paren_follows(t: &Text, e: usize) -> bool {
    t.opt_spaces(e).is_some_and(|k| t.at(k) == Some('('))
}

/// True if `before` or `after` follows the expression ending at `e` and is not `before last` /
/// `after next`: the day is placed relative to an event the parser cannot date (`the weekend
/// before her sister's wedding`, `the Monday after the party`): no window (宁窄勿误). `the
/// weekend of April 11` is refused by the caller too: the date then reads alone.
fn relative_to_event(t: &Text, e: usize) -> bool {
    let Some(k) = t.spaces(e) else { return false };
    let Some(m) = t.word(k, "before").or_else(|| t.word(k, "after")) else { return false };
    !t.spaces(m).is_some_and(|n| t.word(n, "last").is_some() || t.word(n, "next").is_some())
}

/// `[on] Monday` (bare: the latest Monday on or before today) and `[over|on|at|during] the
/// weekend` (bare: as 周末).
pub(crate) fn weekdays(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    for j in [Some(i), lead(t, i, "on")].into_iter().flatten() {
        // `the Monday after the party` (not `on Monday after lunch`).
        let the = super::glue::prev_word(t, j).is_some_and(|w| w == "the");
        if let Some((wd, e)) = weekday(t, j)
            && !(the && relative_to_event(t, e))
            && !paren_follows(t, e)
        {
            out.push_day(e, cx.bare_weekday(wd), Head::Latin, Kind::Weekday);
            // Monday last week / Monday this week / Monday next week: that weekday of that week.
            for (w, back) in [("last", 1i64), ("this", 0), ("next", -1)] {
                if let Some(f) = t.spaces(e).and_then(|k| seq(t, k, &[w, "week"]))
                    && let Some(mon) = add_days(cx.mon, -7 * back)
                {
                    out.push_day(
                        f,
                        DateSpan::offsets(mon, i64::from(wd), i64::from(wd) + 1),
                        Head::Latin,
                        Kind::Weekday,
                    );
                }
            }
        }
    }
    if cx.after.is_some() {
        return;
    }
    let leads = ["over", "on", "at", "during"].iter().filter_map(|w| lead(t, i, w));
    for j in std::iter::once(i).chain(leads) {
        let weekend = [&["the", "weekend"][..], &["this", "past", "weekend"], &["the", "past", "weekend"]];
        if let Some(e) = weekend.iter().find_map(|ws| seq(t, j, ws))
            && !relative_to_event(t, e)
            && !of_follows(t, e)
        {
            let from = if cx.today.weekday().num_days_from_monday() >= 5 { 5 } else { -2 };
            let span = DateSpan::offsets(cx.mon, from, from + 2).map(DateSpan::guessed);
            out.push(e, span, Grain::Range, Head::Latin, Kind::Relative);
        }
    }
}
