# Writes an integer TensorProto: write-ints.py [--int32] OUT.pb NAME DIMS
# VALUE... (DIMS as 4 or 2x2; int64 unless --int32).
import sys

import numpy as np
from onnx import numpy_helper

args = sys.argv[1:]
dtype = np.int64
if args and args[0] == "--int32":
    dtype = np.int32
    args = args[1:]
out, name, dims, *values = args
shape = [int(d) for d in dims.split("x")]
array = np.array([int(v) for v in values], dtype=dtype).reshape(shape)
with open(out, "wb") as f:
    f.write(numpy_helper.from_array(array, name).SerializeToString())
