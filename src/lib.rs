//! memlayers: a layered long-term memory engine for LLM agents.
//!
//! Markdown files under a data root are canonical (the formats of dsh-memory-layers v1.2.1);
//! `index.sqlite3` mirrors them into SQLite (FTS5 over text segmented in Rust, plus local-date
//! entry ids) so keyword recall and time-window retrieval take milliseconds. See
//! `ARCHITECTURE.md` for the modules and the data flow.
//!
//! ```no_run
//! use memlayers::{Config, Memory, layers::cold::WriteArgs};
//! let mem = Memory::open("/tmp/memlayers-demo", Config::default())?;
//! mem.write(&WriteArgs { text: "晚饭吃了火锅".into(), tag: Some("饮食".into()), ..Default::default() })?;
//! let hits = mem.recall("火锅", None, None)?;
//! assert_eq!(hits.items[0].content, "晚饭吃了火锅");
//! # Ok::<(), memlayers::Error>(())
//! ```

#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod error;
pub mod files;
pub mod import;
pub mod index;
pub mod layers;
pub mod memory;
pub mod query;
pub mod temporal;

// The temporal parser (src/temporal/) names the calendar helpers and the CJK test by their
// former top-level paths; these aliases keep them resolving.
use files as layout;
use index::segment;

pub use config::Config;
pub use error::{Error, Result};
pub use memory::Memory;
