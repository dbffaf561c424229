//! The memory layers of dsh-memory-layers v1.2.1, one folder each: in every folder `mod.rs` is
//! the pure model (parse, render, rules; no files, no SQLite, no clock) and `ops.rs` the I/O
//! on a [`crate::index::Store`] (reads and writes of the layer's files under the writer lock,
//! index updates).
//!
//! * [`cold`]: one Markdown file per local day (`cold/YYYY-MM/YYYY-MM-DD.md`), the entries.
//! * [`hot`]: `hot.md`, the ~600-character hot layer, and its candidates.
//! * [`usage`]: `usage.json`, the usage ledger (hits per entry).
//! * [`summary`]: extractive day / ISO-week / month summaries under `summaries/`.
//! * [`stats`]: counts over the layers (`stats`).
//! * [`session`]: session records (`session-save`).
//! * [`export`]: writes hot.md and the summaries back from the index.

pub mod cold;
pub mod export;
pub mod hot;
pub mod session;
pub mod stats;
pub mod summary;
pub mod sync;
pub mod usage;
pub mod write;
