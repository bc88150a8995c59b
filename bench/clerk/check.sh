#!/bin/sh
# Runs the reference Catala's `clerk test` on a test suite written by
# `lexprobe concolic --emit-tests DIR`, beside `lexprobe test DIR`, and prints both counts.
#
# Usage: bench/clerk/check.sh DIR [LEXPROBE]
#   DIR       the directory of the emitted suite (its clerk.toml, when written, lists the
#             directories of the program's modules; it is the project root clerk runs from)
#   LEXPROBE  the lexprobe binary (default: target/release/lexprobe, else target/debug/lexprobe)
# The reference build is found through CLERK (the clerk binary) or CATALA_REF (a directory
# holding the clerk and catala binaries, e.g. the `bin` of an installation or of a dune build;
# see the last section of ../shared/corpus/CATALA_INVENTORY.md for building it). Without it
# the check says so and exits 0. clerk builds the used modules under DIR/_build first; run it
# on a copy if DIR must stay as emitted.
set -eu
here="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:?usage: bench/clerk/check.sh DIR [LEXPROBE]}"
lexprobe="${2:-}"
if [ -z "$lexprobe" ]; then
  if [ -x "$here/target/release/lexprobe" ]; then lexprobe="$here/target/release/lexprobe"
  else lexprobe="$here/target/debug/lexprobe"; fi
fi

echo "== lexprobe test $dir"
"$lexprobe" test "$dir" | tail -n 1 || true

clerk="${CLERK:-}"
if [ -z "$clerk" ] && [ -n "${CATALA_REF:-}" ] && [ -x "$CATALA_REF/clerk" ]; then
  clerk="$CATALA_REF/clerk"
  PATH="$CATALA_REF:$PATH"; export PATH
fi
if [ -z "$clerk" ] && command -v clerk >/dev/null 2>&1; then clerk="$(command -v clerk)"; fi
if [ -z "$clerk" ]; then
  echo "notice: no reference Catala build (set CLERK or CATALA_REF): clerk test skipped"
  exit 0
fi
echo "== $clerk test (in $dir)"
cd "$dir"
# clerk prints a summary of passed and failed tests and exits non-zero when one fails.
if "$clerk" test .; then
  echo "clerk test: every test passed"
else
  status=$?
  echo "clerk test: failures (exit code $status)"
  exit "$status"
fi
