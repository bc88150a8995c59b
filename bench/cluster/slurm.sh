#!/bin/sh
# A real Slurm cluster on this machine: installs Debian's slurm-wlm and munge (as root),
# starts munged, slurmctld and slurmd as a single-node cluster with the machine's CPUs, makes
# a plan for SHARDS shards, submits them as a job array (`--shard auto` reads the task's
# index), waits, merges the shards' outputs and checks the merged tests are the EXPECTED
# paths of one whole exploration. Stops the daemons it started at the end.
#
# Defaults: the restricted housing benefits (17,435 paths), 8 shards.
#   sh bench/cluster/slurm.sh
#   FILE=…/aides_logement/tests/concolic/full.catala_fr EXPECTED=142046 SHARDS=32 \
#     PLAN_OPTS='--plan-subtrees 8192' sh bench/cluster/slurm.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LEXPROBE=${LEXPROBE:-$ROOT/target/release/lexprobe}
CORPUS=${CORPUS:-$ROOT/../shared/corpus/cutecat-benchmarks}
FILE=${FILE:-$CORPUS/aides_logement/tests/concolic/large_metropole_apl.catala_fr}
SCOPE=${SCOPE:-Test}
SHARDS=${SHARDS:-8}
EXPECTED=${EXPECTED:-17435}
PLAN_OPTS=${PLAN_OPTS:-} # e.g. --plan-subtrees 4096
CPUS=${CPUS:-$(nproc)}
OUT=${OUT:-$(mktemp -d /tmp/lexprobe-slurm.XXXXXX)}
mkdir -p "$OUT"
chmod 755 "$OUT"
FILE=$(realpath "$FILE")
NODE=$(hostname -s)

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge
fi
[ -x "$LEXPROBE" ] || (cd "$ROOT" && cargo build --release -p lexprobe)

# munge: a key, and the daemon (unless one runs already).
if [ ! -s /etc/munge/munge.key ]; then
  mungekey --create 2>/dev/null || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge && chown munge:munge /run/munge
STARTED_MUNGE=
if ! munge -n >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
  STARTED_MUNGE=1
fi

# One node, one partition; processes tracked without cgroups.
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=lexprobe
SlurmctldHost=$NODE
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$OUT/slurmctld.pid
SlurmdPidFile=$OUT/slurmd.pid
SlurmctldLogFile=$OUT/slurmctld.log
SlurmdLogFile=$OUT/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
NodeName=$NODE CPUs=$CPUS State=UNKNOWN
PartitionName=main Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
stop() {
  for d in slurmd slurmctld; do
    [ -s "$OUT/$d.pid" ] && kill "$(cat "$OUT/$d.pid")" 2>/dev/null || true
  done
  if [ -n "$STARTED_MUNGE" ] && [ -s /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
  fi
}
trap stop EXIT
slurmctld -c
slurmd
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
  i=$((i + 1))
  [ "$i" -gt 60 ] && { echo "the node did not come up (see $OUT/slurmd.log)"; exit 1; }
  scontrol update nodename="$NODE" state=resume 2>/dev/null || true
  sleep 1
done
sinfo

echo "outputs in $OUT"
/usr/bin/time -v -o "$OUT/time-plan.txt" \
  "$LEXPROBE" concolic "$FILE" --scope "$SCOPE" --plan "$SHARDS" $PLAN_OPTS > "$OUT/plan.json"

# The batch script: one array task per shard.
cat > "$OUT/shard.sbatch" <<BATCH
#!/bin/sh
#SBATCH --job-name=lexprobe-shard
#SBATCH --cpus-per-task=1
#SBATCH --output=$OUT/shard-%a.jsonl
#SBATCH --error=$OUT/shard-%a.err
exec /usr/bin/time -v -o $OUT/time-\$SLURM_ARRAY_TASK_ID.txt \\
  $LEXPROBE concolic $FILE --scope $SCOPE \\
  --plan-file $OUT/plan.json --shard auto --jsonl --exit-zero --checkpoint $OUT/shard-\$SLURM_ARRAY_TASK_ID.ckpt
BATCH
start=$(date +%s.%N)
job=$(sbatch --parsable --array=0-$((SHARDS - 1)) "$OUT/shard.sbatch")
echo "submitted job array $job"
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 1; done
end=$(date +%s.%N)
sacct -j "$job" >/dev/null 2>&1 || true

"$LEXPROBE" merge "$OUT"/shard-*.jsonl > "$OUT/merged.jsonl" || true
sh "$(dirname "$0")/summary.sh" "$OUT" "$SHARDS" "$(echo "$end - $start" | bc)"
tests=$(tail -n 1 "$OUT/merged.jsonl" | grep -o '"tests":[0-9]*' | head -n 1 | cut -d: -f2)
complete=$(tail -n 1 "$OUT/merged.jsonl" | grep -o '"complete":[a-z]*' | tail -n 1 | cut -d: -f2)
if [ "$tests" = "$EXPECTED" ] && [ "$complete" = true ]; then
  echo "OK: the merged job array holds the $EXPECTED paths of one exploration, complete"
else
  echo "FAILED: $tests merged tests (complete: $complete), expected $EXPECTED"
  exit 1
fi
