"""The MCP server under a client nobody here wrote: the official MCP Python SDK (`mcp` on PyPI).

Run by tests/mcp_client.rs (the Rust test suite) as
    python3 tests/mcp/test_mcp.py BIN README
BIN is the built `memlayers` binary, README the repository's README.md: the server is started
with the command line of the README's Claude Desktop block (its `memlayers` replaced by BIN, its
data root by a temporary folder), so the README's block is the one tested. Every tool is called
with good and bad arguments; results are checked against hand-worked values and the files on
disk; the SDK itself validates every structuredContent against the tool's outputSchema.
Exit 0 = all passed; any failure raises (exit 1) with the step named.
"""

import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN, README = sys.argv[1], sys.argv[2]
# "now" pinned at 2026-11-29 12:00 in Shanghai (a Sunday; 04:00Z), so every date below is
# worked out by hand.
NOW = "2026-11-29T12:00:00+08:00"

TOOLS = {
    "mem_hot_get": ([], []),
    "mem_hot_set": (["content"], ["content"]),
    "mem_write": (["text", "tag", "important", "source"], ["text"]),
    "mem_recall": (["keyword", "limit", "mode"], ["keyword"]),
    "mem_recent": (["days", "limit"], []),
    "mem_by_tag": (["tag", "limit"], ["tag"]),
    "mem_by_date": (["from", "to", "limit"], ["from", "to"]),
    "mem_summarize": (["period", "date", "force"], []),
    "mem_stats": ([], []),
    "mem_retrieve": (["query", "from", "to", "tz", "limit", "explain"], ["query"]),
    "mem_time_window": (["text", "tz"], ["text"]),
}
# (tool, argument) -> default, from the plugin's README tables.
DEFAULTS = {
    ("mem_recall", "limit"): 10,
    ("mem_recall", "mode"): "and",
    ("mem_recent", "days"): 3,
    ("mem_recent", "limit"): 50,
    ("mem_by_tag", "limit"): 20,
    ("mem_by_date", "limit"): 50,
    ("mem_summarize", "period"): "day",
    ("mem_summarize", "force"): False,
    ("mem_write", "important"): False,
    ("mem_retrieve", "limit"): 10,
    ("mem_retrieve", "explain"): False,
}

ALLOWED = {"type", "oneOf", "properties", "required", "additionalProperties", "items", "enum", "const",
           "description", "title", "default", "examples"}
TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}


def subset_violations(s, path="#"):
    """Where a schema leaves DeepSeek Harness's closed JSON-Schema subset (written here, independently
    of the Rust check)."""
    out = []
    if not isinstance(s, dict):
        return [f"{path}: not an object"]
    for k, v in s.items():
        if k not in ALLOWED:
            out.append(f"{path}/{k}: keyword outside the subset")
        elif k == "type" and not (isinstance(v, str) and v in TYPES):
            out.append(f"{path}/type: {v!r} is not one type string")
        elif k == "oneOf":
            for i, x in enumerate(v):
                out += subset_violations(x, f"{path}/oneOf/{i}")
        elif k == "properties":
            for n, x in v.items():
                out += subset_violations(x, f"{path}/properties/{n}")
        elif k == "items":
            out += subset_violations(v, f"{path}/items")
        elif k == "additionalProperties" and isinstance(v, dict):
            out += subset_violations(v, f"{path}/additionalProperties")
    return out


def readme_block(name):
    """The JSON block after `<!-- mcp-config: NAME -->` in the README."""
    text = Path(README).read_text(encoding="utf-8")
    m = re.search(r"<!-- mcp-config: " + re.escape(name) + r" -->\s*```json\n(.*?)```", text, re.S)
    assert m, f"README has no ```json block after <!-- mcp-config: {name} -->"
    return json.loads(m.group(1))


def server_command(root):
    cfg = readme_block("claude-desktop")["mcpServers"]["memlayers"]
    assert cfg["command"] == "memlayers", cfg
    args = list(cfg["args"])
    assert args[0] == "mcp" and "--data-root" in args, args
    args[args.index("--data-root") + 1] = str(root)
    # The other README blocks start the same command line.
    vs = readme_block("vscode")["servers"]["memlayers"]
    assert (vs["command"], vs["args"], vs["type"]) == (cfg["command"], cfg["args"], "stdio"), vs
    dsh = readme_block("deepseek-harness")["mcpServers"]["memlayers"]
    assert (dsh["command"], dsh["args"]) == (cfg["command"], cfg["args"]), dsh
    # The `uvx` block (the wheel run without installing): the same command line behind
    # `uvx memlayers` (the README says the other hosts take the same command and args).
    for name, path in [("deepseek-harness", ["mcpServers"])]:
        block = readme_block(name + "-uvx")
        for key in path + ["memlayers"]:
            block = block[key]
        assert (block["command"], block["args"]) == ("uvx", ["memlayers"] + cfg["args"]), (name, block)
    return args + ["--now", NOW, "--tz", "Asia/Shanghai"]


