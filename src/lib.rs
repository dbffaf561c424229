//! memlayers: a layered long-term memory engine for LLM agents.
//!
//! Markdown files under a data root are canonical (the formats of dsh-memory-layers v1.2.1);
//! `index.sqlite3` mirrors them into SQLite (FTS5 over text segmented in Rust, plus local-date
//! entry ids) so keyword recall and time-window retrieval take milliseconds. See
//! `ARCHITECTURE.md` for the modules and the data flow.
//!
//! ```no_run
//! use memlayers::{Config, Memory, cold::WriteArgs};
//! let mem = Memory::open("/tmp/memlayers-demo", Config::default())?;
//! mem.write(&WriteArgs { text: "晚饭吃了火锅".into(), tag: Some("饮食".into()), ..Default::default() })?;
//! let hits = mem.recall("火锅", None, None)?;
//! assert_eq!(hits.items[0].content, "晚饭吃了火锅");
//! # Ok::<(), memlayers::Error>(())
//! ```

pub mod check;
pub mod cli;
pub mod cli_layers;
pub mod cold;
pub mod config;
pub mod db;
pub mod demo;
pub mod entry;
pub mod error;
pub mod export;
pub mod hot;
pub mod hot_ops;
pub mod import;
pub mod layer_sync;
pub mod layout;
pub mod lock;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod memory;
pub mod query;
pub mod retrieve;
pub mod search;
pub mod segment;
pub mod session;
pub mod session_ops;
pub mod stats;
pub mod stats_ops;
pub mod stopwords;
pub mod summarize;
pub mod summary;
pub mod sync;
pub mod temporal;
pub mod usage;
pub mod usage_store;
pub mod watch;
pub mod write_layers;

pub use config::Config;
pub use error::{Error, Result};
pub use memory::Memory;
