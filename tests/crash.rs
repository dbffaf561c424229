//! Issue 7, crash safety: child processes write, import (and, through the real `memlayers`
//! binary, write and import again) into one data root and are killed with SIGKILL at seeded
//! random points. After every kill, from the files alone:
//!
//! * every canonical cold file is whole (final newline) and every line is an entry line;
//! * every write acknowledged before the kill is present exactly once; an unacknowledged one
//!   at most once (and the retry that follows makes it exactly once);
//! * every entry of an import acknowledged before the kill is present exactly once, of an
//!   interrupted one at most once;
//! * nothing else is in the files (no temp file content, no torn line);
//!
//! and then, reopening: no warning (the index is never found corrupt), `check()` clean, and the
//! index holds exactly the entries of the canonical files — leftover temp files are never read.
//!
//! Kill points: during process start and index creation, after n acknowledged writes plus a
//! random fraction of one write, at a random point of an import (which rewrites day after day
//! under one lock), during a full index rebuild (index deleted first), and inside CLI
//! processes. `MEMLAYERS_CRASH_KILLS` (default 120) sets how many kills; `MEMLAYERS_SEED`
//! replays a run. The seed and the figures are printed (`--nocapture`).

mod rel;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use memlayers::cold::WriteArgs;
use memlayers::{Config, Memory};

const TZ: &str = "Asia/Shanghai";

fn config() -> Config {
    // A generous lock bound: the parent never holds the lock while a child runs.
    Config { timezone: chrono_tz::Asia::Shanghai, lock_timeout_ms: 30_000, ..Config::default() }
}

/// Write `id`'s instant: 2026-03-01T00:00Z + 7 minutes per id, so a day holds ~205 writes and
/// a retried write lands on the same day (where the duplicate check finds it).
fn ts_of(id: u64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-01T00:00:00Z").unwrap().with_timezone(&Utc)
        + chrono::Duration::minutes(7 * id as i64)
}

fn text_of(id: u64) -> String {
    format!("崩溃测试第{id}条 crash-{id}")
}

fn tag_of(id: u64) -> String {
    format!("w{}", id % 7)
}

/// The import archive: 12 days of 25 list items each, in March 2025 (no day shared with the
/// writes). Tag `import` (no heading, no #tag), text as written.
fn archive_entries() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for d in 1..=12 {
        for i in 1..=25 {
            v.push(("import".to_string(), format!("导入的第{d}天第{i}条 item-{d}-{i}")));
        }
    }
    v
}

fn make_archive(dir: &Path) {
    for d in 1..=12 {
        let mut s = String::new();
        for i in 1..=25 {
            s.push_str(&format!("- 导入的第{d}天第{i}条 item-{d}-{i}\n"));
        }
        std::fs::write(dir.join(format!("2025-03-{d:02}.md")), s).unwrap();
    }
}

/// Child role: runs only when spawned by the harness (env set). Prints `ready` after opening,
/// then `ack <id>` after each write returns Ok, or `ack import` after each import.
#[test]
fn child_driver() {
    let Ok(root) = std::env::var("MEMLAYERS_CRASH_ROOT") else { return };
    let op = std::env::var("MEMLAYERS_CRASH_OP").unwrap();
    let mut m = Memory::open(&root, config()).unwrap();
    say("ready");
    match op.as_str() {
        "write" => {
            let from: u64 = std::env::var("MEMLAYERS_CRASH_FROM").unwrap().parse().unwrap();
            for id in from..from + 200 {
                m = m.with_now(ts_of(id));
                m.write(&WriteArgs { text: text_of(id), tag: Some(tag_of(id)), ..Default::default() }).unwrap();
                say(&format!("ack {id}"));
            }
        }
        "import" => {
            let archive = PathBuf::from(std::env::var("MEMLAYERS_CRASH_ARCHIVE").unwrap());
            for _ in 0..50 {
                m.import(&archive, None, &mut |_, _| {}).unwrap();
                say("ack import");
            }
        }
        other => panic!("unknown op {other}"),
    }
}

