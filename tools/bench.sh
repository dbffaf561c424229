#!/usr/bin/env bash
# Runs the whole benchmark (loading, open, size, query mix; docs/benchmarks.md): installs ripgrep (a baseline) from Debian's packages if
# missing, builds in release mode, runs tools/bench.rs on 10k, 100k and 1M entries and writes
# tools/BENCH_RESULTS.md. Extra arguments go to the runner (e.g. --sizes 10000,100000, --smoke).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v rg >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep >/dev/null
fi
cargo build --release -p memlayers-tools --bin bench --bin gen-archive
exec "target/release/bench" "$@"
