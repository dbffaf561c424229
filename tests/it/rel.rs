//! Helpers shared by the reliability suites (crash, concurrency_stress, corrupt_state,
//! hostile_*, fuzz): reading a data root the way a skeptical user would — straight from the
//! files, without the engine — and listing every file under a directory.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use memlayers::files::entry::{LineKind, parse_line};

/// Every regular file and symlink under `dir`, as paths relative to `dir`, sorted.
pub fn all_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// The canonical cold files of a data root: `cold/YYYY-MM/YYYY-MM-DD.md` regular files.
pub fn cold_files(root: &Path) -> Vec<PathBuf> {
    all_files(&root.join("cold"))
        .into_iter()
        .filter(|rel| memlayers::files::day_of_cold_rel(&format!("cold/{rel}")).is_some())
        .map(|rel| root.join("cold").join(rel))
        .filter(|p| std::fs::symlink_metadata(p).map(|m| m.is_file()).unwrap_or(false))
        .collect()
}

/// What the canonical cold files hold, read without the engine.
#[derive(Debug, Default)]
pub struct ColdContents {
    /// (tag, content) → number of entry lines holding it, over all cold files.
    pub counts: BTreeMap<(String, String), usize>,
    /// Entry lines in total.
    pub entries: usize,
    /// Problems: torn files (no final newline), lines that do not parse as entries,
    /// invalid UTF-8. Empty when every canonical file is whole.
    pub problems: Vec<String>,
}

impl ColdContents {
    /// How many entry lines hold exactly this tag and text.
    pub fn count(&self, tag: &str, content: &str) -> usize {
        self.counts.get(&(tag.to_string(), content.to_string())).copied().unwrap_or(0)
    }
}

/// Reads every canonical cold file of `root`. With `strict`, every non-empty line must be an
/// entry line (the files the engine writes hold nothing else).
pub fn read_cold(root: &Path, strict: bool) -> ColdContents {
    let mut out = ColdContents::default();
    for p in cold_files(root) {
        let bytes = std::fs::read(&p).unwrap();
        let name = p.strip_prefix(root).unwrap().display().to_string();
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            out.problems.push(format!("{name}: no final newline (torn?)"));
        }
        let Ok(text) = String::from_utf8(bytes) else {
            out.problems.push(format!("{name}: invalid UTF-8"));
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            match parse_line(line) {
                LineKind::Entry(e) => {
                    *out.counts.entry((e.tag, e.content)).or_default() += 1;
                    out.entries += 1;
                }
                LineKind::Malformed(why) => out.problems.push(format!("{name}:{}: malformed: {why}", i + 1)),
                LineKind::Other if strict && !line.trim().is_empty() => {
                    out.problems.push(format!("{name}:{}: not an entry line: {line:?}", i + 1))
                }
                LineKind::Other => {}
            }
        }
    }
    out
}

/// Leftover temp files of interrupted atomic writes under `root` (`.<name>.tmp-<pid>-<n>`).
pub fn temp_files(root: &Path) -> Vec<String> {
    all_files(root).into_iter().filter(|f| f.rsplit('/').next().unwrap().contains(".tmp-")).collect()
}

/// A small seeded xorshift generator, so that every suite can print and replay its seed
/// without depending on a particular `rand` API.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is mapped to a fixed non-zero state).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Reads a numeric budget from the environment (`name`), else `default`.
pub fn budget(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The seed of a suite: `MEMLAYERS_SEED` when set, else `default`. Printed by the caller.
pub fn seed(default: u64) -> u64 {
    budget("MEMLAYERS_SEED", default)
}

/// Peak resident set size of this process in KiB (`VmHWM` of /proc/self/status).
pub fn peak_rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}
