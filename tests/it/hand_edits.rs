//! No lost memory when people and other programs touch the files, and answers while a big job
//! runs (docs/reliability.md). One test (or more) per point below; each failed before the fix:
//!
//! 1. hand appends and hand rewrites racing memlayers' writes are never lost;
//! 2. deleting `.lock` does not break the writer lock;
//! 3. readers answer during an import and a rebuild;
//! 4. a read-only data root is queried as it is;
//! 5. a full disk never acknowledges a write that was not stored;
//! 6. dates the file layout cannot name are refused;
//! 7. another program's database at `index.sqlite3` is not taken over;
//! 8. smaller holes (unreadable lines reported, a big usage.json, a torn append).
//!
//! Budgets are small here; `tools/reliability.sh` runs the race tests with large ones
//! (`MEMLAYERS_HAND_WRITES`, `MEMLAYERS_LOCK_WRITES`, `MEMLAYERS_IMPORT_DAYS`).
//!
//! Points 4 and 5 need a real read-only mount and a real full disk: they bind-mount / mount a
//! small tmpfs, which needs root (CI runs as root). Without the permission they print SKIPPED
//! with the reason and pass, except where `MEMLAYERS_REQUIRE_ALL` is set (`.ci/run`): there they fail.

use crate::common::{at, config, put};
use crate::rel;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use memlayers::layers::cold::WriteArgs;
use memlayers::{Config, Memory};

fn budget(var: &str, default: usize) -> usize {
    rel::budget(var, default as u64) as usize
}

fn w(text: &str, tag: &str) -> WriteArgs {
    WriteArgs { text: text.into(), tag: Some(tag.into()), ..Default::default() }
}

/// Appends a line the way `echo … >> file` does: open with O_APPEND, one write, close.
fn shell_append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap();
    f.write_all(line.as_bytes()).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Point 1: hand appends and hand rewrites are never lost.

/// `write` loops in one thread while another appends hand lines with `>>` to the same day
/// file: afterwards every hand line and every acknowledged write is in the file exactly once.
#[test]
fn hand_appends_during_writes_are_all_kept() {
    let n = budget("MEMLAYERS_HAND_WRITES", 300);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let now = "2026-10-21T04:00:00Z"; // 2026-10-21 12:00 Shanghai
    let day = root.join("cold/2026-10/2026-10-21.md");
    let m = Memory::open(&root, config()).unwrap().with_now(at(now));
    m.write(&w("第一条", "t")).unwrap(); // the file exists from here on
    // The hand: `n` lines, one about every half millisecond (a shell loop of `echo >>`),
    // while the program writes `n` entries.
    let hand = {
        let day = day.clone();
        std::thread::spawn(move || {
            for k in 0..n {
                shell_append(&day, &format!("- [2026-10-21T05:00:00.000Z] [手写] 手写第{k}行\n"));
                std::thread::sleep(std::time::Duration::from_micros(500));
            }
            n
        })
    };
    for i in 0..n {
        m.write(&w(&format!("程序写第{i}条"), "prog")).unwrap();
    }
    let hand_lines = hand.join().unwrap();
    let cold = rel::read_cold(&root, true);
    assert!(cold.problems.is_empty(), "{:?}", cold.problems);
    let lost: Vec<usize> = (0..hand_lines).filter(|k| cold.count("手写", &format!("手写第{k}行")) != 1).collect();
    assert!(
        lost.is_empty(),
        "{} of {hand_lines} hand lines lost or doubled: {:?}",
        lost.len(),
        &lost[..lost.len().min(10)]
    );
    for i in 0..n {
        assert_eq!(cold.count("prog", &format!("程序写第{i}条")), 1, "write {i}");
    }
    // The index agrees with the file after the next query.
    let r = m.recall("手写", Some(1), None).unwrap();
    assert_eq!(r.matched, hand_lines as i64);
    println!("hand appends: {hand_lines} hand lines during {n} writes, none lost");
}

/// Entry lines whose text is `content`, whatever their tag.
fn count_text(cold: &rel::ColdContents, content: &str) -> usize {
    cold.counts.iter().filter(|((_, c), _)| c == content).map(|(_, n)| n).sum()
}

