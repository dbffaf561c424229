//! The `memlayers` command line: one subcommand per tool, JSON out with the plugin's field
//! names. Exit codes: 0 ok, 2 bad input (bad arguments, invalid values), 1 internal error.

pub mod demo;
pub mod layers;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(all(unix, feature = "serve"))]
pub mod serve;

use std::path::{Path, PathBuf};

use chrono::Utc;
use clap::{Parser, Subcommand};
use serde::Serialize;

use crate::files::entry::Source;
use crate::layers::cold::WriteArgs;
use crate::{Config, Error, Memory, Result};

/// Heading of the options every subcommand takes, so a subcommand's `--help` lists its own
/// options apart from them.
const GLOBAL: &str = "Global options";

/// The end of `--help`: the environment variable that chooses whether queries use a server.
const SERVER_HELP: &str = "Environment:\n  MEMLAYERS_SERVER  whether a query uses a resident `memlayers serve` for its data root:\n                    auto (default: one already running, never started), spawn (also start\n                    one after a query none answered), off (never), require (fail, exit 1,\n                    when none answers). `memlayers serve --status` / `--stop`; docs/server.md.";

/// memlayers — layered long-term memory for LLM agents (Markdown canonical, SQLite index).
#[derive(Debug, Parser)]
#[command(name = "memlayers", version, about, after_help = SERVER_HELP)]
pub struct Cli {
    /// Data root to use as is (else config dataRoot → <dataRoot>/memory, else
    /// $DSH_HOME/dsh-memory-layers, else ~/.dsh/dsh-memory-layers).
    // This doc comment is the `--help` text, where `<dataRoot>` is a placeholder, not an HTML tag.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long, global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub data_root: Option<PathBuf>,
    /// JSON config file with the plugin's keys (hotLimit, halfLifeDays, timezone, …).
    #[arg(long, global = true, value_name = "FILE", help_heading = GLOBAL)]
    pub config: Option<PathBuf>,
    /// Compact one-line JSON instead of pretty-printed JSON.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,
    /// IANA time zone overriding config `timezone` (frames time words; a new data root records
    /// it as the zone its day files are dated in).
    #[arg(long, global = true, value_name = "ZONE", help_heading = GLOBAL)]
    pub tz: Option<String>,
    /// Pin "now" (RFC 3339 instant) instead of reading the clock.
    #[arg(long, global = true, value_name = "RFC3339", help_heading = GLOBAL)]
    pub now: Option<String>,
    /// The tool to run.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// mem_write: append one memory to today's cold file.
    Write {
        /// The text (one line; whitespace collapsed; ≤ 4000 characters). May start with `-`
        /// (a Markdown bullet such as "- bought milk").
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// Tag (brackets removed).
        #[arg(long)]
        tag: Option<String>,
        /// Also add it to the hot layer's candidates.
        #[arg(long)]
        important: bool,
        /// Source as JSON: {"conv": "...", "seq": 12, "msgId": "..."}.
        #[arg(long, value_name = "JSON")]
        source: Option<String>,
    },
    /// mem_recall: keyword recall across all months.
    Recall {
        /// Keyword(s), space-separated.
        keyword: String,
        /// 1–50, default 10.
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<i64>,
        /// and (default) | or | any.
        #[arg(long)]
        mode: Option<String>,
    },
    /// mem_recent: entries of the last N local days, newest first.
    Recent {
        /// 1–365, default 3.
        #[arg(long, allow_negative_numbers = true)]
        days: Option<i64>,
        /// 1–200, default 50.
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<i64>,
    },
    /// mem_by_tag: entries with this tag (case-insensitive; "-" or "" = untagged, as `write --tag ""` stores).
    ByTag {
        /// The tag.
        tag: String,
        /// 1–200, default 20.
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<i64>,
    },
    /// mem_by_date: entries of a closed local-date range.
    ByDate {
        /// First date, YYYY-MM-DD.
        from: String,
        /// Last date (inclusive), YYYY-MM-DD.
        to: String,
        /// 1–200, default 50.
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<i64>,
    },
    /// Bring the index up to date with the files (re-read everything with --full).
    Sync {
        /// Re-read every file, not only changed ones.
        #[arg(long)]
        full: bool,
    },
    /// Compare the index with the files and report differences (changes nothing).
    Check,
    /// Time-gated retrieval: a time expression in the query becomes a window applied before
    /// BM25 ranking ("上周 约定", "前天晚上我吃了什么", "last week rust").
    Retrieve {
        /// The query, with or without a time expression.
        query: String,
        /// Explicit window start (local date YYYY-MM-DD); skips time parsing. Needs --to.
        #[arg(long, requires = "to")]
        from: Option<String>,
        /// Explicit window end (local date, inclusive). Needs --from.
        #[arg(long, requires = "from")]
        to: Option<String>,
        /// 1–50, default 10.
        #[arg(long, allow_negative_numbers = true)]
        limit: Option<i64>,
        /// Show the window, the FTS5 query and per-hit score parts.
        #[arg(long)]
        explain: bool,
        /// Do not look for a time expression: the whole query is scored as text.
        #[arg(long)]
        no_time: bool,
    },
    /// Parse a time expression into a window (no data root needed).
    TimeWindow {
        /// Text with a time expression, e.g. "上周三" or "last week".
        text: String,
    },
    /// The main job on the bundled example archive: import it into a fresh data root and ask
    /// it time questions, with and without the time gate.
    Demo {
        /// The example archive (default examples/archive).
        #[arg(long)]
        archive: Option<PathBuf>,
    },
    /// Import an archive: daily notes (Obsidian, OpenClaw, plain YYYY-MM-DD.md), a Logseq
    /// graph, or another dsh-memory-layers data root. Idempotent.
    Import {
        /// The archive folder (read only).
        path: PathBuf,
        /// daily-notes | logseq | dsh (detected when omitted).
        #[arg(long)]
        format: Option<String>,
    },
    /// Serve the memory as MCP tools over stdio (mem_hot_get, mem_write, mem_recall,
    /// mem_retrieve, …) for an agent host; runs until the client closes stdin. With --http,
    /// over MCP's streamable HTTP transport instead, until SIGTERM or SIGINT.
    #[cfg(feature = "mcp")]
    Mcp {
        /// Serve over streamable HTTP at http://ADDR:PORT/mcp (e.g. 127.0.0.1:8765; port 0
        /// picks a free one, printed on stderr). A browser Origin other than localhost gets
        /// 403; with MEMLAYERS_MCP_TOKEN set, a request without `Authorization: Bearer
        /// <token>` gets 401; a non-loopback ADDR is refused without a token.
        #[arg(long, value_name = "ADDR:PORT")]
        http: Option<std::net::SocketAddr>,
    },
    /// Stay resident for this data root and answer the CLI's queries (opt-in; faster calls).
    ///
    /// Queries (recall, retrieve, recent, by-tag, by-date, hot-get, stats) of this data root are
    /// answered over a private Unix socket in the user's runtime folder ($XDG_RUNTIME_DIR/memlayers,
    /// else `<temp>/memlayers-<uid>`); nothing is written into the data root. A query uses a
    /// running server by default (MEMLAYERS_SERVER=auto) and starts none unless
    /// MEMLAYERS_SERVER=spawn. Runs until SIGTERM, SIGINT or SIGHUP, `serve --stop`,
    /// --idle-exit seconds without a call, its data root deleted or moved, its socket removed,
    /// or its executable replaced (checked every second). docs/server.md.
    #[cfg(all(unix, feature = "serve"))]
    Serve {
        /// Exit after this many seconds without a call (default: never).
        #[arg(long, value_name = "SECONDS", conflicts_with_all = ["status", "stop"])]
        idle_exit: Option<u64>,
        /// Report the server of this data root: exit 0 and its pid, binary, start and idle
        /// time; exit 3 when none runs; exit 1 when one holds the socket but does not answer.
        #[arg(long, conflicts_with = "stop")]
        status: bool,
        /// Stop the server of this data root: exit 0 once it wrote its pending usage hits and
        /// left; exit 3 when none runs; exit 1 when it did not confirm within 10 s.
        #[arg(long)]
        stop: bool,
    },
    /// The layer tools: hot-get, hot-set, summarize, stats, export, session-end.
    #[command(flatten)]
    Layer(crate::cli::layers::LayerCmd),
}

