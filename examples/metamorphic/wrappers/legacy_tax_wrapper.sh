#!/bin/sh
# A JSON Lines wrapper around legacy_tax.sh, a program that reads its inputs from a file, for
#
#   lexprobe metamorphic --system 'cmd:sh examples/metamorphic/wrappers/legacy_tax_wrapper.sh' \
#     --domain examples/metamorphic/wrappers/legacy_tax.toml \
#     --relations examples/metamorphic/wrappers/legacy_tax.mr --request-id
#
# For each JSON object of inputs on stdin, it writes the input file, runs the program, and
# answers exactly one line on stdout: {"outputs": {...}} built from the program's "NAME
# AMOUNT" result lines (names in lower case; the banner is dropped), or {"error": "..."}
# with the program's stderr when it fails; the request_id (sent with --request-id) is echoed.
# Needs jq. Works kept running (the default) and one call per process (--one-call).
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# reply JSON ID: prints JSON with the request id added (when there is one), on one line.
reply() {
  jq -n -c --argjson reply "$1" --argjson id "$2" \
    'if $id == null then $reply else $reply + {request_id: $id} end'
}

while IFS= read -r request || [ -n "$request" ]; do
  case $request in *[![:space:]]*) ;; *) continue ;; esac
  # First line: the request id (null when absent); then one "NAME VALUE" line per input
  # field, the input file of the program.
  if ! printf '%s' "$request" |
    jq -r -c 'if type == "object" then . else error("not an object") end
              | (.request_id | tojson),
                (to_entries[] | select(.key != "request_id") | "\(.key) \(.value)")' \
      > "$work/request.txt" 2>/dev/null; then
    reply '{"error": "expected one JSON object of inputs per line"}' null
    continue
  fi
  IFS= read -r id < "$work/request.txt"
  tail -n +2 "$work/request.txt" > "$work/input.txt"
  if "$here/legacy_tax.sh" "$work/input.txt" > "$work/output.txt" 2> "$work/errors.txt"; then
    # The result lines become the outputs, the banner is dropped.
    jq -R -n -c --argjson id "$id" \
      '[inputs | select(test("^[A-Z_]+ -?[0-9.]+$")) | split(" ")
        | {key: (.[0] | ascii_downcase), value: (.[1] | tonumber)}]
       | {outputs: from_entries}
       | if $id == null then . else . + {request_id: $id} end' < "$work/output.txt"
  else
    reply "$(jq -R -s -c '{error: rtrimstr("\n")}' < "$work/errors.txt")" "$id"
  fi
done
