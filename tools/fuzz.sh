#!/usr/bin/env bash
# Large-budget fuzz run of the proptest fuzz targets in tests/it/heavy/fuzz.rs.
#
#   tools/fuzz.sh                 # 100 000 cases per target, then 2 000 long-input cases
#   CASES=20000 LONG=500 tools/fuzz.sh
#   MEMLAYERS_SEED=1234 tools/fuzz.sh   # replay a run (the seed is printed)
#
# Targets: entry line parser, write round trip, time-expression parser, importer Markdown
# splitter, hot.md block parser, usage.json reader, FTS5 query syntax through recall/retrieve.
# Each case runs under a hang watchdog (MEMLAYERS_FUZZ_CASE_SECS, default 10 s) and a counting
# allocator (peak ≤ 64 × input + 16 MiB). A failure prints the minimal input and exits non-zero.
# Prints one line per target (cases, executions, failures, slowest case, peak allocation) and
# a total. Debug build (the one the tests share); no release build needed.
set -euo pipefail
cd "$(dirname "$0")/.."

CASES=${CASES:-100000}
LONG=${LONG:-2000}
SEED=${MEMLAYERS_SEED:-$(( (RANDOM << 15) | RANDOM ))}
LOG=${LOG:-$(mktemp -t memlayers-fuzz.XXXXXX)}

run() { # cases scale
  MEMLAYERS_FUZZ_CASES=$1 MEMLAYERS_FUZZ_SCALE=$2 MEMLAYERS_SEED=$SEED \
    cargo test -q --test it heavy::fuzz -- --nocapture --test-threads=2 >>"$LOG" 2>&1
}

echo "fuzz: seed=$SEED cases=$CASES per target (+ $LONG at 20× input length); log $LOG"
status=0
start=$(date +%s)
run "$CASES" 1 || status=$?
run "$LONG" 20 || status=$?
end=$(date +%s)

grep -oE 'fuzz [a-z_]+: seed=.*' "$LOG" | sed 's/^/  /'
execs=$(grep -oE 'executions=[0-9]+' "$LOG" | cut -d= -f2 | awk '{s+=$1} END {print s+0}')
fails=$(grep -oE 'failures=[0-9]+' "$LOG" | cut -d= -f2 | awk '{s+=$1} END {print s+0}')
hangs=$(grep -c 'HANG' "$LOG" || true)
echo "fuzz total: $execs executions, $fails failures, $hangs hangs, $((end - start)) s (seed $SEED)"
if [ "$status" -ne 0 ]; then
  grep -E 'minimal failing input|HANG|panicked' "$LOG" | head -20
  exit "$status"
fi
