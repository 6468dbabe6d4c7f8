"""Sums an ONNX Runtime profile (bench/ort_profile.js) per op type and per
node: milliseconds a run, the nodes' output shapes, the most expensive
first. ORT's CPU graph optimizations rename and fuse nodes (NCHWc convs
with their activation, BatchNormalization as a depthwise 1x1 Conv), so its
nodes are the kernels it ran, not the model's nodes.
Usage: ort_profile.py PROFILE.json RUNS [TOP]"""
import collections
import json
import sys


def main(path, runs, top):
    events = json.load(open(path))
    by_op = collections.defaultdict(float)
    by_node = collections.defaultdict(float)
    shapes = {}
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        node = e["name"][: -len("_kernel_time")]
        args = e.get("args", {})
        op = args.get("op_name", "?")
        by_op[op] += e["dur"]
        by_node[node] += e["dur"]
        shapes[node] = (op, args.get("output_type_shape"))
    total = sum(by_op.values())
    print(f"ONNX Runtime kernels: {total / runs / 1000:.3f} ms a run ({runs} runs)")
    for op, us in sorted(by_op.items(), key=lambda t: -t[1]):
        print(f"  {op:28s} {us / runs / 1000:8.3f} ms {100 * us / total:5.1f}%")
    print(f"the {top} most expensive nodes (ms a run, op, output shape):")
    for node, us in sorted(by_node.items(), key=lambda t: -t[1])[:top]:
        op, shape = shapes[node]
        print(f"  {us / runs / 1000:7.3f}  {op:18s} {json.dumps(shape)[:60]:60s} {node[:70]}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 30)
