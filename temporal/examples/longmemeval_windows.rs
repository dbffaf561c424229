//! Which LongMemEval questions get a time window, and how that changes between two parser
//! versions.
//!
//! ```text
//! cargo run -p memlayers-temporal --example longmemeval_windows -- QUESTIONS.json > now.tsv
//! cargo run -p memlayers-temporal --example longmemeval_windows -- QUESTIONS.json --compare before.tsv
//! ```
//!
//! `QUESTIONS.json` is LongMemEval's `longmemeval_oracle.json` (a JSON array of objects; only
//! `question_id`, `question_type`, `question` and `question_date` are read). Each question is
//! parsed at its `question_date` (`2023/05/28 (Sun) 19:47`, read as a UTC instant: the data set
//! names no zone) in UTC. Without `--compare` it prints one tab-separated line per question:
//! `question_id, question_type, startDate, endDate, matched, question` (`-` for no window; a
//! union of several windows prints the covering window and every matched text joined by ` | `).
//! With `--compare FILE` (a file printed by an earlier run) it prints, per question type, how many
//! questions had a window before and after, how many windows went away, appeared or changed,
//! then every question whose line changed.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDateTime, Utc};
use memlayers_temporal::parse;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        return Err("usage: longmemeval_windows QUESTIONS.json [--compare BEFORE.tsv]".into());
    };
    let questions: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let mut lines = Vec::new();
    for q in &questions {
        let field = |k: &str| q[k].as_str().ok_or_else(|| format!("a question has no string field {k:?}"));
        let (id, kind, text, date) =
            (field("question_id")?, field("question_type")?, field("question")?, field("question_date")?);
        // "2023/05/28 (Sun) 19:47": drop the weekday in parentheses.
        let stamp: String = date.split(['(', ')']).enumerate().filter(|(k, _)| k % 2 == 0).map(|(_, s)| s).collect();
        let now: DateTime<Utc> = NaiveDateTime::parse_from_str(
            stamp.split_whitespace().collect::<Vec<_>>().join(" ").as_str(),
            "%Y/%m/%d %H:%M",
        )
        .map_err(|e| format!("question {id}: question_date {date:?}: {e}"))?
        .and_utc();
        let p = parse(text, now, chrono_tz::UTC);
        let (s, e, m) = match &p.window {
            Some(w) => (w.start_date.to_string(), w.end_date.to_string(), matched(&p)),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let text = text.replace(['\t', '\n'], " ");
        lines.push(format!("{id}\t{kind}\t{s}\t{e}\t{m}\t{text}"));
    }
    match args.get(1).map(String::as_str) {
        None => lines.iter().for_each(|l| println!("{l}")),
        Some("--compare") => {
            let before_path = args.get(2).ok_or("--compare needs a file")?;
            compare(&std::fs::read_to_string(before_path)?, &lines);
        }
        Some(other) => return Err(format!("unknown argument {other:?}").into()),
    }
    Ok(())
}

/// The matched text of every window of the result, joined by ` | `.
fn matched(p: &memlayers_temporal::ParseResult) -> String {
    let all: Vec<&str> = p.windows.iter().map(|w| w.matched.as_str()).collect();
    all.join(" | ")
}

fn compare(before: &str, after: &[String]) {
    let before: BTreeMap<&str, &str> = before.lines().filter_map(|l| Some((l.split('\t').next()?, l))).collect();
    let has = |l: &str| l.split('\t').nth(2) != Some("-");
    // type → (questions, windows before, windows after, gone, new, changed)
    let mut by: BTreeMap<String, [usize; 6]> = BTreeMap::new();
    let mut changed = Vec::new();
    for l in after {
        let cols: Vec<&str> = l.split('\t').collect();
        let Some(b) = before.get(cols[0]) else { continue };
        let row = by.entry(cols[1].to_string()).or_default();
        row[0] += 1;
        let (hb, ha) = (has(b), has(l));
        row[1] += usize::from(hb);
        row[2] += usize::from(ha);
        row[3] += usize::from(hb && !ha);
        row[4] += usize::from(!hb && ha);
        let same = b.split('\t').take(5).eq(l.split('\t').take(5));
        row[5] += usize::from(hb && ha && !same);
        if !same {
            changed.push(format!("{}\n  before: {}\n  after:  {}", cols[5], window_cols(b), window_cols(l)));
        }
    }
    println!("| question_type | questions | windows before | after | gone | new | changed |");
    println!("|---|---|---|---|---|---|---|");
    let mut total = [0usize; 6];
    for (k, r) in &by {
        println!("| {k} | {} | {} | {} | {} | {} | {} |", r[0], r[1], r[2], r[3], r[4], r[5]);
        total.iter_mut().zip(r).for_each(|(t, x)| *t += x);
    }
    let t = total;
    println!("| all | {} | {} | {} | {} | {} | {} |", t[0], t[1], t[2], t[3], t[4], t[5]);
    println!();
    changed.iter().for_each(|c| println!("{c}"));
}

/// `startDate endDate matched` of a line.
fn window_cols(l: &str) -> String {
    l.split('\t').skip(2).take(3).collect::<Vec<_>>().join(" ")
}
