//! Shared helpers of the integration tests: temp data roots with a pinned clock and zone.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use memlayers::{Config, Memory};

/// The `memlayers` binary under test, as a command with `MEMLAYERS_SERVER=off`: every call
/// runs in-process and none starts a resident server (`spawn`, the default, would leave one
/// per data root behind). Tests of the server modes (`serve.rs`) choose the mode themselves.
pub fn cli() -> std::process::Command {
    // Cargo names the binary to this package's tests; the tools' tests that include this file
    // find the same workspace build's binary next to their own folder (target/<profile>/).
    let bin = option_env!("CARGO_BIN_EXE_memlayers").map(PathBuf::from).unwrap_or_else(|| {
        let exe = std::env::current_exe().unwrap();
        exe.parent().and_then(|deps| deps.parent()).unwrap().join("memlayers")
    });
    let mut c = std::process::Command::new(bin);
    c.env("MEMLAYERS_SERVER", "off");
    c
}

/// Asia/Shanghai config (UTC+8, no DST), so local dates are easy to work out by hand.
pub fn config() -> Config {
    Config { timezone: chrono_tz::Asia::Shanghai, ..Config::default() }
}

/// Parses an RFC 3339 instant.
pub fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// Opens `root` with [`config`] and "now" pinned to `now`.
pub fn open_at(root: &Path, now: &str) -> Memory {
    Memory::open(root, config()).unwrap().with_now(at(now))
}

/// A fresh copy of the bundled example archive (`examples/archive`) in a temp root, opened
/// with [`open_at`] `now`.
pub fn example_at(now: &str) -> (tempfile::TempDir, Memory) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive"), dir.path());
    let m = open_at(dir.path(), now);
    (dir, m)
}

/// Writes a cold file (relative path) with the given lines.
pub fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Copies a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

/// The repository's tests/fixtures directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

/// Contents of a recall as (date, content) pairs, best first.
pub fn recall_contents(m: &Memory, kw: &str, mode: Option<&str>) -> Vec<String> {
    m.recall(kw, Some(50), mode.map(|s| s.parse().unwrap())).unwrap().items.into_iter().map(|i| i.content).collect()
}

/// A test that cannot run here (a missing archive, no permission to mount) says so with
/// `SKIPPED: why` on stderr and returns; where `MEMLAYERS_REQUIRE_ALL` is set (`.ci/run` sets
/// it) it fails instead, so that CI never passes a test it did not run.
pub fn skipped(why: &str) {
    let required = std::env::var_os("MEMLAYERS_REQUIRE_ALL").is_some_and(|v| v != "0" && !v.is_empty());
    assert!(!required, "MEMLAYERS_REQUIRE_ALL is set, and this test could not run: {why}");
    // Written to the stderr handle directly: the test harness captures `eprintln!`.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// Waits until process `pid` is blocked in the kernel's queue for the `flock` of `root` (a
/// `->` line of /proc/locks naming its pid and the folder's inode): the handshake of a test
/// that needs a child to be waiting for the writer lock. Panics after 60 s, naming what it saw.
#[cfg(target_os = "linux")]
pub fn wait_until_blocked_on_lock(pid: u32, root: &Path) {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(root).unwrap().ino();
    let start = std::time::Instant::now();
    loop {
        let locks = std::fs::read_to_string("/proc/locks").unwrap();
        // "2: -> FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF": a blocked request, its pid,
        // then major:minor:inode of the locked file.
        let waiting = locks.lines().any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(1) == Some(&"->")
                && f.get(2) == Some(&"FLOCK")
                && f.get(5) == Some(&pid.to_string().as_str())
                && f.get(6).and_then(|d| d.rsplit(':').next()) == Some(inode.to_string().as_str())
        });
        if waiting {
            return;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "pid {pid} never waited for the lock:\n{locks}");
        std::thread::yield_now();
    }
}
