#!/bin/sh
# Benchmark of loading and testing the real module programs of catala-examples: for each
# program's test directory, the load of each test file with all its modules and the standard
# library (median of RUNS loads), the evaluation of all its #[test] scopes (median of RUNS
# rounds), and the peak resident memory of the whole run (GNU time).
# Usage: bench/catala/load.sh [CORPUS_DIR] [RUNS]
set -e
cd "$(dirname "$0")/../.."
CORPUS="${1:-$(pwd)/../shared/corpus}"
RUNS="${2:-10}"
cargo build --release -q -p catala_eval --example bench_load
BIN=target/release/examples/bench_load
TIME=/usr/bin/time
for program in aides_logement allocations_familiales impot_revenu; do
    echo "== $program"
    if [ -x "$TIME" ]; then
        "$TIME" -f "peak resident memory: %M KB, wall %e s" "$BIN" --runs "$RUNS" \
            "$CORPUS/catala-examples/$program/tests"
    else
        "$BIN" --runs "$RUNS" "$CORPUS/catala-examples/$program/tests"
    fi
done