/// Prints memlayers' own log records of level warn and above on stderr, one line each,
/// `memlayers: <message>`: the CLI's established stderr format (the same lines the library
/// printed itself before it used `log`), which a generic logger such as env_logger would
/// change.
struct StderrLog;

static STDERR_LOG: StderrLog = StderrLog;

impl log::Log for StderrLog {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Warn && m.target().starts_with("memlayers")
    }

    fn log(&self, r: &log::Record) {
        if self.enabled(r.metadata()) {
            match CAPTURED.lock().ok().as_deref_mut().and_then(Option::as_mut) {
                Some(buf) => buf.push_str(&format!("memlayers: {}\n", r.args())),
                None => eprintln!("memlayers: {}", r.args()),
            }
        }
    }

    fn flush(&self) {}
}

/// Warnings logged while `memlayers serve` runs a forwarded call: they belong on that
/// call's stderr, not the server's.
static CAPTURED: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Starts (`true`) or ends (`false`) capturing the warnings [`StderrLog`] would print; ending
/// returns the captured lines.
#[cfg(all(unix, feature = "serve"))]
fn capture_warnings(on: bool) -> String {
    let Ok(mut g) = CAPTURED.lock() else { return String::new() };
    if on {
        *g = Some(String::new());
        String::new()
    } else {
        g.take().unwrap_or_default()
    }
}

