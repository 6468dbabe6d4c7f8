#!/usr/bin/env python3
"""An external agent that misbehaves on purpose, in the way its argument
names: 'template' proposes a template the kernel does not have, 'knob' a knob
the template does not have, 'domain' a knob value outside its domain, 'type'
a knob value that is no integer; 'garbage' answers what is not JSON."""
import json
import sys

mode = sys.argv[1]
answers = {
    "template": {"template": "cpu.no_such_template", "knobs": {}},
    "knob": {"template": "cpu.matmul", "knobs": {"no_such_knob": 1}},
    "domain": {"template": "cpu.matmul", "knobs": {"reg_n": 12345}},
    "type": {"template": "cpu.matmul", "knobs": {"reg_n": "wide"}},
}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "done":
        break
    if message["type"] != "propose":
        continue
    if mode == "garbage":
        print("this is not JSON", flush=True)
    else:
        print(json.dumps({"candidates": [answers[mode]]}), flush=True)
