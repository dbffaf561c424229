//! Table-driven tests of `memlayers_temporal::parse`, from `tests/data/cases.tsv`.
//!
//! Each row: `text  now  tz  start  end  grain  checks  why` (tab-separated). `start`/`end` are
//! the expected local dates (`end` exclusive) or `start = none` for "no time intent" (then `rest`
//! must be the text unchanged). `grain` may be `-` (not checked). `checks` is `-` or
//! `key=value` pairs joined by `;`: `pod` (part of day as written, empty = none), `rest`,
//! `fuzzy`, `matched`, `startUtc`, `endUtc` (RFC 3339), `hours` (end − start in hours),
//! `windows` (every window of a union as `start..end` local dates joined by `|`; unchecked when
//! absent, except that a row without it must have exactly one window equal to `window`). `why`
//! is the hand derivation. Every failing row is reported with its line number.

use chrono::{DateTime, NaiveDate, Utc};
use memlayers_temporal::parse;

fn check(cols: &[&str]) -> Result<(), String> {
    let [text, now, tz, start, end, grain, checks, ..] = cols else {
        return Err(format!("expected at least 7 tab-separated columns, got {}", cols.len()));
    };
    let now: DateTime<Utc> = now.parse().map_err(|e| format!("bad now {now:?}: {e}"))?;
    let tz: chrono_tz::Tz = tz.parse().map_err(|e| format!("bad tz {tz:?}: {e}"))?;
    let r = parse(text, now, tz);
    if *start == "none" {
        return match r.window {
            None if r.rest == *text && r.windows.is_empty() => Ok(()),
            None => Err(format!("no window as expected, but rest {:?} != text", r.rest)),
            Some(w) => Err(format!(
                "expected no window, got [{}, {}) {:?} matched {:?}",
                w.start_date, w.end_date, w.grain, w.matched
            )),
        };
    }
    let Some(w) = r.window else { return Err("expected a window, got none".into()) };
    let want_start = NaiveDate::parse_from_str(start, "%Y-%m-%d").map_err(|e| format!("bad start {start:?}: {e}"))?;
    let want_end = NaiveDate::parse_from_str(end, "%Y-%m-%d").map_err(|e| format!("bad end {end:?}: {e}"))?;
    let mut errs = Vec::new();
    let members: Vec<String> = r.windows.iter().map(|m| format!("{}..{}", m.start_date, m.end_date)).collect();
    if !checks.contains("windows=") && r.windows != [w.clone()] {
        errs.push(format!("one window expected in windows, got {members:?}"));
    }
    if (w.start_date, w.end_date) != (want_start, want_end) {
        errs.push(format!(
            "window [{}, {}) != expected [{want_start}, {want_end}) (matched {:?})",
            w.start_date, w.end_date, w.matched
        ));
    }
    if *grain != "-" {
        let got = serde_json::to_value(w.grain).unwrap();
        if got != *grain {
            errs.push(format!("grain {got} != {grain}"));
        }
    }
    if w.start != memlayers_temporal::days::local_midnight(w.start_date, tz)
        || w.end != memlayers_temporal::days::local_midnight(w.end_date, tz)
    {
        errs.push("start/end instants are not the local midnights of startDate/endDate".into());
    }
    for kv in checks.split(';').filter(|s| !s.is_empty() && *s != "-") {
        let (k, v) = kv.split_once('=').ok_or_else(|| format!("bad check {kv:?}"))?;
        let ok = match k {
            "pod" => w.part_of_day.as_deref().unwrap_or("") == v,
            "rest" => r.rest == v,
            "fuzzy" => w.fuzzy.to_string() == v,
            "matched" => w.matched == v,
            "startUtc" => w.start == v.parse::<DateTime<Utc>>().map_err(|e| format!("bad startUtc: {e}"))?,
            "endUtc" => w.end == v.parse::<DateTime<Utc>>().map_err(|e| format!("bad endUtc: {e}"))?,
            "hours" => (w.end - w.start).num_hours().to_string() == v,
            "windows" => members.join("|") == v,
            _ => return Err(format!("unknown check {k:?}")),
        };
        if !ok {
            let got = match k {
                "pod" => format!("{:?}", w.part_of_day),
                "rest" => format!("{:?}", r.rest),
                "fuzzy" => w.fuzzy.to_string(),
                "matched" => format!("{:?}", w.matched),
                "startUtc" => w.start.to_rfc3339(),
                "endUtc" => w.end.to_rfc3339(),
                "windows" => members.join("|"),
                _ => (w.end - w.start).num_hours().to_string(),
            };
            errs.push(format!("{k}: got {got}, expected {v:?}"));
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs.join("; ")) }
}

#[test]
fn every_case_in_the_table() {
    let data = include_str!("data/cases.tsv");
    let mut failures = Vec::new();
    let (mut windows, mut nones) = (0, 0);
    for (k, line) in data.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.get(3) == Some(&"none") {
            nones += 1
        } else {
            windows += 1
        }
        if let Err(e) = check(&cols) {
            failures.push(format!("line {}: {}\n    | {}", k + 1, e, cols.first().unwrap_or(&"")));
        }
    }
    eprintln!("temporal_cases.tsv: {windows} window rows, {nones} no-window rows");
    assert!(windows >= 300 && nones >= 60, "the table lost rows: {windows} windows, {nones} nones");
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), windows + nones, failures.join("\n"));
}
