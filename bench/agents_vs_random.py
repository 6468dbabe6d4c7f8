#!/usr/bin/env python3
"""Agents against the random baseline, from tuning logs (JSON lines).

Usage: agents_vs_random.py DIR
DIR holds MODEL-random-SEED.jsonl and MODEL-team-SEED.jsonl, written by
`int21-compile --tune --tune-log` at equal --budget. For every kernel that the
random agent improved (its best beat the default by more than 2%), the team
needs n_T trials on that kernel to reach the random search's best time
(within 2%: the runs are measured separately), where random used n_R.
A run's figure is sum(n_T) / sum(n_R): the fraction of the random agent's
trials the team needed. Printed per model and seed, then the median of the
seeds per model, the median of those over the models, and the kernels of all
models pooled per seed (the sums over every model of that seed) with the
median over the seeds.

Times are compared as fractions of each run's own default time for the
kernel: the default schedule is the same in both runs, and int21-compile
times every candidate in alternation with it (--paired-timing), so these
fractions hold when the machine is slower during one run than the other.
"""
import collections
import json
import os
import statistics
import sys

TOLERANCE = 1.02


def load(path):
    kernels = collections.defaultdict(list)
    for line in open(path):
        trial = json.loads(line)
        kernels[trial["signature"]].append(trial)
    return kernels


def main(directory):
    runs = collections.defaultdict(dict)
    for name in os.listdir(directory):
        if not name.endswith(".jsonl"):
            continue
        model, who, seed = name[: -len(".jsonl")].rsplit("-", 2)
        runs[(model, seed)][who] = load(os.path.join(directory, name))
    per_model = collections.defaultdict(list)
    per_seed = collections.defaultdict(lambda: [0, 0])
    print(f"{'model':10} {'seed':>4} {'kernels':>7} {'random trials':>13} "
          f"{'team trials':>11} {'fraction':>8}")
    for (model, seed), logs in sorted(runs.items()):
        if "random" not in logs or "team" not in logs:
            continue
        total_random = total_team = kernels = 0
        unreached = 0
        for signature, trials in logs["random"].items():
            ok = [t for t in trials if t["outcome"] == "ok"]
            default = [t for t in ok if t["default"]]
            searched = [t for t in trials if not t["default"]]
            if not default or not searched or not ok:
                continue
            best = min(t["median_ms"] for t in ok) / default[0]["median_ms"]
            if best * TOLERANCE >= 1:
                continue  # Random never beat the default: nothing to reach.
            team = logs["team"].get(signature, [])
            team_default = [t for t in team if t["default"] and t["outcome"] == "ok"]
            if not team_default:
                continue
            reached = None
            best_so_far = float("inf")
            count = 0
            for t in team:
                if not t["default"]:
                    count += 1
                if t["outcome"] == "ok":
                    best_so_far = min(best_so_far, t["median_ms"] /
                                      team_default[0]["median_ms"])
                if best_so_far <= best * TOLERANCE:
                    reached = count
                    break
            kernels += 1
            total_random += len(searched)
            if reached is None:
                unreached += 1
                reached = max(count, len(searched))  # At least all it had.
            total_team += reached
        if not kernels:
            print(f"{model:10} {seed:>4} {0:>7} (random beat no default)")
            continue
        fraction = total_team / total_random
        per_model[model].append(fraction)
        per_seed[seed][0] += total_team
        per_seed[seed][1] += total_random
        note = f"  ({unreached} kernels not reached)" if unreached else ""
        print(f"{model:10} {seed:>4} {kernels:>7} {total_random:>13} "
              f"{total_team:>11} {fraction:>8.2f}{note}")
    print()
    everything = []
    for model, fractions in sorted(per_model.items()):
        median = statistics.median(fractions)
        everything.append(median)
        print(f"{model}: median over {len(fractions)} seeds: {median:.2f} "
              f"of the random agent's trials")
    if everything:
        print(f"all models: median of the models' medians "
              f"{statistics.median(everything):.3f} (acceptance: at most 1/3)")
    pooled = {seed: team / rand for seed, (team, rand) in per_seed.items()}
    if pooled:
        seeds = ", ".join(f"seed {s} {f:.3f}" for s, f in sorted(pooled.items()))
        print(f"all kernels pooled per seed: {seeds}; median "
              f"{statistics.median(pooled.values()):.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
