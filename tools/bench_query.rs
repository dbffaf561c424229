//! Query measurements of `bench`: the fixed query mix (terms picked from `vocab.rs` by
//! frequency rank), the windows it runs under, natural-language and window-only queries, and
//! the LIKE and ripgrep baselines over the same terms. tools/README.md documents the mix.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use chrono::{Datelike, Duration, NaiveDate};
use memlayers::Memory;
use memlayers::fts5::segment::is_cjk;
use memlayers::index::sync::id_range;
use memlayers::query::retrieve::{RetrieveArgs, TimeRange};
use memlayers::query::search::{Mode, Query, count_matches};
use memlayers::query::stopwords::{CJK_STOP_CHARS, CJK_STOP_WORDS, EN_STOP_WORDS};
use sha1::{Digest, Sha1};

use crate::BResult;
use crate::vocab::{EN, MIXED, ZH};

/// One query of the mix.
#[derive(Debug, Clone)]
pub struct QuerySpec {
    /// What it stands for (`zh2 common`, `and common+rare`, …).
    pub class: &'static str,
    /// The keyword as a user types it.
    pub text: String,
    /// `recall` mode for the unwindowed run (`None` = and).
    pub mode: Option<&'static str>,
    /// One term: also run by the LIKE and ripgrep baselines.
    pub single: bool,
}

fn is_zh_stop(w: &str) -> bool {
    CJK_STOP_WORDS.contains(&w) || w.chars().any(|c| CJK_STOP_CHARS.contains(&c))
}

/// The fixed query mix. Vocabulary lists are ordered most frequent first (Zipf rank), so
/// "common" is the first qualifying word of a list and "rare" the last; words that `retrieve`
/// would drop as stop words are skipped so windowed runs search the same text.
pub fn query_mix() -> Vec<QuerySpec> {
    let zh = |keep: fn(usize) -> bool| -> Vec<&'static str> {
        ZH.iter().copied().filter(|w| keep(w.chars().count()) && !is_zh_stop(w)).collect()
    };
    let zh1 = zh(|n| n == 1);
    let zh2 = zh(|n| n == 2);
    let zh3 = zh(|n| n >= 3);
    let zh2_mid = ZH[100..].iter().copied().find(|w| w.chars().count() == 2 && !is_zh_stop(w)).expect("vocab");
    let en: Vec<&str> = EN.iter().copied().filter(|w| w.len() >= 4 && !EN_STOP_WORDS.contains(w)).collect();
    let mixed: Vec<&str> =
        MIXED.iter().copied().filter(|t| t.chars().any(is_cjk) && t.chars().any(|c| c.is_ascii_alphabetic())).collect();
    let common_char: String = zh2[0].chars().next().expect("vocab").to_string();
    let last = |v: &[&'static str]| *v.last().expect("vocab");
    let q = |class, text: String, mode, single| QuerySpec { class, text, mode, single };
    vec![
        q("zh1 common", common_char, None, true),
        q("zh1 rare", last(&zh1).into(), None, true),
        q("zh2 common", zh2[0].into(), None, true),
        q("zh2 mid", zh2_mid.into(), None, true),
        q("zh2 rare", last(&zh2).into(), None, true),
        q("zh3+ common", zh3[0].into(), None, true),
        q("zh3+ rare", last(&zh3).into(), None, true),
        q("en common", en[0].into(), None, true),
        q("en rare", last(&en).into(), None, true),
        q("mixed common", mixed[0].into(), None, true),
        q("mixed rare", last(&mixed).into(), None, true),
        q("and common+common", format!("{} {}", zh2[0], zh2[1]), None, false),
        q("and common+rare", format!("{} {}", zh2[0], last(&zh2)), None, false),
        q("and 3 terms", format!("{} {} {}", zh2[0], zh2_mid, en[0]), None, false),
        q("or common+common", format!("{} {}", zh2[0], zh2[1]), Some("or"), false),
        q("or common+rare", format!("{} {}", zh2[0], last(&zh2)), Some("or"), false),
    ]
}

