//! The integration tests: one binary (`cargo test --test it`), one module per suite, shared
//! helpers in [`common`] (temp data roots, pinned clock and zone) and [`rel`] (reading a data
//! root straight from its files).
//!
//! `heavy::*` are the reliability suites that spawn many processes or run large budgets
//! (crash kills, concurrency stress, fuzz, big files): `#[ignore = "heavy: run by .ci/run"]`,
//! so the default `cargo test --workspace` stays short; run them with
//! `cargo test --test it heavy:: -- --ignored --skip child`, as `.ci/run` does. Child-role tests (`*child*`) are
//! `#[ignore]`d: their parent test spawns this binary with `--ignored --exact <name>` and the
//! environment they need; run on their own they fail rather than pass without checking.

mod common;
mod rel;

mod candidate_sink;
mod change_detection;
mod cli;
mod cli_newcomer;
mod compact_index;
mod concurrency;
mod corrupt_state;
mod engine_core;
mod event_time;
mod example_archive;
mod fts5_canary;
mod fts5_parity;
mod han_folding;
mod hand_edits;
mod heavy;
mod hostile_paths;
mod import_archives;
mod import_dsh_layers;
mod import_engine;
mod layers_acceptance;
mod layers_files;
mod layers_usage;
mod mcp_server;
mod open_race;
mod ranking;
mod recall_parity;
mod retrieval_eval;
mod retrieve;
mod robust_cli;
mod robust_files;
mod root_zone;
mod serve;
mod shared_counts;
mod sqlite3_cli;
