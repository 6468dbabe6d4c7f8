# Writes grouped convolutions (Conv with 1 < group < channels) of the shapes
# RegNet- and ResNeXt-class models have and of the edge cases around them
# (group widths of 8, 4 and 16, more filters than channels per group, rows
# that are no multiple of the vector width, stride 2, dilation, a 5x5 window,
# asymmetric padding, batch 2, the epilogues ReLU, ReLU6 and SiLU and a
# residual add, none; a 1-D and a 3x3 one of one group per two channels),
# each with inputs and the outputs of a numpy reference, in the ONNX test
# layout: OUT/CASE/model.onnx, OUT/CASE/test_data_set_0/*.pb
import sys

import numpy as np

from depthwise import write_case

CASES = [
    # name, N, C, F, group, spatial, window, strides, pads, dilations,
    # epilogue, residual
    ("gc_regnet", 1, 48, 48, 6, (28, 28), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "relu", False),
    ("gc_s2", 1, 32, 32, 4, (17, 17), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), "none", False),
    ("gc_widen", 1, 16, 24, 4, (14, 14), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "relu6", False),
    ("gc_width4_residual", 1, 32, 32, 8, (7, 7), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "relu", True),
    ("gc_width16_silu", 1, 32, 32, 2, (10, 12), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "silu", False),
    ("gc_dilated", 1, 16, 16, 2, (12, 12), (3, 3), (1, 1), (2, 2, 2, 2), (2, 2), "none", False),
    ("gc_5x5_asym", 1, 12, 12, 3, (16, 16), (5, 5), (2, 2), (1, 1, 2, 2), (1, 1), "relu", False),
    ("gc_batch2", 2, 16, 16, 2, (9, 9), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "relu6", False),
    ("gc_1d", 1, 8, 12, 2, (33,), (3,), (1,), (1, 1), (1,), "relu", False),
]


def main(out):
    rng = np.random.default_rng(21)
    for (name, n, c, f, group, spatial, window, strides, pads, dilations, epi,
         residual) in CASES:
        x = rng.standard_normal((n, c) + spatial).astype(np.float32)
        w = (rng.standard_normal((f, c // group) + window) /
             np.sqrt(c // group * np.prod(window))).astype(np.float32)
        b = rng.standard_normal(f).astype(np.float32)
        r = None
        if residual:
            k = len(spatial)
            out_shape = [(spatial[i] + pads[i] + pads[k + i] - dilations[i] *
                          (window[i] - 1) - 1) // strides[i] + 1 for i in range(k)]
            r = rng.standard_normal([n, f] + out_shape).astype(np.float32)
        write_case(out, name, x, w, b, group, window, strides, pads, dilations,
                   epi, r)


if __name__ == "__main__":
    main(sys.argv[1])
