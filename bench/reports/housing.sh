#!/bin/sh
# Law coverage of the housing benefits benchmarks (CUTECat's restricted and unconstrained
# `Test` scopes): explores each completely, writes the coverage page and JSON, the SARIF log,
# then opens the pages in headless Chromium (bench/browser/check.sh).
# Usage: bench/reports/housing.sh [OUT_DIR] [CORPUS_DIR]
set -e
cd "$(dirname "$0")/../.."
OUT="${1:-/tmp/housing}"
CORPUS="${2:-$(pwd)/../shared/corpus}"
B="$CORPUS/cutecat-benchmarks/aides_logement/tests/concolic"
mkdir -p "$OUT"
cargo build --release -q -p lexprobe
for name in large_metropole_apl full; do
  /usr/bin/time -v target/release/lexprobe concolic "$B/$name.catala_fr" --scope Test \
    --jsonl --jobs 2 --quiet --exit-zero --coverage "$OUT/$name.html" --coverage-json "$OUT/$name.json" \
    --sarif "$OUT/$name.sarif" > "$OUT/$name.jsonl" 2> "$OUT/$name.time"
  grep -E "Elapsed|Maximum resident" "$OUT/$name.time"
  ls -l "$OUT/$name.html" "$OUT/$name.json"
done
bench/browser/check.sh "$OUT/large_metropole_apl.html" "$OUT/full.html"
