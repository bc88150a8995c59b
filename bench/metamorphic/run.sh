#!/bin/sh
# Throughput of the metamorphic search (tests per second) on the simplified Form 1040:
#   1. the search alone, against an in-process stand-in that answers instantly;
#   2. the external adapter, JSON Lines mode, with 1 and 2 workers (python3 model);
#   3. the external adapter, one process per call, 2 workers;
#   4. the Catala model in process (catala_eval), 1 and 2 interpreter threads;
#   5. the Catala model served over JSON Lines (examples/serve_catala) through the adapter.
# Usage: bench/metamorphic/run.sh [SECONDS_PER_RELATION]   (from the workspace root)
set -e
SECONDS_PER_RELATION=${1:-2}
EX=examples/metamorphic
# The interpreter itself, not a version-manager shim (a shim doubles the start-up cost).
PY=$(python3 -c "import sys; print(sys.executable)")
cargo build -q -p metamorphic --release --examples
BIN=target/release/examples
echo "== search alone (in-process stand-in), ${SECONDS_PER_RELATION}s per relation"
$BIN/search_overhead $EX/form1040.toml $EX/form1040.mr "$SECONDS_PER_RELATION" | tail -1
for JOBS in 1 2; do
  echo "== external adapter, JSON Lines, $JOBS worker(s), ${SECONDS_PER_RELATION}s per relation"
  $BIN/check_relations "$PY $EX/form1040.py" $EX/form1040.toml $EX/form1040.mr \
    "$SECONDS_PER_RELATION" "$JOBS" 2>&1 >/dev/null |
    awk '{ n += $2; t += $5 } END { printf "all relations: %d tests in %.1fs = %.0f tests/s\n", n, t, n / t }'
done
echo "== external adapter, one process per call, 2 workers, ${SECONDS_PER_RELATION}s per relation (3 relations)"
$BIN/check_relations "$PY $EX/form1040.py" $EX/form1040.toml $EX/form1040.mr \
  "$SECONDS_PER_RELATION" 2 r1_disability_filer,r7_ctc_claim_monotone,r13_medical_floor --one-call 2>&1 >/dev/null |
  awk '{ n += $2; t += $5 } END { printf "3 relations: %d tests in %.1fs = %.0f tests/s\n", n, t, n / t }'
for JOBS in 1 2; do
  echo "== Catala scope in process, $JOBS thread(s), ${SECONDS_PER_RELATION}s per relation"
  $BIN/check_relations "catala:$EX/form1040.catala_en#Form1040" $EX/form1040.toml $EX/form1040.mr \
    "$SECONDS_PER_RELATION" "$JOBS" 2>&1 >/dev/null |
    awk '{ n += $2; t += $5 } END { printf "all relations: %d tests in %.1fs = %.0f tests/s\n", n, t, n / t }'
done
echo "== Catala scope over JSON Lines (serve_catala), 2 workers, ${SECONDS_PER_RELATION}s per relation"
$BIN/check_relations "$BIN/serve_catala $EX/form1040.catala_en Form1040" $EX/form1040.toml $EX/form1040.mr \
  "$SECONDS_PER_RELATION" 2 2>&1 >/dev/null |
  awk '{ n += $2; t += $5 } END { printf "all relations: %d tests in %.1fs = %.0f tests/s\n", n, t, n / t }'
