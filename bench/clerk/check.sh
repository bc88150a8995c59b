#!/bin/sh
# Runs the reference Catala's `clerk test` on a test suite written by
# `lexprobe concolic --emit-tests DIR`, beside `lexprobe test DIR`, and prints both counts.
#
# Usage: bench/clerk/check.sh DIR [LEXPROBE]
#   DIR       the directory of the emitted suite. clerk runs from the project root: DIR when
#             it holds a clerk.toml (written for a module program outside any project), else
#             the nearest directory above DIR with one (a suite inside a project), else DIR
#   LEXPROBE  the lexprobe binary (default: target/release/lexprobe, else target/debug/lexprobe)
# The reference build is found through CLERK (the clerk binary) or CATALA_REF (a directory
# holding the clerk and catala binaries, e.g. the `bin` of an installation or of a dune build;
# see the last section of ../shared/corpus/CATALA_INVENTORY.md for building it). Without it
# the check says so and exits 0. clerk builds the used modules under ROOT/_build first; run it
# on a copy if the project must stay as it is.
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
# clerk runs from the project root: DIR itself when it holds a clerk.toml, else the nearest
# directory above it that does (a suite emitted inside a project), else DIR.
dir="$(cd "$dir" && pwd)"
root="$dir"
if [ ! -f "$dir/clerk.toml" ]; then
  up="$(dirname "$dir")"
  while [ "$up" != "/" ]; do
    if [ -f "$up/clerk.toml" ]; then root="$up"; break; fi
    up="$(dirname "$up")"
  done
fi
target="${dir#"$root"}"
target="${target#/}"
echo "== $clerk test ${target:-.} (in $root)"
cd "$root"
# clerk prints a summary of passed and failed tests and exits non-zero when one fails.
if "$clerk" test "${target:-.}"; then
  echo "clerk test: every test passed"
else
  status=$?
  echo "clerk test: failures (exit code $status)"
  exit "$status"
fi
