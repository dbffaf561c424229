"""`memlayers mcp --http` under the official MCP Python SDK's streamable HTTP client.

Run by tests/it/mcp_http.rs as
    python3 tests/mcp/test_mcp_http.py BIN
BIN is the `memlayers` binary to test (the cargo-built one, or in CI the one a fresh venv
installed from the wheel). The script starts the servers itself, each on 127.0.0.1 port 0 (a
free port), and reads the URL from the line the server prints once it listens (a handshake,
not a sleep). Checks, each with values worked out by hand:
- tools/list over HTTP: the 11 tools; every tool called once with good arguments;
- a write recalled; 5 concurrent clients x 20 writes each, all on disk once and all found;
- a browser Origin from elsewhere: 403; a localhost Origin: served;
- MEMLAYERS_MCP_TOKEN set: no token or a wrong one 401, the right one served;
- a non-loopback address without a token: refused at start (exit 2, saying why), nothing created;
- SIGTERM: the server exits 0.
Exit 0 = all passed; any failure raises (exit 1) with the step named.
"""

import asyncio
import json
import logging
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BIN = sys.argv[1]
# The SDK warns "Session termination failed: 202" when a session's closing DELETE is answered
# 202 Accepted (rmcp's answer) rather than 200/204; the session is closed either way.
logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)
# Sunday 2026-11-29 12:00 in Shanghai (04:00Z): every date below is worked out from it.
NOW = "2026-11-29T12:00:00+08:00"
TOOLS = {"mem_hot_get", "mem_hot_set", "mem_write", "mem_recall", "mem_recent", "mem_by_tag", "mem_by_date",
         "mem_summarize", "mem_stats", "mem_retrieve", "mem_time_window"}
CLIENTS = ["alpha", "bravo", "charlie", "delta", "echo"]
WRITES = 20


