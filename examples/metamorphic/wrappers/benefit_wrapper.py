#!/usr/bin/env python3
"""A JSON Lines wrapper around benefit.monthly_benefit, for

    lexprobe metamorphic --system 'cmd:python3 examples/metamorphic/wrappers/benefit_wrapper.py' \\
      --domain examples/metamorphic/wrappers/benefit.toml \\
      --relations examples/metamorphic/wrappers/benefit.mr --request-id

Reads one JSON object of inputs per line on stdin and answers each with exactly one line on
stdout: {"outputs": {...}, "request_id": N}, or {"error": "...", "request_id": N} when the
inputs are not what the calculation needs or it fails. The request_id of the request (sent
with --request-id) is echoed, so lexprobe checks that every reply belongs to its request.
Anything the wrapped code prints goes to stderr, never to stdout, where it would be taken
for a reply. Works in both modes: kept running (JSON Lines, the default) and one call per
process (--one-call).
"""
import contextlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benefit  # noqa: E402  (found next to this file)


def number(fields, name, integer=False):
    value = fields[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number, got %r" % (name, value))
    if integer and value != int(value):
        raise TypeError("%s must be a whole number, got %r" % (name, value))
    return int(value) if integer else float(value)


def answer(request):
    try:
        single_parent = request["single_parent"]
        if not isinstance(single_parent, bool):
            raise TypeError("single_parent must be true or false")
        # The wrapped code prints: keep its messages off stdout.
        with contextlib.redirect_stdout(sys.stderr):
            outputs = benefit.monthly_benefit(
                number(request, "children", integer=True),
                number(request, "income"),
                single_parent,
            )
        return {"outputs": outputs}
    except KeyError as missing:
        return {"error": "missing input %s" % missing}
    except Exception as error:  # any failure of the calculation is this input's error
        return {"error": "%s: %s" % (type(error).__name__, error)}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError as error:
            request, reply = {}, {"error": "not JSON: %s" % error}
        else:
            if isinstance(request, dict):
                reply = answer(request)
            else:
                request, reply = {}, {"error": "expected a JSON object of inputs"}
        if "request_id" in request:
            reply["request_id"] = request["request_id"]
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
