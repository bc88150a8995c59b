#!/bin/sh
# The figures of a sharded run in directory $1 with $2 shards (wall time of the shards $3 s):
# the plan's and each shard's tests, wall time and CPU time (user + system, from the
# /usr/bin/time -v reports time-plan.txt and time-I.txt), then the balance (slowest shard /
# mean, by CPU time), the dearest subtree and the total CPU time.
set -eu
OUT=$1
SHARDS=$2
WALL=${3:-}
secs() { # "Elapsed (wall clock) time" as h:mm:ss or m:ss.cc → seconds
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$1"
}
cpu() { awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$1"; }
printf '%-6s %8s %10s %10s\n' part tests wall_s cpu_s
printf '%-6s %8s %10s %10s\n' plan "$(grep -o '"prefix"' "$OUT/plan.json" | wc -l)" \
  "$(secs "$OUT/time-plan.txt")" "$(cpu "$OUT/time-plan.txt")"
i=0
total=$(cpu "$OUT/time-plan.txt")
max=0
sum=0
while [ "$i" -lt "$SHARDS" ]; do
  t=$(grep -c '"outcome"' "$OUT/shard-$i.jsonl" || true)
  c=$(cpu "$OUT/time-$i.txt")
  printf '%-6s %8s %10s %10s\n' "$i" "$t" "$(secs "$OUT/time-$i.txt")" "$c"
  total=$(echo "$total + $c" | bc)
  sum=$(echo "$sum + $c" | bc)
  if [ "$(echo "$c > $max" | bc)" = 1 ]; then max=$c; fi
  i=$((i + 1))
done
mean=$(echo "scale=3; $sum / $SHARDS" | bc)
echo "shards: slowest ${max} s CPU, mean ${mean} s, slowest/mean $(echo "scale=2; $max / $mean" | bc)"
# The dearest subtree, from the `costs` ([tests, queries, CPU s, wall s] per subtree) of the
# shards' closing lines: no assignment can make a shard cheaper than it.
dearest=$(for f in "$OUT"/shard-*.jsonl; do tail -n 1 "$f"; done |
  grep -o '"costs":\[[^]]*\]\(,\[[^]]*\]\)*\]' | tr '[]' '\n\n' |
  awk -F, 'NF == 4 && $3 + 0 > best { best = $3 + 0; tests = $1 } END { print best, tests }')
if [ -n "$dearest" ]; then
  set -- $dearest
  echo "dearest subtree: $1 s CPU ($2 tests), $(echo "scale=2; $1 / $mean" | bc) of a mean shard"
fi
echo "total CPU (plan + shards): ${total} s"
[ -n "$WALL" ] && echo "wall time of the shards: ${WALL} s"
exit 0
