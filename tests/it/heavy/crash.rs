//! Crash safety: child processes write, import (and, through the real `memlayers`
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

use crate::rel;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use memlayers::layers::cold::WriteArgs;
use memlayers::{Config, Memory};

const TZ: &str = "Asia/Shanghai";

fn config() -> Config {
    // A generous lock bound: the parent never holds the lock while a child runs. No usage
    // throttle: every recorded hit rewrites usage.json, so kills land in those writes too.
    Config { timezone: chrono_tz::Asia::Shanghai, lock_timeout_ms: 30_000, usage_throttle_ms: 0, ..Config::default() }
}

/// Every 10th write is `important` (its entry also becomes a hot candidate).
fn important(id: u64) -> bool {
    id % 10 == 3
}

/// The instant of hot-set version `v`: all on 2026-05-01 (Shanghai), a day no write reaches,
/// so an evicted block retried after a kill lands on the same day (where it is deduplicated).
fn hot_ts(v: u64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-05-01T04:00:00Z").unwrap().with_timezone(&Utc)
        + chrono::Duration::seconds(v as i64)
}

/// The blocks of hot-set version `v`: 7 blocks of ~90 code points (630 > hotLimit 600), so
/// every set evicts its last blocks to cold (tag hot-evict: among equally inactive blocks the
/// top of the body goes last) and keeps the first ones.
fn hot_blocks(v: u64) -> Vec<String> {
    (0..7).map(|j| format!("版本{v}的第{j}块：{}", "热层内容不能丢。".repeat(10))).collect()
}

