//! memlayers: a layered long-term memory engine for LLM agents.
//!
//! Markdown files under a data root are canonical (the formats of dsh-memory-layers v1.2.1);
//! `index.sqlite3` mirrors them into SQLite (FTS5 over text segmented in Rust, plus local-date
//! entry ids) so keyword recall and time-window retrieval take milliseconds. See
//! `ARCHITECTURE.md` for the modules and the data flow.

pub mod config;
pub mod entry;
pub mod error;
pub mod layout;
pub mod segment;
pub mod temporal;

pub use config::Config;
pub use error::{Error, Result};
