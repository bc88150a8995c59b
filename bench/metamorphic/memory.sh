#!/bin/sh
# Peak resident memory of `lexprobe metamorphic` over 20 relations, SECONDS each, against a
# fast external program: a Form 1040 Catala model served over JSON Lines by
# examples/serve_catala (release builds), by default the one with the planted
# itemize-above-standard bug, so that failing relations (whose samples hold both labels and
# whose trees are trained) are part of the run. Measured with GNU time (`/usr/bin/time -v`,
# in Debian's `time` package): its maximum resident set size is the largest of lexprobe's and
# of the program instances' (each well under 10 MB). The 20 relations are the 16 of
# form1040.mr and 4 more written here. Prints the text report, then time's figures.
# Usage: bench/metamorphic/memory.sh [SECONDS_PER_RELATION] [JOBS] [CATALA_FILE]
#        (from the workspace root)
set -e
SECONDS_PER_RELATION=${1:-60}
JOBS=${2:-2}
EX=examples/metamorphic
MODEL=${3:-$EX/form1040_bug_itemize_above.catala_en}
cargo build -q --release -p lexprobe --bin lexprobe
cargo build -q --release -p metamorphic --example serve_catala
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp $EX/form1040.mr "$WORK/twenty.mr"
cat >> "$WORK/twenty.mr" <<'RELATIONS'

relation m17_wages_monotone_single
  forall x. x.sts = Single => forall y. x ==[agi] y and x.agi < y.agi => F(x) >= F(y) - (y.agi - x.agi)
relation m18_more_children_ctc
  forall x, y. x ==[qc] y and x.qc < y.qc => out.ctc(x) <= out.ctc(y)
relation m19_medical_expenses_never_raise_tax
  forall x, y. x ==[mde] y and x.mde < y.mde => out.tax(x) >= out.tax(y)
relation m20_blindness_never_raises_tax
  forall x, y. x ==[blind] y and x.blind and not y.blind => out.tax(x) <= out.tax(y)
RELATIONS
SERVER="target/release/examples/serve_catala $MODEL Form1040"
echo "== lexprobe metamorphic, 20 relations x ${SECONDS_PER_RELATION}s, $JOBS workers, against: $SERVER"
set +e
/usr/bin/time -v target/release/lexprobe metamorphic --system "cmd:$SERVER" \
  --domain $EX/form1040.toml --relations "$WORK/twenty.mr" \
  --budget "${SECONDS_PER_RELATION}s" --jobs "$JOBS" 2> "$WORK/time.txt"
echo "exit code: $?"
grep -E "Maximum resident set size|Elapsed \(wall clock\)|Percent of CPU|Exit status" "$WORK/time.txt"
