//! `bench-calls`: the per-call benchmark (docs/benchmarks.md). It measures what an agent pays per query on existing
//! data roots — one `memlayers` process per call (the CLI), one round trip to a running
//! `memlayers mcp` server, the CLI call answered by a running `memlayers serve`, and one library call — against ripgrep (over the whole archive and
//! over the window's day files) and raw SQL (the same FTS5 query, in-process and through the
//! `sqlite3` shell) on the same data, the same terms and the same windows, in one run. It
//! prints a Markdown report, writes it to `--out`, and draws latency against archive size as
//! an SVG (`--svg`).
//!
//! ```text
//! bench-calls --root DIR [--root DIR …] [--memlayers BIN] [--out FILE] [--svg FILE]
//!             [--repeats 10] [--anchors 10] [--tz Asia/Shanghai] [--term 'zh1=今' …]
//! ```
//!
//! Each `--root` is a data root whose index is up to date (`memlayers sync` once); its
//! `cold/` is the archive ripgrep reads. Method and query classes: tools/README.md.

#[allow(dead_code)] // shared with `bench`; this runner uses the mix, the windows and the anchors
mod bench_query;
#[allow(dead_code)] // shared with `bench`; this runner uses the formatting helpers
mod bench_report;
mod mcp_client;
#[allow(dead_code)] // shared with gen-archive; the runner reads only the word lists
mod vocab;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use clap::Parser;
use memlayers::query::retrieve::{RetrieveArgs, TimeRange};
use memlayers::query::search::{Mode, Query};
use memlayers::{Config, Memory};

use bench_query::{Win, anchors, query_mix, window_files};
use bench_report::{Machine, mb, ms, percentile, table, thousands};
use mcp_client::Mcp;

/// Errors of the runner (a tool: any failure ends the run with its message).
pub type BResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "bench-calls", about = "memlayers per-call latency (CLI, MCP, library) against ripgrep and raw SQL")]
struct Args {
    /// Data roots to measure (index up to date), smallest first.
    #[arg(long = "root", required = true)]
    roots: Vec<PathBuf>,
    /// The memlayers binary (default: next to this one).
    #[arg(long)]
    memlayers: Option<PathBuf>,
    /// Report file (Markdown).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Latency-versus-size chart (SVG).
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Calls per (class, no window) and per raw baseline.
    #[arg(long, default_value_t = 10)]
    repeats: usize,
    /// Anchor days per window kind (one windowed call per anchor).
    #[arg(long, default_value_t = 10)]
    anchors: usize,
    /// Time zone partitioning the day files.
    #[arg(long, default_value = "Asia/Shanghai")]
    tz: String,
    /// Override a class's term: `CLASS=TEXT` (classes: zh1, zh2-common, zh2-mid, zh2-rare,
    /// zh3-4, latin-common, latin-rare).
    #[arg(long = "term")]
    terms: Vec<String>,
}

/// The query classes, with their default terms from the generator's vocabulary
/// (the rules of `bench`'s mix: vocabulary lists are in Zipf order, common = first, rare = last).
fn classes(overrides: &[String]) -> BResult<Vec<(&'static str, String)>> {
    let mix = query_mix();
    let pick = |c: &str| mix.iter().find(|q| q.class == c).map(|q| q.text.clone()).expect("mix class");
    let mut out = vec![
        ("zh1", pick("zh1 common")),
        ("zh2-common", pick("zh2 common")),
        ("zh2-mid", pick("zh2 mid")),
        ("zh2-rare", pick("zh2 rare")),
        ("zh3-4", pick("zh3+ common")),
        ("latin-common", pick("en common")),
        ("latin-rare", pick("en rare")),
    ];
    for o in overrides {
        let (k, v) = o.split_once('=').ok_or_else(|| format!("--term {o:?}: expected CLASS=TEXT"))?;
        let slot = out.iter_mut().find(|(c, _)| *c == k).ok_or_else(|| format!("--term: unknown class {k:?}"))?;
        slot.1 = v.to_string();
    }
    Ok(out)
}

/// What one data root holds.
struct RootInfo {
    entries: i64,
    files: i64,
    first: NaiveDate,
    last: NaiveDate,
    archive_bytes: i64,
    index_bytes: u64,
}

