#!/bin/sh
# Sharded concolic exploration with GNU parallel on this machine: a plan for SHARDS shards,
# the shards as separate processes (JOBS at a time, each with a checkpoint), `lexprobe merge`,
# and a check that the merged tests are the EXPECTED paths of one whole exploration. Prints
# the time and CPU of the plan and of each shard (from /usr/bin/time -v).
#
# Defaults: the restricted housing benefits (17,435 paths), 8 shards, 2 at a time.
#   sh bench/cluster/parallel.sh
#   SHARDS=32 sh bench/cluster/parallel.sh
#   FILE=…/full.catala_fr EXPECTED=142046 sh bench/cluster/parallel.sh
# On several machines, the same line with `parallel -S host1,host2 …` (the plan and the
# program at the same path everywhere, outputs copied back with --return).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LEXPROBE=${LEXPROBE:-$ROOT/target/release/lexprobe}
CORPUS=${CORPUS:-$ROOT/../shared/corpus/cutecat-benchmarks}
FILE=${FILE:-$CORPUS/aides_logement/tests/concolic/large_metropole_apl.catala_fr}
SCOPE=${SCOPE:-Test}
SHARDS=${SHARDS:-8}
JOBS=${JOBS:-2}
EXPECTED=${EXPECTED:-17435}
PLAN_OPTS=${PLAN_OPTS:-} # e.g. --plan-subtrees 4096
SHARD_OPTS=${SHARD_OPTS:-} # e.g. --check --dump-unknown DIR
OUT=${OUT:-$(mktemp -d /tmp/lexprobe-parallel.XXXXXX)}
mkdir -p "$OUT"

command -v parallel >/dev/null || apt-get install -y parallel
[ -x "$LEXPROBE" ] || (cd "$ROOT" && cargo build --release -p lexprobe)

echo "outputs in $OUT"
/usr/bin/time -v -o "$OUT/time-plan.txt" \
  "$LEXPROBE" concolic "$FILE" --scope "$SCOPE" --plan "$SHARDS" $PLAN_OPTS > "$OUT/plan.json"
start=$(date +%s.%N)
seq 0 $((SHARDS - 1)) | parallel --will-cite -j "$JOBS" --joblog "$OUT/joblog" \
  /usr/bin/time -v -o "$OUT/time-{}.txt" "$LEXPROBE" concolic "$FILE" --scope "$SCOPE" \
  --plan-file "$OUT/plan.json" --shard "{}/$SHARDS" --jsonl --exit-zero --checkpoint "$OUT/shard-{}.ckpt" $SHARD_OPTS \
  '>' "$OUT/shard-{}.jsonl"
end=$(date +%s.%N)
"$LEXPROBE" merge --exit-zero "$OUT"/shard-*.jsonl > "$OUT/merged.jsonl"

sh "$(dirname "$0")/summary.sh" "$OUT" "$SHARDS" "$(echo "$end - $start" | bc)"
tests=$(tail -n 1 "$OUT/merged.jsonl" | grep -o '"tests":[0-9]*' | head -n 1 | cut -d: -f2)
if [ "$tests" = "$EXPECTED" ]; then
  echo "OK: the merged shards hold the $EXPECTED paths of one exploration"
else
  echo "FAILED: $tests merged tests, expected $EXPECTED"
  exit 1
fi
