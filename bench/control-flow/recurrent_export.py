"""Exports the recurrent and scripted models of the control-flow benchmark
(bench/RESULTS.md) into the current directory, with torch (python3-torch):
  lstm_dyn.onnx  one LSTM layer, 128 -> 256, sequence length and batch as
                 dynamic_axes (int21: a loop over the time steps)
  gru_dyn.onnx   the same with a GRU
  script.onnx    torch.jit.script: a loop over x's rows (a 256-wide cell)
                 that stops when the state's sum passes a threshold, then an
                 `if` on an input (int21: its output sized by the run)"""
import sys

import numpy as np
import torch

torch.manual_seed(0)


class Recurrent(torch.nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(128, 256)

    def forward(self, x):
        return self.rnn(x)[0]


class Scripted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.Linear(512, 256)

    def forward(self, x, threshold, mode):
        h = torch.zeros(1, 256)
        t = 0
        while t < x.size(0):
            h = torch.tanh(self.cell(torch.cat([x[t:t + 1], h], 1)))
            if bool(h.sum() > threshold):
                break
            t += 1
        if bool(mode > 0):
            out = h * 2.0
        else:
            out = h - 1.0
        return out


for name, cell in [("lstm_dyn", torch.nn.LSTM), ("gru_dyn", torch.nn.GRU)]:
    model = Recurrent(cell).eval()
    x = torch.randn(64, 1, 128)
    torch.onnx.export(model, x, name + ".onnx", input_names=["x"],
                      output_names=["y"], opset_version=14,
                      dynamic_axes={"x": {0: "T", 1: "B"}, "y": {0: "T", 1: "B"}})
    print(name + ".onnx")

scripted = torch.jit.script(Scripted())
args = (torch.randn(64, 256), torch.tensor(1e9), torch.tensor(1))
torch.onnx.export(scripted, args, "script.onnx",
                  input_names=["x", "threshold", "mode"], output_names=["y"],
                  dynamic_axes={"x": {0: "T"}}, opset_version=16)
print("script.onnx")
sys.stdout.flush()