/// Resolves on SIGTERM, SIGINT or SIGHUP (a closed terminal; Ctrl-C elsewhere): how the MCP server and `serve` learn
/// to stop, flush usage hits and exit.
#[cfg(all(unix, any(feature = "mcp", feature = "serve")))]
async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match (signal(SignalKind::terminate()), signal(SignalKind::interrupt()), signal(SignalKind::hangup())) {
        (Ok(mut term), Ok(mut int), Ok(mut hup)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
                _ = hup.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}

#[cfg(all(not(unix), any(feature = "mcp", feature = "serve")))]
async fn stop_signal() {
    let _ = tokio::signal::ctrl_c().await;
}

/// Sends the library's warnings (`log::warn!`) to stderr as `memlayers: <message>` lines, unless
/// the process already has a logger. Called by [`main`]; also by test processes that stand in
/// for the CLI.
pub fn log_warnings_to_stderr() {
    if log::set_logger(&STDERR_LOG).is_ok() {
        log::set_max_level(log::LevelFilter::Warn);
    }
}

/// Runs the CLI; returns the process exit code.
pub fn main() -> i32 {
    #[cfg(all(unix, feature = "serve"))]
    if let Some(code) = serve::forward_unparsed() {
        return code;
    }
    log_warnings_to_stderr();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    // A query goes to the data root's resident server when one answers (`memlayers serve`).
    #[cfg(all(unix, feature = "serve"))]
    if let Some(code) = serve::forward(&cli) {
        return code;
    }
    let json = cli.json;
    let out = match cli.cmd {
        #[cfg(all(unix, feature = "serve"))]
        Cmd::Serve { idle_exit, status, stop } => serve::main(&cli, idle_exit, status, stop),
        _ => outcome(json, run(cli)),
    };
    use std::io::Write;
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
    // No server answered this query and MEMLAYERS_SERVER=spawn: start one for the calls that
    // follow, now that the call has run.
    #[cfg(all(unix, feature = "serve"))]
    serve::spawn_pending();
    out.code
}

/// What a CLI call prints and its exit code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Exit code: 0 ok, 2 bad input, 1 internal error.
    pub code: i32,
    /// Standard output (the JSON result and a newline, or nothing).
    pub stdout: String,
    /// Standard error (the error line; warnings are printed as they arise).
    pub stderr: String,
}

