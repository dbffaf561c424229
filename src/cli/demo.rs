//! `memlayers demo`: the main job on the bundled example archive, for a first look.
//!
//! Imports `examples/archive` (a dsh-format data root) into a fresh data root, then asks the
//! questions of examples/README.md with "now" pinned to Sunday 2026-11-29 20:00 in
//! Asia/Shanghai, printing each answer with and without the time gate.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::import::Format;
use crate::query::Item;
use crate::query::retrieve::RetrieveArgs;
use crate::{Config, Error, Memory, Result};

/// Instant the demo pins as "now": Sunday 2026-11-29 20:00 in Asia/Shanghai.
pub const DEMO_NOW: &str = "2026-11-29T20:00:00+08:00";

/// The questions the demo asks (examples/README.md).
pub const QUESTIONS: &[&str] = &[
    "上周我们定了什么",
    "前天晚上我吃了什么",
    "最近7天的开销",
    "上个月底的读书笔记",
    "tidemark last month",
    "上周发生了什么",
];

/// Finds the example archive: `archive` if given, else `examples/archive` under the current
/// directory, else under the source tree this binary was built from.
pub fn find_archive(archive: Option<&Path>) -> Result<PathBuf> {
    if let Some(a) = archive {
        if !a.join("cold").is_dir() {
            return Err(Error::bad("archive", format!("{} is not a dsh data root (no cold/ folder)", a.display())));
        }
        return Ok(a.to_path_buf());
    }
    let candidates =
        [PathBuf::from("examples/archive"), Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive")];
    candidates
        .into_iter()
        .find(|p| p.join("cold").is_dir())
        .ok_or_else(|| Error::bad("archive", "examples/archive not found; pass --archive DIR"))
}

fn line(out: &mut String, i: &Item) {
    let text: String = i.content.chars().take(48).collect();
    let more = if i.content.chars().count() > 48 { "…" } else { "" };
    // A match outside the time window, filling the list after the window's own (rule 5).
    let outside = if i.in_window == Some(false) { "  (outside the window)" } else { "" };
    let _ = writeln!(out, "    {}  [{}] {text}{more}{outside}", i.date, i.tag);
}

/// Runs the demo into `root` (must be empty or missing) and returns the printed report.
pub fn run(archive: &Path, root: &Path, config: Config) -> Result<String> {
    if root.exists() && std::fs::read_dir(root).map_err(|e| Error::io(root, e))?.next().is_some() {
        return Err(Error::bad("data-root", format!("{} is not empty; the demo needs a fresh folder", root.display())));
    }
    let now = crate::files::parse_now(DEMO_NOW)?;
    let mem = Memory::open(root, config)?.with_now(now);
    let mut out = String::new();
    let t = std::time::Instant::now();
    let rep = mem.import(archive, Some(Format::Dsh), &mut |_, _| {})?;
    let _ = writeln!(
        out,
        "Imported {} entries over {} days from {} into {} in {} ms (tz {}, now {}).",
        rep.entries_added,
        rep.scan.days,
        archive.display(),
        root.display(),
        t.elapsed().as_millis(),
        mem.tz(),
        DEMO_NOW
    );
    for q in QUESTIONS {
        let t = std::time::Instant::now();
        let r =
            mem.retrieve(&RetrieveArgs { query: q.to_string(), limit: Some(5), explain: true, ..Default::default() })?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let ex = r.explain.as_ref().expect("explain asked for");
        let _ = writeln!(out, "\n» retrieve {q:?}  ({ms:.1} ms)");
        match &ex.window {
            Some(w) => {
                let last = w.end_date - chrono::Duration::days(1);
                let _ = writeln!(
                    out,
                    "  window {} … {} ({:?}{}), matched {:?}, scored text {:?}, {} in window, {} matched{}",
                    w.start_date,
                    last,
                    w.grain,
                    if w.fuzzy { ", fuzzy" } else { "" },
                    w.matched,
                    ex.scored_text,
                    ex.candidates_in_window.unwrap_or(0),
                    r.matched,
                    ex.widened.as_ref().map(|x| format!(", widened {}", x.by)).unwrap_or_default()
                );
            }
            None => {
                let _ = writeln!(out, "  no time expression: same as recall");
            }
        }
        for i in &r.items {
            line(&mut out, i);
        }
        if ex.window.is_some() && !ex.scored_text.is_empty() {
            let plain = mem.recall(&ex.scored_text, Some(5), Some(crate::query::search::Mode::Or))?;
            let _ =
                writeln!(out, "  without the time gate (recall {:?}, or): {} matched", ex.scored_text, plain.matched);
            for i in &plain.items {
                line(&mut out, i);
            }
        }
    }
    let r = mem.recall("翻唱", Some(3), None)?;
    let _ = writeln!(out, "\n» recall \"翻唱\": {} matched across {} files", r.matched, r.scanned_files);
    for i in &r.items {
        line(&mut out, i);
    }
    let _ = writeln!(
        out,
        "\nThe data root is kept: try `cargo run -- --data-root {} --tz {} --now {DEMO_NOW} retrieve \"上周 约定\" --explain` from the clone (or `memlayers …` after `cargo install --path .`).",
        root.display(),
        mem.tz()
    );
    Ok(out)
}
