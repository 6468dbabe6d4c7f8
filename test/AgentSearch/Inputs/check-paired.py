"""Checks the paired timing fields of a tuning log (tune.test).

Usage: check-paired.py LOG paired|alone
paired: the defaults carry no paired fields; every other correct trial that
was timed in full carries measured_ms and default_now_ms, and its median_ms
is measured_ms scaled by the default trial's median over default_now_ms.
alone: no trial carries them.
"""
import json
import math
import sys

path, mode = sys.argv[1], sys.argv[2]
trials = [json.loads(line) for line in open(path)]
defaults = {t["kernel"]: t for t in trials if t["default"]}
paired = 0
for t in trials:
    has = "measured_ms" in t or "default_now_ms" in t
    if mode == "alone" or t["default"] or t["outcome"] != "ok":
        if has:
            sys.exit(f"trial {t['trial']}: unexpected paired fields")
        continue
    if not has:
        continue  # Gave up early: slower than four times the best.
    paired += 1
    base = defaults[t["kernel"]]["median_ms"]
    want = t["measured_ms"] * base / t["default_now_ms"]
    if not math.isclose(t["median_ms"], want, rel_tol=1e-9):
        sys.exit(f"trial {t['trial']}: median_ms {t['median_ms']} != {want}")
if mode == "paired" and paired == 0:
    sys.exit("no trial was timed beside its default")
print(f"{mode}: {paired} paired trials")
