#!/usr/bin/python3
"""Exports torchvision classifiers (random weights: nothing is downloaded)
as ONNX for bench/cpu-vs-ort.sh, batch 1, 3x224x224, opset 17:

    /usr/bin/python3 bench/torchvision-models.py DIR [NAME...]
    MODELS=DIR NAMES="mobilenet_v2 shufflenet_v2_x1_0 mnasnet1_0 \\
        efficientnet_b0 resnet18" bench/cpu-vs-ort.sh 50

Needs Debian's python3-torch and python3-torchvision (not installed by
scripts/setup.sh: benchmarks only)."""
import pathlib
import sys

import torch
import torchvision

DEFAULT = ["mobilenet_v2", "shufflenet_v2_x1_0", "mnasnet1_0",
           "efficientnet_b0", "resnet18"]


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    for name in sys.argv[2:] or DEFAULT:
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        torch.onnx.export(model, x, str(out / f"{name}.onnx"), opset_version=17,
                          input_names=["input"], output_names=["logits"],
                          do_constant_folding=True)
        print(name)


if __name__ == "__main__":
    main()
