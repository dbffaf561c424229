//! `bench`: the benchmark runner (loading, open, size, query mix). For each archive size it generates a seeded archive
//! (`gen-archive`), measures import, open and query latency through the library, runs the
//! baselines (bare-FTS5 floor, LIKE scan, ripgrep) on the same data, prints a Markdown report
//! and writes it to `tools/BENCH_RESULTS.md`.
//!
//! ```text
//! bench [--sizes 10000,100000,1000000] [--smoke] [--work DIR] [--out FILE] [--seed 42] [--years 5]
//! ```
//!
//! `--smoke` runs the 10 000-entry size with few iterations (CI: it checks the runner works;
//! speed is reported, never asserted) and writes the report into the work directory unless
//! `--out` is given. Run `tools/bench.sh` for the full benchmark (it installs ripgrep and
//! builds in release mode). Method and query mix: tools/README.md.

mod bench_import;
mod bench_open;
mod bench_query;
mod bench_report;
#[allow(dead_code)] // shared with gen-archive; the bench reads only the word lists
mod vocab;

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{Duration, NaiveDate};
use clap::Parser;
use memlayers::{Config, Memory};

use bench_import::ChildReport;
use bench_open::OpenRun;
use bench_query::{Baselines, MixRun, NlRow, QuerySpec, Win};
use bench_report::{Machine, mb, ms, percentile, ratio, table, thousands};

/// Errors of the runner (it is a tool: any failure ends the run with its message).
pub type BResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "bench", about = "memlayers benchmarks: import, open, queries, baselines")]
struct Args {
    /// Archive sizes in entries, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [10_000u64, 100_000, 1_000_000])]
    sizes: Vec<u64>,
    /// CI smoke run: 10 000 entries, few iterations; report written to the work directory.
    #[arg(long)]
    smoke: bool,
    /// Work directory for archives and data roots (default: $TMPDIR/memlayers-bench).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Report file (default tools/BENCH_RESULTS.md; with --smoke, <work>/BENCH_RESULTS.md).
    // This doc comment is the `--help` text, where `<work>` is a placeholder, not an HTML tag.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long)]
    out: Option<PathBuf>,
    /// gen-archive seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Years the archives span.
    #[arg(long, default_value_t = 5)]
    years: u32,
    /// The gen-archive binary (default: next to this one).
    #[arg(long)]
    gen_archive: Option<PathBuf>,
    /// Internal: run one import (`sync` or `import`) in this process and print its figures.
    #[arg(long, hide = true)]
    child: Option<String>,
    /// Internal: the data root of a child import.
    #[arg(long, hide = true)]
    root: Option<PathBuf>,
    /// Internal: the archive a child `import` reads.
    #[arg(long, hide = true)]
    src: Option<PathBuf>,
}

/// Iteration counts of a run.
#[derive(Debug, Clone, Copy)]
struct Iters {
    /// Anchor days per window kind.
    anchors: usize,
    /// Repeats of unwindowed, natural-language and baseline-unwindowed queries.
    repeats: usize,
    /// Timed opens of each kind.
    opens: usize,
    /// Repeats of the unwindowed baselines.
    baseline_repeats: usize,
}

const FULL: Iters = Iters { anchors: 20, repeats: 20, opens: 15, baseline_repeats: 3 };
const SMOKE: Iters = Iters { anchors: 2, repeats: 2, opens: 2, baseline_repeats: 1 };

/// Everything measured at one size.
struct SizeResult {
    n: u64,
    files: usize,
    archive_bytes: u64,
    first: NaiveDate,
    last: NaiveDate,
    sync: ChildReport,
    import: ChildReport,
    floor: f64,
    schema_floor: f64,
    index_bytes: u64,
    open: OpenRun,
    mix: MixRun,
    nl: Vec<NlRow>,
    window_only: Vec<NlRow>,
    window_only_explicit: Vec<f64>,
    base: Baselines,
}

fn config() -> Config {
    Config { timezone: chrono_tz::Asia::Shanghai, ..Config::default() }
}

