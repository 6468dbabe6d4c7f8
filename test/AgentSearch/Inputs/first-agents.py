"""Prints, for each kernel of a tuning log, the agent of its first trial
after the default schedule: KERNEL:AGENT, one per line, by kernel."""
import json
import sys

first = {}
with open(sys.argv[1]) as log:
    for line in log:
        trial = json.loads(line)
        if not trial["default"]:
            first.setdefault(trial["kernel"], trial["agent"])
for kernel in sorted(first):
    print(f"{kernel}:{first[kernel]}")
