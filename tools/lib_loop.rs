//! `lib-loop`: calls `Memory::retrieve` (or `recall`) on an open handle in a loop, for a
//! profiler (`perf record`) or for a quick p50 of one (term, window) class on an existing root:
//! the per-call benchmark's library column without the other systems.
//!
//! `lib-loop ROOT TERM WINDOW [CALLS] [--mcp BIN]`: WINDOW is none, day, week, month or year;
//! anchors are 10 days spread over the root's dates, as in bench-calls. Prints p50 / p99 in ms
//! (and, on stderr, the five slowest calls with their places in the loop).
//! With `--mcp BIN` the same calls go, back to back, as `tools/call` round trips to a
//! `BIN mcp` server on the root (the benchmark's MCP column without the other systems).

#[allow(dead_code)]
mod bench_query;
mod mcp_client;
#[allow(dead_code)]
mod vocab;

/// Errors of the tool (any failure ends the run with its message).
pub type BResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

use std::time::Instant;

use bench_query::{Win, anchors};
use memlayers::query::retrieve::{RetrieveArgs, TimeRange};
use memlayers::{Config, Memory};

fn main() -> BResult<()> {
    let mut a: Vec<String> = std::env::args().collect();
    let mcp_bin = match a.iter().position(|s| s == "--mcp") {
        Some(i) if i + 1 < a.len() => Some(a.drain(i..i + 2).nth(1).unwrap_or_default()),
        Some(_) => return Err("--mcp needs the memlayers binary".into()),
        None => None,
    };
    if a.len() < 4 {
        return Err("usage: lib-loop ROOT TERM none|day|week|month|year [CALLS] [--mcp BIN]".into());
    }
    let root = std::path::Path::new(&a[1]);
    let term = &a[2];
    let win = match a[3].as_str() {
        "none" => Win::None,
        "day" => Win::Day,
        "week" => Win::Week,
        "month" => Win::Month,
        "year" => Win::Year,
        w => return Err(format!("window {w:?}").into()),
    };
    let calls: usize = a.get(4).map(|s| s.parse()).transpose()?.unwrap_or(200);
    let tz: chrono_tz::Tz = "Asia/Shanghai".parse()?;
    let c = rusqlite::Connection::open(root.join("index.sqlite3"))?;
    // Day files are named cold/YYYY-MM/YYYY-MM-DD.md.
    let (first, last): (String, String) =
        c.query_row("SELECT min(path), max(path) FROM files WHERE path LIKE 'cold/%'", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let date = |p: &str| chrono::NaiveDate::parse_from_str(&p[13..23], "%Y-%m-%d");
    let (first, last) = (date(&first)?, date(&last)?);
    let now = last.and_hms_opt(12, 0, 0).ok_or("noon")?.and_local_timezone(tz).single().ok_or("noon")?;
    let mem =
        Memory::open(root, Config { timezone: tz, ..Config::default() })?.with_now(now.with_timezone(&chrono::Utc));
    let days = anchors(first, last, 10);
    let mut mcp = match &mcp_bin {
        Some(bin) => {
            let now_s = now.to_rfc3339();
            Some(mcp_client::Mcp::start(std::path::Path::new(bin), root, "Asia/Shanghai", &now_s)?.ok_or("no mcp")?)
        }
        None => None,
    };
    let mut t = Vec::with_capacity(calls);
    for i in 0..calls {
        let d = days[i % days.len()];
        let s = Instant::now();
        match (win.range(d), mcp.as_mut()) {
            (Some((from, to)), Some(m)) => m.call(
                "mem_retrieve",
                serde_json::json!({"query": term, "from": from.to_string(), "to": to.to_string(), "limit": 10}),
            )?,
            (None, Some(m)) => m.call("mem_recall", serde_json::json!({"keyword": term, "limit": 10}))?,
            (Some((from, to)), None) => {
                let args = RetrieveArgs {
                    query: term.clone(),
                    time_range: Some(TimeRange::Dates { from, to }),
                    limit: Some(10),
                    ..Default::default()
                };
                mem.retrieve(&args)?;
            }
            (None, None) => {
                mem.recall(term, Some(10), None)?;
            }
        }
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    // The slowest calls and their places in the loop (a first call, a periodic write).
    let mut slow: Vec<(usize, f64)> = t.iter().copied().enumerate().collect();
    slow.sort_by(|a, b| b.1.total_cmp(&a.1));
    let slow: Vec<String> = slow.iter().take(5).map(|(i, ms)| format!("#{i} {ms:.3}")).collect();
    eprintln!("slowest: {}", slow.join(", "));
    t.sort_by(f64::total_cmp);
    let p = |q: f64| t[((q / 100.0 * t.len() as f64).ceil() as usize).clamp(1, t.len()) - 1];
    println!("{term} {}: p50 {:.3} ms, p99 {:.3} ms ({calls} calls)", a[3], p(50.0), p(99.0));
    Ok(())
}
