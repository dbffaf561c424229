//! The command line: exit codes (0 ok, 2 bad input, 1 internal), JSON output with the plugin's
//! field names, config warnings, and the demo on the bundled archive.

use std::process::Output;

fn ml(args: &[&str]) -> Output {
    crate::common::cli().args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn write_then_recall_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let common = ["--data-root", root, "--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z", "--json"];
    let out = ml(&[
        &common[..],
        &["write", "录了《晴天》的翻唱", "--tag", "翻唱", "--source", r#"{"conv":"private:1","seq":9}"#],
    ]
    .concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["date"], "2026-10-21");
    assert_eq!(v["ts"], "2026-10-21T03:10:00.000Z");
    assert_eq!(v["source"], serde_json::json!({"conv": "private:1", "seq": 9}));
    let out = ml(&[&common[..], &["recall", "翻唱"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["matched"].as_i64(), v["returned"].as_i64(), v["mode"].as_str()), (Some(1), Some(1), Some("and")));
    assert_eq!(v["items"][0]["content"], "录了《晴天》的翻唱");
    assert_eq!(text(&out.stdout).lines().count(), 1, "--json is one line");
    let out = ml(&[&common[..], &["time-window", "上周三"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Now = Wed 2026-10-21 11:10 in Shanghai; last week's Wednesday = 2026-10-14.
    assert_eq!(v["window"]["startDate"], "2026-10-14");
    assert_eq!(v["window"]["endDate"], "2026-10-15");
    assert_eq!(v["window"]["start"], "2026-10-13T16:00:00Z");
}

#[test]
fn bad_input_exits_2_and_names_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    for (args, needle) in [
        (vec!["by-date", "2026-10-02", "2026-10-01"], "invalid from"),
        (vec!["recall", "x", "--limit", "99"], "invalid limit"),
        (vec!["recall", "x", "--mode", "xor"], "invalid mode"),
        (vec!["recall", ""], "invalid keyword"),
        // An empty or blank question is a usage error for retrieve too (it exited 0 with an
        // empty result while `recall ""` exited 2); with --from/--to it lists the window
        // (retrieve::a_blank_question_needs_a_range_and_then_lists_the_window).
        (vec!["retrieve", ""], "invalid query"),
        (vec!["retrieve", " \t "], "invalid query"),
        (vec!["write", " "], "invalid text"),
        (vec!["write", "x", "--source", "{bad"], "invalid source"),
        (vec!["--tz", "Mars/Base", "recent"], "invalid tz"),
        (vec!["--now", "yesterday", "recent"], "invalid now"),
        (vec!["import", "/definitely/not/here"], "/definitely/not/here"),
        (vec!["nonsense"], "unrecognized subcommand"),
    ] {
        let out = ml(&[&["--data-root", root][..], &args].concat());
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    }
}

/// A write refused for its arguments creates nothing: not the data root, not its index, not
/// the zone record a first open writes (which would date every later entry by that zone). A
/// leap-second `--now` is refused too: no day file can record `:60`.
#[test]
fn a_refused_write_creates_no_data_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("new-root");
    let r = root.to_str().unwrap();
    for (args, needle) in [
        (vec!["write", ""], "invalid text"),
        (vec!["write", "x", "--tag", "a\u{7}b"], "invalid tag"),
        (vec!["write", "x", "--source", "bad"], "invalid source"),
        (vec!["--now", "2026-12-07T10:00:60Z", "write", "leap second"], "invalid now"),
    ] {
        let out = ml(&[&["--data-root", r][..], &args].concat());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!root.exists(), "{args:?} created {r}");
    }
}

/// `time-window` frames time words in the zone `retrieve` uses: without --tz, the data root's
/// recorded zone. 2026-11-29T20:00Z is Monday 2026-11-30 04:00 in Shanghai (UTC+8) and still
/// Sunday 11-29 in UTC: 今天 is 11-30 there.
#[test]
fn time_window_uses_the_roots_recorded_zone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("memlayers.json"), r#"{"timezone": "Asia/Shanghai"}"#).unwrap();
    let r = root.to_str().unwrap();
    let now = ["--now", "2026-11-29T20:00:00Z"];
    let out = ml(&[&["--data-root", r][..], &now, &["--json", "time-window", "今天"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["window"]["startDate"], "2026-11-30", "{v}");
    // An explicit --tz still wins.
    let out = ml(&[&["--data-root", r, "--tz", "UTC"][..], &now, &["--json", "time-window", "今天"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["window"]["startDate"], "2026-11-29", "{v}");
}

#[test]
fn bad_config_values_fall_back_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.json");
    std::fs::write(&cfg, r#"{"hotLimit": 5, "timezone": "Asia/Shanghai"}"#).unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap(); // a read command does not create its root
    let out = ml(&["--data-root", root.to_str().unwrap(), "--config", cfg.to_str().unwrap(), "recent"]);
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains("hotLimit: 5 is not an integer in 100–20000; using the default 600"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn demo_runs_on_the_bundled_archive() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    let out = ml(&["--data-root", root.to_str().unwrap(), "demo"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    // 457 entries over 113 days (examples/README.md); last week's three agreements come first.
    assert!(s.starts_with("Imported 457 entries over 113 days"), "{s}");
    assert!(s.contains("window 2026-11-16 … 2026-11-22 (Week), matched \"上周\""), "{s}");
    assert!(s.contains("2026-11-27  [饮食] 晚饭吃了火锅"), "{s}");
    // A second run into the same (now non-empty) folder is refused.
    let again = ml(&["--data-root", root.to_str().unwrap(), "demo"]);
    assert_eq!(again.status.code(), Some(2));
}

/// A `$TZ` that names no IANA zone is not silently taken as UTC: the CLI says so on stderr
/// (the data root would otherwise be dated in a zone nobody chose), and a valid `$TZ` is used
/// without a warning: 2026-11-22T20:00:00Z is 2026-11-23 in Asia/Shanghai (UTC+8), so the
/// entry lands in cold/2026-11/2026-11-23.md.
#[test]
fn an_unknown_tz_variable_is_reported_not_silently_utc() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bad");
    let out = crate::common::cli()
        .env("TZ", "garbage/zone")
        .args(["--data-root", root.to_str().unwrap(), "--now", "2026-11-22T20:00:00Z", "write", "x"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("TZ=\"garbage/zone\" is not an IANA time zone name"), "{}", text(&out.stderr));

    let root = dir.path().join("good");
    let out = crate::common::cli()
        .env("TZ", "Asia/Shanghai")
        .args(["--data-root", root.to_str().unwrap(), "--now", "2026-11-22T20:00:00Z", "write", "y"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("time zone"), "{}", text(&out.stderr));
    assert!(root.join("cold/2026-11/2026-11-23.md").exists());
}

/// With no zone asked for (no --tz, no `timezone` in a config file), time words are framed in
/// the zone the data root's files are dated in (memlayers.json), not the shell's: a root made
/// with --tz Asia/Shanghai and queried under TZ=UTC at 2026-12-01T17:30Z (01:30 on 12-02 in
/// Shanghai) reads 今天 as Shanghai's 2026-12-02, without a zone warning. --tz still wins.
#[test]
fn time_words_default_to_the_roots_recorded_zone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sh");
    let r = root.to_str().unwrap();
    let out =
        ml(&["--data-root", r, "--tz", "Asia/Shanghai", "--now", "2026-12-01T17:30:00Z", "write", "凌晨还在改稿"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(root.join("cold/2026-12/2026-12-02.md").exists());
    let ask = |extra: &[&str]| {
        let mut args = vec!["--data-root", r, "--json", "--now", "2026-12-01T17:30:00Z"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["retrieve", "今天 改稿", "--explain"]);
        crate::common::cli().env("TZ", "UTC").args(&args).output().unwrap()
    };
    let out = ask(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("dated in"), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["explain"]["window"]["startDate"], "2026-12-02");
    assert_eq!(v["matched"], 1);
    let out = ask(&["--tz", "UTC"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["explain"]["window"]["startDate"], "2026-12-01");
    assert!(text(&out.stderr).contains("dated in Asia/Shanghai"), "{}", text(&out.stderr));
}

/// WAL frames in `root`'s index WAL, from its size (a 32-byte header, then frames of a 24-byte
/// header and a 4096-byte page: https://sqlite.org/fileformat2.html#walformat).
fn wal_frames(root: &std::path::Path) -> u64 {
    let len = std::fs::metadata(root.join("index.sqlite3-wal")).map(|m| m.len()).unwrap_or(0);
    len.saturating_sub(32) / (24 + 4096)
}

#[test]
fn one_call_processes_keep_the_wal_short_and_lose_no_usage_hit() {
    // Before the fix, each CLI call left its usage commit in the WAL, and the next process read the
    // whole WAL back (and never restarted it): 1 167 frames and a year window 4.6 times slower
    // at 1M entries. The WAL a call leaves is now at most 64 frames (PER_CALL_WAL_FRAMES).
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let common = ["--data-root", root, "--tz", "UTC", "--now", "2026-10-21T03:10:00Z", "--json"];
    for i in 0..12 {
        let out = ml(&[&common[..], &["write", &format!("风筝 entry {i}")]].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let (mut most, mut calls) = (0, 0);
    for _ in 0..40 {
        let out = ml(&[&common[..], &["recall", "风筝", "--limit", "10"]].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["returned"], 10);
        calls += 1;
        let frames = wal_frames(dir.path());
        assert!(frames <= 64, "call {calls} left {frames} WAL frames");
        most = most.max(frames);
    }
    // The commits did go through the WAL (the bound is not met by an empty WAL) ...
    assert!(most >= 8, "WAL never held a commit: most {most} frames");
    // ... and truncating it lost no hit: 40 calls x 10 hits over 12 entries.
    let c = rusqlite::Connection::open(dir.path().join("index.sqlite3")).unwrap();
    let hits: i64 = c.query_row("SELECT sum(hits) FROM usage", [], |r| r.get(0)).unwrap();
    assert_eq!(hits, 400);
}

#[test]
fn a_query_on_a_missing_data_root_exits_2_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memroy"); // a typo'd root: it does not exist
    let r = root.to_str().unwrap();
    let out = ml(&["--data-root", r, "--json", "recall", "风筝"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(out.stdout, b"");
    let want = format!("{{\"error\":\"invalid data-root: {r} does not exist; nothing was created");
    assert!(text(&out.stderr).starts_with(&want), "stderr: {}", text(&out.stderr));
    assert!(!root.exists());
    // A write to a new root is expected to create it, without a word about it.
    let fresh = dir.path().join("fresh");
    let out = ml(&["--data-root", fresh.to_str().unwrap(), "write", "第一条"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(fresh.join("index.sqlite3").is_file());
    assert!(!text(&out.stderr).contains("does not exist"), "stderr: {}", text(&out.stderr));
}

#[test]
#[cfg(target_os = "linux")] // the handshake reads /proc/locks
fn sync_waits_for_another_writer_instead_of_answering_stale() {
    // Newcomer test: `memlayers sync` exited 0 with `"stale": true` and mirrored nothing when
    // another process held the writer lock at that moment.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let common = ["--data-root", root, "--tz", "UTC", "--now", "2026-10-21T03:10:00Z", "--json"];
    let out = ml(&[&common[..], &["write", "风筝 第一条"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A hand edit the next sync must mirror, made while another writer holds the lock.
    let day = std::fs::read_dir(dir.path().join("cold")).unwrap().next().unwrap().unwrap().path();
    let file = std::fs::read_dir(&day).unwrap().next().unwrap().unwrap().path();
    let mut body = std::fs::read_to_string(&file).unwrap();
    body.push_str("- [2026-10-21T01:00:00.000Z] [-] 风筝 第二条\n");
    let held = memlayers::files::lock::acquire(dir.path(), std::time::Duration::from_secs(1)).unwrap();
    std::fs::write(&file, body).unwrap();
    let child = crate::common::cli()
        .args(&common[..])
        .arg("sync")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Handshake: the child is in the kernel's queue for the lock before it is released.
    crate::common::wait_until_blocked_on_lock(child.id(), dir.path());
    drop(held);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.get("stale"), None, "{v}");
    assert_eq!(v["filesMirrored"], 1, "{v}");
    let out = ml(&[&common[..], &["recall", "风筝"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["matched"], 2);
}

/// The bundled example root (it records Asia/Shanghai in memlayers.json).
fn example_archive() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive")
}

/// A new data root imported from a dsh root that records its zone takes that zone when no zone
/// is asked for; a root that already records another zone keeps it, and the import says so on
/// stderr. examples/README.md: 7 entries of the example root have a UTC date other than their
/// Shanghai file's, so in a UTC root they are the 7 misdated lines.
#[test]
fn an_import_into_a_new_root_takes_the_zone_the_source_records() {
    let src = example_archive();
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh");
    let out =
        ml(&["--data-root", fresh.to_str().unwrap(), "--json", "import", src.to_str().unwrap(), "--format", "dsh"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let zone = std::fs::read_to_string(fresh.join("memlayers.json")).unwrap();
    assert_eq!(zone.trim(), r#"{"timezone":"Asia/Shanghai"}"#);
    assert!(!text(&out.stderr).contains("warning"), "{}", text(&out.stderr));
    let check = ml(&["--data-root", fresh.to_str().unwrap(), "--json", "check"]);
    let v: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!((v["entries"].as_i64(), v["allRead"].as_bool()), (Some(457), Some(true)), "{v}");

    // A root made in UTC first: it keeps UTC, the import warns, and check lists the 7 lines.
    let utc = dir.path().join("utc");
    std::fs::create_dir(&utc).unwrap(); // a read command does not create its root
    assert!(ml(&["--data-root", utc.to_str().unwrap(), "--tz", "UTC", "stats"]).status.success());
    let out = ml(&["--data-root", utc.to_str().unwrap(), "--json", "import", src.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("dates its files in Asia/Shanghai") && err.contains("this data root in UTC"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(1), "{v}");
    let check = ml(&["--data-root", utc.to_str().unwrap(), "--json", "check"]);
    let v: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(v["allRead"].as_bool(), Some(false), "{v}");
    assert_eq!(v["malformed"].as_array().map(Vec::len), Some(7), "{v}");
}

/// A dsh source at `dir/name` holding one day file, its `memlayers.json` set to `record` when
/// given.
fn dsh_source(dir: &std::path::Path, name: &str, record: Option<&str>) -> std::path::PathBuf {
    let src = dir.join(name);
    std::fs::create_dir_all(src.join("cold/2026-08")).unwrap();
    std::fs::write(src.join("cold/2026-08/2026-08-12.md"), "- [2026-08-12T04:00:00.000Z] [-] 中午的笔记\n").unwrap();
    if let Some(r) = record {
        std::fs::write(src.join("memlayers.json"), r).unwrap();
    }
    src
}

/// Second newcomer test: only a new root takes the source's zone, and a refused import leaves
/// no root behind (it used to create the root and record this machine's zone first).
#[test]
fn only_a_new_root_takes_the_source_zone_and_a_refused_import_leaves_no_root() {
    let dir = tempfile::tempdir().unwrap();
    // A zone no CI machine runs in, so "not adopted" is visible whatever this machine's is.
    let src = dsh_source(dir.path(), "src", Some("{\"timezone\":\"Pacific/Chatham\"}\n"));
    let s = src.to_str().unwrap();
    // Refused before anything is written: bad format, missing folder, dsh without cold/.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for (args, field) in [
        (vec!["import", s, "--format", "DSH"], "format"),
        (vec!["import", "/nonexistent/archive"], "path"),
        (vec!["import", empty.to_str().unwrap(), "--format", "dsh"], "path"),
    ] {
        let root = dir.path().join("r-refused");
        let mut all = vec!["--data-root", root.to_str().unwrap()];
        all.extend(args);
        let out = ml(&all);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(field), "{}", text(&out.stderr));
        assert!(!root.exists(), "a refused import created {}", root.display());
    }
    // A root that holds day files but no zone record (a plugin root) keeps the configured zone.
    let plugin = dir.path().join("plugin");
    std::fs::create_dir_all(plugin.join("cold/2026-08")).unwrap();
    std::fs::write(plugin.join("cold/2026-08/2026-08-11.md"), "- [2026-08-11T04:00:00.000Z] [-] 已有的条目\n").unwrap();
    assert!(ml(&["--data-root", plugin.to_str().unwrap(), "import", s]).status.success());
    let zone = std::fs::read_to_string(plugin.join("memlayers.json")).unwrap();
    assert!(!zone.contains("Chatham"), "{zone}");
    // A root whose record cannot be read keeps it as it is.
    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("memlayers.json"), "{\"timezone\":\"Europe/Berlin\",}\n").unwrap();
    assert!(ml(&["--data-root", bad.to_str().unwrap(), "import", s]).status.success());
    assert_eq!(std::fs::read_to_string(bad.join("memlayers.json")).unwrap(), "{\"timezone\":\"Europe/Berlin\",}\n");
    // A new root takes it.
    let fresh = dir.path().join("fresh");
    assert!(ml(&["--data-root", fresh.to_str().unwrap(), "import", s]).status.success());
    assert_eq!(
        std::fs::read_to_string(fresh.join("memlayers.json")).unwrap().trim(),
        "{\"timezone\":\"Pacific/Chatham\"}"
    );
    // A source record that cannot be read is named on stderr.
    let unreadable = dsh_source(dir.path(), "src-bad", Some("not json {"));
    let out = ml(&["--data-root", dir.path().join("r2").to_str().unwrap(), "import", unreadable.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("src-bad/memlayers.json: not JSON")
            && err.contains("zone the source's files are dated in is unknown"),
        "{err}"
    );
}