fn file_size(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

fn copy_cold(from: &Path, to: &Path) -> BResult<()> {
    for (rel, path) in bench_import::cold_files(from)? {
        let dest = to.join(&rel);
        std::fs::create_dir_all(dest.parent().ok_or("no parent")?)?;
        std::fs::copy(&path, &dest)?;
    }
    Ok(())
}

fn fresh_dir(p: &Path) -> BResult<()> {
    if p.exists() {
        std::fs::remove_dir_all(p)?;
    }
    std::fs::create_dir_all(p)?;
    Ok(())
}

/// Generates the archive of `n` entries once per (n, years, seed); later runs reuse it.
fn archive(args: &Args, work: &Path, n: u64) -> BResult<PathBuf> {
    let dir = work.join(format!("archive-{n}-y{}-s{}", args.years, args.seed));
    let done = dir.join(".bench-complete");
    if done.exists() {
        return Ok(dir);
    }
    fresh_dir(&dir)?;
    let exe = match &args.gen_archive {
        Some(p) => p.clone(),
        None => std::env::current_exe()?.with_file_name("gen-archive"),
    };
    let out = Command::new(&exe)
        .args(["--out", &dir.to_string_lossy(), "--entries", &n.to_string()])
        .args(["--years", &args.years.to_string(), "--seed", &args.seed.to_string()])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!("gen-archive failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    eprint!("  {}", String::from_utf8_lossy(&out.stdout));
    std::fs::write(done, b"")?;
    Ok(dir)
}

fn run_size(args: &Args, work: &Path, n: u64, it: Iters) -> BResult<SizeResult> {
    eprintln!("bench: {n} entries");
    let src = archive(args, work, n)?;
    let files = bench_import::cold_files(&src)?;
    let archive_bytes: u64 = files.iter().map(|(_, p)| file_size(p)).sum();
    let days: Vec<NaiveDate> = files.iter().filter_map(|(rel, _)| memlayers::files::day_of_cold_rel(rel)).collect();
    let (first, last) = (*days.first().ok_or("empty archive")?, *days.last().ok_or("empty archive")?);
    let exe = std::env::current_exe()?;

    eprintln!("  import: full sync through Memory::open (child process)");
    let root = work.join(format!("root-{n}"));
    fresh_dir(&root)?;
    copy_cold(&src, &root)?;
    let sync = bench_import::run_child(&exe, "sync", &root, None)?;
    let index = root.join(memlayers::index::INDEX_FILE);
    let index_bytes = file_size(&index) + file_size(&index.with_file_name("index.sqlite3-wal"));

    eprintln!("  import: Memory::import of the archive into an empty root (child process)");
    let imp = work.join(format!("import-{n}"));
    fresh_dir(&imp)?;
    let import = bench_import::run_child(&exe, "import", &imp, Some(&src))?;
    std::fs::remove_dir_all(&imp)?;
    for (what, r) in [("sync", &sync), ("import", &import)] {
        if r.entries != n as i64 {
            return Err(format!("{what} indexed {} entries, expected {n}", r.entries).into());
        }
    }

    eprintln!("  floors: bare FTS5 table, then the full schema, minimal loop");
    let rows = bench_import::load_rows(&src)?;
    if rows.len() as u64 != n {
        return Err(format!("archive holds {} entries, expected {n}", rows.len()).into());
    }
    let floor_db = work.join(format!("floor-{n}.sqlite3"));
    let floor = bench_import::floor_fts(&rows, &floor_db)?;
    let schema_floor = bench_import::floor_schema(&rows, &floor_db)?;
    drop(rows);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", floor_db.display()));
    }

    eprintln!("  open");
    let paths: Vec<PathBuf> = files.iter().map(|(rel, _)| root.join(rel)).collect();
    let open = bench_open::run_open(&root, &config(), &paths, it.opens)?;

    eprintln!("  queries");
    let tz = config().timezone;
    let now = memlayers::files::local_midnight(last, tz) + Duration::hours(12);
    let mem = Memory::open(&root, config())?.with_now(now);
    let mix_specs = bench_query::query_mix();
    let anchors = bench_query::anchors(first, last, it.anchors);
    let mix = bench_query::run_mix(&mem, &mix_specs, &anchors, it.repeats)?;
    let nl = bench_query::run_nl(&mem, bench_query::NL_QUERIES, it.repeats)?;
    let window_only = bench_query::run_nl(&mem, bench_query::WINDOW_ONLY_QUERIES, it.repeats)?;
    let window_only_explicit = bench_query::run_window_only_explicit(&mem, &anchors)?;
    eprintln!("  baselines: LIKE, ripgrep");
    let base = bench_query::run_baselines(&mem, &mix_specs, &anchors, it.baseline_repeats)?;
    Ok(SizeResult {
        n,
        files: files.len(),
        archive_bytes,
        first,
        last,
        sync,
        import,
        floor,
        schema_floor,
        index_bytes,
        open,
        mix,
        nl,
        window_only,
        window_only_explicit,
        base,
    })
}

fn rate(n: u64, secs: f64) -> String {
    thousands((n as f64 / secs).round() as u64)
}

/// Every latency of the mix under `wins`.
fn mix_times(r: &SizeResult, wins: &[Win], single_only: Option<&[QuerySpec]>) -> Vec<f64> {
    r.mix
        .times
        .iter()
        .filter(|((i, w), _)| wins.contains(w) && single_only.is_none_or(|m| m[*i].single))
        .flat_map(|(_, v)| v.iter().copied())
        .collect()
}

fn p3(v: &[f64]) -> [String; 4] {
    [ms(percentile(v, 50.0)), ms(percentile(v, 95.0)), ms(percentile(v, 99.0)), ms(percentile(v, 100.0))]
}

fn nl_table(rows: &[NlRow]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                format!("`{}`", r.text),
                r.window.clone(),
                r.strategy.clone(),
                thousands(r.matched.max(0) as u64),
                ms(percentile(&r.times, 50.0)),
                ms(percentile(&r.times, 99.0)),
            ]
        })
        .collect();
    table(&["query", "window (local dates)", "strategy", "matched", "p50 ms", "p99 ms"], &body)
}

