//! Import measurements of `bench`: one import per child process (so each peak RSS is that
//! import's alone), and the two floors the import is compared with.
//!
//! * `sync`: `Memory::open` on a fresh data root whose `cold/` holds the generated archive —
//!   the full sync (read, hash, parse, segment, insert) every first open of a copied or
//!   restored data root does.
//! * `import`: `Memory::import(archive, Dsh)` into an empty data root — scan the archive,
//!   write the canonical day files (atomic write + fsync per day), index them.
//! * floor: the same entries, segmented beforehand with `memlayers::fts5::segment::segment`,
//!   inserted into a bare FTS5 table (the index's own definition) by a minimal loop: one
//!   transaction, one prepared statement.
//! * schema floor: the same minimal loop filling the index's real tables (`entries` with its
//!   tag index, and the FTS5 table), segmentation done beforehand: what the schema costs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use memlayers::files::entry::{LineKind, parse_line};
use memlayers::files::{day_number, day_of_cold_rel};
use memlayers::fts5::segment::segment;
use memlayers::import::Format;
use memlayers::{Config, Memory};
use rusqlite::{Connection, params};

use crate::BResult;
use crate::bench_report::peak_rss_kb;

/// What one child import reported.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChildReport {
    /// Wall-clock seconds of the measured call.
    pub secs: f64,
    /// Entries in the index afterwards.
    pub entries: i64,
    /// Peak RSS of the child process, kB.
    pub peak_kb: u64,
}

/// Child side: runs one import of `mode` (`sync` or `import`) into `root` and prints one JSON
/// line `{"secs":…, "entries":…, "peakKb":…}` on stdout.
pub fn child_main(mode: &str, root: &Path, src: Option<&Path>, config: Config) -> BResult<()> {
    let (secs, mem) = match mode {
        "sync" => {
            let t = Instant::now();
            let mem = Memory::open(root, config)?;
            (t.elapsed().as_secs_f64(), mem)
        }
        "import" => {
            let src = src.ok_or("--src is required with --child import")?;
            let mem = Memory::open(root, config)?;
            let t = Instant::now();
            mem.import(src, Some(Format::Dsh), &mut |_, _| {})?;
            (t.elapsed().as_secs_f64(), mem)
        }
        other => return Err(format!("unknown child mode {other:?}").into()),
    };
    let entries: i64 = mem.conn()?.query_row("SELECT count(*) FROM entries", [], |r| r.get(0))?;
    println!("{}", serde_json::json!({ "secs": secs, "entries": entries, "peakKb": peak_rss_kb() }));
    Ok(())
}

