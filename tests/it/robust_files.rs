//! Acknowledged writes that every query can find, clocks that cannot freeze decay, and the day
//! files people actually keep: a rebuild under way, an unreadable day file, hand-written
//! bullets, the per-day entry limit, one listing order, and the zone a new root records.
//! Real SQLite, real files and, where the behaviour is a process's, real child processes.

use std::path::Path;
use std::process::Output;

use crate::common::{at, cli, config, put};

/// A config file for the CLI: Asia/Shanghai plus `extra` keys (a JSON object body).
fn config_file(dir: &Path, extra: &str) -> std::path::PathBuf {
    let p = dir.join("config.json");
    let sep = if extra.is_empty() { "" } else { ", " };
    std::fs::write(&p, format!("{{\"timezone\": \"Asia/Shanghai\"{sep}{extra}}}")).unwrap();
    p
}

/// Runs the CLI on `root` with `args`, the given config file and `--now`.
fn run(root: &Path, config: &Path, now: &str, args: &[&str]) -> Output {
    cli()
        .arg("--data-root")
        .arg(root)
        .arg("--config")
        .arg(config)
        .args(["--now", now, "--json"])
        .args(args)
        .output()
        .unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "exit {:?}; stderr: {}", o.status, String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn contents(v: &serde_json::Value) -> Vec<String> {
    v["items"].as_array().unwrap().iter().map(|i| i["content"].as_str().unwrap().to_string()).collect()
}

/// A query arriving while another process rebuilds the index (it holds the writer lock over a
/// new, empty index) answers, marked stale, after its bounded wait instead of failing with
/// "another memlayers process holds the writer lock"; once the lock is free, the next call
/// mirrors the files and finds the entry. The lock is held by this test process for the whole
/// first call (a lease, not a race): the child cannot take it whatever its timing.
#[test]
fn a_query_during_a_rebuild_answers_instead_of_failing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    // An index with every migration but no file mirrored yet: what a rebuild starts from.
    drop(memlayers::Memory::open(&root, config()).unwrap());
    put(&root, "cold/2026-10/2026-10-21.md", "- [2026-10-21T02:00:00.000Z] [跑步] 买了新的跑鞋\n");
    let cfg = config_file(dir.path(), "\"lockTimeoutMs\": 300");
    let now = "2026-10-21T12:00:00Z";
    {
        let _rebuilding = memlayers::files::lock::acquire(&root, std::time::Duration::from_secs(5)).unwrap();
        for args in [&["recall", "跑鞋"][..], &["recent", "--days", "1"][..], &["by-tag", "跑步"][..]] {
            let v = json(&run(&root, &cfg, now, args));
            assert_eq!(v["stale"], true, "{args:?}: {v}");
        }
    }
    let v = json(&run(&root, &cfg, now, &["recall", "跑鞋"]));
    assert_eq!(contents(&v), ["买了新的跑鞋"]);
    assert!(v.get("stale").is_none(), "{v}");
}