def text_of(r):
    return "".join(c.text for c in r.content if getattr(c, "type", "") == "text")


class Client:
    def __init__(self, session):
        self.s = session

    async def ok(self, tool, args):
        r = await self.s.call_tool(tool, args)
        assert not r.is_error, f"{tool}({args}) failed: {text_of(r)}"
        assert r.structured_content == json.loads(text_of(r)), f"{tool}: text and structuredContent differ"
        return r.structured_content

    async def bad(self, tool, args, field):
        r = await self.s.call_tool(tool, args)
        msg = text_of(r)
        assert r.is_error, f"{tool}({args}) should fail, got {msg}"
        assert field in msg, f"{tool}({args}): the error {msg!r} does not name {field!r}"
        return msg


async def run(root, log):
    params = StdioServerParameters(command=BIN, args=server_command(root))
    async with stdio_client(params, errlog=log) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            ins = init.instructions or ""
            for word in ["mem_hot_get", "mem_write", "important", "mem_retrieve", "mem_summarize"]:
                assert word in ins, f"instructions lack {word}: {ins}"
            c = Client(session)

            # -- tools/list: names, arguments, defaults, schemas inside the subset
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == set(TOOLS), sorted(tools)
            for name, (props, required) in TOOLS.items():
                t = tools[name]
                for kind, s in [("input", t.input_schema), ("output", t.output_schema)]:
                    assert s is not None, f"{name} has no {kind} schema"
                    v = subset_violations(s)
                    assert not v, f"{name} {kind} schema: {v}"
                assert sorted(t.input_schema["properties"]) == sorted(props), (name, t.input_schema)
                assert sorted(t.input_schema.get("required", [])) == sorted(required), name
                assert t.input_schema["additionalProperties"] is False, name
                assert t.description and len(t.description) > 60, name
            for (name, arg), d in DEFAULTS.items():
                assert tools[name].input_schema["properties"][arg]["default"] == d, (name, arg)
            assert tools["mem_recall"].input_schema["properties"]["mode"]["enum"] == ["and", "or", "any"]
            assert "mem_recent" in tools["mem_recall"].description  # the fallback order
            src = tools["mem_write"].input_schema["properties"]["source"]
            assert {"type": "null"} in src["oneOf"], src

            # -- hot layer, empty: no file created
            h = await c.ok("mem_hot_get", {})
            assert (h["content"], h["chars"], h["limit"], h["overLimit"], h["candidateCount"]) == ("", 0, 600, False, 0)
            assert not (root / "hot.md").exists()

            # -- write
            w = await c.ok("mem_write", {"text": "晚饭吃了\n火锅", "tag": "[饮食]", "source": {"conv": "private:1", "seq": 7}})
            assert (w["added"], w["date"], w["ts"], w["tag"], w["candidateIndex"]) == (True, "2026-11-29", "2026-11-29T04:00:00.000Z", "饮食", 0), w
            day = root / "cold/2026-11/2026-11-29.md"
            assert "- [2026-11-29T04:00:00.000Z] [饮食] 晚饭吃了 火锅 〔src:private:1#7〕" in day.read_text(encoding="utf-8")
            w = await c.ok("mem_write", {"text": "周末想去看海", "tag": "计划", "important": True})
            assert w["candidateIndex"] == 1 and w["overLimit"] is False, w
            assert "- [2026-11-29T04:00:00.000Z] [计划] 周末想去看海" in (root / "hot.md").read_text(encoding="utf-8")
            again = await c.ok("mem_write", {"text": "周末想去看海", "tag": "计划"})
            assert again["added"] is False
            await c.bad("mem_write", {"text": ""}, "text")
            await c.bad("mem_write", {"text": "x" * 4001}, "text")
            await c.bad("mem_write", {"text": "a", "important": "yes"}, "important")
            await c.bad("mem_write", {"text": "a", "source": {"seq": 1}}, "source")
            await c.bad("mem_write", {"tag": "a"}, "text")
            await c.bad("mem_write", {"text": "a", "colour": "red"}, "colour")

            # -- a hand edit and a CLI write made while the server runs are seen by the next call
            with day.open("a", encoding="utf-8") as f:
                f.write("- [2026-11-29T05:00:00.000Z] [饮食] 夜宵手写的烤串\n")
            subprocess.run([BIN, "write", "--data-root", str(root), "--now", "2026-11-29T06:00:00Z", "--tag", "饮食",
                            "- 命令行写的火锅蘸料"], check=True, capture_output=True)
            r = await c.ok("mem_by_tag", {"tag": "饮食"})
            assert [i["content"] for i in r["items"]] == ["- 命令行写的火锅蘸料", "夜宵手写的烤串", "晚饭吃了 火锅"], r
            assert (r["tag"], r["matched"], r["returned"]) == ("饮食", 3, 3)

            # -- recall: ranked, scores not all zero, source parsed back
            r = await c.ok("mem_recall", {"keyword": "火锅"})
            assert (r["mode"], r["tokens"], r["matched"], r["returned"]) == ("and", ["火锅"], 2, 2), r
            assert {i["content"] for i in r["items"]} == {"晚饭吃了 火锅", "- 命令行写的火锅蘸料"}
            # The score is whatever the ranking (src/search) produces, passed through as a number.
            scores = [i["score"] for i in r["items"]]
            assert all(isinstance(x, (int, float)) for x in scores) and any(x > 0 for x in scores), scores
            assert scores == sorted(scores, reverse=True), scores
            hit = next(i for i in r["items"] if i["content"] == "晚饭吃了 火锅")
            assert hit["source"]["conv"] == "private:1" and str(hit["source"]["seq"]) == "7", hit
            r = await c.ok("mem_recall", {"keyword": "火锅 看海", "mode": "or", "limit": 1})
            assert (r["matched"], r["returned"]) == (3, 1), r
            await c.bad("mem_recall", {"keyword": "火锅", "limit": 0}, "limit")
            await c.bad("mem_recall", {"keyword": "火锅", "limit": 51}, "limit")
            await c.bad("mem_recall", {"keyword": "火锅", "limit": 2.5}, "limit")
            await c.bad("mem_recall", {"keyword": "火锅", "limit": "ten"}, "limit")
            await c.bad("mem_recall", {"keyword": "火锅", "mode": "xor"}, "mode")
            await c.bad("mem_recall", {}, "keyword")

            # -- recent / by_date
            r = await c.ok("mem_recent", {})
            assert (r["days"], r["from"], r["to"], r["returned"]) == (3, "2026-11-27", "2026-11-29", 4), r
            assert r["items"][0]["content"] == "- 命令行写的火锅蘸料"  # newest first
            await c.bad("mem_recent", {"days": 366}, "days")
            await c.bad("mem_recent", {"limit": 201}, "limit")
            r = await c.ok("mem_by_date", {"from": "2026-11-29", "to": "2026-11-29"})
            assert (r["from"], r["to"], r["scannedFiles"], r["returned"]) == ("2026-11-29", "2026-11-29", 1, 4), r
            r = await c.ok("mem_by_date", {"from": "2026-10-01", "to": "2026-10-31"})
            assert r["returned"] == 0
            await c.bad("mem_by_date", {"from": "2026-13-01", "to": "2026-12-01"}, "from")
            await c.bad("mem_by_date", {"from": "2026-11-29", "to": "2026-11-01"}, "to")
            await c.bad("mem_by_date", {"from": "2026-11-29"}, "to")
            await c.bad("mem_by_tag", {"tag": "x", "limit": -1}, "limit")

            # -- time window and retrieve: 上周 of Sunday 2026-11-29 is Mon 11-16 .. Sun 11-22
            t = await c.ok("mem_time_window", {"text": "上周 火锅"})
            win = t["window"]
            assert (win["startDate"], win["endDate"], win["grain"]) == ("2026-11-16", "2026-11-23", "week"), t
            assert win["start"].startswith("2026-11-15T16:00:00") and t["rest"].strip() == "火锅", t
            t = await c.ok("mem_time_window", {"text": "上周", "tz": "UTC"})
            assert t["window"]["start"].startswith("2026-11-16T00:00:00"), t
            t = await c.ok("mem_time_window", {"text": "火锅"})
            assert t["window"] is None and t["rest"] == "火锅"
            await c.bad("mem_time_window", {"text": "上周", "tz": "Mars/Olympus"}, "tz")
            r = await c.ok("mem_retrieve", {"query": "今天 火锅"})
            assert {i["content"] for i in r["items"]} == {"晚饭吃了 火锅", "- 命令行写的火锅蘸料"}, r
            # No 火锅 last week (nor widened ±7 days): the two 火锅 entries of today fill the
            # answer, marked outside the window.
            r = await c.ok("mem_retrieve", {"query": "上周 火锅", "explain": True})
            assert r["explain"]["window"]["startDate"] == "2026-11-16", r
            assert {i["content"] for i in r["items"]} == {"晚饭吃了 火锅", "- 命令行写的火锅蘸料"}, r
            assert all(i["inWindow"] is False for i in r["items"]), r
            assert (r["explain"]["inWindow"], r["explain"]["filled"]) == (0, 2), r
            r = await c.ok("mem_retrieve", {"query": "火锅", "from": "2026-10-01", "to": "2026-10-31"})
            assert r["returned"] == 0, r
            await c.bad("mem_retrieve", {"query": "火锅", "from": "2026-11-01"}, "to")
            await c.bad("mem_retrieve", {"query": "火锅", "limit": 99}, "limit")
            await c.bad("mem_retrieve", {"query": ""}, "query")
            await c.bad("mem_retrieve", {"query": "   "}, "query")
            await c.bad("mem_recall", {"keyword": ""}, "keyword")
            await c.bad("mem_retrieve", {"query": "火锅", "tz": "Nowhere/City"}, "tz")

            # -- hot set: body replaced, candidates kept
            s = await c.ok("mem_hot_set", {"content": "身份：测试助手\n\n约定：每周日复盘"})
            assert (s["chars"], s["overLimit"], s["evicted"], s["candidateCount"]) == (17, False, [], 1), s
            hot = (root / "hot.md").read_text(encoding="utf-8")
            assert hot.startswith("身份：测试助手\n\n约定：每周日复盘\n") and "周末想去看海" in hot, hot
            h = await c.ok("mem_hot_get", {})
            assert (h["chars"], h["candidateCount"], h["candidates"][0]["content"]) == (17, 1, "周末想去看海"), h
            await c.bad("mem_hot_set", {}, "content")
            await c.bad("mem_hot_set", {"content": 5}, "content")

            # -- summarize: the day file appears on disk
            m = await c.ok("mem_summarize", {"period": "day", "date": "2026-11-29"})
            assert (m["period"], m["label"], m["file"], m["created"]) == ("day", "2026-11-29", "summaries/day/2026-11-29.md", True), m
            assert "晚饭吃了 火锅" in (root / m["file"]).read_text(encoding="utf-8"), m
            m2 = await c.ok("mem_summarize", {"date": "2026-11-29"})
            assert m2["created"] is False
            await c.bad("mem_summarize", {"period": "year"}, "period")
            await c.bad("mem_summarize", {"date": "29.11.2026"}, "date")

            # -- stats
            st = await c.ok("mem_stats", {})
            assert (st["cold"]["files"], st["cold"]["entries"], st["cold"]["latest"]) == (1, 4, "2026-11-29"), st["cold"]
            assert (st["hot"]["chars"], st["hot"]["candidateCount"], st["summaries"]["day"]["files"]) == (17, 1, 1), st
            await c.bad("mem_stats", {"x": 1}, "x")

            # -- an unknown tool is an error result, and the server keeps serving
            r = await session.call_tool("mem_nothing", {})
            assert r.is_error and "mem_nothing" in text_of(r)
            await c.ok("mem_stats", {})
    # The client closed stdin (EOF): the recall hits are in usage.json.
    usage = json.loads((root / "usage.json").read_text(encoding="utf-8"))
    key = hashlib.sha1("晚饭吃了 火锅".encode("utf-8")).hexdigest()
    assert usage["entries"][key]["hits"] >= 1, usage


def main():
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "memory"
        with open(Path(d) / "server.log", "w+") as log:
            try:
                asyncio.run(run(root, log))
            except BaseException:
                log.seek(0)
                sys.stderr.write("---- server stderr ----\n" + log.read())
                raise
    print("mcp python sdk client: all checks passed")


if __name__ == "__main__":
    main()
