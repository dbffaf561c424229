//! Everything that knows FTS5: the segmenter that writes the text FTS5's `unicode61` tokenizer
//! reads back (`segment`), the auxiliary function that hands each matched row's phrase counts to
//! Rust (`aux_fn`, the crate's one `unsafe` module), each entry's token count (`lens`), prefix
//! expansion from FTS5's segment b-tree (`prefix`), and BM25 computed with FTS5's formula from
//! FTS5's own records (`bm25`).

pub mod aux_fn;
pub mod bm25;
pub mod lens;
pub mod prefix;
pub mod query;
pub mod record;
pub mod segment;
#[rustfmt::skip]
mod t2s;