/// Imports (batched: day files written side by side) run while a hand appends lines with `>>`
/// to the very day files being imported, some of which do not exist yet: afterwards every hand
/// line and every imported entry is in the files exactly once, and the index agrees. Before
/// the import used compare-and-swap, its rename replaced files that had gained hand lines
/// since its read, and its new day files replaced ones the hand had just created.
#[test]
fn hand_appends_during_an_import_are_all_kept() {
    let days = (budget("MEMLAYERS_IMPORT_DAYS", 300) / 10).clamp(2, 366);
    let (rounds, per_day) = (3, 8);
    let start = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    let dates: Vec<chrono::NaiveDate> = (0..days).map(|d| start + chrono::Duration::days(d as i64)).collect();
    // `rounds` archives over the same days, distinct texts: each import writes every day.
    let archives: Vec<tempfile::TempDir> = (0..rounds)
        .map(|r| {
            let a = tempfile::tempdir().unwrap();
            for (d, day) in dates.iter().enumerate() {
                let text: String = (0..per_day).map(|i| format!("- 第{r}轮 第{d}天第{i}条\n")).collect();
                std::fs::write(a.path().join(format!("{}.md", day.format("%Y-%m-%d"))), text).unwrap();
            }
            a
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    drop(Memory::open(&root, config()).unwrap());
    let paths: Vec<PathBuf> = dates
        .iter()
        .map(|day| {
            let p = root.join(format!("cold/{}/{}.md", day.format("%Y-%m"), day.format("%Y-%m-%d")));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            p
        })
        .collect();
    let done = Arc::new(AtomicBool::new(false));
    // The hand: round after round over all the days, one `>>` line per day (12:00 Shanghai of
    // that day), creating the files the import has not reached yet.
    let hand = {
        let (paths, dates, done) = (paths.clone(), dates.clone(), done.clone());
        std::thread::spawn(move || {
            let mut lines = Vec::new();
            let mut k = 0usize;
            // At most 100 rounds: the import has to finish against a bounded stream.
            while !done.load(Ordering::Relaxed) && k < 100 {
                for (d, (p, day)) in paths.iter().zip(&dates).enumerate() {
                    let text = format!("手写第{k}轮第{d}天");
                    shell_append(p, &format!("- [{}T04:00:00.000Z] [手写] {text}\n", day.format("%Y-%m-%d")));
                    lines.push(text);
                }
                k += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            lines
        })
    };
    let m = Memory::open(&root, config()).unwrap();
    let mut added = 0;
    for a in &archives {
        added += m.import(a.path(), None, &mut |_, _| {}).unwrap().entries_added;
    }
    done.store(true, Ordering::Relaxed);
    let hand_lines = hand.join().unwrap();
    assert_eq!(added, rounds * days * per_day);
    let cold = rel::read_cold(&root, true);
    assert!(cold.problems.is_empty(), "{:?}", &cold.problems[..cold.problems.len().min(5)]);
    let lost: Vec<&String> = hand_lines.iter().filter(|t| cold.count("手写", t) != 1).collect();
    assert!(
        lost.is_empty(),
        "{} of {} hand lines lost or doubled: {:?}",
        lost.len(),
        hand_lines.len(),
        &lost[..lost.len().min(10)]
    );
    for r in 0..rounds {
        for d in 0..days {
            for i in 0..per_day {
                assert_eq!(count_text(&cold, &format!("第{r}轮 第{d}天第{i}条")), 1, "round {r} day {d} entry {i}");
            }
        }
    }
    assert_eq!(cold.entries, hand_lines.len() + rounds * days * per_day);
    // The index agrees with the files (the next query syncs what the import did not write).
    let r = m.recall("手写", Some(1), None).unwrap();
    assert_eq!(r.matched, hand_lines.len() as i64);
    println!(
        "hand appends during imports: {} hand lines into {days} days during {rounds} imports of {} entries, none lost",
        hand_lines.len(),
        rounds * days * per_day
    );
}

/// A hand rewrite of hot.md (an editor: temp file + rename) while `write --important` adds
/// candidates: every hand edit survives (the last hand version's body is in the final file).
#[test]
fn hand_rewrites_of_hot_md_during_important_writes_are_kept() {
    let n = budget("MEMLAYERS_HAND_WRITES", 300) / 3;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let m = Memory::open(&root, config()).unwrap().with_now(at("2026-10-21T04:00:00Z"));
    m.hot_set("正文").unwrap();
    let hot = root.join("hot.md");
    let done = Arc::new(AtomicBool::new(false));
    let hand = {
        let (hot, done) = (hot.clone(), done.clone());
        std::thread::spawn(move || {
            let mut k = 0usize;
            let mut lost = Vec::new();
            while !done.load(Ordering::Relaxed) {
                // Read, add a body line, write back like an editor does.
                let cur = std::fs::read_to_string(&hot).unwrap();
                let new = cur.replacen("正文", &format!("正文\n手改{k}"), 1);
                let tmp = hot.with_file_name(format!("hot.md.edit{k}~"));
                std::fs::write(&tmp, &new).unwrap();
                std::fs::rename(&tmp, &hot).unwrap();
                std::thread::sleep(std::time::Duration::from_micros(300));
                // Every earlier hand line must still be there.
                let now = std::fs::read_to_string(&hot).unwrap();
                for j in 0..=k {
                    if !now.contains(&format!("手改{j}\n")) && !lost.contains(&j) {
                        lost.push(j);
                    }
                }
                k += 1;
            }
            (k, lost)
        })
    };
    for i in 0..n {
        let mut a = w(&format!("重要第{i}条"), "重要");
        a.important = true;
        m.write(&a).unwrap();
    }
    done.store(true, Ordering::Relaxed);
    let (edits, lost) = hand.join().unwrap();
    assert!(lost.is_empty(), "{} of {edits} hand edits of hot.md reverted: {lost:?}", lost.len());
    println!("hot.md hand rewrites: {edits} during {n} important writes, none reverted");
}

// ---------------------------------------------------------------------------------------------
// Point 2: deleting `.lock` does not break the writer lock.

/// Three handles write in parallel while a fourth thread deletes `.lock` in a loop: every
/// write succeeds and is in the files exactly once.
#[test]
fn deleting_the_lock_file_loses_nothing() {
    let per = budget("MEMLAYERS_LOCK_WRITES", 150);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    drop(Memory::open(&root, config()).unwrap());
    let done = Arc::new(AtomicBool::new(false));
    let deleter = {
        let (root, done) = (root.clone(), done.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !done.load(Ordering::Relaxed) {
                if std::fs::remove_file(root.join(".lock")).is_ok() {
                    n += 1;
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            n
        })
    };
    let failures = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..3)
        .map(|t| {
            let (root, failures) = (root.clone(), failures.clone());
            std::thread::spawn(move || {
                let m = Memory::open(&root, config()).unwrap().with_now(at("2026-10-21T04:00:00Z"));
                for i in 0..per {
                    if let Err(e) = m.write(&w(&format!("写者{t}第{i}条"), "lock")) {
                        eprintln!("write failed: {e}");
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for h in writers {
        h.join().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    let deletions = deleter.join().unwrap();
    assert_eq!(failures.load(Ordering::Relaxed), 0, "writes failed");
    let cold = rel::read_cold(&root, true);
    assert!(cold.problems.is_empty(), "{:?}", cold.problems);
    let bad: Vec<String> = (0..3)
        .flat_map(|t| (0..per).map(move |i| format!("写者{t}第{i}条")))
        .filter(|s| cold.count("lock", s) != 1)
        .collect();
    assert!(bad.is_empty(), "{} of {} writes missing or doubled: {:?}", bad.len(), 3 * per, &bad[..bad.len().min(5)]);
    let m = Memory::open_unsynced(&root, config()).unwrap();
    let chk = m.check().unwrap();
    assert!(chk.clean && chk.all_read, "{chk:?}");
    println!("lock deletion: {} writes with .lock deleted {deletions} times, none lost", 3 * per);
}

// ---------------------------------------------------------------------------------------------
// Point 3: readers answer during an import and a rebuild.

fn make_archive(dir: &Path, days: usize, per_day: usize) -> usize {
    let start = chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    for d in 0..days {
        let day = start + chrono::Duration::days(d as i64);
        let text: String = (0..per_day).map(|i| format!("- 导入测试 第{d}天第{i}条 批量\n")).collect();
        std::fs::write(dir.join(format!("{}.md", day.format("%Y-%m-%d"))), text).unwrap();
    }
    days * per_day
}

/// Queries against a data root that another handle is importing into: none fails, and an
/// answer with fewer than all matches says `stale`.
#[test]
fn queries_during_an_import_answer_or_say_stale() {
    let days = budget("MEMLAYERS_IMPORT_DAYS", 300);
    let arch = tempfile::tempdir().unwrap();
    let total = make_archive(arch.path(), days, 20) as i64;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    drop(Memory::open(&root, config()).unwrap());
    let done = Arc::new(AtomicBool::new(false));
    let importer = {
        let (root, arch, done) = (root.clone(), arch.path().to_path_buf(), done.clone());
        std::thread::spawn(move || {
            let m = Memory::open(&root, config()).unwrap();
            m.import(&arch, None, &mut |_, _| {}).unwrap();
            done.store(true, Ordering::Relaxed);
        })
    };
    // A short lock bound, so that waiting for the importer would fail fast.
    let reader_cfg = Config { lock_timeout_ms: 100, ..config() };
    let (mut answers, mut partial, mut stale_flags) = (0, 0, 0);
    while !done.load(Ordering::Relaxed) {
        let m = Memory::open(&root, reader_cfg.clone()).expect("open during import");
        let r = m.recall("导入测试", Some(5), None).expect("recall during import");
        answers += 1;
        if r.stale {
            stale_flags += 1;
        } else {
            // Not stale: the index mirrors the files — before the import wrote anything, or
            // after it ended; never half of it.
            assert!(r.matched == 0 || r.matched == total, "unmarked partial answer: {} of {total}", r.matched);
        }
        if r.matched < total {
            partial += 1;
        }
    }
    importer.join().unwrap();
    let m = Memory::open(&root, reader_cfg).unwrap();
    let r = m.recall("导入测试", Some(5), None).unwrap();
    assert_eq!((r.matched, r.stale), (total, false));
    println!("import: {answers} answers during the import, {partial} partial, {stale_flags} marked stale, 0 failed");
}

/// While one handle rebuilds a deleted index, readers open and query: none fails.
#[test]
fn queries_during_a_rebuild_answer_or_say_stale() {
    let days = budget("MEMLAYERS_IMPORT_DAYS", 300);
    let arch = tempfile::tempdir().unwrap();
    let total = make_archive(arch.path(), days, 20) as i64;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    Memory::open(&root, config()).unwrap().import(arch.path(), None, &mut |_, _| {}).unwrap();
    std::fs::remove_file(root.join("index.sqlite3")).unwrap();
    let _ = std::fs::remove_file(root.join("index.sqlite3-wal"));
    let _ = std::fs::remove_file(root.join("index.sqlite3-shm"));
    let done = Arc::new(AtomicBool::new(false));
    let rebuilder = {
        let (root, done) = (root.clone(), done.clone());
        std::thread::spawn(move || {
            drop(Memory::open(&root, config()).unwrap());
            done.store(true, Ordering::Relaxed);
        })
    };
    let reader_cfg = Config { lock_timeout_ms: 100, ..config() };
    let mut answers = 0;
    while !done.load(Ordering::Relaxed) {
        let m = Memory::open(&root, reader_cfg.clone()).expect("open during rebuild");
        let r = m.recall("导入测试", Some(5), None).expect("recall during rebuild");
        assert!(r.stale || r.matched == total, "partial answer ({} of {total}) not marked stale", r.matched);
        answers += 1;
    }
    rebuilder.join().unwrap();
    println!("rebuild: {answers} answers during the rebuild, 0 failed");
}

// ---------------------------------------------------------------------------------------------
// Points 4 and 5: a read-only data root, a full disk. Real mounts (root only).

/// A mount point that is unmounted (and removed) on drop.
struct Mounted(PathBuf);
impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn run(cmd: &str, args: &[&str]) -> Result<(), String> {
    let out = std::process::Command::new(cmd).args(args).output().map_err(|e| format!("{cmd}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{cmd} {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// Bind-mounts `src` read-only at a fresh folder.
fn ro_bind(src: &Path) -> Result<Mounted, String> {
    let mnt = tempfile::Builder::new().prefix("memlayers-ro").tempdir().unwrap().keep();
    let m = Mounted(mnt.clone());
    let (s, d) = (src.to_str().unwrap(), mnt.to_str().unwrap());
    run("mount", &["--bind", s, d])?;
    run("mount", &["-o", "remount,bind,ro", d])?;
    // Even root cannot write there now; make sure.
    if std::fs::write(mnt.join(".probe"), "x").is_ok() {
        return Err("the read-only bind mount is writable".into());
    }
    Ok(m)
}

/// A tmpfs of `kib` KiB.
fn small_tmpfs(kib: usize) -> Result<Mounted, String> {
    let mnt = tempfile::Builder::new().prefix("memlayers-full").tempdir().unwrap().keep();
    let m = Mounted(mnt.clone());
    run("mount", &["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs", mnt.to_str().unwrap()])?;
    Ok(m)
}

fn read_only_root(with_index: bool) {
    read_only_root_made(with_index, false)
}

/// `per_call`: the index is made by one-call handles (the CLI), which leave their last
/// commits in the WAL (`index::init_conn_per_call`): a read-only open must read them.
fn read_only_root_made(with_index: bool, per_call: bool) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("mem");
    put(&src, "cold/2026-10/2026-10-21.md", "- [2026-10-21T04:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    if with_index && per_call {
        let m = Memory::open_per_call(&src, config()).unwrap();
        assert_eq!(m.recall("火锅", None, None).unwrap().matched, 1);
        drop(m);
        // A second day written by the CLI's handle: its rows are in the WAL only.
        put(&src, "cold/2026-10/2026-10-20.md", "- [2026-10-20T04:00:00.000Z] [饮食] 午饭吃了火锅面\n");
        let m = Memory::open_per_call(&src, config()).unwrap();
        assert_eq!(m.recall("火锅", None, None).unwrap().matched, 2);
        drop(m);
        assert!(std::fs::metadata(src.join("index.sqlite3-wal")).unwrap().len() > 0, "the WAL holds commits");
    } else if with_index {
        let m = Memory::open(&src, config()).unwrap();
        assert_eq!(m.recall("火锅", None, None).unwrap().matched, 1);
        m.flush_usage().unwrap();
    }
    // SQLite's own -wal/-shm are left out: the pool of the handle above may close its last
    // connection (which removes them) a moment after the drop, on r2d2's worker thread.
    let files = |root: &std::path::Path| {
        rel::all_files(root).into_iter().filter(|f| !f.ends_with("-wal") && !f.ends_with("-shm")).collect::<Vec<_>>()
    };
    let before = files(&src);
    let usage_before = std::fs::read(src.join("usage.json")).ok();
    let mnt = match ro_bind(&src) {
        Ok(m) => m,
        Err(why) => {
            crate::common::skipped(&format!("read-only data root: no read-only bind mount ({why})"));
            return;
        }
    };
    let m = Memory::open(&mnt.0, config()).unwrap().with_now(at("2026-10-22T04:00:00Z"));
    assert!(m.warnings().iter().any(|w| w.contains("read-only")), "{:?}", m.warnings());
    let r = m.recall("火锅", None, None).unwrap();
    let want: &[&str] =
        if per_call { &["晚饭吃了火锅", "午饭吃了火锅面"] } else { &["晚饭吃了火锅"] };
    assert_eq!(r.items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(), want);
    assert_eq!(m.recent(Some(7), None).unwrap().matched, want.len() as i64);
    assert_eq!(m.stats().unwrap().cold.entries, want.len());
    let e = m.write(&w("新的一条", "x")).unwrap_err().to_string();
    assert!(e.contains("read-only") || e.contains("Read-only"), "{e}");
    let e = m.hot_set("正文").unwrap_err().to_string();
    assert!(e.contains("read-only") || e.contains("Read-only"), "{e}");
    drop(m);
    drop(mnt);
    assert_eq!(files(&src), before, "nothing created (no .lock, no usage.json)");
    assert_eq!(std::fs::read(src.join("usage.json")).ok(), usage_before, "no usage hit recorded");
}

#[test]
fn read_only_root_with_an_index_answers_queries() {
    read_only_root(true);
}

#[test]
fn read_only_root_without_an_index_answers_queries() {
    read_only_root(false);
}

#[test]
fn read_only_root_whose_index_was_made_by_the_cli_answers_from_its_wal() {
    read_only_root_made(true, true);
}

/// On a full tmpfs, `write` either fails before touching the day file or succeeds (the line is
/// in the file) — with a warning when the index could not follow — and the next sync after
/// space is freed indexes it. Never an error with the line stored.
#[test]
fn full_disk_never_acknowledges_an_error_after_storing() {
    let mnt = match small_tmpfs(1024) {
        Ok(m) => m,
        Err(why) => {
            crate::common::skipped(&format!("full disk: cannot mount a tmpfs ({why})"));
            return;
        }
    };
    let root = mnt.0.join("mem");
    let m = Memory::open(&root, config()).unwrap().with_now(at("2026-10-21T04:00:00Z"));
    m.write(&w("开头", "t")).unwrap();
    let filler = mnt.0.join("filler");
    let day = root.join("cold/2026-10/2026-10-21.md");
    let (mut ok, mut ok_lagging, mut refused) = (0, 0, 0);
    for (k, free_kib) in [0usize, 0, 4, 4, 8, 8, 12, 16, 20, 24, 32, 48, 64].iter().enumerate() {
        // Fill the disk, then free `free_kib`.
        let _ = std::fs::remove_file(&filler);
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&filler).unwrap();
            let chunk = vec![b'x'; 4096];
            while f.write_all(&chunk).is_ok() {}
            let _ = f.sync_all();
            let len = f.metadata().unwrap().len();
            f.set_len(len.saturating_sub(*free_kib as u64 * 1024)).unwrap();
        }
        let before = std::fs::read(&day).unwrap();
        let text = format!("满盘第{k}条 {}", "长".repeat(300));
        match m.write(&w(&text, "满")) {
            Ok(r) => {
                assert!(r.added);
                let after = String::from_utf8(std::fs::read(&day).unwrap()).unwrap();
                assert!(after.contains(&text), "acknowledged but not in the file");
                if r.warnings.iter().any(|w| w.contains("index")) {
                    ok_lagging += 1;
                } else {
                    ok += 1;
                }
            }
            Err(e) => {
                assert_eq!(std::fs::read(&day).unwrap(), before, "error {e}, yet the day file changed");
                refused += 1;
            }
        }
        let rh = m.hot_set(&format!("正文第{k}版"));
        let hot = std::fs::read_to_string(root.join("hot.md")).unwrap_or_default();
        match rh {
            Ok(_) => assert!(hot.contains(&format!("正文第{k}版")), "hot-set acknowledged but hot.md not written"),
            Err(e) => assert!(!hot.contains(&format!("正文第{k}版")), "hot-set failed ({e}) after writing hot.md"),
        }
    }
    std::fs::remove_file(&filler).unwrap();
    // With space again, the index catches up with everything the files hold.
    let m2 = Memory::open(&root, config()).unwrap();
    let cold = rel::read_cold(&root, true);
    assert!(cold.problems.is_empty(), "{:?}", cold.problems);
    assert_eq!(m2.recall("满盘", Some(1), None).unwrap().matched, cold.entries as i64 - 1);
    assert!(Memory::open_unsynced(&root, config()).unwrap().check().unwrap().clean);
    assert!(ok + ok_lagging + refused == 13);
    println!(
        "full disk: 13 writes: {ok} stored and indexed, {ok_lagging} stored with the index lagging, {refused} refused before touching the file"
    );
}

// ---------------------------------------------------------------------------------------------
// Point 6: dates the file layout cannot name.

#[test]
fn year_10000_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    // 9999-12-31T16:00Z is 10000-01-01 00:00 in Shanghai.
    let m = Memory::open(dir.path(), config()).unwrap().with_now(at("9999-12-31T16:00:00Z"));
    let e = m.write(&w("一万年", "x")).unwrap_err();
    assert!(matches!(&e, memlayers::Error::BadInput { field, .. } if field == "now"), "{e}");
    assert!(e.to_string().contains("10000"), "{e}");
    assert!(rel::all_files(&dir.path().join("cold")).is_empty());
    // The last nameable instant still works: 9999-12-31 23:59 Shanghai.
    let m = Memory::open(dir.path(), config()).unwrap().with_now(at("9999-12-31T15:59:00Z"));
    assert!(m.write(&w("最后一天", "x")).unwrap().added);
    assert!(dir.path().join("cold/9999-12/9999-12-31.md").is_file());
}

// ---------------------------------------------------------------------------------------------
// Point 7: another program's database is not taken over.

#[test]
fn a_foreign_sqlite_database_is_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("index.sqlite3");
    {
        let c = rusqlite::Connection::open(&idx).unwrap();
        c.execute_batch("CREATE TABLE recipes(name TEXT); INSERT INTO recipes VALUES('火锅');").unwrap();
    }
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T04:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    let m = Memory::open(dir.path(), config()).unwrap();
    assert!(m.warnings().iter().any(|w| w.contains("not a memlayers index")), "{:?}", m.warnings());
    assert_eq!(m.recall("火锅", None, None).unwrap().matched, 1);
    drop(m);
    let aside = dir.path().join("index.sqlite3.foreign-0");
    let c = rusqlite::Connection::open(&aside).unwrap();
    let n: i64 = c.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1, "the foreign database is kept as it was, only its own table");
    let c = rusqlite::Connection::open(&idx).unwrap();
    let id: i64 = c.query_row("PRAGMA application_id", [], |r| r.get(0)).unwrap();
    assert_eq!(id, 0x4d4c_5952, "memlayers' application_id ('MLYR')");
}

#[test]
fn an_index_that_is_a_folder_is_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("index.sqlite3")).unwrap();
    std::fs::write(dir.path().join("index.sqlite3/keep.txt"), "mine").unwrap();
    let m = Memory::open(dir.path(), config()).unwrap();
    assert!(m.warnings().iter().any(|w| w.contains("folder")), "{:?}", m.warnings());
    assert!(dir.path().join("index.sqlite3").is_file());
    assert_eq!(std::fs::read_to_string(dir.path().join("index.sqlite3.foreign-0/keep.txt")).unwrap(), "mine");
}

#[test]
fn an_index_of_an_older_memlayers_is_recognised_and_stamped() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T04:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    drop(Memory::open(dir.path(), config()).unwrap());
    let idx = dir.path().join("index.sqlite3");
    rusqlite::Connection::open(&idx).unwrap().pragma_update(None, "application_id", 0).unwrap();
    let m = Memory::open(dir.path(), config()).unwrap();
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    assert_eq!(m.open_report().files_mirrored, 0, "kept, not rebuilt");
    drop(m);
    let id: i64 =
        rusqlite::Connection::open(&idx).unwrap().query_row("PRAGMA application_id", [], |r| r.get(0)).unwrap();
    assert_eq!(id, 0x4d4c_5952);
    assert!(!dir.path().join("index.sqlite3.foreign-0").exists());
}

// ---------------------------------------------------------------------------------------------
// Point 8: smaller holes.

#[test]
fn a_symlinked_day_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T04:00:00.000Z] [t] 二十一号\n");
    std::os::unix::fs::symlink("2026-10-21.md", dir.path().join("cold/2026-10/2026-10-22.md")).unwrap();
    let m = Memory::open(dir.path(), config()).unwrap().with_now(at("2026-10-22T04:00:00Z"));
    let e = m.write(&w("二十二号", "t")).unwrap_err().to_string();
    assert!(e.contains("symbolic link"), "{e}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap(),
        "- [2026-10-21T04:00:00.000Z] [t] 二十一号\n"
    );
}

#[test]
fn near_miss_lines_and_bullets_without_timestamp_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        "# 2026-10-21",                               // 1 heading: not reported
        "- [2026-10-21T04:00:00.000Z] [t] 正常",      // 2 entry
        "* [2026-10-21T04:01:00.000Z] [t] 星号",      // 3
        "-  [2026-10-21T04:02:00.000Z] [t] 两个空格", // 4
        " - [2026-10-21T04:03:00.000Z] [t] 前导空格", // 5
        "-[2026-10-21T04:04:00.000Z] [t] 没空格",     // 6
        "\t- [2026-10-21T04:05:00.000Z] [t] 制表符",  // 7
        "- 买了乌龙茶",                               // 8 bullet without timestamp: an entry, time unknown
        "",                                           // 9
        "随手记的一段话",                             // 10 prose: kept, listed by check apart
        "- [2026-10-19T04:00:00.000Z] [t] 日期不对",  // 11 entry of another local date
    ];
    put(dir.path(), "cold/2026-10/2026-10-21.md", &(lines.join("\n") + "\n"));
    let m = Memory::open(dir.path(), config()).unwrap();
    let reported: Vec<i64> = m.open_report().malformed.iter().map(|b| b.line).collect();
    assert_eq!(reported, [3, 4, 5, 6, 7, 11], "{:?}", m.open_report().malformed);
    let chk = Memory::open_unsynced(dir.path(), config()).unwrap().check().unwrap();
    assert_eq!(chk.malformed.iter().map(|b| b.line).collect::<Vec<_>>(), [3, 4, 5, 6, 7, 11]);
    // The prose is kept and listed apart: one file, first at line 10, one line.
    let prose: Vec<(&str, usize, usize)> = chk.prose.iter().map(|p| (p.file.as_str(), p.first_line, p.lines)).collect();
    assert_eq!(prose, [("cold/2026-10/2026-10-21.md", 10, 1)]);
    assert!(chk.malformed[5].reason.contains("2026-10-19"), "{:?}", chk.malformed[5]);
    // The index mirrors the file (clean), but not everything in it is readable memory.
    assert_eq!((chk.clean, chk.all_read), (true, false));
    // The entry of another date is still indexed (it is a valid line); the near misses are not.
    assert_eq!(m.recall("日期不对", None, None).unwrap().matched, 1);
    assert_eq!(m.recall("星号", None, None).unwrap().matched, 0);
    // The bullet without a timestamp is a memory of the file's day.
    let tea = m.recall("乌龙茶", None, None).unwrap();
    assert_eq!((tea.items.len(), tea.items[0].ts_known), (1, false));
}