fn say(s: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{s}").unwrap();
    out.flush().unwrap();
}

/// A running child and the lines it printed, as they arrive.
struct Running {
    child: Child,
    lines: mpsc::Receiver<(Instant, String)>,
    started: Instant,
    ready_after: Option<Duration>,
}

fn spawn(mut cmd: Command) -> Running {
    let started = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        let mut line = String::new();
        // Only whole lines count: a line cut by the kill was not an acknowledgement.
        while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
            if line.ends_with('\n') {
                let _ = tx.send((Instant::now(), line.trim_end().to_string()));
            }
            line.clear();
        }
    });
    Running { child, lines: rx, started, ready_after: None }
}

fn driver(root: &Path, op: &str, from: u64, archive: &Path) -> Running {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child_driver", "--nocapture", "--test-threads=1", "--quiet"])
        .env("MEMLAYERS_CRASH_ROOT", root)
        .env("MEMLAYERS_CRASH_OP", op)
        .env("MEMLAYERS_CRASH_FROM", from.to_string())
        .env("MEMLAYERS_CRASH_ARCHIVE", archive);
    spawn(cmd)
}

fn cli(root: &Path, args: &[String]) -> Running {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memlayers"));
    cmd.arg("--data-root").arg(root).args(["--tz", TZ, "--json"]).args(args);
    spawn(cmd)
}

