//! A client of a running `memlayers mcp` server for the benchmarks: starts it, completes the
//! MCP handshake and makes `tools/call` round trips (newline-delimited JSON-RPC over stdio).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::BResult;

/// A running `memlayers mcp` server (newline-delimited JSON-RPC over stdio).
pub struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Mcp {
    /// Starts the server and completes the MCP handshake; `None` when this build has no `mcp`.
    pub fn start(bin: &Path, root: &Path, tz: &str, now: &str) -> BResult<Option<Mcp>> {
        let probe = Command::new(bin).args(["mcp", "--help"]).stdin(Stdio::null()).output()?;
        if !probe.status.success() {
            return Ok(None);
        }
        let mut child = Command::new(bin)
            .arg("--data-root")
            .arg(root)
            .args(["--tz", tz, "--now", now, "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().ok_or("mcp stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("mcp stdout")?);
        let mut m = Mcp { child, stdin, stdout, next_id: 1 };
        m.request(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench-calls", "version": "1"}}),
        )?;
        m.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(Some(m))
    }

    /// Writes one message as one line in one write, as an MCP host's SDK does. `writeln!` of
    /// a `Value` on the unbuffered `ChildStdin` made a write system call per JSON token (about
    /// 60 for a `mem_retrieve` request), each of which could wake the server for a partial
    /// line: 0.025–0.03 ms of every measured round trip (1M entries, 2-core VM).
    fn send(&mut self, msg: &serde_json::Value) -> BResult<()> {
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes())?;
        self.stdin.flush()?;
        Ok(())
    }

    fn request(&mut self, method: &str, params: serde_json::Value) -> BResult<serde_json::Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                return Err("mcp server closed its output".into());
            }
            let v: serde_json::Value = serde_json::from_str(&line)?;
            if v["id"] == id {
                if v.get("error").is_some() || v["result"]["isError"] == true {
                    return Err(format!("mcp {method}: {line}").into());
                }
                return Ok(v);
            }
        }
    }

    pub fn call(&mut self, tool: &str, args: serde_json::Value) -> BResult<()> {
        self.request("tools/call", serde_json::json!({"name": tool, "arguments": args})).map(|_| ())
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