/// The exit code and printed text of a command's result: its JSON on stdout, or the error on
/// stderr (as JSON `{"error": …}` with `--json`).
fn outcome(json: bool, r: Result<String>) -> Outcome {
    match r {
        Ok(out) if out.is_empty() => Outcome { code: 0, stdout: String::new(), stderr: String::new() },
        Ok(out) => Outcome { code: 0, stdout: format!("{out}\n"), stderr: String::new() },
        Err(e) => {
            let stderr = if json {
                format!("{}\n", serde_json::json!({ "error": e.to_string() }))
            } else {
                format!("error: {e}\n")
            };
            Outcome { code: if e.is_bad_input() { 2 } else { 1 }, stdout: String::new(), stderr }
        }
    }
}

fn render<T: Serialize>(v: &T, compact: bool) -> Result<String> {
    let r = if compact { serde_json::to_string(v) } else { serde_json::to_string_pretty(v) };
    r.map_err(|e| Error::Json { what: "output".into(), source: e })
}

/// Loads the config file (if any) and applies `--tz`; prints config warnings to stderr.
fn load_config(cli: &Cli) -> Result<Config> {
    let mut config = match &cli.config {
        Some(p) => {
            // The config file is the caller's input: unreadable or not JSON is bad input (exit 2).
            let text = std::fs::read_to_string(p)
                .map_err(|e| Error::bad("config", format!("cannot read {}: {e}", p.display())))?;
            let (c, warnings) = Config::from_json(&text).map_err(|e| match e {
                Error::Json { source, .. } => {
                    Error::bad("config", format!("{} is not valid JSON: {source}", p.display()))
                }
                other => other,
            })?;
            // Printed by the first load of the process only: a query loads the config twice
            // (once to find its server, once to run here when none answered), and printed each
            // warning twice.
            static PRINTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
            if !PRINTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                for w in warnings {
                    eprintln!("warning: config {}: {w}", p.display());
                }
            }
            c
        }
        None => Config::default(),
    };
    if let Some(tz) = &cli.tz {
        config.timezone = crate::config::parse_tz("tz", tz)?;
    }
    Ok(config)
}

pub use crate::files::parse_now;

/// True when the `--config` file sets `timezone`.
fn config_names_zone(cli: &Cli) -> bool {
    cli.config
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v.get("timezone").is_some())
}

/// The data root of a call: `--data-root`, else [`crate::files::resolve_data_root`]. Errors:
/// bad input naming `data-root` when HOME is unset and nothing else names a root.
fn data_root(cli: &Cli, config: &Config) -> Result<PathBuf> {
    match &cli.data_root {
        Some(d) => Ok(d.clone()),
        None => crate::files::resolve_data_root(
            config.data_root.as_deref(),
            std::env::var("DSH_HOME").ok().as_deref(),
            std::env::var_os("HOME").map(PathBuf::from).as_deref(),
        ),
    }
}

/// The zone `root`'s files are dated in, as recorded in its memlayers.json, if any.
fn recorded_zone(root: &Path) -> Option<chrono_tz::Tz> {
    std::fs::read_to_string(root.join(crate::files::zone::ZONE_FILE))
        .ok()
        .and_then(|t| crate::files::zone::parse(&t).ok())
}

/// `Ok` when the data root `root` exists; else bad input (exit 2) naming it, for the commands
/// that only read a root and so must not create one.
fn require_root(root: &Path) -> Result<()> {
    if root.exists() {
        return Ok(());
    }
    Err(Error::bad(
        "data-root",
        format!(
            "{} does not exist; nothing was created (check --data-root, the config's dataRoot or DSH_HOME; \
             `memlayers write` or `import` creates a data root)",
            root.display()
        ),
    ))
}

