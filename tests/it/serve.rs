//! `memlayers serve`: CLI queries answered by an opt-in resident server over a private Unix
//! socket in the user's runtime folder, with the same output as an in-process call; every call
//! it must not answer, and every server that is stopped, saturated, of another binary or
//! stalled by a peer, leaves the call to run in-process (or fail under `require`). Real child
//! processes, real sockets. Each test has its own `XDG_RUNTIME_DIR`, so its servers and
//! sockets are its own.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_memlayers")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn contents(v: &serde_json::Value) -> Vec<String> {
    v["items"].as_array().unwrap().iter().map(|i| i["content"].as_str().unwrap().to_string()).collect()
}

/// A call's JSON without its items' scores, which the usage hit of the call before changes.
fn unscored(o: &Output) -> serde_json::Value {
    let mut v = json(o);
    for i in v["items"].as_array_mut().unwrap() {
        i.as_object_mut().unwrap().remove("score");
    }
    v
}

/// A test's world: a data root with two entries on 2026-11-20 (zone UTC, recorded by the first
/// write) and its own runtime folder (`XDG_RUNTIME_DIR`, mode 0700 as the XDG spec has it).
struct Env {
    dir: tempfile::TempDir,
    root: PathBuf,
    rt: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let rt = dir.path().join("rt");
        std::fs::create_dir(&rt).unwrap();
        std::fs::set_permissions(&rt, std::fs::Permissions::from_mode(0o700)).unwrap();
        let env = Env { dir, root, rt };
        for (t, now) in [("买了牛奶和面包", "2026-11-20T09:00:00Z"), ("晚饭吃了火锅", "2026-11-20T12:00:00Z")]
        {
            let o =
                env.call("off", &["--data-root", env.r(), "--tz", "UTC", "--now", now, "write", t, "--tag", "生活"]);
            assert!(o.status.success(), "{}", text(&o.stderr));
        }
        env
    }

    fn r(&self) -> &str {
        self.root.to_str().unwrap()
    }

    /// The binary `exe` with this test's runtime folder and `MEMLAYERS_SERVER=mode` (unset when
    /// `mode` is empty: the default).
    fn cmd_of(&self, exe: &Path, mode: &str) -> Command {
        let mut c = Command::new(exe);
        c.env("XDG_RUNTIME_DIR", &self.rt);
        if mode.is_empty() {
            c.env_remove("MEMLAYERS_SERVER");
        } else {
            c.env("MEMLAYERS_SERVER", mode);
        }
        c
    }

    /// `sh -c script $0 $1 …` with this test's runtime folder and mode.
    fn sh(&self, mode: &str, script: &str) -> Command {
        let mut c = self.cmd_of(Path::new("sh"), mode);
        c.args(["-c", script]);
        c
    }

    fn cmd(&self, mode: &str) -> Command {
        self.cmd_of(Path::new(bin()), mode)
    }

    fn call(&self, mode: &str, args: &[&str]) -> Output {
        self.cmd(mode).args(args).output().unwrap()
    }

    /// Where the root's socket must be, worked out here from the documented rule:
    /// `$XDG_RUNTIME_DIR/memlayers/` + the first 16 hex digits of the SHA-1 of the root's
    /// canonical path + `.sock`.
    fn socket(&self) -> PathBuf {
        use sha1::Digest;
        let canonical = std::fs::canonicalize(&self.root).unwrap();
        let digest = sha1::Sha1::digest(canonical.as_os_str().as_encoded_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        self.rt.join("memlayers").join(format!("{}.sock", &hex[..16]))
    }

    /// `serve --status`: exit code and JSON.
    fn status(&self) -> (Option<i32>, serde_json::Value) {
        let o = self.call("off", &["--json", "--data-root", self.r(), "serve", "--status"]);
        (o.status.code(), serde_json::from_slice(&o.stdout).unwrap_or_default())
    }

    fn start(&self, extra: &[&str]) -> Server {
        let mut c = self.cmd("off");
        c.args(["--data-root", self.r(), "serve"]).args(extra);
        Server::spawn(c)
    }
}

/// A running `memlayers serve`, killed when dropped.
struct Server {
    child: Child,
    stderr: BufReader<ChildStderr>,
}