fn hot_content(v: u64) -> String {
    hot_blocks(v).join("\n\n")
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
#[ignore = "child role: spawned by the crash tests"]
fn child_driver() {
    let root = std::env::var("MEMLAYERS_CRASH_ROOT").expect("child role: MEMLAYERS_CRASH_ROOT set by the parent test");
    let op = std::env::var("MEMLAYERS_CRASH_OP").unwrap();
    memlayers::cli::log_warnings_to_stderr();
    let mut m = Memory::open(&root, config()).unwrap();
    say("ready");
    match op.as_str() {
        "write" => {
            let from: u64 = std::env::var("MEMLAYERS_CRASH_FROM").unwrap().parse().unwrap();
            for id in from..from + 200 {
                m = m.with_now(ts_of(id));
                let args = WriteArgs {
                    text: text_of(id),
                    tag: Some(tag_of(id)),
                    important: important(id),
                    ..Default::default()
                };
                m.write(&args).unwrap();
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
        "hot" => {
            // hot-set version after version; each followed by a recall (a usage.json write)
            // and every other one by an export.
            let from: u64 = std::env::var("MEMLAYERS_CRASH_FROM").unwrap().parse().unwrap();
            for v in from..from + 200 {
                m = m.with_now(hot_ts(v));
                m.hot_set(&hot_content(v)).unwrap();
                say(&format!("ack hot {v}"));
                m.recall("热层内容", Some(5), None).unwrap();
                if v % 2 == 0 {
                    m.export().unwrap();
                    say("ack export");
                }
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
    let err = std::fs::File::create(stderr_file()).unwrap();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::from(err)).spawn().unwrap();
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
    cmd.args(["--exact", "heavy::crash::child_driver", "--ignored", "--nocapture", "--test-threads=1", "--quiet"])
        .env("MEMLAYERS_CRASH_ROOT", root)
        .env("MEMLAYERS_CRASH_OP", op)
        .env("MEMLAYERS_CRASH_FROM", from.to_string())
        .env("MEMLAYERS_CRASH_ARCHIVE", archive);
    spawn(cmd)
}

fn cli(root: &Path, args: &[String]) -> Running {
    let mut cmd = crate::common::cli();
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
    assert!(
        killed || status.success(),
        "child failed on its own: {status:?} after {seen:?}; stderr: {}",
        std::fs::read_to_string(stderr_file()).unwrap_or_default()
    );
    while let Ok((at, l)) = r.lines.recv_timeout(Duration::from_secs(5)) {
        if l == "ready" {
            r.ready_after = Some(at.duration_since(r.started));
        }
        seen.push(l);
    }
    (killed, seen, r.ready_after)
}

/// Where the current child's stderr goes (one child at a time), for failure messages.
fn stderr_file() -> PathBuf {
    std::env::temp_dir().join(format!("memlayers-crash-stderr-{}", std::process::id()))
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

/// What the children were asked to do and what they acknowledged.
#[derive(Default, Debug)]
struct State {
    /// Write ids acknowledged.
    acked: BTreeSet<u64>,
    /// First write id not acknowledged: where the next write child starts (a retry).
    next_id: u64,
    /// Write ids below this may have been attempted.
    max_tried: u64,
    /// Some import was acknowledged.
    import_acked: bool,
    /// Highest hot-set version acknowledged.
    hot_acked: Option<u64>,
    /// Hot-set versions below this may have been attempted.
    hot_tried: u64,
}

impl State {
    fn next_hot(&self) -> u64 {
        self.hot_acked.map_or(0, |v| v + 1)
    }
}

#[derive(Default, Debug)]
struct Tally {
    kills: usize,
    by_kind: std::collections::BTreeMap<&'static str, usize>,
    cycles: usize,
    index_behind_at_kill: usize,
    temp_files_left: usize,
    imports_acked: usize,
    hot_sets_acked: usize,
    exports_acked: usize,
    blocks_checked: usize,
    blocks_evicted: usize,
    checks: usize,
}

#[test]
#[ignore = "heavy: run by .ci/run"]
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

    let mut st = State::default();
    let mut t = Tally::default();
    let (mut per_write, mut cli_write, mut per_import, mut cli_import, mut rebuild, mut per_hot, mut cli_hot) =
        (Est(15_000.0), Est(80_000.0), Est(150_000.0), Est(200_000.0), Est(100_000.0), Est(40_000.0), Est(80_000.0));

    while t.kills < target {
        t.cycles += 1;
        assert!(t.cycles < target * 4 + 50, "too few kills landed: {t:?}");
        let roll = rng.below(100);
        let (kind, killed, lines): (&'static str, bool, Vec<String>) = if roll < 6 {
            // Kill during start-up: open, migrations, first sync.
            let r = driver(&root, "write", st.next_id, &archive);
            st.max_tried = st.max_tried.max(st.next_id + 200);
            sleep_us(rng.below(60_000));
            let (k, l, _) = kill(r, vec![]);
            ("startup", k, l)
        } else if roll < 12 {
            // Kill during a full rebuild of a deleted index (cold files and layer files).
            for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
                let _ = std::fs::remove_file(root.join(f));
            }
            let r = driver(&root, "write", st.next_id, &archive);
            st.max_tried = st.max_tried.max(st.next_id + 200);
            sleep_us(rng.below(rebuild.us()));
            let (k, l, ready) = kill(r, vec![]);
            // Aim the next rebuild kill inside the time a rebuild takes now.
            if let Some(d) = ready {
                rebuild.add(d.as_micros() as f64);
            }
            ("rebuild", k, l)
        } else if roll < 44 {
            // After n acknowledged writes, a random fraction of the next one.
            let r = driver(&root, "write", st.next_id, &archive);
            st.max_tried = st.max_tried.max(st.next_id + 200);
            let seen = wait_acks(&r, rng.below(12) as usize, "ack ", &mut per_write);
            sleep_us(rng.below(per_write.us()));
            let (k, l, _) = kill(r, seen);
            ("write", k, l)
        } else if roll < 56 {
            // The real binary, one write per process.
            let id = st.next_id;
            st.max_tried = st.max_tried.max(id + 1);
            let now = ts_of(id).to_rfc3339();
            let mut args = vec!["--now".into(), now, "write".into(), text_of(id), "--tag".into(), tag_of(id)];
            if important(id) {
                args.push("--important".into());
            }
            let r = cli(&root, &args);
            let (k, l) = cli_kill(r, &mut rng, &mut cli_write);
            // The JSON result printed (even if the kill came right after): acknowledged.
            let l = if l.iter().any(|x| x.contains("\"added\"")) { vec![format!("ack {id}")] } else { vec![] };
            ("cli-write", k, l)
        } else if roll < 70 {
            let r = driver(&root, "import", 0, &archive);
            let seen = wait_for(&r, Duration::from_secs(20), |l| l == "ready");
            let t0 = Instant::now();
            sleep_us(rng.below(per_import.us()));
            let (k, l, _) = kill(r, seen);
            let done = l.iter().filter(|x| *x == "ack import").count();
            if done > 0 {
                per_import.add(t0.elapsed().as_micros() as f64 / done as f64);
            } else {
                per_import.add(per_import.0 * 1.1);
            }
            ("import", k, l)
        } else if roll < 75 {
            let r = cli(&root, &["import".into(), archive.display().to_string()]);
            let (k, l) = cli_kill(r, &mut rng, &mut cli_import);
            let l = if l.iter().any(|x| x.contains("\"entriesAdded\"")) { vec!["ack import".into()] } else { vec![] };
            ("cli-import", k, l)
        } else if roll < 94 {
            // hot-set (evicting to cold), recall (usage.json), export, version after version.
            let v = st.next_hot();
            st.hot_tried = st.hot_tried.max(v + 200);
            let r = driver(&root, "hot", v, &archive);
            let seen = wait_acks(&r, rng.below(4) as usize, "ack hot ", &mut per_hot);
            sleep_us(rng.below(per_hot.us()));
            let (k, l, _) = kill(r, seen);
            ("hot-set", k, l)
        } else {
            let v = st.next_hot();
            st.hot_tried = st.hot_tried.max(v + 1);
            let now = hot_ts(v).to_rfc3339();
            let r = cli(&root, &["--now".into(), now, "hot-set".into(), hot_content(v)]);
            let (k, l) = cli_kill(r, &mut rng, &mut cli_hot);
            let l = if l.iter().any(|x| x.contains("\"evicted\"")) { vec![format!("ack hot {v}")] } else { vec![] };
            ("cli-hot-set", k, l)
        };
        for l in &lines {
            if let Some(v) = l.strip_prefix("ack hot ").and_then(|s| s.parse::<u64>().ok()) {
                st.hot_acked = Some(st.hot_acked.map_or(v, |h| h.max(v)));
                t.hot_sets_acked += 1;
            } else if let Some(id) = l.strip_prefix("ack ").and_then(|s| s.parse::<u64>().ok()) {
                st.acked.insert(id);
            } else if l == "ack import" {
                st.import_acked = true;
                t.imports_acked += 1;
            } else if l == "ack export" {
                t.exports_acked += 1;
            }
        }
        while st.acked.contains(&st.next_id) {
            st.next_id += 1;
        }
        if killed {
            t.kills += 1;
            *t.by_kind.entry(kind).or_default() += 1;
        }
        let ctx = format!("seed={seed} cycle={} kill={} kind={kind}", t.cycles, t.kills);
        verify(&root, &st, &mut t, &ctx);
    }
    println!(
        "crash: {} kills survived ({:?}) in {} cycles; acknowledged: {} writes, {} imports, {} hot-sets, {} exports — \
         all present exactly once ({} hot blocks traced, {} evicted to cold); {} kills left the index behind the files; {} temp files \
         left behind, none read; {} checks clean",
        t.kills,
        t.by_kind,
        t.cycles,
        st.acked.len(),
        t.imports_acked,
        t.hot_sets_acked,
        t.exports_acked,
        t.blocks_checked,
        t.blocks_evicted,
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

/// Waits for `ready` (n = 0) or for n lines starting with `prefix`, timing the gaps.
fn wait_acks(r: &Running, n: usize, prefix: &str, est: &mut Est) -> Vec<String> {
    let mut acks = 0usize;
    let mut last = None;
    wait_for(r, Duration::from_secs(30), |l| {
        if l.starts_with(prefix) {
            acks += 1;
            let now = Instant::now();
            if let Some(prev) = last {
                est.add(now.duration_since(prev).as_micros() as f64);
            }
            last = Some(now);
        }
        (l == "ready" && n == 0) || (n > 0 && acks >= n)
    })
}

/// Kills a CLI process after a random part of its usual run time; learns that time.
fn cli_kill(r: Running, rng: &mut rel::Rng, est: &mut Est) -> (bool, Vec<String>) {
    sleep_us(rng.below(est.us()));
    let started = r.started;
    let (k, l, _) = kill(r, vec![]);
    if k {
        est.add(est.0 * 1.05);
    } else {
        est.add(started.elapsed().as_micros() as f64);
    }
    (k, l)
}

fn verify(root: &Path, st: &State, t: &mut Tally, ctx: &str) {
    // 1. The cold files alone.
    let cold = rel::read_cold(root, true);
    assert!(cold.problems.is_empty(), "{ctx}: {:?}", cold.problems);
    for id in &st.acked {
        assert_eq!(cold.count(&tag_of(*id), &text_of(*id)), 1, "{ctx}: acknowledged write {id}");
    }
    let mut known = 0usize;
    for id in 0..st.max_tried {
        let n = cold.count(&tag_of(id), &text_of(id));
        assert!(n <= 1, "{ctx}: write {id} present {n} times");
        known += n;
    }
    for (tag, text) in archive_entries() {
        let n = cold.count(&tag, &text);
        if st.import_acked {
            assert_eq!(n, 1, "{ctx}: imported {text:?} present {n} times");
        } else {
            assert!(n <= 1, "{ctx}: imported {text:?} present {n} times");
        }
        known += n;
    }
    // 2. The layer files alone.
    let hot_text = std::fs::read_to_string(root.join("hot.md")).ok();
    let doc = hot_text.as_deref().map(memlayers::layers::hot::parse).unwrap_or_default();
    if let Some(text) = &hot_text {
        assert!(doc.warnings.is_empty(), "{ctx}: hot.md as written needs no repair: {:?}", doc.warnings);
        assert_eq!(&memlayers::layers::hot::format(&doc), text, "{ctx}: hot.md is whole and canonical");
    }
    // Evicted blocks (tag hot-evict) of every version tried: at most once in cold.
    t.blocks_evicted = 0;
    let body_blocks: Vec<&str> = doc.body.split("\n\n").collect();
    for v in 0..st.hot_tried {
        for b in hot_blocks(v) {
            let n = cold.count("hot-evict", &b);
            assert!(n <= 1, "{ctx}: evicted block {b:?} in cold {n} times");
            known += n;
            t.blocks_evicted += n;
        }
    }
    if let Some(acked) = st.hot_acked {
        // The body is one version's (the last acknowledged or a later attempt), and each of
        // that version's blocks is in the body or, evicted, in cold: none lost.
        let v = (acked..st.hot_tried)
            .find(|v| body_blocks.contains(&hot_blocks(*v)[0].as_str()))
            .unwrap_or_else(|| panic!("{ctx}: hot body is not version ≥ {acked}: {:?}", doc.body));
        for b in hot_blocks(v) {
            let in_body = body_blocks.contains(&b.as_str());
            assert!(in_body || cold.count("hot-evict", &b) == 1, "{ctx}: block {b:?} of version {v} lost");
            t.blocks_checked += 1;
        }
    }
    // Important writes acknowledged: a hot candidate (or sunk to cold as candidate-expired).
    for id in st.acked.iter().filter(|id| important(**id)) {
        let cand = doc.candidates.iter().any(|c| c.tag == tag_of(*id) && c.content == text_of(*id));
        let sunk = cold.count("candidate-expired", &format!("[{}] {}", tag_of(*id), text_of(*id)));
        assert!(cand || sunk == 1, "{ctx}: important write {id} is not a candidate");
    }
    assert_eq!(cold.entries, known, "{ctx}: the files hold entries nobody wrote");
    if let Ok(u) = std::fs::read_to_string(root.join("usage.json")) {
        let (_, status) = memlayers::layers::usage::Ledger::parse(Some(&u));
        assert_eq!(status, memlayers::layers::usage::LoadStatus::Ok, "{ctx}: usage.json is whole");
    }
    for (dir, _) in memlayers::layers::sync::SUMMARY_DIRS {
        for f in rel::all_files(&root.join(dir)).iter().filter(|f| !f.contains(".tmp-")) {
            let text = std::fs::read_to_string(root.join(dir).join(f)).unwrap();
            assert!(text.ends_with('\n'), "{ctx}: summary {dir}/{f} is whole");
        }
    }
    // Temp files of killed writes stay behind (check lists them); none may be read as data,
    // which the entry count comparison below shows.
    t.temp_files_left = rel::temp_files(root).len();
    if !root.join("index.sqlite3").exists() {
        return;
    }
    // 3. The index as the kill left it (not synced yet).
    let before = Memory::open_unsynced(root, config()).unwrap();
    if !before.check().unwrap().clean {
        t.index_behind_at_kill += 1;
    }
    drop(before);
    // 4. Reopened: no corruption warning, consistent with the files, temp files ignored.
    let m = Memory::open(root, config()).unwrap();
    assert!(m.warnings().is_empty(), "{ctx}: {:?}", m.warnings());
    let rep = m.check().unwrap();
    assert!(rep.clean, "{ctx}: {rep:?}");
    assert_eq!(rep.entries as usize, cold.entries, "{ctx}: index entries vs file entries");
    assert!(rep.malformed.is_empty(), "{ctx}: {:?}", rep.malformed);
    assert_eq!(rep.temp_files.len(), t.temp_files_left, "{ctx}: check lists the leftover temp files");
    // The layers as the index sees them after the sync are the files.
    m.sync_layers(memlayers::layers::sync::LayerScope::All, false).unwrap();
    assert_eq!(
        m.hot_doc().unwrap(),
        hot_text.as_deref().map(memlayers::layers::hot::parse),
        "{ctx}: hot.md in the index"
    );
    for (dir, _) in memlayers::layers::sync::SUMMARY_DIRS {
        for f in rel::all_files(&root.join(dir)).iter().filter(|f| !f.contains(".tmp-")) {
            let rel_path = format!("{dir}/{f}");
            let disk = std::fs::read(root.join(&rel_path)).unwrap();
            assert_eq!(m.layer_body(&rel_path).unwrap(), Some(disk), "{ctx}: {rel_path} in the index");
        }
    }
    if let Some(id) = st.acked.iter().next_back() {
        let r = m.recall(&format!("crash-{id}"), Some(50), None).unwrap();
        assert_eq!(r.items.iter().filter(|i| i.content == text_of(*id)).count(), 1, "{ctx}: recall of {id}");
    }
    t.checks += 1;
}
