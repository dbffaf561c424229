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