impl Server {
    /// Spawns `cmd` and reads its stderr up to the line `memlayers: serving …`, which the
    /// server prints once its socket is bound (a handshake: no polling).
    fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut seen = String::new();
        loop {
            let mut line = String::new();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "the server exited before serving: {seen}");
            seen.push_str(&line);
            if line.starts_with("memlayers: serving ") {
                break;
            }
        }
        Server { child, stderr }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn signal(&self, sig: &str) {
        let st = Command::new("kill").args([sig, &self.child.id().to_string()]).status().unwrap();
        assert!(st.success());
    }

    /// Waits (at most 60 s) for the server to exit; its exit code and the rest of its stderr.
    fn wait(&mut self) -> (Option<i32>, String) {
        let t = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                let mut rest = String::new();
                let _ = self.stderr.read_to_string(&mut rest);
                return (st.code(), rest);
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

/// The identity the client sends for the binary `exe` (device, inode, size, mtime, ctime),
/// stated here from the file.
fn exe_id(exe: &Path) -> serde_json::Value {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(exe).unwrap();
    serde_json::json!({
        "dev": m.dev(), "ino": m.ino(), "size": m.size(),
        "mtime": [m.mtime(), m.mtime_nsec()], "ctime": [m.ctime(), m.ctime_nsec()],
    })
}

/// A raw request line of the protocol, as this test binary's `memlayers` would send it.
fn request(root: &str, argv: &[&str]) -> String {
    let mut full = vec!["memlayers"];
    full.extend_from_slice(argv);
    serde_json::json!({
        "v": 2, "version": env!("CARGO_PKG_VERSION"), "exe": exe_id(Path::new(bin())), "op": "call",
        "root": root, "argv": full, "cwd": std::env::current_dir().unwrap(),
    })
    .to_string()
        + "\n"
}

#[test]
fn a_served_query_answers_as_the_cli_does_and_sees_a_hand_edit() {
    let env = Env::new();
    let r = env.r();
    let _server = env.start(&[]);
    // The socket is where the rule says, in a folder only this user can enter; none is in
    // the data root.
    assert!(std::os::unix::net::UnixStream::connect(env.socket()).is_ok());
    let mode = std::fs::metadata(env.rt.join("memlayers")).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert!(!env.root.join("memlayers.sock").exists());
    let served = json(&env.call("require", &["--json", "--data-root", r, "recall", "牛奶"]));
    assert_eq!(contents(&served), ["买了牛奶和面包"]);
    let window = ["--json", "--data-root", r, "retrieve", "火锅", "--from", "2026-11-20", "--to", "2026-11-20"];
    let served = json(&env.call("require", &window));
    let local = json(&env.call("off", &window));
    assert_eq!(contents(&served), ["晚饭吃了火锅"]);
    assert_eq!(served["items"][0]["id"], local["items"][0]["id"]);
    // A line appended by hand (as `>>` would) is seen by the next served call.
    let day = env.root.join("cold/2026-11/2026-11-20.md");
    let mut t = std::fs::read_to_string(&day).unwrap();
    t.push_str("- [2026-11-20T13:00:00.000Z] [生活] 下午去了博物馆\n");
    std::fs::write(&day, t).unwrap();
    let served = json(&env.call("require", &["--json", "--data-root", r, "recall", "博物馆"]));
    assert_eq!(contents(&served), ["下午去了博物馆"]);
    // A query's bad input is reported by the server exactly as in-process: exit 2, same text.
    let bad = ["--data-root", r, "recall", "牛奶", "--limit", "0"];
    let (s, l) = (env.call("require", &bad), env.call("off", &bad));
    assert_eq!(s.status.code(), Some(2));
    assert_eq!((s.status.code(), &s.stderr, &s.stdout), (l.status.code(), &l.stderr, &l.stdout));
    // `--help` names the variable that chooses all this.
    let help = env.call("off", &["--help"]);
    assert!(text(&help.stdout).contains("MEMLAYERS_SERVER"), "{}", text(&help.stdout));
}

/// A call with `--now` is answered by the server with the clock pinned for that call alone:
/// the same output as in-process, and the next call without it reads the clock again.
#[test]
fn a_now_call_is_answered_by_the_server_at_its_instant() {
    let env = Env::new();
    let r = env.r();
    let _server = env.start(&[]);
    // The root's zone is UTC: 昨天 on 2026-11-21 is 2026-11-20, the day of both entries; on
    // 2026-11-25 it is 2026-11-24, a day without any (the match comes from outside it).
    let yesterday = |now: &str| ["--json", "--data-root", r, "--now", now, "retrieve", "昨天 火锅"].map(String::from);
    let args = yesterday("2026-11-21T10:00:00Z");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (served, local) = (env.call("require", &args), env.call("off", &args));
    assert_eq!(contents(&json(&served)), ["晚饭吃了火锅"]);
    assert_eq!(unscored(&served), unscored(&local));
    let args = yesterday("2026-11-25T10:00:00Z");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let served = env.call("require", &args);
    // Nothing on 2026-11-24 (nor 11-23 … 11-25, widened): rule 5's fill-up answers with the
    // match outside the window, marked so.
    assert_eq!(contents(&json(&served)), ["晚饭吃了火锅"]);
    assert_eq!(json(&served)["items"][0]["inWindow"], serde_json::json!(false));
    assert_eq!(unscored(&served), unscored(&env.call("off", &args)));
    let recent = ["--json", "--now", "2026-11-20T23:00:00Z", "--data-root", r, "recent", "--days", "1"];
    let served = env.call("require", &recent);
    assert_eq!(contents(&json(&served)), ["晚饭吃了火锅", "买了牛奶和面包"]);
    assert_eq!(unscored(&served), unscored(&env.call("off", &recent)));
    // Without --now, 昨天 is the day before the real clock's today, long after 2026-11-20: the
    // one match is outside that window (it fills the list, marked so).
    let o = env.call("require", &["--json", "--data-root", r, "retrieve", "昨天 火锅"]);
    assert_eq!(contents(&json(&o)), ["晚饭吃了火锅"]);
    assert_eq!(json(&o)["items"][0]["inWindow"], serde_json::json!(false));
    let bad = ["--data-root", r, "--now", "yesterday", "recall", "牛奶"];
    let (s, l) = (env.call("require", &bad), env.call("off", &bad));
    assert_eq!(s.status.code(), Some(2));
    assert!(text(&s.stderr).contains("invalid now"), "{}", text(&s.stderr));
    assert_eq!((s.status.code(), &s.stderr, &s.stdout), (l.status.code(), &l.stderr, &l.stdout));
}

#[test]
fn calls_the_server_must_not_answer_run_in_process() {
    let env = Env::new();
    let r = env.r();
    let server = env.start(&[]);
    // Another zone changes what the call means: declined, then answered here.
    let tz = ["--json", "--data-root", r, "--tz", "Asia/Tokyo", "recall", "牛奶"];
    let o = env.call("require", &tz);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("declined: --tz differs"), "{}", text(&o.stderr));
    assert_eq!(contents(&json(&env.call("auto", &tz))), ["买了牛奶和面包"]);
    // Writes are never forwarded: they run in-process in every mode, `require` included.
    let o = env.call("require", &["--data-root", r, "write", "在本进程写入"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        contents(&json(&env.call("require", &["--json", "--data-root", r, "recall", "在本进程写入"]))),
        ["在本进程写入"]
    );
    // A config file: the server answers calls naming the same file (a relative path is the
    // client's), and declines them once the file changed.
    let cfg = env.dir.path().join("cfg.json");
    std::fs::write(&cfg, r#"{"hotLimit": 800}"#).unwrap();
    drop(server);
    let _server = env.start(&["--config", cfg.to_str().unwrap()]);
    let hot = |mode: &str| {
        env.cmd(mode)
            .current_dir(env.dir.path())
            .args(["--json", "--data-root", r, "--config", "cfg.json", "hot-get"])
            .output()
            .unwrap()
    };
    assert_eq!(json(&hot("require"))["limit"], 800);
    std::fs::write(&cfg, r#"{"hotLimit": 900}"#).unwrap();
    let o = hot("require");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("changed since the server started"), "{}", text(&o.stderr));
    assert_eq!(json(&hot("auto"))["limit"], 900);
}

#[test]
fn a_killed_servers_socket_falls_back_and_a_new_server_replaces_it() {
    let env = Env::new();
    let r = env.r();
    let mut server = env.start(&[]);
    server.signal("-KILL");
    server.wait();
    assert!(env.socket().exists(), "SIGKILL leaves the socket behind");
    let q = ["--json", "--data-root", r, "recall", "火锅"];
    assert_eq!(contents(&json(&env.call("auto", &q))), ["晚饭吃了火锅"]);
    let o = env.call("require", &q);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("no server at"), "{}", text(&o.stderr));
    assert_eq!(env.status().0, Some(3));
    let _again = env.start(&[]);
    assert_eq!(contents(&json(&env.call("require", &q))), ["晚饭吃了火锅"]);
}

#[test]
fn one_server_per_root_and_it_leaves_no_socket_on_sigterm_idle_exit_or_stop() {
    let env = Env::new();
    let r = env.r();
    let mut first = env.start(&[]);
    let second = env.call("off", &["--data-root", r, "serve"]);
    assert_eq!(second.status.code(), Some(2));
    let err = text(&second.stderr);
    assert!(err.contains(&format!("a server already answers for {r} (pid {}", first.pid())), "{err}");
    first.signal("-TERM");
    assert_eq!(first.wait().0, Some(0));
    assert!(!env.socket().exists());
    let mut idle = env.start(&["--idle-exit", "1"]);
    assert_eq!(idle.wait().0, Some(0));
    assert!(!env.socket().exists());
    // A server's clock is the clock: --now is refused.
    let o = env.call("off", &["--data-root", r, "--now", "2026-11-29T12:00:00Z", "serve"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("invalid now"), "{}", text(&o.stderr));
    // A file of the socket's name that is not a socket is not deleted.
    std::fs::write(env.socket(), "mine").unwrap();
    let o = env.call("off", &["--data-root", r, "serve"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is not a socket"), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(env.socket()).unwrap(), "mine");
}

#[test]
fn status_and_stop_report_and_end_the_roots_server() {
    let env = Env::new();
    let r = env.r();
    // None runs: exit 3, `running: false`, the socket it would use.
    let (code, v) = env.status();
    assert_eq!(code, Some(3));
    assert_eq!(v["running"], false);
    assert_eq!(v["socket"], env.socket().to_str().unwrap());
    let o = env.call("off", &["--json", "--data-root", r, "serve", "--stop"]);
    assert_eq!(o.status.code(), Some(3));
    let mut server = env.start(&["--idle-exit", "600"]);
    let (code, v) = env.status();
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["running"], true);
    assert_eq!(v["pid"], server.pid());
    assert_eq!(v["exe"], std::fs::canonicalize(bin()).unwrap().to_str().unwrap());
    assert_eq!(v["sameBinary"], true);
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["calls"], 0);
    assert_eq!(v["idleExitSecs"], 600);
    assert!(v["started"].as_str().unwrap().ends_with('Z'));
    assert!(v["idleSecs"].as_u64().unwrap() < 60);
    // A call in the default mode is the server's: its count goes to 1.
    assert_eq!(contents(&json(&env.call("", &["--json", "--data-root", r, "recall", "牛奶"]))), ["买了牛奶和面包"]);
    assert_eq!(env.status().1["calls"], 1);
    // --stop returns once the server wrote its usage hits and left its socket.
    let o = env.call("off", &["--json", "--data-root", r, "serve", "--stop"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v, serde_json::json!({ "stopped": true, "pid": server.pid() }));
    assert!(!env.socket().exists());
    // usage.json keys an entry by the SHA-1 of its content: the served call's hit is there.
    let usage: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.root.join("usage.json")).unwrap()).unwrap();
    let key: String = {
        use sha1::Digest;
        sha1::Sha1::digest("买了牛奶和面包".as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    };
    assert_eq!(usage["entries"][&key]["hits"], 1, "{usage}");
    assert_eq!(server.wait().0, Some(0));
    // A data root that does not exist: bad input, nothing created.
    let nope = env.dir.path().join("nope");
    let o = env.call("off", &["--data-root", nope.to_str().unwrap(), "serve", "--status"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!nope.exists());
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

/// Waits (at most 60 s) until `serve --status` says a server runs.
#[cfg(target_os = "linux")]
fn wait_running(env: &Env) {
    let t = Instant::now();
    while env.status().0 != Some(0) {
        assert!(t.elapsed() < Duration::from_secs(60), "no server came up for {}", env.r());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn by_default_a_query_never_starts_a_server_and_spawn_does_and_says_so() {
    let env = Env::new();
    let _reap = Reap(&env.root);
    let r = env.r();
    let q = ["--json", "--data-root", r, "by-date", "2026-11-20", "2026-11-20"];
    // The default (unset), `auto` and `off`: answered in-process, no server, nothing made in
    // the runtime folder.
    for mode in ["", "auto", "off"] {
        let o = env.call(mode, &q);
        assert_eq!(contents(&json(&o)), ["晚饭吃了火锅", "买了牛奶和面包"]);
        assert_eq!(text(&o.stderr), "", "mode {mode:?}");
        assert_eq!(servers_of(&env.root), Vec::<u32>::new(), "mode {mode:?} started a server");
        assert!(!env.rt.join("memlayers").exists());
    }
    // `spawn`: answered in-process, and a server is started, which the call says on stderr.
    let first = env.call("spawn", &q);
    assert_eq!(contents(&json(&first)), ["晚饭吃了火锅", "买了牛奶和面包"]);
    // The call returns once the server is spawned, maybe before it has exec'd (its cmdline
    // still the caller's): wait until it answers `serve --status` (a handshake, not a sleep).
    wait_running(&env);
    let pids = servers_of(&env.root);
    assert_eq!(pids.len(), 1, "exactly one server: {pids:?}");
    let said = format!(
        "memlayers: started a server for {r} (pid {}, socket {}; MEMLAYERS_SERVER=spawn)",
        pids[0],
        env.socket().display()
    );
    assert!(text(&first.stderr).contains(&said), "{}", text(&first.stderr));
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", pids[0])).unwrap();
    assert!(text(&cmdline).ends_with("serve\u{0}--idle-exit\u{0}600\u{0}"));
    wait_running(&env);
    // The next calls are the server's, with the in-process call's exact output; none starts
    // another server.
    let served = env.call("require", &q);
    assert_eq!(served.stdout, first.stdout);
    assert_eq!(text(&served.stderr), "");
    assert_eq!(env.call("spawn", &q).stdout, first.stdout);
    assert_eq!(env.call("", &q).stdout, first.stdout);
    assert_eq!(servers_of(&env.root), pids);
    assert_eq!(env.status().1["calls"], 3);
    // A write is not a query: it starts none, even with spawn.
    let written = env.dir.path().join("written");
    let _reap_written = Reap(&written);
    let o = env.call("spawn", &["--data-root", written.to_str().unwrap(), "write", "只是写入"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(written.join("cold").is_dir());
    assert_eq!(servers_of(&written), Vec::<u32>::new());
    // A value that is none of the four warns and reads as auto: no server started.
    let other = Env::new();
    let _reap_other = Reap(&other.root);
    let o = other.call("yes-please", &["--json", "--data-root", other.r(), "recall", "火锅"]);
    assert_eq!(contents(&json(&o)), ["晚饭吃了火锅"]);
    let err = text(&o.stderr);
    assert!(err.contains("MEMLAYERS_SERVER=\"yes-please\" is not auto, spawn, off or require; read as auto"), "{err}");
    assert_eq!(servers_of(&other.root), Vec::<u32>::new());
}

#[test]
fn a_read_command_on_a_missing_root_exits_2_and_creates_nothing() {
    let env = Env::new();
    let missing = env.dir.path().join("memroy"); // a typo'd root
    let m = missing.to_str().unwrap();
    let reads: [&[&str]; 8] = [
        &["recall", "风筝"],
        &["retrieve", "上周 风筝"],
        &["recent"],
        &["by-tag", "生活"],
        &["by-date", "2026-11-20", "2026-11-20"],
        &["stats"],
        &["hot-get"],
        &["check"],
    ];
    for mode in ["", "spawn", "off", "require"] {
        for cmd in reads {
            let mut args = vec!["--data-root", m];
            args.extend_from_slice(cmd);
            let o = env.call(mode, &args);
            assert_eq!(o.status.code(), Some(2), "{mode:?} {cmd:?}: {}", text(&o.stderr));
            let want = format!("error: invalid data-root: {m} does not exist; nothing was created");
            assert!(text(&o.stderr).starts_with(&want), "{mode:?} {cmd:?}: {}", text(&o.stderr));
            assert!(!missing.exists(), "{mode:?} {cmd:?} created the root");
            assert!(!env.rt.join("memlayers").exists(), "{mode:?} {cmd:?} made a runtime folder");
        }
    }
    // The commands that write create their root as before.
    let archive = env.dir.path().join("notes");
    std::fs::create_dir(&archive).unwrap();
    std::fs::write(archive.join("2026-11-20.md"), "- 放风筝\n").unwrap();
    let writes: [&[&str]; 4] = [
        &["write", "第一条"],
        &["hot-set", "热层"],
        &["session-end", "--turn", "你好"],
        &["import", archive.to_str().unwrap()],
    ];
    for (i, cmd) in writes.into_iter().enumerate() {
        let fresh = env.dir.path().join(format!("fresh{i}"));
        let mut args = vec!["--data-root", fresh.to_str().unwrap(), "--tz", "UTC"];
        args.extend_from_slice(cmd);
        let o = env.call("off", &args);
        assert_eq!(o.status.code(), Some(0), "{cmd:?}: {}", text(&o.stderr));
        assert!(fresh.join("index.sqlite3").is_file(), "{cmd:?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_spawned_server_holds_none_of_its_callers_descriptors() {
    let env = Env::new();
    let _reap = Reap(&env.root);
    let lock = env.dir.path().join("lock");
    // The caller holds an flock on fd 9 (not close-on-exec) while the query runs and starts a
    // server; once the caller exits, the lock must be free although the server still runs.
    let o = env
        .sh("spawn", r#"exec 9>"$1"; flock 9; "$2" --json --data-root "$3" recall 牛奶"#)
        .arg("sh")
        .arg(&lock)
        .arg(bin())
        .arg(&env.root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The call may return before the spawned server has exec'd: wait for its status handshake.
    wait_running(&env);
    let pids = servers_of(&env.root);
    assert_eq!(pids.len(), 1, "{pids:?}");
    assert!(text(&o.stderr).contains("started a server"), "{}", text(&o.stderr));
    let free = Command::new("flock").args(["-n"]).arg(&lock).arg("true").status().unwrap();
    assert!(free.success(), "the lock is still held (by the server {pids:?})");
    // Nor does it hold the caller's pipes: reading the call's stdout and stderr to EOF (above,
    // `output()`) returned while the server runs.
    assert_eq!(servers_of(&env.root), pids);
}

#[cfg(target_os = "linux")]
#[test]
fn a_server_stops_when_its_root_is_deleted_its_socket_removed_or_its_index_deleted() {
    let env = Env::new();
    let r = env.r();
    let q = ["--json", "--data-root", r, "recall", "火锅"];
    // Its socket removed: nothing can reach it, so it stops; the root stays as it was.
    let mut server = env.start(&[]);
    std::fs::remove_file(env.socket()).unwrap();
    let t = Instant::now();
    assert_eq!(server.wait().0, Some(0));
    assert!(t.elapsed() < Duration::from_secs(10), "stopped after {:?}", t.elapsed());
    assert!(env.root.join("cold/2026-11/2026-11-20.md").is_file());
    // Its index deleted (docs: "delete it and the next open rebuilds it"): calls are declined,
    // naming why, and it stops; an in-process call answers from a new index.
    let mut server = env.start(&[]);
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(env.root.join(f));
    }
    // (The server's once-a-second check may have stopped it before this call came: then no
    // server answers; or while the call was in flight: then it closed the connection without
    // an answer. Either way the call is not answered from the deleted index.)
    let o = env.call("require", &q);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("the index was deleted or replaced")
            || err.contains("no server for this data root")
            || err.contains("closed the connection unanswered"),
        "{err}"
    );
    // It stops: cleanly, or with exit 1 when the deletion met it mid-write (its last usage flush
    // into an index that is gone) — either way it answers nothing more.
    let code = server.wait().0;
    assert!(matches!(code, Some(0 | 1)), "exit {code:?}");
    assert_eq!(contents(&json(&env.call("off", &q))), ["晚饭吃了火锅"]);
    // Its root deleted (a temp folder cleaned up): it stops, and does not recreate the root.
    let mut server = env.start(&[]);
    // The server may write into its root (the index's WAL, usage) while the deletion walks it,
    // so a pass can meet a file created behind it ("Directory not empty"): delete until gone,
    // as `rm -rf` run again would.
    for tries in 0.. {
        match std::fs::remove_dir_all(&env.root) {
            Ok(()) => break,
            Err(_) if !env.root.exists() => break,
            Err(e) => assert!(tries < 100, "cannot delete the root: {e}"),
        }
    }
    let t = Instant::now();
    assert_eq!(server.wait().0, Some(0));
    assert!(t.elapsed() < Duration::from_secs(10), "stopped after {:?}", t.elapsed());
    assert!(!env.root.exists(), "the stopping server recreated its root");
}

/// A server whose `--config` file changed can answer no call any more (it declines them): it
/// stops within seconds, leaving no socket.
#[test]
fn a_server_stops_when_its_config_file_changes() {
    let env = Env::new();
    let r = env.r();
    let cfg = env.dir.path().join("cf.json");
    std::fs::write(&cfg, r#"{"hotLimit": 600}"#).unwrap();
    let mut server = env.start(&["--config", cfg.to_str().unwrap(), "--idle-exit", "600"]);
    let q = ["--json", "--data-root", r, "--config", cfg.to_str().unwrap(), "recall", "牛奶"];
    assert_eq!(contents(&json(&env.call("require", &q))), ["买了牛奶和面包"]);
    std::fs::write(&cfg, r#"{"hotLimit": 700}"#).unwrap();
    let t = Instant::now();
    assert_eq!(server.wait().0, Some(0));
    assert!(t.elapsed() < Duration::from_secs(10), "stopped after {:?}", t.elapsed());
    assert!(!env.socket().exists());
}

#[test]
fn a_call_naming_the_servers_zone_another_way_is_answered() {
    let env = Env::new();
    let r = env.r();
    {
        let _server = env.start(&["--tz", "UTC"]);
        let o = env.call("require", &["--json", "--data-root", r, "recall", "牛奶"]);
        assert_eq!(contents(&json(&o)), ["买了牛奶和面包"]);
        let o = env.call("require", &["--json", "--data-root", r, "--tz", "Asia/Tokyo", "recall", "牛奶"]);
        assert_eq!(o.status.code(), Some(1));
        assert!(text(&o.stderr).contains("declined: --tz differs"));
    }
    let _server = env.start(&[]);
    let o = env.call("require", &["--json", "--data-root", r, "--tz", "UTC", "recall", "牛奶"]);
    assert_eq!(contents(&json(&o)), ["买了牛奶和面包"]);
}

/// The server answers in whatever zone the root records now: after `memlayers.json` changed,
/// served `recent` and `retrieve "今天 …"` equal the in-process answers, and an invalid
/// record's warning reaches the call.
#[test]
fn a_server_follows_the_roots_recorded_zone() {
    let env = Env::new();
    let r = env.r();
    let _server = env.start(&[]);
    // At 2026-11-20T20:00Z it is still 2026-11-20 in UTC (the day of both entries) but
    // already 2026-11-21 05:00 in Asia/Tokyo (UTC+9), a day without entries.
    let today = ["--json", "--data-root", r, "--now", "2026-11-20T20:00:00Z", "retrieve", "今天 火锅"];
    let recent = ["--json", "--data-root", r, "--now", "2026-11-20T20:00:00Z", "recent", "--days", "1"];
    let before = json(&env.call("require", &today));
    assert_eq!(contents(&before), ["晚饭吃了火锅"]);
    assert_eq!(before.get("widened"), None);
    assert_eq!(contents(&json(&env.call("require", &recent))), ["晚饭吃了火锅", "买了牛奶和面包"]);
    std::fs::write(env.root.join("memlayers.json"), "{\"timezone\": \"Asia/Tokyo\"}\n").unwrap();
    // In Tokyo, 今天 is 2026-11-21, a day without entries: retrieve widens its window by a day
    // each side (so from 2026-11-20) and finds the entry there; recent's one day is empty.
    let (served, local) = (env.call("require", &today), env.call("off", &today));
    assert_eq!(json(&served)["widened"]["startDate"], "2026-11-20");
    assert_eq!(unscored(&served), unscored(&local));
    assert_eq!(text(&served.stderr), text(&local.stderr));
    let (served, local) = (env.call("require", &recent), env.call("off", &recent));
    assert_eq!(contents(&json(&served)), Vec::<String>::new());
    assert_eq!(unscored(&served), unscored(&local));
    assert_eq!(text(&served.stderr), text(&local.stderr));
    // An invalid record: the in-process call warns and uses the configured zone; so does the
    // served one, with the same warning.
    std::fs::write(env.root.join("memlayers.json"), "{\"timezone\": \"Mars/Olympus\"}\n").unwrap();
    let (served, local) = (env.call("require", &recent), env.call("off", &recent));
    let warning = "timezone \"Mars/Olympus\" is not an IANA zone name; using the configured zone";
    assert!(text(&local.stderr).contains(warning), "{}", text(&local.stderr));
    assert_eq!(text(&served.stderr), text(&local.stderr));
    assert_eq!(unscored(&served), unscored(&local));
}

/// The executable's identity is in the handshake: a copy of the binary with other bytes is
/// not answered by the server started from the original, and that server exits; a binary
/// replaced at the server's own path stops it too.
#[test]
fn a_server_answers_only_its_own_binary_and_exits_for_another() {
    let env = Env::new();
    let r = env.r();
    let q = ["--json", "--data-root", r, "recall", "火锅"];
    let copy = env.dir.path().join("memlayers-copy");
    std::fs::copy(bin(), &copy).unwrap();
    std::fs::OpenOptions::new().append(true).open(&copy).unwrap().write_all(b"\0").unwrap();
    let mut server = env.start(&[]);
    assert_eq!(contents(&json(&env.call("require", &q))), ["晚饭吃了火锅"]);
    let o = env.cmd_of(&copy, "require").args(q).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("declined") && err.contains("comes from another memlayers executable"), "{err}");
    let (code, said) = server.wait();
    assert_eq!(code, Some(0));
    assert!(said.contains("a call came from another memlayers executable"), "{said}");
    assert!(!env.socket().exists());
    // With no server left, the copy's call answers in-process (auto).
    assert_eq!(contents(&json(&env.cmd_of(&copy, "auto").args(q).output().unwrap())), ["晚饭吃了火锅"]);
    // A server run from the copy stops once the file at its path is replaced (an upgrade).
    let mut c = env.cmd_of(&copy, "off");
    c.args(["--data-root", r, "serve"]);
    let mut server = Server::spawn(c);
    let next = env.dir.path().join("memlayers-next");
    std::fs::copy(bin(), &next).unwrap();
    std::fs::rename(&next, &copy).unwrap();
    let (code, said) = server.wait();
    assert_eq!(code, Some(0));
    assert!(said.contains("changed since this server started"), "{said}");
}

/// A stopped server (SIGSTOP), with or without a full listen queue, never hangs a call: it runs
/// in-process, or fails under `require` saying why.
#[cfg(target_os = "linux")]
#[test]
fn a_stopped_or_saturated_server_cannot_hang_its_callers() {
    let env = Env::new();
    let r = env.r();
    let q = ["--json", "--data-root", r, "recall", "牛奶"];
    let server = env.start(&[]);
    server.signal("-STOP");
    let t = Instant::now();
    let o = env.call("auto", &q);
    assert_eq!(contents(&json(&o)), ["买了牛奶和面包"]);
    let o = env.call("require", &q);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains(&format!("the server (pid {}) did not answer within 1000 ms", server.pid())), "{err}");
    let st = env.call("off", &["--data-root", r, "serve", "--status"]);
    assert_eq!(st.status.code(), Some(1));
    // Three calls, each bounded by the 1 s wait for `ready`: far less than the 15 s a call
    // waited before (and than forever in connect).
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // Fill its listen queue (connections the stopped server never accepts) until the kernel
    // refuses one; a call then does not wait at all.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let held = rt.block_on(async {
        let mut held = Vec::new();
        loop {
            match tokio::net::UnixStream::connect(env.socket()).await {
                Ok(s) => held.push(s),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break held,
                Err(e) => panic!("{e}"),
            }
            assert!(held.len() < 2000, "the queue never filled");
        }
    });
    let o = env.call("require", &q);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("its queue is full"), "{}", text(&o.stderr));
    assert_eq!(contents(&json(&env.call("auto", &q))), ["买了牛奶和面包"]);
    drop(held);
    // Continued, it drains its queue (the held connections are closed) and answers again.
    server.signal("-CONT");
    wait_running(&env);
    assert_eq!(contents(&json(&env.call("require", &q))), ["买了牛奶和面包"]);
}

/// Peers that never send, or never read their reply, hold up no other call, nor SIGTERM.
#[test]
fn a_peer_that_does_not_read_or_write_stalls_nothing() {
    let env = Env::new();
    let r = env.r();
    // A day of 50 entries of 3 900 chars each: a recall of all of them replies ~600 KB, more
    // than a Unix socket buffers (net.core.wmem_default, 208 KiB here), so the server's write
    // blocks while its peer does not read.
    let mut day = String::new();
    for i in 0..50 {
        day.push_str(&format!("- [2026-11-19T10:{i:02}:00.000Z] [长] {i} {}\n", "长".repeat(3900)));
    }
    std::fs::write(env.root.join("cold/2026-11/2026-11-19.md"), day).unwrap();
    let big = ["--json", "--data-root", r, "recall", "长", "--limit", "50"];
    let local = env.call("off", &big);
    assert_eq!(json(&local)["returned"], 50);
    assert!(local.stdout.len() > 2 * 212_992, "{}", local.stdout.len());
    let mut server = env.start(&[]);
    // Eight connections that send nothing, and one that asks for the big reply and never
    // reads it.
    let idle: Vec<_> = (0..8).map(|_| std::os::unix::net::UnixStream::connect(env.socket()).unwrap()).collect();
    let mut slow = std::os::unix::net::UnixStream::connect(env.socket()).unwrap();
    slow.write_all(request(r, &big).as_bytes()).unwrap();
    let mut ready = String::new();
    BufReader::new(&slow).read_line(&mut ready).unwrap();
    assert_eq!(ready, "{\"ready\":true}\n");
    slow.write_all(b"go\n").unwrap();
    // Served one after another, this call would wait 2 s per idle peer and the slow one's
    // write: `require` gives up after 1 s. It is answered.
    let q = ["--json", "--data-root", r, "recall", "牛奶"];
    assert_eq!(contents(&json(&env.call("require", &q))), ["买了牛奶和面包"]);
    // SIGTERM ends the server at once, the slow peer still not reading.
    server.signal("-TERM");
    let t = Instant::now();
    assert_eq!(server.wait().0, Some(0));
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    drop((idle, slow));
}

/// A client that gave up (closed its connection) before confirming with `go` has nothing run
/// by the server: it ran the call itself.
#[test]
fn a_request_whose_client_gave_up_is_not_run() {
    let env = Env::new();
    let r = env.r();
    let server = env.start(&[]);
    server.signal("-STOP");
    let mut s = std::os::unix::net::UnixStream::connect(env.socket()).unwrap();
    s.write_all(request(r, &["--json", "--data-root", r, "recall", "牛奶"]).as_bytes()).unwrap();
    drop(s);
    server.signal("-CONT");
    let o = env.call("require", &["--json", "--data-root", r, "recall", "火锅"]);
    assert_eq!(contents(&json(&o)), ["晚饭吃了火锅"]);
    let mut server = server;
    server.signal("-TERM");
    assert_eq!(server.wait().0, Some(0));
    let c = rusqlite::Connection::open(env.root.join("index.sqlite3")).unwrap();
    let hits: Vec<(String, i64)> = c
        .prepare("SELECT text, hits FROM usage ORDER BY text")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(hits, [("晚饭吃了火锅".to_string(), 1)]);
}

/// Fault injection: a stand-in server (this test) accepts a call, says `ready`, takes the
/// `go`, then misbehaves. A reply that never comes or exceeds the client's 16 MiB bound makes
/// a read-only query run in-process, and a writing one (`hot-get`) fail, never run twice.
#[test]
fn a_call_the_server_started_is_never_run_twice_and_its_reply_is_bounded() {
    let env = Env::new();
    let r = env.r();
    let dir = env.rt.join("memlayers");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(env.socket()).unwrap();
    // Behaviours: 0 closes after `go`; 1 sends 17 MiB without a newline.
    let serve_one = |behaviour: u8| {
        let (mut s, _) = listener.accept().unwrap();
        let mut line = String::new();
        let mut rd = BufReader::new(s.try_clone().unwrap());
        rd.read_line(&mut line).unwrap();
        assert!(line.contains("\"op\":\"call\""), "{line}");
        s.write_all(b"{\"ready\":true}\n").unwrap();
        line.clear();
        rd.read_line(&mut line).unwrap();
        assert_eq!(line, "go\n");
        if behaviour == 1 {
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..17 {
                if s.write_all(&chunk).is_err() {
                    break;
                }
            }
        }
    };
    for behaviour in [0u8, 1] {
        std::thread::scope(|sc| {
            sc.spawn(|| serve_one(behaviour));
            let o = env.call("auto", &["--json", "--data-root", r, "hot-get"]);
            assert_eq!(o.status.code(), Some(1), "behaviour {behaviour}");
            assert_eq!(o.stdout, b"");
            let err = text(&o.stderr);
            assert!(err.contains("It is not run again in this process"), "{err}");
            if behaviour == 1 {
                assert!(err.contains("exceeded 16 MiB"), "{err}");
            }
        });
        std::thread::scope(|sc| {
            sc.spawn(|| serve_one(behaviour));
            let o = env.call("auto", &["--json", "--data-root", r, "recall", "牛奶"]);
            assert_eq!(contents(&json(&o)), ["买了牛奶和面包"]);
        });
    }
}

/// The runtime folder is private from the start (even under umask 000), a folder that is not
/// (open to others, or another user's) is used by neither side, and a client does not talk to
/// a socket whose server runs as another user.
#[cfg(target_os = "linux")]
#[test]
fn the_socket_is_private_and_both_sides_check_who_is_there() {
    let env = Env::new();
    let r = env.r();
    let q = ["--json", "--data-root", r, "recall", "牛奶"];
    let mut c = env.sh("off", r#"umask 000; exec "$0" --data-root "$1" serve"#);
    c.arg(bin()).arg(&env.root);
    let mut server = Server::spawn(c);
    let dir = env.rt.join("memlayers");
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(contents(&json(&env.call("require", &q))), ["买了牛奶和面包"]);
    server.signal("-TERM");
    assert_eq!(server.wait().0, Some(0));
    // Opened to others: neither a server nor a client uses it.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = env.call("off", &["--data-root", r, "serve"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is open to other users (mode 755"), "{}", text(&o.stderr));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    // The peer check needs a second user: as root, run the client as `nobody` against a
    // socket of root's in a folder that `nobody` owns.
    if rustix::process::geteuid().is_root() {
        // The stand-in server: root's socket, open to connect, in nobody's 0700 folder.
        let nobody_rt = env.dir.path().join("nobody-rt");
        let ndir = nobody_rt.join("memlayers");
        std::fs::create_dir_all(&ndir).unwrap();
        std::fs::set_permissions(&ndir, std::fs::Permissions::from_mode(0o700)).unwrap();
        for p in [env.dir.path(), env.root.as_path()] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let sock = ndir.join(env.socket().file_name().unwrap());
        let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o777)).unwrap();
        std::os::unix::fs::chown(&nobody_rt, Some(65534), Some(65534)).unwrap();
        std::os::unix::fs::chown(&ndir, Some(65534), Some(65534)).unwrap();
        let o = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", bin()])
            .args(q)
            .env("XDG_RUNTIME_DIR", &nobody_rt)
            .env("MEMLAYERS_SERVER", "require")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(err.contains("runs as user 0, not this user (65534): not used"), "{err}");
        drop(listener);
        // And root (the server side) does not use a folder that belongs to another user.
        let o = Command::new(bin())
            .args(["--data-root", r, "serve"])
            .env("XDG_RUNTIME_DIR", &nobody_rt)
            .env("MEMLAYERS_SERVER", "off")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(text(&o.stderr).contains("belongs to user 65534, not to this user (0)"), "{}", text(&o.stderr));
    }
}
