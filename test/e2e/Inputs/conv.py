# Writes convolutions of one group (the ones that are no 1x1 matmul) of the
# shapes ResNet-, GoogLeNet- and DenseNet-class models have and the edges
# around them, for both algorithms of @cpu.conv2d_nchw: stride 1 with rows
# of 14 and more (the window form by default; rows of 16, 20 and 28 columns,
# 16 + 4 and 16 + 12 peeled), a 5x5 window with asymmetric padding, batch 2,
# rows of 7 and stride 2 (im2col by default), 3 input channels, the
# epilogues ReLU, ReLU6, SiLU and a residual add, none; each with inputs and
# the outputs of a numpy reference, in the ONNX test layout:
# OUT/CASE/model.onnx, OUT/CASE/test_data_set_0/*.pb
import json
import os
import sys

import numpy as np

from depthwise import write_case

CASES = [
    # name, N, C, F, spatial, window, strides, pads, epilogue, residual
    ("conv_56", 1, 16, 24, (56, 56), (3, 3), (1, 1), (1, 1, 1, 1), "relu", False),
    ("conv_28_residual", 1, 24, 32, (28, 28), (3, 3), (1, 1), (1, 1, 1, 1), "relu", True),
    ("conv_14_odd_filters", 1, 32, 20, (14, 14), (3, 3), (1, 1), (1, 1, 1, 1), "relu6", False),
    ("conv_20x16_silu", 1, 8, 16, (20, 16), (3, 3), (1, 1), (1, 1, 1, 1), "silu", False),
    ("conv_5x5_asym", 1, 12, 16, (18, 18), (5, 5), (1, 1), (1, 2, 2, 1), "none", False),
    ("conv_batch2", 2, 8, 8, (16, 16), (3, 3), (1, 1), (1, 1, 1, 1), "relu", False),
    ("conv_rgb_s1", 1, 3, 16, (32, 32), (3, 3), (1, 1), (1, 1, 1, 1), "relu", False),
    ("conv_7", 1, 32, 32, (7, 7), (3, 3), (1, 1), (1, 1, 1, 1), "relu", False),
    ("conv_s2", 1, 16, 32, (28, 28), (3, 3), (2, 2), (1, 1, 1, 1), "none", False),
]


def main(out):
    rng = np.random.default_rng(21)
    for (name, n, c, f, spatial, window, strides, pads, epi,
         residual) in CASES:
        x = rng.standard_normal((n, c) + spatial).astype(np.float32)
        w = (rng.standard_normal((f, c) + window) /
             np.sqrt(c * np.prod(window))).astype(np.float32)
        b = rng.standard_normal(f).astype(np.float32)
        r = None
        if residual:
            out_shape = [(spatial[i] + pads[i] + pads[2 + i] - (window[i] - 1)
                          - 1) // strides[i] + 1 for i in range(2)]
            r = rng.standard_normal([n, f] + out_shape).astype(np.float32)
        write_case(out, name, x, w, b, 1, window, strides, pads, (1, 1), epi,
                   r)
        # Sums of up to 288 float32 products: outputs that cancel to near
        # zero (then through ReLU) differ from the float64 reference by a
        # few 1e-6 absolute, beyond the default atol of 1e-7.
        with open(os.path.join(out, name, "data.json"), "w") as f:
            json.dump({"rtol": 1e-4, "atol": 1e-5}, f)


if __name__ == "__main__":
    main(sys.argv[1])
