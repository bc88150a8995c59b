#!/bin/sh
# Realistic inputs over the corpus: for every scope with inputs of the CUTECat benchmarks and of
# the catala-examples programs that speak of dates, the tests of `lexprobe concolic --format json`
# (at most MAX_TESTS tests or TIMEOUT seconds per scope) are read, and each date among their
# inputs is checked against the program's date range: the whole years of its date literals, as
# the new build reports it in `bounds.preferred_dates` (the same range is used for both builds).
# Prints a Markdown table, per scope and in all: date inputs, and the share inside the range for
# each build; and the tests counted by each build (they must be equal where both explorations
# are complete).
#
# Usage: bench/realism/run.sh BASE_BIN NEW_BIN [CORPUS_DIR] [MAX_TESTS] [TIMEOUT_SECONDS]
set -e
cd "$(dirname "$0")/../.."
BASE="${1:?usage: run.sh BASE_BIN NEW_BIN [CORPUS_DIR] [MAX_TESTS] [TIMEOUT]}"
NEW="${2:?usage: run.sh BASE_BIN NEW_BIN [CORPUS_DIR] [MAX_TESTS] [TIMEOUT]}"
CORPUS="${3:-$(pwd)/../shared/corpus}"
MAX_TESTS="${4:-500}"
TIMEOUT="${5:-30}"
if [ ! -d "$CORPUS/cutecat-benchmarks" ]; then
    echo "corpus not found at $CORPUS: nothing to measure"
    exit 0
fi
python3 - "$BASE" "$NEW" "$CORPUS" "$MAX_TESTS" "$TIMEOUT" <<'PY'
import json, os, re, subprocess, sys

base, new, corpus, max_tests, timeout = sys.argv[1:6]
date_re = re.compile(r"^-?\d{4}-\d{2}-\d{2}$")

def files():
    """The programs: Catala files no other file includes, among the CUTECat benchmarks and
    the catala-examples programs with a date in a declaration."""
    found = []
    for root in ("cutecat-benchmarks", "catala-examples"):
        for d, _, names in os.walk(os.path.join(corpus, root)):
            found += [os.path.normpath(os.path.join(d, n)) for n in names if ".catala_" in n]
    included = set()
    for f in found:
        for line in open(f, encoding="utf-8", errors="replace"):
            m = re.match(r"^>\s*(Include|Inclusion)\s*:\s*(\S+)", line)
            if m:
                included.add(os.path.normpath(os.path.join(os.path.dirname(f), m.group(2))))
    keep = []
    for f in sorted(found):
        if f in included or "/tests/" in f and "cutecat-benchmarks" not in f:
            continue
        text = open(f, encoding="utf-8", errors="replace").read()
        if "cutecat-benchmarks" in f or re.search(r"(content|contenu) date", text):
            keep.append(f)
    return keep

def scopes(path):
    """Scopes declared with at least one input in `path`."""
    text = open(path, encoding="utf-8", errors="replace").read()
    out = []
    decl = re.compile(r"^\s*(?:declaration scope|déclaration champ d'application)\s+(\w+)\s*:", re.M)
    marks = list(decl.finditer(text))
    for i, m in enumerate(marks):
        body = text[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        body = body.split("```")[0]
        if re.search(r"^\s*(input|entrée|context|contexte)\s", body, re.M):
            out.append(m.group(1))
    return out

def dates_in(v, out):
    if isinstance(v, str) and date_re.match(v):
        out.append(v)
    elif isinstance(v, dict):
        for x in v.values():
            dates_in(x, out)
    elif isinstance(v, list):
        for x in v:
            dates_in(x, out)

def explore(binary, path, scope):
    cmd = [binary, "concolic", path, "--scope", scope, "--format", "json",
           "--max-tests", max_tests, "--timeout", timeout]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=int(timeout) * 4 + 60)
        return json.loads(out.stdout)
    except (ValueError, subprocess.TimeoutExpired):
        return None

rows = []
totals = {"base": [0, 0], "new": [0, 0]}
for path in files():
    for scope in scopes(path):
        doc_new = explore(new, path, scope)
        if not isinstance(doc_new, dict) or "tests" not in doc_new:
            continue
        rng = doc_new.get("bounds", {}).get("preferred_dates")
        if not rng:
            continue
        doc_base = explore(base, path, scope)
        if not isinstance(doc_base, dict) or "tests" not in doc_base:
            continue
        row = [os.path.relpath(path, corpus) + " " + scope]
        for label, doc in (("base", doc_base), ("new", doc_new)):
            found = []
            for t in doc["tests"]:
                dates_in(t.get("inputs", {}), found)
            inside = sum(1 for d in found if rng[0] <= d <= rng[1])
            totals[label][0] += inside
            totals[label][1] += len(found)
            share = f"{100 * inside / len(found):.0f}% of {len(found)}" if found else "no date"
            row += [share, str(doc["stats"]["tests"]) + ("" if doc["stats"].get("complete") else "+")]
        row.insert(1, f"{rng[0][:4]}–{rng[1][:4]}")
        rows.append(row)
        print("  done:", row, file=sys.stderr)

print("| scope | date range | base: dates inside | base: tests | new: dates inside | new: tests |")
print("|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
pct = lambda x: f"{100 * x[0] / x[1]:.1f}% of {x[1]}" if x[1] else "no date"
print(f"| **all** | | {pct(totals['base'])} | | {pct(totals['new'])} | |")
print("\n(tests: `+` marks an exploration stopped by the limits, not complete)")
PY
