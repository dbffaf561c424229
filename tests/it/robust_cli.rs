//! Bad input at the command line's edges: each case exits with the code of its kind (2 bad
//! input, 0 ok) and says on stderr what was wrong, naming the argument or stream.

use std::io::Write;
use std::process::{Output, Stdio};

fn ml(args: &[&str]) -> Output {
    crate::common::cli().args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `hot-set -` with bytes that are not UTF-8 on stdin: the caller's input is wrong, so exit 2
/// naming stdin and UTF-8 (it exited 1 as an I/O failure), and hot.md is not created.
#[test]
fn hot_set_from_stdin_with_bad_utf8_exits_2_naming_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let mut child = crate::common::cli()
        .args(["--data-root", root, "--tz", "Asia/Shanghai", "hot-set", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // "正" is E6 AD A3; cut after two of its three bytes, then a lone 0xFF.
    child.stdin.take().unwrap().write_all(b"ok \xE6\xAD then \xFF").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid stdin: standard input is not valid UTF-8"), "{err}");
    assert!(!dir.path().join("hot.md").exists());
}

/// HOME unset, no DSH_HOME, no --data-root, no config dataRoot: the default root
/// `~/.dsh/dsh-memory-layers` has no place. Every command that needs a root exits 2 naming
/// `data-root` and what to set; nothing is created in the working directory (it made
/// `./.dsh/dsh-memory-layers` there). Run with the server lookup on (`auto`, the default) and
/// off: both paths resolve the root.
#[test]
fn home_unset_without_a_named_root_exits_2_naming_what_to_set() {
    let cwd = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    for mode in ["auto", "off"] {
        for args in [vec!["recent"], vec!["write", "买了牛奶"], vec!["hot-get"], vec!["check"]] {
            let out = crate::common::cli()
                .args(&args)
                .env_remove("HOME")
                .env_remove("DSH_HOME")
                .env("MEMLAYERS_SERVER", mode)
                .env("XDG_RUNTIME_DIR", runtime.path())
                .current_dir(cwd.path())
                .output()
                .unwrap();
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{mode} {args:?}: {err}");
            assert!(err.starts_with("error: invalid data-root: HOME is not set"), "{mode} {args:?}: {err}");
            assert!(err.contains("pass --data-root DIR, set DSH_HOME"), "{err}");
            assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0, "{mode} {args:?} created files in the cwd");
        }
    }
    // A root named another way still works without HOME.
    let dsh = tempfile::tempdir().unwrap();
    let out = crate::common::cli()
        .args(["--tz", "Asia/Shanghai", "write", "买了牛奶"])
        .env_remove("HOME")
        .env("DSH_HOME", dsh.path())
        .current_dir(cwd.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dsh.path().join("dsh-memory-layers").join("cold").is_dir());
}

/// A config value that falls back to its default is warned about once per command. A query
/// loads the config twice when the server lookup is on (`auto`: once to find a server, once to
/// run in-process when none answered) and printed each warning twice.
#[test]
fn a_config_warning_is_printed_once_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.json");
    std::fs::write(&cfg, r#"{"hotLimit": 5, "timezone": "Asia/Shanghai"}"#).unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let warning = "hotLimit: 5 is not an integer in 100–20000; using the default 600";
    for mode in ["auto", "off"] {
        for cmd in [&["recent"][..], &["recall", "牛奶"], &["write", "买了牛奶"], &["time-window", "昨天"]] {
            let out = crate::common::cli()
                .args(["--data-root", root.to_str().unwrap(), "--config", cfg.to_str().unwrap()])
                .args(cmd)
                .env("MEMLAYERS_SERVER", mode)
                .env("XDG_RUNTIME_DIR", runtime.path())
                .output()
                .unwrap();
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{mode} {cmd:?}: {err}");
            assert_eq!(err.matches(warning).count(), 1, "{mode} {cmd:?}: {err}");
        }
    }
}

/// An archive file named after a day that does not exist (2026 is not a leap year, so
/// 2026-02-29 and 2026-02-30 have no day) is skipped with the reason "invalid date", not "no
/// date"; its neighbours are imported and a name with no date keeps its own reason.
#[test]
fn import_skips_a_file_named_after_a_day_that_does_not_exist_as_an_invalid_date() {
    let src = tempfile::tempdir().unwrap();
    for name in ["2026-02-28.md", "2026-02-29.md", "2026-02-30.md", "notes.md"] {
        std::fs::write(src.path().join(name), format!("- 记在 {name}\n")).unwrap();
    }
    let root = tempfile::tempdir().unwrap();
    let out = ml(&[
        "--data-root",
        root.path().to_str().unwrap(),
        "--tz",
        "Asia/Shanghai",
        "--json",
        "import",
        src.path().to_str().unwrap(),
        "--format",
        "daily-notes",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let invalid = "invalid date at the start of the file name (no such day)";
    assert_eq!(
        v["scan"]["skipped"],
        serde_json::json!([
            {"relPath": "2026-02-29.md", "reason": invalid},
            {"relPath": "2026-02-30.md", "reason": invalid},
            {"relPath": "notes.md", "reason": "no date at the start of the file name"},
        ]),
        "{v}"
    );
    assert_eq!(v["scan"]["skippedByReason"][invalid], 2, "{v}");
    assert_eq!(v["scan"]["days"], 1, "{v}");
}

/// `write --tag ""` and `by-tag ""` agree. Decision: an empty tag means untagged (`-`) on
/// both sides, because the plugin's `mem_write` stores a missing or empty tag as `-`
/// (docs/plugin-compatibility.md: "tag 缺省为 -"), so `by-tag ""` (it exited 2) now finds what
/// `write --tag ""` wrote, the same entries as `by-tag -`.
#[test]
fn an_empty_tag_means_untagged_for_write_and_by_tag_alike() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let common = ["--data-root", root, "--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z", "--json"];
    for (body, tag) in
        [("买了牛奶", Some("")), ("修好了自行车", None), ("周末去看海", Some("计划")), ("剪了头发", Some(" [ ] "))]
    {
        let mut args = common.to_vec();
        args.extend(["write", body]);
        if let Some(t) = tag {
            args.extend(["--tag", t]);
        }
        let out = ml(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["tag"], if tag == Some("计划") { "计划" } else { "-" }, "{v}");
    }
    let contents = |tag: &str| {
        let out = ml(&[&common[..], &["by-tag", tag]].concat());
        assert_eq!(out.status.code(), Some(0), "by-tag {tag:?}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut c: Vec<String> =
            v["items"].as_array().unwrap().iter().map(|i| i["content"].as_str().unwrap().to_string()).collect();
        c.sort();
        c
    };
    let untagged = ["修好了自行车", "买了牛奶", "剪了头发"].map(String::from).to_vec();
    let mut want = untagged.clone();
    want.sort();
    assert_eq!(contents(""), want);
    assert_eq!(contents("-"), want);
    assert_eq!(contents(" "), want);
    assert_eq!(contents("计划"), vec!["周末去看海".to_string()]);
}

/// `time-window ""` (or blank): nothing to parse is a usage error, exit 2 naming the argument
/// `text` (it printed a null window and exited 0).
#[test]
fn an_empty_time_expression_exits_2_naming_the_argument() {
    for arg in ["", "  \t"] {
        let out = ml(&["--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z", "time-window", arg]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{arg:?}: {err}");
        assert!(err.starts_with("error: invalid text: is empty"), "{arg:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    // A text with no time words is not empty: exit 0, a null window, the text as rest.
    let out = ml(&["--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z", "--json", "time-window", "火锅"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "{\"rest\":\"火锅\",\"window\":null}\n");
}

/// A question of stop words only (no time words) has nothing to search: exit 0 with an empty
/// result, as a question that matches nothing, and a warning on stderr that no content word
/// remained (it was silent). A question with a content word gives no such warning.
#[test]
fn a_question_of_stop_words_only_says_no_content_word_remained() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let common = ["--data-root", root, "--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z", "--json"];
    let out = ml(&[&common[..], &["write", "what is the plan: 吃火锅"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for q in ["what is the", "的了吗"] {
        let out = ml(&[&common[..], &["retrieve", q]].concat());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{q}: {err}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((v["matched"].as_i64(), v["returned"].as_i64()), (Some(0), Some(0)), "{q}: {v}");
        assert_eq!(
            err,
            format!(
                "memlayers: no content word remained in the question {q:?} after removing stop words: nothing to \
                 search (ask with a content word, or give from/to to list a window)\n"
            ),
            "{q}"
        );
    }
    let out = ml(&[&common[..], &["retrieve", "what is the plan"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["returned"], 1, "{v}");
    assert_eq!(text(&out.stderr), "");
}

/// `write` puts the entry in its day file first, without waiting for the index: another
/// connection holding SQLite's write lock (a `sqlite3` shell in a transaction) made it wait
/// the 10 s busy timeout before appending. The entry must be in the file while the writer is
/// still running (it then waits to mirror the day: that part may wait, and fail with a
/// warning); once the lock is released the writer finishes, exit 0, and a query finds it.
#[test]
fn write_appends_to_the_file_while_another_connection_holds_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let common = ["--data-root", root, "--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z", "--json"];
    assert_eq!(ml(&[&common[..], &["write", "买了牛奶"]].concat()).status.code(), Some(0));
    let day = dir.path().join("cold/2026-10/2026-10-21.md");
    let holder = rusqlite::Connection::open(dir.path().join("index.sqlite3")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let start = std::time::Instant::now();
    let mut child = crate::common::cli()
        .args(common)
        .args(["write", "修好了自行车"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Well under the busy timeout (10 s): the append must not be waiting for the lock.
    let mut seen = false;
    while start.elapsed() < std::time::Duration::from_secs(8) {
        if std::fs::read_to_string(&day).unwrap().contains("] [-] 修好了自行车\n") {
            seen = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let running = child.try_wait().unwrap().is_none();
    holder.execute_batch("COMMIT").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(seen, "the entry was not in {} within 8 s: {}", day.display(), text(&out.stderr));
    assert!(running, "the writer had finished before the lock was released");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["added"], true, "{v}");
    let out = ml(&[&common[..], &["recall", "自行车"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["items"][0]["content"], "修好了自行车", "{v}");
}

/// A corrupt usage.json found within `usageThrottleMs` of the last usage.json write (every
/// call here pins the same instant, so the throttle never passes): its bytes are kept aside
/// as `usage.json.corrupt-0`, byte for byte, with a warning naming it, and usage.json is
/// rewritten at once as an empty ledger (docs/layers.md). It stayed in place until the next
/// write past the throttle; meanwhile a rebuilt index read it again and kept a second copy.
#[test]
fn a_corrupt_usage_json_within_the_throttle_is_kept_aside_and_replaced_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let common = ["--data-root", root, "--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z", "--json"];
    assert_eq!(ml(&[&common[..], &["write", "周末想去看海"]].concat()).status.code(), Some(0));
    // The first hit writes usage.json (no earlier write: the throttle allows it).
    let out = ml(&[&common[..], &["recall", "看海"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let usage = dir.path().join("usage.json");
    assert!(std::fs::read_to_string(&usage).unwrap().contains("\"hits\": 1"));
    let junk = "{ \"version\": 1, \"entries\": { oops";
    std::fs::write(&usage, junk).unwrap();
    let out = ml(&[&common[..], &["recent"]].concat());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let aside = dir.path().join("usage.json.corrupt-0");
    assert!(
        err.contains(&format!("the unreadable file was moved to {} and usage.json started over", aside.display())),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), junk);
    assert_eq!(std::fs::read_to_string(&usage).unwrap(), "{\n  \"version\": 1,\n  \"entries\": {}\n}\n");
    // Later calls, and a rebuilt index, find a readable ledger: no second copy, no warning.
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(dir.path().join(f));
    }
    let out = ml(&[&common[..], &["recent"]].concat());
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(0), String::new()));
    assert!(!dir.path().join("usage.json.corrupt-1").exists());
}

/// A data root under a regular file (`notes.txt/sub`) is bad input: exit 2 naming the data
/// root, nothing created.
#[test]
fn a_data_root_under_a_file_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let root = dir.path().join("notes.txt/sub");
    let o = ml(&["--data-root", root.to_str().unwrap(), "write", "一条"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("data-root") && err.contains("a part of its path is a file"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "x");
}
