//! `memlayers mcp` as a child process: the official MCP Python SDK clients, stdio
//! (tests/mcp/test_mcp.py, against the README's config blocks) and streamable HTTP
//! (tests/mcp/test_mcp_http.py), plus what those clients cannot send: lines that are not JSON-RPC,
//! a `tools/call` whose arguments are not an object, and SIGTERM with usage hits still pending.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_memlayers");

/// The binary the SDK tests run: `MEMLAYERS_MCP_BIN` when set (`.ci/run` points it at the
/// `memlayers` a fresh venv installed from the wheel), else this build's.
pub fn sdk_bin() -> std::path::PathBuf {
    match std::env::var_os("MEMLAYERS_MCP_BIN") {
        Some(b) if !b.is_empty() => std::path::PathBuf::from(b),
        _ => std::path::PathBuf::from(BIN),
    }
}

/// Runs `python3 tests/mcp/SCRIPT BIN ARGS…` (BIN: [`sdk_bin`]) and asserts it printed `all
/// checks passed`. Skips (passes, with a message) only when python3 or the `mcp` package is
/// missing and MEMLAYERS_REQUIRE_MCP_SDK is not set; `.ci/run` sets it.
pub fn run_sdk_script(script: &str, args: &[&std::ffi::OsStr]) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let required = std::env::var_os("MEMLAYERS_REQUIRE_MCP_SDK").is_some_and(|v| v != "0" && !v.is_empty());
    let probe = Command::new("python3").args(["-c", "import mcp"]).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(
            !required,
            "MEMLAYERS_REQUIRE_MCP_SDK is set but `python3 -c 'import mcp'` failed: {:?}",
            probe.map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        );
        eprintln!("SKIPPED: the MCP Python SDK is not installed (pip install \"mcp>=2.3,<3\"); .ci/run installs it");
        return;
    }
    let bin = sdk_bin();
    assert!(bin.exists(), "MEMLAYERS_MCP_BIN={} does not exist", bin.display());
    let out = Command::new("python3")
        // The script's own `memlayers` calls run in-process and start no resident server.
        .env("MEMLAYERS_SERVER", "off")
        .arg(manifest.join("tests/mcp").join(script))
        .arg(&bin)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script} failed against {}:\n{}\n{}",
        bin.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("all checks passed"));
}

/// The official MCP Python SDK's stdio client (tests/mcp/test_mcp.py) against the README's
/// config blocks.
#[test]
fn the_official_python_sdk_client_passes() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    run_sdk_script("test_mcp.py", &[readme.as_os_str()]);
}

/// The official MCP Python SDK's streamable HTTP client against `memlayers mcp --http`
/// (tests/mcp/test_mcp_http.py: every tool, 5 concurrent clients × 20 writes, Origin 403,
/// token 401, a non-loopback address without a token refused).
#[test]
fn the_official_python_sdk_http_client_passes() {
    run_sdk_script("test_mcp_http.py", &[]);
}

struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    fn start(root: &Path, extra: &[&str]) -> Session {
        let mut child = crate::common::cli()
            .args(["mcp", "--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai"])
            .args(["--now", "2026-11-29T12:00:00+08:00"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Session { child, stdin, stdout }
    }

    fn send_raw(&mut self, line: &str) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        assert!(self.stdout.read_line(&mut line).unwrap() > 0, "server closed stdout");
        serde_json::from_str(&line).unwrap()
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send_raw(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        loop {
            let v = self.read();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn handshake(&mut self) {
        let init = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"}
        });
        let r = self.request(1, "initialize", init);
        assert_eq!(r["result"]["serverInfo"]["name"], "memlayers", "{r}");
        self.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    fn call(&mut self, id: i64, tool: &str, args: Value) -> Value {
        self.request(id, "tools/call", json!({"name": tool, "arguments": args}))["result"].clone()
    }
}

/// Waits for the child; kills it and fails after `secs` seconds (a hang is a failure, not a
/// stuck test run).
fn wait_at_most(child: &mut Child, secs: u64) -> std::process::ExitStatus {
    for _ in 0..secs * 10 {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("the server did not exit within {secs} s");
}

#[test]
fn garbage_lines_never_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(dir.path(), &[]);
    s.send_raw("this is not json");
    s.send_raw(r#"{"jsonrpc":"2.0","id":99,"method":"tools/call","params":"#); // truncated
    s.send_raw(r#"[1,2,3]"#);
    s.handshake();
    s.send_raw("{{{{");
    s.send_raw(r#"{"jsonrpc":"2.0","id":5,"method":"no/such/method","params":{}}"#);
    let r = s.call(6, "mem_write", json!({"text": "录了《晴天》", "tag": "翻唱"}));
    assert_eq!(r["isError"], json!(false), "{r}");
    assert_eq!(r["structuredContent"]["date"], "2026-11-29");
    let r = s.call(7, "mem_recall", json!({"keyword": "晴天", "limit": "many"}));
    assert_eq!(r["isError"], json!(true));
    assert_eq!(r["content"][0]["text"], "invalid limit: must be an integer, got \"many\"");
    let r = s.request(8, "tools/list", json!({}));
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), 11);
    drop(s.stdin.take());
    assert!(wait_at_most(&mut s.child, 30).success());
    let cold = std::fs::read_to_string(dir.path().join("cold/2026-11/2026-11-29.md")).unwrap();
    assert_eq!(cold.lines().filter(|l| l.contains("录了《晴天》")).count(), 1);
}

/// A session on a fresh root (in the returned temp dir, at the returned path) whose config
/// sets `usageThrottleMs` to `throttle_ms`, after the handshake and one `mem_write` of
/// `周日复盘`.
fn session_with_one_entry(throttle_ms: u64) -> (tempfile::TempDir, std::path::PathBuf, Session) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("cfg.json");
    std::fs::write(&cfg, format!(r#"{{"usageThrottleMs": {throttle_ms}}}"#)).unwrap();
    let root = dir.path().join("mem");
    let mut s = Session::start(&root, &["--config", cfg.to_str().unwrap()]);
    s.handshake();
    assert_eq!(s.call(2, "mem_write", json!({"text": "周日复盘"}))["isError"], json!(false));
    (dir, root, s)
}

/// The hits of the first record in the usage.json at `usage`, when it exists and has one.
fn hits_in(usage: &std::path::Path) -> Option<u64> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(usage).ok()?).ok()?;
    v["entries"].as_object()?.values().next()?["hits"].as_u64()
}

#[test]
fn sigterm_writes_pending_usage_hits() {
    // A throttle of an hour: the hits below can only reach usage.json through the final flush.
    let (_dir, root, mut s) = session_with_one_entry(3_600_000);
    for id in 3..6 {
        let r = s.call(id, "mem_recall", json!({"keyword": "复盘"}));
        assert_eq!(r["structuredContent"]["returned"], 1, "{r}");
    }
    let usage = root.join("usage.json");
    let hits_on_disk = || hits_in(&usage);
    assert_ne!(hits_on_disk(), Some(3), "the throttle should have kept some hits in memory");
    let pid = s.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = wait_at_most(&mut s.child, 30);
    assert!(status.success(), "{status:?}");
    assert_eq!(hits_on_disk(), Some(3));
}

/// A call's usage hits reach the index (and, with no throttle, usage.json) once its reply is
/// written, without waiting for a next call or for the client to leave: the server records
/// them right after the write (src/cli/mcp RecordAfterReply).
#[test]
fn hits_are_recorded_after_the_reply_without_a_next_call() {
    // No throttle: every recorded hit writes usage.json at once.
    let (_dir, root, mut s) = session_with_one_entry(0);
    let r = s.call(3, "mem_recall", json!({"keyword": "复盘"}));
    assert_eq!(r["structuredContent"]["returned"], 1, "{r}");
    // One recall that returned the one entry: one hit, on disk while the session stays open.
    let usage = root.join("usage.json");
    let hits_on_disk = || hits_in(&usage);
    let t = std::time::Instant::now();
    while hits_on_disk() != Some(1) && t.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(hits_on_disk(), Some(1), "the recall's hit was not recorded after its reply");
    drop(s.stdin.take());
    assert!(wait_at_most(&mut s.child, 30).success());
    assert_eq!(hits_on_disk(), Some(1));
}

/// `tools/call` whose `arguments` is not an object is -32602 Invalid params naming `arguments`
/// (the MCP schema's CallToolRequest: `arguments` is an object; JSON-RPC 2.0 gives -32602 to
/// invalid method parameters), not -32601 Method not found: the method exists. A `name` that is
/// not a string is -32602 naming `name`; an unknown method stays -32601. The session keeps
/// serving afterwards.
#[test]
fn tools_call_with_arguments_not_an_object_is_invalid_params() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(dir.path(), &[]);
    s.handshake();
    for (id, args) in [(2, json!([1, 2])), (3, json!("text=hi")), (4, json!(5)), (5, json!(true))] {
        let r = s.request(id, "tools/call", json!({"name": "mem_write", "arguments": args}));
        assert_eq!(r["error"]["code"], json!(-32602), "{args}: {r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(msg.contains("`arguments` must be an object"), "{args}: {msg}");
    }
    let r = s.request(6, "tools/call", json!({"name": 7, "arguments": {}}));
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("`name`"), "{r}");
    let r = s.request(8, "no/such/method", json!({}));
    assert_eq!(r["error"]["code"], json!(-32601), "{r}");
    // Nothing was written by the rejected calls; a good call still works.
    assert!(!dir.path().join("cold").exists());
    let r = s.call(9, "mem_write", json!({"text": "还在服务"}));
    assert_eq!(r["isError"], json!(false), "{r}");
    drop(s.stdin.take());
    assert!(wait_at_most(&mut s.child, 30).success());
}