#[test]
fn nfc_and_nfd_find_each_other_and_deduplicate_without_rewriting_bytes() {
    let nfc = "Café crème 咖啡"; // é, è precomposed
    let nfd = "Cafe\u{301} cre\u{300}me 咖啡"; // combining accents
    assert_ne!(nfc.as_bytes(), nfd.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let m = Memory::open(dir.path(), config()).unwrap().with_now(at("2026-10-21T04:00:00Z"));
    assert!(m.write(&w(nfd, "饮品")).unwrap().added);
    assert!(!m.write(&w(nfc, "饮品")).unwrap().added, "NFC duplicate of an NFD entry");
    let r = m.recall("café", None, None).unwrap();
    assert_eq!(r.items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(), [nfd]);
    let r = m.recall("cre\u{300}me", None, None).unwrap();
    assert_eq!(r.matched, 1);
    let file = std::fs::read_to_string(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap();
    assert!(file.contains(nfd) && !file.contains(nfc), "user bytes kept as written");
}

/// `by-tag` matches tags case-insensitively, so `write --tag A` after `--tag a` with the same
/// text the same day is the same memory: not added again (it used to add a second line that
/// by-tag then listed twice). The stored line keeps its tag as first written.
#[test]
fn a_tag_differing_only_in_case_is_a_duplicate_as_by_tag_sees_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = Memory::open(dir.path(), config()).unwrap().with_now(at("2026-10-21T04:00:00Z"));
    assert!(m.write(&w("周会改到周四", "work")).unwrap().added);
    let again = m.write(&w("周会改到周四", "Work")).unwrap();
    assert!(!again.added);
    assert_eq!(again.tag, "work", "the tag of the line as stored");
    assert!(m.write(&w("周会改到周五", "Work")).unwrap().added, "another text is a new entry");
    let listed: Vec<(String, String)> =
        m.by_tag("WORK", None).unwrap().items.into_iter().map(|i| (i.tag, i.content)).collect();
    assert_eq!(
        listed,
        [("Work".to_string(), "周会改到周五".to_string()), ("work".to_string(), "周会改到周四".to_string())]
    );
    let file = std::fs::read_to_string(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap();
    assert_eq!(file.lines().filter(|l| l.contains("周会改到周四")).count(), 1, "{file}");
}

#[test]
fn temp_files_of_killed_writes_are_cleaned_at_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-20.md", "- [2026-10-20T04:00:00.000Z] [t] 前一天\n");
    // Left by a killed writer (pid 999999999 cannot be alive: above pid_max).
    let stale = ["cold/2026-10/.2026-10-21.md.tmp-999999999-0", ".hot.md.tmp-999999999-1"];
    for s in stale {
        put(dir.path(), s, "half a write");
    }
    let chk = Memory::open_unsynced(dir.path(), config()).unwrap().check().unwrap();
    assert_eq!(chk.temp_files, [".hot.md.tmp-999999999-1", "cold/2026-10/.2026-10-21.md.tmp-999999999-0"]);
    let m = Memory::open(dir.path(), config()).unwrap().with_now(at("2026-10-21T04:00:00Z"));
    let mut a = w("新写一条", "t");
    a.important = true; // writes hot.md too (root folder)
    m.write(&a).unwrap();
    let chk = Memory::open_unsynced(dir.path(), config()).unwrap().check().unwrap();
    assert!(chk.temp_files.is_empty(), "{:?}", chk.temp_files);
    assert!(chk.clean);
}

/// usage.json of about `mb` MiB in the plugin's layout (two-space JSON): `lead` records
/// first (key, hits), then filler records with keys `0…0`, `0…1`, … until the size is reached.
/// Returns the text and the number of records.
fn big_usage_json(mb: usize, lead: &[(&str, u64)]) -> (String, usize) {
    use std::fmt::Write;
    let mut s = String::from("{\n  \"version\": 1,\n  \"entries\": {\n");
    let record = |s: &mut String, key: &str, hits: u64| {
        let _ = write!(
            s,
            "    \"{key}\": {{\n      \"hits\": {hits},\n      \"firstHitAt\": \"2026-10-01T00:00:00.000Z\",\n      \"lastHitAt\": \"2026-10-20T00:00:00.000Z\",\n      \"weight\": 62,\n      \"lastDecayAt\": \"2026-10-20T00:00:00.000Z\"\n    }},\n"
        );
    };
    for (k, hits) in lead {
        record(&mut s, k, *hits);
    }
    let mut i = 0u64;
    while s.len() < mb << 20 {
        record(&mut s, &format!("{i:040x}"), 3);
        i += 1;
    }
    s.truncate(s.len() - 2);
    s.push_str("\n  }\n}\n");
    (s, lead.len() + i as usize)
}

/// The `memlayers` binary of this build; `MEMLAYERS_BIN` overrides it (to measure a release
/// build or another version with the same test, e.g. `big_usage_json_is_loaded_in_bounded_memory`).
fn memlayers_exe() -> PathBuf {
    if let Ok(b) = std::env::var("MEMLAYERS_BIN") {
        return PathBuf::from(b);
    }
    std::env::var("CARGO_BIN_EXE_memlayers")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/debug/memlayers"))
}

/// [`memlayers_exe`] as a command with `MEMLAYERS_SERVER=off` (no resident server started).
fn memlayers_cli() -> std::process::Command {
    let mut c = std::process::Command::new(memlayers_exe());
    c.env("MEMLAYERS_SERVER", "off");
    c
}

/// True when /proc/locks lists a granted flock held by process `pid` (blocked requests, listed
/// with `->`, do not count).
fn holds_flock(pid: u32) -> bool {
    let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    locks.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 4 && f[1] == "FLOCK" && f[4] == pid.to_string()
    })
}

