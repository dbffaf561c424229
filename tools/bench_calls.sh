#!/usr/bin/env bash
# Runs the per-call benchmark (tools/bench_calls.rs): installs ripgrep and the sqlite3
# shell (baselines) from Debian's packages if missing, builds in release mode, prepares the data
# roots and writes tools/BENCH_CALLS.md and tools/bench_calls.svg.
#
#   tools/bench_calls.sh                      # seeded archives of 10k, 100k, 1M entries (10 years)
#   tools/bench_calls.sh --root DIR [--root DIR …]      # existing data roots (index synced here)
#   tools/bench_calls.sh --archive DIR [--archive DIR …] # existing archives (a cold/ folder each)
#   tools/bench_calls.sh --smoke              # 10k only, 2 calls per cell, output in the work dir
#
# Work files go to $BENCH_WORK (default $TMPDIR/memlayers-bench-calls; a 1M root needs ~450 MB).
# Other arguments (--repeats N, --anchors N, --term CLASS=TEXT, --tz ZONE) go to bench-calls.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
features=()
if grep -q '^mcp *=' Cargo.toml; then features=(--features mcp); fi
cargo build --release --bin memlayers "${features[@]}"
cargo build --release -p memlayers-tools --bin bench-calls --bin gen-archive
bin="target/release"
work="${BENCH_WORK:-${TMPDIR:-/tmp}/memlayers-bench-calls}"
mkdir -p "$work"
roots=() archives=() pass=() smoke=0
while [ $# -gt 0 ]; do
  case "$1" in
    --root) roots+=("$2"); shift 2 ;;
    --archive) archives+=("$2"); shift 2 ;;
    --smoke) smoke=1; shift ;;
    *) pass+=("$1"); shift ;;
  esac
done
# A data root from an archive: its cold/ copied into a root of its own, then one full sync.
root_of_archive() {
  local a="$1" r="$work/root-$(basename "$1")"
  if [ ! -f "$r/index.sqlite3" ]; then
    rm -rf "$r" && mkdir -p "$r" && cp -a "$a/cold" "$r/"
    "$bin/memlayers" --data-root "$r" --tz Asia/Shanghai sync >/dev/null
  fi
  echo "$r"
}
if [ ${#roots[@]} -eq 0 ] && [ ${#archives[@]} -eq 0 ]; then
  sizes=(10000 100000 1000000)
  [ $smoke -eq 1 ] && sizes=(10000)
  for n in "${sizes[@]}"; do
    a="$work/archive-$n"
    [ -d "$a/cold" ] || "$bin/gen-archive" --out "$a" --entries "$n" --years 10 --seed 42 >&2
    archives+=("$a")
  done
fi
for a in "${archives[@]}"; do roots+=("$(root_of_archive "$a")"); done
# Every root up to date before timing (a no-op when it already is).
for r in "${roots[@]}"; do "$bin/memlayers" --data-root "$r" --tz Asia/Shanghai sync >/dev/null; done
args=()
for r in "${roots[@]}"; do args+=(--root "$r"); done
if [ $smoke -eq 1 ]; then
  args+=(--repeats 2 --anchors 2 --out "$work/BENCH_CALLS.md" --svg "$work/bench_calls.svg")
else
  args+=(--out tools/BENCH_CALLS.md --svg tools/bench_calls.svg)
fi
exec "$bin/bench-calls" --memlayers "$bin/memlayers" "${args[@]}" "${pass[@]}"
