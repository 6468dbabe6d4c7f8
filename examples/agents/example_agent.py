#!/usr/bin/env python3
"""A small external agent for `int21-compile --tune --agent-cmd`.

It speaks the JSON-lines protocol of docs/agent-protocol.md: one JSON object
per line on stdin, one answer line on stdout for every "propose". Its
strategy is coordinate descent: starting from the best schedule the search
has measured (or the template's defaults), it moves one knob at a time to the
next option up or down, and keeps going in a direction while it pays off.
Anything a program can compute can go here instead, a language model
included: int21 validates every proposal against the schedule space.
"""

import json
import sys


def main():
    state = {}  # kernel -> {"tried": set of frozen knob dicts, "next": int}
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "done":
            return
        if kind == "result":
            # The search reports every trial, whoever proposed it.
            kernel = state.setdefault(message["kernel"], {"tried": set(), "next": 0})
            kernel["tried"].add(freeze(message["template"], message["knobs"]))
            continue
        if kind != "propose":
            continue  # "hello", and anything a later protocol adds.
        kernel = state.setdefault(message["kernel"], {"tried": set(), "next": 0})
        answer = propose(message, kernel)
        print(json.dumps({"candidates": answer}), flush=True)


def freeze(template, knobs):
    return (template, tuple(sorted(knobs.items())))


def propose(message, kernel):
    templates = {t["template"]: t for t in message["space"]}
    best = message.get("best")
    if best and best["template"] in templates:
        template = templates[best["template"]]
        start = dict(best["knobs"])
    else:
        template = message["space"][0]
        start = {k["name"]: k["default"] for k in template["knobs"]}
    moves = []
    for knob in template["knobs"]:
        options = knob["options"]
        at = options.index(start[knob["name"]]) if start[knob["name"]] in options else 0
        for step in (1, -1):
            if 0 <= at + step < len(options):
                moves.append((knob["name"], options[at + step]))
    candidates = []
    for i in range(len(moves)):
        name, value = moves[(kernel["next"] + i) % len(moves)]
        knobs = dict(start)
        knobs[name] = value
        key = freeze(template["template"], knobs)
        if key in kernel["tried"]:
            continue
        kernel["tried"].add(key)
        candidates.append({"template": template["template"], "knobs": knobs})
        if len(candidates) == message["count"]:
            break
    kernel["next"] += 1
    return candidates


if __name__ == "__main__":
    sys.exit(main())