fn open(cli: &Cli) -> Result<Memory> {
    let mut config = load_config(cli)?;
    let root = data_root(cli, &config)?;
    // No zone asked for (no --tz, no `timezone` in --config): the zone this data root's files
    // are dated in (memlayers.json) frames time words too, not this machine's zone. Otherwise a
    // root made with --tz Asia/Shanghai, queried from a UTC shell, read 今天 as a UTC day and
    // warned on every call.
    if cli.tz.is_none()
        && !config_names_zone(cli)
        && let Some(zone) = recorded_zone(&root)
    {
        config.timezone = zone;
    }
    // An import is checked before the data root is opened (which creates it and records its
    // zone), so a refused one leaves no root behind.
    if let Cmd::Import { path, format } = &cli.cmd {
        let format = format.as_deref().map(str::parse::<crate::import::Format>).transpose()?;
        let format = crate::import::source_format(path, format)?;
        // Into a new data root (no zone record, no day files), no zone asked for: a dsh source
        // that records the zone its files are dated in gives the root that zone, not this
        // machine's (newcomer test: examples/archive imported on a UTC machine made a UTC root
        // with 7 misdated entries). A root with files or a record keeps its own.
        if format == crate::import::Format::Dsh
            && cli.tz.is_none()
            && !config_names_zone(cli)
            && !root.join(crate::files::zone::ZONE_FILE).exists()
            && std::fs::read_dir(root.join("cold")).map_or(true, |mut d| d.next().is_none())
            && let Some(zone) = recorded_zone(path)
        {
            config.timezone = zone;
        }
    }
    // A read command on a data root that does not exist is a mistake (a typo, a wrong
    // DSH_HOME): exit 2 and create nothing. Writes, imports and the layer writes create it.
    if matches!(
        cli.cmd,
        Cmd::Recall { .. }
            | Cmd::Recent { .. }
            | Cmd::ByTag { .. }
            | Cmd::ByDate { .. }
            | Cmd::Retrieve { .. }
            | Cmd::Check
            | Cmd::Layer(layers::LayerCmd::HotGet | layers::LayerCmd::Stats)
    ) {
        require_root(&root)?;
    }
    #[cfg(all(unix, feature = "serve"))]
    if let Cmd::Serve { .. } = cli.cmd {
        require_root(&root)?;
    }
    // One process per call: `sync` and `import` mirror everything up front, the long-lived
    // MCP server keeps an inotify watch (Memory::open); every other command checks just the
    // day files it reads (Memory::open_per_call), without a watch that this process would
    // only set up and tear down.
    let mut mem = match cli.cmd {
        Cmd::Check => Memory::open_unsynced(&root, config)?,
        Cmd::Sync { .. } | Cmd::Import { .. } => Memory::open(&root, config)?,
        #[cfg(feature = "mcp")]
        Cmd::Mcp { .. } => Memory::open(&root, config)?,
        #[cfg(all(unix, feature = "serve"))]
        Cmd::Serve { .. } => Memory::open(&root, config)?,
        Cmd::Recall { .. } | Cmd::ByTag { .. } => Memory::open_per_call_scanning(&root, config)?,
        _ => Memory::open_per_call(&root, config)?,
    };
    for w in mem.warnings() {
        eprintln!("warning: {w}");
    }
    for m in &mem.open_report().malformed {
        eprintln!("warning: {}:{}: {}", m.file, m.line, m.reason);
    }
    if let Some(n) = &cli.now {
        mem = mem.with_now(parse_now(n)?);
    }
    Ok(mem)
}