fn report(machine: &Machine, args: &Args, smoke: bool, results: &[SizeResult]) -> String {
    let mix_specs = bench_query::query_mix();
    let mut s = String::from("# memlayers benchmark results\n\n");
    s.push_str(&machine.markdown());
    s.push_str(&format!(
        "\n\nCommand: `tools/bench.sh`{} (release build). Archives: `gen-archive --entries N --years {} --seed {}`. \
         Method, query mix and how to read the figures: [tools/README.md](README.md). Times are wall clock; \
         the page cache is warm (the archive was just generated or copied).\n\n",
        if smoke { " --smoke" } else { "" },
        args.years,
        args.seed
    ));

    s.push_str("## Import\n\n");
    s.push_str(
        "*sync*: `Memory::open` of a data root whose `cold/` holds the archive and no index (full sync: read, \
         hash, parse, segment, insert). *import*: `Memory::import(archive, Dsh)` into an empty root (also \
         writes every day file, atomic write + fsync). *floor*: the same pre-segmented rows into a bare FTS5 \
         table, one transaction, one prepared statement. *schema floor*: the same minimal loop filling the \
         index's real tables (entries + tag index + FTS5). Peak RSS: VmHWM of the child process that ran \
         that import alone.\n\n",
    );
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            vec![
                thousands(r.n),
                format!("{} MB, {} files", mb(r.archive_bytes), r.files),
                format!("{:.2} s", r.sync.secs),
                rate(r.n, r.sync.secs),
                format!("{:.2} s", r.import.secs),
                rate(r.n, r.import.secs),
                format!("{:.2} s", r.floor),
                ratio(r.sync.secs, r.floor),
                format!("{:.2} s", r.schema_floor),
                ratio(r.sync.secs, r.schema_floor),
                format!("{} MB", mb(r.index_bytes)),
                ratio(r.index_bytes as f64, r.archive_bytes as f64),
                format!("{:.0} / {:.0} MB", r.sync.peak_kb as f64 / 1024.0, r.import.peak_kb as f64 / 1024.0),
            ]
        })
        .collect();
    s.push_str(&table(
        &[
            "entries",
            "archive",
            "sync",
            "sync entries/s",
            "import",
            "import entries/s",
            "floor",
            "sync ÷ floor",
            "schema floor",
            "sync ÷ schema floor",
            "index",
            "index ÷ archive",
            "peak RSS sync / import",
        ],
        &rows,
    ));

    s.push_str("\n## Open\n\n");
    s.push_str(
        "`Memory::open` of an up-to-date data root (sync check included); its parts: the database alone \
         (`open_unsynced`: integrity check, migrations, pool) and the sync check alone (`sync()` on an open \
         handle: stat every day file, compare with the index); and `Memory::open` right after one entry \
         line was appended to one day file by hand (that day is re-mirrored).\n\n",
    );
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            let o = &r.open;
            vec![
                thousands(r.n),
                format!("{} / {}", ms(percentile(&o.uptodate, 50.0)), ms(percentile(&o.uptodate, 100.0))),
                ms(percentile(&o.db_only, 50.0)),
                ms(percentile(&o.sync_only, 50.0)),
                format!("{} / {}", ms(percentile(&o.changed, 50.0)), ms(percentile(&o.changed, 100.0))),
            ]
        })
        .collect();
    s.push_str(&table(
        &[
            "entries",
            "open up-to-date p50 / max ms",
            "database only p50",
            "sync check only p50",
            "open after 1 file changed p50 / max",
        ],
        &rows,
    ));

    s.push_str("\n## Queries: the whole mix\n\n");
    s.push_str(
        "Latency of one library call, limit 10, sync check included (every query first checks the files). \
         *none*: `recall`; windows: `retrieve` with an explicit `TimeRange::Dates` (day, Monday–Sunday week, \
         calendar month, calendar year) around anchor days spread evenly over the archive.\n\n",
    );
    let mut rows = Vec::new();
    for r in results {
        for w in Win::ALL {
            let v = mix_times(r, &[w], None);
            let [a, b, c, d] = p3(&v);
            rows.push(vec![thousands(r.n), w.name().into(), v.len().to_string(), a, b, c, d]);
        }
    }
    s.push_str(&table(&["entries", "window", "calls", "p50 ms", "p95 ms", "p99 ms", "max ms"], &rows));

    for r in results {
        s.push_str(&format!("\n### Per query, {} entries (p50 / p99 ms)\n\n", thousands(r.n)));
        let mut rows = Vec::new();
        for (i, q) in mix_specs.iter().enumerate() {
            let mut row = vec![
                q.class.to_string(),
                format!("`{}`", q.text),
                bench_query::mode_name(q).into(),
                thousands(r.mix.hits[i].max(0) as u64),
            ];
            for w in Win::ALL {
                let v = r.mix.times.get(&(i, w)).cloned().unwrap_or_default();
                row.push(format!("{} / {}", ms(percentile(&v, 50.0)), ms(percentile(&v, 99.0))));
            }
            rows.push(row);
        }
        s.push_str(&table(&["class", "query", "mode", "hits", "none", "day", "week", "month", "year"], &rows));
    }

    for r in results {
        s.push_str(&format!(
            "\n### Natural-language queries, {} entries (`retrieve`, now = {} 12:00 Asia/Shanghai)\n\n",
            thousands(r.n),
            r.last
        ));
        s.push_str(&nl_table(&r.nl));
        s.push_str(&format!("\n### Window-only queries, {} entries\n\n", thousands(r.n)));
        s.push_str(&nl_table(&r.window_only));
        let v = &r.window_only_explicit;
        s.push_str(&format!(
            "\nExplicit `TimeRange::Dates` with an empty query (day/week/month/year at the anchors, {} calls): \
             p50 {} ms, p99 {} ms.\n",
            v.len(),
            ms(percentile(v, 50.0)),
            ms(percentile(v, 99.0))
        ));
    }

    s.push_str("\n## Baselines over the same single terms\n\n");
    if let Some(r) = results.first() {
        s.push_str(&format!(
            "LIKE: `SELECT count(*) FROM entries WHERE (content LIKE '%t%' OR tag LIKE '%t%')` (+ the window's \
             rowid range) on the same index. ripgrep: `rg -F -i --count t` over `cold/` or the window's day \
             files, process start included ({}). memlayers: the mix's single-term queries (ranked top 10, sync \
             check included). A ratio above 1× means memlayers is faster.\n\n",
            r.base.rg_version
        ));
    }
    let mut rows = Vec::new();
    for r in results {
        for w in Win::ALL {
            let m = percentile(&mix_times(r, &[w], Some(&mix_specs)), 50.0);
            let l = percentile(r.base.like.get(&w).map(Vec::as_slice).unwrap_or(&[]), 50.0);
            let g = percentile(r.base.rg.get(&w).map(Vec::as_slice).unwrap_or(&[]), 50.0);
            rows.push(vec![thousands(r.n), w.name().into(), ms(m), ms(l), ratio(l, m), ms(g), ratio(g, m)]);
        }
    }
    s.push_str(&table(
        &["entries", "window", "memlayers p50 ms", "LIKE p50 ms", "LIKE ÷ memlayers", "rg p50 ms", "rg ÷ memlayers"],
        &rows,
    ));

    if let Some(r) = results.iter().max_by_key(|r| r.n) {
        s.push_str(&format!("\n## Targets, at {} entries\n\n", thousands(r.n)));
        if r.n < 1_000_000 {
            s.push_str("The targets are set for 1 000 000 entries; this run's largest size is smaller.\n\n");
        }
        s.push_str(&table(&["target", "measured", "verdict"], &targets(r)));
    }
    s.push_str("\nResult digests (sha1 of every result id list of the mix; same digest = same results):\n\n");
    for r in results {
        s.push_str(&format!("- {} entries ({} … {}): `{}`\n", thousands(r.n), r.first, r.last, r.mix.digest));
    }
    s
}

