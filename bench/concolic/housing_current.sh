#!/bin/sh
# The current housing-benefits module (`Aides_logement`), restricted as the late-2024 benchmark
# is, explored in one process with replay checks: the fixture
# tests/fixtures/concolic_modules/aides_logement_restricte.catala_fr (its modules found through
# the clerk.toml beside it, so the corpus is not needed), under /usr/bin/time -v.
# Prints the exploration's figures (tests, queries, completeness) and the process's wall time,
# CPU time and peak memory. Target: complete with --check, under 10 minutes with --jobs 2, peak
# under 2 GB.
#
# usage: bench/concolic/housing_current.sh [LEXPROBE] [JOBS] [TIMEOUT_S]
#   LEXPROBE   default target/release/lexprobe (built if absent)
#   JOBS       workers (default 2)
#   TIMEOUT_S  the exploration's time limit (default 1500)
set -e
cd "$(dirname "$0")/../.."
BIN="${1:-target/release/lexprobe}"
JOBS="${2:-2}"
TIMEOUT="${3:-1500}"
[ -x "$BIN" ] || cargo build --release -q -p lexprobe
OUT="$(mktemp -d)"
/usr/bin/time -v "$BIN" concolic tests/fixtures/concolic_modules/aides_logement_restricte.catala_fr \
  --scope Test --check --stats --jsonl --jobs "$JOBS" --timeout "$TIMEOUT" \
  >"$OUT/tests.jsonl" 2>"$OUT/time.txt" || echo "exit status $? (see $OUT/time.txt)"
python3 - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
last = None
with open(f"{out}/tests.jsonl") as f:
    for line in f:
        if line.startswith('{"stats"'):
            last = json.loads(line)
time = open(f"{out}/time.txt").read()
def field(name):
    m = re.search(re.escape(name) + r":\s*(.+)", time)
    return m.group(1).strip() if m else "?"
if last is None:
    print("no statistics line: the run did not finish"); sys.exit(1)
s = last["stats"]
print(f"tests {s['tests']}, path queries {s['solver_calls']}, without Z3 {s['queries_without_z3']}, "
      f"fresh {s['fresh_queries']}, unknown {s['unknown_queries']}, complete {s['complete']}")
print(f"wall {field('Elapsed (wall clock) time (h:mm:ss or m:ss)')}, user {field('User time (seconds)')} s, "
      f"system {field('System time (seconds)')} s, peak {int(field('Maximum resident set size (kbytes)')) / 1e6:.2f} GB, "
      f"exit {field('Exit status')}")
PY
rm -rf "$OUT"