/// The stderr line of `write`: which file of which data root got the entry, and, when the root
/// was not given with `--data-root`, how it was chosen (a newcomer otherwise never learns that
/// `~/.dsh/dsh-memory-layers` was created).
fn write_note(mem: &Memory, r: &crate::layers::cold::WriteResult, defaulted: bool) -> String {
    let file = chrono::NaiveDate::parse_from_str(&r.date, "%Y-%m-%d")
        .map(|d| mem.root().join(crate::files::cold_rel(d)).display().to_string())
        .unwrap_or_else(|_| r.date.clone());
    let what = match (r.added, r.source_updated) {
        (true, _) => "wrote",
        (false, true) => "updated the source marker in",
        (false, false) => "already in (not written twice)",
    };
    let how = if defaulted { " (default data root: pass --data-root DIR to choose another)" } else { "" };
    let mut note = format!("memlayers: {what} {file}{how}");
    if let Some(zone) = &r.zone_recorded {
        note.push('\n');
        note.push_str(&zone_note(mem.root(), zone));
    }
    note
}

/// The stderr line of a call that recorded a new data root's zone (the first write, an
/// import): which zone now dates its day files, and that it cannot be changed in place.
fn zone_note(root: &Path, zone: &str) -> String {
    format!(
        "memlayers: recorded {zone} as the zone of data root {} ({}): it dates every day file and cannot be \
         changed in place (pass --tz on the first call to choose another; to move a root to another zone, \
         import it into a new root made with --tz)",
        root.display(),
        crate::files::zone::ZONE_FILE
    )
}

fn run(cli: Cli) -> Result<String> {
    let compact = cli.json;
    let pinned = cli.now.as_deref().map(parse_now).transpose()?;
    if let Cmd::TimeWindow { text } = &cli.cmd {
        // Nothing to parse is a usage error (it printed a null window and exited 0).
        if text.trim().is_empty() {
            return Err(Error::bad("text", "is empty: give a time expression such as \"上周三\" or \"last week\""));
        }
        let config = load_config(&cli)?;
        #[allow(clippy::disallowed_methods)] // the CLI edge reads the clock when --now is absent
        let now = pinned.unwrap_or_else(Utc::now);
        // The same zone `retrieve` frames time words in ([`open`]): without --tz or a configured
        // zone, the data root's recorded one (nothing is created when there is none).
        let mut tz = config.timezone;
        if cli.tz.is_none()
            && !config_names_zone(&cli)
            && let Ok(root) = data_root(&cli, &config)
            && let Some(zone) = recorded_zone(&root)
        {
            tz = zone;
        }
        let p = crate::temporal::parse(text, now, tz);
        return render(&serde_json::json!({ "window": p.window, "rest": p.rest }), compact);
    }
    if let Cmd::Demo { archive } = &cli.cmd {
        let mut config = load_config(&cli)?;
        if cli.tz.is_none() {
            config.timezone = chrono_tz::Asia::Shanghai;
        }
        let root = match &cli.data_root {
            Some(d) => d.clone(),
            None => std::env::temp_dir().join(format!("memlayers-demo-{}", std::process::id())),
        };
        let report = crate::cli::demo::run(&crate::cli::demo::find_archive(archive.as_deref())?, &root, config)?;
        if cli.data_root.is_some() {
            return Ok(report);
        }
        // Say where the temporary data root is, and that removing it is the reader's call.
        return Ok(format!(
            "{report}\nThe demo's data root is a temporary folder, {}: delete it when done \
             (or run the demo with --data-root DIR to choose the folder).",
            root.display()
        ));
    }
    // Refused before the data root is opened (or created): an HTTP server that would take
    // requests from other machines without a token.
    #[cfg(feature = "mcp")]
    let http_token = match cli.cmd {
        Cmd::Mcp { http: Some(addr) } => {
            let token = mcp::http::token_from_env()?;
            mcp::http::check_bind(addr, token.as_deref())?;
            token
        }
        _ => None,
    };
    // A write whose arguments are bad is refused before the data root is opened: opening a
    // new root creates it and records its zone, which a refused call must not do.
    if let Cmd::Write { text, tag, source, .. } = &cli.cmd {
        crate::layers::cold::normalize_text(text)?;
        crate::layers::cold::normalize_tag(tag.as_deref())?;
        source.as_deref().map(parse_source).transpose()?;
    }
    let mem = open(&cli)?;
    #[cfg(feature = "mcp")]
    if let Cmd::Mcp { http } = cli.cmd {
        return match http {
            Some(addr) => mcp::http::serve_http(mem, addr, http_token),
            None => mcp::serve_stdio(mem),
        }
        .map(|()| String::new());
    }
    run_cmd(&cli, &mem)
}

