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

pub mod http;
pub mod schema;
pub mod tools;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::{Error, Memory, Result};

/// What the server tells the model at `initialize` (the plugin's 使用建议, shortened).
pub const INSTRUCTIONS: &str = "memlayers: your long-term memory, kept as plain Markdown files.\n\
- Session start: call mem_hot_get (nothing is injected for you); if overLimit, write a trimmed body with mem_hot_set.\n\
- Details worth keeping: mem_write(text, tag); important: true only for what really matters (it becomes a hot-layer candidate).\n\
- Questions about the past, above all with a time word (上周, 昨天, last week): mem_retrieve.\n\
- Cannot remember something: mem_recent(3) → topics index of mem_hot_get → mem_by_date on those months → mem_recall last.\n\
- End of a day or week: mem_summarize(\"day\") / mem_summarize(\"week\"); mem_stats shows what may be evicted next.";

/// The MCP server: the tool table over one open [`Memory`]. Cloning shares both.
#[derive(Debug, Clone)]
pub struct Server {
    mem: Arc<Memory>,
    tools: Arc<Vec<tools::ToolDef>>,
    /// Tool calls run on tokio's blocking pool instead of the runtime's thread (the HTTP
    /// transport, where other clients' requests must go on meanwhile).
    blocking_pool: bool,
}

impl Server {
    /// A server over `mem`; tool calls run on the runtime's thread, one at a time (stdio).
    pub fn new(mem: Arc<Memory>) -> Server {
        Server { mem, tools: Arc::new(tools::tools()), blocking_pool: false }
    }

    /// The same server with its tool calls run on tokio's blocking pool, so calls of several
    /// clients run at once (reads in parallel, writes one at a time under the writer lock).
    pub fn on_blocking_pool(mut self) -> Server {
        self.blocking_pool = true;
        self
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
        Some(match tool.call(&self.mem, arguments.unwrap_or(&empty)).and_then(structured) {
            Ok(r) => r,
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
        // The usage hits of this call are recorded once its reply is written (RecordAfterReply),
        // or first thing in the next call if that comes before (Server::call).
        let result = if self.blocking_pool {
            let this = self.clone();
            let (name, args) = (request.name.clone(), request.arguments.clone());
            tokio::task::spawn_blocking(move || this.call(&name, args.as_ref()))
                .await
                .map_err(|e| ErrorData::internal_error(format!("tool call failed: {e}"), None))?
        } else {
            self.call(&request.name, request.arguments.as_ref())
        };
        match result {
            Some(r) => Ok(r.into()),
            None => {
                let names: Vec<&str> = self.tools.iter().map(|t| t.name).collect();
                let msg = format!("unknown tool {:?}; the tools are {}", request.name, names.join(", "));
                Ok(CallToolResult::error(vec![ContentBlock::text(msg)]).into())
            }
        }
    }

    /// A request rmcp could not read as one it knows, such as a `tools/call` whose `arguments`
    /// is not an object: -32602 naming the member for `tools/call` ([`custom_request_error`]),
    /// otherwise -32601.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CustomResult, ErrorData> {
        Err(custom_request_error(&request))
    }
}

/// The JSON-RPC error for a request rmcp could not read as any MCP request it knows and handed
/// over as a custom request: a `tools/call` whose params do not have the shape the MCP schema
/// gives (`{"name": string, "arguments"?: object}`) is -32602 Invalid params naming the member
/// that is wrong (`arguments`, `name` or `params`); any other method is -32601 Method not found
/// naming it, as rmcp's default answers.
fn custom_request_error(request: &CustomRequest) -> ErrorData {
    use serde_json::Value;
    if request.method != "tools/call" {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method.clone(), None);
    }
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let msg = match &request.params {
        None => "invalid params: tools/call needs params {\"name\": string, \"arguments\": object}".to_string(),
        Some(Value::Object(p)) => match (p.get("name"), p.get("arguments")) {
            (Some(Value::String(_)), Some(a)) if !a.is_object() => {
                format!("invalid params: `arguments` must be an object (the tool's named arguments), got {}", kind(a))
            }
            (Some(Value::String(_)), _) => "invalid params: tools/call params do not match the MCP schema".to_string(),
            (Some(n), _) => format!("invalid params: `name` must be a string (the tool's name), got {}", kind(n)),
            (None, _) => "invalid params: `name` is missing (the tool's name)".to_string(),
        },
        Some(other) => format!("invalid params: `params` must be an object, got {}", kind(other)),
    };
    ErrorData::invalid_params(msg, None)
}

