#!/bin/sh
# Benchmark of the Catala interpreter: runs the entry scopes of the CUTECat benchmarks
# 10,000 times each on fixed inputs (release build) and prints runs per second.
# Usage: bench/eval/run.sh [CORPUS_DIR] [RUNS]
set -e
cd "$(dirname "$0")/../.."
CORPUS="${1:-$(pwd)/../shared/corpus}"
RUNS="${2:-10000}"
cargo run --release -q -p catala_eval --example bench_scopes -- "$CORPUS" "$RUNS"
