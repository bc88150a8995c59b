#!/bin/sh
# Opens HTML reports in headless Chromium: no console error, no network request, the parts a
# reader needs are there; saves a screenshot next to each page (PAGE.png).
# Usage: bench/browser/check.sh [coverage|metamorphic|concolic|diff] PAGE.html...
# Needs node and Chromium (Debian package `chromium`); without them, says so and exits 0.
set -e
kind=coverage
case "$1" in coverage|metamorphic|concolic|diff) kind="$1"; shift ;; esac
if ! command -v node >/dev/null || ! command -v "${CHROMIUM:-chromium}" >/dev/null; then
  echo "notice: node or chromium is not installed (apt-get install -y chromium): browser check skipped"
  exit 0
fi
status=0
for page in "$@"; do
  node "$(dirname "$0")/check_page.mjs" "$page" "${page%.html}.png" "$kind" || status=1
done
exit $status
