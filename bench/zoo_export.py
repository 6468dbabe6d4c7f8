#!/usr/bin/python3
"""Exports the model zoo of bench/zoo.sh: torchvision classifiers (random
weights, nothing downloaded) at batch 1, 3x224x224, and PyTorch transformer
encoders and decoders at two sizes, each as ONNX (opset 17) with its input
and torch's output for that input in the ONNX test layout:

    DIR/NAME/model.onnx, DIR/NAME/test_data_set_0/{input_K,output_0}.pb

    /usr/bin/python3 bench/zoo_export.py DIR [NAME...]

A model already exported is kept. Needs Debian's python3-torch and
python3-torchvision (bench/zoo.sh installs them when missing)."""
import pathlib
import sys

import numpy as np
import torch
import torchvision
from onnx import numpy_helper

VISION = ["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
          "efficientnet_b0", "mnasnet1_0", "shufflenet_v2_x1_0",
          "regnet_y_400mf", "googlenet", "densenet121", "resnet18",
          "resnet50", "convnext_tiny"]
# name: (layers, d_model, heads, feed-forward, sequence)
TRANSFORMERS = {
    "encoder_small": (2, 256, 4, 1024, 128),
    "encoder_base": (4, 512, 8, 2048, 128),
    "decoder_small": (2, 256, 4, 1024, 64),
    "decoder_base": (4, 512, 8, 2048, 64),
}
DEFAULT = VISION + list(TRANSFORMERS)


class Decoder(torch.nn.Module):
    """A decoder stack with a causal mask, as a generation step runs it."""

    def __init__(self, layers, d_model, heads, ff):
        super().__init__()
        layer = torch.nn.TransformerDecoderLayer(
            d_model, heads, ff, dropout=0.0, batch_first=True)
        self.stack = torch.nn.TransformerDecoder(layer, layers)

    def forward(self, tgt, memory):
        n = tgt.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        return self.stack(tgt, memory, tgt_mask=mask)


def build(name):
    if name in TRANSFORMERS:
        layers, d, heads, ff, seq = TRANSFORMERS[name]
        if name.startswith("encoder"):
            layer = torch.nn.TransformerEncoderLayer(
                d, heads, ff, dropout=0.0, batch_first=True)
            # The fused fast path is a runtime kernel, not exportable.
            model = torch.nn.TransformerEncoder(
                layer, layers, enable_nested_tensor=False)
            return model, (torch.randn(1, seq, d),), ["x"]
        return (Decoder(layers, d, heads, ff),
                (torch.randn(1, seq, d), torch.randn(1, 2 * seq, d)),
                ["tgt", "memory"])
    model = getattr(torchvision.models, name)(weights=None)
    return model, (torch.randn(1, 3, 224, 224),), ["input"]


def main():
    out = pathlib.Path(sys.argv[1])
    for name in sys.argv[2:] or DEFAULT:
        case = out / name
        if (case / "test_data_set_0" / "output_0.pb").exists():
            continue
        torch.manual_seed(0)
        model, inputs, names = build(name)
        model = model.eval()
        with torch.no_grad():
            expected = model(*inputs)
        data = case / "test_data_set_0"
        data.mkdir(parents=True, exist_ok=True)
        torch.onnx.export(model, inputs, str(case / "model.onnx"),
                          opset_version=17, input_names=names,
                          output_names=["output"], do_constant_folding=True)
        for i, (tensor, input_name) in enumerate(zip(inputs, names)):
            (data / f"input_{i}.pb").write_bytes(numpy_helper.from_array(
                tensor.numpy(), input_name).SerializeToString())
        (data / "output_0.pb").write_bytes(numpy_helper.from_array(
            np.asarray(expected.numpy()), "output").SerializeToString())
        print(name, flush=True)


if __name__ == "__main__":
    main()
