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

/// One listing order everywhere: by instant, newest first, equal instants the later line first.
/// The 10-21 file (Asia/Shanghai) has a line inserted by hand with an earlier time (08:00 local)
/// between later ones, and two lines at the same instant; the order below is the lines sorted
/// by their written timestamps by hand. Before, `recent` and `by-date` listed the 10-21 file
/// bottom-up (九点同刻, 九点, 八点补记, 十点) while `by-tag` sorted by time.
#[test]
fn recent_by_date_and_by_tag_list_in_one_order() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-20.md", "- [2026-10-20T12:00:00.000Z] [t] 前一天\n");
    put(
        dir.path(),
        "cold/2026-10/2026-10-21.md",
        "- [2026-10-21T02:00:00.000Z] [t] 十点\n\
         - [2026-10-21T00:00:00.000Z] [t] 八点补记\n\
         - [2026-10-21T01:00:00.000Z] [t] 九点\n\
         - [2026-10-21T01:00:00.000Z] [t] 九点同刻\n",
    );
    let m = crate::common::open_at(dir.path(), "2026-10-21T12:00:00Z");
    let want = ["十点", "九点同刻", "九点", "八点补记", "前一天"];
    let texts = |r: memlayers::query::ListResult| r.items.into_iter().map(|i| i.content).collect::<Vec<_>>();
    assert_eq!(texts(m.recent(Some(2), None).unwrap()), want);
    assert_eq!(texts(m.by_date("2026-10-20", "2026-10-21", None).unwrap()), want);
    assert_eq!(texts(m.by_tag("t", None).unwrap()), want);
    // A limit cuts the same order.
    assert_eq!(texts(m.recent(Some(2), Some(2)).unwrap()), want[..2]);
    assert_eq!(texts(m.by_date("2026-10-20", "2026-10-21", Some(4)).unwrap()), want[..4]);
    assert_eq!(texts(m.by_tag("t", Some(3)).unwrap()), want[..3]);
}

/// A bullet typed by hand without a timestamp is a memory of its file's day: found by recall,
/// listed by date, tag `-`, its time unknown (`tsKnown: false`, `ts` the day's start: 10-21
/// 00:00 in Shanghai is 10-20 16:00 UTC). Prose is kept and reported by `check`; a write to
/// that day appends its line and leaves the bullet's bytes as they were.
#[test]
fn a_hand_written_bullet_is_a_memory() {
    let dir = tempfile::tempdir().unwrap();
    let before = "# 2026-10-21\n- [2026-10-21T02:00:00.000Z] [跑步] 晨跑五公里\n- 买了新的跑鞋\n随手记：今天下雨\n";
    put(dir.path(), "cold/2026-10/2026-10-21.md", before);
    let m = crate::common::open_at(dir.path(), "2026-10-21T12:00:00Z");
    let r = m.recall("跑鞋", None, None).unwrap();
    assert_eq!(r.items.len(), 1, "{r:?}");
    let i = &r.items[0];
    assert_eq!(
        (i.content.as_str(), i.tag.as_str(), i.date.as_str(), i.ts.as_str(), i.ts_known),
        ("买了新的跑鞋", "-", "2026-10-21", "2026-10-20T16:00:00.000Z", false)
    );
    let day = m.by_date("2026-10-21", "2026-10-21", None).unwrap();
    let flags: Vec<(String, bool)> = day.items.iter().map(|i| (i.content.clone(), i.ts_known)).collect();
    assert_eq!(flags, [("晨跑五公里".to_string(), true), ("买了新的跑鞋".to_string(), false)]);
    assert_eq!(m.by_tag("-", None).unwrap().items[0].content, "买了新的跑鞋");
    let chk = m.check().unwrap();
    assert!(chk.malformed.is_empty(), "{chk:?}");
    let prose: Vec<(&str, usize, usize)> = chk.prose.iter().map(|p| (p.file.as_str(), p.first_line, p.lines)).collect();
    assert_eq!(prose, [("cold/2026-10/2026-10-21.md", 4, 1)]);
    assert!(chk.clean && chk.all_read, "{chk:?}");
    // A write that day appends; the bullet is not given a timestamp.
    let w = m
        .with_now(at("2026-10-21T05:00:00Z"))
        .write(&memlayers::layers::cold::WriteArgs {
            text: "下午游泳".into(),
            tag: None,
            important: false,
            source: None,
        })
        .unwrap();
    assert_eq!(w.day_count, 3, "the entry, the bullet and the new line");
    let after = std::fs::read_to_string(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap();
    assert_eq!(after, format!("{before}- [2026-10-21T05:00:00.000Z] [-] 下午游泳\n"));
    let m = crate::common::open_at(dir.path(), "2026-10-21T12:00:00Z");
    assert_eq!(m.recall("跑鞋", None, None).unwrap().items[0].content, "买了新的跑鞋");
    assert!(m.check().unwrap().clean);
    // Through the CLI: flagged in the JSON of the undated item only.
    let cfg = config_file(dir.path(), "");
    let v = json(&run(dir.path(), &cfg, "2026-10-21T12:00:00Z", &["recent", "--days", "1"]));
    let known: Vec<(String, Option<bool>)> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["content"].as_str().unwrap().to_string(), i.get("tsKnown").and_then(|b| b.as_bool())))
        .collect();
    assert_eq!(
        known,
        [("下午游泳".to_string(), None), ("晨跑五公里".to_string(), None), ("买了新的跑鞋".to_string(), Some(false))]
    );
}

