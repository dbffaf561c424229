//! memlayers: a layered long-term memory engine for LLM agents.
//!
//! Markdown files under a data root are canonical (the formats of dsh-memory-layers v1.2.1);
//! `index.sqlite3` mirrors them into SQLite (FTS5 over text segmented in Rust, plus local-date
//! entry ids) so keyword recall and time-window retrieval take milliseconds. See
//! `ARCHITECTURE.md` for the modules and the data flow.
//!
//! ```
//! use memlayers::{Config, Memory, WriteArgs};
//! let dir = tempfile::tempdir()?;
//! let mem = Memory::open(dir.path(), Config::default())?;
//! mem.write(&WriteArgs { text: "晚饭吃了火锅".into(), tag: Some("饮食".into()), ..Default::default() })?;
//! let hits = mem.recall("火锅", None, None)?;
//! assert_eq!(hits.items[0].content, "晚饭吃了火锅");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Time expressions become a half-open window of local dates (and the UTC instants of their
//! local midnights) before anything is ranked; [`temporal::parse`] is the parser `retrieve`
//! uses:
//!
//! ```
//! use memlayers::{Tz, temporal};
//! // Now: Tuesday 2026-12-01, 12:00 in Shanghai (UTC+8).
//! let now = "2026-12-01T04:00:00Z".parse()?;
//! let r = temporal::parse("上周我们定了什么", now, Tz::Asia__Shanghai);
//! let w = r.window.expect("上周 is a time expression");
//! // 上周 = last ISO week, Monday 2026-11-23 up to (not including) Monday 2026-11-30.
//! assert_eq!((w.start_date.to_string(), w.end_date.to_string()), ("2026-11-23".into(), "2026-11-30".into()));
//! assert_eq!(w.start.to_rfc3339(), "2026-11-22T16:00:00+00:00"); // local midnight in UTC
//! assert_eq!(r.rest, "我们定了什么");
//! assert!(temporal::parse("火锅", now, Tz::Asia__Shanghai).window.is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The library's API: `Memory` (the facade), its configuration, its one error type, the
// time-expression parser, and the types their signatures use (re-exported below). The
// folders by concern (see ARCHITECTURE.md) are reachable for the workspace's own binary,
// tests and benchmarks, but hidden and not a stable API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
mod config;
mod error;
#[doc(hidden)]
pub mod files;
#[doc(hidden)]
pub mod fts5;
#[doc(hidden)]
pub mod import;
#[doc(hidden)]
pub mod index;
#[doc(hidden)]
pub mod layers;
mod memory;
#[doc(hidden)]
pub mod query;
pub use memlayers_temporal as temporal;

// The temporal parser (src/temporal/) names the calendar helpers and the CJK test by their
// former top-level paths; these aliases keep them resolving.

/// The IANA time zone type of [`Config::timezone`] and [`RetrieveArgs::tz`] (`chrono_tz::Tz`).
pub use chrono_tz::Tz;
pub use config::{Config, RankWeights, Ranker};
pub use error::{Error, Result};
pub use files::entry::Source;
pub use import::{Format, ImportReport};
pub use index::check::CheckReport;
pub use index::sync::{LayerReport, Malformed, SyncReport};
pub use layers::cold::{WriteArgs, WriteResult};
pub use layers::export::ExportReport;
pub use layers::hot::HotGetResult;
pub use layers::hot::set::HotSetResult;
pub use layers::session::ops::SessionEndResult;
pub use layers::stats::Stats;
pub use layers::summary::Period;
pub use layers::summary::ops::SummarizeResult;
pub use memory::Memory;
pub use query::retrieve::{Explain, RetrieveArgs, RetrieveResult, TimeRange, WindowSource};
pub use query::search::{Mode, RecallResult};
pub use query::{Item, ListResult};
