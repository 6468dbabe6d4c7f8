# Writes an int64 TensorProto: write-ints.py OUT.pb NAME DIMS VALUE...
# (DIMS as 4 or 2x2).
import sys

import numpy as np
from onnx import numpy_helper

out, name, dims, *values = sys.argv[1:]
shape = [int(d) for d in dims.split("x")]
array = np.array([int(v) for v in values], dtype=np.int64).reshape(shape)
with open(out, "wb") as f:
    f.write(numpy_helper.from_array(array, name).SerializeToString())