fn root_info(root: &Path) -> BResult<RootInfo> {
    let c =
        rusqlite::Connection::open_with_flags(root.join("index.sqlite3"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let (entries, files, first, last, bytes): (i64, i64, String, String, i64) =
        c.query_row("SELECT sum(entries), count(*), min(day), max(day), sum(size) FROM files", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
    let size = |s: &str| std::fs::metadata(root.join(s)).map(|m| m.len()).unwrap_or(0);
    Ok(RootInfo {
        entries,
        files,
        first: first.parse()?,
        last: last.parse()?,
        archive_bytes: bytes,
        index_bytes: size("index.sqlite3") + size("index.sqlite3-wal"),
    })
}

/// One system's latencies of a cell (`|c| &c.cli`, …).
type System = fn(&Cell) -> &Vec<f64>;

/// Latencies (ms) of one (class, window) cell, per system.
#[derive(Debug, Default, Clone)]
struct Cell {
    cli: Vec<f64>,
    /// The same CLI call answered by a running `memlayers serve`.
    served: Vec<f64>,
    mcp: Vec<f64>,
    lib: Vec<f64>,
    rg: Vec<f64>,
    sql: Vec<f64>,
    shell: Vec<f64>,
    /// Entries matching (FTS5 count; without a window: the whole archive).
    hits: i64,
}

fn timed(f: impl FnOnce() -> BResult<()>) -> BResult<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

fn run_ok(cmd: &mut Command) -> BResult<Vec<u8>> {
    let out = cmd.stdin(Stdio::null()).output()?;
    // ripgrep exits 1 when nothing matched: still a completed search.
    if !(out.status.success() || out.status.code() == Some(1) && cmd.get_program() == "rg") {
        return Err(format!("{:?} failed: {}", cmd.get_program(), String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(out.stdout)
}

/// A running `memlayers serve` for the data root (the CLI's resident server).
struct Serve {
    child: Child,
}

impl Serve {
    /// Starts it and waits until its socket accepts; `None` when this build has no `serve`.
    fn start(bin: &Path, root: &Path) -> BResult<Option<Serve>> {
        let probe = Command::new(bin).args(["serve", "--help"]).stdin(Stdio::null()).output()?;
        if !probe.status.success() {
            return Ok(None);
        }
        let child = Command::new(bin)
            .arg("--data-root")
            .arg(root)
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let s = Serve { child };
        let t = Instant::now();
        while !listening(bin, root) {
            if t.elapsed() > Duration::from_secs(120) {
                return Err("memlayers serve did not listen within 120 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Some(s))
    }
}

/// Whether a server answers for `root`: `memlayers serve --status` exits 0 (its socket lives in
/// the user's runtime folder, docs/server.md).
fn listening(bin: &Path, root: &Path) -> bool {
    Command::new(bin)
        .arg("--data-root")
        .arg(root)
        .args(["serve", "--status"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Drop for Serve {
    fn drop(&mut self) {
        // SIGTERM: the server removes its socket and flushes usage hits.
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

/// The raw SQL baseline: the FTS5 query memlayers would run, ranked by FTS5's own bm25, top 10.
const RAW_SQL: &str =
    "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3 ORDER BY rank LIMIT 10";

struct Ctx<'a> {
    bin: &'a Path,
    root: &'a Path,
    tz: &'a str,
    now: String,
    mem: &'a Memory,
    mcp: Option<&'a mut Mcp>,
    sql: &'a rusqlite::Connection,
    shell: bool,
    rg: bool,
    serve: bool,
}

/// The systems measured, in the order each cell runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sys {
    Cli,
    Serve,
    Mcp,
    Lib,
    Rg,
    Sql,
}

impl Sys {
    const ALL: [Sys; 6] = [Sys::Cli, Sys::Serve, Sys::Mcp, Sys::Lib, Sys::Rg, Sys::Sql];
}

/// Runs system `sys` once on one (term, window) and appends its latency to `cell` (nothing
/// for a system this run does not measure).
fn measure_once(
    cx: &mut Ctx,
    sys: Sys,
    term: &str,
    win: Option<(NaiveDate, NaiveDate)>,
    cell: &mut Cell,
) -> BResult<()> {
    let root_s = cx.root.to_str().ok_or("root path not UTF-8")?;
    let (from_s, to_s) = match win {
        Some((a, b)) => (a.format("%Y-%m-%d").to_string(), b.format("%Y-%m-%d").to_string()),
        None => (String::new(), String::new()),
    };
    match sys {
        // CLI: one process per call, as an agent's shell makes it.
        Sys::Cli => {
            let mut cmd = Command::new(cx.bin);
            cmd.env("MEMLAYERS_SERVER", "off").args(["--data-root", root_s, "--tz", cx.tz, "--now", &cx.now, "--json"]);
            match win {
                Some(_) => cmd.args(["retrieve", term, "--from", &from_s, "--to", &to_s]),
                None => cmd.args(["recall", term]),
            };
            cell.cli.push(timed(|| run_ok(&mut cmd).map(|_| ()))?);
        }
        // The same call through the running `memlayers serve` (the root's recorded zone; the
        // server pins --now for the call).
        Sys::Serve => {
            if cx.serve {
                let mut cmd = Command::new(cx.bin);
                cmd.env("MEMLAYERS_SERVER", "require").args(["--data-root", root_s, "--json"]);
                match win {
                    Some(_) => cmd.args(["retrieve", term, "--from", &from_s, "--to", &to_s]),
                    None => cmd.args(["recall", term]),
                };
                cmd.args(["--now", &cx.now]);
                cell.served.push(timed(|| run_ok(&mut cmd).map(|_| ()))?);
            }
        }
        // MCP round trip.
        Sys::Mcp => {
            if let Some(m) = cx.mcp.as_deref_mut() {
                let t = match win {
                    Some(_) => timed(|| {
                        m.call("mem_retrieve", serde_json::json!({"query": term, "from": from_s, "to": to_s}))
                    })?,
                    None => timed(|| m.call("mem_recall", serde_json::json!({"keyword": term})))?,
                };
                cell.mcp.push(t);
            }
        }
        // Library.
        Sys::Lib => {
            let mem = cx.mem;
            cell.lib.push(timed(|| {
                match win {
                    Some((from, to)) => {
                        let args = RetrieveArgs {
                            query: term.to_string(),
                            time_range: Some(TimeRange::Dates { from, to }),
                            tz: None,
                            limit: Some(10),
                            ..Default::default()
                        };
                        mem.retrieve(&args)?;
                    }
                    None => {
                        mem.recall(term, Some(10), None)?;
                    }
                }
                Ok(())
            })?);
        }
        // ripgrep: the whole archive, or the window's day files.
        Sys::Rg => {
            if cx.rg {
                measure_rg(cx.root, term, win, cell)?;
            }
        }
        Sys::Sql => measure_sql(cx, term, win, cell)?,
    }
    Ok(())
}

fn measure_rg(root: &Path, term: &str, win: Option<(NaiveDate, NaiveDate)>, cell: &mut Cell) -> BResult<()> {
    let mut rg = Command::new("rg");
    rg.args(["--fixed-strings", "--ignore-case", "--count", "--no-messages", "--", term]);
    match win {
        Some((a, b)) => {
            let files = window_files(root, a, b);
            if files.is_empty() {
                rg.arg("/dev/null");
            }
            rg.args(files);
        }
        None => {
            rg.arg(root.join("cold"));
        }
    };
    cell.rg.push(timed(|| run_ok(&mut rg).map(|_| ()))?);
    Ok(())
}

fn measure_sql(cx: &mut Ctx, term: &str, win: Option<(NaiveDate, NaiveDate)>, cell: &mut Cell) -> BResult<()> {
    // Raw SQL, in-process and through the sqlite3 shell (process start included).
    let fts = Query::new(term, Mode::And)?.fts();
    let (lo, hi) = match win {
        Some((a, b)) => memlayers::index::sync::id_range(a, b),
        None => (i64::MIN, i64::MAX),
    };
    let sql = cx.sql;
    cell.sql.push(timed(|| {
        let mut st = sql.prepare_cached(RAW_SQL)?;
        let n = st.query_map(rusqlite::params![fts, lo, hi], |r| r.get::<_, i64>(0))?.count();
        std::hint::black_box(n);
        Ok(())
    })?);
    if cx.shell {
        let q = RAW_SQL
            .replace("?1", &format!("'{}'", fts.replace('\'', "''")))
            .replace("?2", &lo.to_string())
            .replace("?3", &hi.to_string());
        let mut sh = Command::new("sqlite3");
        sh.args(["-readonly"]).arg(cx.root.join("index.sqlite3")).arg(q);
        cell.shell.push(timed(|| run_ok(&mut sh).map(|_| ()))?);
    }
    Ok(())
}

fn hits(sql: &rusqlite::Connection, term: &str, win: Option<(NaiveDate, NaiveDate)>) -> BResult<i64> {
    let fts = Query::new(term, Mode::And)?.fts();
    let (lo, hi) = win.map_or((i64::MIN, i64::MAX), |(a, b)| memlayers::index::sync::id_range(a, b));
    Ok(sql.query_row(
        "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1 AND rowid BETWEEN ?2 AND ?3",
        rusqlite::params![fts, lo, hi],
        |r| r.get(0),
    )?)
}

/// Every cell of one root: (class index, window kind) → latencies.
type Grid = BTreeMap<(usize, Win), Cell>;

struct RootRun {
    info: RootInfo,
    grid: Grid,
    mcp: bool,
    /// Whether the build has `memlayers serve` (CLI serve figures).
    serve: bool,
    spawn_floor: Vec<f64>,
    /// Baselines whose program is missing (`rg`, `sqlite3`).
    baselines: Vec<&'static str>,
}

/// Reads every regular file under `dir` once (the index, its WAL, the day files), so that
/// every system measured starts from the same warm OS page cache. Without it the first system
/// to touch a window (the in-process CLI, measured first) paid the disk reads of pages the OS
/// had dropped: at 1M entries, with 94 of the index's 198 MB resident, a year window's first
/// in-process call took 22–70 ms against 10–12 ms for the same call again. Returns the bytes
/// read.
fn warm_os_cache(dir: &Path) -> BResult<u64> {
    let mut total = 0;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            total += warm_os_cache(&e.path())?;
        } else if t.is_file() {
            total += std::io::copy(&mut std::fs::File::open(e.path())?, &mut std::io::sink())?;
        }
    }
    Ok(total)
}

fn run_root(args: &Args, bin: &Path, root: &Path, terms: &[(&'static str, String)]) -> BResult<RootRun> {
    let info = root_info(root)?;
    warm_os_cache(root)?;
    let tz: chrono_tz::Tz = args.tz.parse().map_err(|e| format!("--tz: {e}"))?;
    let now_local = info.last.and_hms_opt(12, 0, 0).ok_or("noon")?;
    let now = now_local.and_local_timezone(tz).single().ok_or("ambiguous noon")?;
    let now_s = now.to_rfc3339();
    let config = Config { timezone: tz, ..Config::default() };
    let mem = Memory::open(root, config)?.with_now(now.with_timezone(&chrono::Utc));
    let sql =
        rusqlite::Connection::open_with_flags(root.join("index.sqlite3"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let shell = Command::new("sqlite3").arg("-version").output().is_ok_and(|o| o.status.success());
    let rg = Command::new("rg").arg("--version").output().is_ok_and(|o| o.status.success());
    let mut mcp = Mcp::start(bin, root, &args.tz, &now_s)?;
    let has_mcp = mcp.is_some();
    let server = Serve::start(bin, root)?;
    let serve = server.is_some();
    let days = anchors(info.first, info.last, args.anchors);
    let mut grid = Grid::new();
    for (ci, (_, term)) in terms.iter().enumerate() {
        for win in Win::ALL {
            let mut cell = Cell { hits: hits(&sql, term, None)?, ..Cell::default() };
            let mut cx = Ctx {
                bin,
                root,
                tz: &args.tz,
                now: now_s.clone(),
                mem: &mem,
                mcp: mcp.as_mut(),
                sql: &sql,
                shell,
                rg,
                serve,
            };
            // Each system makes its calls of the cell back to back. Interleaved call by call,
            // every in-memory system (library, MCP, serve) paid for the CLI process just
            // before it: a CLI call records its usage hits in the index, which empties every
            // other connection's SQLite page cache, and its run evicts the CPU caches (a
            // library day-window retrieve at 1M: 0.16 ms alone, 0.43 ms after each CLI call).
            match win.range(info.last) {
                None => {
                    for sys in Sys::ALL {
                        // One untimed warm-up call per system, then the repeats.
                        measure_once(&mut cx, sys, term, None, &mut Cell::default())?;
                        for _ in 0..args.repeats {
                            measure_once(&mut cx, sys, term, None, &mut cell)?;
                        }
                    }
                }
                Some(_) => {
                    for sys in Sys::ALL {
                        for d in &days {
                            let w = win.range(*d).expect("windowed kind");
                            measure_once(&mut cx, sys, term, Some(w), &mut cell)?;
                        }
                    }
                    // Hits in the window of the last anchor (indicative).
                    cell.hits = hits(&sql, term, win.range(*days.last().expect("anchors")))?;
                }
            }
            eprintln!(
                "bench-calls: {} {} {}: cli p50 {} ms, served {} ms",
                thousands(info.entries as u64),
                term,
                win.name(),
                ms(percentile(&cell.cli, 50.0)),
                ms(percentile(&cell.served, 50.0))
            );
            grid.insert((ci, win), cell);
        }
    }
    let mut spawn_floor = Vec::new();
    for _ in 0..args.repeats.max(5) {
        spawn_floor.push(timed(|| run_ok(&mut Command::new("true")).map(|_| ()))?);
    }
    let baselines = [("ripgrep", rg), ("sqlite3", shell)].into_iter().filter(|(_, ok)| !ok).map(|(n, _)| n).collect();
    drop(server);
    Ok(RootRun { info, grid, mcp: has_mcp, serve, spawn_floor, baselines })
}

fn p(xs: &[f64], q: f64) -> String {
    if xs.is_empty() { "–".into() } else { ms(percentile(xs, q)) }
}

fn pp(xs: &[f64]) -> String {
    if xs.is_empty() { "–".into() } else { format!("{} / {}", p(xs, 50.0), p(xs, 99.0)) }
}

fn med(xs: &[f64]) -> f64 {
    if xs.is_empty() { f64::NAN } else { percentile(xs, 50.0) }
}

fn report(runs: &[RootRun], terms: &[(&'static str, String)], machine: &Machine, args: &Args) -> String {
    let mut s = String::new();
    s.push_str("# Per-call latency: CLI, MCP and library against ripgrep and raw SQL\n\n");
    s.push_str(&machine.markdown());
    s.push_str(&format!(
        "\nOne run, every system on the same data roots, terms and windows. Calls per cell: {} unwindowed \
(after one warm-up), one per anchor day ({} anchors spread over the archive) for each window; \
within a cell each system makes its calls back to back (CLI, serve, MCP, library, rg, SQL), so a CLI \
call's usage-hit commit does not empty the page cache of the in-memory systems between their calls. \
Latencies in ms, p50 / p99 (nearest rank). CLI: `memlayers --json recall TERM` or `retrieve TERM --from A --to B`, \
process start included, in-process (`MEMLAYERS_SERVER=off`, `--tz` and `--now` pinned). CLI serve: the same call without `--tz` (the root's recorded zone), `--now` pinned for the call by the server, answered by a running `memlayers serve` (`MEMLAYERS_SERVER=require`), process start included: what a CLI call gets once a server was started (`memlayers serve`, or `MEMLAYERS_SERVER=spawn`; by default a call uses a running server and starts none, docs/server.md); the in-process CLI is what every call gets without one (`MEMLAYERS_SERVER` unset or `off`, Windows, a read-only root). MCP: one `tools/call` round trip to a running `memlayers mcp` (`mem_recall` / `mem_retrieve`). \
Library: `Memory::recall` / `Memory::retrieve` on an open handle. rg: `rg -F -i --count TERM` over `cold/` or the \
window's day files, process start included. SQL: `{RAW_SQL}` in-process (FTS5's own bm25, top 10); sqlite3: the \
same statement through the `sqlite3` shell, process start included. Before a root is measured, each of its files is read once, so every system starts from the same warm OS page cache (SQLite's own page cache is per process: empty at each CLI call, warm in the library and the servers).\n\n",
        args.repeats, args.anchors
    ));
    for r in runs {
        let i = &r.info;
        s.push_str(&format!(
            "## {} entries ({} day files, {} … {}; archive {} MB, index {} MB = {:.2}×)\n\n",
            thousands(i.entries as u64),
            thousands(i.files as u64),
            i.first,
            i.last,
            mb(i.archive_bytes as u64),
            mb(i.index_bytes),
            i.index_bytes as f64 / i.archive_bytes as f64
        ));
        if !r.serve {
            s.push_str("CLI serve: this `memlayers` build has no `serve` subcommand, so no figures.\n\n");
        }
        if !r.mcp {
            s.push_str("MCP: this `memlayers` build has no `mcp` subcommand, so no MCP figures.\n\n");
        }
        if !r.baselines.is_empty() {
            s.push_str(&format!("Not installed, so not measured: {}.\n\n", r.baselines.join(", ")));
        }
        s.push_str(&format!("Process start floor (`true`): p50 {} ms.\n\n", p(&r.spawn_floor, 50.0)));
        let mut rows = Vec::new();
        for (ci, (class, term)) in terms.iter().enumerate() {
            for win in Win::ALL {
                let c = &r.grid[&(ci, win)];
                let rg_ratio = med(&c.rg) / med(&c.cli);
                let rg_served = med(&c.rg) / med(&c.served);
                rows.push(vec![
                    (*class).to_string(),
                    format!("`{term}`"),
                    win.name().to_string(),
                    thousands(c.hits as u64),
                    pp(&c.cli),
                    ms(med(&c.cli) - med(&c.lib)),
                    pp(&c.served),
                    ms(med(&c.served) - med(&c.lib)),
                    pp(&c.mcp),
                    pp(&c.lib),
                    pp(&c.rg),
                    format!("{rg_ratio:.2}×"),
                    format!("{rg_served:.2}×"),
                    pp(&c.sql),
                    pp(&c.shell),
                ]);
            }
        }
        s.push_str(&table(
            &[
                "class",
                "term",
                "window",
                "hits",
                "CLI",
                "CLI − lib p50",
                "CLI serve",
                "serve − lib p50",
                "MCP",
                "library",
                "rg",
                "rg ÷ CLI p50",
                "rg ÷ serve p50",
                "SQL",
                "sqlite3",
            ],
            &rows,
        ));
        s.push('\n');
    }
    if let Some(big) = runs.last() {
        s.push_str(&targets(big, terms));
    }
    s
}

/// The per-call targets, each checked on the largest root.
fn targets(r: &RootRun, terms: &[(&'static str, String)]) -> String {
    let cells = |w: Win| (0..terms.len()).map(move |ci| (ci, w));
    let verdict = |ok: bool| if ok { "met" } else { "**missed**" }.to_string();
    let mut rows = Vec::new();
    let worst = |f: &dyn Fn(&Cell) -> f64, ws: &[Win]| -> (f64, String) {
        let mut best = (f64::MIN, String::new());
        for w in ws {
            for k in cells(*w) {
                let v = f(&r.grid[&k]);
                if v > best.0 {
                    best = (v, format!("{} {}", terms[k.0].0, w.name()));
                }
            }
        }
        best
    };
    let all = Win::ALL;
    let windows = [Win::Day, Win::Week, Win::Month, Win::Year];
    let modes: [(&str, System); 2] = [("through a running server", |c| &c.served), ("default: in-process", |c| &c.cli)];
    for (mode, sys) in modes {
        if mode.starts_with("through") && !r.serve {
            continue;
        }
        let (o, at) = worst(&|c| med(sys(c)) - med(&c.lib), &all);
        rows.push(vec![
            format!("CLI ({mode}) p50 − library p50 ≤ 5 ms (every class, window)"),
            format!("worst {} ms ({at})", ms(o)),
            verdict(o <= 5.0),
        ]);
        let (o, at) = worst(&|c| med(sys(c)) / med(&c.rg), &windows);
        rows.push(vec![
            format!("windowed CLI ({mode}) p50 < rg over the window's files"),
            format!("worst CLI ÷ rg {o:.2} ({at})"),
            verdict(o < 1.0),
        ]);
        let (o, at) = worst(&|c| 3.0 * med(sys(c)) / med(&c.rg), &[Win::None]);
        rows.push(vec![
            format!("unwindowed CLI ({mode}) p50 ≥ 3× faster than rg over the archive"),
            format!("worst rg ÷ CLI {:.2}× ({at})", 3.0 / o),
            verdict(o <= 1.0),
        ]);
        let (o, at) = worst(&|c| percentile(sys(c), 99.0), &[Win::None]);
        rows.push(vec![
            format!("unwindowed CLI ({mode}) p99 ≤ 60 ms"),
            format!("worst {} ms ({at})", ms(o)),
            verdict(o <= 60.0),
        ]);
    }
    for (label, f, ws, lim) in [
        ("library day/week p50 ≤ 0.5 ms", 50.0, &[Win::Day, Win::Week][..], 0.5),
        ("library day/week p99 ≤ 5 ms", 99.0, &[Win::Day, Win::Week][..], 5.0),
        ("library unwindowed p50 ≤ 5 ms", 50.0, &[Win::None][..], 5.0),
        ("library unwindowed p99 ≤ 30 ms", 99.0, &[Win::None][..], 30.0),
    ] {
        let (o, at) = worst(&|c| percentile(&c.lib, f), ws);
        rows.push(vec![label.into(), format!("worst {} ms ({at})", ms(o)), verdict(o <= lim)]);
    }
    if r.mcp {
        for (label, f, ws, lim) in [
            ("MCP day/week p50 ≤ 0.5 ms", 50.0, &[Win::Day, Win::Week][..], 0.5),
            ("MCP day/week p99 ≤ 5 ms", 99.0, &[Win::Day, Win::Week][..], 5.0),
            ("MCP unwindowed p50 ≤ 5 ms", 50.0, &[Win::None][..], 5.0),
            ("MCP unwindowed p99 ≤ 30 ms", 99.0, &[Win::None][..], 30.0),
        ] {
            let (o, at) = worst(&|c| percentile(&c.mcp, f), ws);
            rows.push(vec![label.into(), format!("worst {} ms ({at})", ms(o)), verdict(o <= lim)]);
        }
    }
    let ratio = r.info.index_bytes as f64 / r.info.archive_bytes as f64;
    rows.push(vec!["index ≤ 2.0× the archive".into(), format!("{ratio:.2}×"), verdict(ratio <= 2.0)]);
    format!(
        "## Targets at {} entries\n\n{}\n",
        thousands(r.info.entries as u64),
        table(&["target", "measured", "verdict"], &rows)
    )
}

/// One line of the chart: a root's figure.
type Series = Box<dyn Fn(&RootRun) -> f64>;

/// Latency (p50 over the classes' medians) against archive size, log–log, as an SVG.
fn svg(runs: &[RootRun], machine_line: &str) -> String {
    let series: Vec<(&str, &str, Series)> = vec![
        ("CLI in-process, no window", "#d62728", Box::new(|r| class_median(r, Win::None, |c| &c.cli))),
        ("CLI in-process, day window", "#ff9896", Box::new(|r| class_median(r, Win::Day, |c| &c.cli))),
        ("CLI via server, no window", "#ff7f0e", Box::new(|r| class_median(r, Win::None, |c| &c.served))),
        ("CLI via server, day window", "#ffbb78", Box::new(|r| class_median(r, Win::Day, |c| &c.served))),
        ("library, no window", "#1f77b4", Box::new(|r| class_median(r, Win::None, |c| &c.lib))),
        ("library, day window", "#aec7e8", Box::new(|r| class_median(r, Win::Day, |c| &c.lib))),
        ("ripgrep, whole archive", "#2ca02c", Box::new(|r| class_median(r, Win::None, |c| &c.rg))),
        ("ripgrep, day's file", "#98df8a", Box::new(|r| class_median(r, Win::Day, |c| &c.rg))),
        ("sqlite3 shell, no window", "#9467bd", Box::new(|r| class_median(r, Win::None, |c| &c.shell))),
    ];
    let (w, h, l, rgt, t, b) = (760.0, 460.0, 70.0, 210.0, 40.0, 50.0);
    let xs: Vec<f64> = runs.iter().map(|r| (r.info.entries as f64).log10()).collect();
    let (x0, x1) = (xs.iter().cloned().fold(f64::MAX, f64::min), xs.iter().cloned().fold(f64::MIN, f64::max));
    let (x0, x1) = if x1 > x0 { (x0, x1) } else { (x0 - 1.0, x1 + 1.0) };
    let (y0, y1) = (-1.0f64, 3.0f64); // 0.1 ms … 1000 ms
    let px = |x: f64| l + (x - x0) / (x1 - x0) * (w - l - rgt);
    let py = |y: f64| t + (1.0 - (y.clamp(y0, y1) - y0) / (y1 - y0)) * (h - t - b);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
<text x=\"{l}\" y=\"20\" font-size=\"14\">memlayers per-call latency (p50, median over query classes) vs archive size</text>\n\
<text x=\"{l}\" y=\"{}\" font-size=\"10\" fill=\"#555\">{}</text>\n",
        h - 8.0,
        machine_line.replace('&', "&amp;").replace('<', "&lt;")
    );
    for e in [-1, 0, 1, 2, 3] {
        let y = py(f64::from(e));
        let label = match e {
            -1 => "0.1 ms".to_string(),
            0 => "1 ms".into(),
            1 => "10 ms".into(),
            2 => "100 ms".into(),
            _ => "1 s".into(),
        };
        s.push_str(&format!(
            "<line x1=\"{l}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>\n",
            w - rgt,
            l - 6.0,
            y + 4.0
        ));
    }
    for (r, x) in runs.iter().zip(&xs) {
        let gx = px(*x);
        s.push_str(&format!(
            "<line x1=\"{gx:.1}\" y1=\"{t}\" x2=\"{gx:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/><text x=\"{gx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{} entries</text>\n",
            h - b,
            h - b + 16.0,
            thousands(r.info.entries as u64)
        ));
    }
    for (k, (name, color, f)) in series.iter().enumerate() {
        let pts: Vec<(f64, f64)> =
            runs.iter().zip(&xs).map(|(r, x)| (*x, f(r))).filter(|(_, v)| v.is_finite() && *v > 0.0).collect();
        if pts.is_empty() {
            continue;
        }
        let dash = if name.starts_with("ripgrep") { " stroke-dasharray=\"6 4\"" } else { "" };
        let path: Vec<String> = pts.iter().map(|(x, v)| format!("{:.1},{:.1}", px(*x), py(v.log10()))).collect();
        s.push_str(&format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"{}\"/>\n",
            path.join(" ")
        ));
        for (x, v) in &pts {
            s.push_str(&format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{color}\"/>\n",
                px(*x),
                py(v.log10())
            ));
        }
        let ly = t + 14.0 + k as f64 * 18.0;
        s.push_str(&format!(
            "<line x1=\"{:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{color}\" stroke-width=\"2\"{dash}/><text x=\"{:.1}\" y=\"{:.1}\">{name}</text>\n",
            w - rgt + 10.0,
            w - rgt + 34.0,
            w - rgt + 40.0,
            ly + 4.0
        ));
    }
    s.push_str("</svg>\n");
    s
}

/// Median over the classes of each class's p50 for window kind `w` and one system.
fn class_median(r: &RootRun, w: Win, sys: System) -> f64 {
    let v: Vec<f64> = r.grid.iter().filter(|((_, win), _)| *win == w).map(|(_, c)| med(sys(c))).collect();
    if v.iter().any(|x| !x.is_finite()) { f64::NAN } else { percentile(&v, 50.0) }
}

fn main() -> BResult<()> {
    let args = Args::parse();
    let bin = match &args.memlayers {
        Some(b) => b.clone(),
        None => std::env::current_exe()?.with_file_name("memlayers"),
    };
    if !bin.exists() {
        return Err(format!("--memlayers: {} does not exist (build it: cargo build --release)", bin.display()).into());
    }
    let terms = classes(&args.terms)?;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("."));
    let machine = Machine::detect(repo);
    let mut runs = Vec::new();
    for root in &args.roots {
        runs.push(run_root(&args, &bin, root, &terms)?);
    }
    runs.sort_by_key(|r| r.info.entries);
    let md = report(&runs, &terms, &machine, &args);
    println!("{md}");
    if let Some(out) = &args.out {
        std::fs::write(out, &md)?;
    }
    if let Some(path) = &args.svg {
        let m = &machine;
        let line = format!(
            "{} cores ({}), SQLite {}, commit {}, {}, load average {} at start",
            m.cores, m.cpu, m.sqlite, m.commit, m.date, m.load_start
        );
        std::fs::write(path, svg(&runs, &line))?;
    }
    Ok(())
}