/// A hit from a clock years ahead (`--now 2035-…`) is recorded at the system clock's instant,
/// so it does not stop decay; and a ledger already holding such an instant (written before this
/// rule, or by hand) is brought back to the system clock by the next call that reads it.
#[test]
fn a_future_clock_does_not_freeze_decay() {
    #[allow(clippy::disallowed_methods)] // the test compares the ledger with the real clock
    let real = chrono::Utc::now;
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T02:00:00.000Z] [跑步] 买了新的跑鞋\n");
    let anchors = |m: &memlayers::Memory| -> (String, String) {
        m.conn()
            .unwrap()
            .query_row("SELECT last_hit_at, last_decay_at FROM usage", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
    };
    let t0 = real();
    let m = crate::common::open_at(dir.path(), "2035-01-01T00:00:00Z");
    assert_eq!(m.recall("跑鞋", None, None).unwrap().items.len(), 1);
    let t1 = real();
    let (hit, decay) = anchors(&m);
    for t in [&hit, &decay] {
        let t = at(t);
        assert!(t >= t0 - chrono::Duration::milliseconds(1) && t <= t1, "{t} not within the real clock's [{t0}, {t1}]");
    }
    drop(m);
    // A ledger frozen by an older memlayers: its instants in 2035.
    let key = memlayers::layers::usage::key("买了新的跑鞋");
    let frozen = serde_json::json!({ key.clone(): {
        "hits": 1, "firstHitAt": "2035-01-01T00:00:00.000Z", "lastHitAt": "2035-01-01T00:00:00.000Z",
        "weight": 62, "lastDecayAt": "2035-01-01T00:00:00.000Z"
    }});
    std::fs::write(dir.path().join("usage.json"), frozen.to_string()).unwrap();
    let t0 = real();
    let m = memlayers::Memory::open(dir.path(), config()).unwrap();
    assert_eq!(m.recall("跑鞋", None, None).unwrap().items.len(), 1);
    let t1 = real();
    let (hit, decay) = anchors(&m);
    for t in [&hit, &decay] {
        let t = at(t);
        assert!(t >= t0 - chrono::Duration::milliseconds(1) && t <= t1, "{t} not within [{t0}, {t1}]");
    }
}

/// The first write into a new data root and an import into one report the zone they
/// recorded (JSON and a stderr line); later calls do not.
#[test]
fn a_new_roots_zone_is_reported_by_its_first_write_and_import() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("w");
    let write = |text: &str| {
        cli()
            .args(["--tz", "Asia/Shanghai", "--json", "--now", "2026-10-21T04:00:00Z", "--data-root"])
            .arg(&root)
            .args(["write", text])
            .output()
            .unwrap()
    };
    let o = write("第一条");
    assert_eq!(json(&o)["zoneRecorded"], "Asia/Shanghai");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("recorded Asia/Shanghai as the zone of data root") && err.contains("cannot be changed in place"),
        "{err}"
    );
    let o = write("第二条");
    assert!(json(&o).get("zoneRecorded").is_none());
    assert!(!String::from_utf8_lossy(&o.stderr).contains("recorded"), "{}", String::from_utf8_lossy(&o.stderr));

    // A daily-notes archive imported into a new root without --tz on a UTC machine.
    let src = dir.path().join("notes");
    put(&src, "2026-10-21.md", "- 买了新的跑鞋\n");
    let root = dir.path().join("i");
    let import = || {
        cli()
            .env("TZ", "UTC")
            .args(["--json", "--data-root"])
            .arg(&root)
            .args(["import"])
            .arg(&src)
            .args(["--format", "daily-notes"])
            .output()
            .unwrap()
    };
    let o = import();
    let v = json(&o);
    assert_eq!((v["zone"].as_str(), v["zoneRecorded"].as_bool()), (Some("UTC"), Some(true)), "{v}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("recorded UTC as the zone"));
    let v = json(&import());
    assert_eq!((v["zone"].as_str(), v.get("zoneRecorded")), (Some("UTC"), None), "{v}");
}

