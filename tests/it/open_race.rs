//! Several processes opening a brand-new data root at the same moment: exactly one creates and
//! migrates the index, the others wait for the writer lock and find it ready. Before the lock,
//! a loser took refinery's "table already exists" for corruption and moved the winner's live
//! index aside (`index.sqlite3.corrupt-0`). The test binary re-runs itself as the children.

use crate::common;

use std::process::{Command, Stdio};

use memlayers::Memory;

/// Child role: spawned by `simultaneous_first_opens_never_move_the_index_aside`.
#[test]
#[ignore = "child role: spawned by simultaneous_first_opens_never_move_the_index_aside"]
fn child_opener() {
    let root =
        std::env::var("MEMLAYERS_OPEN_RACE_ROOT").expect("child role: MEMLAYERS_OPEN_RACE_ROOT set by the parent test");
    // Start together: say ready (the parent waits for every child's), then wait for the
    // parent's go file.
    let go = std::path::Path::new(&root).with_extension("go");
    std::fs::write(std::path::Path::new(&root).with_extension(format!("ready-{}", std::process::id())), b"").unwrap();
    while !go.exists() {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let m = Memory::open(&root, common::config()).unwrap();
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
    assert_eq!(m.recent(None, None).unwrap().returned, 0);
}

#[test]
fn simultaneous_first_opens_never_move_the_index_aside() {
    let exe = std::env::current_exe().unwrap();
    for _round in 0..4 {
        let dir = tempfile::tempdir().unwrap();
        let go = dir.path().with_extension("go");
        let mut children: Vec<_> = (0..4)
            .map(|_| {
                Command::new(&exe)
                    .args(["--exact", "open_race::child_opener", "--ignored", "--test-threads=1"])
                    .env("MEMLAYERS_OPEN_RACE_ROOT", dir.path())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        // Handshake: every child has written its ready file (it is about to poll for `go`).
        let ready = |pid: u32| dir.path().with_extension(format!("ready-{pid}"));
        let start = std::time::Instant::now();
        let pids: Vec<u32> = children.iter().map(|c| c.id()).collect();
        while !pids.iter().all(|&p| ready(p).exists()) {
            // A child that ended before saying ready has failed: its output is reported below.
            if children.iter_mut().any(|c| c.try_wait().unwrap().is_some()) {
                break;
            }
            assert!(start.elapsed() < std::time::Duration::from_secs(60), "a child opener never said ready");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::fs::write(&go, b"").unwrap();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "a child opener failed: {}", String::from_utf8_lossy(&out.stdout));
        }
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert!(!names.iter().any(|n| n.contains("corrupt")), "{names:?}");
        std::fs::remove_file(&go).unwrap();
        for c in &pids {
            std::fs::remove_file(ready(*c)).unwrap();
        }
    }
}
