# random.test's helper: `write DIR` writes the model's inputs; `check DIR
# MODE` compares the outputs of a run with what numpy's legacy generator
# gives for the same seeds (MODE train: Dropout drops; eval: it keeps all);
# `differ A B` says whether the unseeded output of two runs differs.
import sys

import numpy as np
import onnx
import onnx.numpy_helper as h


def load(path):
    t = onnx.TensorProto()
    t.ParseFromString(open(path, "rb").read())
    return h.to_array(t)


x = np.arange(1, 11, dtype=np.float32).reshape(2, 5)
command, d = sys.argv[1], sys.argv[2]
if command == "write":
    inputs = {"x": x, "r": np.array(0.4, np.float32),
              "on": np.array(True), "off": np.array(False)}
    for name, value in inputs.items():
        with open(f"{d}/{name}.pb", "wb") as f:
            f.write(h.from_array(value).SerializeToString())
elif command == "check":
    u, n, y, mask, like = (load(f"{d}/output_{i}.pb") for i in range(5))
    np.random.seed(0)
    print("uniform", np.array_equal(u, (np.random.rand(3, 4) * 5 - 2).astype(np.float32)))
    np.random.seed(5)
    print("normal", np.array_equal(n, np.random.randn(7) * 0.5 + 1))
    if sys.argv[3] == "train":
        np.random.seed(3)
        keep = np.random.uniform(0, 1, (2, 5)) >= 0.4
        print("dropout", np.array_equal(mask, keep),
              np.allclose(y, keep * x / np.float32(0.6)))
    else:
        print("dropout", bool(mask.all()), np.array_equal(y, x))
    print("like", like.shape, bool(((like >= 0) & (like < 1)).all()))
else:
    a, b = load(f"{d}/output_4.pb"), load(f"{sys.argv[3]}/output_4.pb")
    print("unseeded runs differ", not np.array_equal(a, b))
