"""Writes the input and expected outputs of Inputs/gpu-host.mlir to DIR in the
ONNX test layout (input_0.pb, output_0.pb, output_1.pb)."""
import os
import sys

import numpy as np
from onnx import numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
x = (np.arange(16, dtype=np.float32) - 8.0) * 0.75
w = np.array([-20.0, 1.0, -20.0, 3.0, -40.0, 5.0, 6.0, 7.0], dtype=np.float32)
y = np.maximum(2.0 * x[4:12] + w, 0.0).astype(np.float32)
z = x[:8].reshape(2, 4)
for name, value, file in [("x", x, "input_0.pb"), ("y", y, "output_0.pb"),
                          ("z", z, "output_1.pb")]:
    with open(os.path.join(out, file), "wb") as f:
        f.write(numpy_helper.from_array(value, name).SerializeToString())
