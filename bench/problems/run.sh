#!/bin/sh
# The problems lexprobe finds in scopes of catala-examples, each with the condition under which
# it occurs: every scope of bench/problems/scopes.txt is explored (`lexprobe concolic --format
# json`, bounded by MAX_TESTS tests — or the scope's own bound, the third column — and TIMEOUT
# seconds), then a Markdown table is printed:
# scope, tests, complete?, and per distinct problem its kind, its rule (file:line), the number
# of paths and its condition (the first CASES cases of the disjunction, and how many there are).
# Whether a problem is genuine or an artefact of the input space is a judgement on the law
# text: BENCHMARKS.md gives it per problem, with the reason.
#
# Usage: [LEXPROBE=BIN] [OUT=DIR] bench/problems/run.sh [CORPUS_DIR] [MAX_TESTS] [TIMEOUT_SECONDS] [CASES]
set -e
cd "$(dirname "$0")/../.."
CORPUS="${1:-$(pwd)/../shared/corpus}"
MAX_TESTS="${2:-20000}"
TIMEOUT="${3:-600}"
CASES="${4:-2}"
LEXPROBE="${LEXPROBE:-target/release/lexprobe}"
[ -x "$LEXPROBE" ] || cargo build --release -q -p lexprobe
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
echo "results in $OUT" >&2
# TABLE_ONLY=1 OUT=DIR: print the table of an earlier run kept in DIR.
if [ -z "$TABLE_ONLY" ]; then
tab="$(printf '\t')"
i=0
grep -v '^#' bench/problems/scopes.txt | while IFS="$tab" read -r file scope most; do
    i=$((i + 1))
    "$LEXPROBE" concolic "$CORPUS/catala-examples/$file" --scope "$scope" --format json \
        --exit-zero --max-tests "${most:-$MAX_TESTS}" --timeout "$TIMEOUT" \
        >"$OUT/$i.json" 2>"$OUT/$i.err" || true
    printf '%s\t%s\n' "$file" "$scope" >"$OUT/$i.scope"
done
fi

python3 - "$OUT" "$CASES" <<'PY'
import glob, json, os, sys
out, cases = sys.argv[1], int(sys.argv[2])
def key(p):
    return int(os.path.basename(p).split(".")[0])
print("| scope | tests | complete | problem | rule | paths | condition |")
print("|---|---:|---|---|---|---:|---|")
for scope_file in sorted(glob.glob(os.path.join(out, "*.scope")), key=key):
    n = key(scope_file)
    file, scope = open(scope_file, encoding="utf-8").read().strip().split("\t")
    name = f"`{scope}` ({file.split('/')[0]})"
    try:
        d = json.load(open(os.path.join(out, f"{n}.json"), encoding="utf-8"))
    except (OSError, ValueError):
        err = open(os.path.join(out, f"{n}.err"), encoding="utf-8").read().strip()
        print(f"| {name} | | | failed: {err[:120]} | | | |")
        continue
    stats = d["stats"]
    complete = "yes" if stats.get("complete") else "no"
    findings = d.get("findings", [])
    if not findings:
        print(f"| {name} | {stats['tests']} | {complete} | none | | | |")
        continue
    for k, f in enumerate(findings):
        pos = f["error"].get("positions") or [{}]
        rule = ", ".join(
            f"{os.path.basename(p.get('file', '?'))}:{p.get('line', '?')}" for p in pos[:2]
        )
        cond = f.get("condition") or {}
        texts = [c["text"] for c in cond.get("cases", [])]
        shown = " **or** ".join(f"`{t}`" for t in texts[:cases])
        if len(texts) > cases:
            shown += f" **or** … ({len(texts)} cases)"
        head = f"| {name} | {stats['tests']} | {complete} " if k == 0 else "| | | "
        print(f"{head}| {f['kind']} | {rule} | {cond.get('paths', f['tests'])} | {shown.replace('|', chr(92) + '|')} |")
PY
