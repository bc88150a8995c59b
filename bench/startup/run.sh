#!/bin/sh
# Start-up of the lexprobe binary where Z3 is not needed: `lexprobe --version` beside a Rust
# program that prints one line (built here with rustc -O), as instructions (valgrind's
# callgrind: the same count on every run, whatever the machine's load), page faults and CPU
# time of the process (perf stat, when the kernel gives it), each over RUNS runs.
#
# usage: bench/startup/run.sh [LEXPROBE] [RUNS]
#   LEXPROBE  default target/release/lexprobe
#   RUNS      runs for perf stat (default 500)
set -e
cd "$(dirname "$0")/../.."
BIN="${1:-target/release/lexprobe}"
RUNS="${2:-500}"
TMP="$(mktemp -d)"
printf 'fn main() { println!("x"); }\n' >"$TMP/hello.rs"
rustc -O "$TMP/hello.rs" -o "$TMP/hello"
for cmd in "$TMP/hello" "$BIN --version"; do
  echo "== $cmd"
  if command -v valgrind >/dev/null; then
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $cmd 2>&1 >/dev/null | grep Collected | sed 's/.*Collected/instructions/'
  fi
  if command -v perf >/dev/null; then
    perf stat -r "$RUNS" $cmd 2>&1 >/dev/null | grep -E "task-clock|page-faults|elapsed" || true
  fi
done
rm -rf "$TMP"
