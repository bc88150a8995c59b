#!/usr/bin/env bash
# Benchmarks `lexprobe falsify` on the HATch suite (../shared/corpus/hatch-benchmarks) and writes
# the table to bench/hatch/RESULTS.md: per benchmark of EXPECTED.md, the derivative-mode time and
# verdict on the `_buggy` method, the naive-mode time (or T/O), the verdict on the corresponding
# correct method, and the speed-up over our naive mode; FileSystem benchmarks are reported too.
#
# usage: bench/hatch/run.sh [TIMEOUT_SECONDS] [JOBS]    (defaults 60 and 2)
# The derivative-mode runs on the `_buggy` methods (the timed figures) run one at a time first;
# the long runs (naive mode, correct methods, which mostly end at the time limit) then run JOBS at
# a time.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SUITE="$ROOT/../shared/corpus/hatch-benchmarks"
OUT="$ROOT/bench/hatch/RESULTS.md"
TIMEOUT="${1:-60}"
JOBS="${2:-2}"
if [ ! -d "$SUITE" ]; then
  echo "benchmark suite not found at $SUITE: nothing to do"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# `lexprobe falsify`; when the workspace's other crates do not build, the same engine through the
# `hatch` crate's example driver (identical options and JSON fields). The binary is copied so that
# a rebuild during the run does not change it.
if cargo build --release -p lexprobe >/dev/null 2>&1; then
  cp "$ROOT/target/release/lexprobe" "$WORK/driver"
  SUB=falsify
  JSONFLAG=--format
  JSONVAL=json
  DRIVER="lexprobe falsify"
else
  cargo build --release -p hatch --example falsify_one >/dev/null 2>&1 || { echo "cannot build"; exit 2; }
  cp "$ROOT/target/release/examples/falsify_one" "$WORK/driver"
  SUB=""
  JSONFLAG=--json
  JSONVAL=""
  DRIVER="hatch example falsify_one (lexprobe did not build)"
fi
export WORK SUB JSONFLAG JSONVAL TIMEOUT

# one run: mode file out -> writes "falsified time timed_out" into out
cat > "$WORK/run_one.sh" <<'INNER'
#!/usr/bin/env bash
mode="$1"; file="$2"; out="$3"
args=()
[ -n "$SUB" ] && args+=("$SUB")
args+=("$file")
[ "$mode" = naive ] && args+=(--naive)
args+=(--timeout "$TIMEOUT" "$JSONFLAG")
[ -n "$JSONVAL" ] && args+=("$JSONVAL")
json=$(timeout $((TIMEOUT + 30)) "$WORK/driver" "${args[@]}" 2>/dev/null)
if [ -z "$json" ]; then echo "error - -" > "$out"; exit 0; fi
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["falsified"], "%.3f" % d["time_s"], d["timed_out"])' "$json" > "$out"
INNER
chmod +x "$WORK/run_one.sh"

# benchmark list and reference times from EXPECTED.md
mapfile -t ROWS < <(grep -E '^\| [A-Za-z]+_[A-Za-z]+/[a-z_]+ \|' "$SUITE/EXPECTED.md")
EXTRA=("FileSystem_KVStore/delete" "FileSystem_Tree/delete")
BENCHES=()
REFS=()
for row in "${ROWS[@]}" "${EXTRA[@]}"; do
  if [[ "$row" == \|* ]]; then
    BENCHES+=("$(echo "$row" | cut -d'|' -f2 | xargs)")
    REFS+=("$(echo "$row" | cut -d'|' -f3 | xargs)")
  else
    BENCHES+=("$row"); REFS+=("—")
  fi
done

# phase 1: derivative mode on the buggy methods, one at a time (these are the timed figures)
for i in "${!BENCHES[@]}"; do
  b="${BENCHES[$i]}"; dir="$SUITE/ri/${b%/*}"; m="${b#*/}"
  "$WORK/run_one.sh" derivative "$dir/${m}_buggy.ml" "$WORK/d_$i"
  echo "$b: derivative $(cat "$WORK/d_$i")"
done
# phase 2: naive mode on the buggy methods and derivative mode on the correct ones, JOBS at a time
for i in "${!BENCHES[@]}"; do
  b="${BENCHES[$i]}"; dir="$SUITE/ri/${b%/*}"; m="${b#*/}"
  echo "naive $dir/${m}_buggy.ml $WORK/n_$i"
  if [ -f "$dir/$m.ml" ]; then echo "derivative $dir/$m.ml $WORK/c_$i"; fi
done | xargs -P "$JOBS" -L 1 "$WORK/run_one.sh"

{
  echo "# HATch benchmarks: lexprobe falsify"
  echo
  echo "Machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
  echo "Command: \`bench/hatch/run.sh $TIMEOUT $JOBS\` (\`lexprobe falsify BENCH/METHOD.ml [--naive] --timeout $TIMEOUT\`,"
  echo "defaults \`--exec-bound 20 --append-bound 5\`), run through $DRIVER. Date: $(date -u +%Y-%m-%d)."
  echo "The derivative-mode runs on the \`_buggy\` methods ran one at a time; the naive-mode runs and the"
  echo "runs on the correct methods ran $JOBS at a time on the shared machine."
  echo
  echo "| benchmark | ours (derivative) s | falsified | ours naive s | speed-up over naive | reference HATch s | correct method falsified? | correct method s |"
  echo "|---|---:|:---:|---:|---:|---:|:---:|---:|"
} > "$OUT"

total=0
all_ok=1
for i in "${!BENCHES[@]}"; do
  bench="${BENCHES[$i]}"; ref="${REFS[$i]}"
  read -r df dt _ < "$WORK/d_$i"
  read -r nf nt _ < "$WORK/n_$i"
  if [ -f "$WORK/c_$i" ]; then read -r cf ct cto < "$WORK/c_$i"; else cf="n/a"; ct="-"; cto=""; fi
  [[ "$ref" == "—" || "$df" = True ]] || all_ok=0
  naive_col="$nt"; speed="—"
  if [ "$nf" = True ]; then speed=$(python3 -c "print('×%.1f' % ($nt / max($dt, 0.001)))"); else naive_col="T/O"; speed="T/O"; fi
  [ "$nf" = error ] && naive_col="error"
  ccol="no"; [ "$cf" = True ] && ccol="**yes**"; [ "$cf" = n/a ] && ccol="n/a"
  [ "$cto" = True ] && ct="$ct (T/O)"
  [[ "$ref" != "—" ]] && total=$(python3 -c "print('%.3f' % ($total + $dt))")
  echo "| $bench | $dt | $([ "$df" = True ] && echo yes || echo **no**) | $naive_col | $speed | $ref | $ccol | $ct |" >> "$OUT"
  echo "$bench: derivative $df ${dt}s, naive $nf ${nt}s, correct falsified=$cf"
done
{
  echo
  echo "Total derivative-mode time over the 30 benchmarks of EXPECTED.md: ${total} s."
  echo "All 30 falsified: $([ $all_ok = 1 ] && echo yes || echo no)."
  echo "A correct method that reaches the time limit without a violation is reported as not falsified (T/O)."
  cat "$ROOT/bench/hatch/NOTES.md" 2>/dev/null
} >> "$OUT"
echo "wrote $OUT"
