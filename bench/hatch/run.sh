#!/usr/bin/env bash
# Benchmarks `lexprobe falsify` on the HATch suite (../shared/corpus/hatch-benchmarks) and writes
# the table to bench/hatch/RESULTS.md: per benchmark of EXPECTED.md, the derivative-mode time and
# verdict on the `_buggy` method, the naive-mode time (or T/O), the verdict on the corresponding
# correct method, and the speed-up over our naive mode; FileSystem benchmarks are reported too.
#
# usage: bench/hatch/run.sh [TIMEOUT_SECONDS]    (default 60)
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SUITE="$ROOT/../shared/corpus/hatch-benchmarks"
OUT="$ROOT/bench/hatch/RESULTS.md"
TIMEOUT="${1:-60}"
if [ ! -d "$SUITE" ]; then
  echo "benchmark suite not found at $SUITE: nothing to do"
  exit 0
fi
# `lexprobe falsify`; when the workspace's other crates do not build, the same engine through the
# `hatch` crate's example driver (identical options and JSON fields)
if cargo build --release -p lexprobe >/dev/null 2>&1; then
  CMD=("$ROOT/target/release/lexprobe" falsify)
  JSON=(--format json)
  DRIVER="lexprobe falsify"
else
  cargo build --release -p hatch --example falsify_one >/dev/null 2>&1 || { echo "cannot build"; exit 2; }
  CMD=("$ROOT/target/release/examples/falsify_one")
  JSON=(--json)
  DRIVER="hatch example falsify_one (lexprobe did not build)"
fi

# benchmark list and reference times from EXPECTED.md
mapfile -t ROWS < <(grep -E '^\| [A-Za-z]+_[A-Za-z]+/[a-z_]+ \|' "$SUITE/EXPECTED.md")
EXTRA=("FileSystem_KVStore/delete" "FileSystem_Tree/delete")

run() { # mode file -> "falsified time timed_out"
  local mode="$1" file="$2" json
  if [ "$mode" = naive ]; then
    json=$(timeout $((TIMEOUT + 30)) "${CMD[@]}" "$file" --naive --timeout "$TIMEOUT" "${JSON[@]}" 2>/dev/null)
  else
    json=$(timeout $((TIMEOUT + 30)) "${CMD[@]}" "$file" --timeout "$TIMEOUT" "${JSON[@]}" 2>/dev/null)
  fi
  if [ -z "$json" ]; then echo "error - -"; return; fi
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["falsified"], "%.3f" % d["time_s"], d["timed_out"])' "$json"
}

{
  echo "# HATch benchmarks: lexprobe falsify"
  echo
  echo "Machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
  echo "Command: \`bench/hatch/run.sh $TIMEOUT\` (\`lexprobe falsify BENCH/METHOD.ml [--naive] --timeout $TIMEOUT\`,"
  echo "defaults \`--exec-bound 20 --append-bound 5\`), run through $DRIVER. Date: $(date -u +%Y-%m-%d)."
  echo
  echo "| benchmark | ours (derivative) s | falsified | ours naive s | speed-up over naive | reference HATch s | correct method falsified? | correct method s |"
  echo "|---|---:|:---:|---:|---:|---:|:---:|---:|"
} > "$OUT"

total=0
all_ok=1
for row in "${ROWS[@]}" "${EXTRA[@]}"; do
  if [[ "$row" == \|* ]]; then
    bench=$(echo "$row" | cut -d'|' -f2 | xargs)
    ref=$(echo "$row" | cut -d'|' -f3 | xargs)
  else
    bench="$row"; ref="—"
  fi
  dir="$SUITE/ri/${bench%/*}"; m="${bench#*/}"
  read -r df dt _ < <(run derivative "$dir/${m}_buggy.ml")
  read -r nf nt nto < <(run naive "$dir/${m}_buggy.ml")
  if [ -f "$dir/$m.ml" ]; then read -r cf ct cto < <(run derivative "$dir/$m.ml"); else cf="n/a"; ct="-"; cto=""; fi
  [[ "$ref" == "—" || "$df" = True ]] || all_ok=0
  naive_col="$nt"; speed="—"
  if [ "$nf" = True ]; then speed=$(python3 -c "print('×%.1f' % ($nt / max($dt, 0.001)))"); else naive_col="T/O"; speed="T/O"; fi
  [ "$nf" = error ] && naive_col="error"
  ccol="no"; [ "$cf" = True ] && ccol="**yes**"; [ "$cf" = n/a ] && ccol="n/a"
  [ "$cto" = True ] && ct="$ct (T/O)"
  [[ "$ref" != "—" ]] && total=$(python3 -c "print($total + $dt)")
  echo "| $bench | $dt | $([ "$df" = True ] && echo yes || echo **no**) | $naive_col | $speed | $ref | $ccol | $ct |" >> "$OUT"
  echo "$bench: derivative $df ${dt}s, naive $nf ${nt}s, correct falsified=$cf"
done
{
  echo
  echo "Total derivative-mode time over the 30 benchmarks of EXPECTED.md: ${total} s."
  echo "All 30 falsified: $([ $all_ok = 1 ] && echo yes || echo no)."
  echo "A correct method that reaches the time limit without a violation is reported as not falsified (T/O)."
  echo
  echo "MinSet_Set/minset_singleton (correct) is falsified because its specification, read with the LTLf"
  echo "semantics of Section 3, is violated: \`rI m\` requires \`minP m\` (\`_F (Insert m)\` among others) on the"
  echo "suffix that starts at the last \`Write m\`, and the method inserts before it writes. The witness is"
  echo "isWritten = false; insert m; write m."
} >> "$OUT"
echo "wrote $OUT"
