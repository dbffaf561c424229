//! Open measurements of `bench`: opening an up-to-date index (the sync check included), its
//! two parts (the database alone, the sync check alone), and opening after one day file was
//! edited by hand.

use std::path::{Path, PathBuf};
use std::time::Instant;

use memlayers::files::entry::{Entry, LineKind, format_line, parse_line};
use memlayers::{Config, Memory};

use crate::BResult;

/// Milliseconds of each timed open.
#[derive(Debug, Default)]
pub struct OpenRun {
    /// `Memory::open` of an up-to-date data root.
    pub uptodate: Vec<f64>,
    /// `Memory::open_unsynced`: database open (migrations check, pool) without the sync check.
    pub db_only: Vec<f64>,
    /// `Memory::sync` on an open, up-to-date handle: stat every day file, compare with the index.
    pub sync_only: Vec<f64>,
    /// `Memory::open` right after one entry line was appended to one day file by hand.
    pub changed: Vec<f64>,
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// Measures `repeats` opens of each kind on the up-to-date data root `root`, whose day files
/// are `files` (absolute paths). Every edited file is restored (and re-mirrored, untimed).
pub fn run_open(root: &Path, config: &Config, files: &[PathBuf], repeats: usize) -> BResult<OpenRun> {
    let mut run = OpenRun::default();
    drop(Memory::open(root, config.clone())?); // warm-up (and WAL recovery after the child)
    for _ in 0..repeats {
        let t = Instant::now();
        let mem = Memory::open(root, config.clone())?;
        run.uptodate.push(ms_since(t));
        if mem.open_report().files_mirrored != 0 {
            return Err("up-to-date open mirrored files".into());
        }
        drop(mem);
        let t = Instant::now();
        let mem = Memory::open_unsynced(root, config.clone())?;
        run.db_only.push(ms_since(t));
        drop(mem);
    }
    let mem = Memory::open(root, config.clone())?;
    for _ in 0..repeats {
        let t = Instant::now();
        mem.sync()?;
        run.sync_only.push(ms_since(t));
    }
    drop(mem);
    for i in 0..repeats {
        let path = &files[(2 * i + 1) * files.len() / (2 * repeats)];
        let original = std::fs::read(path)?;
        let text = String::from_utf8_lossy(&original);
        let last = text
            .lines()
            .rev()
            .find_map(|l| match parse_line(l) {
                LineKind::Entry(e) => Some(e),
                _ => None,
            })
            .ok_or("day file without entries")?;
        let added = Entry {
            ts: last.ts + chrono::Duration::milliseconds(1),
            tag: "bench".into(),
            content: format!("基准测试手工追加的一行 {i}"),
            source: None,
        };
        let mut edited = original.clone();
        edited.extend_from_slice(format_line(&added).as_bytes());
        edited.push(b'\n');
        std::fs::write(path, &edited)?;
        let t = Instant::now();
        let mem = Memory::open(root, config.clone())?;
        run.changed.push(ms_since(t));
        if mem.open_report().files_mirrored != 1 {
            return Err(format!("open after one edit mirrored {} files", mem.open_report().files_mirrored).into());
        }
        drop(mem);
        std::fs::write(path, &original)?;
        drop(Memory::open(root, config.clone())?);
    }
    Ok(run)
}
