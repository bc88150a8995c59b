#!/bin/sh
# Timing of the small CUTECat benchmarks (Section 132, SMIC, family quotient, running example):
# each exploration is run RUNS times (release build, every optimization, --check on) and the
# median of the exploration time (stats.time_s) and of the process wall time are printed with
# the test and query counts.
# Usage: bench/concolic/small.sh [CORPUS_DIR] [RUNS] [OPTIM]
set -e
cd "$(dirname "$0")/../.."
CORPUS="${1:-$(pwd)/../shared/corpus}/cutecat-benchmarks"
RUNS="${2:-15}"
OPTIM="${3:-all}"
cargo build --release -q -p lexprobe
BIN="$(pwd)/target/release/lexprobe"
python3 - "$BIN" "$CORPUS" "$RUNS" "$OPTIM" <<'PY'
import json, statistics, subprocess, sys, time
bin_, corpus, runs, optim = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cases = [
    ("running_example/running_example.catala_en", "IncomeTaxComputation", None),
    ("us_tax_code/section_132.catala_en", "QualifiedEmployeeDiscount", 0.02),
    ("smic/smic.catala_fr", "Smic", 0.08),
    ("impot_revenu/nombre_de_parts.catala_fr", "Test", 4.34),
]
print(f"{'benchmark':45} {'tests':>6} {'queries':>8} {'no Z3':>6} {'round':>6}"
      f" {'explore ms':>11} {'process ms':>11} {'paper x':>8}")
for path, scope, paper in cases:
    cmd = [bin_, "concolic", f"{corpus}/{path}", "--scope", scope, "--check",
           "--format", "json", "--optim", optim]
    explore, wall, stats = [], [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        wall.append(time.perf_counter() - t)
        stats = json.loads(out.stdout)["stats"]
        explore.append(stats["time_s"])
    e, w = statistics.median(explore), statistics.median(wall)
    speedup = f"{paper / e:.0f}" if paper else "-"
    print(f"{path + ' ' + scope:45.45} {stats['tests']:>6} {stats['solver_calls']:>8}"
          f" {stats.get('queries_without_z3', 0):>6} {stats['soft_solver_calls']:>6}"
          f" {e * 1e3:>11.2f} {w * 1e3:>11.2f} {speedup:>8}")
PY