/// Parent side: runs `exe --child mode --root root [--src src]` and reads its report.
pub fn run_child(exe: &Path, mode: &str, root: &Path, src: Option<&Path>) -> BResult<ChildReport> {
    let mut cmd = Command::new(exe);
    cmd.arg("--child").arg(mode).arg("--root").arg(root);
    if let Some(s) = src {
        cmd.arg("--src").arg(s);
    }
    let out = cmd.output()?;
    if !out.status.success() {
        return Err(format!("child {mode} failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(text.lines().last().unwrap_or(""))?;
    Ok(ChildReport {
        secs: v["secs"].as_f64().ok_or("child: no secs")?,
        entries: v["entries"].as_i64().ok_or("child: no entries")?,
        peak_kb: v["peakKb"].as_u64().ok_or("child: no peakKb")?,
    })
}

/// One entry of the archive, ready for the floors.
#[derive(Debug, Clone)]
pub struct Row {
    /// Index id (`day_number << 20 | ordinal`, as the engine assigns it).
    pub id: i64,
    /// UTC instant.
    pub ts: chrono::DateTime<chrono::Utc>,
    /// Tag.
    pub tag: String,
    /// Text without the source marker.
    pub content: String,
    /// Source marker body.
    pub source: Option<String>,
    /// 1-based line.
    pub line: i64,
    /// `segment(tag)`.
    pub tag_seg: String,
    /// `segment(content)`.
    pub body_seg: String,
}

/// The cold files of `root`, sorted by relative path: (relative path, absolute path).
pub fn cold_files(root: &Path) -> BResult<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for m in std::fs::read_dir(root.join("cold"))? {
        let m = m?;
        if !m.file_type()?.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(m.path())? {
            let f = f?;
            let rel = format!("cold/{}/{}", m.file_name().to_string_lossy(), f.file_name().to_string_lossy());
            if day_of_cold_rel(&rel).is_some() {
                out.push((rel, f.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Reads and segments every entry of the archive at `root` (not timed).
pub fn load_rows(root: &Path) -> BResult<Vec<Row>> {
    let mut rows = Vec::new();
    for (rel, path) in cold_files(root)? {
        let day = day_of_cold_rel(&rel).ok_or("bad cold path")?;
        let text = std::fs::read_to_string(&path)?;
        let base = day_number(day) << 20;
        let mut n = 0i64;
        for (i, line) in text.split('\n').enumerate() {
            if let LineKind::Entry(e) = parse_line(line) {
                rows.push(Row {
                    id: base | n,
                    ts: e.ts,
                    tag_seg: segment(&e.tag),
                    body_seg: segment(&e.content),
                    source: e.source.as_ref().map(|s| s.marker_body()),
                    tag: e.tag,
                    content: e.content,
                    line: i as i64 + 1,
                });
                n += 1;
            }
        }
    }
    Ok(rows)
}

/// The index's schema: every migration in order (V8 defines today's `entry_rows`, its tag
/// index and the FTS5 table; the earlier ones are what it replaces).
const SCHEMA_SQL: [&str; 8] = [
    include_str!("../migrations/V1__entries.sql"),
    include_str!("../migrations/V2__tag_index.sql"),
    include_str!("../migrations/V3__fts.sql"),
    include_str!("../migrations/V4__files_meta.sql"),
    include_str!("../migrations/V5__layer_files.sql"),
    include_str!("../migrations/V6__usage.sql"),
    include_str!("../migrations/V7__files_ctime.sql"),
    include_str!("../migrations/V8__compact_entries.sql"),
];

fn fresh_db(path: &Path) -> BResult<Connection> {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let c = Connection::open(path)?;
    // The index's own settings (src/db.rs): WAL, synchronous NORMAL, 32 MB page cache.
    c.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    c.pragma_update(None, "synchronous", "NORMAL")?;
    c.pragma_update(None, "cache_size", -32_000)?;
    Ok(c)
}

/// The floor: seconds to create the bare FTS5 table and insert every row's pre-segmented
/// tag and body in one transaction with one prepared statement, commit included.
pub fn floor_fts(rows: &[Row], path: &Path) -> BResult<f64> {
    let mut c = fresh_db(path)?;
    let t = Instant::now();
    for sql in SCHEMA_SQL {
        c.execute_batch(sql)?;
    }
    let tx = c.transaction()?;
    {
        let mut st = tx.prepare("INSERT INTO entries_fts(rowid, tag, body) VALUES(?1, ?2, ?3)")?;
        for r in rows {
            st.execute(params![r.id, r.tag_seg, r.body_seg])?;
        }
    }
    tx.commit()?;
    Ok(t.elapsed().as_secs_f64())
}

/// The schema floor: as [`floor_fts`], also filling `entry_rows` (and its tag index) with the
/// same columns the engine stores.
pub fn floor_schema(rows: &[Row], path: &Path) -> BResult<f64> {
    let mut c = fresh_db(path)?;
    let t = Instant::now();
    for sql in SCHEMA_SQL {
        c.execute_batch(sql)?;
    }
    let tx = c.transaction()?;
    {
        let mut fts = tx.prepare("INSERT INTO entries_fts(rowid, tag, body) VALUES(?1, ?2, ?3)")?;
        for r in rows {
            memlayers::index::sync::insert_row(&tx, r.id, r.ts, &r.tag, &r.content, r.source.as_deref(), r.line)?;
            fts.execute(params![r.id, r.tag_seg, r.body_seg])?;
        }
    }
    tx.commit()?;
    Ok(t.elapsed().as_secs_f64())
}