/// Natural-language queries run through `retrieve` (time parsed from the text), with "now"
/// pinned to noon of the archive's last day.
pub const NL_QUERIES: &[&str] = &[
    "上周 约定",
    "前天晚上我吃了什么",
    "最近7天的开销",
    "昨天 翻唱",
    "上个月的读书笔记",
    "去年的旅行",
    "本周 bug",
    "3月 体检",
    "上上周 数据库 迁移",
    "最近30天 加班",
    "今年 GPT-4o",
    "what did we decide last week",
];

/// Window-only queries: a time expression and nothing to score (newest entries of the window).
pub const WINDOW_ONLY_QUERIES: &[&str] = &["上周", "昨天", "最近7天", "上个月", "去年", "前天晚上"];

/// The windows a query of the mix runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Win {
    /// No window: `recall`.
    None,
    /// One local day.
    Day,
    /// Monday–Sunday.
    Week,
    /// A calendar month.
    Month,
    /// A calendar year.
    Year,
}

impl Win {
    /// Every kind, in table order.
    pub const ALL: [Win; 5] = [Win::None, Win::Day, Win::Week, Win::Month, Win::Year];

    /// Table label.
    pub fn name(self) -> &'static str {
        match self {
            Win::None => "none",
            Win::Day => "day",
            Win::Week => "week",
            Win::Month => "month",
            Win::Year => "year",
        }
    }

    /// The closed local-date range of this kind around `d` (`None` for no window).
    pub fn range(self, d: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
        let ymd = |y, m, day| NaiveDate::from_ymd_opt(y, m, day).expect("valid date");
        match self {
            Win::None => None,
            Win::Day => Some((d, d)),
            Win::Week => {
                let mon = d - Duration::days(i64::from(d.weekday().num_days_from_monday()));
                Some((mon, mon + Duration::days(6)))
            }
            Win::Month => {
                let first = ymd(d.year(), d.month(), 1);
                let next = first.checked_add_months(chrono::Months::new(1)).expect("in range");
                Some((first, next - Duration::days(1)))
            }
            Win::Year => Some((ymd(d.year(), 1, 1), ymd(d.year(), 12, 31))),
        }
    }
}

/// `count` anchor days spread evenly over `first..=last` (the middle of `count` equal slices).
pub fn anchors(first: NaiveDate, last: NaiveDate, count: usize) -> Vec<NaiveDate> {
    let span = (last - first).num_days() + 1;
    (0..count as i64).map(|k| first + Duration::days((2 * k + 1) * span / (2 * count as i64))).collect()
}

/// Latencies (ms) of the mix, per (query index, window kind), plus a digest of every result.
#[derive(Debug, Default)]
pub struct MixRun {
    /// Milliseconds of each timed call.
    pub times: BTreeMap<(usize, Win), Vec<f64>>,
    /// Entries matching each query without a window (FTS5 count).
    pub hits: Vec<i64>,
    /// sha1 over the result ids of every (query, window) call: equal digests = same results.
    pub digest: String,
}

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64() * 1e3)
}

fn windowed(mem: &Memory, text: &str, from: NaiveDate, to: NaiveDate) -> BResult<Vec<i64>> {
    let args = RetrieveArgs {
        query: text.to_string(),
        time_range: Some(TimeRange::Dates { from, to }),
        limit: Some(10),
        ..Default::default()
    };
    Ok(mem.retrieve(&args)?.items.iter().map(|i| i.id).collect())
}

fn unwindowed(mem: &Memory, q: &QuerySpec) -> BResult<Vec<i64>> {
    Ok(mem.recall(&q.text, Some(10), q.mode.map(str::parse).transpose()?)?.items.iter().map(|i| i.id).collect())
}

