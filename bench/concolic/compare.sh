#!/usr/bin/env bash
# Two builds of lexprobe side by side on the benchmarks whose counts must not change when the code
# is reorganised: the CUTECat paper's Section 132, SMIC and family quotient and the late-2024
# restricted housing benchmark (with `--jobs 2`), all in the paper's evaluation order (`--order
# paper`, the order of the paper's counts: 10, 17, 381 and 17,435 tests), and the 30 buggy HATch
# methods in derivative mode.
#
# usage: bench/concolic/compare.sh BASE_BIN NEW_BIN [RUNS] [CORPUS_DIR]
#   BASE_BIN, NEW_BIN  two release binaries (e.g. a build of the previous commit and of this one)
#   RUNS               paired runs of each small benchmark (default 11), alternating the binaries
#   CORPUS_DIR         default ../shared/corpus
# Prints, per benchmark, both builds' test and query counts (they must be equal) and the median
# process wall time of each with their ratio; for the housing benchmark one run each under
# /usr/bin/time (wall and peak memory); for HATch the number of buggy methods falsified by each.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE="${1:?usage: compare.sh BASE_BIN NEW_BIN [RUNS] [CORPUS_DIR]}"
NEW="${2:?usage: compare.sh BASE_BIN NEW_BIN [RUNS] [CORPUS_DIR]}"
RUNS="${3:-11}"
CORPUS="${4:-$(pwd)/../shared/corpus}"
if [ ! -d "$CORPUS/cutecat-benchmarks" ]; then
  echo "corpus not found at $CORPUS: nothing to compare"
  exit 0
fi
python3 - "$BASE" "$NEW" "$RUNS" "$CORPUS" <<'PY'
import json, os, re, statistics, subprocess, sys, time
base, new, runs, corpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cc = f"{corpus}/cutecat-benchmarks"
small = [
    ("Section 132", f"{cc}/us_tax_code/section_132.catala_en", "QualifiedEmployeeDiscount", ["--order", "paper"]),
    ("SMIC", f"{cc}/smic/smic.catala_fr", "Smic", ["--order", "paper"]),
    ("family quotient", f"{cc}/impot_revenu/nombre_de_parts.catala_fr", "Test", ["--order", "paper"]),
]

def explore(binary, path, scope, extra):
    cmd = [binary, "concolic", path, "--scope", scope, "--check", "--format", "json"] + extra
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    s = json.loads(out.stdout)["stats"]
    return (s["tests"], s["solver_calls"], s.get("complete")), wall

print(f"{'benchmark':18} {'tests, queries (base)':>22} {'(new)':>22} {'base ms':>9} {'new ms':>9} {'new/base':>9}")
for name, path, scope, extra in small:
    walls = {base: [], new: []}
    counts = {}
    for _ in range(runs):
        for b in (base, new):
            c, w = explore(b, path, scope, extra)
            counts[b] = c
            walls[b].append(w)
    mb, mn = statistics.median(walls[base]) * 1e3, statistics.median(walls[new]) * 1e3
    flag = "" if counts[base][:2] == counts[new][:2] else "  COUNTS DIFFER"
    print(f"{name:18} {str(counts[base][:2]):>22} {str(counts[new][:2]):>22} {mb:>9.1f} {mn:>9.1f} {mn / mb:>9.2f}{flag}")

housing = f"{cc}/aides_logement/tests/concolic/large_metropole_apl.catala_fr"
for label, b in (("base", base), ("new", new)):
    cmd = ["/usr/bin/time", "-f", "TIME %e %M", b, "concolic", housing, "--scope", "Test",
           "--jsonl", "--check", "--stats", "--jobs", "2", "--order", "paper"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    last = json.loads(out.stdout.strip().splitlines()[-1])
    s = last.get("stats", last)
    m = re.search(r"TIME ([0-9.]+) ([0-9]+)", out.stderr)
    print(f"restricted housing ({label}): {s.get('tests')} tests, {s.get('solver_calls')} queries, "
          f"complete={s.get('complete')}, {m.group(1)} s wall, {int(m.group(2)) // 1024} MB")

suite = f"{corpus}/hatch-benchmarks"
if os.path.isdir(suite):
    rows = re.findall(r"^\| ([A-Za-z]+_[A-Za-z]+)/([a-z_]+) \|", open(f"{suite}/EXPECTED.md").read(), re.M)
    for label, b in (("base", base), ("new", new)):
        falsified = 0
        for bench, method in rows:
            f = f"{suite}/ri/{bench}/{method}_buggy.ml"
            out = subprocess.run([b, "falsify", f, "--timeout", "60", "--format", "json"],
                                 capture_output=True, text=True)
            try:
                falsified += bool(json.loads(out.stdout)["falsified"])
            except (ValueError, KeyError):
                pass
        print(f"HATch ({label}): {falsified} of {len(rows)} buggy methods falsified")
PY