/// A tool's result as MCP returns it: `value` as `structuredContent` and, as the MCP spec asks
/// of a tool with structured output, the same JSON serialized in a text block. The text is
/// what rmcp's `CallToolResult::structured` makes (compact, keys in `Value`'s sorted order), but
/// written through `serde_json::to_string` into a byte buffer instead of `Value`'s `Display`,
/// which passes every token through `fmt::Formatter`: that took 70k of the 1.56M instructions
/// the server spent on a day-window `mem_retrieve` of 今天 at 1M entries (10 hits, 4 KB
/// answer; callgrind over 300 calls); the byte writer saves about 25k of them. Errors: none in
/// practice (a `Value` always serializes); reported as an internal error otherwise.
fn structured(value: serde_json::Value) -> Result<CallToolResult> {
    let text = serde_json::to_string(&value).map_err(|e| Error::Json { what: "tool result".into(), source: e })?;
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    Ok(result)
}

/// The stdio transport, with the usage hits that calls held back (Memory::defer_hits) recorded
/// right after each message is written: a reply goes out first, then its hits are recorded, in
/// the task that wrote it. This replaced a task spawned per call that yielded twice, guessing
/// that two turns of the runtime were enough for rmcp to write the reply (a spawn and three
/// polls per call: about 6k instructions, callgrind). Hits still pending when the next call
/// starts are recorded by it first (Server::call): a reply whose write waits for a slow reader
/// does not hold them back. In a back-to-back loop the recording still precedes the next call
/// (it has to: that call ranks with them); only an idle client hides it.
struct RecordAfterReply<T> {
    inner: T,
    mem: Arc<Memory>,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for RecordAfterReply<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = std::result::Result<(), T::Error>> + Send + 'static {
        let sent = self.inner.send(item);
        let mem = self.mem.clone();
        async move {
            let sent = sent.await;
            mem.record_deferred_hits();
            sent
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = std::result::Result<(), T::Error>> + Send {
        self.inner.close()
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
    // of a day-window mem_retrieve at 1M entries.
    mem.defer_hits(true);
    let mem = Arc::new(mem);
    let server = Server::new(mem.clone());
    let hits_mem = mem.clone();
    let served = rt.block_on(async move {
        // On Linux, when stdin and stdout are pipes (as an agent host starts a stdio server),
        // the SDK drives them through tokio's non-blocking pipe driver, each on a file
        // description of its own (reopened through /proc/self/fd, so the process's own streams
        // keep their flags); elsewhere it falls back to `stdio()`, whose reads and writes each
        // hop to tokio's blocking thread pool and back (two thread switches per message: ~0.2
        // ms of a day-window mem_retrieve round trip at 1M entries). The pair is what
        // `serve(stdio_pipes())` would turn into a transport itself (AsyncRwTransport).
        let (read, write) = rmcp::transport::stdio_pipes();
        let transport = RecordAfterReply { inner: AsyncRwTransport::new_server(read, write), mem: hits_mem };
        let running = server.serve(transport).await.map_err(|e| Error::bad("mcp", format!("handshake failed: {e}")))?;
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The result is what rmcp's own `CallToolResult::structured` makes, byte for byte on the
    /// wire: the same compact text (sorted keys, non-ASCII as is, escapes, floats) and the same
    /// `structuredContent`.
    #[test]
    fn structured_matches_the_sdk_constructor() {
        let v = json!({
            "query": "上周\"博物馆\"\\n",
            "matched": 2,
            "returned": 1,
            "items": [{"id": 772064411824u64, "score": 0.9922, "source": null, "tag": "-", "content": "a\tb\u{1}é"}],
            "widened": {"by": "±1 day", "startDate": "2016-11-29"},
            "neg": -1.5e-7,
        });
        let ours = structured(v.clone()).unwrap();
        let sdk = CallToolResult::structured(v);
        assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&sdk).unwrap());
        assert_eq!(ours, sdk);
    }
}