/// True when this test process runs as root, which reads any file whatever its mode: the
/// owner of a file it creates is uid 0.
fn running_as_root(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).unwrap().uid() == 0
}

/// Gives `path` and everything under it to `uid` (the child's user), recursively.
fn chown_tree(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
    if path.is_dir() {
        for e in std::fs::read_dir(path).unwrap() {
            chown_tree(&e.unwrap().path(), uid);
        }
    }
}

/// One day file that cannot be read (mode 000, read by a user other than its owner: this test
/// runs the CLI as `nobody` through `setpriv` when it runs as root, whom no mode stops) leaves
/// every query answering from the other files, exit 0, with a warning naming it; `check`
/// lists it; once readable again it is indexed again. Before, recall, recent, stats and check
/// exited 1 (`Permission denied`).
#[test]
fn an_unreadable_day_file_leaves_the_rest_answering() {
    use std::os::unix::fs::PermissionsExt;
    const NOBODY: u32 = 65_534;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    put(&root, "cold/2026-10/2026-10-20.md", "- [2026-10-20T02:00:00.000Z] [t] 乌龙茶\n");
    put(&root, "cold/2026-10/2026-10-21.md", "- [2026-10-21T02:00:00.000Z] [t] 买了新的跑鞋\n");
    let cfg = config_file(dir.path(), "");
    let as_root = running_as_root(dir.path());
    if as_root {
        chown_tree(dir.path(), NOBODY);
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let call = |args: &[&str]| -> Output {
        let mut c = if as_root {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(cli().get_program());
            c.env("MEMLAYERS_SERVER", "off").env("HOME", dir.path());
            c
        } else {
            cli()
        };
        c.arg("--data-root").arg(&root).arg("--config").arg(&cfg);
        c.args(["--now", "2026-10-21T12:00:00Z", "--json"]).args(args).output().unwrap()
    };
    // The file is unreadable before the index first reads it: a chmod alone changes only the
    // file's ctime, which the portable fallbacks (macOS, Windows) do not compare, so a file
    // indexed while readable would keep answering from the index there.
    let bad = root.join("cold/2026-10/2026-10-20.md");
    if as_root {
        std::os::unix::fs::chown(&bad, Some(0), Some(0)).unwrap();
    }
    std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o000)).unwrap();
    let named = |o: &Output| {
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("cold/2026-10/2026-10-20.md: cannot be read"), "{err}");
    };
    let o = call(&["recall", "乌龙茶"]);
    assert!(contents(&json(&o)).is_empty());
    named(&o);
    let o = call(&["recall", "跑鞋"]);
    assert_eq!(contents(&json(&o)), ["买了新的跑鞋"]);
    named(&o);
    let o = call(&["recent", "--days", "2"]);
    assert_eq!(contents(&json(&o)), ["买了新的跑鞋"]);
    named(&o);
    assert_eq!(json(&call(&["by-date", "2026-10-20", "2026-10-21"]))["items"].as_array().unwrap().len(), 1);
    json(&call(&["stats"]));
    let chk = json(&call(&["check"]));
    let listed = chk["unreadable"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{chk}");
    assert!(listed[0].as_str().unwrap().starts_with("cold/2026-10/2026-10-20.md: "), "{chk}");
    assert_eq!(chk["allRead"], false);
    // Readable again: indexed again at the next query.
    std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(contents(&json(&call(&["recall", "乌龙茶"]))), ["乌龙茶"]);
}

/// An import of a dsh root whose day file holds a hand-written bullet says it did not import
/// it (it would need an invented time) instead of dropping it silently; its dated entry is
/// imported.
#[test]
fn a_dsh_import_names_the_bullets_it_cannot_date() {
    let src = tempfile::tempdir().unwrap();
    put(src.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T02:00:00.000Z] [跑步] 晨跑\n- 买了新的跑鞋\n");
    let dir = tempfile::tempdir().unwrap();
    let m = crate::common::open_at(dir.path(), "2026-10-21T12:00:00Z");
    let rep = m.import(src.path(), Some(memlayers::import::Format::Dsh), &mut |_, _| {}).unwrap();
    assert_eq!(rep.entries_added, 1);
    let v = serde_json::to_value(&rep).unwrap();
    let warned = v["scan"].to_string();
    assert!(warned.contains("bullet without a timestamp not imported") && warned.contains("\"line\":2"), "{v}");
}