class Server:
    """`BIN mcp --http 127.0.0.1:0` on `root`; its URL read from its stderr."""

    def __init__(self, root, token=None):
        env = dict(os.environ, MEMLAYERS_SERVER="off")
        env.pop("MEMLAYERS_MCP_TOKEN", None)
        if token is not None:
            env["MEMLAYERS_MCP_TOKEN"] = token
        self.p = subprocess.Popen(
            [BIN, "mcp", "--http", "127.0.0.1:0", "--data-root", str(root), "--now", NOW, "--tz", "Asia/Shanghai"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        self.log = []
        line = self.p.stderr.readline().decode()
        self.log.append(line)
        m = re.search(r"MCP over streamable HTTP at (http://\S+/mcp)", line)
        assert m, f"server did not say where it listens: {line!r}"
        self.url = m.group(1)
        # Keep draining stderr so the server never blocks on a full pipe.
        threading.Thread(target=lambda: self.log.extend(l.decode() for l in self.p.stderr), daemon=True).start()

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        code = self.p.wait(timeout=30)
        assert code == 0, f"server exited {code} after SIGTERM: {''.join(self.log)}"


def text_of(r):
    return "".join(c.text for c in r.content if getattr(c, "type", "") == "text")


async def ok(s, tool, args):
    r = await s.call_tool(tool, args)
    assert not r.is_error, f"{tool}({args}) failed: {text_of(r)}"
    return r.structured_content


async def session(url, headers=None):
    """An initialized SDK session over streamable HTTP (an async context manager)."""
    client = create_mcp_http_client(headers=headers)

    class Ctx:
        async def __aenter__(self):
            self.stack = __import__("contextlib").AsyncExitStack()
            await self.stack.__aenter__()
            await self.stack.enter_async_context(client)
            read, write = await self.stack.enter_async_context(streamable_http_client(url, http_client=client))
            self.s = await self.stack.enter_async_context(ClientSession(read, write))
            await self.s.initialize()
            return self.s

        async def __aexit__(self, *exc):
            return await self.stack.__aexit__(*exc)

    return Ctx()


async def each_tool(url, root):
    async with await session(url) as s:
        tools = {t.name for t in (await s.list_tools()).tools}
        assert tools == TOOLS, sorted(tools)
        w = await ok(s, "mem_write", {"text": "HTTP 上写的火锅", "tag": "饮食"})
        assert (w["added"], w["date"], w["ts"]) == (True, "2026-11-29", "2026-11-29T04:00:00.000Z"), w
        r = await ok(s, "mem_recall", {"keyword": "火锅"})
        assert [i["content"] for i in r["items"]] == ["HTTP 上写的火锅"], r
        r = await ok(s, "mem_retrieve", {"query": "今天 火锅"})
        assert [i["content"] for i in r["items"]] == ["HTTP 上写的火锅"], r
        r = await ok(s, "mem_by_tag", {"tag": "饮食"})
        assert r["returned"] == 1, r
        r = await ok(s, "mem_recent", {"days": 1})
        assert (r["from"], r["to"], r["returned"]) == ("2026-11-29", "2026-11-29", 1), r
        r = await ok(s, "mem_by_date", {"from": "2026-11-29", "to": "2026-11-29"})
        assert r["returned"] == 1, r
        r = await ok(s, "mem_time_window", {"text": "上周"})
        assert (r["window"]["startDate"], r["window"]["endDate"]) == ("2026-11-16", "2026-11-23"), r
        r = await ok(s, "mem_hot_set", {"content": "身份：HTTP 测试"})
        assert r["chars"] == 10, r  # 身份：HTTP 测试 = 2 + 1 + 4 + 1 + 2 code points
        r = await ok(s, "mem_hot_get", {})
        assert r["content"] == "身份：HTTP 测试", r
        r = await ok(s, "mem_summarize", {"date": "2026-11-29"})
        assert (r["file"], r["created"]) == ("summaries/day/2026-11-29.md", True), r
        assert (root / r["file"]).exists()
        r = await ok(s, "mem_stats", {})
        assert r["cold"]["entries"] == 1, r
        # A bad argument is a tool error naming it, over HTTP as over stdio.
        bad = await s.call_tool("mem_recall", {"keyword": "火锅", "limit": 0})
        assert bad.is_error and "limit" in text_of(bad), text_of(bad)


async def writer(url, name):
    async with await session(url) as s:
        for i in range(WRITES):
            w = await ok(s, "mem_write", {"text": f"并发 {name} 第{i}条", "tag": "并发"})
            assert w["added"] is True, w


async def concurrent(url, root):
    await asyncio.gather(*(writer(url, n) for n in CLIENTS))
    day = (root / "cold/2026-11/2026-11-29.md").read_text(encoding="utf-8")
    for n in CLIENTS:
        for i in range(WRITES):
            line = f"[并发] 并发 {n} 第{i}条"
            assert day.count(line + "\n") == 1, f"{line!r} is on disk {day.count(line + chr(10))} times"
    async with await session(url) as s:
        for n in CLIENTS:
            r = await ok(s, "mem_recall", {"keyword": n, "limit": 50})
            got = sorted(i["content"] for i in r["items"])
            assert got == sorted(f"并发 {n} 第{i}条" for i in range(WRITES)), (n, got)
        r = await ok(s, "mem_stats", {})
        assert r["cold"]["entries"] == 1 + len(CLIENTS) * WRITES, r


def initialize_body():
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw-probe", "version": "0"}}}


def raw_post(url, headers):
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    h.update(headers)
    return httpx2.post(url, headers=h, content=json.dumps(initialize_body()), timeout=30)


def origins(url):
    r = raw_post(url, {"Origin": "http://evil.example"})
    assert r.status_code == 403, (r.status_code, r.text)
    r = raw_post(url, {"Origin": "https://127.0.0.1.evil.example:443"})
    assert r.status_code == 403, (r.status_code, r.text)
    port = url.split(":")[2].split("/")[0]
    r = raw_post(url, {"Origin": f"http://localhost:{port}"})
    assert r.status_code == 200, (r.status_code, r.text)
    r = raw_post(url, {})  # no Origin: a non-browser client
    assert r.status_code == 200, (r.status_code, r.text)


async def token(tmp):
    srv = Server(tmp / "tok", token="s3cret-token")
    try:
        for headers in [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Bearer s3cret-toke"},
                        {"Authorization": "s3cret-token"}]:
            r = raw_post(srv.url, headers)
            assert r.status_code == 401, (headers, r.status_code, r.text)
            assert r.headers.get("www-authenticate", "").lower().startswith("bearer"), r.headers
        async with await session(srv.url, {"Authorization": "Bearer s3cret-token"}) as s:
            assert {t.name for t in (await s.list_tools()).tools} == TOOLS
        # The token does not lift the Origin check.
        r = raw_post(srv.url, {"Authorization": "Bearer s3cret-token", "Origin": "http://evil.example"})
        assert r.status_code == 403, (r.status_code, r.text)
    finally:
        srv.stop()


def non_loopback_without_token(tmp):
    root = tmp / "lan"
    env = dict(os.environ, MEMLAYERS_SERVER="off")
    env.pop("MEMLAYERS_MCP_TOKEN", None)
    for addr in ["0.0.0.0:0", "[::]:0"]:
        p = subprocess.run([BIN, "mcp", "--http", addr, "--data-root", str(root)], env=env,
                           capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        err = p.stderr.decode()
        assert p.returncode == 2, (addr, p.returncode, err)
        assert "MEMLAYERS_MCP_TOKEN" in err and "loopback" in err, err
        assert not root.exists(), "the refused server created its data root"
    env["MEMLAYERS_MCP_TOKEN"] = ""
    p = subprocess.run([BIN, "mcp", "--http", "0.0.0.0:0", "--data-root", str(root)], env=env,
                       capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and "MEMLAYERS_MCP_TOKEN" in p.stderr.decode(), p


def main():
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        root = tmp / "memory"
        non_loopback_without_token(tmp)
        srv = Server(root)
        try:
            asyncio.run(each_tool(srv.url, root))
            asyncio.run(concurrent(srv.url, root))
            origins(srv.url)
        except BaseException:
            sys.stderr.write("---- server stderr ----\n" + "".join(srv.log))
            raise
        finally:
            srv.stop()
        asyncio.run(token(tmp))
    print("mcp python sdk http client: all checks passed")


if __name__ == "__main__":
    main()
