import int21
import numpy as np
engine = int21.compile("../shared/models/mlp.onnx")
outputs = engine.run({"input": np.random.rand(64, 784).astype(np.float32)})
print(outputs["output"].shape)