fn verdict(ok: bool) -> String {
    if ok { "met".into() } else { "**missed**".into() }
}

fn targets(r: &SizeResult) -> Vec<Vec<String>> {
    let mut t = Vec::new();
    let sync_rate = r.n as f64 / r.sync.secs;
    let import_rate = r.n as f64 / r.import.secs;
    t.push(vec![
        "import ≥ 125 000 entries/s".into(),
        format!("sync {} /s; import {} /s", rate(r.n, r.sync.secs), rate(r.n, r.import.secs)),
        format!("sync {}, import {}", verdict(sync_rate >= 125_000.0), verdict(import_rate >= 125_000.0)),
    ]);
    t.push(vec![
        "import within 1.3× of the floor".into(),
        format!("sync {}, import {}", ratio(r.sync.secs, r.floor), ratio(r.import.secs, r.floor)),
        format!("sync {}, import {}", verdict(r.sync.secs <= 1.3 * r.floor), verdict(r.import.secs <= 1.3 * r.floor)),
    ]);
    let peak = r.sync.peak_kb.max(r.import.peak_kb) as f64 / 1024.0;
    t.push(vec!["peak RSS ≤ 300 MB".into(), format!("{peak:.0} MB"), verdict(peak <= 300.0)]);
    let x = r.index_bytes as f64 / r.archive_bytes as f64;
    t.push(vec!["index ≤ 2× archive bytes".into(), format!("{x:.2}×"), verdict(x <= 2.0)]);
    for (name, wins) in [("day/week window", &[Win::Day, Win::Week][..]), ("unwindowed", &[Win::None][..])] {
        let v = mix_times(r, wins, None);
        let (p50, p99) = (percentile(&v, 50.0), percentile(&v, 99.0));
        let (l50, l99) = if wins[0] == Win::None { (10.0, 100.0) } else { (1.0, 10.0) };
        t.push(vec![
            format!("{name} p50 ≤ {l50} ms, p99 ≤ {l99} ms"),
            format!("p50 {} ms, p99 {} ms", ms(p50), ms(p99)),
            format!("p50 {}, p99 {}", verdict(p50 <= l50), verdict(p99 <= l99)),
        ]);
    }
    let o = percentile(&r.open.uptodate, 50.0);
    t.push(vec![
        "open of an up-to-date index ≤ 50 ms".into(),
        format!("p50 {} ms (max {})", ms(o), ms(percentile(&r.open.uptodate, 100.0))),
        verdict(o <= 50.0),
    ]);
    t
}

