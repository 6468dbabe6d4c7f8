#!/usr/bin/env python3
"""An external agent that misbehaves on purpose: it proposes a template the
kernel does not have, then a knob value outside its domain, then a knob the
template does not have, then answers garbage (and is dropped)."""
import json
import sys

answers = [
    {"candidates": [{"template": "cpu.no_such_template", "knobs": {}}]},
    {"candidates": [{"template": "cpu.matmul", "knobs": {"reg_n": 12345}}]},
    {"candidates": [{"template": "cpu.matmul", "knobs": {"no_such_knob": 1}}]},
]
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "done":
        break
    if message["type"] != "propose":
        continue
    if answers:
        print(json.dumps(answers.pop(0)), flush=True)
    else:
        print("this is not JSON", flush=True)