/// Waits for a line satisfying `pred` (or the child's end, or `limit`); returns the lines seen.
fn wait_for(r: &Running, limit: Duration, mut pred: impl FnMut(&str) -> bool) -> Vec<String> {
    let mut seen = Vec::new();
    let end = Instant::now() + limit;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match r.lines.recv_timeout(left) {
            Ok((_, l)) => {
                let done = pred(&l);
                seen.push(l);
                if done {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    seen
}

/// SIGKILLs the child (std's `kill` is SIGKILL on Unix), reaps it and drains its output.
/// Returns (was it killed by the signal, every line it printed, when it printed `ready`).
fn kill(mut r: Running, mut seen: Vec<String>) -> (bool, Vec<String>, Option<Duration>) {
    let _ = r.child.kill();
    let status = r.child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    let killed = status.signal() == Some(9);
    assert!(killed || status.success(), "child failed on its own: {status:?} after {seen:?}");
    while let Ok((at, l)) = r.lines.recv_timeout(Duration::from_secs(5)) {
        if l == "ready" {
            r.ready_after = Some(at.duration_since(r.started));
        }
        seen.push(l);
    }
    (killed, seen, r.ready_after)
}

fn sleep_us(us: u64) {
    std::thread::sleep(Duration::from_micros(us));
}

/// Running estimate of how long something takes, in µs.
struct Est(f64);

impl Est {
    fn add(&mut self, us: f64) {
        self.0 = 0.7 * self.0 + 0.3 * us;
    }
    fn us(&self) -> u64 {
        self.0.max(500.0) as u64
    }
}

#[derive(Default, Debug)]
struct Tally {
    kills: usize,
    by_kind: std::collections::BTreeMap<&'static str, usize>,
    cycles: usize,
    index_behind_at_kill: usize,
    temp_files_left: usize,
    writes_acked: usize,
    imports_acked: usize,
    checks: usize,
}

#[test]
fn sigkill_at_random_points_never_loses_an_acknowledged_write() {
    let target = rel::budget("MEMLAYERS_CRASH_KILLS", 120) as usize;
    let seed = rel::seed(0x5EED_C0DE);
    println!("crash: seed={seed} target_kills={target} (MEMLAYERS_SEED / MEMLAYERS_CRASH_KILLS)");
    let mut rng = rel::Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let archive = dir.path().join("archive");
    std::fs::create_dir_all(&archive).unwrap();
    make_archive(&archive);
    let archive_set = archive_entries();

    let mut acked: BTreeSet<u64> = BTreeSet::new();
    let mut next_id: u64 = 0; // first id not yet acknowledged in order: the retry point
    let mut max_tried: u64 = 0; // ids below this may have been attempted
    let mut import_acked = false;
    let mut t = Tally::default();
    let (mut per_write, mut cli_write, mut per_import, mut cli_import, mut rebuild) =
        (Est(15_000.0), Est(80_000.0), Est(150_000.0), Est(200_000.0), Est(100_000.0));

    while t.kills < target {
        t.cycles += 1;
        assert!(t.cycles < target * 4 + 50, "too few kills landed: {t:?}");
        let roll = rng.below(100);
        let (kind, killed, lines): (&'static str, bool, Vec<String>) = if roll < 8 {
            // Kill during start-up: open, migrations, first sync.
            let r = driver(&root, "write", next_id, &archive);
            max_tried = max_tried.max(next_id + 200);
            sleep_us(rng.below(60_000));
            let (k, l, _) = kill(r, vec![]);
            ("startup", k, l)
        } else if roll < 16 {
            // Kill during a full rebuild of a deleted index.
            for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
                let _ = std::fs::remove_file(root.join(f));
            }
            let r = driver(&root, "write", next_id, &archive);
            max_tried = max_tried.max(next_id + 200);
            sleep_us(rng.below(rebuild.us()));
            let (k, l, ready) = kill(r, vec![]);
            // Aim the next rebuild kill inside the time a rebuild takes now.
            if let Some(d) = ready {
                rebuild.add(d.as_micros() as f64);
            }
            ("rebuild", k, l)
        } else if roll < 55 {
            // After n acknowledged writes, a random fraction of the next one.
            let r = driver(&root, "write", next_id, &archive);
            max_tried = max_tried.max(next_id + 200);
            let n = rng.below(12) as usize;
            let mut acks = 0usize;
            let mut last = None;
            let seen = wait_for(&r, Duration::from_secs(20), |l| {
                if l.starts_with("ack ") {
                    acks += 1;
                    let now = Instant::now();
                    if let Some(prev) = last {
                        per_write.add(now.duration_since(prev).as_micros() as f64);
                    }
                    last = Some(now);
                }
                (l == "ready" && n == 0) || (n > 0 && acks >= n)
            });
            sleep_us(rng.below(per_write.us()));
            let (k, l, _) = kill(r, seen);
            ("write", k, l)
        } else if roll < 70 {
            // The real binary, one write per process.
            let id = next_id;
            max_tried = max_tried.max(id + 1);
            let now = ts_of(id).to_rfc3339();
            let r = cli(&root, &["--now".into(), now, "write".into(), text_of(id), "--tag".into(), tag_of(id)]);
            sleep_us(rng.below(cli_write.us()));
            let started = r.started;
            let (k, l, _) = kill(r, vec![]);
            if !k {
                cli_write.add(started.elapsed().as_micros() as f64);
            } else {
                cli_write.add(cli_write.0 * 1.05);
            }
            // The JSON result printed (even if the kill came right after): acknowledged.
            let l = if l.iter().any(|x| x.contains("\"added\"")) { vec![format!("ack {id}")] } else { vec![] };
            ("cli-write", k, l)
        } else if roll < 90 {
            let r = driver(&root, "import", 0, &archive);
            let seen = wait_for(&r, Duration::from_secs(20), |l| l == "ready");
            let t0 = Instant::now();
            sleep_us(rng.below(per_import.us()));
            let (k, l, _) = kill(r, seen);
            if l.iter().any(|x| x == "ack import") {
                per_import
                    .add(t0.elapsed().as_micros() as f64 / l.iter().filter(|x| *x == "ack import").count() as f64);
            } else {
                per_import.add(per_import.0 * 1.1);
            }
            ("import", k, l)
        } else {
            let r = cli(&root, &["import".into(), archive.display().to_string()]);
            let started = r.started;
            sleep_us(rng.below(cli_import.us()));
            let (k, l, _) = kill(r, vec![]);
            if !k {
                cli_import.add(started.elapsed().as_micros() as f64);
            } else {
                cli_import.add(cli_import.0 * 1.05);
            }
            let l = if l.iter().any(|x| x.contains("\"entriesAdded\"")) { vec!["ack import".into()] } else { vec![] };
            ("cli-import", k, l)
        };
        for l in &lines {
            if let Some(id) = l.strip_prefix("ack ").and_then(|s| s.parse::<u64>().ok()) {
                acked.insert(id);
                t.writes_acked += 1;
            } else if l == "ack import" {
                import_acked = true;
                t.imports_acked += 1;
            }
        }
        while acked.contains(&next_id) {
            next_id += 1;
        }
        if killed {
            t.kills += 1;
            *t.by_kind.entry(kind).or_default() += 1;
        }
        let ctx = format!("seed={seed} cycle={} kill={} kind={kind}", t.cycles, t.kills);
        verify(&root, &acked, max_tried, import_acked, &archive_set, &mut t, &ctx);
    }
    println!(
        "crash: {} kills survived ({:?}) in {} cycles; {} acknowledged writes and {} acknowledged imports, all present \
         exactly once; {} kills left the index behind the files; {} temp files left behind, none read; {} checks clean",
        t.kills,
        t.by_kind,
        t.cycles,
        acked.len(),
        t.imports_acked,
        t.index_behind_at_kill,
        t.temp_files_left,
        t.checks
    );
    // The kills must have hit the window between a file write and its index commit at least
    // once, or the harness would not be testing recovery at all.
    if target >= 100 {
        assert!(t.index_behind_at_kill > 0, "no kill landed between a file write and its index update: {t:?}");
    }
}

fn verify(
    root: &Path,
    acked: &BTreeSet<u64>,
    max_tried: u64,
    import_acked: bool,
    archive_set: &[(String, String)],
    t: &mut Tally,
    ctx: &str,
) {
    // 1. The files alone.
    let cold = rel::read_cold(root, true);
    assert!(cold.problems.is_empty(), "{ctx}: {:?}", cold.problems);
    for id in acked {
        assert_eq!(cold.count(&tag_of(*id), &text_of(*id)), 1, "{ctx}: acknowledged write {id}");
    }
    let mut known = 0usize;
    for id in 0..max_tried {
        let n = cold.count(&tag_of(id), &text_of(id));
        assert!(n <= 1, "{ctx}: write {id} present {n} times");
        known += n;
    }
    for (tag, text) in archive_set {
        let n = cold.count(tag, text);
        if import_acked {
            assert_eq!(n, 1, "{ctx}: imported {text:?} present {n} times");
        } else {
            assert!(n <= 1, "{ctx}: imported {text:?} present {n} times");
        }
        known += n;
    }
    assert_eq!(cold.entries, known, "{ctx}: the files hold entries nobody wrote");
    // Temp files of killed writes stay behind (check lists them); none may be read as data,
    // which the entry count comparison below shows.
    t.temp_files_left = rel::temp_files(root).len();
    if !root.join("index.sqlite3").exists() {
        return;
    }
    // 2. The index as the kill left it (not synced yet).
    let before = Memory::open_unsynced(root, config()).unwrap();
    if !before.check().unwrap().clean {
        t.index_behind_at_kill += 1;
    }
    drop(before);
    // 3. Reopened: no corruption warning, consistent with the files, temp files ignored.
    let m = Memory::open(root, config()).unwrap();
    assert!(m.warnings().is_empty(), "{ctx}: {:?}", m.warnings());
    let rep = m.check().unwrap();
    assert!(rep.clean, "{ctx}: {rep:?}");
    assert_eq!(rep.entries as usize, cold.entries, "{ctx}: index entries vs file entries");
    assert!(rep.malformed.is_empty(), "{ctx}: {:?}", rep.malformed);
    assert_eq!(rep.temp_files.len(), t.temp_files_left, "{ctx}: check lists the leftover temp files");
    if let Some(id) = acked.iter().next_back() {
        let r = m.recall(&format!("crash-{id}"), Some(50), None).unwrap();
        assert_eq!(r.items.iter().filter(|i| i.content == text_of(*id)).count(), 1, "{ctx}: recall of {id}");
    }
    t.checks += 1;
}