fn main() {
    let args = Args::parse();
    if let Some(mode) = &args.child {
        let root = args.root.clone().unwrap_or_default();
        if let Err(e) = bench_import::child_main(mode, &root, args.src.as_deref(), config()) {
            eprintln!("bench child: {e}");
            std::process::exit(1);
        }
        return;
    }
    if let Err(e) = run(&args) {
        eprintln!("bench: {e}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> BResult<()> {
    let repo = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let machine = Machine::detect(repo);
    let work = args.work.clone().unwrap_or_else(|| std::env::temp_dir().join("memlayers-bench"));
    std::fs::create_dir_all(&work)?;
    let (sizes, it) = if args.smoke { (vec![10_000], SMOKE) } else { (args.sizes.clone(), FULL) };
    if sizes.is_empty() || sizes.contains(&0) {
        return Err("--sizes: give positive entry counts, e.g. 10000,100000".into());
    }
    let mut results = Vec::new();
    for &n in &sizes {
        results.push(run_size(args, &work, n, it)?);
    }
    let md = report(&machine, args, args.smoke, &results);
    println!("{md}");
    let out = match &args.out {
        Some(p) => p.clone(),
        None if args.smoke => work.join("BENCH_RESULTS.md"),
        None => repo.join("tools/BENCH_RESULTS.md"),
    };
    std::fs::write(&out, &md)?;
    eprintln!("bench: report written to {}", out.display());
    Ok(())
}
