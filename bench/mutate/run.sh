#!/bin/sh
# Mutants of the housing benefits (BENCHMARKS.md, "Mutants of the housing benefits"): the
# original's exploration written as JSON Lines (the witnesses), then `lexprobe mutate` on 20
# mutants drawn with seed 1, each confirmed on the witnesses, under /usr/bin/time -v; prints
# the process's wall and CPU time, how many were detected (by a starting witness or by the
# exploration), the mean and median time to detection and each time, the tests to detection.
#
# usage: bench/mutate/run.sh [BIN] [CORPUS_DIR] [WITNESSES] [STRATEGY]
#   BIN         default target/release/lexprobe
#   CORPUS_DIR  default ../shared/corpus
#   WITNESSES   a `lexprobe concolic --jsonl` file of the original; default: written to
#               $OUT/original.jsonl by a complete exploration first (OUT: default
#               ${TMPDIR:-/tmp}/lexprobe-bench-mutate)
#   STRATEGY    default both
set -e
BIN="${1:-target/release/lexprobe}"
CORPUS="${2:-$(pwd)/../shared/corpus}"
HOUSING="$CORPUS/cutecat-benchmarks/aides_logement/tests/concolic/large_metropole_apl.catala_fr"
STRATEGY="${4:-both}"
if [ ! -f "$HOUSING" ]; then
  echo "corpus not found at $CORPUS: nothing to measure"
  exit 0
fi
OUT="${OUT:-${TMPDIR:-/tmp}/lexprobe-bench-mutate}"
mkdir -p "$OUT"
WITNESSES="${3:-$OUT/original.jsonl}"
if [ ! -f "$WITNESSES" ]; then
  # exit status 1: the exploration found problems (this program has some), not a failure
  "$BIN" concolic "$HOUSING" --scope Test --jsonl > "$WITNESSES" || [ $? -eq 1 ]
fi
/usr/bin/time -v "$BIN" mutate "$HOUSING" --scope Test --seed 1 --count 20 --timeout 300 \
  --witnesses "$WITNESSES" --strategy "$STRATEGY" --quiet --format json \
  > "$OUT/mutants.json" 2> "$OUT/time.txt"
grep -E "Elapsed|User time|System time|Maximum resident" "$OUT/time.txt"
python3 - "$OUT/mutants.json" <<'PY'
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
ms = doc["mutants"]
times = sorted(m["time_to_detection_s"] for m in ms if m["detected"])
print(f"{doc['drawn']} drawn, {doc['unconfirmed']} set aside, {doc['detected']} of {len(ms)} detected")
if times:
    print(f"mean time to detection {statistics.mean(times):.3f} s, median {statistics.median(times):.3f} s")
    print("times:", ", ".join(f"{t:.3f}" for t in times))
by_start = [m for m in ms if m["detected"] and m.get("killing_test")
            and m["killing_test"]["test"] <= (m.get("start_witnesses") or 0)]
print(f"{len(by_start)} detected by a starting witness, "
      f"{sum(1 for m in ms if m['detected']) - len(by_start)} by the exploration")
print("tests to detection:", ", ".join(str(m["tests"]) for m in ms if m["detected"]))
starts = [m.get("start_search_s") for m in ms if m.get("start_search_s") is not None]
if starts:
    print(f"search for the starting witness: mean {statistics.mean(starts):.3f} s per mutant")
for m in ms:
    if not m["detected"]:
        print("not detected:", m["mutation"], m["site"], m["exception"], m.get("survivor_reason"))
PY