/// True when /proc/locks lists a flock request of process `pid` that waits (`->`).
fn waits_for_flock(pid: u32) -> bool {
    let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    locks.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 5 && f[1] == "->" && f[2] == "FLOCK" && f[5] == pid.to_string()
    })
}

/// A big usage.json must not cost many times its size in memory on the first recall (point 8:
/// it took 674 MB for a 100 MB ledger). The ledger is streamed into the usage table record
/// by record and written back from a streamed query, so the peak is about the one copy of
/// the file's new bytes at write time plus a constant: SQLite's page cache (32 MB per
/// connection, src/index/mod.rs) and the binary. The promise: peak < 3× the file + 60 MB
/// (measured 10 MB → 75 MB, debug build; 93 MB before). The peak is of the memory the process
/// allocates (RssAnon, polled every 2 ms): the resident set (VmHWM, printed as well) also counts
/// file pages mapped into the process (SQLite's memory map of the index, where it is on), which
/// are the OS page cache's, shared and dropped at will. Also prints (not asserted: speed lives
/// in benchmarks) the wall time of that recall and how long it held the writer lock, seen in
/// /proc/locks; `a_big_usage_json_is_parsed_without_the_writer_lock` asserts the lock part.
#[test]
fn big_usage_json_is_loaded_in_bounded_memory() {
    let mb = budget("MEMLAYERS_USAGE_MB", 10);
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T04:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    let (s, records) = big_usage_json(mb, &[]);
    std::fs::write(dir.path().join("usage.json"), &s).unwrap();
    // Peak memory of the child: its VmHWM (high-water mark of the resident set), polled from
    // /proc while it runs (the mark only grows, so any poll after the peak sees it).
    let t0 = std::time::Instant::now();
    let mut child = memlayers_cli()
        .args(["--data-root", dir.path().to_str().unwrap(), "--tz", "Asia/Shanghai", "recall", "火锅"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let kib = |st: &str, field: &str| -> u64 {
        st.lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap_or(0)
    };
    let (mut peak_kib, mut peak_anon_kib) = (0u64, 0u64);
    let mut held = std::time::Duration::ZERO;
    let mut last = std::time::Instant::now();
    let status = loop {
        if let Ok(st) = std::fs::read_to_string(&status_path) {
            peak_kib = peak_kib.max(kib(&st, "VmHWM:"));
            peak_anon_kib = peak_anon_kib.max(kib(&st, "RssAnon:"));
        }
        let holding = holds_flock(child.id());
        let now = std::time::Instant::now();
        if holding {
            held += now - last;
        }
        last = now;
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let wall = t0.elapsed();
    assert!(status.success());
    let file_kib = (s.len() / 1024) as u64;
    println!(
        "usage.json of {file_kib} KiB ({records} records): peak memory {peak_anon_kib} KiB allocated ({peak_kib} KiB resident), first recall {} ms, writer lock held {} ms",
        wall.as_millis(),
        held.as_millis()
    );
    assert!(peak_anon_kib < 3 * file_kib + 60 * 1024, "peak {peak_anon_kib} KiB for a {file_kib} KiB ledger");
}

/// A write lease (`fcntl(F_SETLEASE, F_WRLCK)`, Linux) on a file: another process that opens it
/// blocks in `open` until the lease is released (or the kernel's lease-break-time, 45 s by
/// default, runs out), which lets a test stop a process at the exact instant it starts to read
/// the file. The break is announced with SIGWINCH (ignored by default) instead of SIGIO (which
/// would end the test process).
#[cfg(target_os = "linux")]
struct Lease(std::fs::File);

#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // fcntl lease calls: libc has no safe wrapper; each call takes a live fd.
impl Lease {
    fn take(path: &Path) -> Result<Lease, String> {
        use std::os::fd::AsRawFd;
        let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
        // F_SETSIG (linux/fcntl.h: F_LINUX_SPECIFIC_BASE + 0 = 10 on every architecture; not in
        // the libc crate's Linux-generic list).
        const F_SETSIG: libc::c_int = 10;
        // SAFETY: `f` is an open descriptor for the whole call.
        let r = unsafe { libc::fcntl(f.as_raw_fd(), F_SETSIG, libc::SIGWINCH) };
        if r != 0 {
            return Err(format!("F_SETSIG: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: as above.
        let r = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_WRLCK) };
        if r != 0 {
            return Err(format!("F_SETLEASE: {}", std::io::Error::last_os_error()));
        }
        Ok(Lease(f))
    }

    /// True once another process waits in `open` (the kernel is breaking the lease).
    fn breaking(&self) -> bool {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open while `self` lives.
        let t = unsafe { libc::fcntl(self.0.as_raw_fd(), libc::F_GETLEASE) };
        t != libc::F_WRLCK
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
impl Drop for Lease {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open until the File drops after this.
        unsafe { libc::fcntl(self.0.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK) };
    }
}

/// Point 8: the first query after a big usage.json appears (a hand edit, another
/// tool) reads it without holding the writer lock, so writers and other readers are not held
/// up for the seconds a big ledger takes to parse; only the swap into the index is under the
/// lock. Deterministic: a write lease stops the query in `open(usage.json)`; while it is
/// stopped there, this process must be able to take the writer lock (before the change the
/// query held it from before the open until the end of the parse). Then the query goes on and
/// must have loaded the ledger: the record of 晚饭吃了火锅 goes from the file's 3 hits to 4.
#[cfg(target_os = "linux")]
#[test]
fn a_big_usage_json_is_parsed_without_the_writer_lock() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "cold/2026-10/2026-10-21.md", "- [2026-10-21T04:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    let args = |cmd: &[&str]| {
        let mut a =
            vec!["--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai", "--now", "2026-10-21T05:00:00Z"];
        a.extend_from_slice(cmd);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    // An index that already mirrors the day (and no usage.json yet: `sync` records no hit).
    let out = memlayers_cli().args(args(&["sync"])).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The ledger key of 晚饭吃了火锅: `printf 晚饭吃了火锅 | sha1sum`.
    let key = "d3fa05f218af14e80376a994d4b1d23c8b827ff6";
    let (json, records) = big_usage_json(1, &[(key, 3)]);
    std::fs::write(root.join("usage.json"), &json).unwrap();
    let lease = match Lease::take(&root.join("usage.json")) {
        Ok(l) => l,
        Err(e) => {
            crate::common::skipped(&format!("no file lease on this file system ({e})"));
            return;
        }
    };
    let child = memlayers_cli()
        .args(args(&["recall", "火锅"]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !lease.breaking() {
        // A watchdog, not a timing assertion: the kernel itself ends the wait after 45 s.
        assert!(t0.elapsed() < std::time::Duration::from_secs(40), "the query never opened usage.json");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // The query is now inside open(usage.json), about to parse it.
    let free = std::fs::File::open(root).unwrap().try_lock();
    assert!(free.is_ok(), "the query holds the writer lock while it reads usage.json");
    drop(free);
    drop(lease);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["items"][0]["content"], "晚饭吃了火锅");
    assert!(v.get("stale").is_none_or(|s| s == false), "{v}");
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    let hits: i64 = c.query_row("SELECT hits FROM usage WHERE key = ?1", [key], |r| r.get(0)).unwrap();
    assert_eq!(hits, 4, "3 in the file + this recall's hit");
    let n: i64 = c.query_row("SELECT count(*) FROM usage", [], |r| r.get(0)).unwrap();
    assert_eq!(n as usize, records);
    println!("usage.json lease: writer lock free while a query read a {records}-record usage.json; loaded after");
}

/// The other half of reading usage.json outside the writer lock: a file that changes after it
/// was parsed and before the lock is taken is parsed again, never swapped in as it was. This
/// process holds the writer lock; `memlayers sync --full` parses the ledger (3 hits) and then waits
/// for the lock (seen in /proc/locks); the ledger is rewritten in place with 9 hits (same size)
/// and the lock released: the index must hold 9.
#[cfg(target_os = "linux")]
#[test]
fn a_usage_json_changed_after_its_parse_is_parsed_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "cold/2026-10/2026-10-21.md", "- [2026-10-21T04:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    let args = |cmd: &str| ["--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai", cmd].map(str::to_string);
    let out = memlayers_cli().args(args("sync")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let key = "d3fa05f218af14e80376a994d4b1d23c8b827ff6"; // `printf 晚饭吃了火锅 | sha1sum`
    let (v1, records) = big_usage_json(1, &[(key, 3)]);
    let (v2, _) = big_usage_json(1, &[(key, 9)]);
    assert_eq!(v1.len(), v2.len());
    std::fs::write(root.join("usage.json"), &v1).unwrap();
    let lock = std::fs::File::open(root).unwrap();
    lock.lock().unwrap();
    // `sync --full` waits for the writer lock (a query would answer `stale` instead).
    let mut child = memlayers_cli()
        .args(args("sync"))
        .arg("--full")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !waits_for_flock(child.id()) {
        assert!(child.try_wait().unwrap().is_none(), "sync ended while the lock was held");
        assert!(t0.elapsed() < std::time::Duration::from_secs(60), "sync never waited for the lock");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::fs::write(root.join("usage.json"), &v2).unwrap();
    lock.unlock().unwrap();
    assert!(child.wait().unwrap().success());
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    let hits: i64 = c.query_row("SELECT hits FROM usage WHERE key = ?1", [key], |r| r.get(0)).unwrap();
    assert_eq!(hits, 9, "the ledger as it is now, not as it was parsed");
    let n: i64 = c.query_row("SELECT count(*) FROM usage", [], |r| r.get(0)).unwrap();
    assert_eq!(n as usize, records);
}

/// Point 1, repairing a torn tail after a crash: a `write` killed in the middle of
/// its append leaves the first bytes of its line without the rest. Made real and deterministic
/// with a file-size limit (RLIMIT_FSIZE): the kernel writes the first 10 bytes of the line,
/// then kills the process with SIGXFSZ at its next write. Nothing was acknowledged. The next
/// write must cut exactly those 10 bytes (memlayers' own, recorded before the append) and
/// nothing else: every other byte of the file, hand notes included, stays; `check` is clean.
/// Before, the torn bytes stayed as a malformed line `- [2026-10` above the next entry.
#[cfg(target_os = "linux")]
#[test]
#[allow(unsafe_code)] // setrlimit in the child between fork and exec (pre_exec).
fn a_write_torn_by_a_crash_is_cut_off_at_the_next_write() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let rel = "cold/2026-10/2026-10-21.md";
    // A day file of about 1 MB (hand notes; the index stays far smaller, so the limit below
    // only ever stops the append to this file).
    let mut original = String::from("- [2026-10-21T01:00:00.000Z] [t] 早上跑步\n");
    while original.len() < 1 << 20 {
        original.push_str("手写的笔记，不是条目，也不会被改动。\n");
    }
    put(root, rel, &original);
    let cmd = |now: &str, args: &[&str]| {
        let mut c = memlayers_cli();
        c.args(["--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai", "--now", now]).args(args);
        c
    };
    let out = cmd("2026-10-21T03:00:00Z", &["sync"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let limit = (original.len() + 10) as u64;
    let mut child = cmd("2026-10-21T04:00:00Z", &["write", "晚饭吃了火锅", "--tag", "饮食"]);
    // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
    unsafe {
        child.pre_exec(move || {
            let fsize = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            let core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &fsize) != 0 || libc::setrlimit(libc::RLIMIT_CORE, &core) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = child.output().unwrap();
    assert_eq!(out.status.signal(), Some(libc::SIGXFSZ), "{:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "not acknowledged");
    let torn = std::fs::read(root.join(rel)).unwrap();
    assert_eq!(&torn[original.len()..], b"- [2026-10", "the first 10 bytes of the line");
    // The next write (an hour later) cuts the torn bytes and says so.
    let out = cmd("2026-10-21T05:00:00Z", &["write", "买了乌龙茶", "--tag", "购物"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["added"], true);
    let warned = format!("{} {}", v["warnings"], String::from_utf8_lossy(&out.stderr));
    assert!(warned.contains("- [2026-10") && warned.contains(rel), "{warned}");
    let after = std::fs::read_to_string(root.join(rel)).unwrap();
    assert_eq!(after, format!("{original}- [2026-10-21T05:00:00.000Z] [购物] 买了乌龙茶\n"));
    let out = cmd("2026-10-21T05:00:00Z", &["check"]).output().unwrap();
    let chk: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(chk["malformed"], serde_json::json!([]), "{chk}");
    assert_eq!(chk["clean"], true, "{chk}");
    println!(
        "torn write: the 10 bytes of the unacknowledged line cut at the next write, the other {} bytes kept",
        original.len()
    );
}
