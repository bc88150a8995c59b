#!/bin/sh
# Completeness audit over the corpus: every scope with inputs of the catala-examples programs,
# of the CUTECat benchmarks and of the wrapper scopes in tests/fixtures/audit is explored, then
# RUNS seeded random inputs within its input space are run and each run's path is looked up
# among the explored ones (`lexprobe audit`). Prints a Markdown table: scope, tests, complete?,
# random runs within the input space, random paths missing from the exploration (must be 0
# wherever complete is claimed).
#
# Usage: bench/audit/run.sh [CORPUS_DIR] [RUNS] [MAX_TESTS] [TIMEOUT_SECONDS]
# The exploration of a scope stops at MAX_TESTS tests or TIMEOUT seconds (it is then not
# complete, and its missing paths are expected).
set -e
cd "$(dirname "$0")/../.."
CORPUS="${1:-$(pwd)/../shared/corpus}"
RUNS="${2:-2000}"
MAX_TESTS="${3:-20000}"
TIMEOUT="${4:-60}"
LEXPROBE="${LEXPROBE:-target/release/lexprobe}"
[ -x "$LEXPROBE" ] || cargo build --release -q -p lexprobe
OUT="${OUT:-$(mktemp -d)}"
echo "results in $OUT" >&2
# TABLE_ONLY=1 OUT=DIR: print the table of an earlier run kept in DIR.
if [ -z "$TABLE_ONLY" ]; then

# The programs: every Catala file except those another file includes (`> Include:` /
# `> Inclusion:`), which are parts of that file's program and are audited through it.
files() {
    python3 - "$CORPUS/catala-examples" "$CORPUS/cutecat-benchmarks" tests/fixtures/audit <<'PY'
import os, re, sys
found = []
for root in sys.argv[1:]:
    for d, _, names in os.walk(root):
        found += [os.path.normpath(os.path.join(d, n)) for n in names if ".catala_" in n]
included = set()
for f in found:
    for line in open(f, encoding="utf-8", errors="replace"):
        m = re.match(r"^>\s*(Include|Inclusion)\s*:\s*(\S+)", line)
        if m:
            included.add(os.path.normpath(os.path.join(os.path.dirname(f), m.group(2))))
for f in sorted(found):
    if f not in included:
        print(f)
PY
}

i=0
for f in $(files); do
    i=$((i + 1))
    # A generous bound on the whole file: each scope's exploration has its own --timeout.
    timeout 3600 "$LEXPROBE" audit "$f" --runs "$RUNS" --max-tests "$MAX_TESTS" \
        --timeout "$TIMEOUT" --format json >"$OUT/$i.json" 2>"$OUT/$i.err" || true
    echo "$f" >"$OUT/$i.file"
done
fi

python3 - "$OUT" "$CORPUS" <<'EOF'
import json, os, sys
out, corpus = sys.argv[1], sys.argv[2]
rows, failed = [], []
n = 0
for name in sorted(os.listdir(out)):
    if not name.endswith(".json"):
        continue
    base = name[:-5]
    if not os.path.exists(os.path.join(out, base + ".file")):
        continue  # still running
    path = open(os.path.join(out, base + ".file")).read().strip()
    short = path.replace(corpus + "/", "")
    try:
        doc = json.load(open(os.path.join(out, name)))
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or "scopes" not in doc:
        err = open(os.path.join(out, base + ".err")).read().strip().splitlines()
        if not err and isinstance(doc, dict):
            err = [json.dumps(doc)[:200]]
        if not err or "nothing to audit" not in err[-1]:
            failed.append((short, err[-1] if err else "no output"))
        continue
    for r in doc["scopes"]:
        rows.append((short, r))
print("| file | scope | tests | complete | random runs in space | random paths | missing paths |")
print("|---|---|---|---|---|---|---|")
false_claims = 0
for short, r in rows:
    complete = "yes" if r["complete"] else "no"
    if r["complete"] and r["missing_paths"] > 0:
        false_claims += 1
    print(f"| {short} | {r['scope']} | {r['tests']} | {complete} | {r['in_input_space']} / {r['random_runs']} | {r['random_paths']} | {r['missing_paths']} |")
print()
print(f"{len(rows)} scopes audited; {sum(1 for _, r in rows if r['complete'])} complete; "
      f"{false_claims} complete explorations with missing paths")
for short, why in failed:
    print(f"not audited: {short}: {why}")
EOF
