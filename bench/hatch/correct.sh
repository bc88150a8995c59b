#!/usr/bin/env bash
# Runs `lexprobe falsify` in derivative mode on the 30 correct (non-`_buggy`) methods of the HATch
# suite (../shared/corpus/hatch-benchmarks, the benchmarks of EXPECTED.md) under /usr/bin/time -v
# and writes bench/hatch/CORRECT.md: per method, the verdict, whether the bounds were exhausted,
# how far the search got, states, Z3 queries, wall and CPU time, and the peak memory.
#
# usage: bench/hatch/correct.sh [TIMEOUT_SECONDS] [JOBS] [LEXPROBE]    (defaults 60, 2, the
# release build of this checkout). The load average of the machine before and after the runs is
# recorded: with JOBS runs at a time on a machine shared with other work, a run may get much
# less than one core, and the time limit is wall-clock time.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SUITE="$ROOT/../shared/corpus/hatch-benchmarks"
OUT="$ROOT/bench/hatch/CORRECT.md"
TIMEOUT="${1:-60}"
JOBS="${2:-2}"
BIN="${3:-}"
if [ ! -d "$SUITE" ]; then
  echo "benchmark suite not found at $SUITE: nothing to do"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -z "$BIN" ]; then
  cargo build --release -p lexprobe >/dev/null 2>&1 || { echo "cannot build"; exit 2; }
  BIN="$ROOT/target/release/lexprobe"
fi
cp "$BIN" "$WORK/lexprobe"
export WORK TIMEOUT SUITE

cat > "$WORK/run_one.sh" <<'INNER'
#!/usr/bin/env bash
b="$1"; i="$2"
/usr/bin/time -v -o "$WORK/t_$i" timeout $((TIMEOUT + 30)) "$WORK/lexprobe" falsify \
  "$SUITE/ri/$b.ml" --timeout "$TIMEOUT" --format json > "$WORK/j_$i" 2>/dev/null
INNER
chmod +x "$WORK/run_one.sh"

mapfile -t BENCHES < <(grep -E '^\| [A-Za-z]+_[A-Za-z]+/[a-z_]+ \|' "$SUITE/EXPECTED.md" | cut -d'|' -f2 | xargs -n1)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for i in "${!BENCHES[@]}"; do echo "${BENCHES[$i]} $i"; done | xargs -P "$JOBS" -L 1 "$WORK/run_one.sh"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# HATch benchmarks: the correct methods"
  echo
  echo "Machine: $(nproc) cores, $(uname -m). Command: \`bench/hatch/correct.sh $TIMEOUT $JOBS\`"
  echo "(\`lexprobe falsify ri/B/M.ml --timeout $TIMEOUT --format json\` under \`/usr/bin/time -v\`, defaults"
  echo "\`--exec-bound 20 --append-bound 5\`), $JOBS runs at a time. Date: $(date -u +%Y-%m-%d)."
  echo "Load average (1, 5, 15 min) before: $LOAD_BEFORE; after: $LOAD_AFTER."
  echo
  echo "| method | falsified | bounds exhausted | search got to | states | Z3 queries | wall s | CPU s | max RSS MB |"
  echo "|---|:---:|:---:|---|---:|---:|---:|---:|---:|"
} > "$OUT"
for i in "${!BENCHES[@]}"; do
  python3 - "${BENCHES[$i]}" "$WORK/j_$i" "$WORK/t_$i" >> "$OUT" <<'PY'
import json, re, sys
name, jf, tf = sys.argv[1:4]
t = open(tf).read()
def field(label):
    m = re.search(re.escape(label) + r": (.*)", t)
    return m.group(1).strip() if m else "?"
user, system = field("User time (seconds)"), field("System time (seconds)")
cpu = "%.1f" % (float(user) + float(system)) if "?" not in (user, system) else "?"
rss = field("Maximum resident set size (kbytes)")
rss = "%.0f" % (int(rss) / 1024) if rss.isdigit() else "?"
try:
    d = json.load(open(jf))
except Exception:
    print(f"| {name} | error | | | | | | {cpu} | {rss} |")
    sys.exit(0)
b = d.get("bounds") or {}
def show(x):
    return f"{x['calls']} calls, prestates {x['prestate_length']}" if x else "—"
got = "all" if b.get("exhausted") else (
    f"done: {show(b.get('completed'))}; at: {show(b.get('interrupted'))}")
print(f"| {name} | {'**yes**' if d['falsified'] else 'no'} | "
      f"{'yes' if b.get('exhausted') else 'no (T/O)' if d['timed_out'] else 'no'} | {got} | "
      f"{d['states']} | {d['solver_queries']} | {d['time_s']:.1f} | {cpu} | {rss} |")
PY
done
python3 - "$OUT" <<'PY' >> "$OUT"
import sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| ") and "/" in l.split("|")[1]]
ex = sum(1 for l in rows if l.split("|")[3].strip() == "yes")
fal = sum(1 for l in rows if "**yes**" in l.split("|")[2])
rss = [float(l.split("|")[9]) for l in rows if l.split("|")[9].strip() not in ("?", "")]
print()
print(f"Bounds exhausted: {ex} of {len(rows)}; falsified: {fal}; largest peak memory: {max(rss) if rss else 0:.0f} MB.")
PY
echo "wrote $OUT"
