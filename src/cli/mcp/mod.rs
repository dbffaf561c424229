//! `memlayers mcp`: the memory as tools for an agent host, over the Model Context Protocol
//! (stdio transport, newline-delimited JSON-RPC) with the official Rust SDK, `rmcp`.
//!
//! One long-lived [`Memory`] serves every call, so a call pays neither process start nor index
//! open. Every query first syncs the index with the files, so hand edits and writes made by
//! the command line while the server runs are seen by its next call. Calls run one at a time
//! (the plugin's serial queue). Bad arguments and internal errors come back as a tool result
//! with `isError: true` and a message naming the field; the SDK answers a line that is not
//! JSON-RPC with an error and keeps reading. Usage hits not yet in usage.json are written
//! when the client disconnects (EOF on stdin) and on SIGTERM / SIGINT.

pub mod schema;
pub mod tools;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::{Error, Memory, Result};

/// What the server tells the model at `initialize` (the plugin's 使用建议, shortened).
pub const INSTRUCTIONS: &str = "memlayers: your long-term memory, kept as plain Markdown files.\n\
- Session start: call mem_hot_get (nothing is injected for you); if overLimit, write a trimmed body with mem_hot_set.\n\
- Details worth keeping: mem_write(text, tag); important: true only for what really matters (it becomes a hot-layer candidate).\n\
- Questions about the past, above all with a time word (上周, 昨天, last week): mem_retrieve.\n\
- Cannot remember something: mem_recent(3) → topics index of mem_hot_get → mem_by_date on those months → mem_recall last.\n\
- End of a day or week: mem_summarize(\"day\") / mem_summarize(\"week\"); mem_stats shows what may be evicted next.";

/// The MCP server: the tool table over one open [`Memory`].
#[derive(Debug)]
pub struct Server {
    mem: Arc<Memory>,
    tools: Vec<tools::ToolDef>,
}

impl Server {
    /// A server over `mem`.
    pub fn new(mem: Arc<Memory>) -> Server {
        Server { mem, tools: tools::tools() }
    }

    /// The tools as MCP `Tool` records (name, description, schemas, read-only hint).
    pub fn list(&self) -> Vec<Tool> {
        self.tools
            .iter()
            .map(|t| {
                let mut a = ToolAnnotations::new();
                a.read_only_hint = Some(t.read_only);
                a.destructive_hint = Some(false);
                a.open_world_hint = Some(false);
                let obj = |v: &serde_json::Value| Arc::new(v.as_object().cloned().unwrap_or_default());
                let mut tool = Tool::new(t.name, t.description, obj(&t.input)).with_raw_output_schema(obj(&t.output));
                tool.annotations = Some(a);
                tool
            })
            .collect()
    }

    /// Runs one tool call: the result as `structuredContent` plus the same JSON as text, or
    /// an `isError` result whose text names the bad field (`invalid limit: …`) or says
    /// `internal error: …`. `None` when no tool has that name.
    pub fn call(
        &self,
        name: &str,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Option<CallToolResult> {
        let tool = self.tools.iter().find(|t| t.name == name)?;
        // The previous call's usage hits, if its reply went out before they were recorded
        // (serve_stdio): this call ranks with them, as it would have without deferral.
        self.mem.record_deferred_hits();
        let empty = serde_json::Map::new();
        Some(match tool.call(&self.mem, arguments.unwrap_or(&empty)) {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => {
                let msg = if e.is_bad_input() { e.to_string() } else { format!("internal error: {e}") };
                CallToolResult::error(vec![ContentBlock::text(msg)])
            }
        })
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("memlayers", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let called = self.call(&request.name, request.arguments.as_ref());
        // The usage hits of this call are recorded once its reply is on its way: rmcp sends
        // the reply from its own loop after this handler returns, so the recording waits two
        // turns of the (single-threaded) runtime. The next call records them first if it comes
        // before (Server::call).
        let mem = self.mem.clone();
        tokio::task::spawn(async move {
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
            mem.record_deferred_hits();
        });
        match called {
            Some(r) => Ok(r.into()),
            None => {
                let names: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
                let msg = format!("unknown tool {:?}; the tools are {}", request.name, names.join(", "));
                Ok(CallToolResult::error(vec![ContentBlock::text(msg)]).into())
            }
        }
    }
}

/// Serves MCP on stdin/stdout until the client closes stdin or the process gets SIGTERM or
/// SIGINT, then writes pending usage hits. Errors: the runtime cannot start, the MCP
/// handshake fails, or the final usage write fails.
pub fn serve_stdio(mem: Memory) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<tokio runtime>", e))?;
    // Replies go out before their usage hits are recorded (Memory::defer_hits): about a third
    // of a day-window mem_retrieve at 1M entries (issue 15).
    mem.defer_hits(true);
    let mem = Arc::new(mem);
    let server = Server::new(mem.clone());
    let served = rt.block_on(async move {
        let running = server
            // On Linux, when stdin and stdout are pipes (as an agent host starts a stdio
            // server), the SDK drives them through tokio's non-blocking pipe driver, each on a
            // file description of its own (reopened through /proc/self/fd, so the process's
            // own streams keep their flags); elsewhere it falls back to `stdio()`, whose reads
            // and writes each hop to tokio's blocking thread pool and back (two thread
            // switches per message: ~0.2 ms of a day-window mem_retrieve round trip at 1M
            // entries, issue 15).
            .serve(rmcp::transport::stdio_pipes())
            .await
            .map_err(|e| Error::bad("mcp", format!("handshake failed: {e}")))?;
        let ct = running.cancellation_token();
        tokio::select! {
            _ = running.waiting() => {}
            _ = crate::cli::stop_signal() => ct.cancel(),
        }
        Ok::<(), Error>(())
    });
    // A pending read of stdin cannot be cancelled where the transport fell back to tokio's
    // blocking stdin (not a pipe, or not Linux), so after a signal the runtime is left behind
    // instead of waiting for input that may never come.
    rt.shutdown_background();
    served?;
    mem.flush_usage()?;
    Ok(())
}
