//! Two processes writing 500 entries each into one data root: 1000 lines, none lost, none
//! duplicated. The test binary re-runs itself as the child writers.

use crate::common;

use std::process::{Command, Stdio};

use memlayers::layers::cold::WriteArgs;
use memlayers::{Config, Memory};

const PER_CHILD: usize = 500;

/// Child role: spawned by `two_processes_write_500_each` with the env set.
#[test]
#[ignore = "child role: spawned by two_processes_write_500_each"]
fn child_writer() {
    let root = std::env::var("MEMLAYERS_TEST_ROOT").expect("child role: MEMLAYERS_TEST_ROOT set by the parent test");
    let name = std::env::var("MEMLAYERS_TEST_CHILD").expect("child role: MEMLAYERS_TEST_CHILD set by the parent test");
    let cfg = Config { lock_timeout_ms: 60_000, ..common::config() };
    let m = Memory::open(&root, cfg).unwrap();
    for i in 0..PER_CHILD {
        let r = m
            .write(&WriteArgs {
                text: format!("{name} 写入 第{i}条"), tag: Some(name.clone()), ..Default::default()
            })
            .unwrap();
        assert!(r.added);
    }
}

#[test]
fn two_processes_write_500_each() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = ["甲", "乙"]
        .iter()
        .map(|name| {
            Command::new(&exe)
                .args(["--exact", "concurrency::child_writer", "--ignored", "--test-threads=1"])
                .env("MEMLAYERS_TEST_ROOT", dir.path())
                .env("MEMLAYERS_TEST_CHILD", name)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "a child writer failed: {}", String::from_utf8_lossy(&out.stdout));
    }
    let mut lines = Vec::new();
    for month in std::fs::read_dir(dir.path().join("cold")).unwrap() {
        for f in std::fs::read_dir(month.unwrap().path()).unwrap() {
            let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
            lines.extend(text.lines().map(str::to_string));
        }
    }
    assert_eq!(lines.len(), 2 * PER_CHILD);
    for name in ["甲", "乙"] {
        for i in 0..PER_CHILD {
            let needle = format!("] [{name}] {name} 写入 第{i}条");
            assert_eq!(lines.iter().filter(|l| l.ends_with(&needle)).count(), 1, "{needle}");
        }
    }
    let m = Memory::open(dir.path(), common::config()).unwrap();
    assert_eq!(m.by_tag("甲", Some(200)).unwrap().matched, PER_CHILD as i64);
    let rep = m.check().unwrap();
    assert!(rep.clean && rep.entries == 2 * PER_CHILD as i64, "{rep:?}");
}

/// Four shells running `recall` in parallel against one root, as agents sharing a data root do:
/// every usage hit is recorded and no call warns or fails. (Newcomer test of the WAL change: a
/// CLI process that truncates the WAL at exit holds the write lock for the checkpoint, and a
/// concurrent call whose deferred transaction had already read the index could not upgrade
/// to write: "usage hits not recorded: database is locked", ~6 % of 400 parallel calls. Write
/// transactions now begin IMMEDIATE, waiting for the lock before they read.)
#[test]
fn parallel_cli_recalls_record_every_usage_hit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().to_string();
    let common = ["--data-root", root.as_str(), "--tz", "UTC", "--now", "2026-10-21T03:10:00Z"];
    for i in 0..3 {
        let out = crate::common::cli().args(common).args(["write", &format!("风筝 第{i}条")]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    const SHELLS: usize = 4;
    const CALLS: usize = 40;
    let shells: Vec<_> = (0..SHELLS)
        .map(|_| {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut problems = Vec::new();
                for _ in 0..CALLS {
                    let out = crate::common::cli()
                        .args(["--data-root", root.as_str(), "--tz", "UTC", "--now", "2026-10-21T03:10:00Z"])
                        .args(["--json", "recall", "风筝"])
                        .output()
                        .unwrap();
                    let err = String::from_utf8_lossy(&out.stderr).into_owned();
                    if !out.status.success() || !err.is_empty() {
                        problems.push(format!("exit {:?}: {err}", out.status.code()));
                    }
                }
                problems
            })
        })
        .collect();
    let problems: Vec<String> = shells.into_iter().flat_map(|h| h.join().unwrap()).collect();
    assert!(
        problems.is_empty(),
        "{} of {} calls: {:?}",
        problems.len(),
        SHELLS * CALLS,
        &problems[..problems.len().min(3)]
    );
    // 160 calls, each returning the 3 entries: 480 hits.
    let c = rusqlite::Connection::open(dir.path().join("index.sqlite3")).unwrap();
    let hits: i64 = c.query_row("SELECT sum(hits) FROM usage", [], |r| r.get(0)).unwrap();
    assert_eq!(hits, (SHELLS * CALLS * 3) as i64);
}
