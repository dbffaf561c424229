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
    // Start together: wait for the parent's go file.
    let go = std::path::Path::new(&root).with_extension("go");
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
        let children: Vec<_> = (0..4)
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
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::fs::write(&go, b"").unwrap();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "a child opener failed: {}", String::from_utf8_lossy(&out.stdout));
        }
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert!(!names.iter().any(|n| n.contains("corrupt")), "{names:?}");
        std::fs::remove_file(&go).unwrap();
    }
}
