#!/usr/bin/env bash
# Checks that the 30 `_buggy` methods of the HATch suite (../shared/corpus/hatch-benchmarks, the
# benchmarks of EXPECTED.md) are falsified in derivative mode, one at a time, and prints per
# method the verdict, states, Z3 queries and time, then the count. Exits 1 when one is not.
#
# usage: bench/hatch/buggy.sh [TIMEOUT_SECONDS] [LEXPROBE]    (defaults 60 and the release build
# of this checkout)
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SUITE="$ROOT/../shared/corpus/hatch-benchmarks"
TIMEOUT="${1:-60}"
BIN="${2:-}"
if [ ! -d "$SUITE" ]; then
  echo "benchmark suite not found at $SUITE: nothing to do"
  exit 0
fi
if [ -z "$BIN" ]; then
  cargo build --release -p lexprobe >/dev/null 2>&1 || { echo "cannot build"; exit 2; }
  BIN="$ROOT/target/release/lexprobe"
fi
mapfile -t BENCHES < <(grep -E '^\| [A-Za-z]+_[A-Za-z]+/[a-z_]+ \|' "$SUITE/EXPECTED.md" | cut -d'|' -f2 | xargs -n1)
ok=0
for b in "${BENCHES[@]}"; do
  json=$(timeout $((TIMEOUT + 30)) "$BIN" falsify "$SUITE/ri/${b}_buggy.ml" --timeout "$TIMEOUT" --format json 2>/dev/null)
  line=$(python3 -c 'import json,sys
try:
    d = json.loads(sys.argv[1])
    print("yes" if d["falsified"] else "NO", d["states"], d["solver_queries"], "%.3f" % d["time_s"])
except Exception:
    print("error - - -")' "$json")
  echo "$b ${line}"
  [ "${line%% *}" = yes ] && ok=$((ok + 1))
done
echo "falsified: $ok of ${#BENCHES[@]}"
[ "$ok" = "${#BENCHES[@]}" ]
