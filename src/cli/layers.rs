//! The layer subcommands of the `memlayers` CLI (`hot-get`, `hot-set`, `summarize`, `stats`,
//! `export`, `session-end`), flattened into [`crate::cli::Cmd`]. JSON out with the plugin's
//! field names; errors follow the CLI's exit codes (2 bad input, 1 internal).

use std::io::Read;
use std::path::PathBuf;

use clap::Subcommand;
use serde::Serialize;

use crate::files::entry::Source;
use crate::{Error, Memory, Result};

/// Layer subcommands.
#[derive(Debug, Subcommand)]
pub enum LayerCmd {
    /// mem_hot_get: the hot body, its size against hotLimit, candidates (expired ones sink to
    /// cold) and the topics index. A missing hot.md reads as empty and is not created.
    HotGet,
    /// mem_hot_set: replace the hot body (auto-evicts to cold when over the limit).
    HotSet {
        /// The new body ("" clears it; "-" reads standard input). May carry its own
        /// candidates / topics blocks, which then replace the stored ones.
        #[arg(conflicts_with = "file", required_unless_present = "file")]
        content: Option<String>,
        /// Read the new body from this file ("-" for standard input).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// mem_summarize: generate (or return the existing) day / week / month summary.
    Summarize {
        /// day (default) | week | month, as the first argument (`summarize week`).
        #[arg(value_name = "PERIOD", conflicts_with = "period")]
        period_arg: Option<String>,
        /// The same as the first argument.
        #[arg(long)]
        period: Option<String>,
        /// A local date YYYY-MM-DD inside the period (default today).
        #[arg(long)]
        date: Option<String>,
        /// Regenerate even when the summary exists.
        #[arg(long)]
        force: bool,
    },
    /// mem_stats: sizes of every layer and the usage lists.
    Stats,
    /// Write hot.md, summaries/ and usage.json from the index (only files whose bytes differ).
    Export,
    /// Session end: log the last turns as one `session` entry (when autoLogOnSessionEnd is on).
    SessionEnd {
        /// One turn of the session, in order (repeat the flag).
        #[arg(long = "turn", value_name = "TEXT")]
        turns: Vec<String>,
        /// The session's source as JSON: {"conv": "...", "seq": 12, "msgId": "..."}.
        #[arg(long, value_name = "JSON")]
        source: Option<String>,
    },
}

fn render<T: Serialize>(v: &T, compact: bool) -> Result<String> {
    let r = if compact { serde_json::to_string(v) } else { serde_json::to_string_pretty(v) };
    r.map_err(|e| Error::Json { what: "output".into(), source: e })
}

/// Standard input as text. Errors: bytes that are not UTF-8 are bad input (exit 2) naming
/// `stdin`, as an unreadable `--file` is; any other read failure is [`Error::Io`].
fn read_stdin() -> Result<String> {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => Error::bad("stdin", format!("standard input is not valid UTF-8 ({e})")),
        _ => Error::io("<stdin>", e),
    })?;
    Ok(s)
}

fn hot_set_content(content: Option<&str>, file: Option<&PathBuf>) -> Result<String> {
    match (content, file) {
        (Some("-"), _) => read_stdin(),
        (Some(c), _) => Ok(c.to_string()),
        (None, Some(f)) if f.as_os_str() == "-" => read_stdin(),
        (None, Some(f)) => {
            std::fs::read_to_string(f).map_err(|e| Error::bad("file", format!("cannot read {}: {e}", f.display())))
        }
        (None, None) => Err(Error::bad("content", "give CONTENT, - (stdin) or --file FILE")),
    }
}

/// Parses `--source` JSON; the error names the field `source`.
pub fn parse_source(s: &str) -> Result<Source> {
    serde_json::from_str::<Source>(s)
        .map_err(|e| Error::bad("source", format!("expected {{\"conv\":…,\"seq\":…,\"msgId\"?:…}}: {e}")))
}

/// Runs one layer subcommand on an open data root; returns the JSON text.
pub fn run(mem: &Memory, cmd: &LayerCmd, compact: bool) -> Result<String> {
    match cmd {
        LayerCmd::HotGet => render(&mem.hot_get()?, compact),
        LayerCmd::HotSet { content, file } => {
            let text = hot_set_content(content.as_deref(), file.as_ref())?;
            render(&mem.hot_set(&text)?, compact)
        }
        LayerCmd::Summarize { period_arg, period, date, force } => {
            let period = period_arg.as_deref().or(period.as_deref());
            render(&mem.summarize(period, date.as_deref(), *force)?, compact)
        }
        LayerCmd::Stats => render(&mem.stats()?, compact),
        LayerCmd::Export => render(&mem.export()?, compact),
        LayerCmd::SessionEnd { turns, source } => {
            let source = source.as_deref().map(parse_source).transpose()?;
            render(&mem.session_end(turns, source.as_ref())?, compact)
        }
    }
}