/// Runs the mix: each query `repeats` times without a window (`recall`, limit 10), and once
/// per anchor day under each window kind (`retrieve` with an explicit `TimeRange::Dates`,
/// limit 10). One untimed warm-up pass first.
pub fn run_mix(mem: &Memory, mix: &[QuerySpec], days: &[NaiveDate], repeats: usize) -> BResult<MixRun> {
    let mut run = MixRun::default();
    let c = mem.conn()?;
    for q in mix {
        let mode = memlayers::query::search::Mode::parse(q.mode)?;
        run.hits.push(count_matches(&c, &Query::new(&q.text, mode)?.fts(), None, None)?);
    }
    drop(c);
    let mut h = Sha1::new();
    for q in mix {
        unwindowed(mem, q)?;
        if let Some((a, b)) = Win::Day.range(days[0]) {
            windowed(mem, &q.text, a, b)?;
        }
    }
    for rep in 0..repeats {
        for (i, q) in mix.iter().enumerate() {
            let (ids, ms) = time(|| unwindowed(mem, q));
            let ids = ids?;
            if rep == 0 {
                h.update(format!("{}|none|{:?}\n", q.text, ids));
            }
            run.times.entry((i, Win::None)).or_default().push(ms);
        }
    }
    for &d in days {
        for w in &Win::ALL[1..] {
            let (a, b) = w.range(d).expect("a window");
            for (i, q) in mix.iter().enumerate() {
                let (ids, ms) = time(|| windowed(mem, &q.text, a, b));
                h.update(format!("{}|{a}|{b}|{:?}\n", q.text, ids?));
                run.times.entry((i, *w)).or_default().push(ms);
            }
        }
    }
    run.digest = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(run)
}

/// One natural-language or window-only query's figures.
#[derive(Debug, Clone)]
pub struct NlRow {
    /// The query text.
    pub text: String,
    /// The parsed window `[start, end)` as local dates, or `–`.
    pub window: String,
    /// retrieve's strategy (`bm25-or`, `window-only`, `recall`), `+widened` when widened.
    pub strategy: String,
    /// Entries matched.
    pub matched: i64,
    /// Milliseconds of each timed call.
    pub times: Vec<f64>,
}

/// Runs each query through `retrieve` (time parsed from the text) `repeats` times, after one
/// untimed call with `explain` that records the window and the strategy.
pub fn run_nl(mem: &Memory, queries: &[&str], repeats: usize) -> BResult<Vec<NlRow>> {
    let mut out = Vec::new();
    for &text in queries {
        let args = RetrieveArgs { query: text.into(), limit: Some(10), explain: true, ..Default::default() };
        let r = mem.retrieve(&args)?;
        let ex = r.explain.as_ref().ok_or("no explain")?;
        let window = ex
            .window
            .as_ref()
            .map(|w| format!("{} … {}", w.start_date, w.end_date - Duration::days(1)))
            .unwrap_or_else(|| "–".into());
        let strategy = format!("{}{}", ex.strategy, if ex.widened.is_some() { " +widened" } else { "" });
        let args = RetrieveArgs { explain: false, ..args };
        let mut times = Vec::new();
        for _ in 0..repeats {
            let (r, ms) = time(|| mem.retrieve(&args));
            r?;
            times.push(ms);
        }
        out.push(NlRow { text: text.into(), window, strategy, matched: r.matched, times });
    }
    Ok(out)
}

/// Window-only calls with an explicit range and an empty query, one per anchor and kind.
pub fn run_window_only_explicit(mem: &Memory, days: &[NaiveDate]) -> BResult<Vec<f64>> {
    let mut out = Vec::new();
    for &d in days {
        for w in &Win::ALL[1..] {
            let (a, b) = w.range(d).expect("a window");
            let (r, ms) = time(|| windowed(mem, "", a, b));
            r?;
            out.push(ms);
        }
    }
    Ok(out)
}

