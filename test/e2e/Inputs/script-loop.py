# The inputs of script-loop.onnxtext (what torch.jit.script exports for a
# loop over time steps that stops on a value and an `if` on an input), and a
# numpy reference of it to check int21-run's outputs against:
#   script-loop.py write DIR   writes DIR/CASE-{x,threshold,mode}.pb
#   script-loop.py check DIR   compares DIR/CASE/output_0.pb, prints a line
#                              per case
import sys

import numpy as np
import onnx
import onnx.numpy_helper as nh

W = np.array([[0.5, -0.25], [0.75, 0.5], [0.25, 1], [-0.5, 0.25]], np.float32)
CASES = {
    # All six steps run (the sum never passes 5), doubled.
    "all": (np.linspace(-1, 1, 12, dtype=np.float32).reshape(6, 2), 5.0, 1),
    # Stops after the second step, lowered by one.
    "early": (np.array([[0.1, 0.2], [2, 2], [3, 3], [-1, 1]], np.float32), 1.0, 0),
    # One step.
    "one": (np.array([[0.5, -0.5]], np.float32), 0.0, 3),
}


def reference(x, threshold, mode):
    h = np.zeros((1, 2), np.float32)
    t = 0
    while t < x.shape[0]:
        h = np.tanh(np.concatenate([x[t:t + 1], h], 1) @ W)
        if h.sum() > threshold:
            break
        t += 1
    return h * 2 if mode > 0 else h - 1


def main():
    mode, out = sys.argv[1], sys.argv[2]
    for name, (x, threshold, m) in CASES.items():
        if mode == "write":
            for key, value in {"x": x, "threshold": np.array(threshold, np.float32),
                               "mode": np.array(m, np.int64)}.items():
                onnx.save_tensor(nh.from_array(value), f"{out}/{name}-{key}.pb")
            continue
        t = onnx.TensorProto()
        with open(f"{out}/{name}/output_0.pb", "rb") as f:
            t.ParseFromString(f.read())
        got, want = nh.to_array(t), reference(x, threshold, m)
        ok = got.shape == want.shape and np.allclose(got, want, atol=1e-5)
        print(f"{name}: {'match' if ok else 'MISMATCH'} {list(got.shape)}")


main()