/// The `--source` JSON of `write` (`{"conv":…,"seq":…,"msgId"?:…}`). Errors: `BadInput` naming
/// `source`.
fn parse_source(s: &str) -> Result<Source> {
    serde_json::from_str::<Source>(s)
        .map_err(|e| Error::bad("source", format!("expected {{\"conv\":…,\"seq\":…,\"msgId\"?:…}}: {e}")))
}

/// Runs a command on an open data root and renders its JSON: the body of every command that
/// works on a data root, in this process or in `memlayers serve` for a forwarded call.
pub(crate) fn run_cmd(cli: &Cli, mem: &Memory) -> Result<String> {
    let compact = cli.json;
    match &cli.cmd {
        Cmd::Write { text, tag, important, source } => {
            let source = source.as_deref().map(parse_source).transpose()?;
            let args = WriteArgs { text: text.clone(), tag: tag.clone(), important: *important, source };
            let r = mem.write(&args)?;
            eprintln!("{}", write_note(mem, &r, cli.data_root.is_none()));
            render(&r, compact)
        }
        Cmd::Recall { keyword, limit, mode } => render(&mem.recall_named(keyword, *limit, mode.as_deref())?, compact),
        Cmd::Recent { days, limit } => render(&mem.recent(*days, *limit)?, compact),
        Cmd::ByTag { tag, limit } => render(&mem.by_tag(tag, *limit)?, compact),
        Cmd::ByDate { from, to, limit } => render(&mem.by_date(from, to, *limit)?, compact),
        Cmd::Sync { full } => {
            // The sync at open does not wait for another writer (it answers `stale`); a sync
            // asked for by name does, up to the lock timeout, and then mirrors what changed.
            let rep = if *full {
                mem.sync_with_progress(true, &mut |_| {})?
            } else if mem.open_report().stale {
                mem.sync()?
            } else {
                mem.open_report().clone()
            };
            render(&rep, compact)
        }
        Cmd::Check => render(&mem.check()?, compact),
        Cmd::Retrieve { query, from, to, limit, explain, no_time } => {
            let time_range = match (from, to) {
                (Some(f), Some(t)) => Some(crate::query::retrieve::TimeRange::Dates {
                    from: crate::files::parse_date("from", f)?,
                    to: crate::files::parse_date("to", t)?,
                }),
                _ => None,
            };
            let args = crate::query::retrieve::RetrieveArgs {
                query: query.clone(),
                time_range,
                tz: None,
                limit: *limit,
                explain: *explain,
                no_time: *no_time,
                record_time_only: false,
            };
            render(&mem.retrieve(&args)?, compact)
        }
        Cmd::TimeWindow { .. } | Cmd::Demo { .. } => unreachable!("handled before opening the data root"),
        Cmd::Import { path, format } => {
            let format = format.as_deref().map(str::parse::<crate::import::Format>).transpose()?;
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template("importing {bar:40} {pos}/{len} days {elapsed}")
                    .expect("valid template"),
            );
            let rep = mem.import(path, format, &mut |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            });
            bar.finish_and_clear();
            let rep = rep?;
            for w in &rep.warnings {
                eprintln!("warning: {w}");
            }
            if rep.zone_recorded {
                eprintln!("{}", zone_note(mem.root(), &rep.zone));
            }
            render(&rep, compact)
        }
        Cmd::Layer(c) => crate::cli::layers::run(mem, c, compact),
        #[cfg(feature = "mcp")]
        Cmd::Mcp { .. } => unreachable!("handled by run"),
        #[cfg(all(unix, feature = "serve"))]
        Cmd::Serve { .. } => unreachable!("handled by main"),
    }
}