/// Baseline latencies (ms) per window kind over the single-term queries of the mix.
#[derive(Debug, Default)]
pub struct Baselines {
    /// `SELECT count(*) FROM entries WHERE (content LIKE '%t%' OR tag LIKE '%t%') [AND id BETWEEN …]`.
    pub like: BTreeMap<Win, Vec<f64>>,
    /// `rg -F -i -c TERM` over `cold/` or over the window's day files (process spawn included).
    pub rg: BTreeMap<Win, Vec<f64>>,
    /// The ripgrep version used, or why it was skipped.
    pub rg_version: String,
}

/// Runs the LIKE scan and ripgrep over the same single terms: `repeats` times without a
/// window, once per anchor with each window kind.
pub fn run_baselines(mem: &Memory, mix: &[QuerySpec], days: &[NaiveDate], repeats: usize) -> BResult<Baselines> {
    let mut b = Baselines::default();
    let rg = Command::new("rg").arg("--version").output().ok().filter(|o| o.status.success());
    b.rg_version = match &rg {
        Some(o) => String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or("rg").to_string(),
        None => "not installed (run tools/bench.sh, which installs it)".into(),
    };
    let c = mem.conn()?;
    let cold = mem.root().join("cold");
    let terms: Vec<&str> = mix.iter().filter(|q| q.single).map(|q| q.text.as_str()).collect();
    let like_all = "SELECT count(*) FROM entries WHERE (content LIKE ?1 OR tag LIKE ?1)";
    let like_win = "SELECT count(*) FROM entries WHERE (content LIKE ?1 OR tag LIKE ?1) AND id BETWEEN ?2 AND ?3";
    for &t in &terms {
        let pat = format!("%{t}%");
        for _ in 0..repeats {
            let (r, ms) = time(|| c.query_row(like_all, [&pat], |r| r.get::<_, i64>(0)));
            r?;
            b.like.entry(Win::None).or_default().push(ms);
            if rg.is_some() {
                let (r, ms) = time(|| rg_count(t, std::slice::from_ref(&cold)));
                r?;
                b.rg.entry(Win::None).or_default().push(ms);
            }
        }
        for &d in days {
            for w in &Win::ALL[1..] {
                let (from, to) = w.range(d).expect("a window");
                let (lo, hi) = id_range(from, to);
                let (r, ms) = time(|| c.query_row(like_win, rusqlite::params![pat, lo, hi], |r| r.get::<_, i64>(0)));
                r?;
                b.like.entry(*w).or_default().push(ms);
                if rg.is_some() {
                    let files = window_files(mem.root(), from, to);
                    if !files.is_empty() {
                        let (r, ms) = time(|| rg_count(t, &files));
                        r?;
                        b.rg.entry(*w).or_default().push(ms);
                    }
                }
            }
        }
    }
    Ok(b)
}

/// The day files of `from..=to` that exist under `root`.
pub fn window_files(root: &Path, from: NaiveDate, to: NaiveDate) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut d = from;
    while d <= to {
        let p = root.join(memlayers::files::cold_rel(d));
        if p.exists() {
            out.push(p);
        }
        d += Duration::days(1);
    }
    out
}

/// Runs `rg --fixed-strings --ignore-case --count TERM paths…`; exit 1 (no match) is fine.
fn rg_count(term: &str, paths: &[std::path::PathBuf]) -> BResult<()> {
    let out = Command::new("rg")
        .args(["--fixed-strings", "--ignore-case", "--count", "--no-messages", "--"])
        .arg(term)
        .args(paths)
        .output()?;
    match out.status.code() {
        Some(0) | Some(1) => Ok(()),
        _ => Err(format!("rg failed: {}", String::from_utf8_lossy(&out.stderr)).into()),
    }
}

/// The mode of a spec, for display.
pub fn mode_name(q: &QuerySpec) -> &'static str {
    match Mode::parse(q.mode) {
        Ok(Mode::And) => "and",
        _ => "or",
    }
}
