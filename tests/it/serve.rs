//! `memlayers serve`: CLI queries answered by a resident server over the data
//! root's Unix socket, with the same output as an in-process call, file changes seen through
//! the server's watch, and every call it must not answer run in-process. Real child
//! processes, a real socket.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_memlayers")
}

/// A CLI call with `MEMLAYERS_SERVER` set to `mode`.
fn call(mode: &str, args: &[&str]) -> Output {
    Command::new(bin()).env("MEMLAYERS_SERVER", mode).args(args).output().unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn contents(v: &serde_json::Value) -> Vec<String> {
    v["items"].as_array().unwrap().iter().map(|i| i["content"].as_str().unwrap().to_string()).collect()
}

/// A running `memlayers serve`, killed when dropped.
struct Server {
    child: Child,
}

impl Server {
    fn start(root: &Path, extra: &[&str]) -> Server {
        let child = Command::new(bin())
            .args(["--data-root", root.to_str().unwrap(), "serve"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let s = Server { child };
        // Ready when the socket accepts a connection (the server binds it after opening).
        let sock = root.join("memlayers.sock");
        let t = Instant::now();
        while std::os::unix::net::UnixStream::connect(&sock).is_err() {
            assert!(t.elapsed() < Duration::from_secs(60), "the server never listened on {}", sock.display());
            std::thread::sleep(Duration::from_millis(20));
        }
        s
    }

    fn signal(&self, sig: &str) {
        let st = Command::new("kill").args([sig, &self.child.id().to_string()]).status().unwrap();
        assert!(st.success());
    }

    /// Waits (at most 60 s) for the server to exit; its exit code.
    fn wait(&mut self) -> Option<i32> {
        let t = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return st.code();
            }
            assert!(t.elapsed() < Duration::from_secs(60), "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A data root with two entries on 2026-11-20 (zone UTC, recorded by the first write).
fn root_with_entries() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let r = root.to_str().unwrap();
    for (text, tag, now) in
        [("买了牛奶和面包", "生活", "2026-11-20T09:00:00Z"), ("晚饭吃了火锅", "生活", "2026-11-20T12:00:00Z")]
    {
        let o = call("off", &["--data-root", r, "--tz", "UTC", "--now", now, "write", text, "--tag", tag]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    (dir, root)
}

#[test]
fn a_served_query_answers_as_the_cli_does_and_sees_a_hand_edit() {
    let (_dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    let _server = Server::start(&root, &[]);
    let served = json(&call("require", &["--json", "--data-root", r, "recall", "牛奶"]));
    assert_eq!(contents(&served), ["买了牛奶和面包"]);
    let window = ["--json", "--data-root", r, "retrieve", "火锅", "--from", "2026-11-20", "--to", "2026-11-20"];
    let served = json(&call("require", &window));
    let local = json(&call("off", &window));
    assert_eq!(contents(&served), ["晚饭吃了火锅"]);
    assert_eq!(served["items"][0]["id"], local["items"][0]["id"]);
    assert_eq!(served["matched"], 1);
    // A line appended by hand (as `>>` would) is seen by the next served call.
    let day = root.join("cold/2026-11/2026-11-20.md");
    let mut text = std::fs::read_to_string(&day).unwrap();
    text.push_str("- [2026-11-20T13:00:00.000Z] [生活] 下午去了博物馆\n");
    std::fs::write(&day, text).unwrap();
    let served = json(&call("require", &["--json", "--data-root", r, "recall", "博物馆"]));
    assert_eq!(contents(&served), ["下午去了博物馆"]);
    // A query's bad input is reported by the server exactly as in-process: exit 2, same text.
    let bad = ["--data-root", r, "recall", "牛奶", "--limit", "0"];
    let (s, l) = (call("require", &bad), call("off", &bad));
    assert_eq!(s.status.code(), Some(2));
    assert_eq!((s.status.code(), &s.stderr, &s.stdout), (l.status.code(), &l.stderr, &l.stdout));
}

/// A call's JSON without its items' scores, which the usage hit of the call before changes.
fn unscored(o: &Output) -> serde_json::Value {
    let mut v = json(o);
    for i in v["items"].as_array_mut().unwrap() {
        i.as_object_mut().unwrap().remove("score");
    }
    v
}

/// A call with `--now` is answered by the server with the clock pinned for that call alone:
/// the same output as in-process, and the next call without it reads the clock again.
#[test]
fn a_now_call_is_answered_by_the_server_at_its_instant() {
    let (_dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    let _server = Server::start(&root, &[]);
    // The root's zone is UTC (its entries were written with --tz UTC): 昨天 on 2026-11-21 is
    // 2026-11-20, the day of both entries; on 2026-11-25 it is 2026-11-24, a day without any.
    let yesterday = |now: &str| ["--json", "--data-root", r, "--now", now, "retrieve", "昨天 火锅"].map(String::from);
    let args = yesterday("2026-11-21T10:00:00Z");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (served, local) = (call("require", &args), call("off", &args));
    assert_eq!(contents(&json(&served)), ["晚饭吃了火锅"]);
    assert_eq!(unscored(&served), unscored(&local));
    let args = yesterday("2026-11-25T10:00:00Z");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let served = call("require", &args);
    assert_eq!(contents(&json(&served)), Vec::<String>::new());
    assert_eq!(unscored(&served), unscored(&call("off", &args)));
    // The option before the command, and `recent`, whose window is the pinned local dates.
    let recent = ["--json", "--now", "2026-11-20T23:00:00Z", "--data-root", r, "recent", "--days", "1"];
    let served = call("require", &recent);
    assert_eq!(contents(&json(&served)), ["晚饭吃了火锅", "买了牛奶和面包"]);
    assert_eq!(unscored(&served), unscored(&call("off", &recent)));
    // The pin ended with its call: without --now, 昨天 is the day before the real clock's
    // today, long after 2026-11-20.
    let o = call("require", &["--json", "--data-root", r, "retrieve", "昨天 火锅"]);
    assert_eq!(contents(&json(&o)), Vec::<String>::new());
    // A --now that does not parse: the server answers as the call in-process does, exit 2
    // naming the field.
    let bad = ["--data-root", r, "--now", "yesterday", "recall", "牛奶"];
    let (s, l) = (call("require", &bad), call("off", &bad));
    assert_eq!(s.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&s.stderr).contains("invalid now"), "{}", String::from_utf8_lossy(&s.stderr));
    assert_eq!((s.status.code(), &s.stderr, &s.stdout), (l.status.code(), &l.stderr, &l.stdout));
}

#[test]
fn calls_the_server_must_not_answer_run_in_process() {
    let (_dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    let _server = Server::start(&root, &[]);
    // Another zone changes what the call means: declined, then answered here.
    let tz = ["--json", "--data-root", r, "--tz", "Asia/Tokyo", "recall", "牛奶"];
    let o = call("require", &tz);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("declined: --tz differs"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(contents(&json(&call("auto", &tz))), ["买了牛奶和面包"]);
    // Writes are never forwarded: they run in-process in every mode, `require` included.
    let o = call("require", &["--data-root", r, "write", "在本进程写入"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The server sees the in-process write through its watch.
    assert_eq!(
        contents(&json(&call("require", &["--json", "--data-root", r, "recall", "在本进程写入"]))),
        ["在本进程写入"]
    );
    // A config file: the server answers calls naming the same file (a relative path is the
    // client's), and declines them once the file changed.
    let cfg = root.parent().unwrap().join("cfg.json");
    std::fs::write(&cfg, r#"{"hotLimit": 800}"#).unwrap();
    drop(_server);
    let _server = Server::start(&root, &["--config", cfg.to_str().unwrap()]);
    let hot = |mode: &str| {
        Command::new(bin())
            .env("MEMLAYERS_SERVER", mode)
            .current_dir(root.parent().unwrap())
            .args(["--json", "--data-root", r, "--config", "cfg.json", "hot-get"])
            .output()
            .unwrap()
    };
    assert_eq!(json(&hot("require"))["limit"], 800);
    std::fs::write(&cfg, r#"{"hotLimit": 900}"#).unwrap();
    let o = hot("require");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("changed since the server started"));
    assert_eq!(json(&hot("auto"))["limit"], 900);
}

#[test]
fn a_killed_servers_socket_falls_back_and_a_new_server_replaces_it() {
    let (_dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    let mut server = Server::start(&root, &[]);
    server.signal("-KILL");
    server.wait();
    assert!(root.join("memlayers.sock").exists(), "SIGKILL leaves the socket behind");
    let q = ["--json", "--data-root", r, "recall", "火锅"];
    assert_eq!(contents(&json(&call("auto", &q))), ["晚饭吃了火锅"]);
    let o = call("require", &q);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no server at"));
    let _again = Server::start(&root, &[]);
    assert_eq!(contents(&json(&call("require", &q))), ["晚饭吃了火锅"]);
}

#[test]
fn one_server_per_root_and_it_leaves_no_socket_on_sigterm_or_idle_exit() {
    let (_dir, root) = root_with_entries();
    let mut first = Server::start(&root, &[]);
    let second = Command::new(bin()).args(["--data-root", root.to_str().unwrap(), "serve"]).output().unwrap();
    assert_eq!(second.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&second.stderr).contains("a server already answers"));
    first.signal("-TERM");
    assert_eq!(first.wait(), Some(0));
    assert!(!root.join("memlayers.sock").exists());
    let mut idle = Server::start(&root, &["--idle-exit", "1"]);
    assert_eq!(idle.wait(), Some(0));
    assert!(!root.join("memlayers.sock").exists());
    // A server's clock is the clock: --now is refused.
    let r = root.to_str().unwrap();
    let o = Command::new(bin()).args(["--data-root", r, "--now", "2026-11-29T12:00:00Z", "serve"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid now"), "{}", String::from_utf8_lossy(&o.stderr));
    // A file of the socket's name that is not a socket is not deleted.
    std::fs::write(root.join("memlayers.sock"), "mine").unwrap();
    let o = Command::new(bin()).args(["--data-root", r, "serve"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a socket"));
    assert_eq!(std::fs::read_to_string(root.join("memlayers.sock")).unwrap(), "mine");
}

/// The pids of `memlayers … serve` processes whose command line names `root` (Linux /proc).
#[cfg(target_os = "linux")]
fn servers_of(root: &Path) -> Vec<u32> {
    let want = root.to_str().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args: Vec<&[u8]> = cmd.split(|b| *b == 0).collect();
            args.contains(&want.as_bytes()) && args.contains(&&b"serve"[..])
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn spawn_mode_starts_a_server_in_the_background_for_the_calls_that_follow() {
    let (_dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    let q = ["--json", "--data-root", r, "recall", "牛奶"];
    // No server yet: this call answers in-process and starts one.
    assert_eq!(contents(&json(&call("spawn", &q))), ["买了牛奶和面包"]);
    let sock = root.join("memlayers.sock");
    let t = Instant::now();
    while std::os::unix::net::UnixStream::connect(&sock).is_err() {
        assert!(t.elapsed() < Duration::from_secs(60), "no server was started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pids = servers_of(&root);
    assert_eq!(pids.len(), 1, "exactly one server: {pids:?}");
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", pids[0])).unwrap();
    assert!(String::from_utf8_lossy(&cmdline).contains("--idle-exit\u{0}600"));
    // The next calls are answered by it; a second spawn-mode call starts no other server.
    assert_eq!(contents(&json(&call("require", &q))), ["买了牛奶和面包"]);
    assert_eq!(contents(&json(&call("spawn", &q))), ["买了牛奶和面包"]);
    assert_eq!(servers_of(&root), pids);
    // Stop it as a user would; it leaves no socket.
    assert!(Command::new("kill").args(["-TERM", &pids[0].to_string()]).status().unwrap().success());
    let t = Instant::now();
    while !servers_of(&root).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(60), "the spawned server did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!sock.exists());
}

#[test]
fn a_call_naming_the_servers_zone_another_way_is_answered() {
    // The root's recorded zone is UTC (root_with_entries). Newcomer test: `serve --tz ZONE`
    // declined every call without --tz although the root is dated in that same zone.
    let (_dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    {
        let _server = Server::start(&root, &["--tz", "UTC"]);
        let o = call("require", &["--json", "--data-root", r, "recall", "牛奶"]);
        assert_eq!(contents(&json(&o)), ["买了牛奶和面包"]);
        // Another zone is still another call.
        let o = call("require", &["--json", "--data-root", r, "--tz", "Asia/Tokyo", "recall", "牛奶"]);
        assert_eq!(o.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&o.stderr).contains("declined: --tz differs"));
    }
    // A server without --tz answers in the recorded zone: a call with --tz UTC is the same call.
    let _server = Server::start(&root, &[]);
    let o = call("require", &["--json", "--data-root", r, "--tz", "UTC", "recall", "牛奶"]);
    assert_eq!(contents(&json(&o)), ["买了牛奶和面包"]);
}

/// A CLI call in the default mode: `MEMLAYERS_SERVER` unset.
#[cfg(target_os = "linux")]
fn call_default(args: &[&str]) -> Output {
    Command::new(bin()).env_remove("MEMLAYERS_SERVER").args(args).output().unwrap()
}

/// Kills (SIGKILL) every server of a data root when dropped, so that none a test started
/// outlives it, whatever the test's outcome.
#[cfg(target_os = "linux")]
struct Reap<'a>(&'a Path);

#[cfg(target_os = "linux")]
impl Drop for Reap<'_> {
    fn drop(&mut self) {
        for pid in servers_of(self.0) {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
    }
}

/// Waits (at most 60 s) until a server accepts connections on `root`'s socket.
#[cfg(target_os = "linux")]
fn wait_listening(root: &Path) {
    let sock = root.join("memlayers.sock");
    let t = Instant::now();
    while std::os::unix::net::UnixStream::connect(&sock).is_err() {
        assert!(t.elapsed() < Duration::from_secs(60), "no server listened on {}", sock.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until no server of `root` runs; how long that took (panics after 60 s).
#[cfg(target_os = "linux")]
fn wait_gone(root: &Path) -> Duration {
    let t = Instant::now();
    while !servers_of(root).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(60), "the server of {} did not stop", root.display());
        std::thread::sleep(Duration::from_millis(20));
    }
    t.elapsed()
}

#[cfg(target_os = "linux")]
#[test]
fn by_default_a_query_starts_a_server_that_answers_the_next_calls() {
    let (_dir, root) = root_with_entries();
    let _reap = Reap(&root);
    let r = root.to_str().unwrap();
    let q = ["--json", "--data-root", r, "by-date", "2026-11-20", "2026-11-20"];
    assert!(!root.join("memlayers.sock").exists());
    // No server yet: the call answers in-process, and its process starts one before it exits.
    let first = call_default(&q);
    assert_eq!(contents(&json(&first)), ["晚饭吃了火锅", "买了牛奶和面包"]);
    let pids = servers_of(&root);
    assert_eq!(pids.len(), 1, "exactly one server: {pids:?}");
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", pids[0])).unwrap();
    assert!(String::from_utf8_lossy(&cmdline).ends_with("serve\u{0}--idle-exit\u{0}600\u{0}"));
    wait_listening(&root);
    // The next call is the server's: `require` succeeds, with the in-process call's exact output.
    let served = call("require", &q);
    assert_eq!(served.status.code(), Some(0), "{}", String::from_utf8_lossy(&served.stderr));
    assert_eq!((&served.stdout, &served.stderr), (&first.stdout, &first.stderr));
    let default_again = call_default(&q);
    assert_eq!(default_again.stdout, first.stdout);
    assert_eq!(servers_of(&root), pids, "a served call starts no other server");
    // Stopped as a user would: it exits 0 and leaves no socket.
    assert!(Command::new("kill").args(["-TERM", &pids[0].to_string()]).status().unwrap().success());
    wait_gone(&root);
    assert!(!root.join("memlayers.sock").exists());
}

#[cfg(target_os = "linux")]
#[test]
fn the_first_query_on_a_new_root_starts_a_server_and_a_write_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("new");
    let _reap = Reap(&root);
    let r = root.to_str().unwrap();
    let q = ["--json", "--data-root", r, "recall", "牛奶"];
    let first = call_default(&q);
    assert_eq!(first.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&first.stderr).contains("did not exist; created it"));
    assert!(root.is_dir());
    assert_eq!(servers_of(&root).len(), 1, "the call that created the root started a server");
    wait_listening(&root);
    let served = call("require", &q);
    assert_eq!(served.status.code(), Some(0), "{}", String::from_utf8_lossy(&served.stderr));
    assert_eq!(served.stdout, first.stdout);
    assert_eq!(json(&served)["items"], serde_json::json!([]));
    // A write is not a query: it starts none.
    let written = dir.path().join("written");
    let _reap_written = Reap(&written);
    let w = written.to_str().unwrap();
    let o = call_default(&["--data-root", w, "write", "只是写入"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(written.join("cold").is_dir());
    assert_eq!(servers_of(&written), Vec::<u32>::new());
    assert!(!written.join("memlayers.sock").exists());
    // A query with --now is a query: it starts one, which then answers calls pinned or not
    // (an agent's harness that pins the clock gets the server too).
    let o = call_default(&["--json", "--data-root", w, "--now", "2026-11-29T12:00:00Z", "recall", "写入"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(servers_of(&written).len(), 1);
    wait_listening(&written);
    let served = call("require", &["--json", "--data-root", w, "--now", "2026-11-29T12:00:00Z", "recall", "写入"]);
    assert_eq!(contents(&json(&served)), ["只是写入"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_spawned_server_stops_within_seconds_when_its_root_is_deleted_or_its_socket_removed() {
    let (dir, root) = root_with_entries();
    let _reap = Reap(&root);
    let r = root.to_str().unwrap();
    let q = ["--json", "--data-root", r, "recent", "--days", "3"];
    assert_eq!(call_default(&q).status.code(), Some(0));
    wait_listening(&root);
    assert_eq!(servers_of(&root).len(), 1);
    // Its socket removed: nothing can reach it, so it stops; the root stays as it was.
    std::fs::remove_file(root.join("memlayers.sock")).unwrap();
    let took = wait_gone(&root);
    assert!(took < Duration::from_secs(5), "stopped after {took:?}");
    assert!(root.join("cold/2026-11/2026-11-20.md").is_file());
    // Its root deleted (a temp folder cleaned up): it stops, and does not recreate the root.
    assert_eq!(call_default(&q).status.code(), Some(0));
    wait_listening(&root);
    assert_eq!(servers_of(&root).len(), 1);
    std::fs::remove_dir_all(&root).unwrap();
    let took = wait_gone(&root);
    assert!(took < Duration::from_secs(5), "stopped after {took:?}");
    assert!(!root.exists(), "the stopping server recreated its root");
    drop(dir);
}

#[cfg(target_os = "linux")]
#[test]
fn a_server_whose_index_is_deleted_declines_calls_and_stops() {
    // The README: "Delete `index.sqlite3` and the next command rebuilds it". A server kept the deleted file
    // open and answered from it, so the usage hits of its calls went nowhere (a newcomer's
    // test); it now declines and stops.
    let (_dir, root) = root_with_entries();
    let _reap = Reap(&root);
    let r = root.to_str().unwrap();
    let q = ["--json", "--data-root", r, "recall", "火锅"];
    assert_eq!(call_default(&q).status.code(), Some(0));
    wait_listening(&root);
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(root.join(f));
    }
    // `require`: the server declines, naming why.
    let o = call("require", &q);
    assert_ne!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the index was deleted or replaced"), "{err}");
    // The server stops within seconds; an in-process call answers from a new index.
    let took = wait_gone(&root);
    assert!(took < Duration::from_secs(5), "stopped after {took:?}");
    let o = call("off", &q);
    assert_eq!(contents(&json(&o)), ["晚饭吃了火锅"]);
    assert!(root.join("index.sqlite3").is_file());
}

#[cfg(target_os = "linux")]
#[test]
fn auto_and_off_never_start_a_server_and_an_unknown_value_reads_as_spawn() {
    let (_dir, root) = root_with_entries();
    let _reap = Reap(&root);
    let r = root.to_str().unwrap();
    let q = ["--json", "--data-root", r, "recall", "火锅"];
    for mode in ["auto", "off"] {
        assert_eq!(contents(&json(&call(mode, &q))), ["晚饭吃了火锅"]);
        assert_eq!(servers_of(&root), Vec::<u32>::new(), "{mode} started a server");
        assert!(!root.join("memlayers.sock").exists());
    }
    let fresh = root.parent().unwrap().join("fresh");
    let _reap_fresh = Reap(&fresh);
    let o = call("auto", &["--json", "--data-root", fresh.to_str().unwrap(), "recall", "火锅"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(fresh.is_dir());
    assert_eq!(servers_of(&fresh), Vec::<u32>::new(), "auto started a server on a new root");
    // A value that is none of the four warns, says what it reads as, and spawns.
    let o = call("yes-please", &q);
    assert_eq!(contents(&json(&o)), ["晚饭吃了火锅"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("MEMLAYERS_SERVER=\"yes-please\" is not spawn, auto, off or require; read as spawn, the default"),
        "{err}"
    );
    assert_eq!(servers_of(&root).len(), 1);
}

#[cfg(target_os = "linux")]
#[test]
fn a_default_call_whose_output_is_a_pipe_ends_while_its_server_stays() {
    use std::io::Read;
    let (_dir, root) = root_with_entries();
    let _reap = Reap(&root);
    let r = root.to_str().unwrap();
    let mut child = Command::new(bin())
        .env_remove("MEMLAYERS_SERVER")
        .args(["--json", "--data-root", r, "recall", "牛奶"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    // Both pipes are read to EOF on threads: EOF comes once every holder of their write ends is
    // gone, which a server that inherited them would delay by its whole life (600 s).
    let (tx, rx) = std::sync::mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        let (mut o, mut e) = (Vec::new(), Vec::new());
        out.read_to_end(&mut o).unwrap();
        err.read_to_end(&mut e).unwrap();
        let _ = tx.send((o, e));
    });
    let got = rx.recv_timeout(Duration::from_secs(5));
    let took = started.elapsed();
    let (stdout, _stderr) = got.unwrap_or_else(|_| panic!("no EOF on the call's pipes after {took:?}"));
    assert!(child.wait().unwrap().success());
    let v: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    assert_eq!(contents(&v), ["买了牛奶和面包"]);
    // ... and the server it started is still there, for the calls that follow.
    let pids = servers_of(&root);
    assert_eq!(pids.len(), 1, "{pids:?}");
    wait_listening(&root);
    assert_eq!(contents(&json(&call("require", &["--json", "--data-root", r, "recall", "牛奶"]))), ["买了牛奶和面包"]);
}

/// A call whose client gave up waiting (it closed its socket and ran the call itself) is not
/// counted again by the server: its reply cannot be written, so its usage hits are dropped.
#[test]
fn a_request_whose_client_gave_up_records_no_usage_hit() {
    use std::io::Write;
    let (_dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    let server = Server::start(&root, &[]);
    // The server is stopped while a client sends its request and goes away, as one would
    // after its 15 s wait.
    server.signal("-STOP");
    let req = serde_json::json!({
        "v": 1,
        "root": r,
        "argv": ["memlayers", "--json", "--data-root", r, "recall", "牛奶"],
        "cwd": std::env::current_dir().unwrap(),
    });
    let mut s = std::os::unix::net::UnixStream::connect(root.join("memlayers.sock")).unwrap();
    writeln!(s, "{req}").unwrap();
    drop(s);
    server.signal("-CONT");
    // Calls are answered in order: once this one is, the abandoned one was run before it.
    let o = call("require", &["--json", "--data-root", r, "recall", "火锅"]);
    assert_eq!(contents(&json(&o)), ["晚饭吃了火锅"]);
    let mut server = server;
    server.signal("-TERM");
    assert_eq!(server.wait(), Some(0));
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    let hits: Vec<(String, i64)> = c
        .prepare("SELECT text, hits FROM usage ORDER BY text")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(hits, [("晚饭吃了火锅".to_string(), 1)]);
}

/// A server whose `--config` file changed can answer no call any more (it declines them): it
/// stops within seconds, leaving no socket, so that the next call starts one with the new file.
#[test]
fn a_server_stops_when_its_config_file_changes() {
    let (dir, root) = root_with_entries();
    let r = root.to_str().unwrap();
    let cfg = dir.path().join("cf.json");
    std::fs::write(&cfg, r#"{"hotLimit": 600}"#).unwrap();
    let mut server = Server::start(&root, &["--config", cfg.to_str().unwrap(), "--idle-exit", "600"]);
    let sock = root.join("memlayers.sock");
    let q = ["--json", "--data-root", r, "--config", cfg.to_str().unwrap(), "recall", "牛奶"];
    assert_eq!(contents(&json(&call("require", &q))), ["买了牛奶和面包"]);
    std::fs::write(&cfg, r#"{"hotLimit": 700}"#).unwrap();
    let t = Instant::now();
    assert_eq!(server.wait(), Some(0));
    assert!(t.elapsed() < Duration::from_secs(10), "stopped after {:?}", t.elapsed());
    assert!(!sock.exists());
}
