#!/usr/bin/env python3
"""Exports the shared encoder (make_models.py's Encoder) and a TransformerDecoder
of its size with a causal mask, with a dynamic batch and sequence length, and
torch's outputs at each (batch, length) of SHAPES as test data sets.

Usage: dynamic_transformers.py OUT SHAPES   (SHAPES: BxT,BxT,...)
Writes OUT/encoder.onnx, OUT/decoder.onnx and OUT/{encoder,decoder}/set_K/
{input_K,output_0}.pb (the decoder's memory is T + 5 long).
"""
import os
import sys

import torch
import torch.nn as nn
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "models"))
from make_models import Encoder  # noqa: E402


class Decoder(nn.Module):
    def __init__(self, d=256, heads=4, ff=1024, layers=2):
        super().__init__()
        layer = nn.TransformerDecoderLayer(d, heads, ff, dropout=0.0,
                                           activation="gelu", batch_first=True)
        self.dec = nn.TransformerDecoder(layer, layers)

    def forward(self, x, memory):
        t = x.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        return self.dec(x, memory, tgt_mask=mask)


def save(directory, tensors, outputs):
    os.makedirs(directory, exist_ok=True)
    for i, t in enumerate(tensors):
        with open(f"{directory}/input_{i}.pb", "wb") as f:
            f.write(numpy_helper.from_array(t.numpy()).SerializeToString())
    with open(f"{directory}/output_0.pb", "wb") as f:
        f.write(numpy_helper.from_array(outputs.numpy()).SerializeToString())


def main(out, shapes):
    torch.manual_seed(0)
    encoder, decoder = Encoder().eval(), Decoder().eval()
    os.makedirs(out, exist_ok=True)
    axes = {0: "batch", 1: "seq"}
    torch.onnx.export(encoder, (torch.randn(1, 16, 256),),
                      f"{out}/encoder.onnx", opset_version=17,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": axes, "output": axes})
    torch.onnx.export(decoder, (torch.randn(1, 16, 256), torch.randn(1, 21, 256)),
                      f"{out}/decoder.onnx", opset_version=17,
                      input_names=["input", "memory"], output_names=["output"],
                      dynamic_axes={"input": axes, "output": axes,
                                    "memory": {0: "batch", 1: "memory"}})
    with torch.no_grad():
        for k, shape in enumerate(shapes.split(",")):
            b, t = (int(v) for v in shape.split("x"))
            x = torch.randn(b, t, 256)
            save(f"{out}/encoder/set_{k}", [x], encoder(x))
            memory = torch.randn(b, t + 5, 256)
            save(f"{out}/decoder/set_{k}", [x, memory], decoder(x, memory))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
