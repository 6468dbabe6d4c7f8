# Exports torchvision models with a dynamic batch and image size
# (dynamic_axes {0: batch, 2: height, 3: width}) and, for each shape to run
# at, an input and torch's output, as ONNX TensorProto files:
#   OUT/NAME.onnx, OUT/NAME/set_K/{input_0,output_0}.pb
# Random weights (nothing is downloaded); cached: a model already exported
# is kept.
# Usage: dynamic_export.py OUT SHAPES NAME...   (SHAPES: "1x64x64,3x64x64,...")
import os
import sys

import numpy as np
import torch
import torchvision
from onnx import numpy_helper


def export(out, name, shapes):
    path = os.path.join(out, f"{name}.onnx")
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    if not os.path.exists(path):
        n, h, w = shapes[0]
        torch.onnx.export(
            model, torch.randn(n, 3, h, w), path, input_names=["input"],
            output_names=["output"], opset_version=17,
            dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"},
                          "output": {0: "batch"}})
    rng = np.random.default_rng(1)
    for k, (n, h, w) in enumerate(shapes):
        data = os.path.join(out, name, f"set_{k}")
        os.makedirs(data, exist_ok=True)
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy()
        for file, array, tensor in (("input_0.pb", x, "input"),
                                    ("output_0.pb", y, "output")):
            with open(os.path.join(data, file), "wb") as f:
                f.write(numpy_helper.from_array(array, tensor).SerializeToString())


def main():
    out, shapes = sys.argv[1], sys.argv[2]
    shapes = [tuple(int(d) for d in s.split("x")) for s in shapes.split(",")]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[3:]:
        export(out, name, shapes)
        print(name)


if __name__ == "__main__":
    main()
