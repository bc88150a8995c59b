#!/bin/sh
# lexprobe beside the paper's CUTECat on the three small benchmarks, as whole processes: CPU time
# (user + system of the process and its children, from wait4) and wall time, medians of paired
# runs alternating the two tools, and each tool's number of tests (10, 17 and 381 for both).
#
# usage: bench/concolic/vs_cutecat.sh CUTECAT [LEXPROBE] [RUNS] [BENCH_DIR]
#   CUTECAT    the command that runs CUTECat's `catala`, words separated by spaces (e.g.
#              "chroot /srv/trixie /opt/cutecat/bin/catala" for a build in a chroot; the last
#              section of ../shared/corpus/CATALA_INVENTORY.md says how to build it). A build in
#              a Debian trixie chroot ROOT also runs without entering it, through the chroot's
#              own loader and libraries (glibc 2.38 where the host has an older one):
#              "ROOT/lib64/ld-linux-x86-64.so.2 --library-path
#              ROOT/lib/x86_64-linux-gnu:ROOT/usr/lib/x86_64-linux-gnu ROOT/usr/local/bin/catala"
#              (no chroot call in the timed process)
#   LEXPROBE   default target/dist/lexprobe when built (`cargo build --profile dist -p lexprobe`,
#              the build the README installs), else target/release/lexprobe
#   RUNS       paired runs per benchmark (default 15)
#   BENCH_DIR  a directory holding cutecat-benchmarks' us_tax_code, smic, prologue_france and
#              impot_revenu
#              (default ../shared/corpus/cutecat-benchmarks; a tool run in a chroot needs a
#              copy it can see at the same path)
# Commands: CUTECAT concolic -s SCOPE FILE; LEXPROBE concolic FILE --scope SCOPE --order paper
# $LEXPROBE_OPTIONS, both printing their human reports (tests counted from them: CUTECat's
# "Evaluating with inputs:", lexprobe's "Test N (outcome):" lines). LEXPROBE_OPTIONS="--optim
# all,-input-space" explores exactly the paper's paths (10, 17 and 381 tests, as CUTECat); by
# default lexprobe leaves out the tests outside the scope's input assertions (9, 16 and 378).
set -eu
cd "$(dirname "$0")/../.."
CUTECAT="${1:?usage: vs_cutecat.sh CUTECAT [LEXPROBE] [RUNS] [BENCH_DIR]}"
DEFAULT=target/release/lexprobe
[ -x target/dist/lexprobe ] && DEFAULT=target/dist/lexprobe
LEXPROBE="${2:-$DEFAULT}"
RUNS="${3:-15}"
DIR="${4:-$(pwd)/../shared/corpus/cutecat-benchmarks}"
if [ ! -d "$DIR/smic" ]; then
  echo "benchmarks not found at $DIR: nothing to compare"
  exit 0
fi
# The binary is run from a copy, as `cargo install` leaves it: the same bytes as the linker
# left them in target/ took more page faults to map (measured with `perf stat` on this machine:
# 288 instead of 230 faults, 4.5 instead of 3.4 ms of CPU for Section 132).
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp "$LEXPROBE" "$WORK/lexprobe"
LEXPROBE="$WORK/lexprobe"
python3 - "$CUTECAT" "$LEXPROBE" "$RUNS" "$DIR" "${LEXPROBE_OPTIONS:-}" <<'PY'
import os, re, statistics, sys, time
cutecat, lexprobe, runs, bench = sys.argv[1].split(), os.path.abspath(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
extra = sys.argv[5].split()
cases = [
    ("Section 132", "us_tax_code", "section_132.catala_en", "QualifiedEmployeeDiscount"),
    ("SMIC", "smic", "smic.catala_fr", "Smic"),
    ("family quotient", "impot_revenu", "nombre_de_parts.catala_fr", "Test"),
]

def timed(cmd):
    """CPU ms (user + system, children included), wall ms, standard output. Started with
    posix_spawn (vfork), so the CPU time is the tool's own: a fork of this Python process
    would add its page-table copy (about 3 ms) to every child."""
    r, w = os.pipe()
    null = os.open(os.devnull, os.O_WRONLY)
    start = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, w, 1), (os.POSIX_SPAWN_DUP2, null, 2), (os.POSIX_SPAWN_CLOSE, r)])
    os.close(w)
    os.close(null)
    chunks = []
    while chunk := os.read(r, 1 << 16):
        chunks.append(chunk)
    os.close(r)
    _, _, ru = os.wait4(pid, 0)
    wall = (time.perf_counter() - start) * 1e3
    return (ru.ru_utime + ru.ru_stime) * 1e3, wall, b"".join(chunks).decode(errors="replace")

def tests(tool, out):
    if tool == "lexprobe":
        return str(len(re.findall(r"^Test [0-9]+ \(", out, re.M)))
    return str(out.count("Evaluating with inputs:"))

print(f"{'benchmark':16} {'CUTECat CPU ms':>15} {'wall':>8} {'lexprobe CPU ms':>16} {'wall':>7} {'CPU ratio':>10}  tests")
for name, folder, file, scope in cases:
    path = f"{bench}/{folder}/{file}"
    cmds = {
        "cutecat": cutecat + ["concolic", "-s", scope, path],
        "lexprobe": [lexprobe, "concolic", path, "--scope", scope, "--order", "paper"] + extra,
    }
    res, count = {k: [] for k in cmds}, {}
    for _ in range(runs):
        for tool, cmd in cmds.items():
            cpu, wall, out = timed(cmd)
            res[tool].append((cpu, wall))
            count[tool] = tests(tool, out)
    cpu = {k: statistics.median(x[0] for x in v) for k, v in res.items()}
    wall = {k: statistics.median(x[1] for x in v) for k, v in res.items()}
    print(f"{name:16} {cpu['cutecat']:>15.1f} {wall['cutecat']:>8.1f} {cpu['lexprobe']:>16.2f} "
          f"{wall['lexprobe']:>7.1f} {cpu['cutecat'] / cpu['lexprobe']:>9.1f}×  {count['cutecat']} / {count['lexprobe']}")
PY
